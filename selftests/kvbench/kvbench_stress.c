// SPDX-License-Identifier: GPL-2.0
/*
 * Stress /dev/kvbench: 2 x online-CPU threads run random GET, SET, DEL,
 * BATCH and the packed MGET, MSET and MDEL on a small hot key set, a
 * large cold one and keys each thread owns, while another thread keeps
 * switching the backend and resetting the statistics.
 *
 * Every value carries its key, its writer, a version and a checksum, so a
 * reader that ever gets a torn value, or another key's value, fails the run.
 * A thread's own keys are written by it alone: it keeps a model of them,
 * checks every answer against it, and at the end the map must hold exactly
 * what the models say. Once every key is deleted, "entries" and "bytes" must
 * be back where they started.
 *
 * Beside them, uring threads send GET, SET, DEL (and now and then NOP) as
 * io_uring commands, each keeping 16..64 in flight: more than an owner's
 * queue holds (queue_len is STRESS_QUEUE_LEN during the run), so the rest
 * wait for room in the module's workers, while the thread refills its
 * ring's SQ slots. One ring is plain, one SQPOLL, one
 * DEFER_TASKRUN (without CQE32), in turn. Every command must get exactly
 * one CQE, with what the ioctl would have said: the same value checks and
 * models (a uring thread has one command at a time on each of its own
 * keys), a GET's value_len and big_cqe[0], and an ERANGE that copied
 * nothing for a short buffer. Without io_uring, or with a module built
 * without its commands, the uring threads are left out with a note.
 *
 * One phase per backend (the backend the phase starts on; the switcher
 * moves the map through all of them). Output is KTAP, one line per phase.
 *
 * Environment:
 *   KVBENCH_STRESS_SECONDS   seconds per phase (default 5)
 *   KVBENCH_STRESS_THREADS   ioctl worker threads (default 2 x online CPUs)
 *   KVBENCH_STRESS_URING     uring threads (default 3; 0: none)
 *   KVBENCH_STRESS_SEED      seed (default: from the clock; printed)
 *   KVBENCH_STRESS_FAULTS    1: the worker and switcher threads set their
 *                            make-it-fail, for fault injection with
 *                            task-filter (kvbench.sh stress-faults sets up
 *                            failslab and fail_usercopy), and take ENOMEM
 *                            and EFAULT, where the ABI documents them, for
 *                            an injected fault: the call changed nothing
 *                            (a packed MSET or MDEL may have run its ops
 *                            first: the thread reads its own keys back);
 *                            the uring threads stay out of it
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/kvbench.h>

#include "kvbench_helpers.h"
#include "kvbench_uring.h"

#define NR_HOT			16
#define NR_COLD			4096
#define NR_OWN			32	/* per thread */
#define MAX_THREADS		64
#define MAX_URING		16
#define MAX_BATCH		16
#define VALUE_MAX		1400	/* crosses the 512-byte inline limit */
#define KEY_BUF			64
/*
 * A uring worker keeps 16..64 commands in flight, more than an owner's
 * queue holds during the run (queue_len STRESS_QUEUE_LEN): the rest wait
 * for room in the module's workers.
 */
#define URING_QD_MIN		16
#define URING_QD_MAX		64
#define STRESS_QUEUE_LEN	8
#define URING_WORKERS		3
/* No CQE for this long, with commands in flight: one was lost. */
#define URING_STALL_MS		60000

/* The module's backends: a phase for each. */
static struct kvb_list backends;

/* ------------------------------------------------------------ helpers */

static __u32 rnd_below(__u64 *state, __u32 n)
{
	return (__u32)(splitmix64(state) % n);
}

/* ------------------------------------------------------------ values */

/*
 * A value: this header, the key, then filler. @csum covers everything
 * with @csum itself zero.
 */
struct stamp {
	__u32 magic;
	__u32 len;		/* of the whole value */
	__u32 key_len;
	__u32 tid;		/* the writer */
	__u64 version;
	__u64 csum;
};

#define STAMP_MAGIC	0x6b767374

static __u64 stamp_csum(const unsigned char *v, size_t len)
{
	return fnv1a_stamped(v, len, sizeof(struct stamp), offsetof(struct stamp, csum));
}

static size_t stamp_make(unsigned char *v, const char *key, size_t klen,
			 __u32 tid, __u64 version, __u64 *rs)
{
	size_t min = sizeof(struct stamp) + klen;
	size_t len = min + rnd_below(rs, VALUE_MAX - min + 1);
	struct stamp st = {
		.magic = STAMP_MAGIC, .len = len, .key_len = klen,
		.tid = tid, .version = version,
	};
	unsigned char fill = (unsigned char)splitmix64(rs);

	memcpy(v + sizeof(st), key, klen);
	memset(v + min, fill, len - min);
	memcpy(v, &st, sizeof(st));
	st.csum = stamp_csum(v, len);
	memcpy(v, &st, sizeof(st));
	return len;
}

/* NULL if @v is a whole value of @key, else what is wrong with it. */
static const char *stamp_check(const unsigned char *v, size_t len,
			       const char *key, size_t klen, struct stamp *st)
{
	if (len < sizeof(*st) + klen)
		return "torn (too short)";
	memcpy(st, v, sizeof(*st));
	if (st->magic != STAMP_MAGIC || st->len != len ||
	    st->csum != stamp_csum(v, len))
		return "torn (bad length or checksum)";
	if (st->key_len != klen || memcmp(v + sizeof(*st), key, klen))
		return "foreign (another key's value)";
	return NULL;
}

/* ------------------------------------------------------------ threads */

struct own {
	__u64 version;	/* of the last SET */
	bool present;
};

struct worker {
	pthread_t thread;
	__u32 tid;
	int fd;
	__u64 rs;
	unsigned long ops;
	struct own own[NR_OWN];
	__u64 next_version;
	/* uring workers: their ring's setup flags, own keys in flight */
	unsigned int ring_flags;
	bool own_busy[NR_OWN];
};

static struct {
	atomic_bool stop;
	atomic_int failed;
	char why[512];
	pthread_mutex_t why_lock;
	unsigned int nthreads;	/* workers: ioctl ones, then uring ones */
	unsigned int nioctl;
	unsigned long switches;
	unsigned long resets;
	unsigned long long seed;
	bool faults;		/* KVBENCH_STRESS_FAULTS */
	atomic_ulong enomem;	/* injected faults answered ENOMEM */
	atomic_ulong efault;	/* and EFAULT */
	const char *no_uring;	/* why there are no uring workers */
} run = { .why_lock = PTHREAD_MUTEX_INITIALIZER };

static __printf(1, 2) void fail(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&run.why_lock);
	if (!atomic_fetch_add(&run.failed, 1)) {
		va_start(ap, fmt);
		vsnprintf(run.why, sizeof(run.why), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&run.why_lock);
	atomic_store(&run.stop, true);
}

/* Has this thread asked fault injection to fail its calls? */
static __thread bool may_fail;

/*
 * With fault injection on, is @res what a fault injected into a call that
 * may fail with ENOMEM (@nomem) and EFAULT answers? Such a call changed
 * nothing: count it.
 */
static bool injected(int res, bool nomem)
{
	if (!may_fail)
		return false;
	if (res == -EFAULT) {
		atomic_fetch_add(&run.efault, 1);
		return true;
	}
	if (res == -ENOMEM && nomem) {
		atomic_fetch_add(&run.enomem, 1);
		return true;
	}
	return false;
}

/* Let fault injection with task-filter fail this thread's calls. */
static void make_it_fail(void)
{
	unsigned char stack[32768];
	int fd;

	if (!run.faults)
		return;
	/* Fault the stack in first: only the calls under test may fail. */
	memset(stack, 0, sizeof(stack));
	__asm__ __volatile__("" : : "r"(stack) : "memory");
	fd = open("/proc/thread-self/make-it-fail", O_WRONLY);
	if (fd < 0 || write(fd, "1", 1) != 1)
		fail("make-it-fail: %s", strerror(errno));
	else
		may_fail = true;
	if (fd >= 0)
		close(fd);
}

enum { K_HOT, K_COLD, K_OWN };

/* A key to work on: which set, which index, its name. */
struct keyref {
	int set;
	__u32 owner;
	__u32 idx;
	char name[KEY_BUF];
	size_t len;
};

static void key_name(struct keyref *k)
{
	int n;

	switch (k->set) {
	case K_HOT:
		n = snprintf(k->name, sizeof(k->name), "kvbench_stress/h/%u", k->idx);
		break;
	case K_COLD:
		n = snprintf(k->name, sizeof(k->name), "kvbench_stress/c/%u", k->idx);
		break;
	default:
		n = snprintf(k->name, sizeof(k->name), "kvbench_stress/o/%u/%u",
			     k->owner, k->idx);
		break;
	}
	k->len = n;
}

static void pick_key(struct worker *w, struct keyref *k)
{
	__u32 x = rnd_below(&w->rs, 10);

	k->owner = w->tid;
	if (x < 4) {
		k->set = K_HOT;
		k->idx = rnd_below(&w->rs, NR_HOT);
	} else if (x < 7) {
		k->set = K_COLD;
		k->idx = rnd_below(&w->rs, NR_COLD);
	} else {
		k->set = K_OWN;
		k->idx = rnd_below(&w->rs, NR_OWN);
		/* Now and then read another thread's key. */
		if (rnd_below(&w->rs, 8) == 0)
			k->owner = rnd_below(&w->rs, run.nthreads);
	}
	key_name(k);
}

static bool mine(const struct worker *w, const struct keyref *k)
{
	return k->set == K_OWN && k->owner == w->tid;
}

/* Check one GET's outcome; @v holds @len bytes when @res is 0. */
static void check_get(struct worker *w, const struct keyref *k, int res,
		      const unsigned char *v, size_t len)
{
	struct own *o = &w->own[k->idx];
	const char *bad;
	struct stamp st;

	if (injected(res, false))
		return;
	if (res && res != -ENOENT) {
		fail("GET %s: %s", k->name, strerror(-res));
		return;
	}
	if (!res) {
		bad = stamp_check(v, len, k->name, k->len, &st);
		if (bad) {
			fail("GET %s: %s value, %zu bytes", k->name, bad, len);
			return;
		}
		if (k->set == K_OWN && st.tid != k->owner) {
			fail("GET %s: written by thread %u", k->name, st.tid);
			return;
		}
	}
	if (!mine(w, k))
		return;
	if (!res != o->present)
		fail("GET %s: %s, the model says %s", k->name,
		     res ? "missing" : "present", o->present ? "present" : "absent");
	else if (!res && st.version != o->version)
		fail("GET %s: version %llu, the model says %llu", k->name,
		     (unsigned long long)st.version,
		     (unsigned long long)o->version);
}

static void check_set(struct worker *w, const struct keyref *k, int res,
		      __u64 version)
{
	if (injected(res, true))
		return;
	if (res) {
		fail("SET %s: %s", k->name, strerror(-res));
		return;
	}
	if (mine(w, k)) {
		w->own[k->idx].present = true;
		w->own[k->idx].version = version;
	}
}

static void check_del(struct worker *w, const struct keyref *k, int res)
{
	struct own *o = &w->own[k->idx];

	if (injected(res, false))
		return;
	if (res && res != -ENOENT) {
		fail("DEL %s: %s", k->name, strerror(-res));
		return;
	}
	if (!mine(w, k))
		return;
	if (!res != o->present)
		fail("DEL %s: %s, the model says %s", k->name,
		     res ? "missing" : "deleted",
		     o->present ? "present" : "absent");
	o->present = false;
}

static int kv_ioctl(int fd, unsigned long cmd, const void *key, size_t klen,
		    void *val, __u32 *vlen)
{
	struct kvbench_kv kv = {
		.key = (uintptr_t)key, .value = (uintptr_t)val,
		.key_len = klen, .value_len = vlen ? *vlen : 0,
	};
	int ret = ioctl(fd, cmd, &kv) ? -errno : 0;

	if (vlen)
		*vlen = kv.value_len;
	return ret;
}

/* What a writer may set: other threads' own keys are read-only to it. */
static __u32 pick_op(struct worker *w, const struct keyref *k)
{
	__u32 x = rnd_below(&w->rs, 100);

	if (k->set == K_OWN && !mine(w, k))
		return KVBENCH_OP_GET;
	if (x < 55)
		return KVBENCH_OP_GET;
	if (x < 85)
		return KVBENCH_OP_SET;
	return KVBENCH_OP_DEL;
}

static void one_op(struct worker *w, unsigned char *val)
{
	struct keyref k;
	__u32 op, len;
	__u64 ver;
	int res;

	pick_key(w, &k);
	op = pick_op(w, &k);
	switch (op) {
	case KVBENCH_OP_GET:
		len = VALUE_MAX;
		res = kv_ioctl(w->fd, KVBENCH_IOC_GET, k.name, k.len, val, &len);
		check_get(w, &k, res, val, len);
		break;
	case KVBENCH_OP_SET:
		ver = ++w->next_version;
		len = stamp_make(val, k.name, k.len, w->tid, ver, &w->rs);
		res = kv_ioctl(w->fd, KVBENCH_IOC_SET, k.name, k.len, val, &len);
		check_set(w, &k, res, ver);
		break;
	default:
		res = kv_ioctl(w->fd, KVBENCH_IOC_DEL, k.name, k.len, NULL, NULL);
		check_del(w, &k, res);
		break;
	}
}

static void one_batch(struct worker *w, unsigned char (*vals)[VALUE_MAX])
{
	struct kvbench_op ops[MAX_BATCH];
	struct keyref keys[MAX_BATCH];
	__u64 vers[MAX_BATCH];
	struct kvbench_batch b;
	__u32 n, i, len;
	int res;

	n = 1 + rnd_below(&w->rs, MAX_BATCH);
	memset(ops, 0, sizeof(ops));
	for (i = 0; i < n; i++) {
		pick_key(w, &keys[i]);
		ops[i].op = pick_op(w, &keys[i]);
		ops[i].result = 1;
		ops[i].kv.key = (uintptr_t)keys[i].name;
		ops[i].kv.key_len = keys[i].len;
		ops[i].kv.value = (uintptr_t)vals[i];
		len = VALUE_MAX;
		if (ops[i].op == KVBENCH_OP_SET) {
			vers[i] = ++w->next_version;
			len = stamp_make(vals[i], keys[i].name, keys[i].len,
					 w->tid, vers[i], &w->rs);
		}
		ops[i].kv.value_len = ops[i].op == KVBENCH_OP_DEL ? 0 : len;
	}
	b = (struct kvbench_batch){ .ops = (uintptr_t)ops, .count = n };
	res = ioctl(w->fd, KVBENCH_IOC_BATCH, &b) ? -errno : 0;
	/* Failed as a whole: no op ran. */
	if (injected(res, true))
		return;
	if (res) {
		fail("BATCH of %u: %s", n, strerror(-res));
		return;
	}
	/* The ops ran in order: check them, and follow them, in order. */
	for (i = 0; i < n; i++) {
		switch (ops[i].op) {
		case KVBENCH_OP_GET:
			check_get(w, &keys[i], ops[i].result, vals[i],
				  ops[i].kv.value_len);
			break;
		case KVBENCH_OP_SET:
			check_set(w, &keys[i], ops[i].result, vers[i]);
			break;
		default:
			check_del(w, &keys[i], ops[i].result);
			break;
		}
	}
}

/*
 * After a packed MSET or MDEL failed as a whole (an injected fault, which
 * may come after the ops ran), learn the thread's own keys it touched
 * back from the map: this thread is their only writer.
 */
static void resync_own(struct worker *w, const struct keyref *keys,
		       unsigned int n, unsigned char *val)
{
	unsigned int i, tries;
	struct stamp st;
	__u32 len;
	int res;

	for (i = 0; i < n; i++) {
		const struct keyref *k = &keys[i];

		if (!mine(w, k))
			continue;
		for (tries = 0; tries < 1000; tries++) {
			len = VALUE_MAX;
			res = kv_ioctl(w->fd, KVBENCH_IOC_GET, k->name, k->len,
				       val, &len);
			if (res != -EFAULT && res != -ENOMEM)
				break;
		}
		if (res == -ENOENT) {
			w->own[k->idx].present = false;
		} else if (res) {
			fail("GET %s after a failed packed call: %s", k->name,
			     strerror(-res));
		} else if (stamp_check(val, len, k->name, k->len, &st)) {
			fail("GET %s after a failed packed call: bad value", k->name);
		} else {
			w->own[k->idx].present = true;
			w->own[k->idx].version = st.version;
		}
	}
}

/*
 * One MGET, MSET or MDEL of up to MAX_BATCH keys: the keys back to back,
 * the MSET values back to back, the MGET values where the packing rule
 * puts them (the buffer has room for all).
 */
static void one_multi(struct worker *w, unsigned char (*vals)[VALUE_MAX])
{
	static const unsigned long cmds[] = {
		[KVBENCH_OP_GET] = KVBENCH_IOC_MGET,
		[KVBENCH_OP_SET] = KVBENCH_IOC_MSET,
		[KVBENCH_OP_DEL] = KVBENCH_IOC_MDEL,
	};
	unsigned char *flat = vals[0];
	char kbuf[MAX_BATCH * KEY_BUF];
	__u32 klens[MAX_BATCH], vlens[MAX_BATCH];
	__s32 results[MAX_BATCH];
	struct keyref keys[MAX_BATCH];
	__u64 vers[MAX_BATCH];
	struct kvbench_multi m;
	size_t koff = 0, voff = 0;
	__u32 n, i, op;
	int res;

	n = 1 + rnd_below(&w->rs, MAX_BATCH);
	pick_key(w, &keys[0]);
	op = pick_op(w, &keys[0]);
	for (i = 0; i < n; i++) {
		if (i)
			pick_key(w, &keys[i]);
		/* Other threads' own keys are read-only to this one. */
		if (op != KVBENCH_OP_GET && keys[i].set == K_OWN &&
		    !mine(w, &keys[i])) {
			keys[i].owner = w->tid;
			key_name(&keys[i]);
		}
		memcpy(kbuf + koff, keys[i].name, keys[i].len);
		koff += keys[i].len;
		klens[i] = keys[i].len;
		results[i] = 1;
		vlens[i] = 0;
		if (op == KVBENCH_OP_SET) {
			vers[i] = ++w->next_version;
			vlens[i] = stamp_make(flat + voff, keys[i].name,
					      keys[i].len, w->tid, vers[i], &w->rs);
			voff += vlens[i];
		}
	}
	m = (struct kvbench_multi){
		.keys = (uintptr_t)kbuf, .key_lens = (uintptr_t)klens,
		.results = (uintptr_t)results, .count = n,
	};
	if (op != KVBENCH_OP_DEL) {
		m.values = (uintptr_t)flat;
		m.value_lens = (uintptr_t)vlens;
		m.values_size = op == KVBENCH_OP_SET ? voff : MAX_BATCH * VALUE_MAX;
	}
	res = ioctl(w->fd, cmds[op], &m) ? -errno : 0;
	if (injected(res, true)) {
		if (op != KVBENCH_OP_GET)
			resync_own(w, keys, n, vals[MAX_BATCH - 1]);
		return;
	}
	if (res) {
		fail("%s of %u: %s", op == KVBENCH_OP_GET ? "MGET" :
		     op == KVBENCH_OP_SET ? "MSET" : "MDEL", n, strerror(-res));
		return;
	}
	/* The ops ran in order: check them, and follow them, in order. */
	for (i = 0, voff = 0; i < n; i++) {
		switch (op) {
		case KVBENCH_OP_GET:
			if (!results[i] && voff + vlens[i] > MAX_BATCH * VALUE_MAX) {
				fail("MGET of %u: value %u ends past values_size", n, i);
				return;
			}
			check_get(w, &keys[i], results[i], flat + voff, vlens[i]);
			if (!results[i])
				voff += vlens[i];
			break;
		case KVBENCH_OP_SET:
			check_set(w, &keys[i], results[i], vers[i]);
			break;
		default:
			check_del(w, &keys[i], results[i]);
			break;
		}
	}
}

static void *worker_fn(void *arg)
{
	static __thread unsigned char vals[MAX_BATCH][VALUE_MAX];
	struct worker *w = arg;

	memset(vals, 0, sizeof(vals));
	make_it_fail();
	while (!atomic_load_explicit(&run.stop, memory_order_relaxed)) {
		__u32 x = rnd_below(&w->rs, 16);

		if (x < 2)
			one_batch(w, vals);
		else if (x < 3)
			one_multi(w, vals);
		else
			one_op(w, vals[0]);
		w->ops++;
	}
	return NULL;
}

/* ------------------------------------------------------------ uring */

/* The uring workers' rings, in turn: a plain one, SQPOLL, DEFER_TASKRUN. */
static const unsigned int uring_kinds[] = {
	IORING_SETUP_CQE32,
	IORING_SETUP_SQPOLL | IORING_SETUP_CQE32,
	IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
};

static const char *ring_kind(unsigned int flags)
{
	if (flags & IORING_SETUP_SQPOLL)
		return "SQPOLL";
	if (flags & IORING_SETUP_DEFER_TASKRUN)
		return "DEFER_TASKRUN";
	return "plain";
}

/* One command in flight: its argument, key and value stay here until its CQE. */
struct uslot {
	struct kvbench_kv kv;
	struct keyref k;
	__u32 op;		/* KVBENCH_URING_* */
	__u32 buf_len;		/* GET: the buffer's size */
	__u64 version;		/* SET */
	__u32 gen;		/* bumped per command: user_data says which */
	bool busy;
	unsigned char val[VALUE_MAX];
};

struct uring_worker {
	struct worker *w;
	struct ring ring;
	struct uslot *slots;
	unsigned int qd, in_flight;
	unsigned int free[URING_QD_MAX], nfree;
};

#define UD_SLOT_BITS	16

static __u64 slot_ud(const struct uring_worker *u, const struct uslot *s)
{
	return (__u64)s->gen << UD_SLOT_BITS | (__u64)(s - u->slots);
}

/* Fill a free slot with a random command on a key of the mix; queue it. */
static void uring_queue(struct uring_worker *u)
{
	struct worker *w = u->w;
	struct uslot *s = &u->slots[u->free[--u->nfree]];
	struct keyref *k = &s->k;

	pick_key(w, k);
	/* One command at a time on an own key: their order is not defined. */
	if (mine(w, k) && w->own_busy[k->idx]) {
		k->set = K_COLD;
		k->idx = rnd_below(&w->rs, NR_COLD);
		key_name(k);
	}
	s->op = rnd_below(&w->rs, 32) ? pick_op(w, k) : KVBENCH_URING_NOP;
	memset(&s->kv, 0, sizeof(s->kv));
	s->kv.key = ptr(k->name);
	s->kv.key_len = k->len;
	switch (s->op) {
	case KVBENCH_URING_GET:
		/* Now and then a buffer that may be too short: ERANGE. */
		s->buf_len = rnd_below(&w->rs, 16) ? VALUE_MAX :
			     rnd_below(&w->rs, VALUE_MAX);
		memset(s->val, 0xa5, s->buf_len);
		s->kv.value = ptr(s->val);
		s->kv.value_len = s->buf_len;
		break;
	case KVBENCH_URING_SET:
		s->version = ++w->next_version;
		s->kv.value = ptr(s->val);
		s->kv.value_len = stamp_make(s->val, k->name, k->len, w->tid,
					     s->version, &w->rs);
		break;
	}
	if (s->op != KVBENCH_URING_NOP && mine(w, k))
		w->own_busy[k->idx] = true;
	s->gen++;
	s->busy = true;
	ring_cmd(&u->ring, w->fd, s->op,
		 s->op == KVBENCH_URING_NOP ? 0 : ptr(&s->kv), 0, 0,
		 slot_ud(u, s), 0, 0);
	u->in_flight++;
}

/* A GET whose buffer was too short: the length needed, nothing copied. */
static void check_erange(struct worker *w, const struct uslot *s)
{
	__u32 i;

	if (s->buf_len == VALUE_MAX || s->kv.value_len <= s->buf_len ||
	    s->kv.value_len > VALUE_MAX) {
		fail("uring GET %s: ERANGE with a %u-byte buffer, value_len %u",
		     s->k.name, s->buf_len, s->kv.value_len);
		return;
	}
	for (i = 0; i < s->buf_len; i++)
		if (s->val[i] != 0xa5) {
			fail("uring GET %s: ERANGE, yet byte %u of the buffer was written",
			     s->k.name, i);
			return;
		}
	if (mine(w, &s->k) && !w->own[s->k.idx].present)
		fail("uring GET %s: ERANGE, the model says absent", s->k.name);
}

/* Check one CQE: exactly one per command, and what the ioctl would say. */
static void uring_check(struct uring_worker *u, const struct cqe *c)
{
	unsigned int i = c->user_data & ((1U << UD_SLOT_BITS) - 1);
	bool cqe32 = u->ring.flags & IORING_SETUP_CQE32;
	struct worker *w = u->w;
	struct uslot *s = &u->slots[i];
	__u64 extra = 0;

	if (i >= u->qd || !s->busy || c->user_data != slot_ud(u, s)) {
		fail("uring: CQE %#llx (res %d) of no command in flight: doubled or foreign",
		     (unsigned long long)c->user_data, c->res);
		return;
	}
	s->busy = false;
	u->free[u->nfree++] = i;
	u->in_flight--;
	w->ops++;
	if (s->op != KVBENCH_URING_NOP && mine(w, &s->k))
		w->own_busy[s->k.idx] = false;

	switch (s->op) {
	case KVBENCH_URING_NOP:
		if (c->res)
			fail("uring NOP: %s", strerror(-c->res));
		break;
	case KVBENCH_URING_GET:
		if (c->res == -ERANGE)
			check_erange(w, s);
		else
			check_get(w, &s->k, c->res, s->val, s->kv.value_len);
		if (!c->res || c->res == -ERANGE)
			extra = s->kv.value_len;
		break;
	case KVBENCH_URING_SET:
		check_set(w, &s->k, c->res, s->version);
		break;
	default:
		check_del(w, &s->k, c->res);
		break;
	}
	if (cqe32 && c->extra != extra)
		fail("uring %s %s: res %d, big_cqe[0] %llu, expected %llu",
		     s->op == KVBENCH_URING_GET ? "GET" : "command", s->k.name,
		     c->res, (unsigned long long)c->extra,
		     (unsigned long long)extra);
}

/* Take every CQE there is; wait for one, up to URING_STALL_MS, if none. */
static int uring_reap(struct uring_worker *u, bool wait)
{
	unsigned int n = 0;
	struct cqe c;
	int ret;

	ret = ring_enter(&u->ring, wait, wait ? URING_STALL_MS : 0);
	if (ret && ret != -ETIME)
		return ret;
	while (!ring_peek(&u->ring, &c)) {
		uring_check(u, &c);
		n++;
	}
	return wait && !n ? -ETIME : 0;
}

/*
 * Keep qd commands in flight until told to stop, then wait for each one's
 * CQE. Not in the fault injection: a command that fails in io_uring itself
 * (a worker it could not create) would look like a lost one.
 */
static void *uring_worker_fn(void *arg)
{
	struct uring_worker u = { .w = arg };
	struct worker *w = u.w;
	unsigned int i;
	int ret;

	u.qd = URING_QD_MIN + rnd_below(&w->rs, URING_QD_MAX - URING_QD_MIN + 1);
	u.slots = calloc(u.qd, sizeof(*u.slots));
	if (!u.slots) {
		fail("uring: out of memory");
		return NULL;
	}
	ret = ring_init(&u.ring, u.qd, w->ring_flags);
	if (ret) {
		fail("uring: %s ring of %u: %s", ring_kind(w->ring_flags), u.qd,
		     strerror(-ret));
		free(u.slots);
		return NULL;
	}
	for (i = 0; i < u.qd; i++)
		u.free[u.nfree++] = u.qd - 1 - i;

	while (!atomic_load_explicit(&run.stop, memory_order_relaxed)) {
		while (u.in_flight < u.qd)
			uring_queue(&u);
		ret = uring_reap(&u, true);
		if (ret) {
			fail("uring %s: %s with %u commands in flight", ring_kind(u.ring.flags),
			     ret == -ETIME ? "no CQE for 60 s" : strerror(-ret),
			     u.in_flight);
			break;
		}
	}
	/* Every command gets its CQE, whatever stopped the run. */
	while (u.in_flight) {
		ret = uring_reap(&u, true);
		if (ret) {
			fail("uring %s: %u commands never completed (%s)",
			     ring_kind(u.ring.flags), u.in_flight,
			     ret == -ETIME ? "no CQE for 60 s" : strerror(-ret));
			break;
		}
	}
	ring_exit(&u.ring);
	free(u.slots);
	return NULL;
}

/* The ring of each uring worker's kind that this kernel has. */
static unsigned int uring_have[ARRAY_SIZE(uring_kinds)];

/*
 * Can uring workers run, and on which rings? A ring kind the kernel does
 * not have falls back to the plain one.
 */
static void uring_probe(void)
{
	unsigned int i;
	struct ring r;

	run.no_uring = uring_unavailable();
	if (run.no_uring) {
		ksft_print_msg("uring workers skipped: %s\n", run.no_uring);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(uring_kinds); i++) {
		uring_have[i] = uring_kinds[0];
		if (ring_init(&r, 4, uring_kinds[i])) {
			ksft_print_msg("uring: no %s ring here: a plain one instead\n",
				       ring_kind(uring_kinds[i]));
			continue;
		}
		ring_exit(&r);
		uring_have[i] = uring_kinds[i];
	}
}

static void *switcher_fn(void *arg)
{
	unsigned int i = *(unsigned int *)arg;
	int ret;

	make_it_fail();
	while (!atomic_load(&run.stop)) {
		i = (i + 1) % backends.n;
		ret = sysfs_write(KVB_ATTR("backend"), backends.name[i]);
		if (injected(ret, true))
			continue;
		if (ret && ret != -EINVAL) {
			fail("switch to %s: %s", backends.name[i], strerror(-ret));
			break;
		}
		run.switches += !ret;
		ret = sysfs_write(KVB_ATTR("reset"), "1");
		if (injected(ret, true))
			continue;
		if (ret) {
			fail("reset: %s", strerror(-ret));
			break;
		}
		run.resets++;
		usleep(1000);
	}
	return NULL;
}

/* Delete every key of the run; returns -errno of the first failure. */
static int delete_all(int fd)
{
	struct keyref k;
	unsigned int t;
	int ret;

	for (k.set = K_HOT; k.set <= K_OWN; k.set++) {
		unsigned int n = k.set == K_HOT ? NR_HOT :
				 k.set == K_COLD ? NR_COLD : NR_OWN;

		for (t = 0; t < (k.set == K_OWN ? run.nthreads : 1); t++) {
			k.owner = t;
			for (k.idx = 0; k.idx < n; k.idx++) {
				key_name(&k);
				ret = kv_ioctl(fd, KVBENCH_IOC_DEL, k.name,
					       k.len, NULL, NULL);
				if (ret && ret != -ENOENT)
					return ret;
			}
		}
	}
	return 0;
}

/* The map must hold exactly what the owners' models say. */
static void check_models(int fd, struct worker *ws)
{
	static unsigned char val[VALUE_MAX];
	struct keyref k = { .set = K_OWN };
	unsigned int t;
	__u32 len;
	int res;

	for (t = 0; t < run.nthreads; t++) {
		k.owner = t;
		for (k.idx = 0; k.idx < NR_OWN; k.idx++) {
			key_name(&k);
			len = VALUE_MAX;
			res = kv_ioctl(fd, KVBENCH_IOC_GET, k.name, k.len, val,
				       &len);
			check_get(&ws[t], &k, res, val, len);
		}
	}
}

static void run_phase(int fd, unsigned int bi, double seconds)
{
	static struct worker ws[MAX_THREADS + MAX_URING];
	const char *backend = backends.name[bi];
	long long entries0, bytes0, entries, bytes;
	unsigned long total = 0, cmds = 0;
	pthread_t switcher;
	unsigned int t, sw = bi;
	char cur[64];
	double t0;
	int ret;

	atomic_store(&run.stop, false);
	atomic_store(&run.failed, 0);
	run.switches = 0;
	run.resets = 0;
	atomic_store(&run.enomem, 0);
	atomic_store(&run.efault, 0);

	ret = sysfs_write(KVB_ATTR("backend"), backend);
	if (ret == -EINVAL) {
		ksft_test_result_skip("stress %s: backend not built\n", backend);
		return;
	}
	if (ret || delete_all(fd)) {
		ksft_test_result_fail("stress %s: cannot switch to it or clear keys\n",
				      backend);
		return;
	}
	entries0 = sysfs_read_ll(KVB_ATTR("entries"));
	bytes0 = sysfs_read_ll(KVB_ATTR("bytes"));

	memset(ws, 0, sizeof(ws));
	for (t = 0; t < run.nthreads; t++) {
		ws[t].tid = t;
		if (t >= run.nioctl)
			ws[t].ring_flags = uring_have[(t - run.nioctl) %
						      ARRAY_SIZE(uring_have)];
		ws[t].rs = run.seed ^ (0x9e3779b97f4a7c15ULL * (t + 1)) ^
			   ((__u64)bi << 56);
		ws[t].fd = open(KVB_DEV, O_RDWR);
		if (ws[t].fd < 0)
			ksft_exit_fail_msg("open %s: %s\n", KVB_DEV, strerror(errno));
	}

	t0 = mono_s();
	for (t = 0; t < run.nthreads; t++)
		if (pthread_create(&ws[t].thread, NULL, t < run.nioctl ?
				   worker_fn : uring_worker_fn, &ws[t]))
			ksft_exit_fail_msg("pthread_create failed\n");
	if (pthread_create(&switcher, NULL, switcher_fn, &sw))
		ksft_exit_fail_msg("pthread_create failed\n");

	while (!atomic_load(&run.stop) && mono_s() - t0 < seconds)
		usleep(10000);
	atomic_store(&run.stop, true);
	pthread_join(switcher, NULL);
	for (t = 0; t < run.nthreads; t++) {
		pthread_join(ws[t].thread, NULL);
		close(ws[t].fd);
		if (t < run.nioctl)
			total += ws[t].ops;
		else
			cmds += ws[t].ops;
	}

	/* Back on the phase's backend, the models must hold. */
	atomic_store(&run.stop, false);
	ret = sysfs_write(KVB_ATTR("backend"), backend);
	if (ret)
		fail("switch back to %s: %s", backend, strerror(-ret));
	if (sysfs_read(KVB_ATTR("backend"), cur, sizeof(cur)) ||
	    strcmp(cur, backend))
		fail("backend is '%s', expected %s", cur, backend);
	if (!atomic_load(&run.failed))
		check_models(fd, ws);
	ret = delete_all(fd);
	if (ret)
		fail("deleting the keys: %s", strerror(-ret));
	entries = sysfs_read_ll(KVB_ATTR("entries"));
	bytes = sysfs_read_ll(KVB_ATTR("bytes"));
	if (entries != entries0 || bytes != bytes0)
		fail("after deleting every key: entries %lld bytes %lld, expected %lld and %lld",
		     entries, bytes, entries0, bytes0);

	if (atomic_load(&run.failed))
		ksft_print_msg("stress %s: %s (seed %#llx, KVBENCH_STRESS_SEED)\n",
			       backend, run.why, run.seed);
	if (run.faults)
		ksft_print_msg("stress %s: injected faults: %lu ENOMEM, %lu EFAULT\n",
			       backend, atomic_load(&run.enomem),
			       atomic_load(&run.efault));
	ksft_test_result(!atomic_load(&run.failed),
			 "stress %s: %u threads, %lu ops, %u uring threads, %lu commands, %lu switches, %lu resets in %.1f s\n",
			 backend, run.nioctl, total, run.nthreads - run.nioctl,
			 cmds, run.switches, run.resets, mono_s() - t0);
}

int main(void)
{
	unsigned long long queue_len = 0;
	unsigned int i, nuring = URING_WORKERS;
	double seconds = 5;
	char orig[64], *env;
	long cpus;
	int fd;

	env = getenv("KVBENCH_STRESS_SECONDS");
	if (env)
		seconds = strtod(env, NULL);
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	run.nthreads = 2 * (cpus > 0 ? cpus : 1);
	env = getenv("KVBENCH_STRESS_THREADS");
	if (env)
		run.nthreads = strtoul(env, NULL, 0);
	if (run.nthreads < 1)
		run.nthreads = 1;
	if (run.nthreads > MAX_THREADS)
		run.nthreads = MAX_THREADS;
	env = getenv("KVBENCH_STRESS_URING");
	if (env)
		nuring = strtoul(env, NULL, 0);
	if (nuring > MAX_URING)
		nuring = MAX_URING;
	env = getenv("KVBENCH_STRESS_FAULTS");
	run.faults = env && !strcmp(env, "1");
	env = getenv("KVBENCH_STRESS_SEED");
	run.seed = env ? strtoull(env, NULL, 0) :
			 (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 32);

	ksft_print_header();
	ksft_print_msg("%u threads, %u uring threads, %.1f s per backend, seed %#llx\n",
		       run.nthreads, nuring, seconds, run.seed);
	fd = kvb_suite_start(orig, sizeof(orig), &backends);
	if (sysfs_read_ll(KVB_PARAM("max_value_len")) < VALUE_MAX ||
	    !kvb_unlimited())
		ksft_exit_skip("needs max_value_len >= %d and no entry or byte limit\n",
			       VALUE_MAX);

	run.nioctl = run.nthreads;
	if (nuring)
		uring_probe();
	if (nuring && !run.no_uring) {
		run.nthreads += nuring;
		/* Owners' queues shorter than a uring worker keeps in flight. */
		if (sysfs_read_u64(KVB_PARAM("queue_len"), &queue_len) ||
		    sysfs_write_u64(KVB_PARAM("queue_len"), STRESS_QUEUE_LEN))
			ksft_exit_fail_msg("cannot set queue_len\n");
	}

	ksft_set_plan(backends.n);
	for (i = 0; i < backends.n; i++)
		run_phase(fd, i, seconds);
	if (queue_len)
		sysfs_write_u64(KVB_PARAM("queue_len"), queue_len);
	sysfs_write(KVB_ATTR("backend"), orig);
	close(fd);
	ksft_finished();
}
