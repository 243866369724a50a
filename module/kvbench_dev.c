// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench device: /dev/kvbench and its ioctls. Each ioctl copies its
 * argument struct in, then takes every op through kvbench_prepare(),
 * kvbench_run() and kvbench_complete() (kvbench_req.c, kvbench_main.c).
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
	u8 valbuf[KVBENCH_GET_INLINE];
	u8 keybuf[KVBENCH_KEY_MAX];
	struct kvbench_req req;
	struct kvbench_kv kv;
	int ret;

	if (copy_from_user(&kv, ukv, sizeof(kv)))
		return -EFAULT;
	ret = kvbench_prepare(&req, op, &kv, keybuf, valbuf);
	if (ret)
		return ret;
	kvbench_run(&req, 1);
	return kvbench_complete(&req, &kv, &ukv->value_len);
}

/* Kernel copies of one BATCH: the user's ops, and the requests they became. */
struct kvbench_batch_ctx {
	struct kvbench_op *ops;
	struct kvbench_req *reqs;
	int *slot;			/* ops[i] ran as reqs[slot[i]], or -1 */
	u8 *scratch;			/* keys, then small GET values */
};

/*
 * Most bytes of SET values one BATCH holds in kernel memory at once. A
 * batch of larger values runs in consecutive chunks, in array order, each
 * copied in just before it runs and released once it has: what a call
 * holds is bounded by this (or by one op, when a single value is larger),
 * not by the batch's size, even when every SET is then refused.
 */
#define KVBENCH_BATCH_HOLD	SZ_1M

/* Memory that user input sizes: charged to the caller, no warning. */
#define KVBENCH_GFP_SIZED	(GFP_KERNEL_ACCOUNT | __GFP_NOWARN)

/* Bytes of scratch op @o needs for its key and a small GET value. */
static size_t kvbench_scratch_size(const struct kvbench_op *o)
{
	size_t key = min_t(u32, o->kv.key_len, KVBENCH_KEY_MAX);

	switch (o->op) {
	case KVBENCH_OP_GET:
		return key + min_t(u32, o->kv.value_len, KVBENCH_GET_INLINE);
	case KVBENCH_OP_DEL:
		return key;
	}
	return 0;
}

/* Bytes op @o holds from its preparation until it has run. */
static size_t kvbench_hold_size(const struct kvbench_op *o)
{
	return o->op == KVBENCH_OP_SET ?
	       (size_t)o->kv.key_len + o->kv.value_len : 0;
}

static long kvbench_ioctl_batch(struct kvbench_batch __user *ubatch)
{
	struct kvbench_batch_ctx ctx = {};
	struct kvbench_op __user *uops;
	struct kvbench_batch batch;
	unsigned int i, j, end, n;
	size_t scratch = 0, held;
	u8 *p;
	long ret = 0;

	if (copy_from_user(&batch, ubatch, sizeof(batch)))
		return -EFAULT;
	if (batch.flags || !batch.count || batch.count > KVBENCH_BATCH_MAX)
		return -EINVAL;
	uops = u64_to_user_ptr(batch.ops);

	ctx.ops = kvmalloc_array(batch.count, sizeof(*ctx.ops) +
				 sizeof(*ctx.reqs) + sizeof(*ctx.slot),
				 KVBENCH_GFP_SIZED);
	if (!ctx.ops)
		return -ENOMEM;
	ctx.reqs = (struct kvbench_req *)(ctx.ops + batch.count);
	ctx.slot = (int *)(ctx.reqs + batch.count);

	if (copy_from_user(ctx.ops, uops, batch.count * sizeof(*ctx.ops))) {
		ret = -EFAULT;
		goto free_ops;
	}

	for (i = 0; i < batch.count; i++)
		scratch += kvbench_scratch_size(&ctx.ops[i]);
	if (scratch) {
		ctx.scratch = kvmalloc(scratch, KVBENCH_GFP_SIZED);
		if (!ctx.scratch) {
			ret = -ENOMEM;
			goto free_ops;
		}
	}

	p = ctx.scratch;
	for (i = 0; i < batch.count; i = end) {
		/* Prepare the ops [i, end) that fit in KVBENCH_BATCH_HOLD. */
		held = 0;
		n = 0;
		for (end = i; end < batch.count; end++) {
			struct kvbench_op *o = &ctx.ops[end];
			size_t key = min_t(u32, o->kv.key_len, KVBENCH_KEY_MAX);

			held += kvbench_hold_size(o);
			if (end > i && held > KVBENCH_BATCH_HOLD)
				break;
			o->result = kvbench_prepare(&ctx.reqs[n], o->op, &o->kv,
						    p, p + key);
			ctx.slot[end] = o->result ? -1 : n++;
			p += kvbench_scratch_size(o);
		}

		if (n)
			kvbench_run(ctx.reqs, n);

		for (j = i; j < end; j++) {
			struct kvbench_op *o = &ctx.ops[j];

			if (ctx.slot[j] >= 0)
				o->result = kvbench_complete(&ctx.reqs[ctx.slot[j]],
							     &o->kv,
							     &uops[j].kv.value_len);
			if (put_user(o->result, &uops[j].result))
				ret = -EFAULT;
		}
	}
	this_cpu_inc(kvbench_stats.batches);

	kvfree(ctx.scratch);
free_ops:
	kvfree(ctx.ops);
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
	}
	return -ENOIOCTLCMD;
}

static const struct file_operations kvbench_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= kvbench_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
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
	return misc_register(&kvbench_misc);
}

void kvbench_dev_unregister(void)
{
	misc_deregister(&kvbench_misc);
}
