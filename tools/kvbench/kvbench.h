/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvbench(1) internals: option parsing, statistics, the benchmark engine,
 * the userspace baselines and the output formats. The device ABI itself is
 * the uapi header, included as is and never redefined here.
 *
 * A section per source file, named by its folder: util/ (the clock,
 * parsers, JSON, statistics), engine/ (the benchmark and its targets),
 * report/ (the report model and what reads it), cli/ (the commands). A
 * file calls only into its own folder and those before it in that list
 * (layers.sh checks it).
 */
#ifndef KVBENCH_TOOL_H
#define KVBENCH_TOOL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>
#include <pthread.h>
#include <sys/types.h>
#include <linux/types.h>

#define KVB_DEFAULT_DEVICE	"/dev/kvbench"
#define KVB_DEFAULT_SYSFS	"/sys/class/misc/kvbench"
#define KVB_MAX_THREADS		1024
#define KVB_MAX_VALUE		(1024 * 1024)
/* A target's name: a backend's (KVB_BASE_MAX) and its io, rcu/uring-qd64-sqpoll */
#define KVB_BASE_MAX		32
#define KVB_NAME_MAX		56
/* --qd: commands in flight per thread, through io_uring */
#define KVB_MAX_QD		1024
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
/* By default one operation in 64 is timed for the latency columns. */
#define KVB_SAMPLE_EVERY	64
/* A case whose runs' spread is above this many percent is flagged noisy. */
#define KVB_NOISY_PCT		10
/* A case whose slowest thread ran below this share of the fastest's: starved. */
#define KVB_STARVED		0.5

/*
 * util/clock.c: the one clock of the tool, CLOCK_MONOTONIC in ns: the
 * engine's windows and latency samples, the rows that time their own
 * (io_uring), the backend statistics' window, the owner's spin. Inline:
 * a latency sample holds one read, whose cost kvb_clock_cost() measures.
 */
static inline __u64 kvb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

double kvb_clock_cost(void);

/* Exit codes, as for any Unix tool. */
#define KVB_EXIT_OK		0
#define KVB_EXIT_FAIL		1
#define KVB_EXIT_USAGE		2
#define KVB_EXIT_INTR		130

/* util/usage.c: "kvbench CMD: OPT: MSG", where the help is; KVB_EXIT_USAGE */
int kvb_usage(const char *cmd, const char *opt, const char *msg);

enum kvb_kind {
	KVB_NOP,		/* KVBENCH_IOC_NOP: the syscall floor */
	KVB_KERNEL,		/* a kernel backend, selected through sysfs */
	KVB_USER_RWLOCK,	/* pthread_rwlock_t over an in-process map */
	KVB_USER_OWNER,		/* one owner thread fed by a queue */
	KVB_PEER,		/* another map the kernel offers (bpf-htab) */
};

/*
 * How keys are drawn. A --workload's: KVB_LATEST (ycsb-d), the keys just
 * behind the newest insert, as YCSB's "latest" distribution; KVB_SCRAMBLED
 * (ycsb-a, b, c, f), YCSB's "zipfian", a scrambled one (kvb_ycsb_weights()).
 */
enum kvb_dist { KVB_UNIFORM, KVB_ZIPF, KVB_LATEST, KVB_SCRAMBLED };
/* KVB_FD_NONE: a target without a device fd (it runs once, whatever --fd) */
enum kvb_fd { KVB_FD_PER_THREAD, KVB_FD_SHARED, KVB_FD_NONE };
enum kvb_format { KVB_TABLE, KVB_JSON, KVB_CSV };
/*
 * How a target's operations reach the device: one ioctl each, or
 * IORING_OP_URING_CMD through a ring per thread (uring.c); KVB_IO_NONE: a
 * target without the device.
 */
enum kvb_io { KVB_IO_IOCTL, KVB_IO_URING, KVB_IO_NONE };

struct kvb_workload;

/*
 * Relative weights of GET, SET and DEL; "90:10" is get=90 set=10 del=0.
 * A --workload's mix also has inserts (a SET that makes its key the newest)
 * and read-modify-writes (a GET, then a SET of the same key: one
 * operation), and wl, the preset it comes from (NULL for a --mix).
 */
/* --after takes at most this many mixes */
#define KVB_AFTER_MAX 4

struct kvb_mix {
	unsigned int get;
	unsigned int set;
	unsigned int del;
	unsigned int ins;
	unsigned int rmw;
	const struct kvb_workload *wl;
};

/*
 * A --workload preset: YCSB's core workloads that apply to a map, and the
 * seed's own case. The weights are percentages of operations.
 */
struct kvb_workload {
	const char *name;	/* "ycsb-a", as the reports say */
	const char *alias;	/* "a", or NULL */
	const char *what;	/* what it stands for: YCSB's words */
	struct kvb_mix mix;	/* read, update (SET), insert, rmw: % */
	enum kvb_dist dist;
	double theta;		/* KVB_ZIPF, KVB_LATEST: the zipf constant */
	int all_cpus;		/* without -t: as many threads as CPUs */
};

extern const struct kvb_workload kvb_workloads[];
extern const int kvb_nworkloads;

/*
 * A workload's operation and key chooser, shared by the threads of a run
 * (bench.c) and the host tests. zipf: the sampler of its distribution
 * (NULL: uniform), a record for KVB_SCRAMBLED, for KVB_LATEST how far
 * behind the newest key. newest:
 * the newest key's counter, a shared atomic as YCSB's insert sequence:
 * the inserts bump it and every "latest" draw reads it.
 */
struct kvb_chooser {
	/* op = READ when (u32)x < read_below, else UPDATE below ... */
	__u64 read_below, update_below, insert_below;	/* else rmw */
	unsigned long n;
	enum kvb_dist dist;
	const struct kvb_zipf *zipf;
	atomic_ulong *newest;
};

enum { KVB_W_READ, KVB_W_UPDATE, KVB_W_INSERT, KVB_W_RMW };

void kvb_chooser_init(struct kvb_chooser *c, const struct kvb_mix *mix,
		      unsigned long n, const struct kvb_zipf *zipf,
		      atomic_ulong *newest);
int kvb_chooser_op(const struct kvb_chooser *c, __u64 x);
unsigned long kvb_chooser_key(const struct kvb_chooser *c, int wop,
			      __u64 *rng);

struct kvb_ulist {
	unsigned int *v;
	int n;
};

struct kvb_bench;
struct kvb_target;
struct kvbench_op;

/*
 * What one thread's operations act on; the main thread has one too, for
 * the pre-fill and the probe. A row's ->thread_init fills fd and priv.
 */
struct kvb_ctx {
	struct kvb_bench *b;
	const struct kvb_target *t;	/* the target, with its io */
	void *run;		/* the row's per-run state, from ->setup */
	int fd;			/* the device or map fd this thread uses; -1 */
	unsigned int klen;	/* key size */
	void *priv;		/* the row's per-thread state */
};

/* What a row's cases vary, and what it needs. */
#define KVB_T_MIXES	0x1	/* has a map: one case per --mix (else mix "nop") */
#define KVB_T_BATCHES	0x2	/* one case per --batch (else batch 1 only) */
#define KVB_T_FD	0x4	/* one case per --fd mode (else fd "-": none) */
#define KVB_T_DEVICE	0x8	/* needs /dev/kvbench */
#define KVB_T_RUN_MAP	0x10	/* builds a new map per run, filled each run */
#define KVB_T_BSTATS	0x20	/* a module backend: its sysfs statistics per case */
#define KVB_T_MULTI	0x40	/* one case more per --multi (packed MGET/MSET/MDEL) */

/*
 * An operation that completed (->queue): its kind, its result, and when
 * it was queued (kvb_now_ns()), 0 when it is not timed.
 */
struct kvb_done {
	int op;
	int result;
	__u64 queued_ns;
};

/*
 * One row of the target table: the benchmark's engine (bench.c) calls
 * through it and has no branch per target. Rows are defined where they are
 * implemented: nop and the kernel backends in device.c, the userspace maps
 * in umap.c, bpf-htab in bpf.c; target.c lists them by name, and pairs a
 * device's row with its io_uring row (uring.c).
 * Operations return 0 or a negative errno, like the ioctls; -ENOENT from a
 * GET or DEL is a miss. Optional ones may be NULL.
 */
struct kvb_target_ops {
	enum kvb_kind kind;	/* what the report calls it */
	const char *group;	/* -b group: "kernel", "baselines", "peers" */
	unsigned int flags;	/* KVB_T_* */
	/*
	 * Optional, once before the target's cases, when b->fd is closed:
	 * 0 ready; -1 its cases fail (said); 1 it cannot run on this machine
	 * (said in one line), its cases are left out and that is no failure.
	 */
	int (*begin)(struct kvb_bench *b, struct kvb_target *t);
	/* Optional, per run: the row's state for the run, in *run. */
	int (*setup)(struct kvb_bench *b, void **run, unsigned int threads);
	void (*teardown)(void *run);
	/*
	 * Per thread (fdmode KVB_FD_NONE for a row without KVB_T_FD), and for
	 * the main thread with KVB_FD_SHARED. The optional ->thread_fini also
	 * follows a ->thread_init that failed, or never ran (fd -1, priv NULL).
	 */
	int (*thread_init)(struct kvb_ctx *c, enum kvb_fd fdmode);
	void (*thread_fini)(struct kvb_ctx *c);
	/* One GET, SET or DEL; *vlen: the value's or buffer's length. */
	int (*op)(struct kvb_ctx *c, int op, const char *key, char *val,
		  unsigned int *vlen);
	/* KVB_T_BATCHES: n operations, each result in ops[i].result. */
	void (*batch)(struct kvb_ctx *c, struct kvbench_op *ops, unsigned int n);
	/*
	 * KVB_T_MULTI: n operations of one kind (ops[0].op), as one packed
	 * call of n keys; each result in ops[i].result.
	 */
	void (*multi)(struct kvb_ctx *c, struct kvbench_op *ops, unsigned int n);
	/*
	 * Optional: 0, or the -errno that shows this batch size (as a packed
	 * call when multi) cannot work.
	 */
	int (*probe)(struct kvb_ctx *c, unsigned int batch, int multi, char *val);
	/*
	 * Optional, for a row that keeps several operations in flight per
	 * thread (io_uring, up to the target's qd): queue one GET, SET or DEL
	 * of key (timed: note when, for the latency sample) and reap at most
	 * one that completed: 1 with *done filled, 0 while the queue fills.
	 * Then the engine calls it instead of ->op; the operations still in
	 * flight at the end are the row's to drain (->thread_fini).
	 */
	int (*queue)(struct kvb_ctx *c, int op, const char *key, int timed,
		     struct kvb_done *done);
};

struct kvb_target {
	char name[KVB_NAME_MAX];	/* base, and the io: kvb_target_name() */
	char base[KVB_BASE_MAX];	/* the backend: "rcu", "nop", "user-rwlock" */
	enum kvb_kind kind;	/* ops->kind */
	const struct kvb_target_ops *ops;
	enum kvb_io io;
	unsigned int qd;	/* KVB_IO_URING: commands in flight per thread */
	int sqpoll;		/* KVB_IO_URING: a kernel SQ thread per ring */
};

/* The rows: device.c, umap.c, bpf.c */
extern const struct kvb_target_ops kvb_nop_ops;
extern const struct kvb_target_ops kvb_kernel_ops;
extern const struct kvb_target_ops kvb_urw_ops;
extern const struct kvb_target_ops kvb_owner_ops;
extern const struct kvb_target_ops kvb_bpf_htab_ops;
/* engine/uring.c: nop and the kernel backends through io_uring */
extern const struct kvb_target_ops kvb_nop_uring_ops;
extern const struct kvb_target_ops kvb_kernel_uring_ops;

enum kvb_order { KVB_ORDER_SHUFFLED, KVB_ORDER_SEQUENTIAL };

struct kvb_params {
	const char *device;
	const char *sysfs;
	struct kvb_target *targets;
	int ntargets;
	struct kvb_ulist threads;
	struct kvb_mix *mixes;
	int nmixes;
	struct kvb_ulist batches;
	struct kvb_ulist multis;	/* --multi: keys per packed call; none */
	bool multi_only;	/* --multi without --batch: no BATCH cases */
	struct kvb_ulist fdmodes;
	unsigned int ios;	/* --io: bits 1 << KVB_IO_IOCTL, KVB_IO_URING */
	struct kvb_ulist qds;	/* --qd */
	int sqpoll;		/* --sqpoll */
	unsigned long keys;
	unsigned int key_size;
	unsigned int value_size;
	enum kvb_dist dist;
	double theta;
	int workloads;		/* --workload: the mixes are presets */
	double duration;	/* seconds, when ops == 0 */
	double warmup;		/* seconds */
	unsigned long long ops;	/* per thread, 0 = use duration */
	unsigned int repeat;
	unsigned int owner_spin;
	int keep_hash_bits;	/* --keep-hash-bits: leave the module's hash_bits */
	const char *sys_module;	/* the module's sysfs: KVB_SYS_MODULE */
	unsigned int sample_every;	/* 0 = no latency sampling */
	/* --trace-stall US, and whether given; --trace-dir DIR or NULL */
	unsigned long long trace_stall_us;
	unsigned int trace_stall_count;	/* --trace-stall US:N, 1 without */
	int trace_stall;
	const char *trace_dir;
	double clock_ns;	/* cost of one clock read, measured at start */
	int pin;
	int quiet;
	enum kvb_format format;
	const char *output;
	const char *json;	/* also write JSON here */
	const char *csv;	/* also write CSV here */
	const char *plot;
	double budget;		/* seconds for the whole run, 0 = no limit */
	int dry_run;		/* print the plan and run nothing */
	int ncpus;		/* CPUs this process may run on */
	int *cpus;		/* their numbers, for pinning */
	__u64 seed;		/* --seed, or drawn at start: see kvb_thread_seed() */
	int seed_given;		/* --seed was given */
	/*
	 * --order: KVB_ORDER_SHUFFLED runs the plan in rounds (repeat of
	 * them), each round every case once, in kvb_round_order()'s order;
	 * KVB_ORDER_SEQUENTIAL each case's runs back to back, case by case
	 */
	enum kvb_order order;
	int no_settle;		/* --no-settle: no write to settle before a run */
	/*
	 * --after MIX[,MIX...]: before each timed run, an untimed run of a
	 * mix on the same target (the case a run comes after): the runs of
	 * round r come after after[r % nafter]; nafter 0: no --after
	 */
	struct kvb_mix after[KVB_AFTER_MAX];
	unsigned int nafter;
	int settled;		/* every run began with a settle (the report) */
	double noisy_pct;	/* --noisy: a spread above this flags a case */
	double margin;		/* --margin: the verdict's tie margin (0.05) */
	const struct kvb_prov *prov;	/* what produced the report, or NULL */
	int counters;		/* --counters: perf_event_open per op (counters.c) */
};

/*
 * Mean, median and sample standard deviation of a sample; the mean's 95%
 * interval and the median's own (kvb_median_ci()).
 */
struct kvb_summary {
	unsigned int n;
	double mean, median, stddev;
	double ci_lo, ci_hi;	/* Student's t interval of the mean; NAN for n < 2 */
	/*
	 * The median's distribution-free interval, from order statistics:
	 * 95% or more from 6 values; min..max below, med_level its actual
	 * coverage (0.9375 for 5). NAN for n < 2.
	 */
	double med_lo, med_hi, med_level;
};

/*
 * util/hist.c: a log-linear latency histogram (HdrHistogram's layout) of
 * nanoseconds. 2^KVB_HIST_SUB_BITS buckets per power of two: a value read
 * back is within 1 / KVB_HIST_SUB of the exact one (KVB_HIST_PRECISION).
 */
#define KVB_HIST_SUB_BITS	7
#define KVB_HIST_SUB		128	/* 2^KVB_HIST_SUB_BITS */
#define KVB_HIST_BUCKETS	(KVB_HIST_SUB * (64 - KVB_HIST_SUB_BITS + 1))
#define KVB_HIST_PRECISION	(1.0 / KVB_HIST_SUB)
/* A percentile p is given from n samples when n (1 - p) >= KVB_PCT_TAIL. */
#define KVB_PCT_TAIL		10
#define KVB_NPCT		5

struct kvb_hist {
	__u64 count;
	__u64 sum;		/* exact, for the mean */
	__u64 min, max;		/* exact; min ~0 while empty */
	__u64 counts[KVB_HIST_BUCKETS];
};

/* What the reports give of a histogram, NAN where unknown or insufficient. */
struct kvb_lat {
	unsigned long long samples;
	double min, mean, max;
	double pct[KVB_NPCT];	/* at kvb_lat_pcts[]; NAN: too few samples */
};

extern const double kvb_lat_pcts[KVB_NPCT];
extern const char * const kvb_lat_pct_names[KVB_NPCT];
void kvb_hist_init(struct kvb_hist *h);
unsigned int kvb_hist_index(__u64 v);
void kvb_hist_bounds(unsigned int i, __u64 *lo, __u64 *hi);
void kvb_hist_add(struct kvb_hist *h, __u64 v);
void kvb_hist_merge(struct kvb_hist *dst, const struct kvb_hist *src);
double kvb_hist_value_at(const struct kvb_hist *h, double pct);
unsigned long long kvb_pct_min_samples(double pct);
void kvb_hist_summary(const struct kvb_hist *h, struct kvb_lat *l);

/*
 * The kernel backend's statistics over one case (sysfs, see
 * Documentation/ABI/testing/sysfs-class-misc-kvbench). valid: they were
 * read; reset: the counters were zeroed before the case, so queue_hwm and
 * drain_mean are the case's own (otherwise queue_hwm is since load and
 * drain_mean unknown: NAN).
 */
struct kvb_bstats {
	int valid;
	int reset;
	unsigned long long queue_hwm;
	double drain_mean;
	unsigned long long queue_full;	/* delta over the case */
	/*
	 * The module's requests (gets + sets + dels), callers' sleeps and
	 * combiner handoffs over the case: deltas; has_sleeps: the module
	 * has the sleeps and handoffs files. combine_mean as drain_mean.
	 */
	unsigned long long requests;
	int has_sleeps;
	unsigned long long sleeps;
	unsigned long long handoffs;
	double combine_mean;
	/*
	 * The owner threads' polling for work: poll_us, the microseconds
	 * they spun (summed over them), a delta over the case; owners, how
	 * many the backend runs, after it; has_poll: the module has the
	 * poll_us and owners files. window_s: the wall time between the two
	 * reads (CLOCK_MONOTONIC), the whole kvb_run_case() (its pre-fill,
	 * warm-ups and every run); before the case, when the window began.
	 */
	int has_poll;
	unsigned long long poll_us;
	unsigned long long owners;
	double window_s;
};

double kvb_wakeups_per_req(const struct kvb_bstats *b);
double kvb_poll_cpus(const struct kvb_bstats *b, double seconds);

/*
 * counters.c: bench --counters, perf_event_open(2) counts per operation:
 * instructions, cycles, cache misses (user and kernel apart) and context
 * switches, each worker thread's over its timed window, summed over the
 * threads and runs of a case and divided by their operations.
 */
enum {
	KVB_CTR_INSTR_U, KVB_CTR_INSTR_K,
	KVB_CTR_CYC_U, KVB_CTR_CYC_K,
	KVB_CTR_CMISS_U, KVB_CTR_CMISS_K,
	KVB_CTR_CSW,
	KVB_CTR_NEV
};

/* Not an errno: opened, but never on a counter; the read failed */
#define KVB_CTR_EUNSCHED	(-1)
#define KVB_CTR_EREAD		(-2)
#define KVB_CTR_NO_PARANOID	(-1000)	/* perf_event_paranoid unreadable */
#define KVB_CTR_WHY		128

/* One worker thread's events over one run. */
struct kvb_ctr_thread {
	int asked;		/* --counters */
	int nopen;		/* events open (fd >= 0) */
	int fd[KVB_CTR_NEV];
	int err[KVB_CTR_NEV];	/* 0, or the errno of perf_event_open */
	int paranoid;		/* perf_event_paranoid, read after an EACCES */
	unsigned int read_failed;	/* bit per event */
	__u64 val[KVB_CTR_NEV], ena[KVB_CTR_NEV], run[KVB_CTR_NEV];
};

/* The threads and runs of a case, added up (scaled where multiplexed). */
struct kvb_ctr_acc {
	int on;
	unsigned long long ops;	/* operations in the counted windows */
	double count[KVB_CTR_NEV], ena[KVB_CTR_NEV], run[KVB_CTR_NEV];
	int err[KVB_CTR_NEV];	/* the first reason an event is not counted */
	int paranoid;
};

/*
 * A case's figures, as reported and read back: per_op NAN exactly when
 * why[] says why; running_pct the share of the window the event had a
 * counter (scaled below 100). on: --counters (else the JSON's null).
 */
struct kvb_ctr_case {
	int on;
	unsigned long long ops;
	double per_op[KVB_CTR_NEV];
	double running_pct[KVB_CTR_NEV];
	char why[KVB_CTR_NEV][KVB_CTR_WHY];
};

/* The system calls, a seam for the unit tests (kvb_ctr_sys). */
struct perf_event_attr;
struct kvb_ctr_sys {
	int (*open)(struct perf_event_attr *attr);	/* an fd, or -1 and errno */
	int (*enable)(int on);		/* all of the calling thread's events */
	ssize_t (*read)(int fd, void *buf, size_t len);
	int (*close)(int fd);
	int (*paranoid)(void);		/* or KVB_CTR_NO_PARANOID */
};

extern const struct kvb_ctr_sys *kvb_ctr_sys;

struct kvb_ctr_row {
	const char *label;
	const struct kvb_ctr_case *c;
};

const char *kvb_ctr_name(int ev);
const char *kvb_ctr_col(int ev);
int kvb_ctr_by_name(const char *name);
void kvb_ctr_open(struct kvb_ctr_thread *t, int on);
void kvb_ctr_start(struct kvb_ctr_thread *t);
void kvb_ctr_stop(struct kvb_ctr_thread *t);
void kvb_ctr_add(struct kvb_ctr_acc *a, const struct kvb_ctr_thread *t,
		 unsigned long long ops);
void kvb_ctr_merge(struct kvb_ctr_acc *a, const struct kvb_ctr_acc *b);
void kvb_ctr_finish(const struct kvb_ctr_acc *a, struct kvb_ctr_case *c);
void kvb_ctr_why(char *buf, size_t len, int ev, int err, int paranoid);
void kvb_ctr_table(FILE *f, const struct kvb_ctr_row *rows, int n);

/* One row of the report: a case, measured params->repeat times. */
struct kvb_result {
	char target[KVB_NAME_MAX];
	enum kvb_kind kind;
	struct kvb_mix mix;	/* mix.wl: the --workload preset, or NULL */
	enum kvb_dist dist;	/* the keys' distribution: --dist or mix.wl's */
	double theta;
	unsigned int threads;
	unsigned int batch;	/* operations per call */
	int multi;		/* the calls are packed MGET/MSET/MDEL, not BATCH */
	enum kvb_fd fdmode;
	enum kvb_io io;
	unsigned int qd;	/* 0 unless io is KVB_IO_URING */
	int sqpoll;
	unsigned int submit_batch;	/* io_uring: SQEs per submission; 0 */
	unsigned int runs;
	double *run_ops;	/* ops/s of each run */
	unsigned int *run_round;	/* the round of each run, from 0 */
	double ops_per_sec;	/* median of run_ops */
	double ns_per_op;	/* as Go's: wall time per op, 1e9 / ops_per_sec */
	double lat_per_op;	/* per thread: threads * 1e9 / ops_per_sec */
	double spread_pct;	/* (max - min) / median of run_ops, in % */
	struct kvb_summary sum;	/* mean, stddev, 95% CI of run_ops */
	int noisy;		/* spread_pct above params->noisy_pct */
	struct kvb_bstats bstats;	/* the backend's own statistics */
	unsigned long long ops;	/* all runs */
	unsigned long long misses;
	unsigned long long errors;
	/* the threads' voluntary context switches in the measured parts */
	unsigned long long vcsw;
	double seconds;		/* measured time, all runs, mean over threads */
	unsigned long long samples;
	/*
	 * ns, from the case's histogram (every timed op of every thread and
	 * run): NAN when not sampled or too few samples (kvb_pct_min_samples)
	 */
	double p50, p99, p999;
	struct kvb_lat lat;	/* min, mean, max and every kvb_lat_pcts[] */
	/*
	 * Fairness: each thread's ops / its own window; per run the min and
	 * max over its threads and their ratio, then the median of each over
	 * the runs. NAN before a run.
	 */
	double thr_min, thr_max, thr_ratio;
	/*
	 * A kernel target's case: the module's hash_bits when it ran; 0 for
	 * the other targets, or a module without the parameter
	 */
	unsigned int hash_bits;
	int hash_bits_fit;	/* hash_bits is the size --keys asks for */
	double cost_vs_nop;	/* ns/op over nop's ns/op, NAN when n/a */
	double tput_vs_rwlock;	/* ops/s over rwlock's ops/s, NAN when n/a */
	int interrupted;
	struct kvb_ctr_case ctr;	/* --counters: per op; ctr.on 0 without */
	/*
	 * Every timed op's latency, all runs (the case's histogram, copied
	 * by kvb_case_summarize()): the report's "latency_hist", from which
	 * kvbench merge pools the latency of several reports. NULL: none.
	 */
	struct kvb_hist *hist;
};

/* A case of the plan that did not run, and why. */
struct kvb_skip {
	char label[160];	/* "rcu get threads=2 batch=64 fd=per-thread" (multi=64) */
	char why[160];		/* "the --budget of 600 s ran out" */
};

/*
 * --trace-stall US: the first operation (a call, for --batch and --multi;
 * from queued to completed, for --io uring) that takes more than US
 * microseconds writes a line naming it to the kernel's trace_marker and
 * then 0 to tracing_on, once per process: the ftrace ring buffer keeps
 * what the machine did up to it (whoever set up the events reads it).
 */
struct kvb_stall {
	__u64 threshold_ns;	/* ~0: off */
	unsigned long long us;	/* the threshold as given */
	char dir[256];		/* the tracefs directory (or an instance) */
	int marker_fd;		/* dir/trace_marker, or -1 */
	int on_fd;		/* dir/tracing_on, or -1 */
	int off_at_start;	/* tracing_on was 0: nothing to freeze */
	/* 0 armed; the first thread over the threshold swaps in 1 */
	atomic_int fired;
	/*
	 * US:N: fire at the Nth operation over the threshold in one run (a
	 * stall that lasts, not one hiccup); over counts them, from 0 at
	 * each run's start
	 */
	unsigned int count;
	atomic_uint over;
	/*
	 * Written by the thread that fired, read by the main thread after
	 * it joined the workers (the join orders them).
	 */
	__u64 ns;		/* how long the operation took */
	__u64 at_ns;		/* CLOCK_MONOTONIC when it fired */
	unsigned int thread;	/* the worker's index, from 0 */
	int tid, cpu;
	int marker_err, off_err;	/* errno of the two writes, or 0 */
	char what[32];		/* GET, SET, DEL, RMW, BATCH(64), MGET(64) */
	char label[160];	/* the case, as the skipped list names them */
	double at_s;		/* seconds into the bench, set by the main thread */
	int said;		/* stderr said it fired (main thread) */
};

int kvb_stall_open(struct kvb_stall *s, const char *dir, unsigned long long us,
		   char *err, size_t errlen);
int kvb_stall_hit(struct kvb_stall *s, __u64 ns, const char *what,
		  const char *label, unsigned int thread);
void kvb_stall_close(struct kvb_stall *s);
void kvb_stall_line(const struct kvb_stall *s, char *buf, size_t len);

/* stderr is a real terminal: progress lines overwrite each other */
int kvb_interactive(void);

/* What became of the plan, for the reports. */
struct kvb_outcome {
	int interrupted;	/* Ctrl-C: the results are those measured so far */
	int complete;		/* 0 while the run goes on (a report midway) */
	int skipped;		/* cases left out because --budget ran out */
	const struct kvb_skip *skips;	/* every case that did not run */
	int nskips;
	const struct kvb_stall *stall;	/* --trace-stall, or NULL */
};

/* util/parse.c: counts, durations, lists; 0, or -1 with a message in err */
int kvb_fail(char *err, size_t errlen, const char *fmt, ...);
typedef int (*kvb_item_fn)(const char *item, void *arg, char *err,
			   size_t errlen);
int kvb_each_item(const char *s, kvb_item_fn fn, void *arg, char *err,
		  size_t errlen);
int kvb_parse_ulist(const char *s, unsigned int lo, unsigned int hi,
		    unsigned int max_value, struct kvb_ulist *out,
		    char *err, size_t errlen);
int kvb_parse_seconds(const char *s, double *sec, char *err, size_t errlen);
int kvb_parse_count(const char *s, unsigned long long lo, unsigned long long hi,
		    unsigned long long *out, char *err, size_t errlen);

/* engine/workload.c: the --workload presets */
const struct kvb_workload *kvb_workload_by_name(const char *name);
void kvb_workload_list(char *buf, size_t len);

/* engine/names.c: what a case varies, as the reports name it */
void kvb_target_name(char *buf, size_t len, const char *base, enum kvb_io io,
		     unsigned int qd, int sqpoll);
void kvb_target_rename(struct kvb_target *t, const char *base);
const char *kvb_io_name(enum kvb_io io);
void kvb_call_name(unsigned int batch, int multi, char *buf, size_t len);
const char *kvb_fd_name(enum kvb_fd fd);
const char *kvb_kind_name(enum kvb_kind kind);
const char *kvb_dist_name(enum kvb_dist dist);
void kvb_mix_name(const struct kvb_mix *mix, char *buf, size_t len);
void kvb_mix_names(const struct kvb_mix *mixes, unsigned int n, char *buf, size_t len);

/*
 * engine/target.c: the target table, every target -b knows by name, in
 * the order "all" runs them; any other lower-case name may be a kernel
 * backend the module offers (kvb_check_backends() says whether).
 */
struct kvb_target_row {
	const char *name;
	const struct kvb_target_ops *ops;
};

extern const struct kvb_target_row kvb_target_table[];
extern const int kvb_ntarget_table;
extern const char * const kvb_target_groups[];
extern const int kvb_ntarget_groups;
int kvb_target_by_name(const char *name, struct kvb_target *t);
int kvb_expand_io(struct kvb_target **targets, int *n, unsigned int ios,
		  const struct kvb_ulist *qds, int sqpoll, char *err,
		  size_t errlen);

/* cli/params.c: the bench options' own parsers */
int kvb_parse_mix(const char *s, struct kvb_mix *mix, char *err, size_t errlen);
int kvb_parse_order(const char *s, enum kvb_order *order, char *err, size_t errlen);
int kvb_parse_mixes(const char *s, struct kvb_mix **mixes, int *n,
		    char *err, size_t errlen);
int kvb_parse_dist(const char *s, enum kvb_dist *dist, double *theta,
		   char *err, size_t errlen);
int kvb_parse_workloads(const char *s, struct kvb_mix **mixes, int *n,
			char *err, size_t errlen);
int kvb_parse_targets(const char *s, struct kvb_target **targets, int *n,
		      char *err, size_t errlen);
int kvb_check_backends(const char *list, const char *sysfs, char *err,
		       size_t errlen);
int kvb_parse_fdmodes(const char *s, struct kvb_ulist *out,
		      char *err, size_t errlen);
int kvb_parse_io(const char *s, unsigned int *ios, char *err, size_t errlen);

/* util/stats.c */
__u64 kvb_rand(__u64 *state);
double kvb_rand_double(__u64 *state);
void kvb_sort_u32(unsigned int *v, size_t n);
double kvb_percentile(const unsigned int *sorted, size_t n, double pct);
double kvb_median(const double *v, size_t n);
double kvb_spread_pct(const double *v, size_t n);
double kvb_t95(unsigned int df);
int kvb_median_ci(const double *v, unsigned int n, double level, double *lo,
		  double *hi, double *cover);
void kvb_summarize(const double *v, unsigned int n, struct kvb_summary *s);
__u64 kvb_thread_seed(__u64 run_seed, unsigned int thread);
void kvb_round_order(__u64 seed, unsigned int round, unsigned int *order,
		     unsigned int n);
int kvb_mwu(const double *a, unsigned int na, const double *b, unsigned int nb,
	    double *u, double *p);
double kvb_mwu_min_p(unsigned int na, unsigned int nb);

/*
 * A discrete sampler over 0..n-1 (Walker/Vose alias method: O(1) per draw).
 * Index 0 is the most popular key; theta 0 is uniform.
 */
struct kvb_zipf {
	unsigned long n;
	double theta;
	int scrambled;		/* kvb_ycsb_zipf_init(): records, not ranks */
	double *prob;
	unsigned long *alias;
};

int kvb_zipf_init(struct kvb_zipf *z, unsigned long n, double theta);
unsigned long kvb_zipf_next(const struct kvb_zipf *z, __u64 *rng);
double kvb_zipf_pmf(unsigned long n, double theta, unsigned long k);
/* YCSB's ScrambledZipfianGenerator: a zipfian over this many items */
#define KVB_YCSB_ITEMS		1e10
double kvb_zeta(double n, double theta);
void kvb_ycsb_weights(double *w, unsigned long n, double theta);
int kvb_ycsb_zipf_init(struct kvb_zipf *z, unsigned long n, double theta);
void kvb_zipf_free(struct kvb_zipf *z);

/* engine/umap.c: the in-process map behind both userspace baselines */
struct kvb_umap;

struct kvb_umap *kvb_umap_new(unsigned long nkeys);
void kvb_umap_free(struct kvb_umap *m);
/* Return 0 or a negative errno, like the ioctls. */
int kvb_umap_get(struct kvb_umap *m, const void *key, unsigned int klen,
		 void *buf, unsigned int *vlen);
int kvb_umap_set(struct kvb_umap *m, const void *key, unsigned int klen,
		 const void *val, unsigned int vlen);
int kvb_umap_del(struct kvb_umap *m, const void *key, unsigned int klen);

/* user-rwlock: the map behind one pthread_rwlock_t */
struct kvb_urw {
	pthread_rwlock_t lock;	/* protects map */
	struct kvb_umap *map;
};

int kvb_urw_init(struct kvb_urw *u, unsigned long nkeys);
void kvb_urw_destroy(struct kvb_urw *u);
int kvb_urw_op(struct kvb_urw *u, int op, const void *key, unsigned int klen,
	       void *val, unsigned int *vlen);

/*
 * user-owner: callers queue a request and wait until the owner answers.
 * Both sides poll for up to `spin` microseconds before they sleep on a
 * condition variable, as Go's runtime spins before it parks a thread; spin
 * 0 is a plain blocking handoff.
 */
#define KVB_OWNER_SPIN		50

enum { KVB_REQ_PENDING, KVB_REQ_WAITING, KVB_REQ_DONE };

struct kvb_oreq {
	pthread_mutex_t lock;	/* with cond: the caller's sleep */
	pthread_cond_t cond;
	atomic_int state;	/* KVB_REQ_*: pending -> (waiting ->) done */
	int op;
	const void *key;
	unsigned int klen;
	void *val;
	unsigned int vlen;
	int result;
};

struct kvb_owner {
	pthread_mutex_t lock;	/* protects ring, head, tail, quit, sleeping */
	pthread_cond_t cond;	/* signalled when a request is queued */
	struct kvb_oreq **ring;
	unsigned int size;	/* power of two, >= number of callers */
	unsigned int head, tail;
	int quit;
	int sleeping;		/* the owner waits on cond */
	atomic_int pending;	/* queued requests: a hint for the spin */
	unsigned int spin;	/* microseconds */
	struct kvb_umap *map;	/* touched only by the owner thread */
	pthread_t thread;
};

int kvb_owner_start(struct kvb_owner *o, unsigned long nkeys,
		    unsigned int callers, unsigned int spin);
void kvb_owner_stop(struct kvb_owner *o);
void kvb_oreq_init(struct kvb_oreq *r);
void kvb_oreq_destroy(struct kvb_oreq *r);
int kvb_owner_call(struct kvb_owner *o, struct kvb_oreq *r, int op,
		   const void *key, unsigned int klen,
		   void *val, unsigned int *vlen);

/* engine/bench.c */
extern atomic_bool kvb_interrupted;

/* The benchmark's state across cases, as the rows see it. */
struct kvb_bench {
	const struct kvb_params *p;
	char *keys;		/* nkeys * key_size bytes */
	struct kvb_zipf zipf;	/* prob == NULL for uniform */
	/*
	 * The --workload presets' key samplers, by preset (kvb_workloads[]
	 * index): wlz[i] points into zipfs[], one per distinct kind
	 * (scrambled or not) and theta, built once; NULL for a uniform one.
	 */
	const struct kvb_zipf **wlz;
	struct kvb_zipf *zipfs;
	int nzipfs;
	/* the target's fd across its cases: the device, the BPF map; -1 */
	int fd;
	int filled;		/* the target's map holds every key */
	char orig_backend[KVB_NAME_MAX];	/* before the first switch, or "" */
	/*
	 * kvb_size_hash_bits(): done (once, at the first kernel target);
	 * the module's hash_bits before it changed them, to put back at the
	 * end, or 0: not changed
	 */
	int hash_bits_sized;
	unsigned int orig_hash_bits;
	char why[160];		/* why ->begin failed, for the skipped list */
	/*
	 * io_uring on the device, without and with SQPOLL: 0 not probed
	 * yet, 1 it works, -1 it does not (uring_why[], said once).
	 */
	int uring_ok[2];
	char uring_why[2][160];
	/* the module's settle file: 0 not tried yet, 1 it works, -1 not */
	int settle_ok;
	int *settled;		/* the params' settled, cleared when it fails */
	struct kvb_stall *stall;	/* --trace-stall, or NULL */
};

void kvb_params_defaults(struct kvb_params *p);
struct kvb_bench *kvb_bench_new(const struct kvb_params *p);
void kvb_bench_free(struct kvb_bench *b);
/*
 * Returns 0; -1 when the case could not run, -2 when no case of this target
 * can (a message was printed).
 */
int kvb_run_case(struct kvb_bench *b, const struct kvb_target *t,
		 const struct kvb_mix *mix, unsigned int threads,
		 unsigned int batch, int multi, enum kvb_fd fdmode,
		 struct kvb_result *res);
void kvb_result_free(struct kvb_result *r);
void kvb_close_fd(struct kvb_bench *b);

/*
 * A case's runs one at a time, as the session runs them: what the case
 * gathers over its runs besides its result (every timed op's histogram,
 * each run's fairness), its result begun with room for --repeat runs,
 * a run added (0; 1: no operation, interrupted; else kvb_run_case()'s
 * error), the figures from the runs so far, its errors said.
 */
struct kvb_case_acc {
	struct kvb_hist *all;
	double *tmin, *tmax, *tratio;
	int first_err;
	struct kvb_ctr_acc ctr;	/* --counters, every run's */
};

void kvb_case_acc_free(struct kvb_case_acc *a);
int kvb_case_init(const struct kvb_params *p, const struct kvb_target *t,
		  const struct kvb_mix *mix, unsigned int threads,
		  unsigned int batch, int multi, enum kvb_fd fdmode,
		  struct kvb_result *res, struct kvb_case_acc *a);
int kvb_case_run(struct kvb_bench *b, const struct kvb_target *t,
		 const struct kvb_mix *mix, unsigned int round,
		 struct kvb_result *res, struct kvb_case_acc *a);
void kvb_case_summarize(const struct kvb_params *p, struct kvb_result *res,
			const struct kvb_case_acc *a);
void kvb_case_errors(const struct kvb_target *t, const struct kvb_result *res,
		     const struct kvb_case_acc *a);

/* engine/plan.c: one case of a target; threads vary fastest */
struct kvb_case {
	const struct kvb_mix *mix;
	unsigned int threads;
	unsigned int batch;
	int multi;		/* batch keys per packed call, not a BATCH */
	enum kvb_fd fdmode;
};

int kvb_cases_of(const struct kvb_params *p, const struct kvb_target *t);
void kvb_case_at(const struct kvb_params *p, const struct kvb_target *t,
		 int i, struct kvb_case *c);
int kvb_count_cases(const struct kvb_params *p);
double kvb_case_seconds(const struct kvb_params *p, const struct kvb_target *t,
			const struct kvb_case *c, unsigned int repeat);
double kvb_target_seconds(const struct kvb_params *p,
			  const struct kvb_target *t, unsigned int repeat);
double kvb_plan_seconds(const struct kvb_params *p, unsigned int repeat);
void kvb_fit_budget(struct kvb_params *p, FILE *note);

/* engine/session.c: one invocation's plan, and what has become of it */
struct kvb_session {
	const struct kvb_params *p;
	struct kvb_bench *b;
	struct kvb_result *res;	/* room for every case of the plan */
	int nres;		/* cases measured */
	int total;		/* cases planned */
	int failed;		/* cases that failed or could not run */
	int skipped;		/* cases the budget left out */
	int unavailable;	/* cases of targets this machine cannot run */
	char first_skipped[160];
	struct kvb_skip *skips;	/* every case that did not run, and why */
	int nskips;
	__u64 t0;		/* when the first case started */
	int nodev;		/* the device cannot be opened: nodev_why */
	char nodev_why[160];
	int write_err;		/* a report could not be written */
	/*
	 * --order shuffled: res[] has a slot per case of the plan, in its
	 * order, filled round by round; view[] the cases with a run so far
	 * (what the reports show). Sequential: view is res.
	 */
	int shuffled;
	struct kvb_result *view;
	int nview;
	unsigned int rounds_done;	/* rounds run to their end */
	unsigned int rounds_cut;	/* rounds the budget left out */
	/* after every run that added to res[]: the caller's reports */
	int (*on_case)(struct kvb_session *s);
};

int kvb_session_init(struct kvb_session *s, struct kvb_params *p);
void kvb_session_free(struct kvb_session *s);
int kvb_session_device(struct kvb_session *s);
void kvb_session_run(struct kvb_session *s);

/* cli/bench.c: kvbench bench */
int kvb_bench_main(int argc, char **argv, const char *device);

/* output.c */
void kvb_compute_ratios(struct kvb_result *r, int n);
void kvb_print_table(FILE *f, const struct kvb_params *p,
		     const struct kvb_result *r, int n,
		     const struct kvb_outcome *o);
int kvb_oversubscribed(const struct kvb_params *p);
void kvb_print_csv(FILE *f, const struct kvb_result *r, int n);

/* report/gnuplot.c: what both figures need of gnuplot */
enum kvb_plot_fmt { KVB_PLOT_PNG, KVB_PLOT_SVG, KVB_PLOT_JPEG };

int kvb_plot_format(const char *file, char *err, size_t errlen);
int kvb_plot_check(const char *file, char *err, size_t errlen);
int kvb_run_gnuplot(const char *text, size_t len, char *err, size_t errlen);
const char *kvb_plot_term(enum kvb_plot_fmt fmt);
void kvb_gnuplot_str(FILE *g, const char *s);

/* plot.c: the figure, drawn by gnuplot from a JSON report */
struct kvb_rmodel;
int kvb_plot_script(FILE *g, const char *file, const struct kvb_rmodel *report,
		    char *err, size_t errlen);
int kvb_plot_json(const char *file, const char *json, const char *what);
/* forest.c: the verdict's figure, a forest plot per workload group */
int kvb_forest_script(FILE *g, const char *file, const struct kvb_rmodel *m,
		      char *err, size_t errlen);
int kvb_ops_script(FILE *g, const char *file, const struct kvb_rmodel *m,
		   char *err, size_t errlen);
int kvb_plot_main(int argc, char **argv);

/* cli/devstats.c: kvbench stats, the device's sysfs files */
struct kvb_sysfs_file {
	char name[64];
	char value[256];	/* newlines turned into spaces */
	int writeonly;
};

struct kvb_sysfs_snap {
	struct kvb_sysfs_file *files;	/* sorted by name */
	int n;
	double time;		/* CLOCK_MONOTONIC seconds, when read */
};

int kvb_sysfs_read(const char *dir, struct kvb_sysfs_snap *s, char *err,
		   size_t errlen);
void kvb_sysfs_print(FILE *out, const char *dir, const struct kvb_sysfs_snap *cur,
		     const struct kvb_sysfs_snap *prev);
void kvb_sysfs_free(struct kvb_sysfs_snap *s);
int kvb_stats_main(int argc, char **argv);

/* engine/prov.c: what produced a report */
#define KVB_SYS_MODULE		"/sys/module/kvbench"
#define KVB_PROV_MAX_PARAMS	32

/*
 * The host a report was measured on, as a reviewer asks for it (prov.c):
 * each read from files under a root directory ("" for the live system,
 * a tree of fixture files in the tests). "" or -1: unknown (null in the
 * JSON).
 */
#define KVB_PROV_MAX_NODES	16
/*
 * A host is busy when its CPUs were this many percent busy (not idle, not
 * waiting for I/O; stolen time counts) over the KVB_BUSY_WINDOW_MS before
 * the run. Not the load average: in a guest, or after another kvbench
 * run, that still counts the last minute's benchmark threads.
 */
#define KVB_BUSY_PCT		25
#define KVB_BUSY_WINDOW_MS	250

struct kvb_host {
	char cmdline[1024];	/* /proc/cmdline */
	char preempt[16];	/* none, voluntary, full, lazy, rt, dynamic */
	char preempt_src[96];	/* where preempt came from */
	int hz;			/* CONFIG_HZ of /boot/config-RELEASE; 0 */
	char governor[32];	/* cpu0's cpufreq scaling_governor */
	int smt_active;		/* /sys/devices/system/cpu/smt/active: 0, 1; -1 */
	char smt_control[24];	/* on, off, forceoff, notsupported, ... */
	int nnodes;		/* NUMA nodes found, -1: no node directory */
	int node_id[KVB_PROV_MAX_NODES];
	char node_cpus[KVB_PROV_MAX_NODES][64];	/* cpulist: "0-3,8-11" */
	double load_before[3];	/* /proc/loadavg: 1, 5, 15 minutes; */
	double load_after[3];	/* NAN when unknown (after: not yet) */
	char srcversion[64];	/* /sys/module/kvbench/srcversion */
	char accel_src[32];	/* "KVBENCH_ACCEL", "cpuinfo", "" */
	double busy_pct;	/* CPUs' busy share over the window; NAN */
	double steal_pct;	/* of all their time, the share stolen; NAN */
	int busy;		/* busy_pct >= KVB_BUSY_PCT */
};

struct kvb_prov {
	const char *tool_version;
	const char *tool_git;	/* git describe at build time, "" if none */
	char module_version[64];	/* "" when not loaded or no version */
	char *cmdbuf;		/* the command line, NUL-separated */
	char **argv;		/* into cmdbuf */
	int argc;
	char cpu_model[128];
	long nproc;		/* CPUs online */
	char accel[32];		/* $KVBENCH_ACCEL, or "unknown" */
	int nparams;		/* -1: the module's parameters/ unreadable */
	char param_name[KVB_PROV_MAX_PARAMS][48];
	char param_value[KVB_PROV_MAX_PARAMS][80];
	struct kvb_host host;	/* the kernel and machine it ran on */
};

extern const char kvb_version[];
extern const char kvb_git_describe[];
void kvb_prov_collect(struct kvb_prov *pv, const char *sys_module,
		      int argc, char **argv);
void kvb_prov_free(struct kvb_prov *pv);
int kvb_module_params(struct kvb_prov *pv, const char *dir);
struct utsname;
double kvb_stat_busy_pct(const char *a, const char *b, double *steal);
void kvb_host_collect(struct kvb_host *h, const char *root,
		      const struct utsname *u, long nproc);
int kvb_read_loadavg(const char *root, double load[3]);
const char *kvb_detect_accel(const char *root);
void kvb_prov_after(struct kvb_prov *pv);
void kvb_bstats_begin(const char *sysfs, struct kvb_bstats *before);
void kvb_bstats_end(const char *sysfs, const struct kvb_bstats *before,
		    struct kvb_bstats *out);
void kvb_print_version(FILE *f);

/* util/json.c: the reader of the tool's own JSON reports; the string and number writers */
enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jnode {
	enum jtype type;
	double num;		/* J_NUM; J_BOOL: 0 or 1 */
	char *str;		/* J_STR */
	char *key;		/* the member's name, in an object */
	struct jnode *kids;	/* J_ARR, J_OBJ */
	int nkids;
};

/* 0, or -1 with "line L, column C: what" in err (and *root empty). */
int kvb_json_parse(const char *text, struct jnode *root, char *err,
		   size_t errlen);
void kvb_json_free(struct jnode *n);
/* obj's member key (of that type), else NULL */
const struct jnode *kvb_json_member(const struct jnode *obj, const char *key);
const struct jnode *kvb_json_get(const struct jnode *obj, const char *key,
				 enum jtype type);
/* the writer's string: quotes, backslashes and control characters escaped */
void kvb_json_str(FILE *f, const char *s);
/* a number that reads back as the same double; null for NaN, infinity */
void kvb_json_double(FILE *f, double v);
/* a tree as text again, indent spaces deep (kvbench merge) */
void kvb_json_write(FILE *f, const struct jnode *n, int indent);
/* the writer's number: prec digits after the point, or KVB_JSON_SIG(n); null */
#define KVB_JSON_SIG(n)	(-(n))
void kvb_json_num(FILE *f, double v, int prec);
/* before (", "), then "key": and the number as kvb_json_num() writes it */
void kvb_json_field(FILE *f, const char *before, const char *key, double v, int prec);

/* util/file.c: a file's first line (-errno), or all of it (NULL, err) */
int kvb_read_line(const char *path, char *buf, size_t len);
char *kvb_slurp(const char *path, char *err, size_t errlen);

/*
 * verdict.c: which target is the fastest in each workload group, and how
 * the others compare with it (Hodges-Lehmann ratio, Moses' interval, the
 * Mann-Whitney p). Filled by output.c from the results and by report.c
 * from a JSON report.
 */
struct kvb_vkey {
	char mix[32];		/* the mix's name, or the workload's */
	int workload;		/* mix[] is a workload's name ("ycsb-a") */
	char dist[32];		/* "uniform", "zipf:0.99": kvb_verdict_dist() */
	unsigned int threads;
	unsigned int batch;
	int multi;
	enum kvb_fd fd;		/* per-thread or shared: kvb_vkey_normalize() */
	enum kvb_io io;		/* ioctl or uring */
	unsigned int qd;	/* uring only */
	int sqpoll;
};

/* One case: a target's runs in a group */
struct kvb_vcase {
	char target[KVB_NAME_MAX];
	enum kvb_kind kind;
	struct kvb_vkey key;
	const double *runs;	/* ops/s of each run, all > 0 */
	unsigned int n;
	int noisy;		/* the report marks its runs noisy */
};

/* x against y: the ratio x/y, its interval, the test */
struct kvb_hl {
	double ratio;		/* Hodges-Lehmann: median of the pairwise ratios */
	double lo, hi;		/* Moses' interval; NAN when !can_tell */
	double p;		/* two-sided Mann-Whitney, ties against a difference */
	double alpha;
	int crit;		/* largest U with 2 P(U <= crit) <= alpha; -1: none */
	int can_tell;		/* crit >= 0: these runs can show a difference */
	int significant;	/* p <= alpha: lo > 1 or hi < 1 */
};

/*
 * DIFFERENT: significantly slower; TIED: equivalent, the interval inside
 * 1 +- margin; INCONCLUSIVE: neither shown; CANNOT: too few runs
 */
enum { KVB_V_FASTEST, KVB_V_TIED, KVB_V_DIFFERENT, KVB_V_CANNOT, KVB_V_INCONCLUSIVE };

struct kvb_vtarget {
	const struct kvb_vcase *c;
	double median;		/* ops/s */
	struct kvb_hl hl;	/* against the fastest; ratio 1 for itself */
	double p_floor;		/* the smallest p its runs and the fastest's can give */
	double p_holm;		/* p adjusted by Holm's step-down over the group's tests */
	double margin;		/* the group's */
	int mark;		/* KVB_V_* */
};

struct kvb_vgroup {
	struct kvb_vkey key;
	double alpha;
	double margin;		/* tied: the interval inside 1 +- margin */
	struct kvb_vtarget *t;	/* the fastest (highest median), then by ratio */
	int n;
	int ntied;		/* the fastest and those tied with it */
	int ncannot;		/* those too few runs cannot tell */
	int ninconclusive;	/* neither a difference nor an equivalence shown */
	int ncompared;		/* the tests made: every other target but ncannot */
	double holm_first;	/* Holm's first step: the smallest p must be <= this */
	double floor_min;	/* the smallest p floor of the tests made; NAN */
	int holm_binds;		/* floor_min > holm_first: no target can be "slower" */
};

double kvb_mwu_cdf(unsigned int n, unsigned int m, double u);
int kvb_mwu_crit(unsigned int n, unsigned int m, double alpha);
unsigned int kvb_verdict_needs(double alpha);
void kvb_holm(const double *p, int n, double *adj);
int kvb_hl_ratio(const double *x, unsigned int n, const double *y,
		 unsigned int m, double alpha, struct kvb_hl *h);
void kvb_verdict_dist(char *buf, size_t len, const char *dist, double theta);
void kvb_vkey_normalize(struct kvb_vkey *k);
int kvb_vkey_equal(const struct kvb_vkey *a, const struct kvb_vkey *b);
int kvb_verdict(const struct kvb_vcase *c, int n, double alpha, double margin,
		struct kvb_vgroup **out);
void kvb_verdict_free(struct kvb_vgroup *g, int n);
void kvb_verdict_label(char *buf, size_t len, const struct kvb_vkey *k);
void kvb_verdict_mark(char *buf, size_t len, const struct kvb_vtarget *t,
		      unsigned int fastest_runs);
void kvb_verdict_line(char *buf, size_t len, const struct kvb_vgroup *g);
void kvb_verdict_json(FILE *f, const struct kvb_vgroup *g, int n,
		      const int *sel, int ind);
void kvb_verdict_table(FILE *f, const struct kvb_vgroup *g);
/* What the legend says of the groups shown (kvb_verdict_tally()) */
struct kvb_vtally {
	double margin;		/* the groups' tie margin; NAN when they differ */
	int ngroups;
	int ntests;		/* the comparisons the groups make */
	double pfloor;		/* the lowest p floor that bound a p; NAN */
	int nbinds;		/* groups where Holm needs a p below the floor */
	int bind_tests;		/* the first such group: its comparisons, */
	double bind_floor;	/* the smallest p its runs can give, */
	double bind_first;	/* the p Holm's first step needs, */
	unsigned int bind_runs;	/* the fastest's runs, */
	unsigned int bind_needs;	/* the runs that would do */
};

void kvb_verdict_tally(struct kvb_vtally *t, const struct kvb_vgroup *g);
void kvb_verdict_legend(FILE *f, double alpha, const struct kvb_vtally *t);
#define KVB_VERDICT_ALPHA	0.05
#define KVB_VERDICT_MARGIN	0.05
int kvb_parse_margin(const char *s, double *margin, char *err, size_t errlen);
/* The report's text fits this many columns, for mail */
#define KVB_MAIL_COLS		80
void kvb_wrap(FILE *f, const char *first, const char *text, int indent, int width);

/*
 * order.c: the case before a run. A case's runs with the round of each;
 * with --after over nafter mixes the runs of round r came after mix
 * r % nafter.
 */
struct kvb_ocase {
	char label[96];
	const double *runs;
	const unsigned int *rounds;
	unsigned int n;
};

void kvb_ocase_label(struct kvb_ocase *c, const char *target, const char *mix,
		     unsigned int threads, unsigned int batch);
int kvb_order_case(const struct kvb_ocase *c, unsigned int nafter,
		   unsigned int k, double alpha, struct kvb_hl *h);
void kvb_order_effect(FILE *f, const struct kvb_ocase *c, int n,
		      const char *names, unsigned int nafter, double alpha,
		      double margin);
int kvb_verdict_at_floor(const struct kvb_vtarget *t);

/*
 * benchjson.c: the report model, kvbench-bench/N: its one writer and its
 * one reader (schema check and case reader), which bench, report, compare
 * and plot go through.
 */
#define KVB_SCHEMA_VERSION	4
/* Above this a run's ops/s is not a measurement (one op per picosecond). */
#define KVB_MAX_OPS_PER_SEC	1e12
#define KVB_MAX_CPUS		65536

/* One result of a report, as read. */
struct kvb_rcase {
	struct kvb_vcase v;	/* the verdict's view: target, kind, key, runs */
	const struct jnode *node;	/* the result in the report's tree */
	char target[KVB_NAME_MAX];
	char mix[32];		/* mix.name */
	char workload[32];	/* the --workload preset, "" */
	char fd[16];		/* "per-thread", "shared"; "-": no fd */
	unsigned int threads, batch;
	int multi;
	int errors;		/* the case had errors: not judged */
	int noisy;		/* spread above the run's noisy_pct */
	double spread_pct;	/* NAN when the report does not say */
	double *runs;		/* ops/s of each run, each in (0, KVB_MAX_OPS_PER_SEC] */
	unsigned int *rounds;	/* the round of each run; NULL: not said */
	unsigned int nruns;
	struct kvb_ctr_case ctr;	/* "counters"; ctr.on 0: null or absent */
};

struct kvb_rmodel {
	struct jnode root;	/* the whole report, for what the model does not name */
	int schema;		/* N of kvbench-bench/N */
	char kernel[96];
	int cpus;		/* 0: the report does not say */
	unsigned int repeat;	/* runs per case asked for; 0: not said */
	char dist[32];		/* the keys, as the header has them */
	char accel[32];		/* provenance.accel, "unknown" */
	double busy_pct;	/* the host's CPUs busy before the run; NAN */
	double steal_pct;	/* of which stolen by the hypervisor; NAN */
	int host_busy;		/* 1, 0, -1: not said */
	char preempt[16];	/* "" when not said */
	int hz;			/* 0 when not said */
	char cmdline[1024];
	char order[16];		/* "shuffled", "sequential", "" (not said) */
	char after[KVB_AFTER_MAX * 32];	/* --after: "set,get"; "" none */
	double seed;		/* the order's seed; NAN */
	double margin;		/* the run's tie margin (params.margin); 5% when not said */
	int margin_said;	/* params.margin was in the report */
	int interrupted;
	struct kvb_rcase *c;	/* every result, in the report's order */
	int n;
	struct kvb_vcase *vc;	/* the verdict's cases: not nop, runs, no errors */
	int nv;
	int noisy;		/* of vc, how many are marked noisy */
	int norun;		/* results without a run (not judged) */
	int short_runs;		/* results with fewer runs than "repeat" */
	int over_runs;		/* results with more: the header is contradicted */
	double max_steal;	/* kvbench merge --max-steal: its PCT; NAN: none */
	int dropped;		/* runs it left out, over every result */
};

int kvb_rmodel_parse(const char *text, struct kvb_rmodel *m, char *err,
		     size_t errlen);
int kvb_rcase_hist(const struct jnode *x, struct kvb_hist *h, char *err,
		   size_t errlen);
void kvb_json_latency(FILE *f, const struct kvb_hist *h);
void kvb_json_hist(FILE *f, const struct kvb_hist *h);
/* merge.c: kvbench merge, the reports of one suite's boots pooled */
#define KVB_MERGE_MAX	64
int kvb_merge_main(int argc, char **argv);
void kvb_rmodel_free(struct kvb_rmodel *m);
void kvb_order_effect_model(FILE *f, const struct kvb_rmodel *m, double alpha,
			    double margin);
int kvb_rmodel_verdict(const struct kvb_rmodel *m, double alpha, double margin,
		       struct kvb_vgroup **g);
void kvb_rmodel_prov(FILE *f, const struct kvb_rmodel *m);
void kvb_rmodel_prov_json(FILE *f, const struct kvb_rmodel *m);
int kvb_rmodel_of_results(const struct kvb_params *p, const struct kvb_result *r,
			  int n, const struct kvb_outcome *o, struct kvb_rmodel *m,
			  char *err, size_t errlen);
void kvb_print_json(FILE *f, const struct kvb_params *p,
		    const struct kvb_result *r, int n,
		    const struct kvb_outcome *o);

/*
 * report/agree.c: do two reports of one suite give the same verdict? Per group in
 * both: the same fastest named, or a contradiction (one's fastest marked
 * significantly slower in the other); per target: the same mark.
 */
#define KVB_AGREE_MAX	64

struct kvb_contra {
	char group[160];
	int side;		/* 0: new's fastest marked slower in old; 1: the reverse */
	char fastest[KVB_NAME_MAX];	/* the fastest in the one report */
	char against[KVB_NAME_MAX];	/* the fastest in the report that marks it */
	char mark[96];		/* as that report marks it */
};

struct kvb_agree {
	double margin[2];	/* the tie margins of the two verdicts */
	int groups;		/* groups of two targets or more in both */
	int agree;		/* of them, naming the same fastest */
	int targets;		/* targets in both, in those groups */
	int same_mark;		/* of them, slower in both or in neither */
	int ncontra;
	struct kvb_contra c[KVB_AGREE_MAX];
	int n;			/* listed in c[] */
};

int kvb_agreement(const struct kvb_rmodel *a, const struct kvb_rmodel *b, double alpha,
		  double margin, struct kvb_agree *ag);
void kvb_agree_print(FILE *f, const struct kvb_agree *ag, const char *old, const char *new);
void kvb_agree_json(FILE *f, const struct kvb_agree *ag);

/* counters.c: the counters' section of the table, and of kvbench report */
void kvb_ctr_results_table(FILE *f, const struct kvb_result *r, int n);
void kvb_ctr_rmodel_table(FILE *f, const struct kvb_rmodel *m);

/* report.c: kvbench report RUN.json ... */
int kvb_report_main(int argc, char **argv);
unsigned int kvb_report_select(const struct kvb_rmodel *r, const struct kvb_vgroup *g,
			       int n, int all, unsigned int threads, int *sel, char *why,
			       size_t len);
int kvb_report_text(FILE *f, const char *json, const char *name, int all,
		    unsigned int threads, int as_json, char *err, size_t errlen);

/* report/compare.c: kvbench compare OLD.json NEW.json, or RUN.json --base B */
struct kvb_cmp_opts {
	double alpha;		/* significance level */
	double margin;		/* the verdicts' tie margin; 0: each report's own */
	int force;		/* compare reports that differ, after a warning */
	int json;		/* JSON instead of the table */
	const char *base;	/* one report: every backend against this one */
};

/* kvb_compare_text(): the reports differ and force is not set */
#define KVB_CMP_REFUSED		(-2)

int kvb_compare_main(int argc, char **argv);
int kvb_compare_text(FILE *f, FILE *ferr, const char *old_json,
		     const char *new_json, const struct kvb_cmp_opts *o,
		     char *err, size_t errlen);

/* engine/device.c, shared with main.c */
int kvb_open_device(const char *path);
void kvb_device_hint(const char *path, int err);
int kvb_read_backend(const char *sysfs, char *buf, size_t len);
int kvb_switch_backend(const char *sysfs, const char *name, char *why,
		       size_t whylen);
void kvb_restore_backend(struct kvb_bench *b);
unsigned int kvb_hash_bits_for(unsigned long keys);
unsigned int kvb_module_hash_bits(const char *sys_module);
int kvb_size_hash_bits(struct kvb_bench *b);
/* engine/uring.c: SQEs queued before one submission, at this depth */
unsigned int kvb_uring_submit_batch(unsigned int qd, int sqpoll);

/* engine/device.c, the rows' functions that uring.c builds on */
int kvb_dev_begin(struct kvb_bench *b, struct kvb_target *t);
int kvb_kernel_begin(struct kvb_bench *b, struct kvb_target *t);
int kvb_dev_thread_init(struct kvb_ctx *c, enum kvb_fd fdmode);
void kvb_dev_thread_fini(struct kvb_ctx *c);

#endif /* KVBENCH_TOOL_H */
