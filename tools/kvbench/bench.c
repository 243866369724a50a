// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench bench: threads hammer a target (/dev/kvbench, an in-process
 * baseline, a BPF map) and we report throughput and sampled latency per case.
 * Each target is a row of the target table (struct kvb_target_ops): this
 * engine calls through it and has no branch per target.
 *
 * One case is (target, mix, threads, batch or multi, fd mode), measured --repeat
 * times. A run: open the fds, pin one thread per CPU, meet at a start
 * barrier, run --warmup seconds untimed, then --duration seconds (or --ops
 * per thread) timed. Each thread keeps its counters in locals and writes
 * them back once at the end; each thread times its own window with
 * CLOCK_MONOTONIC. One operation in --sample-every (64) is timed on its own
 * for the latency percentiles: each timed op goes into the thread's
 * histogram (hist.c), and the histograms of every thread and run of a case
 * add up to the case's.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <linux/kvbench.h>

#include "kvbench.h"

atomic_bool kvb_interrupted;

/* --seed and drawn seeds stay below 2^53: a JSON number keeps them exact. */
#define KVB_SEED_LIMIT		9007199254740992ULL

enum { PH_WARMUP = 1, PH_MEASURE, PH_STOP };

/* Shared by the threads of one run: read-mostly. */
struct run {
	alignas(64) atomic_int phase;	/* PH_*, written by the main thread */
	atomic_int finished;		/* threads done with their window */
	struct kvb_bench *b;
	const struct kvb_target_ops *ops;
	unsigned int batch;
	/* NULL: one op per call; else the row's ->batch or ->multi */
	void (*call)(struct kvb_ctx *c, struct kvbench_op *ops, unsigned int n);
	/* the row's ->queue: several single operations in flight */
	int (*queue)(struct kvb_ctx *c, int op, const char *key, int timed,
		     struct kvb_done *done);
	int one_kind;		/* ->multi: every op of a call is of one kind */
	__u32 get_below;	/* op = GET when (u32)rand < get_below, */
	__u32 set_below;	/* else SET when below set_below, else DEL */
	/* a --workload's case: its chooser picks the operations and keys */
	int wl;
	struct kvb_chooser ch;
	pthread_barrier_t barrier;
	/*
	 * ycsb-d's newest key, on a line of its own: every read of the case
	 * loads it and every insert (5%) bumps it, so it bounces between the
	 * CPUs as YCSB's shared insert counter does; a cost of the benchmark,
	 * not of the map, and the same for every target.
	 */
	alignas(64) atomic_ulong newest;
};

struct counts {
	unsigned long long ops;
	unsigned long long misses;
	unsigned long long errors;
	int first_err;
};

struct worker {
	alignas(64) struct run *run;
	pthread_t thread;
	struct kvb_ctx ctx;	/* what the row's operations act on */
	int cpu;
	__u64 rng;		/* operations and keys: kvb_thread_seed() */
	char *val;		/* value_size bytes: SET source, GET buffer */
	struct kvbench_op *ops;	/* batch */
	struct kvb_hist *hist;	/* every timed op of this thread's run */
	struct counts c;	/* written back once, at the end */
	double elapsed;
	long vcsw;		/* voluntary context switches, measured part */
	struct kvb_ctr_thread ctr;	/* --counters: over the measured part */
};

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The clock of the latency samples, for the rows that time their own. */
__u64 kvb_now_ns(void)
{
	return now_ns();
}

static __u64 ptr(const void *p)
{
	return (__u64)(unsigned long)p;
}

static void account(struct counts *c, int op, int res)
{
	c->ops++;
	if (!res)
		return;
	if (res == -ENOENT && op != KVBENCH_OP_SET) {
		c->misses++;
		return;
	}
	c->errors++;
	if (!c->first_err)
		c->first_err = -res;
}

static int pick_op(const struct run *r, __u64 x)
{
	__u32 v = (__u32)x;

	if (v < r->get_below)
		return KVBENCH_OP_GET;
	if (v < r->set_below)
		return KVBENCH_OP_SET;
	return KVBENCH_OP_DEL;
}

static unsigned long pick_key(struct worker *w, __u64 x)
{
	const struct kvb_bench *b = w->run->b;

	if (b->zipf.prob)
		return kvb_zipf_next(&b->zipf, &w->rng);
	return (unsigned long)(((x >> 32) * b->p->keys) >> 32);
}

/*
 * A --workload's operation: its kind (KVB_W_*) in *wop, its key, and the
 * device operation (a read-modify-write starts with its GET).
 */
static int wl_pick(struct worker *w, int *wop, const char **key)
{
	const struct run *r = w->run;
	const struct kvb_params *p = r->b->p;

	*wop = kvb_chooser_op(&r->ch, kvb_rand(&w->rng));
	*key = r->b->keys + kvb_chooser_key(&r->ch, *wop, &w->rng) * p->key_size;
	return *wop == KVB_W_READ || *wop == KVB_W_RMW ? KVBENCH_OP_GET : KVBENCH_OP_SET;
}

/*
 * A read-modify-write, one operation as YCSB counts it: the GET, then a
 * SET of the same key with the value the GET brought back (a GET that
 * missed still writes). The SET's failure is the operation's.
 */
static void rmw(struct worker *w, struct counts *c, const char *key)
{
	const struct run *r = w->run;
	unsigned int vlen = r->b->p->value_size;
	int op = KVBENCH_OP_GET, res;

	res = r->ops->op(&w->ctx, KVBENCH_OP_GET, key, w->val, &vlen);
	if (!res || res == -ENOENT) {
		int set;

		vlen = r->b->p->value_size;
		set = r->ops->op(&w->ctx, KVBENCH_OP_SET, key, w->val, &vlen);
		if (set) {
			res = set;
			op = KVBENCH_OP_SET;
		}
	}
	account(c, op, res);
}

/* Every timed step counts: a histogram has room for all of them. */
static void record(struct worker *w, __u64 ns)
{
	kvb_hist_add(w->hist, ns);
}

/*
 * One queued operation (->queue): the one that completed, if any, is
 * counted, and timed from when it was queued to its completion.
 */
static void queue_step(struct worker *w, struct counts *c, int op,
		       const char *key, int timed)
{
	struct kvb_done d;

	if (w->run->queue(&w->ctx, op, key, timed, &d) <= 0)
		return;
	account(c, d.op, d.result);
	if (d.queued_ns)
		record(w, now_ns() - d.queued_ns);
}

/*
 * One step: one operation, or one call of run->batch operations (for the
 * kernel backends one BATCH ioctl, or one packed MGET, MSET or MDEL, whose
 * kind is drawn from the mix for the whole call), or one operation queued
 * and one reaped. timed: a latency sample, per operation.
 */
static void step(struct worker *w, struct counts *c, int timed)
{
	struct run *r = w->run;
	const struct kvb_params *p = r->b->p;
	/* a step is timed whole, but a queued op from queue to completion */
	__u64 t0 = timed && !r->queue ? now_ns() : 0;
	unsigned int vlen = p->value_size, i;
	__u64 x = 0;
	int op, wop = KVB_W_READ;
	const char *key;

	if (r->wl) {
		op = wl_pick(w, &wop, &key);
	} else {
		x = kvb_rand(&w->rng);
		op = pick_op(r, x);
		key = r->b->keys + pick_key(w, x) * p->key_size;
	}
	if (r->queue) {
		queue_step(w, c, op, key, timed);
		return;
	}
	if (!r->call) {
		/* only here: parse_bench() refuses RMW with calls or a queue */
		if (wop == KVB_W_RMW)
			rmw(w, c, key);
		else
			account(c, op, r->ops->op(&w->ctx, op, key, w->val, &vlen));
		if (timed)
			record(w, now_ns() - t0);
		return;
	}
	for (i = 0; i < r->batch; i++) {
		struct kvbench_op *o = &w->ops[i];

		if (i && r->wl && r->one_kind) {
			/* a packed call: the first operation's kind, new keys */
			key = r->b->keys + kvb_chooser_key(&r->ch, wop, &w->rng) * p->key_size;
		} else if (i && r->wl) {
			op = wl_pick(w, &wop, &key);
		} else if (i) {
			x = kvb_rand(&w->rng);
			if (!r->one_kind)
				op = pick_op(r, x);
			key = r->b->keys + pick_key(w, x) * p->key_size;
		}
		o->kv.key = ptr(key);
		o->kv.value = ptr(w->val);
		o->kv.key_len = p->key_size;
		o->kv.value_len = vlen;
		o->op = op;
		o->result = 0;
	}
	r->call(&w->ctx, w->ops, r->batch);
	for (i = 0; i < r->batch; i++)
		account(c, w->ops[i].op, w->ops[i].result);
	if (timed)
		record(w, (now_ns() - t0) / r->batch);
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	struct run *r = w->run;
	unsigned long long limit = r->b->p->ops;
	/* Time one call per sample_every operations, at least 1 in 1. */
	unsigned int every = r->b->p->sample_every / r->batch, left = 1;
	int sample = r->b->p->sample_every != 0, timed;
	struct counts c = { 0 };
	struct rusage ru0, ru1;
	__u64 t0, t1;

	kvb_ctr_open(&w->ctr, r->b->p->counters);
	pthread_barrier_wait(&r->barrier);
	while (atomic_load_explicit(&r->phase, memory_order_relaxed) == PH_WARMUP)
		step(w, &c, 0);

	memset(&c, 0, sizeof(c));
	/*
	 * The times this thread slept (waited for an answer, a completion,
	 * a lock), each a wake-up someone paid for: the mechanism behind
	 * the owners' and io_uring's numbers, whatever the target.
	 */
	if (getrusage(RUSAGE_THREAD, &ru0))
		ru0.ru_nvcsw = 0;
	kvb_ctr_start(&w->ctr);
	t0 = now_ns();
	if (!every)
		every = 1;
	for (;;) {
		if (atomic_load_explicit(&r->phase, memory_order_relaxed) != PH_MEASURE)
			break;
		if (limit && c.ops >= limit)
			break;
		timed = sample && !--left;
		if (timed)
			left = every;
		step(w, &c, timed);
	}
	t1 = now_ns();
	kvb_ctr_stop(&w->ctr);
	if (getrusage(RUSAGE_THREAD, &ru1))
		ru1.ru_nvcsw = ru0.ru_nvcsw;

	w->c = c;
	w->elapsed = (t1 - t0) / 1e9;
	w->vcsw = ru1.ru_nvcsw - ru0.ru_nvcsw;
	atomic_fetch_add(&r->finished, 1);
	return NULL;
}

/*
 * Sleep until sec have passed, or every thread is done, or Ctrl-C. Workers
 * block SIGINT, so the signal lands here and cuts nanosleep() short; the
 * 250 ms cap bounds the case where it lands just before the sleep. Few
 * wake-ups: this thread shares the CPUs with the pinned workers.
 */
static void wait_phase(struct run *r, double sec, unsigned int threads,
		       int until_done)
{
	__u64 end = now_ns() + (__u64)(sec * 1e9);

	while (!atomic_load(&kvb_interrupted)) {
		__u64 now = now_ns(), left;
		struct timespec ts;

		if (until_done) {
			if ((unsigned int)atomic_load(&r->finished) == threads)
				return;
			left = 10000000;
		} else {
			if (now >= end)
				return;
			left = end - now;
			if (left > 250000000)
				left = 250000000;
		}
		ts.tv_sec = 0;
		ts.tv_nsec = left;
		nanosleep(&ts, NULL);
	}
}

/* Close the target's fd: before the next target begins, and at the end. */
static void close_fd(struct kvb_bench *b)
{
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
	b->filled = 0;
}

/* Every key, through the row's SET, from the main thread's context. */
static int prefill(struct kvb_bench *b, const struct kvb_target *t,
		   struct kvb_ctx *mc, char *val)
{
	const struct kvb_params *p = b->p;
	unsigned long i;
	int res = 0;

	for (i = 0; i < p->keys && !res; i++) {
		unsigned int vlen = p->value_size;

		res = t->ops->op(mc, KVBENCH_OP_SET, b->keys + i * p->key_size,
				 val, &vlen);
	}
	if (res) {
		fprintf(stderr, "kvbench: %s: pre-filling key %lu of %lu failed: %s\n",
			t->name, i, p->keys, strerror(-res));
		if ((t->ops->flags & KVB_T_DEVICE) && (res == -E2BIG || res == -ENOSPC))
			fprintf(stderr,
				"kvbench: check max_value_len, max_entries and max_bytes in /sys/module/kvbench/parameters/\n");
		return -1;
	}
	b->filled = 1;
	return 0;
}

/*
 * One GET (through a batch when batching, a packed call for --multi) so a
 * missing ioctl fails early.
 */
static int probe(const struct kvb_target *t, struct kvb_ctx *mc,
		 unsigned int batch, int multi, char *val)
{
	int res = t->ops->probe ? t->ops->probe(mc, batch, multi, val) : 0;

	if (res) {
		fprintf(stderr, "kvbench: %s%s: %s%s\n", t->name,
			multi ? " --multi" : batch > 1 ? " --batch" : "", strerror(-res),
			res == -ENOTTY ? " (the module does not support this ioctl yet)" : "");
		return -1;
	}
	return 0;
}

/*
 * Before a run: write 1 to the module's settle file, which returns once the
 * work earlier operations deferred (RCU callbacks freeing items, a table's
 * resize, queued io_uring commands) is done, so that no run pays for the
 * one before it. Not with --no-settle; without the file (no module, or one
 * without it) nothing is settled, said once when a target is the device's.
 */
static void settle(struct kvb_bench *b, const struct kvb_target *t)
{
	const struct kvb_params *p = b->p;
	char path[PATH_MAX];
	int fd, err = 0;

	if (p->no_settle || b->settle_ok < 0)
		return;
	snprintf(path, sizeof(path), "%s/%s", p->sysfs, "settle");
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "1", 1) != 1)
		err = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
	if (!err) {
		b->settle_ok = 1;
		return;
	}
	if (!p->quiet && (t->ops->flags & KVB_T_DEVICE))
		fprintf(stderr,
			"kvbench: %s: %s; the runs start from what the one before left (not settled)\n",
			path, strerror(err));
	b->settle_ok = -1;
	if (b->settled)
		*b->settled = 0;
}

struct run_out {
	unsigned long long ops, misses, errors;
	int first_err;
	double ops_per_sec;
	double seconds;
	struct kvb_hist *hist;	/* the threads' histograms, added up */
	/* the slowest and fastest thread's ops over its own window */
	double thr_min, thr_max;
	int interrupted;
	unsigned long long vcsw;	/* the threads' voluntary switches */
	struct kvb_ctr_acc ctr;	/* the threads' counters, added up */
};

static int run_once(struct kvb_bench *b, const struct kvb_target *t,
		    const struct kvb_mix *mix, unsigned int threads,
		    unsigned int batch, int multi, enum kvb_fd fdmode,
		    struct run_out *out)
{
	const struct kvb_params *p = b->p;
	const struct kvb_target_ops *ops = t->ops;
	struct kvb_ctx mc = { .b = b, .t = t, .fd = -1, .klen = p->key_size };
	struct worker *w = NULL;
	struct run *r;
	double total = mix->get + mix->set + mix->del;
	pthread_attr_t attr;
	sigset_t block, old;
	unsigned int i, created = 0;
	int ret = -1;
	int err;
	char *pval;

	memset(out, 0, sizeof(*out));
	r = aligned_alloc(64, (sizeof(*r) + 63) & ~63UL);
	pval = malloc(p->value_size + 1);
	if (!r || !pval)
		goto out_free;
	memset(r, 0, sizeof(*r));
	memset(pval, 'v', p->value_size + 1);
	r->b = b;
	r->ops = ops;
	r->batch = batch;
	r->call = multi ? ops->multi : batch > 1 ? ops->batch : NULL;
	r->queue = r->call ? NULL : ops->queue;
	r->one_kind = multi;
	r->get_below = (__u32)(4294967295.0 * (mix->get / total));
	r->set_below = (__u32)(4294967295.0 * ((mix->get + mix->set) / total));
	if (!mix->del)
		r->set_below = 0xffffffffU;
	if (mix->wl) {
		int wi = mix->wl - kvb_workloads;

		/* the pre-fill inserted keys 0..n-1: n - 1 is the newest */
		atomic_store(&r->newest, p->keys - 1);
		r->wl = 1;
		kvb_chooser_init(&r->ch, mix, p->keys, b->wlz[wi], &r->newest);
	}

	if (ops->setup && ops->setup(b, &mc.run, threads))
		goto out_nomem;
	if (ops->flags & KVB_T_RUN_MAP)
		b->filled = 0;
	/* -2: no case of this target can run; -1: not this one. */
	ret = -2;
	err = ops->thread_init(&mc, KVB_FD_SHARED);
	if (err == -ENOMEM)
		goto out_nomem_main;
	if (err)
		goto out_main;
	if ((ops->flags & KVB_T_MIXES) && !b->filled && prefill(b, t, &mc, pval))
		goto out_main;
	if (probe(t, &mc, batch, multi, pval)) {
		if (r->call)
			ret = -1;
		goto out_main;
	}
	ret = -1;

	w = aligned_alloc(64, ((sizeof(*w) * threads) + 63) & ~63UL);
	if (!w)
		goto out_nomem_main;
	memset(w, 0, sizeof(*w) * threads);
	for (i = 0; i < threads; i++) {
		w[i].ctx = mc;
		w[i].ctx.fd = -1;
		w[i].ctx.priv = NULL;
	}
	for (i = 0; i < threads; i++) {
		w[i].run = r;
		/* --seed: the same keys and operations, run after run */
		w[i].rng = kvb_thread_seed(p->seed, i);
		w[i].val = malloc(p->value_size + 1);
		w[i].hist = malloc(sizeof(*w[i].hist));
		w[i].ops = r->call ? calloc(batch, sizeof(*w[i].ops)) : NULL;
		if (!w[i].val || !w[i].hist || (r->call && !w[i].ops))
			goto out_nomem_workers;
		kvb_hist_init(w[i].hist);
		memset(w[i].val, 'v', p->value_size + 1);
		err = ops->thread_init(&w[i].ctx, fdmode);
		if (err == -ENOMEM)
			goto out_nomem_workers;
		if (err)
			goto out_workers;
	}

	/* the pre-fill and the previous run leave work behind: done now */
	settle(b, t);
	pthread_barrier_init(&r->barrier, NULL, threads + 1);
	atomic_store(&r->phase, p->warmup > 0 ? PH_WARMUP : PH_MEASURE);
	pthread_attr_init(&attr);
	/* Ctrl-C goes to this thread, which sleeps in wait_phase(). */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	for (i = 0; i < threads; i++) {
		if (p->pin && p->ncpus > 0) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(p->cpus[i % p->ncpus], &set);
			pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		}
		err = pthread_create(&w[i].thread, &attr, worker_fn, &w[i]);
		if (err) {
			fprintf(stderr, "kvbench: cannot create thread %u: %s\n",
				i, strerror(err));
			break;
		}
		created++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (created < threads) {
		/* The barrier needs everyone: release it with stand-ins. */
		atomic_store(&r->phase, PH_STOP);
		for (i = created; i < threads; i++)
			pthread_barrier_wait(&r->barrier);
	}

	pthread_barrier_wait(&r->barrier);
	if (created == threads) {
		if (p->warmup > 0) {
			wait_phase(r, p->warmup, threads, 0);
			atomic_store(&r->phase, PH_MEASURE);
		}
		wait_phase(r, p->duration, threads, p->ops > 0);
	}
	atomic_store(&r->phase, PH_STOP);
	for (i = 0; i < created; i++)
		pthread_join(w[i].thread, NULL);
	pthread_barrier_destroy(&r->barrier);
	if (created < threads)
		goto out_workers;

	out->interrupted = atomic_load(&kvb_interrupted);
	out->hist = malloc(sizeof(*out->hist));
	if (!out->hist)
		goto out_nomem_workers;
	kvb_hist_init(out->hist);
	out->thr_min = NAN;
	out->thr_max = NAN;
	for (i = 0; i < threads; i++) {
		struct worker *x = &w[i];
		double rate = x->elapsed > 0 ? x->c.ops / x->elapsed : 0;

		kvb_hist_merge(out->hist, x->hist);
		if (!i || rate < out->thr_min)
			out->thr_min = rate;
		if (!i || rate > out->thr_max)
			out->thr_max = rate;
		out->ops += x->c.ops;
		out->vcsw += x->vcsw > 0 ? x->vcsw : 0;
		kvb_ctr_add(&out->ctr, &x->ctr, x->c.ops);
		out->misses += x->c.misses;
		out->errors += x->c.errors;
		if (!out->first_err)
			out->first_err = x->c.first_err;
		out->ops_per_sec += rate;
		out->seconds += x->elapsed / threads;
	}
	if (mix->del)
		b->filled = 0;
	ret = 0;
	goto out_workers;

out_nomem_workers:
	fprintf(stderr, "kvbench: out of memory\n");
out_workers:
	for (i = 0; i < threads; i++) {
		if (ops->thread_fini)
			ops->thread_fini(&w[i].ctx);
		free(w[i].val);
		free(w[i].hist);
		free(w[i].ops);
	}
	free(w);
	goto out_main;
out_nomem_main:
	fprintf(stderr, "kvbench: out of memory\n");
out_main:
	if (ops->thread_fini)
		ops->thread_fini(&mc);
	if (ops->teardown)
		ops->teardown(mc.run);
	goto out_free;
out_nomem:
	fprintf(stderr, "kvbench: out of memory\n");
out_free:
	free(pval);
	free(r);
	return ret;
}

void kvb_result_free(struct kvb_result *r)
{
	free(r->run_ops);
	r->run_ops = NULL;
	free(r->run_round);
	r->run_round = NULL;
}

/*
 * What a case gathers over its runs besides its result: every timed op's
 * histogram and each run's fairness, for case_summarize().
 */
struct case_acc {
	struct kvb_hist *all;
	double *tmin, *tmax, *tratio;
	int first_err;
	struct kvb_ctr_acc ctr;	/* --counters, every run's */
};

static void case_acc_free(struct case_acc *a)
{
	free(a->all);
	free(a->tmin);
	free(a->tmax);
	free(a->tratio);
	memset(a, 0, sizeof(*a));
}

/* An empty result for the case, with room for --repeat runs. */
static int case_init(const struct kvb_params *p, const struct kvb_target *t,
		     const struct kvb_mix *mix, unsigned int threads,
		     unsigned int batch, int multi, enum kvb_fd fdmode,
		     struct kvb_result *res, struct case_acc *a)
{
	memset(res, 0, sizeof(*res));
	memset(a, 0, sizeof(*a));
	snprintf(res->target, sizeof(res->target), "%s", t->name);
	res->kind = t->ops->kind;
	res->mix = t->ops->flags & KVB_T_MIXES ? *mix : (struct kvb_mix){ 0 };
	res->dist = res->mix.wl ? res->mix.wl->dist : p->dist;
	res->theta = res->mix.wl ? res->mix.wl->theta : p->theta;
	res->threads = threads;
	res->batch = batch;
	res->multi = multi;
	res->fdmode = fdmode;
	res->io = t->io;
	res->qd = t->io == KVB_IO_URING ? t->qd : 0;
	res->sqpoll = t->sqpoll;
	res->p50 = NAN;
	res->p99 = NAN;
	res->p999 = NAN;
	res->cost_vs_nop = NAN;
	res->tput_vs_rwlock = NAN;
	res->thr_min = NAN;
	res->thr_max = NAN;
	res->thr_ratio = NAN;
	res->ops_per_sec = NAN;
	res->run_ops = calloc(p->repeat, sizeof(*res->run_ops));
	res->run_round = calloc(p->repeat, sizeof(*res->run_round));
	a->all = malloc(sizeof(*a->all));
	a->tmin = calloc(p->repeat, sizeof(*a->tmin));
	a->tmax = calloc(p->repeat, sizeof(*a->tmax));
	a->tratio = calloc(p->repeat, sizeof(*a->tratio));
	if (!res->run_ops || !res->run_round || !a->all || !a->tmin ||
	    !a->tmax || !a->tratio) {
		fprintf(stderr, "kvbench: out of memory\n");
		kvb_result_free(res);
		case_acc_free(a);
		return -1;
	}
	kvb_hist_init(a->all);
	return 0;
}

/*
 * One run of the case, in round @round, added to its result. Returns 0,
 * 1 when the run did no operation (interrupted before it began), or
 * run_once()'s error.
 */
static int case_run(struct kvb_bench *b, const struct kvb_target *t,
		    const struct kvb_mix *mix, unsigned int round,
		    struct kvb_result *res, struct case_acc *a)
{
	struct run_out o;
	int ret;

	if (res->runs >= b->p->repeat)
		return 1;
	/* --after: the case the run comes after, untimed, its figures dropped */
	if (b->p->after_given && (t->ops->flags & KVB_T_MIXES)) {
		ret = run_once(b, t, &b->p->after, res->threads, res->batch,
			       res->multi, res->fdmode, &o);
		if (ret)
			return ret;
		free(o.hist);
	}
	ret = run_once(b, t, mix, res->threads, res->batch, res->multi,
		       res->fdmode, &o);
	if (ret)
		return ret;
	if (!o.ops) {
		free(o.hist);
		return 1;
	}
	kvb_hist_merge(a->all, o.hist);
	free(o.hist);
	a->tmin[res->runs] = o.thr_min;
	a->tmax[res->runs] = o.thr_max;
	a->tratio[res->runs] = o.thr_max > 0 ? o.thr_min / o.thr_max : NAN;
	res->run_round[res->runs] = round;
	res->run_ops[res->runs++] = o.ops_per_sec;
	res->ops += o.ops;
	res->misses += o.misses;
	res->errors += o.errors;
	res->seconds += o.seconds;
	res->interrupted |= o.interrupted;
	res->vcsw += o.vcsw;
	kvb_ctr_merge(&a->ctr, &o.ctr);
	if (!a->first_err)
		a->first_err = o.first_err;
	return 0;
}

/* The case's figures from the runs it has so far: again after each. */
static void case_summarize(const struct kvb_params *p, struct kvb_result *res,
			   const struct case_acc *a)
{
	res->ops_per_sec = kvb_median(res->run_ops, res->runs);
	/* ns/op as Go's testing package: wall time per op over all threads */
	res->ns_per_op = res->ops_per_sec > 0 ? 1e9 / res->ops_per_sec : NAN;
	res->lat_per_op = res->ops_per_sec > 0 ?
			  res->threads * 1e9 / res->ops_per_sec : NAN;
	res->spread_pct = kvb_spread_pct(res->run_ops, res->runs);
	kvb_summarize(res->run_ops, res->runs, &res->sum);
	res->noisy = res->runs > 1 && res->spread_pct > p->noisy_pct;
	kvb_hist_summary(a->all, &res->lat);
	res->samples = res->lat.samples;
	res->p50 = res->lat.pct[0];
	res->p99 = res->lat.pct[2];
	res->p999 = res->lat.pct[3];
	/*
	 * Fairness within a run, then its median over the runs (as ops/s):
	 * the runs' drift is not a thread's starvation.
	 */
	res->thr_min = kvb_median(a->tmin, res->runs);
	res->thr_max = kvb_median(a->tmax, res->runs);
	res->thr_ratio = kvb_median(a->tratio, res->runs);
	kvb_ctr_finish(&a->ctr, &res->ctr);
}

/* Said once the case has all its runs. */
static void case_errors(const struct kvb_target *t, const struct kvb_result *res,
			const struct case_acc *a)
{
	char m[32];

	if (!res->errors)
		return;
	kvb_mix_name(&res->mix, m, sizeof(m));
	fprintf(stderr,
		"kvbench: %s %s threads=%u %s=%u: %llu of %llu operations failed, first: %s\n",
		t->name, m, res->threads, res->multi ? "multi" : "batch", res->batch,
		res->errors, res->ops, strerror(a->first_err));
}

int kvb_run_case(struct kvb_bench *b, const struct kvb_target *t,
		 const struct kvb_mix *mix, unsigned int threads,
		 unsigned int batch, int multi, enum kvb_fd fdmode,
		 struct kvb_result *res)
{
	const struct kvb_params *p = b->p;
	struct case_acc a;
	unsigned int i;
	int ret = 0;

	if (case_init(p, t, mix, threads, batch, multi, fdmode, res, &a))
		return -1;
	for (i = 0; i < p->repeat && !atomic_load(&kvb_interrupted); i++) {
		ret = case_run(b, t, mix, i, res, &a);
		if (ret)
			break;
	}
	if (!res->runs) {
		ret = ret < 0 ? ret : -1;
		kvb_result_free(res);
		case_acc_free(&a);
		return ret;
	}
	case_summarize(p, res, &a);
	case_errors(t, res, &a);
	case_acc_free(&a);
	return 0;
}

/*
 * The samplers of the --workload presets in the mixes, built once for all
 * their cases: one table per kind and theta (ycsb-a, b, c, f share YCSB's
 * scrambled zipfian, ycsb-d has the plain zipf of its "latest").
 */
static int wl_samplers(struct kvb_bench *b)
{
	const struct kvb_params *p = b->p;
	int i, j;

	b->wlz = calloc(kvb_nworkloads, sizeof(*b->wlz));
	b->zipfs = calloc(kvb_nworkloads, sizeof(*b->zipfs));
	if (!b->wlz || !b->zipfs)
		return -1;
	for (i = 0; i < p->nmixes; i++) {
		const struct kvb_workload *wl = p->mixes[i].wl;
		int scrambled;

		if (!wl || wl->dist == KVB_UNIFORM)
			continue;
		scrambled = wl->dist == KVB_SCRAMBLED;
		for (j = 0; j < b->nzipfs; j++)
			if (b->zipfs[j].theta == wl->theta && b->zipfs[j].scrambled == scrambled)
				break;
		if (j == b->nzipfs) {
			if (scrambled ? kvb_ycsb_zipf_init(&b->zipfs[j], p->keys, wl->theta) :
			    kvb_zipf_init(&b->zipfs[j], p->keys, wl->theta))
				return -1;
			b->nzipfs++;
		}
		b->wlz[wl - kvb_workloads] = &b->zipfs[j];
	}
	return 0;
}

struct kvb_bench *kvb_bench_new(const struct kvb_params *p)
{
	struct kvb_bench *b = calloc(1, sizeof(*b));
	unsigned long i;
	int digits = 1;
	unsigned long n;

	if (!b)
		return NULL;
	b->p = p;
	b->fd = -1;
	b->keys = malloc(p->keys * p->key_size);
	if (!b->keys)
		goto out_free;
	/* key i: 'k' padding, then i in decimal: unique, readable. */
	for (n = p->keys - 1; n >= 10; n /= 10)
		digits++;
	for (i = 0; i < p->keys; i++) {
		char *k = b->keys + i * p->key_size;
		int d;

		memset(k, 'k', p->key_size);
		for (d = 1, n = i; d <= digits; d++, n /= 10)
			k[p->key_size - d] = '0' + n % 10;
	}
	if (p->dist == KVB_ZIPF && kvb_zipf_init(&b->zipf, p->keys, p->theta))
		goto out_free;
	if (wl_samplers(b))
		goto out_free;
	return b;
out_free:
	kvb_bench_free(b);
	return NULL;
}

void kvb_bench_free(struct kvb_bench *b)
{
	int i;

	if (!b)
		return;
	close_fd(b);
	kvb_zipf_free(&b->zipf);
	for (i = 0; i < b->nzipfs; i++)
		kvb_zipf_free(&b->zipfs[i]);
	free(b->zipfs);
	free(b->wlz);
	free(b->keys);
	free(b);
}

void kvb_params_defaults(struct kvb_params *p)
{
	memset(p, 0, sizeof(*p));
	p->device = KVB_DEFAULT_DEVICE;
	p->sysfs = KVB_DEFAULT_SYSFS;
	p->keys = 1024;
	p->key_size = 16;
	p->value_size = 64;
	p->dist = KVB_UNIFORM;
	/*
	 * Five runs of half a second: with fewer runs no difference between
	 * two targets can be significant (the verdict, compare), and five of
	 * 0.5 s cost what three of 1 s did.
	 */
	p->duration = 0.5;
	p->warmup = 0.2;
	p->repeat = 5;
	p->owner_spin = KVB_OWNER_SPIN;
	p->sys_module = KVB_SYS_MODULE;
	p->sample_every = KVB_SAMPLE_EVERY;
	p->pin = 1;
	p->format = KVB_TABLE;
	p->noisy_pct = KVB_NOISY_PCT;
	p->ios = 1U << KVB_IO_IOCTL;
}

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
	"      --after MIX       before each timed run, run MIX (as -m: set, get,\n"
	"                        90:10) untimed on the same target, as the case the\n"
	"                        run comes after: with --no-settle or without, what\n"
	"                        a write-heavy case leaves to the next one\n"
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
	"                        switches dearer\n"
	"  -h, --help            show this help\n"
	"\n"
	"Counts (N) take the suffixes k, M, G (x1000) or Ki, Mi, Gi (x1024);\n"
	"durations (SEC) are seconds, or take us, ms, s or m (minutes).\n"
	"\n"
	"ns/op is Go's: wall time per operation over all threads (1e9 / ops/s);\n"
	"lat/op is per thread (threads x 1e9 / ops/s). Exit status: 0, 1 when a case\n"
	"failed or could not run, 2 on usage errors, 130 after Ctrl-C (which\n"
	"stops at once and prints what was measured).\n";

static int bench_usage(const char *opt, const char *msg)
{
	fprintf(stderr, "kvbench bench: %s%s%s\n", opt ? opt : "", opt ? ": " : "", msg);
	fprintf(stderr, "Try 'kvbench bench --help' for more information.\n");
	return KVB_EXIT_USAGE;
}

/* One case of a target, as run_target() runs them: threads vary fastest. */
struct kvb_case {
	const struct kvb_mix *mix;
	unsigned int threads;
	unsigned int batch;
	int multi;		/* batch keys per packed call, not a BATCH */
	enum kvb_fd fdmode;
};

/* What a target's cases vary: its row says which of --mix, --batch, --fd. */
static int nmixes_of(const struct kvb_params *p, const struct kvb_target *t)
{
	return t->ops->flags & KVB_T_MIXES ? p->nmixes : 1;
}

/*
 * Calls of one op or a BATCH (--batch), then packed calls (--multi); with
 * --multi alone, a target that makes packed calls makes only those.
 */
static int nbatches_of(const struct kvb_params *p, const struct kvb_target *t)
{
	if (p->multi_only && t->ops->flags & KVB_T_MULTI)
		return 0;
	return t->ops->flags & KVB_T_BATCHES ? p->batches.n : 1;
}

static int ncalls_of(const struct kvb_params *p, const struct kvb_target *t)
{
	return nbatches_of(p, t) +
	       (t->ops->flags & KVB_T_MULTI ? p->multis.n : 0);
}

static int nfdmodes_of(const struct kvb_params *p, const struct kvb_target *t)
{
	return t->ops->flags & KVB_T_FD ? p->fdmodes.n : 1;
}

static int cases_of(const struct kvb_params *p, const struct kvb_target *t)
{
	return p->threads.n * nfdmodes_of(p, t) * ncalls_of(p, t) *
	       nmixes_of(p, t);
}

static void case_at(const struct kvb_params *p, const struct kvb_target *t,
		    int i, struct kvb_case *c)
{
	int nf = nfdmodes_of(p, t), nb = nbatches_of(p, t), nc = ncalls_of(p, t);
	int per_mix = p->threads.n * nf * nc;
	int call = i / p->threads.n / nf % nc;

	c->threads = p->threads.v[i % p->threads.n];
	c->fdmode = t->ops->flags & KVB_T_FD ?
		    p->fdmodes.v[i / p->threads.n % nf] : KVB_FD_NONE;
	c->multi = call >= nb;
	if (c->multi)
		c->batch = p->multis.v[call - nb];
	else
		c->batch = t->ops->flags & KVB_T_BATCHES ? p->batches.v[call] : 1;
	c->mix = &p->mixes[i / per_mix];
}

static int count_cases(const struct kvb_params *p)
{
	int i, n = 0;

	for (i = 0; i < p->ntargets; i++)
		n += cases_of(p, &p->targets[i]);
	return n;
}

/*
 * What a case costs in wall time, for the plan and the budget: its runs'
 * warm-up and timed parts, and what surrounds them (threads created, pinned
 * and joined, fds opened, the map pre-filled), as measured under QEMU TCG,
 * the slowest place this runs. Elsewhere it errs on the long side.
 */
#define KVB_RUN_FIXED_S		0.05	/* per run */
#define KVB_RUN_THREAD_S	0.002	/* per run and thread */
#define KVB_FILL_KEY_S		0.00001	/* per key pre-filled */
#define KVB_TARGET_S		0.1	/* per kept map: switch or create, first fill */
#define KVB_SETTLE_S		0.01	/* per run: the write to settle */

/*
 * A map kept across runs: made (a backend switched) and filled once;
 * shuffled, once per run.
 */
static int keeps_map(const struct kvb_target *t)
{
	return (t->ops->flags & KVB_T_MIXES) && !(t->ops->flags & KVB_T_RUN_MAP);
}

static double case_seconds(const struct kvb_params *p,
			   const struct kvb_target *t,
			   const struct kvb_case *c, unsigned int repeat)
{
	double run = p->warmup + (p->ops ? 0 : p->duration) + KVB_RUN_FIXED_S +
		     c->threads * KVB_RUN_THREAD_S;
	double fill = p->keys * KVB_FILL_KEY_S;

	/* the baselines build their map per run; DEL empties the others' */
	if ((t->ops->flags & KVB_T_RUN_MAP) ||
	    ((t->ops->flags & KVB_T_MIXES) && c->mix->del))
		run += fill;
	if (!p->no_settle)
		run += KVB_SETTLE_S;
	/* --after: a run of that mix before each */
	if (p->after_given && (t->ops->flags & KVB_T_MIXES))
		run *= 2;
	/* shuffled, each run begins its target: a switch, a fill */
	if (p->order == KVB_ORDER_SHUFFLED && keeps_map(t))
		run += KVB_TARGET_S + fill;
	return repeat * run;
}

static double target_seconds(const struct kvb_params *p,
			     const struct kvb_target *t, unsigned int repeat)
{
	double s = keeps_map(t) && p->order == KVB_ORDER_SEQUENTIAL ?
		   KVB_TARGET_S + p->keys * KVB_FILL_KEY_S : 0;
	struct kvb_case c;
	int i;

	for (i = 0; i < cases_of(p, t); i++) {
		case_at(p, t, i, &c);
		s += case_seconds(p, t, &c, repeat);
	}
	return s;
}

static double plan_seconds(const struct kvb_params *p, unsigned int repeat)
{
	double s = 0;
	int i;

	for (i = 0; i < p->ntargets; i++)
		s += target_seconds(p, &p->targets[i], repeat);
	return s;
}

/*
 * Fit the plan to --budget by running each case fewer times (the repeats
 * matter least); what still does not fit is skipped when its turn comes
 * (run_target()). Says what it cut.
 */
static void fit_budget(struct kvb_params *p, FILE *note)
{
	unsigned int r = p->repeat;
	double want = plan_seconds(p, p->repeat);

	if (p->budget <= 0 || want <= p->budget)
		return;
	while (r > 1 && plan_seconds(p, r) > p->budget)
		r--;
	if (r < p->repeat && note && p->order == KVB_ORDER_SHUFFLED)
		fprintf(note,
			"kvbench: budget %.0f s: %u rounds (runs per case) would take about %.0f s; %u round%s instead\n",
			p->budget, p->repeat, want, r, r == 1 ? "" : "s");
	else if (r < p->repeat && note)
		fprintf(note,
			"kvbench: budget %.0f s: %u runs per case would take about %.0f s; %u run%s per case instead\n",
			p->budget, p->repeat, want, r, r == 1 ? "" : "s");
	p->repeat = r;
	if (plan_seconds(p, r) > p->budget && note)
		fprintf(note,
			"kvbench: budget %.0f s: the plan needs about %.0f s even so; the cases that do not fit are skipped%s\n",
			p->budget, plan_seconds(p, r),
			p->order == KVB_ORDER_SHUFFLED ?
			" (one round: those its order puts last)" : "");
}

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

		fprintf(f, "%-*s %6d %6d %7.0f s\n", w, t->name, cases_of(p, t),
			cases_of(p, t) * p->repeat, target_seconds(p, t, p->repeat));
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

/* Overwrite the progress line only on a real terminal, not a serial log. */
static int interactive(void)
{
	const char *term = getenv("TERM");

	return isatty(2) && term && *term && strcmp(term, "dumb");
}

static void progress(const struct kvb_params *p, int idx, int total,
		     const struct kvb_result *r, const char *label)
{
	if (p->quiet)
		return;
	if (!r) {
		if (interactive())
			fprintf(stderr, "kvbench: [%d/%d] %s ...", idx, total, label);
		return;
	}
	fprintf(stderr, "%skvbench: [%d/%d] %s %.0f ops/s\n",
		interactive() ? "\r\033[K" : "", idx, total, label, r->ops_per_sec);
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
		v = now_ns() ^ ((__u64)getpid() << 32);
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
		return bench_usage("--qd",
				   "needs --io uring (or both): the ioctls have one call in flight per thread");
	if (!uring && p->sqpoll)
		return bench_usage("--sqpoll", "needs --io uring (or both)");
	if (kvb_parse_ulist(qds ? qds : "1", 1, KVB_MAX_QD, KVB_MAX_QD, &p->qds,
			    err, sizeof(err)))
		return bench_usage("--qd", err);
	if (kvb_expand_io(&p->targets, &p->ntargets, p->ios, &p->qds, p->sqpoll,
			  err, sizeof(err)))
		return bench_usage("--io", err);
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

static int parse_bench(int argc, char **argv, struct kvb_params *p)
{
	static const struct option opts[] = {
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
		{ "device", required_argument, NULL, 'd' },
		{ "sysfs", required_argument, NULL, 'S' },
		{ "budget", required_argument, NULL, 'U' },
		{ "dry-run", no_argument, NULL, 'N' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "seed", required_argument, NULL, 's' },
		{ "noisy", required_argument, NULL, 'y' },
		{ "order", required_argument, NULL, 'R' },
		{ "no-settle", no_argument, NULL, 'T' },
		{ "after", required_argument, NULL, 'A' },
		{ "counters", no_argument, NULL, OPT_COUNTERS },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *targets = "nop,current", *threads = "pow2", *mixes = "get,set";
	const char *batches = NULL, *fdmodes = "per-thread", *multis = NULL;
	const char *qds = NULL, *workloads = NULL;
	int mix_given = 0, dist_given = 0, threads_given = 0;
	int keys_given = 0, ksize_given = 0, vsize_given = 0;
	unsigned long long v;
	char err[512], opt[32];
	int c, idx, i, digits = 1, duration_given = 0;
	unsigned long n, cpus = 0;

	/* getopt's own messages: "option '--keys' requires an argument" */
	argv[0] = "kvbench bench";
	opterr = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "b:t:m:W:k:D:w:n:r:f:o:d:qh", opts, &idx)) != -1) {
		if (c == '?' || c == ':') {
			fprintf(stderr, "Try 'kvbench bench --help' for more information.\n");
			return KVB_EXIT_USAGE;
		}
		for (i = 0; opts[i].name; i++)
			if (opts[i].val == c)
				break;
		snprintf(opt, sizeof(opt), "--%s", opts[i].name ? opts[i].name : "?");
		switch (c) {
		case 'b':
			targets = optarg;
			break;
		case 't':
			threads = optarg;
			threads_given = 1;
			break;
		case 'P':
			p->pin = 0;
			break;
		case 'm':
			mixes = optarg;
			mix_given = 1;
			break;
		case 'W':
			workloads = optarg;
			break;
		case 'k':
			if (kvb_parse_count(optarg, 1, 1UL << 28, &v, err, sizeof(err)))
				return bench_usage(opt, err);
			p->keys = v;
			keys_given = 1;
			break;
		case 'H':
			p->keep_hash_bits = 1;
			break;
		case 'K':
			if (kvb_parse_count(optarg, 1, KVBENCH_KEY_MAX, &v, err, sizeof(err)))
				return bench_usage(opt, err);
			p->key_size = v;
			ksize_given = 1;
			break;
		case 'V':
			if (kvb_parse_count(optarg, 0, KVB_MAX_VALUE, &v, err, sizeof(err)))
				return bench_usage(opt, err);
			p->value_size = v;
			vsize_given = 1;
			break;
		case 'Z':
			if (kvb_parse_dist(optarg, &p->dist, &p->theta, err, sizeof(err)))
				return bench_usage(opt, err);
			dist_given = 1;
			break;
		case 'B':
			batches = optarg;
			break;
		case 'M':
			multis = optarg;
			break;
		case 'F':
			fdmodes = optarg;
			break;
		case 'I':
			if (kvb_parse_io(optarg, &p->ios, err, sizeof(err)))
				return bench_usage(opt, err);
			break;
		case 'Q':
			qds = optarg;
			break;
		case 'G':
			p->sqpoll = 1;
			break;
		case 'D':
			if (kvb_parse_seconds(optarg, &p->duration, err, sizeof(err)))
				return bench_usage(opt, err);
			if (p->duration <= 0)
				return bench_usage(opt, "must be more than 0");
			duration_given = 1;
			break;
		case 'w':
			if (kvb_parse_seconds(optarg, &p->warmup, err, sizeof(err)))
				return bench_usage(opt, err);
			break;
		case 'n':
			if (kvb_parse_count(optarg, 1, 1ULL << 50, &p->ops, err, sizeof(err)))
				return bench_usage(opt, err);
			break;
		case 'r':
			if (kvb_parse_count(optarg, 1, 1000, &v, err, sizeof(err)))
				return bench_usage(opt, err);
			p->repeat = v;
			break;
		case 'f':
			if (!strcmp(optarg, "table"))
				p->format = KVB_TABLE;
			else if (!strcmp(optarg, "json"))
				p->format = KVB_JSON;
			else if (!strcmp(optarg, "csv"))
				p->format = KVB_CSV;
			else
				return bench_usage(opt, "must be table, json or csv");
			break;
		case 'o':
			p->output = optarg;
			break;
		case 'L':
			/* a figure that cannot be drawn is said before the run */
			if (kvb_plot_check(optarg, err, sizeof(err)))
				return bench_usage(opt, err);
			p->plot = optarg;
			break;
		case 'J':
			p->json = optarg;
			break;
		case 'C':
			p->csv = optarg;
			break;
		case 'E':
			if (kvb_parse_count(optarg, 0, 1U << 30, &v, err, sizeof(err)))
				return bench_usage(opt, err);
			p->sample_every = v;
			break;
		case 'O':
			if (kvb_parse_count(optarg, 0, 1000000, &v, err, sizeof(err)))
				return bench_usage(opt, err);
			p->owner_spin = v;
			break;
		case 'd':
			p->device = optarg;
			break;
		case 'S':
			p->sysfs = optarg;
			break;
		case 'U':
			if (kvb_parse_seconds(optarg, &p->budget, err, sizeof(err)))
				return bench_usage(opt, err);
			if (p->budget <= 0)
				return bench_usage(opt, "must be more than 0");
			break;
		case 'N':
			p->dry_run = 1;
			break;
		case 'c':
			if (kvb_parse_count(optarg, 1, KVB_MAX_THREADS, &v, err, sizeof(err)))
				return bench_usage(opt, err);
			cpus = v;
			break;
		case 's':
			if (parse_seed(optarg, &p->seed))
				return bench_usage(opt,
						   "must be a whole number from 0 to 2^53 - 1");
			p->seed_given = 1;
			break;
		case 'y':
			if (parse_pct(optarg, &p->noisy_pct))
				return bench_usage(opt,
						   "must be a percentage, 0 or more (10, 5.5, 10%)");
			break;
		case 'R':
			if (kvb_parse_order(optarg, &p->order, err, sizeof(err)))
				return bench_usage(opt, err);
			break;
		case 'T':
			p->no_settle = 1;
			break;
		case OPT_COUNTERS:
			p->counters = 1;
			break;
		case 'A':
			if (kvb_parse_mix(optarg, &p->after, err, sizeof(err)))
				return bench_usage(opt, err);
			p->after_given = 1;
			break;
		case 'q':
			p->quiet = 1;
			break;
		case 'h':
			fputs(bench_help, stdout);
			return -1;
		}
	}
	if (optind < argc)
		return bench_usage(NULL, "unexpected arguments (bench takes options only)");
	/* Neither silently wins: each says how long a run is. */
	if (p->ops && duration_given)
		return bench_usage("--ops",
				   "a run is either --ops N operations per thread or --duration SEC, not both");
	/* A plan may be for another machine; a run only uses CPUs it has. */
	if (cpus && !p->dry_run && cpus > (unsigned long)p->ncpus) {
		snprintf(err, sizeof(err), "this process may run on %d CPUs, not %lu",
			 p->ncpus, cpus);
		return bench_usage("--cpus", err);
	}
	if (cpus)
		p->ncpus = cpus;

	if (kvb_parse_targets(targets, &p->targets, &p->ntargets, err, sizeof(err)) ||
	    kvb_check_backends(targets, p->sysfs, err, sizeof(err)))
		return bench_usage("--backends", err);
	if (workloads) {
		if (mix_given)
			return bench_usage("--workload",
					   "-m/--mix and --workload exclude each other: a workload is its own mix");
		if (dist_given)
			return bench_usage("--dist",
					   "--workload fixes the key distribution (ycsb-a, b, c, f: YCSB's scrambled zipfian, 0.99; ycsb-d: latest; seed: uniform)");
		if (kvb_parse_workloads(workloads, &p->mixes, &p->nmixes, err, sizeof(err)))
			return bench_usage("--workload", err);
		p->workloads = 1;
		/* YCSB's record: "user" + up to 19 digits, 10 fields of 100 B */
		if (!keys_given)
			p->keys = 1000;
		if (!ksize_given)
			p->key_size = 24;
		if (!vsize_given)
			p->value_size = 1000;
		/* the seed's case alone: as many threads as CPUs, as it ran */
		for (i = 0; i < p->nmixes && p->mixes[i].wl->all_cpus; i++)
			;
		if (!threads_given && i == p->nmixes)
			threads = "max";
	} else if (kvb_parse_mixes(mixes, &p->mixes, &p->nmixes, err, sizeof(err))) {
		return bench_usage("--mix", err);
	}
	if (kvb_parse_ulist(threads, 1, KVB_MAX_THREADS, p->ncpus, &p->threads,
			    err, sizeof(err)))
		return bench_usage("--threads", err);
	p->multi_only = multis && !batches;
	if (kvb_parse_ulist(batches ? batches : "1", 1, KVBENCH_BATCH_MAX,
			    KVBENCH_BATCH_MAX, &p->batches, err, sizeof(err)))
		return bench_usage("--batch", err);
	if (multis && kvb_parse_ulist(multis, 1, KVBENCH_BATCH_MAX, KVBENCH_BATCH_MAX,
				      &p->multis, err, sizeof(err)))
		return bench_usage("--multi", err);
	if (kvb_parse_fdmodes(fdmodes, &p->fdmodes, err, sizeof(err)))
		return bench_usage("--fd", err);
	if (parse_io(p, qds))
		return KVB_EXIT_USAGE;
	if (rmw_refused(p, err, sizeof(err)))
		return bench_usage("--workload", err);
	for (n = p->keys - 1; n >= 10; n /= 10)
		digits++;
	if ((unsigned int)digits > p->key_size) {
		snprintf(err, sizeof(err), "%u bytes cannot hold %lu distinct keys (need %d)",
			 p->key_size, p->keys, digits);
		return bench_usage("--key-size", err);
	}
	return 0;
}

/* What one CLOCK_MONOTONIC read costs: each latency sample holds one. */
static double clock_cost(void)
{
	__u64 t0, sink = 0;
	int i;

	for (i = 0; i < 1000; i++)	/* fault in the vDSO, warm the caches */
		sink += now_ns();
	t0 = now_ns();
	for (i = 0; i < 10000; i++)
		sink += now_ns();
	return sink ? (now_ns() - t0) / 10000.0 : 0;
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

/* One benchmark invocation: the plan, and what has become of it. */
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
};

static void print_report(FILE *f, struct kvb_session *s, enum kvb_format fmt,
			 int complete)
{
	struct kvb_outcome o = {
		.interrupted = atomic_load(&kvb_interrupted),
		.complete = complete,
		.skipped = s->skipped,
		.skips = s->skips,
		.nskips = s->nskips,
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
static int save_reports(struct kvb_session *s, int complete)
{
	const struct kvb_params *p = s->p;
	int ret = 0;

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

static void case_label(const struct kvb_target *t, const struct kvb_case *c,
		       char *buf, size_t len)
{
	char m[32];

	kvb_mix_name(c->mix, m, sizeof(m));
	snprintf(buf, len, "%s %s threads=%u %s=%u%s%s", t->name,
		 t->ops->flags & KVB_T_MIXES ? m : "nop", c->threads,
		 c->multi ? "multi" : "batch", c->batch,
		 c->fdmode == KVB_FD_NONE ? "" : " fd=",
		 c->fdmode == KVB_FD_NONE ? "" : kvb_fd_name(c->fdmode));
}

/* Remember a case that did not run, for the end of the table. */
static void add_skip(struct kvb_session *s, const char *label, const char *why)
{
	struct kvb_skip *k;

	if (!s->skips || s->nskips >= s->total)
		return;
	k = &s->skips[s->nskips++];
	snprintf(k->label, sizeof(k->label), "%s", label);
	snprintf(k->why, sizeof(k->why), "%s", why);
}

/* Every case of a target this machine cannot run: left out, not failed. */
static void list_unavailable(struct kvb_session *s, const struct kvb_target *t,
			     const char *why)
{
	int ncase = cases_of(s->p, t), i;
	struct kvb_case c;
	char label[160];

	for (i = 0; i < ncase; i++) {
		case_at(s->p, t, i, &c);
		case_label(t, &c, label, sizeof(label));
		add_skip(s, label, why);
	}
	s->unavailable += ncase;
}

/* Does a case of this cost still fit the budget? Once not, none does. */
static int within_budget(struct kvb_session *s, double cost)
{
	const struct kvb_params *p = s->p;

	if (p->budget <= 0 || s->skipped)
		return !s->skipped;
	return (now_ns() - s->t0) / 1e9 + cost <= p->budget;
}

/*
 * All cases of one target. skip: count them as failed, run none, and list
 * them as skipped for the reason why.
 */
static void run_target(struct kvb_session *s, const struct kvb_target *t,
		       int skip, const char *why)
{
	const struct kvb_params *p = s->p;
	int ncase = cases_of(p, t), i, rc;

	for (i = 0; i < ncase && !atomic_load(&kvb_interrupted); i++) {
		struct kvb_result *r = &s->res[s->nres];
		int idx = s->nres + s->failed + s->skipped + s->unavailable + 1;
		struct kvb_bstats before;
		unsigned int hash_bits = 0;
		struct kvb_case c;
		char label[160];

		case_at(p, t, i, &c);
		case_label(t, &c, label, sizeof(label));
		if (!within_budget(s, case_seconds(p, t, &c, p->repeat))) {
			char b[64];

			if (!s->skipped++)
				snprintf(s->first_skipped, sizeof(s->first_skipped),
					 "%s", label);
			snprintf(b, sizeof(b), "the --budget of %g s ran out", p->budget);
			add_skip(s, label, b);
			continue;
		}
		if (skip) {
			s->failed++;
			add_skip(s, label, why);
			continue;
		}
		progress(p, idx, s->total, NULL, label);
		if (t->ops->flags & KVB_T_BSTATS)
			kvb_bstats_begin(p->sysfs, &before);
		/* the size its map was built at, for the report */
		if (t->ops->kind == KVB_KERNEL)
			hash_bits = kvb_module_hash_bits(p->sys_module);
		rc = kvb_run_case(s->b, t, c.mix, c.threads, c.batch, c.multi,
				  c.fdmode, r);
		if (!rc && (t->ops->flags & KVB_T_BSTATS))
			kvb_bstats_end(p->sysfs, &before, &r->bstats);
		if (!rc)
			r->hash_bits = hash_bits;
		if (rc) {
			if (!p->quiet && interactive())
				fputc('\n', stderr);
			s->failed++;
			/* The target is unusable: count its other cases as failed. */
			if (rc == -2) {
				skip = 1;
				why = "the target cannot run here (said on stderr)";
			}
			add_skip(s, label, rc == -2 ? why : "the case failed (said on stderr)");
			continue;
		}
		progress(p, idx, s->total, r, label);
		if (r->errors)
			s->failed++;
		s->nres++;
		save_reports(s, 0);
	}
}

/* A case of a shuffled run: its place in the plan, and how it fares. */
struct kvb_slot {
	int target;		/* index in the targets of run_rounds() */
	struct kvb_case c;
	char label[160];
	int dead;		/* failed, skipped or left out: no more runs */
	struct case_acc acc;
};

/*
 * The backend's statistics of a case, over its runs: the counts added up,
 * the high-water mark the highest, the means weighted by the requests.
 */
static void bstats_add(struct kvb_bstats *sum, const struct kvb_bstats *run,
		       int first)
{
	double n0 = sum->requests, n1 = run->requests;

	if (first) {
		*sum = *run;
		return;
	}
	if (!sum->valid || !run->valid) {
		sum->valid = 0;
		return;
	}
	sum->drain_mean = n0 + n1 > 0 ?
			  (sum->drain_mean * n0 + run->drain_mean * n1) / (n0 + n1) : NAN;
	sum->combine_mean = n0 + n1 > 0 ?
			    (sum->combine_mean * n0 + run->combine_mean * n1) / (n0 + n1) : NAN;
	sum->reset &= run->reset;
	if (run->queue_hwm > sum->queue_hwm)
		sum->queue_hwm = run->queue_hwm;
	sum->queue_full += run->queue_full;
	sum->requests += run->requests;
	sum->has_sleeps &= run->has_sleeps;
	sum->sleeps += run->sleeps;
	sum->handoffs += run->handoffs;
	sum->has_poll &= run->has_poll;
	sum->poll_us += run->poll_us;
	sum->owners = run->owners;
	sum->window_s += run->window_s;
}

/* No more runs of target ti's cases: each without a run failed for why. */
static void fail_target(struct kvb_session *s, struct kvb_slot *sl, int ti,
			const char *why)
{
	int i;

	for (i = 0; i < s->total; i++) {
		if (sl[i].target != ti || sl[i].dead)
			continue;
		sl[i].dead = 1;
		s->failed++;
		if (!s->res[i].runs)
			add_skip(s, sl[i].label, why);
	}
}

static void progress_run(const struct kvb_params *p, unsigned int round,
			 int k, int n, const char *label,
			 const struct kvb_result *r)
{
	if (p->quiet)
		return;
	if (!r) {
		if (interactive())
			fprintf(stderr, "kvbench: [round %u/%u, %d/%d] %s ...",
				round + 1, p->repeat, k + 1, n, label);
		return;
	}
	fprintf(stderr, "%skvbench: [round %u/%u, %d/%d] %s %.0f ops/s\n",
		interactive() ? "\r\033[K" : "", round + 1, p->repeat, k + 1, n,
		label, r->run_ops[r->runs - 1]);
}

/*
 * Begin target t for a run: its fd closed, its ->begin again (a kernel
 * backend switched to, the map refilled by the run). Returns 0, or 1 when
 * it cannot run (its cases listed, and failed or left out).
 */
static int begin_run(struct kvb_session *s, struct kvb_slot *sl,
		     struct kvb_target *t, int ti)
{
	int rc;

	close_fd(s->b);
	if (!t->ops->begin)
		return 0;
	snprintf(s->b->why, sizeof(s->b->why), "said on stderr");
	rc = t->ops->begin(s->b, t);
	if (rc > 0) {
		int i;

		/* Not on this machine (said): left out, not failed. */
		list_unavailable(s, t, s->b->why);
		for (i = 0; i < s->total; i++)
			if (sl[i].target == ti)
				sl[i].dead = 1;
		return 1;
	}
	if (rc < 0) {
		fail_target(s, sl, ti, s->b->why);
		return 1;
	}
	return 0;
}

/*
 * --order shuffled: p->repeat rounds, each running every case of the plan
 * once, in kvb_round_order()'s order for (seed, round), so that a case's
 * runs are spread over the whole run and the host's drift over minutes
 * lands in every case's spread alike instead of in one case's figures.
 * Rounds begin only while a whole one fits the budget: a cut leaves every
 * case with the same number of runs. Without a budget for one round, the
 * first skips the cases that do not fit, as its order comes to them.
 */
static void run_rounds(struct kvb_session *s, int nodev, const char *nodev_why)
{
	const struct kvb_params *p = s->p;
	int nt = p->ntargets, n = s->total, i, k, ti, rc;
	struct kvb_target *tg = calloc(nt ? nt : 1, sizeof(*tg));
	struct kvb_slot *sl = calloc(n ? n : 1, sizeof(*sl));
	unsigned int *order = calloc(n ? n : 1, sizeof(*order));
	double round_s = plan_seconds(p, 1);
	unsigned int r;

	if (!tg || !sl || !order) {
		fprintf(stderr, "kvbench: out of memory\n");
		s->failed += n;
		goto out;
	}
	for (ti = 0, i = 0; ti < nt; ti++) {
		tg[ti] = p->targets[ti];
		for (k = 0; k < cases_of(p, &tg[ti]); k++, i++) {
			struct kvb_slot *x = &sl[i];

			x->target = ti;
			case_at(p, &tg[ti], k, &x->c);
			case_label(&tg[ti], &x->c, x->label, sizeof(x->label));
			if (case_init(p, &tg[ti], x->c.mix, x->c.threads, x->c.batch,
				      x->c.multi, x->c.fdmode, &s->res[i], &x->acc)) {
				x->dead = 1;
				s->failed++;
				add_skip(s, x->label, "out of memory");
			}
		}
	}
	for (ti = 0; ti < nt; ti++)
		if (nodev && (tg[ti].ops->flags & KVB_T_DEVICE))
			fail_target(s, sl, ti, nodev_why);

	for (r = 0; r < p->repeat && !atomic_load(&kvb_interrupted); r++) {
		if (r && p->budget > 0 &&
		    (now_ns() - s->t0) / 1e9 + round_s > p->budget) {
			s->rounds_cut = p->repeat - r;
			break;
		}
		kvb_round_order(p->seed, r, order, n);
		for (k = 0; k < n && !atomic_load(&kvb_interrupted); k++) {
			struct kvb_slot *x = &sl[order[k]];
			struct kvb_result *res = &s->res[order[k]];
			struct kvb_target *t = &tg[x->target];
			struct kvb_bstats before, after;
			unsigned int hash_bits = 0;

			if (x->dead)
				continue;
			if (!r && !within_budget(s, case_seconds(p, t, &x->c, 1))) {
				char b[64];

				if (!s->skipped++)
					snprintf(s->first_skipped, sizeof(s->first_skipped),
						 "%s", x->label);
				snprintf(b, sizeof(b), "the --budget of %g s ran out", p->budget);
				add_skip(s, x->label, b);
				x->dead = 1;
				continue;
			}
			if (begin_run(s, sl, t, x->target))
				continue;
			progress_run(p, r, k, n, x->label, NULL);
			if (t->ops->flags & KVB_T_BSTATS)
				kvb_bstats_begin(p->sysfs, &before);
			if (t->ops->kind == KVB_KERNEL)
				hash_bits = kvb_module_hash_bits(p->sys_module);
			rc = case_run(s->b, t, x->c.mix, r, res, &x->acc);
			if (rc == 1)
				continue;
			if (rc) {
				if (!p->quiet && interactive())
					fputc('\n', stderr);
				if (rc == -2) {
					fail_target(s, sl, x->target,
						    "the target cannot run here (said on stderr)");
					continue;
				}
				x->dead = 1;
				s->failed++;
				if (!res->runs)
					add_skip(s, x->label, "the case failed (said on stderr)");
				continue;
			}
			if (t->ops->flags & KVB_T_BSTATS) {
				kvb_bstats_end(p->sysfs, &before, &after);
				bstats_add(&res->bstats, &after, res->runs == 1);
			}
			res->hash_bits = hash_bits;
			case_summarize(p, res, &x->acc);
			progress_run(p, r, k, n, x->label, res);
			s->nres += res->runs == 1;
			save_reports(s, 0);
		}
		if (k == n)
			s->rounds_done = r + 1;
	}
	close_fd(s->b);
	for (i = 0; i < n; i++) {
		if (!s->res[i].runs)
			continue;
		case_errors(&tg[sl[i].target], &s->res[i], &sl[i].acc);
		s->failed += !!s->res[i].errors;
	}
out:
	for (i = 0; sl && i < n; i++)
		case_acc_free(&sl[i].acc);
	free(order);
	free(sl);
	free(tg);
}

int kvb_bench_main(int argc, char **argv, const char *device)
{
	struct kvb_params p;
	struct kvb_session s = { .p = &p };
	struct kvb_prov prov = { 0 };
	struct sigaction sa;
	int ti, nodev = 0;
	char nodev_why[160] = "";
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
	fit_budget(&p, p.dry_run ? stdout : p.quiet ? NULL : stderr);
	s.total = count_cases(&p);
	s.shuffled = p.order == KVB_ORDER_SHUFFLED;
	if (p.dry_run) {
		print_plan(stdout, &p);
		/* "..., about N s" ends the line: tools/vm/bench.sh reads it */
		printf("kvbench: %d cases x %u %s%s, about %.0f s\n", s.total,
		       p.repeat, s.shuffled ? "round" : "run",
		       p.repeat == 1 ? "" : "s", plan_seconds(&p, p.repeat));
		free_params(&p);
		return KVB_EXIT_OK;
	}
	p.clock_ns = clock_cost();
	if (!p.seed_given)
		p.seed = draw_seed();
	kvb_prov_collect(&prov, p.sys_module, argc, argv);
	p.prov = &prov;
	p.settled = !p.no_settle;
	s.res = calloc(s.total ? s.total : 1, sizeof(*s.res));
	s.skips = calloc(s.total ? s.total : 1, sizeof(*s.skips));
	if (s.shuffled)
		s.view = calloc(s.total ? s.total : 1, sizeof(*s.view));
	s.b = kvb_bench_new(&p);
	if (!s.res || !s.skips || !s.b || (s.shuffled && !s.view)) {
		fprintf(stderr, "kvbench: out of memory\n");
		ret = KVB_EXIT_FAIL;
		goto out;
	}
	s.b->settled = &p.settled;
	/* A report that cannot be written fails now, not after the run. */
	if (save_reports(&s, 0)) {
		ret = KVB_EXIT_FAIL;
		goto out;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	/* Say once that the device is missing; the other targets still run. */
	for (ti = 0; ti < p.ntargets; ti++) {
		if (p.targets[ti].ops->flags & KVB_T_DEVICE) {
			int fd = kvb_open_device(p.device);

			nodev = fd < 0;
			if (nodev)
				snprintf(nodev_why, sizeof(nodev_why), "%s: %s%s",
					 p.device, strerror(errno),
					 errno == ENOENT ? " (module not loaded?)" : "");
			if (fd >= 0)
				close(fd);
			break;
		}
	}
	for (ti = 0; ti < p.ntargets && nodev; ti++)
		if (!(p.targets[ti].ops->flags & KVB_T_DEVICE))
			break;
	if (nodev && ti == p.ntargets) {
		ret = KVB_EXIT_FAIL;
		goto out;
	}

	if (prov.host.busy && !p.quiet)
		fprintf(stderr,
			"kvbench: warning: the host is busy: its CPUs were %.0f%% busy in the %d ms before the run (%d%% or more); the figures may be low and noisy (host_busy in the report)\n",
			prov.host.busy_pct, KVB_BUSY_WINDOW_MS, KVB_BUSY_PCT);
	if (kvb_oversubscribed(&p))
		fprintf(stderr,
			"kvbench: warning: up to %d threads on %d CPU%s: threads share CPUs, so their ns/op includes waiting for one\n",
			kvb_oversubscribed(&p), p.ncpus, p.ncpus == 1 ? "" : "s");
	if (!p.quiet)
		fprintf(stderr,
			"kvbench: %d cases x %u %s%s (%s), about %.0f s; %d CPUs, %lu keys, %s; seed %llu\n",
			s.total, p.repeat, s.shuffled ? "round" : "run",
			p.repeat == 1 ? "" : "s",
			s.shuffled ? "each round every case once, shuffled" :
			"each case's runs back to back",
			plan_seconds(&p, p.repeat), p.ncpus, p.keys,
			p.workloads ? "the workloads' distributions" : kvb_dist_name(p.dist),
			(unsigned long long)p.seed);

	s.t0 = now_ns();
	if (s.shuffled)
		run_rounds(&s, nodev, nodev_why);
	for (ti = 0; !s.shuffled && ti < p.ntargets && !atomic_load(&kvb_interrupted); ti++) {
		struct kvb_target t = p.targets[ti];
		int skip = nodev && (t.ops->flags & KVB_T_DEVICE);
		const char *why = nodev_why;

		close_fd(s.b);
		if (t.ops->begin && !skip && within_budget(&s, 0)) {
			int rc;

			snprintf(s.b->why, sizeof(s.b->why), "said on stderr");
			rc = t.ops->begin(s.b, &t);
			/* Not on this machine (said): left out, not failed. */
			if (rc > 0) {
				list_unavailable(&s, &t, s.b->why);
				continue;
			}
			if (rc < 0) {
				skip = 1;
				why = s.b->why;
			}
		}
		run_target(&s, &t, skip, why);
	}
	close_fd(s.b);
	kvb_restore_backend(s.b);

	if (atomic_load(&kvb_interrupted) && !p.quiet)
		fprintf(stderr, "\nkvbench: interrupted; printing the %d cases measured\n",
			s.nres);
	if (s.skipped)
		fprintf(stderr,
			"kvbench: the budget of %g s ran out after %.0f s: %d of %d cases skipped, from '%s' on\n",
			p.budget, (now_ns() - s.t0) / 1e9, s.skipped, s.total,
			s.first_skipped);
	if (s.rounds_cut)
		fprintf(stderr,
			"kvbench: the budget of %g s would run out in the next round, after %.0f s: %u of %u rounds run, every case %u run%s\n",
			p.budget, (now_ns() - s.t0) / 1e9, s.rounds_done, p.repeat,
			s.rounds_done, s.rounds_done == 1 ? "" : "s");
	kvb_prov_after(&prov);
	ret = save_reports(&s, 1);
	if (atomic_load(&kvb_interrupted))
		ret = KVB_EXIT_INTR;
	else if (ret || s.failed || s.write_err)
		ret = KVB_EXIT_FAIL;
	else
		ret = KVB_EXIT_OK;
out:
	/* shuffled, every slot has its arrays; zeroed slots free nothing */
	for (ti = 0; s.res && ti < s.total; ti++)
		kvb_result_free(&s.res[ti]);
	free(s.view == s.res ? NULL : s.view);
	free(s.res);
	free(s.skips);
	kvb_bench_free(s.b);
	kvb_prov_free(&prov);
	free_params(&p);
	return ret;
}
