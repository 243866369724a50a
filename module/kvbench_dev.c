// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench device: /dev/kvbench and its ioctls. Each ioctl copies its
 * argument struct in, then takes every op through kvbench_prepare(),
 * kvbench_run() and kvbench_complete() (kvbench_req.c, kvbench_main.c).
 * BATCH and the packed commands MGET, MSET and MDEL share one driver,
 * kvbench_call_run(): they differ only in where an op's key and value come
 * from and where its outcome goes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "kvbench.h"

static long kvbench_ioctl_one(u32 op, struct kvbench_kv __user *ukv)
{
	/*
	 * Not zeroed on entry (INIT_STACK_ALL_ZERO would clear 762 bytes per
	 * call): only the bytes the path writes are ever read or copied out.
	 */
	u8 valbuf[KVBENCH_GET_INLINE] __uninitialized;
	u8 keybuf[KVBENCH_KEY_MAX] __uninitialized;
	struct kvbench_req req __uninitialized;	/* kvbench_prepare() sets it */
	struct kvbench_kv kv;
	u32 size;
	int ret;

	/* A fixed size: no hardened-usercopy walk of the stack frame. */
	if (copy_from_user(&kv, ukv, sizeof(kv)))
		return -EFAULT;
	ret = kvbench_prepare_kv(&req, op, &kv, keybuf, valbuf);
	if (ret)
		return ret;
	kvbench_run(&req, 1);
	kvbench_count_one(&req);
	size = kv.value_len;
	ret = kvbench_complete_kv(&req, &kv);
	if (kv.value_len != size && put_user(kv.value_len, &ukv->value_len))
		ret = -EFAULT;
	return ret;
}

/*
 * Memory that user input sizes, freed when the call ends: charged to the
 * caller, no warning. (Items, which outlive the call, are charged to the
 * caller that SET them, in kvbench_item_alloc().)
 */
#define KVBENCH_GFP_SIZED	(GFP_KERNEL_ACCOUNT | __GFP_NOWARN)

/*
 * The kernel memory of one call (its ops or arrays, its requests, keys and
 * small values) is one buffer, carved by kvbench_buf_alloc(). A call that
 * needs at most KVBENCH_BUF_CACHED bytes (a BATCH of 64 GETs of 16-byte
 * keys into 64-byte buffers needs about 14 KiB; into buffers of 512 bytes
 * or more, the most a GET keeps room for, about 43 KiB; an MGET of 64
 * such values about 40 KiB) takes its CPU's cached buffer, if there is
 * one, and leaves it back at the end: such a call allocates nothing. An
 * allocation costs more than its bookkeeping: the kernel zeroes it
 * (init_on_alloc, on in Debian's kernels), 64 KiB of clearing for a
 * 34 KiB buffer. The buffer changes hands by one per-CPU exchange,
 * so a task that is preempted or moves to another CPU while it uses the
 * buffer still has it to itself; the worst
 * that happens is a CPU whose slot is empty (a call allocates) or taken
 * when a buffer comes back (it is freed).
 */
#define KVBENCH_BUF_CACHED	SZ_64K

static DEFINE_PER_CPU(void *, kvbench_buf_cache);

/**
 * struct kvbench_buf - the kernel memory of one call
 * @mem:	the buffer: cached (KVBENCH_BUF_CACHED bytes) or the call's own
 * @size:	its size
 * @used:	bytes handed out
 * @more:	a second allocation, for what did not fit in @mem
 */
struct kvbench_buf {
	u8 *mem;
	size_t size;
	size_t used;
	void *more;
};

/*
 * @len bytes, 8-aligned, of the call's memory. The first request sizes
 * the buffer; at most one later request may not fit in what is left of it.
 */
static void *kvbench_buf_alloc(struct kvbench_buf *b, size_t len)
{
	void *p;

	len = ALIGN(len, 8);
	if (!b->mem) {
		b->size = max_t(size_t, len, KVBENCH_BUF_CACHED);
		if (len <= KVBENCH_BUF_CACHED) {
			b->mem = this_cpu_xchg(kvbench_buf_cache, NULL);
			/*
			 * Not charged to the caller: a buffer of this size
			 * may stay cached for other callers until unload,
			 * and a charge would pin the memory cgroup of
			 * whoever allocated it first long after it is gone.
			 * Its size is fixed, one per CPU at most outlives
			 * its call.
			 */
			if (!b->mem)
				b->mem = kvmalloc(b->size,
						  GFP_KERNEL | __GFP_NOWARN);
		} else {
			b->mem = kvmalloc(b->size, KVBENCH_GFP_SIZED);
		}
		if (!b->mem)
			return NULL;
	}
	if (len <= b->size - b->used) {
		p = b->mem + b->used;
		b->used += len;
		return p;
	}
	if (WARN_ON_ONCE(b->more))
		return NULL;
	b->more = kvmalloc(len, KVBENCH_GFP_SIZED);
	return b->more;
}

static void kvbench_buf_free(struct kvbench_buf *b)
{
	void *mem = b->mem;

	kvfree(b->more);
	/* Leave it for the next call on this CPU, unless one already is. */
	if (mem && b->size == KVBENCH_BUF_CACHED &&
	    !this_cpu_cmpxchg(kvbench_buf_cache, NULL, mem))
		return;
	kvfree(mem);
}

/* At unload: no call is in flight (an open file holds the module). */
static void kvbench_buf_drop_cache(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		kvfree(per_cpu(kvbench_buf_cache, cpu));
		per_cpu(kvbench_buf_cache, cpu) = NULL;
	}
}

/*
 * Most bytes of SET values one call holds in kernel memory at once. A
 * BATCH or an MSET of larger values runs in consecutive chunks, in array
 * order, each copied in just before it runs and released once it has:
 * what a call holds is bounded by this (or by one op, when a single value
 * is larger), not by the call's size, even when every SET is then refused.
 */
#define KVBENCH_BATCH_HOLD	SZ_1M

/**
 * struct kvbench_call - a call of many ops (BATCH, MGET, MSET, MDEL)
 * @count:	its ops
 * @reqs:	the requests of the chunk that runs, [@count]
 * @slot:	op j runs as @reqs[@slot[j]], or -1 when it failed to prepare
 * @tally:	counters, added to the per-CPU ones once per call
 * @ret:	the call's own result: 0, or -EFAULT when an outcome could not
 *		be written
 *
 * Each command embeds it and gives kvbench_call_run() what differs: how
 * much an op holds, how it becomes a request, where its outcome goes.
 */
struct kvbench_call {
	unsigned int count;
	struct kvbench_req *reqs;
	int *slot;
	struct kvbench_stats tally;
	long ret;
};

/**
 * kvbench_call_run() - run every op of a call, in array order
 * @c:		the call
 * @hold:	bytes op j holds from its preparation until it has run
 * @prepare:	make op j a request, or return its errno
 * @done:	take op j's outcome: @req is NULL when it did not run, and
 *		@result its errno then
 * @chunk_done:	optional: ops [i, end) are done
 *
 * Ops are prepared and run in chunks that hold at most KVBENCH_BATCH_HOLD
 * bytes (at least one op each). Once an op was refused with -EINTR (a
 * fatal signal while an owner backend's queue was full), no later op runs:
 * those that prepare get -EINTR too.
 *
 * Always inlined, so that the callbacks are direct calls.
 */
static __always_inline void
kvbench_call_run(struct kvbench_call *c,
		 u64 (*hold)(struct kvbench_call *c, unsigned int j),
		 int (*prepare)(struct kvbench_call *c, unsigned int j,
				struct kvbench_req *req),
		 void (*done)(struct kvbench_call *c, unsigned int j,
			      struct kvbench_req *req, int result),
		 void (*chunk_done)(struct kvbench_call *c, unsigned int i,
				    unsigned int end))
{
	unsigned int i, j, end, n;
	struct kvbench_req *req;
	bool intr = false;
	/*
	 * u64, not size_t: on a 32-bit kernel the lengths of ops that will
	 * fail validation (up to 2 x U32_MAX each) could wrap a size_t sum
	 * and let one chunk hold far more than KVBENCH_BATCH_HOLD.
	 */
	u64 held;
	int ret;

	for (i = 0; i < c->count; i = end) {
		held = 0;
		n = 0;
		for (end = i; end < c->count; end++) {
			held += hold(c, end);
			if (end > i && held > KVBENCH_BATCH_HOLD)
				break;
			ret = prepare(c, end, &c->reqs[n]);
			c->slot[end] = ret ? -1 : n++;
			if (ret)
				done(c, end, NULL, ret);
		}

		if (intr) {
			for (j = 0; j < n; j++)
				c->reqs[j].result = -EINTR;
		} else if (n) {
			kvbench_run(c->reqs, n);
		}

		for (j = i; j < end; j++) {
			if (c->slot[j] < 0)
				continue;
			req = &c->reqs[c->slot[j]];
			/* Count what reached the map. */
			if (req->result == -EINTR)
				intr = true;
			else
				kvbench_tally(&c->tally, req);
			done(c, j, req, req->result);
		}
		if (chunk_done)
			chunk_done(c, i, end);
	}
	c->tally.batches++;
	kvbench_count(&c->tally);
}

/* BATCH */

struct kvbench_batch_call {
	struct kvbench_call c;
	struct kvbench_op *ops;		/* the user's ops, copied in once */
	struct kvbench_op __user *uops;
	u8 *put_len;			/* op j's value_len must be written */
	u8 *scratch;			/* keys, then small GET values */
};

#define to_batch_call(call) container_of(call, struct kvbench_batch_call, c)

/* Bytes of scratch op @o needs for its key and a small GET value. */
static size_t kvbench_scratch_size(const struct kvbench_op *o)
{
	size_t key = min_t(u32, o->kv.key_len, KVBENCH_KEY_MAX);

	/* kvbench_prepare_kv() copies the key of every valid op, SET too. */
	switch (o->op) {
	case KVBENCH_OP_GET:
		return key + min_t(u32, o->kv.value_len, KVBENCH_GET_INLINE);
	case KVBENCH_OP_SET:
	case KVBENCH_OP_DEL:
		return key;
	}
	return 0;
}

static u64 kvbench_batch_hold(struct kvbench_call *c, unsigned int j)
{
	const struct kvbench_op *o = &to_batch_call(c)->ops[j];

	return o->op == KVBENCH_OP_SET ?
	       (u64)o->kv.key_len + o->kv.value_len : 0;
}

static int kvbench_batch_prepare(struct kvbench_call *c, unsigned int j,
				 struct kvbench_req *req)
{
	struct kvbench_batch_call *bc = to_batch_call(c);
	const struct kvbench_op *o = &bc->ops[j];
	size_t key = min_t(u32, o->kv.key_len, KVBENCH_KEY_MAX);
	u8 *p = bc->scratch;

	bc->scratch += kvbench_scratch_size(o);
	return kvbench_prepare_kv(req, o->op, &o->kv, p, p + key);
}

static void kvbench_batch_done(struct kvbench_call *c, unsigned int j,
			       struct kvbench_req *req, int result)
{
	struct kvbench_batch_call *bc = to_batch_call(c);
	struct kvbench_op *o = &bc->ops[j];
	u32 size = o->kv.value_len;

	if (!req) {
		bc->put_len[j] = false;
		o->result = result;
		return;
	}
	o->result = kvbench_complete_kv(req, &o->kv);
	bc->put_len[j] = o->kv.value_len != size;
}

/*
 * Write the outcomes of ops [@i, @end) into the user's array: each op's
 * result, and the value_len of GETs whose length changed; nothing else.
 * One user access window for the chunk, not a put_user() per field. An
 * op's fields may lie on two pages of which only one can be written: on
 * a fault, write them op by op instead, so that an op whose value_len
 * could not be written says -EFAULT in its result, as it always has.
 */
static void kvbench_batch_chunk_done(struct kvbench_call *c, unsigned int i,
				     unsigned int end)
{
	struct kvbench_batch_call *bc = to_batch_call(c);
	struct kvbench_op __user *uops = bc->uops;
	const struct kvbench_op *ops = bc->ops;
	unsigned int j;
	int result;

	if (!user_write_access_begin(&uops[i], (end - i) * sizeof(*uops)))
		goto one_by_one;
	for (j = i; j < end; j++) {
		if (bc->put_len[j])
			unsafe_put_user(ops[j].kv.value_len,
					&uops[j].kv.value_len, efault);
		unsafe_put_user(ops[j].result, &uops[j].result, efault);
	}
	user_write_access_end();
	return;

efault:
	user_write_access_end();
one_by_one:
	for (j = i; j < end; j++) {
		result = ops[j].result;
		if (bc->put_len[j] &&
		    put_user(ops[j].kv.value_len, &uops[j].kv.value_len))
			result = -EFAULT;
		if (put_user(result, &uops[j].result))
			c->ret = -EFAULT;
	}
}

static long kvbench_ioctl_batch(struct kvbench_batch __user *ubatch)
{
	struct kvbench_batch_call bc = {};
	struct kvbench_buf buf = {};
	struct kvbench_batch batch;
	size_t scratch = 0;
	unsigned int i, n;
	long ret;

	if (copy_from_user(&batch, ubatch, sizeof(batch)))
		return -EFAULT;
	if (batch.flags || !batch.count || batch.count > KVBENCH_BATCH_MAX)
		return -EINVAL;
	n = batch.count;
	bc.uops = u64_to_user_ptr(batch.ops);

	/* ops, reqs, slot, put_len: 8-byte multiples but the last. */
	bc.ops = kvbench_buf_alloc(&buf, n * (sizeof(*bc.ops) +
					      sizeof(*bc.c.reqs) +
					      sizeof(*bc.c.slot) +
					      sizeof(*bc.put_len)));
	if (!bc.ops)
		return -ENOMEM;
	bc.c.count = n;
	bc.c.reqs = (struct kvbench_req *)(bc.ops + n);
	bc.c.slot = (int *)(bc.c.reqs + n);
	bc.put_len = (u8 *)(bc.c.slot + n);

	ret = -EFAULT;
	if (kvbench_copy_in(bc.ops, bc.uops, n * sizeof(*bc.ops)))
		goto free_buf;

	for (i = 0; i < n; i++)
		scratch += kvbench_scratch_size(&bc.ops[i]);
	ret = -ENOMEM;
	bc.scratch = kvbench_buf_alloc(&buf, scratch);
	if (!bc.scratch)
		goto free_buf;

	kvbench_call_run(&bc.c, kvbench_batch_hold, kvbench_batch_prepare,
			 kvbench_batch_done, kvbench_batch_chunk_done);
	ret = bc.c.ret;
free_buf:
	kvbench_buf_free(&buf);
	return ret;
}

/* MGET, MSET, MDEL */

/**
 * struct kvbench_multi_call - a packed call in kernel memory
 * @c:		the call
 * @m:		its argument
 * @key_lens:	the user's key_lens
 * @value_lens:	MSET: the user's value_lens; MGET: what goes back there
 * @results:	what goes back to results
 * @keys:	the keys, copied in once
 * @key_off:	where the next op's key starts in @keys
 * @value_off:	MSET: where the next op's value starts at m->values
 * @gather:	MGET: the small values found, laid out as in m->values
 */
struct kvbench_multi_call {
	struct kvbench_call c;
	const struct kvbench_multi *m;
	u32 *key_lens;
	u32 *value_lens;
	s32 *results;
	const u8 *keys;
	size_t key_off;
	u64 value_off;
	struct kvbench_gather gather;
};

#define to_multi_call(call) container_of(call, struct kvbench_multi_call, c)

static u64 kvbench_mset_hold(struct kvbench_call *c, unsigned int j)
{
	const struct kvbench_multi_call *mc = to_multi_call(c);

	return (u64)mc->key_lens[j] + mc->value_lens[j];
}

static u64 kvbench_mget_hold(struct kvbench_call *c, unsigned int j)
{
	return 0;
}

static int kvbench_multi_prepare(struct kvbench_call *c, unsigned int j,
				 struct kvbench_req *req, u32 op)
{
	struct kvbench_multi_call *mc = to_multi_call(c);
	const u8 *key = mc->keys + mc->key_off;
	u32 value_len = 0;
	u64 value = 0;
	int ret;

	mc->key_off += mc->key_lens[j];
	if (op == KVBENCH_OP_SET) {
		value = mc->m->values + mc->value_off;
		value_len = mc->value_lens[j];
		mc->value_off += value_len;
	}
	ret = kvbench_prepare(req, op, key, mc->key_lens[j],
			      u64_to_user_ptr(value), value_len, NULL);
	if (!ret && op == KVBENCH_OP_GET)
		req->get.gather = &mc->gather;
	return ret;
}

static int kvbench_mget_prepare(struct kvbench_call *c, unsigned int j,
				struct kvbench_req *req)
{
	return kvbench_multi_prepare(c, j, req, KVBENCH_OP_GET);
}

static int kvbench_mset_prepare(struct kvbench_call *c, unsigned int j,
				struct kvbench_req *req)
{
	return kvbench_multi_prepare(c, j, req, KVBENCH_OP_SET);
}

static int kvbench_mdel_prepare(struct kvbench_call *c, unsigned int j,
				struct kvbench_req *req)
{
	return kvbench_multi_prepare(c, j, req, KVBENCH_OP_DEL);
}

/* MGET keeps its requests (and their pinned items) for kvbench_mget_out(). */
static void kvbench_mget_done(struct kvbench_call *c, unsigned int j,
			      struct kvbench_req *req, int result)
{
	struct kvbench_multi_call *mc = to_multi_call(c);

	mc->results[j] = result;
	mc->value_lens[j] = req && (!result || result == -ERANGE) ?
			    req->get.len : 0;
}

static void kvbench_multi_done(struct kvbench_call *c, unsigned int j,
			       struct kvbench_req *req, int result)
{
	to_multi_call(c)->results[j] = result;
	if (req)
		kvbench_release(req);
}

/*
 * Copy the values an MGET found to m->values, back to back in array order,
 * and release the items it pinned. The small ones lie in the gather
 * buffer in the same order, so each run of them between two large values
 * is one copy (all of them, when none is large); a large value is copied
 * from its item, at its offset.
 *
 * Return: 0, or -EFAULT when some could not be written.
 */
static int kvbench_mget_out(struct kvbench_multi_call *mc)
{
	const struct kvbench_call *c = &mc->c;
	u8 __user *out = u64_to_user_ptr(mc->m->values);
	size_t off = 0, run = 0, small = 0;
	struct kvbench_req *req;
	unsigned int j;
	int ret = 0;

	for (j = 0; j < c->count; j++) {
		if (c->slot[j] < 0 || mc->results[j])
			continue;
		req = &c->reqs[c->slot[j]];
		if (!req->get.ref) {
			run += req->get.len;
			continue;
		}
		/* Before the large value: the small ones since the last. */
		if (run && !ret &&
		    kvbench_copy_out(out + off, mc->gather.buf + small, run))
			ret = -EFAULT;
		off += run;
		small += run;
		run = 0;
		if (!ret && kvbench_copy_out(out + off,
					     kvbench_item_value(req->get.ref),
					     req->get.len))
			ret = -EFAULT;
		off += req->get.len;
		kvbench_release(req);
	}
	if (run && !ret &&
	    kvbench_copy_out(out + off, mc->gather.buf + small, run))
		ret = -EFAULT;
	return ret;
}

static long kvbench_ioctl_multi(u32 op, struct kvbench_multi __user *umulti)
{
	struct kvbench_multi_call mc = {};
	struct kvbench_buf buf = {};
	struct kvbench_multi m;
	size_t keys = 0, gather = 0;
	u64 values = 0;
	unsigned int i, n;
	u8 *p;
	long ret;

	if (copy_from_user(&m, umulti, sizeof(m)))
		return -EFAULT;
	if (m.flags || m.reserved || !m.count || m.count > KVBENCH_BATCH_MAX)
		return -EINVAL;
	if (op == KVBENCH_OP_DEL && (m.values || m.value_lens || m.values_size))
		return -EINVAL;
	n = m.count;
	mc.m = &m;

	/* reqs, slot, key_lens, value_lens, results */
	mc.c.reqs = kvbench_buf_alloc(&buf, n * (sizeof(*mc.c.reqs) +
						 sizeof(*mc.c.slot) +
						 sizeof(*mc.key_lens) +
						 sizeof(*mc.value_lens) +
						 sizeof(*mc.results)));
	if (!mc.c.reqs)
		return -ENOMEM;
	mc.c.count = n;
	mc.c.slot = (int *)(mc.c.reqs + n);
	mc.key_lens = (u32 *)(mc.c.slot + n);
	mc.value_lens = mc.key_lens + n;
	mc.results = (s32 *)(mc.value_lens + n);

	ret = -EFAULT;
	if (kvbench_copy_in(mc.key_lens, u64_to_user_ptr(m.key_lens),
			    n * sizeof(*mc.key_lens)))
		goto free_buf;
	if (op == KVBENCH_OP_SET &&
	    kvbench_copy_in(mc.value_lens, u64_to_user_ptr(m.value_lens),
			    n * sizeof(*mc.value_lens)))
		goto free_buf;

	/* At most 256 lengths of 32 bits each: no sum overflows. */
	ret = -EINVAL;
	for (i = 0; i < n; i++) {
		if (!mc.key_lens[i] || mc.key_lens[i] > KVBENCH_KEY_MAX)
			goto free_buf;
		keys += mc.key_lens[i];
		if (op == KVBENCH_OP_SET)
			values += mc.value_lens[i];
	}
	if (values > m.values_size)
		goto free_buf;

	/* The keys, then room for the small values an MGET finds. */
	if (op == KVBENCH_OP_GET)
		gather = min_t(size_t, m.values_size, n * KVBENCH_GET_INLINE);
	ret = -ENOMEM;
	p = kvbench_buf_alloc(&buf, ALIGN(keys, 8) + gather);
	if (!p)
		goto free_buf;
	mc.keys = p;
	mc.gather.buf = p + ALIGN(keys, 8);
	mc.gather.room = m.values_size;

	ret = -EFAULT;
	if (kvbench_copy_in(p, u64_to_user_ptr(m.keys), keys))
		goto free_buf;

	switch (op) {
	case KVBENCH_OP_GET:
		kvbench_call_run(&mc.c, kvbench_mget_hold, kvbench_mget_prepare,
				 kvbench_mget_done, NULL);
		break;
	case KVBENCH_OP_SET:
		kvbench_call_run(&mc.c, kvbench_mset_hold, kvbench_mset_prepare,
				 kvbench_multi_done, NULL);
		break;
	case KVBENCH_OP_DEL:
		kvbench_call_run(&mc.c, kvbench_mget_hold, kvbench_mdel_prepare,
				 kvbench_multi_done, NULL);
		break;
	}

	/* Outcomes go out once every op has run: results first. */
	ret = 0;
	if (kvbench_copy_out(u64_to_user_ptr(m.results), mc.results,
			     n * sizeof(*mc.results)))
		ret = -EFAULT;
	if (op == KVBENCH_OP_GET) {
		if (kvbench_mget_out(&mc))
			ret = -EFAULT;
		if (kvbench_copy_out(u64_to_user_ptr(m.value_lens),
				     mc.value_lens, n * sizeof(*mc.value_lens)))
			ret = -EFAULT;
	}
free_buf:
	kvbench_buf_free(&buf);
	return ret;
}

static long kvbench_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case KVBENCH_IOC_NOP:
		return 0;
	case KVBENCH_IOC_GET:
		return kvbench_ioctl_one(KVBENCH_OP_GET, argp);
	case KVBENCH_IOC_SET:
		return kvbench_ioctl_one(KVBENCH_OP_SET, argp);
	case KVBENCH_IOC_DEL:
		return kvbench_ioctl_one(KVBENCH_OP_DEL, argp);
	case KVBENCH_IOC_BATCH:
		return kvbench_ioctl_batch(argp);
	case KVBENCH_IOC_MGET:
		return kvbench_ioctl_multi(KVBENCH_OP_GET, argp);
	case KVBENCH_IOC_MSET:
		return kvbench_ioctl_multi(KVBENCH_OP_SET, argp);
	case KVBENCH_IOC_MDEL:
		return kvbench_ioctl_multi(KVBENCH_OP_DEL, argp);
	}
	return -ENOIOCTLCMD;
}

static const struct file_operations kvbench_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= kvbench_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
#ifdef KVBENCH_URING
	.uring_cmd	= kvbench_uring_cmd,	/* kvbench_uring.c */
#endif
	.llseek		= noop_llseek,
};

static struct miscdevice kvbench_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "kvbench",
	.fops	= &kvbench_fops,
	.mode	= 0600,
	.groups	= kvbench_groups,
};

int kvbench_dev_register(void)
{
	int ret = kvbench_uring_init();

	if (ret)
		return ret;
	ret = misc_register(&kvbench_misc);
	if (ret)
		kvbench_uring_exit();
	return ret;
}

void kvbench_dev_unregister(void)
{
	misc_deregister(&kvbench_misc);
	kvbench_uring_exit();
	kvbench_buf_drop_cache();
}
