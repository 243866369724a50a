// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench core: the misc device /dev/kvbench, ioctl decoding, user copies,
 * validation, statistics, sysfs and the runtime backend switch. The limits
 * live in kvbench_limits.c.
 *
 * Every operation follows the same path:
 *
 *   copy in + validate      user memory, no lock held
 *   run on the backend      under switch_sem (read), backend's own locking
 *   copy out                user memory, no lock held
 *
 * so nothing that may fault or sleep ever runs under a backend's spinning
 * lock or inside an RCU read section.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/percpu-rwsem.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>

#include "kvbench.h"

#define KVBENCH_NAME_MAX	32

static const struct kvbench_backend_ops * const kvbench_backends[] = {
	&kvbench_rwlock_ops,
	&kvbench_rcu_ops,
	&kvbench_kthread_ops,
	&kvbench_kthread_percpu_ops,
	&kvbench_rhashtable_ops,
};

/*
 * Counters bumped on every operation: per CPU, summed when read. A GET bumps
 * one of hits or misses; "gets" is their sum.
 */
struct kvbench_stats {
	unsigned long hits;
	unsigned long misses;
	unsigned long sets;
	unsigned long dels;
	unsigned long batches;
};

static struct {
	/*
	 * Read side: held by every operation for as long as it uses
	 * ->backend. Write side: a backend switch, which so waits for the
	 * operations in flight and holds off new ones until the new backend
	 * is in place. Its read side only touches a per-CPU counter, so the
	 * GET path writes no cache line shared with other CPUs.
	 */
	struct percpu_rw_semaphore switch_sem;
	struct kvbench_backend *backend;	/* protected by switch_sem */

	struct kvbench_stats __percpu *stats;
	bool registered;
} kvbench;

/*
 * Serialises backend switches with each other and with module init and
 * exit. Protects kvbench_live and kvbench_backend_name, and kvbench.backend
 * against being replaced (switch_sem covers the operations in flight).
 */
static DEFINE_MUTEX(kvbench_switch_mutex);
static bool kvbench_live;
static char kvbench_backend_name[KVBENCH_NAME_MAX] = "rcu";

/* Module parameters */

static unsigned int hash_bits = 12;
static unsigned int queue_len = 256;
static unsigned int max_value_len = SZ_4K;

const struct kvbench_backend_ops *kvbench_find_backend(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kvbench_backends); i++)
		if (sysfs_streq(name, kvbench_backends[i]->name))
			return kvbench_backends[i];
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(kvbench_find_backend);

static void kvbench_list_backends(void)
{
	char names[ARRAY_SIZE(kvbench_backends) * KVBENCH_NAME_MAX] = "";
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kvbench_backends); i++) {
		strlcat(names, " ", sizeof(names));
		strlcat(names, kvbench_backends[i]->name, sizeof(names));
	}
	pr_err("valid backends:%s\n", names);
}

struct kvbench_backend *
kvbench_backend_create(const struct kvbench_backend_ops *ops,
		       const struct kvbench_params *p)
{
	struct kvbench_backend *b;

	b = ops->create(p);
	if (!IS_ERR(b)) {
		b->ops = ops;
		b->params = *p;
	}
	return b;
}
EXPORT_SYMBOL_IF_KUNIT(kvbench_backend_create);

/* The parameters a map created now gets. */
static void kvbench_params_now(struct kvbench_params *p)
{
	p->hash_bits = READ_ONCE(hash_bits);
	p->queue_len = READ_ONCE(queue_len);
	p->entries = kvbench_entries();
}

static struct kvbench_backend *
kvbench_create(const struct kvbench_backend_ops *ops)
{
	struct kvbench_params p;

	kvbench_params_now(&p);
	return kvbench_backend_create(ops, &p);
}

/* A switch in progress: where items go, and those that did not fit. */
struct kvbench_move {
	struct kvbench_backend *to;
	struct hlist_head refused;	/* linked through ->node */
	int err;
};

static void kvbench_move_cb(struct kvbench_item *item, void *arg)
{
	struct kvbench_move *mv = arg;
	int ret = mv->err ? mv->err : mv->to->ops->adopt(mv->to, item);

	/* The item is linked nowhere: keep it for the way back. */
	if (ret) {
		hlist_add_head(&item->node, &mv->refused);
		mv->err = ret;
	}
}

/*
 * Give the items of a switch that failed back to @to, the old map. Its
 * @adopt cannot fail: only a backend without parameters may refuse an
 * item, and such a backend is never replaced by its own kind.
 */
static void kvbench_move_back_cb(struct kvbench_item *item, void *arg)
{
	struct kvbench_backend *to = arg;

	WARN_ON_ONCE(to->ops->adopt(to, item));
}

static void kvbench_release_cb(struct kvbench_item *item, void *arg)
{
	kvbench_uncharge(item);
	kvbench_item_put(item);
}

/* Release every entry of a map nobody else uses any more, then the map. */
void kvbench_backend_destroy(struct kvbench_backend *b)
{
	b->ops->drain(b, kvbench_release_cb, NULL);
	b->ops->destroy(b);
}
EXPORT_SYMBOL_IF_KUNIT(kvbench_backend_destroy);

/* Would a map of @ops created now differ from @b? */
static bool kvbench_differs(const struct kvbench_backend *b,
			    const struct kvbench_backend_ops *ops)
{
	unsigned int used = ops->params;
	struct kvbench_params p;

	if (b->ops != ops)
		return true;
	kvbench_params_now(&p);
	return ((used & KVBENCH_PARAM_HASH_BITS) &&
		p.hash_bits != b->params.hash_bits) ||
	       ((used & KVBENCH_PARAM_QUEUE_LEN) &&
		p.queue_len != b->params.queue_len);
}

/*
 * Replace the backend by a new one of type @ops, carrying every entry over.
 * Operations in flight finish on the old backend; those that start meanwhile
 * wait on switch_sem and then run on the new one. Switching to the backend
 * in place rebuilds it only if a parameter it uses changed.
 *
 * Return: 0, or a negative errno with the old backend in place, holding
 * every entry it held.
 */
static int kvbench_switch(const struct kvbench_backend_ops *ops)
{
	struct kvbench_move mv = { .refused = HLIST_HEAD_INIT };
	struct kvbench_backend *old, *new;
	struct kvbench_item *item;
	struct hlist_node *tmp;

	lockdep_assert_held(&kvbench_switch_mutex);

	if (!kvbench_differs(kvbench.backend, ops))
		return 0;
	new = kvbench_create(ops);
	if (IS_ERR(new))
		return PTR_ERR(new);

	percpu_down_write(&kvbench.switch_sem);
	old = kvbench.backend;
	mv.to = new;
	old->ops->drain(old, kvbench_move_cb, &mv);
	if (mv.err) {
		new->ops->drain(new, kvbench_move_back_cb, old);
		hlist_for_each_entry_safe(item, tmp, &mv.refused, node) {
			hlist_del_init(&item->node);
			kvbench_move_back_cb(item, old);
		}
		swap(old, new);
	}
	kvbench.backend = new;
	percpu_up_write(&kvbench.switch_sem);

	old->ops->destroy(old);
	if (mv.err)
		return mv.err;
	strscpy(kvbench_backend_name, ops->name, sizeof(kvbench_backend_name));
	return 0;
}

int kvbench_switch_by_name(const char *name)
{
	const struct kvbench_backend_ops *ops = kvbench_find_backend(name);
	int ret;

	if (!ops)
		return -EINVAL;

	mutex_lock(&kvbench_switch_mutex);
	if (kvbench_live)
		ret = kvbench_switch(ops);
	else
		ret = strscpy(kvbench_backend_name, ops->name,
			      sizeof(kvbench_backend_name)) < 0 ? -EINVAL : 0;
	mutex_unlock(&kvbench_switch_mutex);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kvbench_switch_by_name);

static int kvbench_param_backend_set(const char *val,
				     const struct kernel_param *kp)
{
	int ret = kvbench_switch_by_name(val);

	/* Only the administrator loading the module gets a hint. */
	if (ret == -EINVAL && !READ_ONCE(kvbench_live)) {
		pr_err("unknown backend '%s'\n", val);
		kvbench_list_backends();
	}
	return ret;
}

static int kvbench_param_backend_get(char *buf, const struct kernel_param *kp)
{
	int ret;

	mutex_lock(&kvbench_switch_mutex);
	ret = sysfs_emit(buf, "%s\n", kvbench_backend_name);
	mutex_unlock(&kvbench_switch_mutex);
	return ret;
}

static const struct kernel_param_ops kvbench_backend_param_ops = {
	.set = kvbench_param_backend_set,
	.get = kvbench_param_backend_get,
};
module_param_cb(backend, &kvbench_backend_param_ops, NULL, 0644);
MODULE_PARM_DESC(backend,
		 "Concurrency backend: rwlock, rcu (default), kthread, kthread-percpu or rhashtable");

static int kvbench_param_hash_bits_set(const char *val,
				       const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, 20);
}

static const struct kernel_param_ops kvbench_hash_bits_param_ops = {
	.set = kvbench_param_hash_bits_set,
	.get = param_get_uint,
};
module_param_cb(hash_bits, &kvbench_hash_bits_param_ops, &hash_bits, 0644);
MODULE_PARM_DESC(hash_bits,
		 "log2 of the bucket count of hashtable backends, 1..20 (default 12); applies when a backend is created");

static int kvbench_param_queue_len_set(const char *val,
				       const struct kernel_param *kp)
{
	unsigned int n;
	int ret = kstrtouint(val, 0, &n);

	if (ret)
		return ret;
	if (n < 2 || n > 65536 || !is_power_of_2(n))
		return -EINVAL;
	WRITE_ONCE(queue_len, n);
	return 0;
}

static const struct kernel_param_ops kvbench_queue_len_param_ops = {
	.set = kvbench_param_queue_len_set,
	.get = param_get_uint,
};
module_param_cb(queue_len, &kvbench_queue_len_param_ops, &queue_len, 0644);
MODULE_PARM_DESC(queue_len,
		 "Request queue slots of each owner thread of the kthread backends, a power of two 2..65536 (default 256); applies when a backend is created");

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

/* Requests */

/*
 * Validate one user op and copy what it needs into kernel memory: the key
 * into @keybuf (GET, DEL) or a new item (SET). @valbuf takes a GET's value
 * when it is small. Runs with no lock held.
 */
static int kvbench_prepare(struct kvbench_req *req, u32 op,
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

static void kvbench_run_one(struct kvbench_backend *b, struct kvbench_req *req)
{
	switch (req->op) {
	case KVBENCH_OP_GET:
		b->ops->get(b, req);
		break;
	case KVBENCH_OP_SET:
		b->ops->set(b, req);
		break;
	case KVBENCH_OP_DEL:
		b->ops->del(b, req);
		break;
	}
}

/* Run prepared requests, in order, on @b. */
void kvbench_backend_run(struct kvbench_backend *b, struct kvbench_req *reqs,
			 unsigned int n)
{
	unsigned int i;

	if (n > 1 && b->ops->batch) {
		b->ops->batch(b, reqs, n);
		return;
	}
	for (i = 0; i < n; i++)
		kvbench_run_one(b, &reqs[i]);
}
EXPORT_SYMBOL_IF_KUNIT(kvbench_backend_run);

/* Run prepared requests, in order, on the current backend. */
void kvbench_run(struct kvbench_req *reqs, unsigned int n)
{
	percpu_down_read(&kvbench.switch_sem);
	kvbench_backend_run(kvbench.backend, reqs, n);
	percpu_up_read(&kvbench.switch_sem);
}
EXPORT_SYMBOL_IF_KUNIT(kvbench_run);

static void kvbench_count(const struct kvbench_req *req)
{
	switch (req->op) {
	case KVBENCH_OP_GET:
		if (req->result == -ENOENT)
			this_cpu_inc(kvbench.stats->misses);
		else
			this_cpu_inc(kvbench.stats->hits);
		break;
	case KVBENCH_OP_SET:
		this_cpu_inc(kvbench.stats->sets);
		break;
	case KVBENCH_OP_DEL:
		this_cpu_inc(kvbench.stats->dels);
		break;
	}
}

/*
 * Finish a request that ran: copy a GET's value and length to user memory,
 * release what the request still holds. Runs with no lock held.
 */
static int kvbench_complete(struct kvbench_req *req,
			    const struct kvbench_kv *kv, __u32 __user *ulen)
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

/* ioctls */

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
	this_cpu_inc(kvbench.stats->batches);

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

/* sysfs: /sys/class/misc/kvbench/ */

static ssize_t backend_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return kvbench_param_backend_get(buf, NULL);
}

static ssize_t backend_store(struct device *dev, struct device_attribute *attr,
			     const char *buf, size_t count)
{
	int ret = kvbench_switch_by_name(buf);

	return ret ? ret : count;
}
static DEVICE_ATTR_RW(backend);

static ssize_t entries_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%lu\n", kvbench_entries());
}
static DEVICE_ATTR_RO(entries);

static ssize_t bytes_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%lu\n", kvbench_bytes());
}
static DEVICE_ATTR_RO(bytes);

static unsigned long kvbench_stat_sum(size_t offset)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*(unsigned long *)
				 ((char *)per_cpu_ptr(kvbench.stats, cpu) +
				  offset));
	return sum;
}

/* The per-CPU counters: each file's ->var is its offset in kvbench_stats. */
static ssize_t kvbench_stat_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	size_t offset = (size_t)container_of(attr, struct dev_ext_attribute,
					     attr)->var;

	return sysfs_emit(buf, "%lu\n", kvbench_stat_sum(offset));
}

static ssize_t gets_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%lu\n",
			  kvbench_stat_sum(offsetof(struct kvbench_stats, hits)) +
			  kvbench_stat_sum(offsetof(struct kvbench_stats, misses)));
}
static DEVICE_ATTR_RO(gets);

static struct dev_ext_attribute dev_attr_hits = {
	__ATTR(hits, 0444, kvbench_stat_show, NULL),
	(void *)offsetof(struct kvbench_stats, hits)
};

static struct dev_ext_attribute dev_attr_misses = {
	__ATTR(misses, 0444, kvbench_stat_show, NULL),
	(void *)offsetof(struct kvbench_stats, misses)
};

static struct dev_ext_attribute dev_attr_sets = {
	__ATTR(sets, 0444, kvbench_stat_show, NULL),
	(void *)offsetof(struct kvbench_stats, sets)
};

static struct dev_ext_attribute dev_attr_dels = {
	__ATTR(dels, 0444, kvbench_stat_show, NULL),
	(void *)offsetof(struct kvbench_stats, dels)
};

static struct dev_ext_attribute dev_attr_batches = {
	__ATTR(batches, 0444, kvbench_stat_show, NULL),
	(void *)offsetof(struct kvbench_stats, batches)
};

/* A statistic of the current backend, 0 if it does not keep it. */
static unsigned long kvbench_backend_stat_locked(enum kvbench_stat stat)
{
	struct kvbench_backend *b = kvbench.backend;

	lockdep_assert_held(&kvbench_switch_mutex);
	return b && b->ops->stat ? b->ops->stat(b, stat) : 0;
}

static unsigned long kvbench_backend_stat(enum kvbench_stat stat)
{
	unsigned long val;

	mutex_lock(&kvbench_switch_mutex);
	val = kvbench_backend_stat_locked(stat);
	mutex_unlock(&kvbench_switch_mutex);
	return val;
}

static ssize_t queue_hwm_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lu\n",
			  kvbench_backend_stat(KVBENCH_STAT_QUEUE_HWM));
}
static DEVICE_ATTR_RO(queue_hwm);

static ssize_t drain_mean_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	unsigned long passes, drained, x100 = 0;

	mutex_lock(&kvbench_switch_mutex);
	passes = kvbench_backend_stat_locked(KVBENCH_STAT_DRAIN_PASSES);
	drained = kvbench_backend_stat_locked(KVBENCH_STAT_DRAINED);
	mutex_unlock(&kvbench_switch_mutex);
	if (passes)
		x100 = drained * 100 / passes;
	return sysfs_emit(buf, "%lu.%02lu\n", x100 / 100, x100 % 100);
}
static DEVICE_ATTR_RO(drain_mean);

static ssize_t queue_full_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lu\n",
			  kvbench_backend_stat(KVBENCH_STAT_QUEUE_FULL));
}
static DEVICE_ATTR_RO(queue_full);

static ssize_t reset_store(struct device *dev, struct device_attribute *attr,
			   const char *buf, size_t count)
{
	struct kvbench_backend *b;
	struct kvbench_stats *st;
	int cpu;

	if (!sysfs_streq(buf, "1"))
		return -EINVAL;
	/*
	 * The counters are live: each is one word, stored whole. An
	 * increment racing with this may survive it; that is all.
	 */
	for_each_possible_cpu(cpu) {
		st = per_cpu_ptr(kvbench.stats, cpu);
		WRITE_ONCE(st->hits, 0);
		WRITE_ONCE(st->misses, 0);
		WRITE_ONCE(st->sets, 0);
		WRITE_ONCE(st->dels, 0);
		WRITE_ONCE(st->batches, 0);
	}

	mutex_lock(&kvbench_switch_mutex);
	b = kvbench.backend;
	if (b && b->ops->reset_stats)
		b->ops->reset_stats(b);
	mutex_unlock(&kvbench_switch_mutex);
	return count;
}
static DEVICE_ATTR_WO(reset);

static struct attribute *kvbench_attrs[] = {
	&dev_attr_backend.attr,
	&dev_attr_entries.attr,
	&dev_attr_bytes.attr,
	&dev_attr_gets.attr,
	&dev_attr_hits.attr.attr,
	&dev_attr_misses.attr.attr,
	&dev_attr_sets.attr.attr,
	&dev_attr_dels.attr.attr,
	&dev_attr_batches.attr.attr,
	&dev_attr_queue_hwm.attr,
	&dev_attr_drain_mean.attr,
	&dev_attr_queue_full.attr,
	&dev_attr_reset.attr,
	NULL,
};
ATTRIBUTE_GROUPS(kvbench);

static struct miscdevice kvbench_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "kvbench",
	.fops	= &kvbench_fops,
	.mode	= 0600,
	.groups	= kvbench_groups,
};

/* Undo whatever part of kvbench_init() was done; idempotent. */
static void kvbench_cleanup(void)
{
	struct kvbench_backend *b;

	if (kvbench.registered) {
		misc_deregister(&kvbench_misc);
		kvbench.registered = false;
	}

	mutex_lock(&kvbench_switch_mutex);
	kvbench_live = false;
	b = kvbench.backend;
	kvbench.backend = NULL;
	mutex_unlock(&kvbench_switch_mutex);

	/* No file is open and sysfs is gone: nothing else uses @b. */
	if (b) {
		b->ops->drain(b, kvbench_release_cb, NULL);
		b->ops->destroy(b);
	}
	/* Wait for kvbench_item_put_rcu() callbacks: they call our code. */
	rcu_barrier();

	percpu_free_rwsem(&kvbench.switch_sem);
	free_percpu(kvbench.stats);
	kvbench.stats = NULL;
}

static int __init kvbench_init(void)
{
	const struct kvbench_backend_ops *ops;
	struct kvbench_backend *b;
	int ret;

	kvbench_hash_init();

	kvbench.stats = alloc_percpu(struct kvbench_stats);
	if (!kvbench.stats)
		return -ENOMEM;
	ret = percpu_init_rwsem(&kvbench.switch_sem);
	if (ret)
		goto cleanup;

	mutex_lock(&kvbench_switch_mutex);
	ops = kvbench_find_backend(kvbench_backend_name);
	b = ops ? kvbench_create(ops) : ERR_PTR(-EINVAL);
	if (!IS_ERR(b)) {
		kvbench.backend = b;
		kvbench_live = true;
	}
	mutex_unlock(&kvbench_switch_mutex);
	if (IS_ERR(b)) {
		ret = PTR_ERR(b);
		goto cleanup;
	}

	ret = misc_register(&kvbench_misc);
	if (ret)
		goto cleanup;
	kvbench.registered = true;
	return 0;

cleanup:
	kvbench_cleanup();
	return ret;
}

static void __exit kvbench_exit(void)
{
	kvbench_cleanup();
}

module_init(kvbench_init);
module_exit(kvbench_exit);

MODULE_DESCRIPTION("Key-value map behind interchangeable concurrency backends");
MODULE_LICENSE("GPL");
MODULE_VERSION(KVBENCH_VERSION);
