// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench requests: the two ends of the one path every entry takes.
 *
 *   kvbench_prepare()    validate an op on a key already in kernel memory,
 *                        build a SET's item (copying its value in)
 *   kvbench_run()        run prepared requests on the backend (kvbench_main.c)
 *   kvbench_complete()   copy a GET's value out, release what is held
 *   kvbench_count()      add a call's tally to the per-CPU counters
 *
 * Both ends run with no lock held and may fault or sleep; the backend runs
 * between them on kernel memory only.
 *
 * The user copies of the core are here too. Debian's kernels check every
 * copy_{to,from}_user() whose size is known only at run time against the
 * kernel object it touches (HARDENED_USERCOPY): a lookup of the slab, the
 * vmalloc area or the stack frame. The core's copies go between user memory
 * and buffers it sized itself, so the small ones, which are most of them,
 * skip that walk: kvbench_copy_in() and kvbench_copy_out() open one user
 * access window and move words with unsafe_get_user()/unsafe_put_user(),
 * as lib/strncpy_from_user.c and filldir64() do. Large ones, where the
 * check is a small part of the cost, keep the checked copy.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fault-inject-usercopy.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/sizes.h>
#include <linux/uaccess.h>

#include "kvbench.h"

DEFINE_PER_CPU(struct kvbench_stats, kvbench_stats);

static unsigned int max_value_len = SZ_4K;

static int kvbench_param_max_value_len_set(const char *val,
					   const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, SZ_1M);
}

static const struct kernel_param_ops kvbench_max_value_len_param_ops = {
	.set = kvbench_param_max_value_len_set,
	.get = param_get_uint,
};
module_param_cb(max_value_len, &kvbench_max_value_len_param_ops,
		&max_value_len, 0644);
MODULE_PARM_DESC(max_value_len,
		 "Longest value a SET accepts, 0..1048576 bytes (default 4096)");

/*
 * Largest copy that kvbench_copy_in() and kvbench_copy_out() make word by
 * word in one user access window: every key, a batch's ops (up to 102 of
 * them), an MGET's arrays, small values. Above it the checked copy.
 */
#define KVBENCH_COPY_DIRECT	SZ_4K

/* A word at any address of a kernel buffer (put_unaligned(), which moved). */
struct kvbench_word {
	u64 w;
} __packed;

/**
 * kvbench_copy_in() - copy @len bytes from user memory into a core buffer
 * @dst:	a kernel buffer of at least @len bytes, sized by the core
 * @src:	user memory
 * @len:	bytes
 *
 * Return: 0, or -EFAULT when @src cannot be read (@dst then holds garbage).
 */
int kvbench_copy_in(void *dst, const void __user *src, size_t len)
{
	const u8 __user *s = src;
	u8 *d = dst;

	might_fault();
	if (len > KVBENCH_COPY_DIRECT)
		return copy_from_user(dst, src, len) ? -EFAULT : 0;
	/* As copy_from_user(): nothing to copy never fails, nor is faked to. */
	if (!len)
		return 0;
	if (should_fail_usercopy())
		return -EFAULT;
	if (!user_read_access_begin(src, len))
		return -EFAULT;
	/* Four words a turn: a third of the loop's instructions per byte. */
	for (; len >= 4 * sizeof(u64); len -= 4 * sizeof(u64)) {
		const u64 __user *sw = (const u64 __user *)s;
		struct kvbench_word *dw = (struct kvbench_word *)d;
		u64 w0, w1, w2, w3;

		unsafe_get_user(w0, sw, efault);
		unsafe_get_user(w1, sw + 1, efault);
		unsafe_get_user(w2, sw + 2, efault);
		unsafe_get_user(w3, sw + 3, efault);
		dw[0].w = w0;
		dw[1].w = w1;
		dw[2].w = w2;
		dw[3].w = w3;
		s += 4 * sizeof(u64);
		d += 4 * sizeof(u64);
	}
	for (; len >= sizeof(u64); len -= sizeof(u64)) {
		u64 w;

		unsafe_get_user(w, (const u64 __user *)s, efault);
		((struct kvbench_word *)d)->w = w;
		s += sizeof(u64);
		d += sizeof(u64);
	}
	for (; len; len--, s++, d++)
		unsafe_get_user(*d, s, efault);
	user_read_access_end();
	return 0;
efault:
	user_read_access_end();
	return -EFAULT;
}

/**
 * kvbench_copy_out() - copy @len bytes of a core buffer to user memory
 * @dst:	user memory
 * @src:	a kernel buffer of at least @len bytes, sized by the core
 * @len:	bytes
 *
 * Return: 0, or -EFAULT when @dst cannot be written (some bytes may have
 * been).
 */
int kvbench_copy_out(void __user *dst, const void *src, size_t len)
{
	const u8 *s = src;
	u8 __user *d = dst;

	might_fault();
	if (len > KVBENCH_COPY_DIRECT)
		return copy_to_user(dst, src, len) ? -EFAULT : 0;
	if (!len)
		return 0;
	if (should_fail_usercopy())
		return -EFAULT;
	if (!user_write_access_begin(dst, len))
		return -EFAULT;
	/*
	 * Four words a turn, then unsafe_copy_to_user()'s word-by-word loop
	 * for what is left: a GET's value is most of what the core copies.
	 */
	for (; len >= 4 * sizeof(u64); len -= 4 * sizeof(u64)) {
		const struct kvbench_word *sw = (const struct kvbench_word *)s;
		u64 __user *dw = (u64 __user *)d;

		unsafe_put_user(sw[0].w, dw, efault);
		unsafe_put_user(sw[1].w, dw + 1, efault);
		unsafe_put_user(sw[2].w, dw + 2, efault);
		unsafe_put_user(sw[3].w, dw + 3, efault);
		s += 4 * sizeof(u64);
		d += 4 * sizeof(u64);
	}
	unsafe_copy_to_user(d, s, len, efault);
	user_write_access_end();
	return 0;
efault:
	user_write_access_end();
	return -EFAULT;
}

/* Return: 0, or -E2BIG when a SET of @value_len bytes is refused. */
int kvbench_value_len_ok(u32 value_len)
{
	return value_len > READ_ONCE(max_value_len) ? -E2BIG : 0;
}

/* kvbench_prepare(), inline where the ioctls' path calls it. */
static __always_inline int
kvbench_prepare_inline(struct kvbench_req *req, u32 op, const u8 *key,
		       u32 key_len, const void __user *value, u32 value_len,
		       void *valbuf)
{
	struct kvbench_item *item;
	int ret;

	memset(req, 0, sizeof(*req));
	req->op = op;

	switch (op) {
	case KVBENCH_OP_SET:
		ret = kvbench_value_len_ok(value_len);
		if (ret)
			return ret;
		item = kvbench_item_alloc(key_len, value_len);
		if (!item)
			return -ENOMEM;
		memcpy(item->data, key, key_len);
		if (kvbench_copy_in(item->data + key_len, value, value_len)) {
			kvbench_item_put(item);
			return -EFAULT;
		}
		item->hash = kvbench_hash(key, key_len);
		kvbench_req_set(req, item);
		return 0;
	case KVBENCH_OP_GET:
		req->get.buf = valbuf;
		req->get.cap = value_len;
		fallthrough;
	case KVBENCH_OP_DEL:
		req->key.data = key;
		req->key.len = key_len;
		req->key.hash = kvbench_hash(key, key_len);
		return 0;
	}
	return -EINVAL;
}

/**
 * kvbench_prepare() - turn one op on a key in kernel memory into a request
 * @req:	the request to fill
 * @op:		KVBENCH_OP_*; anything else is refused
 * @key:	the key, 1..KVBENCH_KEY_MAX bytes (checked by the caller); a GET
 *		or DEL points at it until the request is complete
 * @key_len:	its length
 * @value:	SET: the value in user memory
 * @value_len:	SET: the value's length; GET: the size of the caller's
 *		buffer
 * @valbuf:	GET: room for min(@value_len, KVBENCH_GET_INLINE) bytes, for a
 *		small value
 *
 * The key's hash is computed here, once. A SET gets a new item holding its
 * key and value, and the request records the lengths and the hash that
 * reports of it print (kvbench_req_set()). Runs with no lock held.
 *
 * Return: 0, or the op's negative errno (the request then holds nothing).
 */
int kvbench_prepare(struct kvbench_req *req, u32 op, const u8 *key,
		    u32 key_len, const void __user *value, u32 value_len,
		    void *valbuf)
{
	return kvbench_prepare_inline(req, op, key, key_len, value, value_len,
				      valbuf);
}

/**
 * kvbench_prepare_kv() - validate one user op and copy its key in
 * @req:	the request to fill
 * @op:		KVBENCH_OP_*
 * @kv:		the op's key and value, already in kernel memory
 * @keybuf:	room for KVBENCH_KEY_MAX bytes, where the key is copied
 * @valbuf:	room for min(value_len, KVBENCH_GET_INLINE) bytes: a GET's
 *		value when it is small
 *
 * The checks come in the order the ABI has always made them: the struct,
 * the key's length, the op, a SET's value length, and only then the key
 * is read.
 *
 * Return: 0, or the op's negative errno (the request then holds nothing).
 */
int kvbench_prepare_kv(struct kvbench_req *req, u32 op,
		       const struct kvbench_kv *kv, u8 *keybuf, void *valbuf)
{
	int ret;

	if (kv->flags || kv->reserved)
		return -EINVAL;
	if (!kv->key_len || kv->key_len > KVBENCH_KEY_MAX)
		return -EINVAL;
	if (op != KVBENCH_OP_GET && op != KVBENCH_OP_SET &&
	    op != KVBENCH_OP_DEL)
		return -EINVAL;
	if (op == KVBENCH_OP_SET) {
		ret = kvbench_value_len_ok(kv->value_len);
		if (ret)
			return ret;
	}
	if (kvbench_copy_in(keybuf, u64_to_user_ptr(kv->key), kv->key_len))
		return -EFAULT;
	return kvbench_prepare_inline(req, op, keybuf, kv->key_len,
				      u64_to_user_ptr(kv->value), kv->value_len,
				      valbuf);
}

/* kvbench_release(), inline in kvbench_complete*(). */
static __always_inline void kvbench_release_inline(struct kvbench_req *req)
{
	switch (req->op) {
	case KVBENCH_OP_GET:
		if (req->get.ref)
			kvbench_item_put(req->get.ref);
		req->get.ref = NULL;
		break;
	case KVBENCH_OP_SET:
		if (req->result)
			kvbench_item_put(req->item);
		req->item = NULL;
		break;
	}
}

/**
 * kvbench_release() - drop what a request that ran still holds
 * @req:	the request
 *
 * A GET's pinned item, or the item of a SET that was refused.
 */
void kvbench_release(struct kvbench_req *req)
{
	kvbench_release_inline(req);
}

/* kvbench_complete(), inline in kvbench_complete_kv(). */
static __always_inline int kvbench_complete_inline(struct kvbench_req *req,
						   void __user *value)
{
	struct kvbench_item *ref = req->get.ref;
	int ret = req->result;

	if (req->op == KVBENCH_OP_GET && !ret &&
	    kvbench_copy_out(value, ref ? kvbench_item_value(ref) :
					  req->get.buf, req->get.len))
		ret = -EFAULT;
	kvbench_release_inline(req);
	return ret;
}

/**
 * kvbench_complete() - finish a request that ran
 * @req:	the request
 * @value:	GET: the caller's buffer
 *
 * Copies a GET's value out (its length is the caller's to write: see
 * req->get.len) and releases what the request still holds. Runs with no
 * lock held.
 *
 * Return: the op's result: 0 or a negative errno.
 */
int kvbench_complete(struct kvbench_req *req, void __user *value)
{
	return kvbench_complete_inline(req, value);
}

/**
 * kvbench_complete_kv() - kvbench_complete() for a request from a kvbench_kv
 * @req:	the request, prepared from @kv
 * @kv:		the caller's struct kvbench_kv, as copied in
 *
 * As kvbench_complete(), to @kv's value buffer; when a GET found its value
 * (0) or found it too large (-ERANGE), @kv->value_len becomes the value's
 * length. The caller writes it back to user memory if it changed: a buffer
 * of exactly the value's size already says so.
 *
 * Return: the op's result: 0 or a negative errno.
 */
int kvbench_complete_kv(struct kvbench_req *req, struct kvbench_kv *kv)
{
	int ret = kvbench_complete_inline(req, u64_to_user_ptr(kv->value));

	if (req->op == KVBENCH_OP_GET && (!ret || ret == -ERANGE))
		kv->value_len = req->get.len;
	return ret;
}

/* Add a call's tally to this CPU's counters: a few adds, not one per op. */
void kvbench_count(const struct kvbench_stats *t)
{
	if (t->hits)
		this_cpu_add(kvbench_stats.hits, t->hits);
	if (t->misses)
		this_cpu_add(kvbench_stats.misses, t->misses);
	if (t->sets)
		this_cpu_add(kvbench_stats.sets, t->sets);
	if (t->dels)
		this_cpu_add(kvbench_stats.dels, t->dels);
	if (t->batches)
		this_cpu_add(kvbench_stats.batches, t->batches);
}

/*
 * Count one request that ran alone; one refused with -EINTR reached no map.
 * The counter kvbench_tally() would pick, bumped directly: one per-CPU add,
 * not a tally zeroed, filled and added field by field.
 */
void kvbench_count_one(const struct kvbench_req *req)
{
	if (req->result == -EINTR)
		return;
	switch (req->op) {
	case KVBENCH_OP_GET:
		if (req->result == -ENOENT)
			this_cpu_inc(kvbench_stats.misses);
		else
			this_cpu_inc(kvbench_stats.hits);
		break;
	case KVBENCH_OP_SET:
		this_cpu_inc(kvbench_stats.sets);
		break;
	case KVBENCH_OP_DEL:
		this_cpu_inc(kvbench_stats.dels);
		break;
	}
}
