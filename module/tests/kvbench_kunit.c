// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for kvbench: every case runs once per backend, calling the
 * backend's ops directly (no user memory, no ioctl), plus the runtime
 * switch of the live module and many kernel threads on one map.
 *
 * Load kvbench.ko first; this module imports its KUnit-only exports.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "../backend_rhashtable.h"
#include "../kvbench.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

static const char * const backend_names[] = {
	"rwlock", "rcu", "kthread", "kthread-percpu", "rhashtable", "combining",
};

static void backend_desc(const char * const *name, char *desc)
{
	strscpy(desc, *name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(backend, backend_names, backend_desc);

struct kvt {
	struct kunit *test;
	struct kvbench_backend *b;
};

static void kvt_exit(struct kunit_resource *res)
{
	struct kvt *t = res->data;

	if (t->b)
		kvbench_backend_destroy(t->b);
}

static int kvt_init(struct kunit_resource *res, void *context)
{
	res->data = context;
	return 0;
}

/* A fresh map of the case's backend, destroyed when the case ends. */
static struct kvt *kvt_new(struct kunit *test, unsigned int queue_len)
{
	const char * const *name = test->param_value;
	struct kvbench_params p = { .hash_bits = 6, .queue_len = queue_len };
	const struct kvbench_backend_ops *ops;
	struct kvt *t;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	t->test = test;
	ops = kvbench_find_backend(*name);
	KUNIT_ASSERT_NOT_NULL(test, ops);
	t->b = kvbench_backend_create(ops, &p);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->b));
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, kvt_init,
							 kvt_exit, GFP_KERNEL,
							 t));
	return t;
}

/* SET @key to @val in backend @b, or with @b NULL in the live module's. */
static int kvt_set(struct kvbench_backend *b, const char *key,
		   const void *val, u32 len)
{
	struct kvbench_req req = {};
	struct kvbench_item *item;
	u32 klen = strlen(key);

	item = kvbench_item_alloc(klen, len);
	if (!item)
		return -ENOMEM;
	memcpy(item->data, key, klen);
	memcpy(item->data + klen, val, len);
	item->hash = kvbench_hash(key, klen);
	kvbench_req_set(&req, item);
	if (b)
		kvbench_backend_run(b, &req, 1);
	else
		kvbench_run(&req, 1);
	if (req.result)
		kvbench_item_put(req.item);
	return req.result;
}

static void kvt_key(struct kvbench_req *req, u32 op, const char *key)
{
	memset(req, 0, sizeof(*req));
	req->op = op;
	req->key.data = key;
	req->key.len = strlen(key);
	req->key.hash = kvbench_hash(key, req->key.len);
}

/* GET @key into @buf (room for @cap bytes); the value length goes to @len. */
static int kvt_get(struct kvbench_backend *b, const char *key, void *buf,
		   u32 cap, u32 *len)
{
	u8 inline_buf[KVBENCH_GET_INLINE];
	struct kvbench_req req;

	kvt_key(&req, KVBENCH_OP_GET, key);
	req.get.buf = inline_buf;
	req.get.cap = cap;
	kvbench_backend_run(b, &req, 1);
	*len = req.get.len;
	if (req.result)
		return req.result;
	memcpy(buf, req.get.ref ? kvbench_item_value(req.get.ref) : inline_buf,
	       req.get.len);
	if (req.get.ref)
		kvbench_item_put(req.get.ref);
	return 0;
}

static int kvt_del(struct kvbench_backend *b, const char *key)
{
	struct kvbench_req req;

	kvt_key(&req, KVBENCH_OP_DEL, key);
	kvbench_backend_run(b, &req, 1);
	return req.result;
}

static void kvbench_set_get_del(struct kunit *test)
{
	struct kvt *t = kvt_new(test, 16);
	long entries = kvbench_entries();
	char buf[32];
	u32 len;

	KUNIT_EXPECT_EQ(test, kvt_set(t->b, "alpha", "one", 3), 0);
	KUNIT_EXPECT_EQ(test, kvbench_entries(), entries + 1);
	KUNIT_ASSERT_EQ(test, kvt_get(t->b, "alpha", buf, sizeof(buf), &len), 0);
	KUNIT_EXPECT_EQ(test, len, 3);
	KUNIT_EXPECT_MEMEQ(test, buf, "one", 3);

	/* Overwrite with another length: one entry, the new value. */
	KUNIT_EXPECT_EQ(test, kvt_set(t->b, "alpha", "a longer one", 12), 0);
	KUNIT_EXPECT_EQ(test, kvbench_entries(), entries + 1);
	KUNIT_ASSERT_EQ(test, kvt_get(t->b, "alpha", buf, sizeof(buf), &len), 0);
	KUNIT_EXPECT_EQ(test, len, 12);
	KUNIT_EXPECT_MEMEQ(test, buf, "a longer one", 12);

	/* Keys that differ only in length are different keys. */
	KUNIT_EXPECT_EQ(test, kvt_set(t->b, "alph", "two", 3), 0);
	KUNIT_ASSERT_EQ(test, kvt_get(t->b, "alph", buf, sizeof(buf), &len), 0);
	KUNIT_EXPECT_MEMEQ(test, buf, "two", 3);

	KUNIT_EXPECT_EQ(test, kvt_del(t->b, "alpha"), 0);
	KUNIT_EXPECT_EQ(test, kvt_get(t->b, "alpha", buf, sizeof(buf), &len),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, kvt_del(t->b, "alpha"), -ENOENT);
	KUNIT_EXPECT_EQ(test, kvt_del(t->b, "alph"), 0);
	KUNIT_EXPECT_EQ(test, kvbench_entries(), entries);
}

static void kvbench_missing(struct kunit *test)
{
	struct kvt *t = kvt_new(test, 16);
	char buf[8];
	u32 len;

	KUNIT_EXPECT_EQ(test, kvt_get(t->b, "nobody", buf, sizeof(buf), &len),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, kvt_del(t->b, "nobody"), -ENOENT);
}

static void kvbench_short_buffer(struct kunit *test)
{
	struct kvt *t = kvt_new(test, 16);
	char buf[8];
	u32 len;

	KUNIT_ASSERT_EQ(test, kvt_set(t->b, "k", "0123456789", 10), 0);
	KUNIT_EXPECT_EQ(test, kvt_get(t->b, "k", buf, 9, &len), -ERANGE);
	KUNIT_EXPECT_EQ(test, len, 10);
	KUNIT_ASSERT_EQ(test, kvt_set(t->b, "k", "", 0), 0);
	KUNIT_EXPECT_EQ(test, kvt_get(t->b, "k", buf, 0, &len), 0);
	KUNIT_EXPECT_EQ(test, len, 0);
}

/* Values above KVBENCH_GET_INLINE are pinned, not copied under the lock. */
static void kvbench_large_value(struct kunit *test)
{
	struct kvt *t = kvt_new(test, 16);
	const u32 size = 3 * KVBENCH_GET_INLINE;
	u8 *val, *buf;
	u32 len;

	val = kunit_kmalloc(test, size, GFP_KERNEL);
	buf = kunit_kzalloc(test, size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, val);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	get_random_bytes(val, size);

	KUNIT_ASSERT_EQ(test, kvt_set(t->b, "big", val, size), 0);
	KUNIT_ASSERT_EQ(test, kvt_get(t->b, "big", buf, size, &len), 0);
	KUNIT_EXPECT_EQ(test, len, size);
	KUNIT_EXPECT_MEMEQ(test, buf, val, size);
}

static void kvbench_limits(struct kunit *test)
{
	struct kvt *t = kvt_new(test, 16);
	unsigned long max_entries, max_bytes;

	KUNIT_ASSERT_EQ(test, kvt_set(t->b, "first", "v", 1), 0);

	/* Room for exactly one more entry. */
	max_entries = kvbench_entries() + 1;
	max_bytes = 0;
	kvbench_swap_limits(&max_entries, &max_bytes);
	KUNIT_EXPECT_EQ(test, kvt_set(t->b, "second", "v", 1), 0);
	KUNIT_EXPECT_EQ(test, kvt_set(t->b, "third", "v", 1), -ENOSPC);
	/* At the limit, an existing key can still be overwritten. */
	KUNIT_EXPECT_EQ(test, kvt_set(t->b, "first", "vvvv", 4), 0);
	KUNIT_EXPECT_EQ(test, kvt_del(t->b, "third"), -ENOENT);
	kvbench_swap_limits(&max_entries, &max_bytes);

	/* A byte limit stops growth, not shrinking. */
	max_entries = 0;
	max_bytes = 1;
	kvbench_swap_limits(&max_entries, &max_bytes);
	KUNIT_EXPECT_EQ(test, kvt_set(t->b, "fourth", "v", 1), -ENOSPC);
	KUNIT_EXPECT_EQ(test, kvt_set(t->b, "first", "vvvvv", 5), -ENOSPC);
	KUNIT_EXPECT_EQ(test, kvt_set(t->b, "first", "v", 1), 0);
	kvbench_swap_limits(&max_entries, &max_bytes);
}

static void kvbench_batch(struct kunit *test)
{
	struct kvt *t = kvt_new(test, 16);
	struct kvbench_req reqs[5];
	struct kvbench_item *item;
	u8 (*bufs)[KVBENCH_GET_INLINE];

	bufs = kunit_kzalloc(test, 3 * sizeof(*bufs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bufs);

	kvt_key(&reqs[0], KVBENCH_OP_GET, "b");
	reqs[0].get.buf = bufs[0];
	reqs[0].get.cap = sizeof(bufs[0]);
	memset(&reqs[1], 0, sizeof(reqs[1]));
	item = kvbench_item_alloc(1, 5);
	KUNIT_ASSERT_NOT_NULL(test, item);
	memcpy(item->data, "bvalue", 6);
	item->hash = kvbench_hash("b", 1);
	kvbench_req_set(&reqs[1], item);
	kvt_key(&reqs[2], KVBENCH_OP_GET, "b");
	reqs[2].get.buf = bufs[2];
	reqs[2].get.cap = sizeof(bufs[2]);
	kvt_key(&reqs[3], KVBENCH_OP_DEL, "b");
	kvt_key(&reqs[4], KVBENCH_OP_DEL, "b");

	/* In order: a GET before the SET misses, the one after hits. */
	kvbench_backend_run(t->b, reqs, ARRAY_SIZE(reqs));
	if (reqs[1].result)
		kvbench_item_put(reqs[1].item);
	KUNIT_EXPECT_EQ(test, reqs[0].result, -ENOENT);
	KUNIT_EXPECT_EQ(test, reqs[1].result, 0);
	KUNIT_EXPECT_EQ(test, reqs[2].result, 0);
	KUNIT_EXPECT_EQ(test, reqs[2].get.len, 5);
	KUNIT_EXPECT_MEMEQ(test, bufs[2], "value", 5);
	KUNIT_EXPECT_EQ(test, reqs[3].result, 0);
	KUNIT_EXPECT_EQ(test, reqs[4].result, -ENOENT);
}

/*
 * The GETs of an MGET append their values to one gather buffer, in array
 * order: a value that does not fit in the room left gets -ERANGE and takes
 * none of it, so a later, smaller one may still fit; a large value takes
 * its room but is pinned, not copied.
 */
static void kvbench_gather(struct kunit *test)
{
	static const char * const keys[] = { "a", "nobody", "big", "c", "a" };
	struct kvt *t = kvt_new(test, 16);
	const u32 big = 3 * KVBENCH_GET_INLINE;
	struct kvbench_req reqs[ARRAY_SIZE(keys)];
	struct kvbench_gather g = {};
	u8 *val;
	int i;

	val = kunit_kmalloc(test, big, GFP_KERNEL);
	g.buf = kunit_kzalloc(test, 16, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, val);
	KUNIT_ASSERT_NOT_NULL(test, g.buf);
	get_random_bytes(val, big);
	KUNIT_ASSERT_EQ(test, kvt_set(t->b, "a", "one", 3), 0);
	KUNIT_ASSERT_EQ(test, kvt_set(t->b, "big", val, big), 0);
	KUNIT_ASSERT_EQ(test, kvt_set(t->b, "c", "three", 5), 0);

	/* Room for a, big and a again: not for c. */
	g.room = 3 + big + 3;
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		kvt_key(&reqs[i], KVBENCH_OP_GET, keys[i]);
		reqs[i].get.gather = &g;
	}
	kvbench_backend_run(t->b, reqs, ARRAY_SIZE(reqs));

	KUNIT_EXPECT_EQ(test, reqs[0].result, 0);
	KUNIT_EXPECT_EQ(test, reqs[0].get.len, 3);
	KUNIT_EXPECT_EQ(test, reqs[1].result, -ENOENT);
	KUNIT_EXPECT_EQ(test, reqs[2].result, 0);
	KUNIT_EXPECT_EQ(test, reqs[2].get.len, big);
	KUNIT_EXPECT_EQ(test, reqs[3].result, -ERANGE);
	KUNIT_EXPECT_EQ(test, reqs[3].get.len, 5);
	KUNIT_EXPECT_EQ(test, reqs[4].result, 0);
	KUNIT_EXPECT_EQ(test, g.room, 0);
	KUNIT_EXPECT_EQ(test, g.used, 6);
	KUNIT_EXPECT_MEMEQ(test, g.buf, "oneone", 6);
	KUNIT_EXPECT_NULL(test, reqs[0].get.ref);
	KUNIT_EXPECT_NULL(test, reqs[4].get.ref);
	KUNIT_ASSERT_NOT_NULL(test, reqs[2].get.ref);
	KUNIT_EXPECT_MEMEQ(test, kvbench_item_value(reqs[2].get.ref), val, big);
	kvbench_item_put(reqs[2].get.ref);
}

/* Switch the live module to this backend and back: nothing is lost. */
static void kvbench_switch_carries_entries(struct kunit *test)
{
	const char * const *name = test->param_value;
	const int n = 200;
	struct kvbench_req req;
	u8 buf[KVBENCH_GET_INLINE];
	char key[16];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "sw%d", i);
		KUNIT_ASSERT_EQ(test, kvt_set(NULL, key, &i, sizeof(i)), 0);
	}

	KUNIT_ASSERT_EQ(test, kvbench_switch_by_name(*name), 0);
	KUNIT_EXPECT_EQ(test, kvbench_switch_by_name("no-such-backend"),
			-EINVAL);

	for (i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "sw%d", i);
		kvt_key(&req, KVBENCH_OP_GET, key);
		req.get.buf = buf;
		req.get.cap = sizeof(buf);
		kvbench_run(&req, 1);
		KUNIT_EXPECT_EQ(test, req.result, 0);
		KUNIT_EXPECT_EQ(test, req.get.len, sizeof(i));
		KUNIT_EXPECT_MEMEQ(test, buf, &i, sizeof(i));

		kvt_key(&req, KVBENCH_OP_DEL, key);
		kvbench_run(&req, 1);
		KUNIT_EXPECT_EQ(test, req.result, 0);
	}
}

/*
 * A request for kvbench_run_async(), as an io_uring command holds one: on
 * the caller's stack, with a keep that copies it to the heap.
 */
struct kvt_async {
	struct kvbench_async a;
	struct kvbench_req req;
	struct completion answered;
	unsigned int *kept;
	bool fail;
	char key[16];
	u8 buf[KVBENCH_GET_INLINE];
};

static void kvt_async_done(struct kvbench_async *a)
{
	complete(&container_of(a, struct kvt_async, a)->answered);
}

static struct kvbench_async *kvt_async_keep(struct kvbench_async *a)
{
	struct kvt_async *t = container_of(a, struct kvt_async, a), *k;

	(*t->kept)++;
	if (t->fail)
		return NULL;
	k = kmemdup(t, sizeof(*t), GFP_KERNEL);
	if (!k)
		return NULL;
	k->req.key.data = k->key;
	k->req.get.buf = k->buf;
	k->a.msg.head = &k->req;
	init_completion(&k->answered);
	return &k->a;
}

/* Prepare a GET of @key in @t, whose keep counts its calls in @kept. */
static void kvt_async_get(struct kvt_async *t, const char *key,
			  unsigned int *kept, bool fail)
{
	strscpy(t->key, key, sizeof(t->key));
	kvt_key(&t->req, KVBENCH_OP_GET, t->key);
	t->req.get.buf = t->buf;
	t->req.get.cap = sizeof(t->buf);
	t->a.msg.head = &t->req;
	t->a.done = kvt_async_done;
	init_completion(&t->answered);
	t->kept = kept;
	t->fail = fail;
}

/*
 * kvbench_run_async() decides under switch_sem, not before: a GET prepared
 * while a backend of the other kind was in use (with or without a thread
 * of its own) runs on this one after a switch. This backend's kind alone
 * says whether keep is asked for lasting memory (once) and the request
 * is queued, or it runs in the call from the caller's memory; a keep
 * that fails leaves nothing queued or held.
 */
static void kvbench_run_async_decides(struct kunit *test)
{
	const char * const *name = test->param_value;
	const struct kvbench_backend_ops *ops = kvbench_find_backend(*name);
	const char *key = "async1";
	struct kvbench_async *ap;
	struct kvbench_req req;
	struct kvt_async *t, *k;
	unsigned long left = 1;
	unsigned int kept = 0;
	u32 val = 0x4b56424e;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, ops);
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, kvbench_switch_by_name(ops->submit ? "rcu" :
						     "kthread"), 0);
	KUNIT_ASSERT_EQ(test, kvt_set(NULL, key, &val, sizeof(val)), 0);

	/* Prepared on the other kind, run on this one. */
	kvt_async_get(t, key, &kept, false);
	KUNIT_ASSERT_EQ(test, kvbench_switch_by_name(*name), 0);
	ap = &t->a;
	ret = kvbench_run_async(&ap, kvt_async_keep, false);
	k = container_of(ap, struct kvt_async, a);
	if (ops->submit) {
		KUNIT_EXPECT_EQ(test, kept, 1U);
		KUNIT_ASSERT_PTR_NE(test, k, t);
		KUNIT_ASSERT_TRUE(test,
				  ret == KVBENCH_QUEUED || ret == KVBENCH_RAN);
		/* Still queued after 10 s: leak it rather than free it. */
		if (ret == KVBENCH_QUEUED)
			left = wait_for_completion_timeout(&k->answered,
							   10 * HZ);
		KUNIT_ASSERT_NE(test, left, 0UL);
	} else {
		KUNIT_EXPECT_EQ(test, kept, 0U);
		KUNIT_EXPECT_PTR_EQ(test, k, t);
		KUNIT_EXPECT_EQ(test, ret, KVBENCH_RAN);
	}
	KUNIT_EXPECT_EQ(test, k->req.result, 0);
	KUNIT_EXPECT_EQ(test, k->req.get.len, sizeof(val));
	KUNIT_EXPECT_MEMEQ(test, k->buf, &val, sizeof(val));
	if (k != t)
		kfree(k);

	/* No memory to keep it: refused, with nothing queued. */
	kept = 0;
	kvt_async_get(t, key, &kept, true);
	ap = &t->a;
	ret = kvbench_run_async(&ap, kvt_async_keep, false);
	KUNIT_EXPECT_PTR_EQ(test, ap, &t->a);
	KUNIT_EXPECT_EQ(test, ret, ops->submit ? -ENOMEM : KVBENCH_RAN);
	KUNIT_EXPECT_EQ(test, kept, ops->submit ? 1U : 0U);

	kvt_key(&req, KVBENCH_OP_DEL, key);
	kvbench_run(&req, 1);
	KUNIT_EXPECT_EQ(test, req.result, 0);
}

/*
 * Many kernel threads on one map. Each owns some keys (whose values it
 * checks exactly) and all share a few hot ones (whose values must at least
 * be whole: a value carries its own key and a checksum).
 */
struct hammer {
	struct kvbench_backend *b;
	int id;
	int iterations;
	int errors;
	struct completion done;
};

struct hammer_val {
	char key[16];
	u32 version;
	u32 sum;
};

static u32 hammer_sum(const struct hammer_val *v)
{
	return kvbench_hash(v, offsetof(struct hammer_val, sum));
}

static int hammer_fn(void *arg)
{
	struct hammer *h = arg;
	struct hammer_val v, got;
	char key[16];
	u32 len;
	int i;

	for (i = 0; i < h->iterations; i++) {
		bool hot = i % 4 == 0;

		memset(&v, 0, sizeof(v));
		if (hot)
			snprintf(key, sizeof(key), "hot%d", i % 3);
		else
			snprintf(key, sizeof(key), "t%d-%d", h->id, i % 16);
		strscpy(v.key, key, sizeof(v.key));
		v.version = i;
		v.sum = hammer_sum(&v);

		if (kvt_set(h->b, key, &v, sizeof(v)))
			h->errors++;
		if (kvt_get(h->b, key, &got, sizeof(got), &len)) {
			/* Another thread may have deleted a hot key. */
			if (!hot)
				h->errors++;
			continue;
		}
		if (len != sizeof(got) || strcmp(got.key, key) ||
		    got.sum != hammer_sum(&got) ||
		    (!hot && got.version != i))
			h->errors++;
		if (i % 7 == 0 && kvt_del(h->b, key) && !hot)
			h->errors++;
	}
	complete(&h->done);
	return 0;
}

static void kvbench_concurrent(struct kunit *test)
{
	/* A queue of 2 slots: the kthread backend's callers must wait. */
	struct kvt *t = kvt_new(test, 2);
	const int nthreads = 8;
	int i, started, errors = 0;
	struct hammer *h;

	h = kunit_kcalloc(test, nthreads, sizeof(*h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h);
	for (started = 0; started < nthreads; started++) {
		struct task_struct *task;

		h[started].b = t->b;
		h[started].id = started;
		h[started].iterations = 500;
		init_completion(&h[started].done);
		task = kthread_run(hammer_fn, &h[started], "kvbench-hammer/%d",
				   started);
		if (IS_ERR(task))
			break;
	}
	for (i = 0; i < started; i++) {
		wait_for_completion(&h[i].done);
		errors += h[i].errors;
	}
	KUNIT_EXPECT_EQ(test, started, nthreads);
	KUNIT_EXPECT_EQ(test, errors, 0);
	if (t->b->ops->stat)
		kunit_info(test, "queue high-water mark %lu, full %lu times\n",
			   t->b->ops->stat(t->b, KVBENCH_STAT_QUEUE_HWM),
			   t->b->ops->stat(t->b, KVBENCH_STAT_QUEUE_FULL));
}

/* A task posting to an owner whose queue is full, in a kernel thread. */
struct post_waiter {
	struct kvbench_owner *o;
	struct kvbench_owner_msg msg;
	struct completion posted;
	int ret;
};

static int post_waiter_fn(void *arg)
{
	struct post_waiter *w = arg;

	allow_signal(SIGKILL);
	w->ret = kvbench_owner_post(w->o, &w->msg);
	complete(&w->posted);
	return 0;
}

/*
 * A caller waiting for room in a full owner queue has only parked its
 * message: a fatal signal ends its wait with -EINTR, the message taken off
 * the parked list again. The owner here is only its queue, two slots
 * taken, and no thread, so no room ever comes by itself.
 */
static void kvbench_owner_post_killable(struct kunit *test)
{
	struct kvbench_owner o = {};
	struct kvbench_owner_msg *slot = NULL;
	struct post_waiter w = { .o = &o };
	struct task_struct *task;

	spin_lock_init(&o.in_lock);
	init_waitqueue_head(&o.room);
	INIT_LIST_HEAD(&o.parked);
	KUNIT_ASSERT_EQ(test, kfifo_alloc(&o.fifo, 2, GFP_KERNEL), 0);
	KUNIT_ASSERT_TRUE(test, kfifo_put(&o.fifo, slot));
	KUNIT_ASSERT_TRUE(test, kfifo_put(&o.fifo, slot));
	init_completion(&w.posted);

	task = kthread_create(post_waiter_fn, &w, "kvbench-post");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	get_task_struct(task);
	wake_up_process(task);

	/* It waits for room ... */
	KUNIT_EXPECT_EQ(test, wait_for_completion_timeout(&w.posted, HZ / 10), 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&o.queue_full), 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(o.nr_parked), 1);
	/* ... until it is killed. */
	send_sig(SIGKILL, task, 1);
	if (!wait_for_completion_timeout(&w.posted, 10 * HZ)) {
		KUNIT_FAIL(test, "a caller waiting for queue room ignored SIGKILL");
		/*
		 * Queue it as the owner would (owner_unpark(): 0 is
		 * OWNER_WAITING), so that it ends.
		 */
		spin_lock(&o.in_lock);
		list_del(&w.msg.parked);
		o.nr_parked--;
		atomic_set_release(&w.msg.state, 0);
		spin_unlock(&o.in_lock);
		wake_up_all(&o.room);
		wait_for_completion(&w.posted);
	} else {
		KUNIT_EXPECT_EQ(test, w.ret, -EINTR);
		KUNIT_EXPECT_EQ(test, kfifo_len(&o.fifo), 2);
		KUNIT_EXPECT_EQ(test, READ_ONCE(o.nr_parked), 0);
		KUNIT_EXPECT_TRUE(test, list_empty(&o.parked));
	}
	kthread_stop(task);
	put_task_struct(task);
	kfifo_free(&o.fifo);
}

/*
 * How long owners and their callers spin (kvbench_spin_next()): a spin
 * grows until it outlasts the round trip it waits for, which it then
 * keeps, stays within 1..KVBENCH_SPIN_GROW times kthread_spin_us, and
 * shrinks back after long waits.
 */
static void kvbench_spin_adapts(struct kunit *test)
{
	const u32 min = 20 * NSEC_PER_USEC, max = KVBENCH_SPIN_GROW * min;
	u32 spin = min;
	int i;

	/* A wait the spin caught keeps it. */
	KUNIT_EXPECT_EQ(test, kvbench_spin_next(min, 5000, min), min);
	/* A round trip of 90 us, as on a slow host: caught after 3 waits. */
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_LT(test, spin, 90000U);
		spin = kvbench_spin_next(spin, 90000, min);
	}
	KUNIT_EXPECT_EQ(test, spin, 160000U);
	KUNIT_EXPECT_EQ(test, kvbench_spin_next(spin, 90000, min), spin);
	/* Waits just past the spin grow it, never past the longest. */
	KUNIT_EXPECT_EQ(test, kvbench_spin_next(spin, spin + 1, min), 2 * spin);
	for (i = 0; i < 10; i++)
		spin = kvbench_spin_next(spin, max, min);
	KUNIT_EXPECT_EQ(test, spin, max);
	/* Waits past the longest spin (an owner idle for 10 ms) halve it. */
	KUNIT_EXPECT_EQ(test, kvbench_spin_next(max, 10000000, min), max / 2);
	for (i = 0; i < 10; i++)
		spin = kvbench_spin_next(spin, 10000000, min);
	KUNIT_EXPECT_EQ(test, spin, min);
	/* A lower kthread_spin_us bounds a spin grown under the old one. */
	KUNIT_EXPECT_EQ(test, kvbench_spin_next(max, 1000, 1000),
			KVBENCH_SPIN_GROW * 1000);
	/* kthread_spin_us=0: never spin. */
	KUNIT_EXPECT_EQ(test, kvbench_spin_next(max, 1000, 0), 0);
	KUNIT_EXPECT_EQ(test, kvbench_spin_next(0, 1000000, 0), 0);
}

/*
 * A wait is judged by when the answer (or the work) was ready, not by when
 * the waiter ran again (kvbench_spin_waited()). The PREEMPT_RT stall: an
 * answer ready 60 us into a wait whose wake-up took until the host's 4 ms
 * tick. Judged by the wake-up, the spin stayed at the floor and every
 * request slept; judged by the answer, it grows until it catches it.
 */
static void kvbench_spin_judged_by_answer(struct kunit *test)
{
	const u32 min = 20 * NSEC_PER_USEC;
	const u64 start = 1000000000ULL, ready = start + 60000;
	const u64 now = start + 4000000;
	u32 spin = min;
	int i;

	KUNIT_EXPECT_EQ(test, kvbench_spin_waited(start, ready, now), 60000ULL);
	for (i = 0; i < 2; i++)
		spin = kvbench_spin_next(spin, kvbench_spin_waited(start, ready, now), min);
	KUNIT_EXPECT_EQ(test, spin, 80000U);
	/* caught from then on: kept */
	KUNIT_EXPECT_EQ(test, kvbench_spin_next(spin, 60000, min), spin);
	/* no stamp: the whole wait; a real idle time halves the spin */
	KUNIT_EXPECT_EQ(test, kvbench_spin_waited(start, 0, now), 4000000ULL);
	KUNIT_EXPECT_EQ(test, kvbench_spin_next(spin, kvbench_spin_waited(start, 0, now), min),
			spin / 2);
	/* another CPU's clock a little off: before the start, caught */
	KUNIT_EXPECT_EQ(test, kvbench_spin_waited(start, start - 500, now), 0ULL);
	/* after the waiter's now: unknown, the whole wait */
	KUNIT_EXPECT_EQ(test, kvbench_spin_waited(start, now + 500, now), 4000000ULL);
}

static int kvt_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * The rhashtable backend hashes a key's bytes with the table's seed, so
 * that the rehash a too-long chain triggers can split keys whose 32-bit
 * kvbench_hash() collide: a birthday search among 2^18 keys finds such a
 * pair (about 8 are expected), and the table's hash must tell them apart
 * under some seed. It did not while it hashed kvbench_hash() itself.
 */
static void kvbench_rht_hash_splits_collisions(struct kunit *test)
{
	enum { N = 1 << 18 };
	char a[16], b[16];
	struct kvbench_key ka = { .data = a }, kb = { .data = b };
	bool found = false, split = false;
	u64 *h;
	u32 i, seed;

	h = kvmalloc_array(N, sizeof(*h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h);
	for (i = 0; i < N; i++) {
		ka.len = snprintf(a, sizeof(a), "c%08x", i);
		h[i] = (u64)kvbench_hash(a, ka.len) << 32 | i;
		cond_resched();
	}
	sort(h, N, sizeof(*h), kvt_cmp_u64, NULL);
	for (i = 1; i < N && !found; i++)
		found = h[i] >> 32 == h[i - 1] >> 32;
	if (!found) {
		kvfree(h);
		kunit_skip(test, "no kvbench_hash() collision among %d keys", N);
	}
	ka.len = snprintf(a, sizeof(a), "c%08x", (u32)h[i - 2]);
	kb.len = snprintf(b, sizeof(b), "c%08x", (u32)h[i - 1]);
	kvfree(h);
	ka.hash = kvbench_hash(a, ka.len);
	kb.hash = kvbench_hash(b, kb.len);
	KUNIT_ASSERT_EQ(test, ka.hash, kb.hash);
	KUNIT_ASSERT_NE(test, 0, strcmp(a, b));
	for (seed = 1; seed <= 4; seed++)
		split |= kvbench_rht_hash(&ka, seed) != kvbench_rht_hash(&kb, seed);
	KUNIT_EXPECT_TRUE_MSG(test, split, "%s and %s share a chain under every seed",
			      a, b);
}

/*
 * drain_mean, combine_mean and load_factor: a ratio with two decimals,
 * rounded down, from counts of any size. It multiplied the count by 100 in
 * an unsigned long: wrong from 43 million on 32-bit, from 1.8e17 on 64-bit.
 */
static void kvbench_ratio_wide(struct kunit *test)
{
	static const struct {
		u64 num, den, whole;
		u32 hundredths;
	} cases[] = {
		{ 0, 0, 0, 0 },
		{ 5, 0, 0, 0 },
		{ 13, 4, 3, 25 },
		{ 1, 3, 0, 33 },
		{ 2, 3, 0, 66 },
		/* Over 32 bits times 100. */
		{ 50000000, 3, 16666666, 66 },
		{ 4294967295ULL, 4294967295ULL, 1, 0 },
		/* Over 64 bits times 100. */
		{ U64_MAX, U64_MAX, 1, 0 },
		{ U64_MAX, 2, U64_MAX / 2, 50 },
		{ U64_MAX / 3, U64_MAX, 0, 33 },
		{ 1ULL << 62, 3ULL << 60, 1, 33 },
	};
	unsigned int i;
	u32 hundredths;
	u64 whole;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		kvbench_ratio(cases[i].num, cases[i].den, &whole, &hundredths);
		KUNIT_EXPECT_EQ_MSG(test, whole, cases[i].whole, "%llu / %llu",
				    cases[i].num, cases[i].den);
		KUNIT_EXPECT_EQ_MSG(test, hundredths, cases[i].hundredths,
				    "%llu / %llu", cases[i].num, cases[i].den);
	}
}

static struct kunit_case kvbench_cases[] = {
	KUNIT_CASE_PARAM(kvbench_set_get_del, backend_gen_params),
	KUNIT_CASE_PARAM(kvbench_missing, backend_gen_params),
	KUNIT_CASE_PARAM(kvbench_short_buffer, backend_gen_params),
	KUNIT_CASE_PARAM(kvbench_large_value, backend_gen_params),
	KUNIT_CASE_PARAM(kvbench_limits, backend_gen_params),
	KUNIT_CASE_PARAM(kvbench_batch, backend_gen_params),
	KUNIT_CASE_PARAM(kvbench_gather, backend_gen_params),
	KUNIT_CASE_PARAM(kvbench_switch_carries_entries, backend_gen_params),
	KUNIT_CASE_PARAM(kvbench_run_async_decides, backend_gen_params),
	KUNIT_CASE_PARAM_ATTR(kvbench_concurrent, backend_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE(kvbench_owner_post_killable),
	KUNIT_CASE(kvbench_spin_adapts),
	KUNIT_CASE(kvbench_spin_judged_by_answer),
	KUNIT_CASE(kvbench_rht_hash_splits_collisions),
	KUNIT_CASE(kvbench_ratio_wide),
	{}
};

static struct kunit_suite kvbench_suite = {
	.name = "kvbench",
	.test_cases = kvbench_cases,
};

kunit_test_suite(kvbench_suite);

MODULE_DESCRIPTION("KUnit tests for kvbench");
MODULE_LICENSE("GPL");
