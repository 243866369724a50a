// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench "kthread-percpu" backend: one owner thread per shard of the keys.
 *
 * The answer to "the owner is a single bottleneck": as many owners as there
 * were online CPUs when the map was created, each owning the keys whose
 * hash falls in its shard, with its own queue and a table no one else
 * touches. A request goes to the owner of its key. A BATCH is split by
 * shard, posted to every owner concerned at once, and completes when all of
 * them have answered; the ops of one key stay in array order because they
 * all go to the same owner, in order.
 *
 * The threads are not bound to CPUs: a shard belongs to a thread, and the
 * scheduler places the threads. A thread bound to a CPU that goes offline
 * would strand its shard; an unbound one just runs elsewhere.
 *
 * With as many owners as CPUs, an owner always shares its CPU with callers,
 * so the owners run at SCHED_FIFO priority 1: a woken owner answers at once
 * instead of waiting for the caller's time slice to end. Measured under
 * QEMU this doubled throughput at two threads (Documentation/results.rst);
 * the single "kthread" owner, which can have a CPU of its own, is faster
 * without it.
 */
#include <linux/cpumask.h>
#include <linux/slab.h>

#include "kvbench.h"

struct percpu_map {
	struct kvbench_backend base;
	unsigned int nr;
	struct kvbench_owner owners[];
};

static struct percpu_map *to_percpu_map(struct kvbench_backend *b)
{
	return container_of(b, struct percpu_map, base);
}

static unsigned int percpu_shard(const struct percpu_map *m, u32 hash)
{
	return reciprocal_scale(hash, m->nr);
}

static u32 percpu_req_hash(const struct kvbench_req *req)
{
	return req->op == KVBENCH_OP_SET ? req->item->hash : req->key.hash;
}

static struct kvbench_backend *percpu_create(const struct kvbench_params *p)
{
	unsigned int i, nr = num_online_cpus();
	struct percpu_map *m;
	int ret;

	m = kzalloc(struct_size(m, owners, nr), GFP_KERNEL);
	if (!m)
		return ERR_PTR(-ENOMEM);
	m->nr = nr;
	for (i = 0; i < nr; i++) {
		ret = kvbench_owner_start(&m->owners[i], p, i, true);
		if (ret)
			goto stop_owners;
	}
	return &m->base;

stop_owners:
	while (i--)
		kvbench_owner_free(&m->owners[i]);
	kfree(m);
	return ERR_PTR(ret);
}

static void percpu_destroy(struct kvbench_backend *b)
{
	struct percpu_map *m = to_percpu_map(b);
	unsigned int i;

	for (i = 0; i < m->nr; i++)
		kvbench_owner_free(&m->owners[i]);
	kfree(m);
}

static void percpu_one(struct kvbench_backend *b, struct kvbench_req *req)
{
	struct percpu_map *m = to_percpu_map(b);
	struct kvbench_owner_msg msg = { .head = req };
	struct kvbench_owner *o;

	o = &m->owners[percpu_shard(m, percpu_req_hash(req))];
	req->next = NULL;
	kvbench_owner_post(o, &msg);
	kvbench_owner_wait(o, &msg);
}

static void percpu_batch(struct kvbench_backend *b, struct kvbench_req *reqs,
			 unsigned int n)
{
	struct percpu_map *m = to_percpu_map(b);
	struct kvbench_owner_msg *msgs;
	struct kvbench_req **tails;
	unsigned int i, s;

	msgs = kcalloc(m->nr, sizeof(*msgs) + sizeof(*tails), GFP_KERNEL);
	if (!msgs) {
		/* No room to split: one request at a time still works. */
		for (i = 0; i < n; i++)
			percpu_one(b, &reqs[i]);
		return;
	}
	tails = (struct kvbench_req **)(msgs + m->nr);

	/* Chain each shard's requests in array order. */
	for (i = 0; i < n; i++) {
		s = percpu_shard(m, percpu_req_hash(&reqs[i]));
		reqs[i].next = NULL;
		if (tails[s])
			tails[s]->next = &reqs[i];
		else
			msgs[s].head = &reqs[i];
		tails[s] = &reqs[i];
	}
	for (s = 0; s < m->nr; s++)
		if (msgs[s].head)
			kvbench_owner_post(&m->owners[s], &msgs[s]);
	for (s = 0; s < m->nr; s++)
		if (msgs[s].head)
			kvbench_owner_wait(&m->owners[s], &msgs[s]);
	kfree(msgs);
}

static void percpu_drain(struct kvbench_backend *b,
			 void (*fn)(struct kvbench_item *item, void *arg),
			 void *arg)
{
	struct percpu_map *m = to_percpu_map(b);
	unsigned int i;

	for (i = 0; i < m->nr; i++)
		kvbench_owner_drain(&m->owners[i], fn, arg);
}

static void percpu_adopt(struct kvbench_backend *b, struct kvbench_item *item)
{
	struct percpu_map *m = to_percpu_map(b);

	kvbench_owner_adopt(&m->owners[percpu_shard(m, item->hash)], item);
}

static unsigned long percpu_stat(struct kvbench_backend *b,
				 enum kvbench_stat stat)
{
	struct percpu_map *m = to_percpu_map(b);
	unsigned long v, sum = 0;
	unsigned int i;

	for (i = 0; i < m->nr; i++) {
		v = kvbench_owner_stat(&m->owners[i], stat);
		if (stat == KVBENCH_STAT_QUEUE_HWM)
			sum = max(sum, v);
		else
			sum += v;
	}
	return sum;
}

static void percpu_reset_stats(struct kvbench_backend *b)
{
	struct percpu_map *m = to_percpu_map(b);
	unsigned int i;

	for (i = 0; i < m->nr; i++)
		kvbench_owner_reset_stats(&m->owners[i]);
}

const struct kvbench_backend_ops kvbench_kthread_percpu_ops = {
	.name		= "kthread-percpu",
	.create		= percpu_create,
	.destroy	= percpu_destroy,
	.get		= percpu_one,
	.set		= percpu_one,
	.del		= percpu_one,
	.batch		= percpu_batch,
	.drain		= percpu_drain,
	.adopt		= percpu_adopt,
	.stat		= percpu_stat,
	.reset_stats	= percpu_reset_stats,
};
