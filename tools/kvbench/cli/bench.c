// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench bench: the command. Its options and --help, the plan it prints
 * for --dry-run, and the run: the session set up (engine/session.c), the
 * warnings before it, the reports after every case and at the end
 * (report/: the table, CSV, JSON, the figure), the exit status.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <linux/kvbench.h>

#include "kvbench.h"

/* --seed and drawn seeds stay below 2^53: a JSON number keeps them exact. */
#define KVB_SEED_LIMIT		9007199254740992ULL

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&kvb_interrupted, 1);
}

static const char bench_help[] =
	"Usage: kvbench bench [OPTIONS]\n"
	"\n"
	"Runs threads that hammer /dev/kvbench (or an in-process map, or a BPF map)\n"
	"and prints one row per case.\n"
	"\n"
	"  -b, --backends LIST   targets (default nop,current): kernel backends\n"
	"                        rwlock, rcu, kthread, kthread-percpu, rhashtable,\n"
	"                        combining (switched through sysfs),\n"
	"                        current (the loaded backend, not switched, but\n"
	"                        rebuilt when hash_bits is set for --keys);\n"
	"                        baselines nop (the ioctl floor), user-rwlock,\n"
	"                        user-owner (in-process maps, no fd);\n"
	"                        peers bpf-htab (a BPF hash map through bpf(2),\n"
	"                        no fd; needs root or CAP_BPF, else skipped);\n"
	"                        groups all, kernel, baselines, peers; a kernel\n"
	"                        backend must be in the module's sysfs backends\n"
	"                        file (without the module: in this list)\n"
	"  -t, --threads LIST    thread counts: 1,2,4 or 1-8 or max, or pow2: 1, 2,\n"
	"                        4, ... below the number of CPUs, then it (default)\n"
	"      --no-pin          do not pin thread i to CPU i\n"
	"      --owner-spin USEC user-owner: poll this long before sleeping\n"
	"                        (default 50 us; 0 = always sleep and wake)\n"
	"  -m, --mix LIST        GET:SET[:DEL] weights, e.g. get,90:10,50:50,set\n"
	"                        (default get,set)\n"
	"  -W, --workload LIST   instead of --mix, standard workloads, a set of\n"
	"                        cases each (the mix column names it): YCSB's\n"
	"                        ycsb-a (a) 50% read 50% update, ycsb-b (b) 95:5,\n"
	"                        ycsb-c (c) read only, over YCSB's scrambled\n"
	"                        zipfian keys (constant 0.99); ycsb-d (d) 95% read\n"
	"                        5% insert, reads of the newest keys (\"latest\");\n"
	"                        ycsb-f (f) 50% read 50% read-modify-write (a GET\n"
	"                        then a SET of the key, one op; single ops only:\n"
	"                        not with --batch > 1, --multi or --io uring);\n"
	"                        ycsb: all five; seed: GET only, uniform keys, a\n"
	"                        thread per CPU when alone and without -t.\n"
	"                        A workload fixes its distribution (no --dist);\n"
	"                        unless given, -k 1000, --key-size 24 and\n"
	"                        --value-size 1000 (YCSB's record)\n"
	"  -k, --keys N          distinct keys, pre-filled before timing (default 1024)\n"
	"      --keep-hash-bits  keep the module's hash_bits (to measure the chains\n"
	"                        of an overfull table); by default the kernel\n"
	"                        backends run with it set for --keys (2^bits >= N,\n"
	"                        1..20), put back at the end\n"
	"      --key-size N      bytes per key (default 16)\n"
	"      --value-size N    bytes per value (default 64)\n"
	"      --dist D          uniform, zipf (theta 0.99) or zipf:THETA\n"
	"                        (default uniform)\n"
	"      --batch LIST      operations per KVBENCH_IOC_BATCH call (default 1);\n"
	"                        bpf-htab: runs of SETs or DELs per UPDATE_BATCH or\n"
	"                        DELETE_BATCH, GETs one lookup each (BPF has no\n"
	"                        batch lookup by key); not for the baselines\n"
	"      --multi LIST      also keys per packed MGET, MSET or MDEL call, for\n"
	"                        the kernel backends (a call's kind drawn from the\n"
	"                        mix; batch column M64); default none; without\n"
	"                        --batch, their only cases\n"
	"      --fd MODE         per-thread, shared or both (default per-thread),\n"
	"                        for nop and the kernel backends; the targets\n"
	"                        without an fd run once (fd -)\n"
	"      --io MODE         ioctl, uring or both (default ioctl): how nop and\n"
	"                        the kernel backends are called; uring: one ring\n"
	"                        per thread, IORING_OP_URING_CMD, a target per\n"
	"                        --qd (rcu/uring-qd16); skipped when the kernel or\n"
	"                        the module has no io_uring\n"
	"      --qd LIST         io_uring commands in flight per thread (1..1024,\n"
	"                        default 1); needs --io uring\n"
	"      --sqpoll          io_uring with a kernel SQ thread per ring, which\n"
	"                        polls (burns) a CPU of its own while busy\n"
	"                        (rcu/uring-qd16-sqpoll); needs --io uring\n"
	"  -D, --duration SEC    timed part of each run (default 0.5s)\n"
	"  -w, --warmup SEC      untimed part before it (default 0.2s)\n"
	"  -n, --ops N           run N operations per thread instead of --duration\n"
	"  -r, --repeat R        runs per case; report the median and spread\n"
	"                        (default 5: the fewest that can tell targets apart)\n"
	"      --order ORDER     shuffled (default): R rounds, each runs every case\n"
	"                        once, in an order shuffled per round from --seed;\n"
	"                        sequential: each case's R runs back to back\n"
	"      --no-settle       do not write 1 to the module's settle file before\n"
	"                        each run (by default a run starts once the work the\n"
	"                        one before deferred, freed items and all, is done)\n"
	"      --after LIST      before each timed run, run a mix (as -m: set, get,\n"
	"                        90:10) untimed on the same target, as the case the\n"
	"                        run comes after: with --no-settle or without, what\n"
	"                        a write-heavy case leaves to the next one; with up\n"
	"                        to 4, round r's runs come after the (r mod N)th,\n"
	"                        and the run ends with each case's runs after the\n"
	"                        others set against those after the first\n"
	"      --budget SEC      fit the run into SEC seconds: fewer rounds (runs per\n"
	"                        case); a round that would not end in time is not\n"
	"                        begun; when one does not fit, skip the cases that\n"
	"                        do not (said at the end)\n"
	"      --dry-run         print the plan and its estimated time; run nothing\n"
	"      --cpus N          use the first N CPUs this process may run on (with\n"
	"                        --dry-run: plan for a machine with N CPUs)\n"
	"  -f, --format FMT      table, json or csv (default table)\n"
	"  -o, --output FILE     write the report to FILE instead of stdout\n"
	"                        (files are rewritten after every case: a run that\n"
	"                        is killed leaves the cases it finished)\n"
	"      --json FILE       also write the JSON report to FILE\n"
	"      --csv FILE        also write the CSV report to FILE\n"
	"      --plot FILE       draw the report with gnuplot, as 'kvbench plot' (.png,\n"
	"                        .svg, .jpg)\n"
	"  -d, --device PATH     device (default " KVB_DEFAULT_DEVICE ")\n"
	"      --sysfs DIR       the device's sysfs directory\n"
	"                        (default " KVB_DEFAULT_SYSFS ")\n"
	"  -q, --quiet           no progress on stderr\n"
	"      --sample-every N  time one op in N for p50/p99/p99.9 (default 64;\n"
	"                        0 = none; for --batch B: one call per N ops,\n"
	"                        its time divided by B)\n"
	"      --trace-stall STALL  US or US:N: the first operation over US\n"
	"                        microseconds (a call, for --batch and --multi; with\n"
	"                        :N the Nth over US in one run) writes a line naming\n"
	"                        it to tracefs' trace_marker, then 0 to tracing_on:\n"
	"                        the kernel's trace keeps what led up to it; once per\n"
	"                        process; times every operation (--sample-every 1)\n"
	"      --trace-dir DIR   with --trace-stall: tracefs or an instance of it\n"
	"                        (default /sys/kernel/tracing, else\n"
	"                        /sys/kernel/debug/tracing)\n"
	"      --seed N          seed of the key and operation sequences and of the\n"
	"                        rounds' order (0 to 2^53-1; default: drawn, and\n"
	"                        printed; the report has it either way)\n"
	"      --noisy PCT       flag a case noisy (! in the table) when its runs'\n"
	"                        spread is above PCT percent (default 10)\n"
	"      --counters        also count, per op, instructions, cycles and cache\n"
	"                        misses (user and kernel) and context switches,\n"
	"                        each worker thread's, with perf_event_open (as\n"
	"                        perf stat); an event that cannot be counted is\n"
	"                        said and why (no PMU, perf_event_paranoid); not\n"
	"                        by default: it makes the threads' context\n"
	"      --margin PCT      the verdict's margin, the smallest difference that\n"
	"                        counts: slower where the interval lies below\n"
	"                        1 - PCT%, tied where it lies inside +-PCT% of the\n"
	"                        fastest (default 5); the report records it for\n"
	"                        'kvbench report'\n"
	"  -h, --help            show this help\n"
	"\n"
	"Counts (N) take the suffixes k, M, G (x1000) or Ki, Mi, Gi (x1024);\n"
	"durations (SEC) are seconds, or take us, ms, s or m (minutes).\n"
	"\n"
	"ns/op is Go's: wall time per operation over all threads (1e9 / ops/s);\n"
	"lat/op is per thread (threads x 1e9 / ops/s). Exit status: 0, 1 when a case\n"
	"failed or could not run, 2 on usage errors, 130 after Ctrl-C (which\n"
	"stops at once and prints what was measured).\n";

static void print_threads(FILE *f, const struct kvb_ulist *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		fprintf(f, "%s%u", i ? "," : "", l->v[i]);
}

/* --dry-run: what would run, and for about how long. */
static void print_plan(FILE *f, const struct kvb_params *p)
{
	int i, w = 16;

	for (i = 0; i < p->ntargets; i++)
		if ((int)strlen(p->targets[i].name) > w)
			w = strlen(p->targets[i].name);
	fprintf(f, "kvbench bench: the plan (--dry-run: nothing runs); %s; threads ",
		p->order == KVB_ORDER_SHUFFLED ?
		"rounds of every case once, each in its own shuffled order" :
		"each case's runs back to back (--order sequential)");
	print_threads(f, &p->threads);
	for (i = 0; i < p->nmixes && p->workloads; i++)
		fprintf(f, "%s%s", i ? "," : "; workloads ", p->mixes[i].wl->name);
	fprintf(f, "\n%-*s %6s %6s %9s\n", w, "target", "cases", "runs", "about");
	for (i = 0; i < p->ntargets; i++) {
		const struct kvb_target *t = &p->targets[i];

		fprintf(f, "%-*s %6d %6d %7.0f s\n", w, t->name, kvb_cases_of(p, t),
			kvb_cases_of(p, t) * p->repeat, kvb_target_seconds(p, t, p->repeat));
	}
	for (i = 0; i < p->ntargets && p->targets[i].kind != KVB_KERNEL; i++)
		;
	if (i == p->ntargets)
		return;
	if (p->keep_hash_bits)
		fprintf(f, "hash_bits: the module's (--keep-hash-bits)\n");
	else
		fprintf(f,
			"hash_bits: %u for %lu keys, where the module has it (put back at the end)\n",
			kvb_hash_bits_for(p->keys), p->keys);
}

static void free_params(struct kvb_params *p)
{
	free(p->targets);
	free(p->threads.v);
	free(p->mixes);
	free(p->batches.v);
	free(p->multis.v);
	free(p->fdmodes.v);
	free(p->qds.v);
	free(p->cpus);
}

/* --seed: decimal, below 2^53 so that every JSON reader keeps it exact. */
static int parse_seed(const char *s, __u64 *seed)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v >= KVB_SEED_LIMIT)
		return -1;
	*seed = v;
	return 0;
}

static int parse_pct(const char *s, double *pct)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || (*end && strcmp(end, "%")) || !(v >= 0) || !isfinite(v))
		return -1;
	*pct = v;
	return 0;
}

/* No --seed: one from the kernel's generator, else the clock. */
static __u64 draw_seed(void)
{
	__u64 v = 0;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != sizeof(v))
		v = kvb_now_ns() ^ ((__u64)getpid() << 32);
	return v & (KVB_SEED_LIMIT - 1);
}

/*
 * --io, --qd and --sqpoll: the targets that have the device, through
 * ioctls, io_uring at each queue depth, or both (kvb_expand_io()).
 */
static int parse_io(struct kvb_params *p, const char *qds)
{
	int uring = !!(p->ios & 1U << KVB_IO_URING);
	char err[256];

	if (!uring && qds)
		return kvb_usage("bench", "--qd",
				 "needs --io uring (or both): the ioctls have one call in flight per thread");
	if (!uring && p->sqpoll)
		return kvb_usage("bench", "--sqpoll", "needs --io uring (or both)");
	if (kvb_parse_ulist(qds ? qds : "1", 1, KVB_MAX_QD, KVB_MAX_QD, &p->qds,
			    err, sizeof(err)))
		return kvb_usage("bench", "--qd", err);
	if (kvb_expand_io(&p->targets, &p->ntargets, p->ios, &p->qds, p->sqpoll,
			  err, sizeof(err)))
		return kvb_usage("bench", "--io", err);
	return 0;
}

/*
 * A read-modify-write needs its GET's answer before its SET: it runs on
 * the single-operation path only. A BATCH, a packed call or a queue of
 * io_uring commands would send the SET before the GET came back.
 */
static int rmw_refused(const struct kvb_params *p, char *err, size_t errlen)
{
	const char *why = NULL;
	int i;

	for (i = 0; i < p->batches.n; i++)
		if (p->batches.v[i] > 1)
			why = "--batch above 1";
	if (p->multis.n)
		why = "--multi";
	if (p->ios & 1U << KVB_IO_URING)
		why = "--io uring";
	for (i = 0; i < p->nmixes && why; i++)
		if (p->mixes[i].rmw) {
			snprintf(err, errlen,
				 "%s is read-modify-write: its SET needs the GET's answer, so it runs one operation per call, not with %s",
				 p->mixes[i].wl->name, why);
			return -1;
		}
	return 0;
}

/* long options without a letter */
enum { OPT_COUNTERS = 0x100 };

/* The options: getopt_long()'s table, the short ones in parse_bench(). */
static const struct option bench_opts[] = {
	{ "backends", required_argument, NULL, 'b' },
	{ "threads", required_argument, NULL, 't' },
	{ "no-pin", no_argument, NULL, 'P' },
	{ "mix", required_argument, NULL, 'm' },
	{ "workload", required_argument, NULL, 'W' },
	{ "keys", required_argument, NULL, 'k' },
	{ "keep-hash-bits", no_argument, NULL, 'H' },
	{ "key-size", required_argument, NULL, 'K' },
	{ "value-size", required_argument, NULL, 'V' },
	{ "dist", required_argument, NULL, 'Z' },
	{ "batch", required_argument, NULL, 'B' },
	{ "multi", required_argument, NULL, 'M' },
	{ "fd", required_argument, NULL, 'F' },
	{ "io", required_argument, NULL, 'I' },
	{ "qd", required_argument, NULL, 'Q' },
	{ "sqpoll", no_argument, NULL, 'G' },
	{ "duration", required_argument, NULL, 'D' },
	{ "warmup", required_argument, NULL, 'w' },
	{ "ops", required_argument, NULL, 'n' },
	{ "repeat", required_argument, NULL, 'r' },
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "plot", required_argument, NULL, 'L' },
	{ "json", required_argument, NULL, 'J' },
	{ "csv", required_argument, NULL, 'C' },
	{ "owner-spin", required_argument, NULL, 'O' },
	{ "sample-every", required_argument, NULL, 'E' },
	{ "trace-stall", required_argument, NULL, 'X' },
	{ "trace-dir", required_argument, NULL, 'x' },
	{ "device", required_argument, NULL, 'd' },
	{ "sysfs", required_argument, NULL, 'S' },
	{ "budget", required_argument, NULL, 'U' },
	{ "dry-run", no_argument, NULL, 'N' },
	{ "cpus", required_argument, NULL, 'c' },
	{ "seed", required_argument, NULL, 's' },
	{ "noisy", required_argument, NULL, 'y' },
	{ "margin", required_argument, NULL, 'g' },
	{ "counters", no_argument, NULL, OPT_COUNTERS },
	{ "order", required_argument, NULL, 'R' },
	{ "no-settle", no_argument, NULL, 'T' },
	{ "after", required_argument, NULL, 'A' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* The options that name what runs, kept as given until every option is read. */
struct bench_args {
	const char *targets, *threads, *mixes, *batches, *fdmodes, *multis;
	const char *qds, *workloads;
	int mix_given, dist_given, threads_given;
	int keys_given, ksize_given, vsize_given, duration_given, every_given;
	unsigned long cpus;
};

/*
 * A count option into *v, within lo..hi: 0, or the usage error's exit
 * status (said).
 */
static int count_opt(const char *opt, unsigned long long lo,
		     unsigned long long hi, unsigned long long *v)
{
	char err[256];

	if (kvb_parse_count(optarg, lo, hi, v, err, sizeof(err)))
		return kvb_usage("bench", opt, err);
	return 0;
}

/* A duration option into *sec, more than 0 when positive is set. */
static int seconds_opt(const char *opt, double *sec, int positive)
{
	char err[256];

	if (kvb_parse_seconds(optarg, sec, err, sizeof(err)))
		return kvb_usage("bench", opt, err);
	if (positive && *sec <= 0)
		return kvb_usage("bench", opt, "must be more than 0");
	return 0;
}

/*
 * The options of what runs: targets, threads, workloads, keys and values,
 * calls and io. 0 when c was one of them and is taken, 1 when it is none
 * of them, else the usage error's exit status.
 */
/* --after MIX[,MIX...]: at most KVB_AFTER_MAX mixes, each as -m's */
static int parse_after(const char *s, struct kvb_params *p, char *err,
		       size_t errlen)
{
	struct kvb_mix *m = NULL;
	int n = 0;

	if (kvb_parse_mixes(s, &m, &n, err, errlen))
		return -1;
	if (n > KVB_AFTER_MAX) {
		snprintf(err, errlen, "'%s': at most %d mixes", s, KVB_AFTER_MAX);
		free(m);
		return -1;
	}
	memcpy(p->after, m, n * sizeof(*m));
	p->nafter = n;
	free(m);
	return 0;
}

/* --trace-stall US[:N]: N, the how-manieth operation over US fires */
static int parse_stall(const char *arg, struct kvb_params *p, char *err,
		       size_t errlen)
{
	char us[32], *colon;
	unsigned long long v, n = 1;

	snprintf(us, sizeof(us), "%s", arg);
	colon = strchr(us, ':');
	if (colon) {
		*colon = 0;
		if (kvb_parse_count(colon + 1, 1, 1000000, &n, err, errlen))
			return -1;
	}
	if (kvb_parse_count(us, 0, 60000000, &v, err, errlen))
		return -1;
	p->trace_stall_us = v;
	p->trace_stall_count = n;
	p->trace_stall = 1;
	return 0;
}

static int opt_cases(int c, const char *opt, struct kvb_params *p,
		     struct bench_args *a)
{
	unsigned long long v = 0;
	char err[512];
	int ret = 0;

	switch (c) {
	case 'b':
		a->targets = optarg;
		break;
	case 't':
		a->threads = optarg;
		a->threads_given = 1;
		break;
	case 'm':
		a->mixes = optarg;
		a->mix_given = 1;
		break;
	case 'W':
		a->workloads = optarg;
		break;
	case 'k':
		ret = count_opt(opt, 1, 1UL << 28, &v);
		p->keys = v;
		a->keys_given = 1;
		break;
	case 'H':
		p->keep_hash_bits = 1;
		break;
	case 'K':
		ret = count_opt(opt, 1, KVBENCH_KEY_MAX, &v);
		p->key_size = v;
		a->ksize_given = 1;
		break;
	case 'V':
		ret = count_opt(opt, 0, KVB_MAX_VALUE, &v);
		p->value_size = v;
		a->vsize_given = 1;
		break;
	case 'Z':
		if (kvb_parse_dist(optarg, &p->dist, &p->theta, err, sizeof(err)))
			return kvb_usage("bench", opt, err);
		a->dist_given = 1;
		break;
	case 'B':
		a->batches = optarg;
		break;
	case 'M':
		a->multis = optarg;
		break;
	case 'F':
		a->fdmodes = optarg;
		break;
	case 'I':
		if (kvb_parse_io(optarg, &p->ios, err, sizeof(err)))
			return kvb_usage("bench", opt, err);
		break;
	case 'Q':
		a->qds = optarg;
		break;
	case 'G':
		p->sqpoll = 1;
		break;
	default:
		return 1;
	}
	return ret;
}

/*
 * The options of how it runs: the runs' length and number, their order,
 * what comes before each, sampling, pinning, the budget. As opt_cases().
 */
static int opt_runs(int c, const char *opt, struct kvb_params *p,
		    struct bench_args *a)
{
	unsigned long long v = 0;
	char err[512];
	int ret = 0;

	switch (c) {
	case 'P':
		p->pin = 0;
		break;
	case 'D':
		ret = seconds_opt(opt, &p->duration, 1);
		a->duration_given = 1;
		break;
	case 'w':
		ret = seconds_opt(opt, &p->warmup, 0);
		break;
	case 'n':
		ret = count_opt(opt, 1, 1ULL << 50, &p->ops);
		break;
	case 'r':
		ret = count_opt(opt, 1, 1000, &v);
		p->repeat = v;
		break;
	case 'E':
		ret = count_opt(opt, 0, 1U << 30, &v);
		p->sample_every = v;
		a->every_given = 1;
		break;
	case 'X':
		if (parse_stall(optarg, p, err, sizeof(err)))
			return kvb_usage("bench", opt, err);
		break;
	case 'x':
		p->trace_dir = optarg;
		break;
	case 'O':
		ret = count_opt(opt, 0, 1000000, &v);
		p->owner_spin = v;
		break;
	case 'U':
		ret = seconds_opt(opt, &p->budget, 1);
		break;
	case 'c':
		ret = count_opt(opt, 1, KVB_MAX_THREADS, &v);
		a->cpus = v;
		break;
	case 's':
		if (parse_seed(optarg, &p->seed))
			return kvb_usage("bench", opt, "must be a whole number from 0 to 2^53 - 1");
		p->seed_given = 1;
		break;
	case 'y':
		if (parse_pct(optarg, &p->noisy_pct))
			return kvb_usage("bench", opt,
					 "must be a percentage, 0 or more (10, 5.5, 10%)");
		break;
	case 'g':
		if (kvb_parse_margin(optarg, &p->margin, err, sizeof(err)))
			return kvb_usage("bench", opt, err);
		break;
	case OPT_COUNTERS:
		p->counters = 1;
		break;
	case 'R':
		if (kvb_parse_order(optarg, &p->order, err, sizeof(err)))
			return kvb_usage("bench", opt, err);
		break;
	case 'T':
		p->no_settle = 1;
		break;
	case 'A':
		if (parse_after(optarg, p, err, sizeof(err)))
			return kvb_usage("bench", opt, err);
		break;
	default:
		return 1;
	}
	return ret;
}

/* The options of where it goes: the reports, the device, the plan. As opt_cases(). */
static int opt_output(int c, const char *opt, struct kvb_params *p)
{
	char err[512];

	switch (c) {
	case 'f':
		if (!strcmp(optarg, "table"))
			p->format = KVB_TABLE;
		else if (!strcmp(optarg, "json"))
			p->format = KVB_JSON;
		else if (!strcmp(optarg, "csv"))
			p->format = KVB_CSV;
		else
			return kvb_usage("bench", opt, "must be table, json or csv");
		break;
	case 'o':
		p->output = optarg;
		break;
	case 'L':
		/* a figure that cannot be drawn is said before the run */
		if (kvb_plot_check(optarg, err, sizeof(err)))
			return kvb_usage("bench", opt, err);
		p->plot = optarg;
		break;
	case 'J':
		p->json = optarg;
		break;
	case 'C':
		p->csv = optarg;
		break;
	case 'd':
		p->device = optarg;
		break;
	case 'S':
		p->sysfs = optarg;
		break;
	case 'N':
		p->dry_run = 1;
		break;
	case 'q':
		p->quiet = 1;
		break;
	case 'h':
		fputs(bench_help, stdout);
		return -1;
	default:
		return 1;
	}
	return 0;
}

/*
 * --workload instead of --mix: its presets, and YCSB's record for what is
 * not given (-k 1000, --key-size 24, --value-size 1000); the seed's case
 * alone runs a thread per CPU. Else the --mix list.
 */
static int parse_mixes(struct kvb_params *p, struct bench_args *a)
{
	char err[512];
	int i;

	if (!a->workloads) {
		if (kvb_parse_mixes(a->mixes, &p->mixes, &p->nmixes, err, sizeof(err)))
			return kvb_usage("bench", "--mix", err);
		return 0;
	}
	if (a->mix_given)
		return kvb_usage("bench", "--workload",
				 "-m/--mix and --workload exclude each other: a workload is its own mix");
	if (a->dist_given)
		return kvb_usage("bench", "--dist",
				 "--workload fixes the key distribution (ycsb-a, b, c, f: YCSB's scrambled zipfian, 0.99; ycsb-d: latest; seed: uniform)");
	if (kvb_parse_workloads(a->workloads, &p->mixes, &p->nmixes, err, sizeof(err)))
		return kvb_usage("bench", "--workload", err);
	p->workloads = 1;
	/* YCSB's record: "user" + up to 19 digits, 10 fields of 100 B */
	if (!a->keys_given)
		p->keys = 1000;
	if (!a->ksize_given)
		p->key_size = 24;
	if (!a->vsize_given)
		p->value_size = 1000;
	/* the seed's case alone: as many threads as CPUs, as it ran */
	for (i = 0; i < p->nmixes && p->mixes[i].wl->all_cpus; i++)
		;
	if (!a->threads_given && i == p->nmixes)
		a->threads = "max";
	return 0;
}

/*
 * What the options make together, once all are read: the targets, the
 * mixes, the lists, and what excludes what.
 */
static int parse_plan(struct kvb_params *p, struct bench_args *a)
{
	char err[512];
	int digits = 1, ret;
	unsigned long n;

	/* Neither silently wins: each says how long a run is. */
	if (p->ops && a->duration_given)
		return kvb_usage("bench", "--ops",
				 "a run is either --ops N operations per thread or --duration SEC, not both");
	/* A plan may be for another machine; a run only uses CPUs it has. */
	if (a->cpus && !p->dry_run && a->cpus > (unsigned long)p->ncpus) {
		snprintf(err, sizeof(err), "this process may run on %d CPUs, not %lu",
			 p->ncpus, a->cpus);
		return kvb_usage("bench", "--cpus", err);
	}
	if (a->cpus)
		p->ncpus = a->cpus;
	if (kvb_parse_targets(a->targets, &p->targets, &p->ntargets, err, sizeof(err)) ||
	    kvb_check_backends(a->targets, p->sysfs, err, sizeof(err)))
		return kvb_usage("bench", "--backends", err);
	ret = parse_mixes(p, a);
	if (ret)
		return ret;
	if (kvb_parse_ulist(a->threads, 1, KVB_MAX_THREADS, p->ncpus, &p->threads,
			    err, sizeof(err)))
		return kvb_usage("bench", "--threads", err);
	p->multi_only = a->multis && !a->batches;
	if (kvb_parse_ulist(a->batches ? a->batches : "1", 1, KVBENCH_BATCH_MAX,
			    KVBENCH_BATCH_MAX, &p->batches, err, sizeof(err)))
		return kvb_usage("bench", "--batch", err);
	if (a->multis && kvb_parse_ulist(a->multis, 1, KVBENCH_BATCH_MAX, KVBENCH_BATCH_MAX,
					 &p->multis, err, sizeof(err)))
		return kvb_usage("bench", "--multi", err);
	if (kvb_parse_fdmodes(a->fdmodes, &p->fdmodes, err, sizeof(err)))
		return kvb_usage("bench", "--fd", err);
	if (parse_io(p, a->qds))
		return KVB_EXIT_USAGE;
	if (rmw_refused(p, err, sizeof(err)))
		return kvb_usage("bench", "--workload", err);
	for (n = p->keys - 1; n >= 10; n /= 10)
		digits++;
	if ((unsigned int)digits > p->key_size) {
		snprintf(err, sizeof(err), "%u bytes cannot hold %lu distinct keys (need %d)",
			 p->key_size, p->keys, digits);
		return kvb_usage("bench", "--key-size", err);
	}
	return 0;
}

/* 0; -1 after --help; else the usage error's exit status (said). */
static int parse_bench(int argc, char **argv, struct kvb_params *p)
{
	struct bench_args a = {
		.targets = "nop,current", .threads = "pow2", .mixes = "get,set",
		.fdmodes = "per-thread",
	};
	char opt[32];
	int c, i, ret;

	/* getopt's own messages: "option '--keys' requires an argument" */
	argv[0] = "kvbench bench";
	opterr = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "b:t:m:W:k:D:w:n:r:f:o:d:qh", bench_opts,
				NULL)) != -1) {
		if (c == '?' || c == ':')
			return kvb_usage("bench", NULL, NULL);
		for (i = 0; bench_opts[i].name; i++)
			if (bench_opts[i].val == c)
				break;
		snprintf(opt, sizeof(opt), "--%s", bench_opts[i].name ? bench_opts[i].name : "?");
		ret = opt_cases(c, opt, p, &a);
		if (ret == 1)
			ret = opt_runs(c, opt, p, &a);
		if (ret == 1)
			ret = opt_output(c, opt, p);
		if (ret)
			return ret;
	}
	if (optind < argc)
		return kvb_usage("bench", NULL, "unexpected arguments (bench takes options only)");
	/* --trace-stall looks at every operation: each is timed */
	if (p->trace_stall && a.every_given && p->sample_every != 1)
		return kvb_usage("bench", "--sample-every",
				 "--trace-stall times every operation (--sample-every 1)");
	if (p->trace_stall)
		p->sample_every = 1;
	if (p->trace_dir && !p->trace_stall)
		return kvb_usage("bench", "--trace-dir", "only with --trace-stall");
	return parse_plan(p, &a);
}

static int get_cpus(struct kvb_params *p)
{
	cpu_set_t set;
	int i;

	p->cpus = calloc(CPU_SETSIZE, sizeof(*p->cpus));
	if (!p->cpus)
		return -1;
	if (sched_getaffinity(0, sizeof(set), &set)) {
		p->cpus[0] = 0;
		p->ncpus = 1;
		return 0;
	}
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			p->cpus[p->ncpus++] = i;
	if (!p->ncpus)
		p->cpus[p->ncpus++] = 0;
	return 0;
}

static void print_report(FILE *f, struct kvb_session *s, enum kvb_format fmt,
			 int complete)
{
	struct kvb_outcome o = {
		.interrupted = atomic_load(&kvb_interrupted),
		.complete = complete,
		.skipped = s->skipped,
		.skips = s->skips,
		.nskips = s->nskips,
		.stall = s->b ? s->b->stall : NULL,
	};

	if (fmt == KVB_JSON)
		kvb_print_json(f, s->p, s->view, s->nview, &o);
	else if (fmt == KVB_CSV)
		kvb_print_csv(f, s->view, s->nview);
	else
		kvb_print_table(f, s->p, s->view, s->nview, &o);
}

/* What the reports show: the cases measured so far, in the plan's order. */
static void make_view(struct kvb_session *s)
{
	int i;

	if (!s->shuffled || !s->view) {
		s->view = s->res;
		s->nview = s->nres;
		return;
	}
	s->nview = 0;
	for (i = 0; i < s->total; i++)
		if (s->res[i].runs)
			s->view[s->nview++] = s->res[i];
}

/*
 * Write the report to a file: into PATH.tmp, then renamed over PATH, so
 * whoever copies PATH while the run goes on (the VM runner's snapshots)
 * gets a whole report. A path that is not a regular file (a FIFO,
 * /dev/stdout) is written in place.
 */
static int write_report(struct kvb_session *s, const char *path,
			enum kvb_format fmt, int complete)
{
	char tmp[PATH_MAX];
	struct stat st;
	int direct = !stat(path, &st) && !S_ISREG(st.st_mode);
	const char *to = direct ? path : tmp;
	FILE *f;
	int err = 0;

	if (!direct && snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		err = ENAMETOOLONG;
		goto out;
	}
	f = fopen(to, "we");
	if (!f) {
		err = errno;
		goto out;
	}
	print_report(f, s, fmt, complete);
	if (fflush(f) || ferror(f))
		err = errno ? errno : EIO;
	if (fclose(f) && !err)
		err = errno;
	if (!err && !direct && rename(tmp, path))
		err = errno;
	if (err && !direct)
		unlink(tmp);
out:
	if (err && !s->write_err)
		fprintf(stderr, "kvbench: %s: %s\n", path, strerror(err));
	s->write_err |= !!err;
	return err ? -1 : 0;
}

/*
 * --plot: the figure of the JSON report, drawn from that JSON as
 * 'kvbench plot' draws it from a file, so the two cannot differ.
 */
static int plot_report(struct kvb_session *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int ret;

	if (!f) {
		fprintf(stderr, "kvbench: --plot: %s\n", strerror(errno));
		return -1;
	}
	print_report(f, s, KVB_JSON, 1);
	if (fclose(f)) {
		fprintf(stderr, "kvbench: --plot: %s\n", strerror(errno));
		free(text);
		return -1;
	}
	ret = kvb_plot_json(s->p->plot, text, "--plot");
	free(text);
	return ret;
}

/*
 * The report files (-o, --json, --csv), rewritten after every case, so a
 * run that is killed leaves what it measured; once more at the end, with
 * the plot and, without -o, the report on stdout.
 */
/*
 * --after over several mixes: the end of the run sets each case's runs
 * after the second (third, ...) mix against its runs after the first.
 */
static void print_order_effect(const struct kvb_session *s)
{
	const struct kvb_params *p = s->p;
	struct kvb_ocase *c;
	char names[KVB_AFTER_MAX * 32];
	int i, n = 0;

	if (p->nafter < 2 || !s->res)
		return;
	c = calloc(s->total, sizeof(*c));
	if (!c)
		return;
	kvb_mix_names(p->after, p->nafter, names, sizeof(names));
	for (i = 0; i < s->total; i++) {
		const struct kvb_result *r = &s->res[i];
		char m[32];

		if (!r->runs || !r->run_round || r->kind == KVB_NOP)
			continue;
		kvb_mix_name(&r->mix, m, sizeof(m));
		kvb_ocase_label(&c[n], r->target, r->mix.wl ? r->mix.wl->name : m,
				r->threads, r->batch);
		c[n].runs = r->run_ops;
		c[n].rounds = r->run_round;
		c[n++].n = r->runs;
	}
	kvb_order_effect(stdout, c, n, names, p->nafter, KVB_VERDICT_ALPHA,
			 p->margin);
	free(c);
}

static int save_reports(struct kvb_session *s, int complete)
{
	const struct kvb_params *p = s->p;
	struct kvb_stall *st = s->b ? s->b->stall : NULL;
	int ret = 0;

	/*
	 * --trace-stall fired in the case just run: said once, at once; at
	 * the end, that it did not
	 */
	if (st && !st->said && (st->what[0] || complete)) {
		char line[512];

		st->said = 1;
		st->at_s = st->at_ns > s->t0 ? (st->at_ns - s->t0) / 1e9 : 0;
		kvb_stall_line(st, line, sizeof(line));
		fprintf(stderr, "%skvbench: %s\n",
			!p->quiet && kvb_interactive() ? "\n" : "", line);
	}

	make_view(s);
	kvb_compute_ratios(s->view, s->nview);
	if (p->output && write_report(s, p->output, p->format, complete))
		ret = -1;
	if (p->json && write_report(s, p->json, KVB_JSON, complete))
		ret = -1;
	if (p->csv && write_report(s, p->csv, KVB_CSV, complete))
		ret = -1;
	if (!complete)
		return ret;
	if (!p->output) {
		print_report(stdout, s, p->format, 1);
		if (fflush(stdout) || ferror(stdout)) {
			fprintf(stderr, "kvbench: write error: %s\n", strerror(errno));
			ret = -1;
		}
	}
	if (p->plot && plot_report(s))
		ret = -1;
	return ret;
}

/*
 * The report files, rewritten after every case that added to the
 * results: the session's on_case.
 */
static int on_case(struct kvb_session *s)
{
	return save_reports(s, 0);
}

/* --dry-run: the plan and its estimated time; nothing runs. */
static int dry_run(const struct kvb_params *p)
{
	int total = kvb_count_cases(p), shuffled = p->order == KVB_ORDER_SHUFFLED;

	print_plan(stdout, p);
	/* "..., about N s" ends the line: tools/vm/bench.sh reads it */
	printf("kvbench: %d cases x %u %s%s, about %.0f s\n", total,
	       p->repeat, shuffled ? "round" : "run",
	       p->repeat == 1 ? "" : "s", kvb_plan_seconds(p, p->repeat));
	return KVB_EXIT_OK;
}

/* Before the run: a busy host, shared CPUs, and the plan in one line. */
static void warnings(const struct kvb_session *s, const struct kvb_prov *prov)
{
	const struct kvb_params *p = s->p;

	if (prov->host.busy && !p->quiet)
		fprintf(stderr,
			"kvbench: warning: the host is busy: its CPUs were %.0f%% busy in the %d ms before the run (%d%% or more); the figures may be low and noisy (host_busy in the report)\n",
			prov->host.busy_pct, KVB_BUSY_WINDOW_MS, KVB_BUSY_PCT);
	if (kvb_oversubscribed(p))
		fprintf(stderr,
			"kvbench: warning: up to %d threads on %d CPU%s: threads share CPUs, so their ns/op includes waiting for one\n",
			kvb_oversubscribed(p), p->ncpus, p->ncpus == 1 ? "" : "s");
	if (!p->quiet)
		fprintf(stderr,
			"kvbench: %d cases x %u %s%s (%s), about %.0f s; %d CPUs, %lu keys, %s; seed %llu\n",
			s->total, p->repeat, s->shuffled ? "round" : "run",
			p->repeat == 1 ? "" : "s",
			s->shuffled ? "each round every case once, shuffled" :
			"each case's runs back to back",
			kvb_plan_seconds(p, p->repeat), p->ncpus, p->keys,
			p->workloads ? "the workloads' distributions" : kvb_dist_name(p->dist),
			(unsigned long long)p->seed);
}

/* After the run: what cut it short. */
static void epilogue(const struct kvb_session *s)
{
	const struct kvb_params *p = s->p;

	if (atomic_load(&kvb_interrupted) && !p->quiet)
		fprintf(stderr, "\nkvbench: interrupted; printing the %d cases measured\n",
			s->nres);
	if (s->skipped)
		fprintf(stderr,
			"kvbench: the budget of %g s ran out after %.0f s: %d of %d cases skipped, from '%s' on\n",
			p->budget, (kvb_now_ns() - s->t0) / 1e9, s->skipped, s->total,
			s->first_skipped);
	if (s->rounds_cut)
		fprintf(stderr,
			"kvbench: the budget of %g s would run out in the next round, after %.0f s: %u of %u rounds run, every case %u run%s\n",
			p->budget, (kvb_now_ns() - s->t0) / 1e9, s->rounds_done, p->repeat,
			s->rounds_done, s->rounds_done == 1 ? "" : "s");
}

/* --trace-stall: armed on the session's bench; 0, or -1 (said) */
static int open_stall(struct kvb_session *s, struct kvb_stall *stall)
{
	const struct kvb_params *p = s->p;
	char err[400];

	if (!p->trace_stall)
		return 0;
	if (kvb_stall_open(stall, p->trace_dir, p->trace_stall_us, err, sizeof(err))) {
		fprintf(stderr, "kvbench: --trace-stall: %s\n", err);
		return -1;
	}
	stall->count = p->trace_stall_count ? p->trace_stall_count : 1;
	s->b->stall = stall;
	if (stall->off_at_start)
		fprintf(stderr,
			"kvbench: --trace-stall: %s/tracing_on is 0 (frozen by an earlier run?): this run leaves the trace as it is\n",
			stall->dir);
	return 0;
}

/* The run itself, its session set up: the exit status. */
static int run(struct kvb_session *s, struct kvb_prov *prov)
{
	struct sigaction sa;
	int ret;

	/* A report that cannot be written fails now, not after the run. */
	if (save_reports(s, 0))
		return KVB_EXIT_FAIL;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* Say once that the device is missing; the other targets still run. */
	if (kvb_session_device(s))
		return KVB_EXIT_FAIL;
	warnings(s, prov);
	kvb_session_run(s);
	epilogue(s);
	kvb_prov_after(prov);
	ret = save_reports(s, 1);
	print_order_effect(s);
	if (atomic_load(&kvb_interrupted))
		return KVB_EXIT_INTR;
	if (ret || s->failed || s->write_err)
		return KVB_EXIT_FAIL;
	return KVB_EXIT_OK;
}

int kvb_bench_main(int argc, char **argv, const char *device)
{
	struct kvb_params p;
	struct kvb_session s = { .p = &p };
	struct kvb_prov prov = { 0 };
	struct kvb_stall stall = { .marker_fd = -1, .on_fd = -1 };
	int ret;

	kvb_params_defaults(&p);
	p.device = device;
	if (get_cpus(&p)) {
		fprintf(stderr, "kvbench: out of memory\n");
		return KVB_EXIT_FAIL;
	}
	ret = parse_bench(argc, argv, &p);
	if (ret) {
		free_params(&p);
		return ret < 0 ? KVB_EXIT_OK : ret;
	}
	kvb_fit_budget(&p, p.dry_run ? stdout : p.quiet ? NULL : stderr);
	if (p.dry_run) {
		ret = dry_run(&p);
		free_params(&p);
		return ret;
	}
	p.clock_ns = kvb_clock_cost();
	if (!p.seed_given)
		p.seed = draw_seed();
	kvb_prov_collect(&prov, p.sys_module, argc, argv);
	p.prov = &prov;
	p.settled = !p.no_settle;
	if (kvb_session_init(&s, &p) || open_stall(&s, &stall)) {
		ret = KVB_EXIT_FAIL;
	} else {
		s.on_case = on_case;
		ret = run(&s, &prov);
	}
	kvb_session_free(&s);
	kvb_stall_close(&stall);
	kvb_prov_free(&prov);
	free_params(&p);
	return ret;
}
