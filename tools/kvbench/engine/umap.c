// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench: the userspace baselines. Both serve the same in-process hash map
 * with the module's semantics (GET copies the value out, -ERANGE when the
 * buffer is too small, -ENOENT for a missing key):
 *
 *  user-rwlock - every caller takes one pthread_rwlock_t (shared for GET,
 *                exclusive for SET and DEL);
 *  user-owner  - one owner thread owns the map; a caller queues a request
 *                and waits until the owner has answered it, which is the
 *                Go "channel server" rebuilt with a mutex, a ring and
 *                condition variables. Like Go's runtime, both sides poll
 *                a while (--owner-spin) before they go to sleep.
 *
 * Both are rows of the benchmark's target table (kvb_urw_ops, kvb_owner_ops).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/kvbench.h>

#include "kvbench.h"

struct kvb_uentry {
	struct kvb_uentry *next;
	unsigned int klen;
	unsigned int vlen;
	char *val;
	char key[];
};

struct kvb_umap {
	struct kvb_uentry **bucket;
	unsigned long mask;
};

struct kvb_umap *kvb_umap_new(unsigned long nkeys)
{
	struct kvb_umap *m = calloc(1, sizeof(*m));
	unsigned long n = 16;

	if (!m)
		return NULL;
	while (n < nkeys && n < (1UL << 30))
		n <<= 1;
	m->bucket = calloc(n, sizeof(*m->bucket));
	if (!m->bucket) {
		free(m);
		return NULL;
	}
	m->mask = n - 1;
	return m;
}

void kvb_umap_free(struct kvb_umap *m)
{
	unsigned long i;

	if (!m)
		return;
	for (i = 0; i <= m->mask; i++) {
		struct kvb_uentry *e = m->bucket[i], *next;

		for (; e; e = next) {
			next = e->next;
			free(e->val);
			free(e);
		}
	}
	free(m->bucket);
	free(m);
}

/* FNV-1a over the whole key. */
static unsigned long hash(const void *key, unsigned int klen)
{
	const unsigned char *p = key;
	__u64 h = 0xcbf29ce484222325ULL;
	unsigned int i;

	for (i = 0; i < klen; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return (unsigned long)(h ^ (h >> 32));
}

static struct kvb_uentry **lookup(struct kvb_umap *m, const void *key,
				  unsigned int klen)
{
	struct kvb_uentry **pp = &m->bucket[hash(key, klen) & m->mask];

	for (; *pp; pp = &(*pp)->next)
		if ((*pp)->klen == klen && !memcmp((*pp)->key, key, klen))
			break;
	return pp;
}

int kvb_umap_get(struct kvb_umap *m, const void *key, unsigned int klen,
		 void *buf, unsigned int *vlen)
{
	struct kvb_uentry *e = *lookup(m, key, klen);

	if (!e)
		return -ENOENT;
	if (e->vlen > *vlen) {
		*vlen = e->vlen;
		return -ERANGE;
	}
	memcpy(buf, e->val, e->vlen);
	*vlen = e->vlen;
	return 0;
}

/* Allocation happens here; callers that lock wrap the whole call. */
int kvb_umap_set(struct kvb_umap *m, const void *key, unsigned int klen,
		 const void *val, unsigned int vlen)
{
	struct kvb_uentry **pp = lookup(m, key, klen), *e = *pp;
	char *v = malloc(vlen ? vlen : 1);

	if (!v)
		return -ENOMEM;
	memcpy(v, val, vlen);
	if (e) {
		free(e->val);
		e->val = v;
		e->vlen = vlen;
		return 0;
	}
	e = malloc(sizeof(*e) + klen);
	if (!e) {
		free(v);
		return -ENOMEM;
	}
	e->next = NULL;
	e->klen = klen;
	e->vlen = vlen;
	e->val = v;
	memcpy(e->key, key, klen);
	*pp = e;
	return 0;
}

int kvb_umap_del(struct kvb_umap *m, const void *key, unsigned int klen)
{
	struct kvb_uentry **pp = lookup(m, key, klen), *e = *pp;

	if (!e)
		return -ENOENT;
	*pp = e->next;
	free(e->val);
	free(e);
	return 0;
}

static int umap_op(struct kvb_umap *m, int op, const void *key,
		   unsigned int klen, void *val, unsigned int *vlen)
{
	switch (op) {
	case KVBENCH_OP_GET:
		return kvb_umap_get(m, key, klen, val, vlen);
	case KVBENCH_OP_SET:
		return kvb_umap_set(m, key, klen, val, *vlen);
	case KVBENCH_OP_DEL:
		return kvb_umap_del(m, key, klen);
	default:
		return -EINVAL;
	}
}

int kvb_urw_init(struct kvb_urw *u, unsigned long nkeys)
{
	u->map = kvb_umap_new(nkeys);
	if (!u->map)
		return -ENOMEM;
	if (pthread_rwlock_init(&u->lock, NULL)) {
		kvb_umap_free(u->map);
		return -ENOMEM;
	}
	return 0;
}

void kvb_urw_destroy(struct kvb_urw *u)
{
	pthread_rwlock_destroy(&u->lock);
	kvb_umap_free(u->map);
	u->map = NULL;
}

/*
 * As the module does, SET allocates and copies outside the lock and only
 * swaps pointers under it; GET copies the value out under the read lock.
 */
int kvb_urw_op(struct kvb_urw *u, int op, const void *key, unsigned int klen,
	       void *val, unsigned int *vlen)
{
	struct kvb_uentry **pp, *e, *ne = NULL;
	char *v = NULL;
	int ret = 0;

	if (op == KVBENCH_OP_GET) {
		pthread_rwlock_rdlock(&u->lock);
		ret = kvb_umap_get(u->map, key, klen, val, vlen);
		pthread_rwlock_unlock(&u->lock);
		return ret;
	}
	if (op == KVBENCH_OP_DEL) {
		pthread_rwlock_wrlock(&u->lock);
		pp = lookup(u->map, key, klen);
		e = *pp;
		if (e)
			*pp = e->next;
		pthread_rwlock_unlock(&u->lock);
		if (!e)
			return -ENOENT;
		free(e->val);
		free(e);
		return 0;
	}
	if (op != KVBENCH_OP_SET)
		return -EINVAL;
	v = malloc(*vlen ? *vlen : 1);
	ne = malloc(sizeof(*ne) + klen);
	if (!v || !ne) {
		free(v);
		free(ne);
		return -ENOMEM;
	}
	memcpy(v, val, *vlen);
	ne->next = NULL;
	ne->klen = klen;
	ne->vlen = *vlen;
	ne->val = v;
	memcpy(ne->key, key, klen);

	pthread_rwlock_wrlock(&u->lock);
	pp = lookup(u->map, key, klen);
	e = *pp;
	if (e) {
		/* Swap the value, give the old one to the free below. */
		ne->val = e->val;
		e->val = v;
		e->vlen = *vlen;
	} else {
		*pp = ne;
		ne = NULL;
	}
	pthread_rwlock_unlock(&u->lock);
	if (ne) {
		free(ne->val);
		free(ne);
	}
	return 0;
}

/*
 * The answer: r->state goes PENDING -> DONE when the caller is still
 * polling, and the owner never touches r again (the caller may return and
 * reuse or free it at once). When the caller went to sleep first
 * (PENDING -> WAITING, under r->lock), the owner sets DONE under r->lock,
 * so the caller cannot return before the owner has unlocked.
 */
static void answer(struct kvb_oreq *r, int res)
{
	int expect = KVB_REQ_PENDING;

	r->result = res;
	if (atomic_compare_exchange_strong(&r->state, &expect, KVB_REQ_DONE))
		return;
	pthread_mutex_lock(&r->lock);
	atomic_store(&r->state, KVB_REQ_DONE);
	pthread_cond_signal(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

/* Poll *v until it equals want (or, want < 0, is non-zero) for usec us. */
static int poll_for(atomic_int *v, int want, unsigned int usec)
{
	__u64 end = 0;
	unsigned int i;

	if (!usec)
		return 0;
	for (i = 0; ; i++) {
		int x = atomic_load_explicit(v, memory_order_acquire);

		if (want < 0 ? x != 0 : x == want)
			return 1;
		if (i % 64)
			continue;
		if (!end)
			end = kvb_now_ns() + usec * 1000ULL;
		else if (kvb_now_ns() > end)
			return 0;
	}
}

static void *owner_fn(void *arg)
{
	struct kvb_owner *o = arg;
	struct kvb_oreq *batch[KVB_MAX_THREADS];

	for (;;) {
		unsigned int n = 0, i;

		poll_for(&o->pending, -1, o->spin);
		pthread_mutex_lock(&o->lock);
		while (o->head == o->tail && !o->quit) {
			o->sleeping = 1;
			pthread_cond_wait(&o->cond, &o->lock);
			o->sleeping = 0;
		}
		if (o->head == o->tail && o->quit) {
			pthread_mutex_unlock(&o->lock);
			return NULL;
		}
		while (o->head != o->tail && n < KVB_MAX_THREADS)
			batch[n++] = o->ring[o->head++ & (o->size - 1)];
		atomic_fetch_sub_explicit(&o->pending, n, memory_order_relaxed);
		pthread_mutex_unlock(&o->lock);

		for (i = 0; i < n; i++) {
			struct kvb_oreq *r = batch[i];

			answer(r, umap_op(o->map, r->op, r->key, r->klen,
					  r->val, &r->vlen));
		}
	}
}

int kvb_owner_start(struct kvb_owner *o, unsigned long nkeys,
		    unsigned int callers, unsigned int spin)
{
	unsigned int size = 1;
	sigset_t all, old;
	int err;

	memset(o, 0, sizeof(*o));
	o->spin = spin;
	while (size < callers)
		size <<= 1;
	o->size = size;
	o->ring = calloc(size, sizeof(*o->ring));
	o->map = kvb_umap_new(nkeys);
	if (!o->ring || !o->map)
		goto out_free;
	pthread_mutex_init(&o->lock, NULL);
	pthread_cond_init(&o->cond, NULL);
	/* Signals are for the main thread, not the owner. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&o->thread, NULL, owner_fn, o);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pthread_cond_destroy(&o->cond);
		pthread_mutex_destroy(&o->lock);
		goto out_free;
	}
	return 0;
out_free:
	kvb_umap_free(o->map);
	free(o->ring);
	return -ENOMEM;
}

void kvb_owner_stop(struct kvb_owner *o)
{
	pthread_mutex_lock(&o->lock);
	o->quit = 1;
	pthread_cond_signal(&o->cond);
	pthread_mutex_unlock(&o->lock);
	pthread_join(o->thread, NULL);
	pthread_cond_destroy(&o->cond);
	pthread_mutex_destroy(&o->lock);
	kvb_umap_free(o->map);
	free(o->ring);
	o->map = NULL;
	o->ring = NULL;
}

void kvb_oreq_init(struct kvb_oreq *r)
{
	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
}

void kvb_oreq_destroy(struct kvb_oreq *r)
{
	pthread_cond_destroy(&r->cond);
	pthread_mutex_destroy(&r->lock);
}

/*
 * Each caller has at most one request in flight and the ring holds one slot
 * per caller, so the ring never overflows.
 */
int kvb_owner_call(struct kvb_owner *o, struct kvb_oreq *r, int op,
		   const void *key, unsigned int klen,
		   void *val, unsigned int *vlen)
{
	int expect;

	r->op = op;
	r->key = key;
	r->klen = klen;
	r->val = val;
	r->vlen = *vlen;
	atomic_store(&r->state, KVB_REQ_PENDING);

	pthread_mutex_lock(&o->lock);
	o->ring[o->tail++ & (o->size - 1)] = r;
	atomic_fetch_add_explicit(&o->pending, 1, memory_order_relaxed);
	if (o->sleeping)
		pthread_cond_signal(&o->cond);
	pthread_mutex_unlock(&o->lock);

	if (poll_for(&r->state, KVB_REQ_DONE, o->spin))
		goto out;
	pthread_mutex_lock(&r->lock);
	expect = KVB_REQ_PENDING;
	if (atomic_compare_exchange_strong(&r->state, &expect, KVB_REQ_WAITING))
		while (atomic_load(&r->state) != KVB_REQ_DONE)
			pthread_cond_wait(&r->cond, &r->lock);
	pthread_mutex_unlock(&r->lock);
out:
	*vlen = r->vlen;
	return r->result;
}

/* The two rows of the target table. */
static int urw_setup(struct kvb_bench *b, void **run, unsigned int threads)
{
	struct kvb_urw *u = malloc(sizeof(*u));

	(void)threads;
	if (!u || kvb_urw_init(u, b->p->keys)) {
		free(u);
		return -ENOMEM;
	}
	*run = u;
	return 0;
}

static void urw_teardown(void *run)
{
	kvb_urw_destroy(run);
	free(run);
}

static int none_thread_init(struct kvb_ctx *c, enum kvb_fd fdmode)
{
	(void)fdmode;
	c->fd = -1;
	return 0;
}

static int urw_row_op(struct kvb_ctx *c, int op, const char *key, char *val,
		      unsigned int *vlen)
{
	return kvb_urw_op(c->run, op, key, c->klen, val, vlen);
}

const struct kvb_target_ops kvb_urw_ops = {
	.kind = KVB_USER_RWLOCK,
	.group = "baselines",
	.flags = KVB_T_MIXES | KVB_T_RUN_MAP,
	.setup = urw_setup,
	.teardown = urw_teardown,
	.thread_init = none_thread_init,
	.op = urw_row_op,
};

/* One owner thread per run; one request, reused, per calling thread. */
static int owner_setup(struct kvb_bench *b, void **run, unsigned int threads)
{
	struct kvb_owner *o = malloc(sizeof(*o));

	if (!o || kvb_owner_start(o, b->p->keys, threads + 1, b->p->owner_spin)) {
		free(o);
		return -ENOMEM;
	}
	*run = o;
	return 0;
}

static void owner_teardown(void *run)
{
	kvb_owner_stop(run);
	free(run);
}

/* Each request has a cache line of its own: the owner writes to it. */
static int owner_thread_init(struct kvb_ctx *c, enum kvb_fd fdmode)
{
	struct kvb_oreq *r = aligned_alloc(64, (sizeof(*r) + 63) & ~63UL);

	(void)fdmode;
	c->fd = -1;
	if (!r)
		return -ENOMEM;
	kvb_oreq_init(r);
	c->priv = r;
	return 0;
}

static void owner_thread_fini(struct kvb_ctx *c)
{
	if (!c->priv)
		return;
	kvb_oreq_destroy(c->priv);
	free(c->priv);
	c->priv = NULL;
}

static int owner_row_op(struct kvb_ctx *c, int op, const char *key, char *val,
			unsigned int *vlen)
{
	return kvb_owner_call(c->run, c->priv, op, key, c->klen, val, vlen);
}

const struct kvb_target_ops kvb_owner_ops = {
	.kind = KVB_USER_OWNER,
	.group = "baselines",
	.flags = KVB_T_MIXES | KVB_T_RUN_MAP,
	.setup = owner_setup,
	.teardown = owner_teardown,
	.thread_init = owner_thread_init,
	.thread_fini = owner_thread_fini,
	.op = owner_row_op,
};
