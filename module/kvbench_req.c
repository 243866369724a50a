// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench requests: the two ends of the one path every entry takes.
 *
 *   kvbench_prepare()    validate a user op, copy its key (and value) in
 *   kvbench_run()        run prepared requests on the backend (kvbench_main.c)
 *   kvbench_complete()   copy a GET's value and length out, count, release
 *
 * Both ends run with no lock held and may fault or sleep; the backend runs
 * between them on kernel memory only.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

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

/**
 * kvbench_prepare() - validate one user op and copy in what it needs
 * @req:	the request to fill
 * @op:		KVBENCH_OP_*
 * @kv:		the op's key and value, already in kernel memory
 * @keybuf:	room for KVBENCH_KEY_MAX bytes: the key of a GET or DEL
 * @valbuf:	room for min(value_len, KVBENCH_GET_INLINE) bytes: a GET's
 *		value when it is small
 *
 * A SET gets a new item holding its key and value. Runs with no lock held.
 *
 * Return: 0, or the op's negative errno (the request then holds nothing).
 */
int kvbench_prepare(struct kvbench_req *req, u32 op,
		    const struct kvbench_kv *kv, u8 *keybuf, u8 *valbuf)
{
	const void __user *ukey = u64_to_user_ptr(kv->key);
	struct kvbench_item *item;

	if (kv->flags || kv->reserved)
		return -EINVAL;
	if (!kv->key_len || kv->key_len > KVBENCH_KEY_MAX)
		return -EINVAL;

	memset(req, 0, sizeof(*req));
	req->op = op;

	switch (op) {
	case KVBENCH_OP_SET:
		if (kv->value_len > READ_ONCE(max_value_len))
			return -E2BIG;
		item = kvbench_item_alloc(kv->key_len, kv->value_len);
		if (!item)
			return -ENOMEM;
		if (copy_from_user(item->data, ukey, kv->key_len) ||
		    copy_from_user(item->data + kv->key_len,
				   u64_to_user_ptr(kv->value), kv->value_len)) {
			kvbench_item_put(item);
			return -EFAULT;
		}
		item->hash = kvbench_hash(item->data, kv->key_len);
		req->item = item;
		return 0;
	case KVBENCH_OP_GET:
		req->get.buf = valbuf;
		req->get.cap = kv->value_len;
		fallthrough;
	case KVBENCH_OP_DEL:
		if (copy_from_user(keybuf, ukey, kv->key_len))
			return -EFAULT;
		req->key.data = keybuf;
		req->key.len = kv->key_len;
		req->key.hash = kvbench_hash(keybuf, kv->key_len);
		return 0;
	}
	return -EINVAL;
}

static void kvbench_count(const struct kvbench_req *req)
{
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

/**
 * kvbench_complete() - finish a request that ran
 * @req:	the request
 * @kv:		the op it was prepared from
 * @ulen:	where a GET's value length goes in user memory
 *
 * Copies a GET's value and length out and releases what the request still
 * holds. Runs with no lock held.
 *
 * Return: the op's result: 0 or a negative errno.
 */
int kvbench_complete(struct kvbench_req *req, const struct kvbench_kv *kv,
		     __u32 __user *ulen)
{
	struct kvbench_item *ref = req->get.ref;
	int ret = req->result;

	kvbench_count(req);

	switch (req->op) {
	case KVBENCH_OP_GET:
		if (!ret && copy_to_user(u64_to_user_ptr(kv->value),
					 ref ? kvbench_item_value(ref) :
					       req->get.buf,
					 req->get.len))
			ret = -EFAULT;
		if (ref)
			kvbench_item_put(ref);
		/* A buffer of exactly the value's size already says so. */
		if ((!ret || ret == -ERANGE) && req->get.len != kv->value_len &&
		    put_user(req->get.len, ulen))
			ret = -EFAULT;
		break;
	case KVBENCH_OP_SET:
		if (ret)
			kvbench_item_put(req->item);
		break;
	}
	return ret;
}
