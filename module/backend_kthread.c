// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench "kthread" backend: one kernel thread owns the map.
 *
 * The channel design of the Go experiment done the kernel's way: every
 * request, or every BATCH as one message, is queued to a single owner
 * thread (kvbench_owner.c) that alone touches the table.
 */
#include <linux/slab.h>

#include "kvbench_backend.h"
#include "kvbench_backends.h"

struct kthread_map {
	struct kvbench_backend base;
	struct kvbench_owner owner;
};

static struct kthread_map *to_kthread_map(struct kvbench_backend *b)
{
	return container_of(b, struct kthread_map, base);
}

static struct kvbench_backend *kthread_map_create(const struct kvbench_params *p)
{
	struct kthread_map *m;
	int ret;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return ERR_PTR(-ENOMEM);
	ret = kvbench_owner_start(&m->owner, p, -1, 0);
	if (ret) {
		kfree(m);
		return ERR_PTR(ret);
	}
	return &m->base;
}

static void kthread_map_destroy(struct kvbench_backend *b)
{
	struct kthread_map *m = to_kthread_map(b);

	kvbench_owner_free(&m->owner);
	kfree(m);
}

static void kthread_map_batch(struct kvbench_backend *b,
			      struct kvbench_req *reqs, unsigned int n)
{
	struct kvbench_owner *o = &to_kthread_map(b)->owner;
	struct kvbench_owner_msg msg = { .base.head = reqs };
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++)
		reqs[i].next = i + 1 < n ? &reqs[i + 1] : NULL;
	ret = kvbench_owner_post(o, &msg);
	if (ret) {
		for (i = 0; i < n; i++)
			reqs[i].result = ret;
		return;
	}
	kvbench_owner_wait(o, &msg);
}

static void kthread_map_one(struct kvbench_backend *b, struct kvbench_req *req)
{
	kthread_map_batch(b, req, 1);
}

/* An io_uring command: queued, answered through msg->answered. */
static int kthread_map_submit(struct kvbench_backend *b,
			      struct kvbench_msg *msg)
{
	msg->head->next = NULL;
	return kvbench_owner_submit(&to_kthread_map(b)->owner,
				    kvbench_owner_msg_of(msg));
}

static void kthread_map_drain(struct kvbench_backend *b,
			      void (*fn)(struct kvbench_item *item, void *arg),
			      void *arg)
{
	kvbench_owner_drain(&to_kthread_map(b)->owner, fn, arg);
}

static int kthread_map_adopt(struct kvbench_backend *b,
			     struct kvbench_item *item)
{
	kvbench_owner_adopt(&to_kthread_map(b)->owner, item);
	return 0;
}

static void kthread_map_adopted(struct kvbench_backend *b)
{
	kvbench_owner_adopted(&to_kthread_map(b)->owner);
}

static unsigned long kthread_map_stat(struct kvbench_backend *b,
				      enum kvbench_stat stat)
{
	return kvbench_owner_stat(&to_kthread_map(b)->owner, stat);
}

static void kthread_map_reset_stats(struct kvbench_backend *b)
{
	kvbench_owner_reset_stats(&to_kthread_map(b)->owner);
}

const struct kvbench_backend_ops kvbench_kthread_ops = {
	.name		= "kthread",
	.params		= KVBENCH_PARAM_HASH_BITS | KVBENCH_PARAM_QUEUE_LEN,
	.create		= kthread_map_create,
	.destroy	= kthread_map_destroy,
	.get		= kthread_map_one,
	.set		= kthread_map_one,
	.del		= kthread_map_one,
	.batch		= kthread_map_batch,
	.drain		= kthread_map_drain,
	.adopt		= kthread_map_adopt,
	.adopted	= kthread_map_adopted,
	.stat		= kthread_map_stat,
	.reset_stats	= kthread_map_reset_stats,
	.submit		= kthread_map_submit,
};
