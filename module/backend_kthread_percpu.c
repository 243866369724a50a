// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench "kthread-percpu" backend: one owner thread per shard of the keys.
 *
 * The answer to "the owner is a single bottleneck": several owners, each
 * owning the keys whose hash falls in its shard, with its own request
 * lines, queue and a table no one else touches. A request goes to the
 * owner of its key: on the owner's line for the caller's CPU, without a
 * lock, or through the queue when another caller on that CPU holds the
 * line (kvbench_owner.c). A BATCH goes, in array order, as one message per
 * run of consecutive ops on one shard (see percpu_batch()).
 *
 * How many owners: the owners parameter, by default one per
 * KVBENCH_CPUS_PER_OWNER online CPUs when the map is created (1 on 2 CPUs,
 * 16 on 128). An owner answers a request in far less time than a caller
 * takes to make one (a system call, a copy), so one owner keeps up with
 * several callers, as ffwd's servers do (Roghanchi et al., SOSP 2017); and
 * every owner that has a CPU of its own is a CPU the callers do not have.
 * Where the owners run: the owner_cpus parameter (kvbench_owner.c), by
 * default anywhere.
 *
 * The threads are not bound to CPUs unless owner_cpus says so, and even
 * then not one each: the scheduler places them, so CPU hotplug needs no
 * handling.
 *
 * With at least as many owners as online CPUs, an owner always shares its
 * CPU with callers, so the owners run at SCHED_FIFO priority 1: a woken
 * owner answers at once instead of waiting for the caller's time slice to
 * end. Measured under QEMU this doubled throughput at two threads
 * (Documentation/results.rst). Fewer owners run as normal tasks, as the
 * single "kthread" owner does: one that can have a CPU of its own is faster
 * so (kvbench_owner.c, owner_spin()).
 */
#include <linux/cpumask.h>
#include <linux/slab.h>

#include "kvbench_backend.h"
#include "kvbench_backends.h"

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

static struct kvbench_backend *percpu_create(const struct kvbench_params *p)
{
	unsigned int i, cpus = num_online_cpus();
	unsigned int nr = p->owners ?: DIV_ROUND_UP(cpus,
						    KVBENCH_CPUS_PER_OWNER);
	unsigned int flags = KVBENCH_OWNER_LINES;
	struct percpu_map *m;
	int ret;

	if (nr >= cpus)
		flags |= KVBENCH_OWNER_RT;
	/*
	 * Sized by the owners parameter: about 300 KB at 1024 owners, a
	 * high-order allocation that may fail, or fall back to vmalloc. Its
	 * failure is the switch's ENOMEM, not a splat.
	 */
	m = kvzalloc(struct_size(m, owners, nr), GFP_KERNEL | __GFP_NOWARN);
	if (!m)
		return ERR_PTR(-ENOMEM);
	m->nr = nr;
	for (i = 0; i < nr; i++) {
		ret = kvbench_owner_start(&m->owners[i], p, i, flags);
		if (ret)
			goto stop_owners;
	}
	return &m->base;

stop_owners:
	while (i--)
		kvbench_owner_free(&m->owners[i]);
	kvfree(m);
	return ERR_PTR(ret);
}

static void percpu_destroy(struct kvbench_backend *b)
{
	struct percpu_map *m = to_percpu_map(b);
	unsigned int i;

	for (i = 0; i < m->nr; i++)
		kvbench_owner_free(&m->owners[i]);
	kvfree(m);
}

static unsigned int percpu_req_shard(const struct percpu_map *m,
				     const struct kvbench_req *req)
{
	return percpu_shard(m, req->op == KVBENCH_OP_SET ? req->item->hash :
							   req->key.hash);
}

/*
 * Run @reqs[0..@n), chained through ->next, on the owner of shard @s and
 * wait for the answer. Return: 0, or -EINTR with none of them run.
 */
static int percpu_run(struct percpu_map *m, unsigned int s,
		      struct kvbench_req *reqs)
{
	struct kvbench_owner_msg msg = { .base.head = reqs };
	int ret;

	ret = kvbench_owner_post(&m->owners[s], &msg);
	if (!ret)
		kvbench_owner_wait(&m->owners[s], &msg);
	return ret;
}

static void percpu_one(struct kvbench_backend *b, struct kvbench_req *req)
{
	struct percpu_map *m = to_percpu_map(b);
	int ret;

	req->next = NULL;
	ret = percpu_run(m, percpu_req_shard(m, req), req);
	if (ret)
		req->result = ret;
}

/* An io_uring command: queued to its key's owner, answered by it. */
static int percpu_submit(struct kvbench_backend *b, struct kvbench_msg *msg)
{
	struct percpu_map *m = to_percpu_map(b);

	msg->head->next = NULL;
	return kvbench_owner_submit(&m->owners[percpu_req_shard(m, msg->head)],
				    kvbench_owner_msg_of(msg));
}

/*
 * A BATCH runs in array order, as the single ioctls would: as consecutive
 * runs of ops whose keys one shard owns, each run one message, answered
 * before the next is posted. Shards do not run parts of a batch side by
 * side: ops on different keys still meet, in max_entries and max_bytes and
 * in what another caller sees between two of them, and only array order
 * gives the answers of the single ioctls.
 */
static void percpu_batch(struct kvbench_backend *b, struct kvbench_req *reqs,
			 unsigned int n)
{
	struct percpu_map *m = to_percpu_map(b);
	unsigned int i, end, s;
	int ret;

	for (i = 0; i < n; i = end) {
		s = percpu_req_shard(m, &reqs[i]);
		for (end = i + 1; end < n && percpu_req_shard(m, &reqs[end]) == s;
		     end++)
			reqs[end - 1].next = &reqs[end];
		reqs[end - 1].next = NULL;
		ret = percpu_run(m, s, &reqs[i]);
		if (ret) {
			for (; i < n; i++)
				reqs[i].result = ret;
			return;
		}
	}
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

static int percpu_adopt(struct kvbench_backend *b, struct kvbench_item *item)
{
	struct percpu_map *m = to_percpu_map(b);

	kvbench_owner_adopt(&m->owners[percpu_shard(m, item->hash)], item);
	return 0;
}

static void percpu_adopted(struct kvbench_backend *b)
{
	struct percpu_map *m = to_percpu_map(b);
	unsigned int i;

	for (i = 0; i < m->nr; i++)
		kvbench_owner_adopted(&m->owners[i]);
}

static unsigned long percpu_stat(struct kvbench_backend *b,
				 enum kvbench_stat stat)
{
	struct percpu_map *m = to_percpu_map(b);
	unsigned long v, sum = 0;
	unsigned int i;

	for (i = 0; i < m->nr; i++) {
		v = kvbench_owner_stat(&m->owners[i], stat);
		if (stat == KVBENCH_STAT_QUEUE_HWM ||
		    stat == KVBENCH_STAT_LONGEST_CHAIN)
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
	.params		= KVBENCH_PARAM_HASH_BITS | KVBENCH_PARAM_QUEUE_LEN |
			  KVBENCH_PARAM_OWNERS,
	.create		= percpu_create,
	.destroy	= percpu_destroy,
	.get		= percpu_one,
	.set		= percpu_one,
	.del		= percpu_one,
	.batch		= percpu_batch,
	.drain		= percpu_drain,
	.adopt		= percpu_adopt,
	.adopted	= percpu_adopted,
	.stat		= percpu_stat,
	.reset_stats	= percpu_reset_stats,
	.submit		= percpu_submit,
};
