// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench "kthread" backend: one kernel thread owns the map.
 *
 * This is the channel design of the Go experiment done the kernel's way.
 * The owner thread is the only task that ever touches the table, so the
 * table needs no lock. A caller, whose key and value the core has already
 * copied into kernel memory, puts a message into a kfifo, makes sure the
 * owner is awake, and waits on a completion in the message; the owner takes
 * every queued message per wake-up, runs its requests and completes it.
 *
 * What costs is not the table but the hand-off: a sleep and a wake-up on
 * each side of every request. So both sides first spin for a short, bounded
 * time (kthread_spin_us) before they sleep, the producer skips the wake-up
 * when the owner is known to be awake, and a BATCH travels as one message.
 * An idle owner sleeps: it spins only right after it has done work.
 */
#include <linux/completion.h>
#include <linux/kfifo.h>
#include <linux/kthread.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/stat.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include "kvbench.h"

/* A caller's requests, on the caller's stack until ->done completes. */
struct owner_msg {
	struct kvbench_req *reqs;
	unsigned int n;
	struct completion done;
};

struct owner_map {
	struct kvbench_backend base;

	/* Serialises producers putting messages into ->fifo. */
	spinlock_t in_lock;
	/* Many producers under ->in_lock, one consumer (the owner) unlocked. */
	DECLARE_KFIFO_PTR(fifo, struct owner_msg *);
	/* Producers that found ->fifo full wait here for the owner to take. */
	wait_queue_head_t room;

	struct task_struct *owner;
	/*
	 * Set by the owner before it checks ->fifo one last time and sleeps;
	 * a producer that then sees it set wakes the owner. See
	 * owner_sleep() and owner_submit() for the barriers.
	 */
	bool idle;

	/* Owned by the owner thread (and by whoever stopped it). */
	struct kvbench_table table;

	/*
	 * Written by the owner; read by sysfs, zeroed by a stats reset (racy
	 * by design: a reset that races with a drain pass may be undone).
	 */
	unsigned long queue_hwm;
	unsigned long passes;
	unsigned long drained;
	/* Callers that found the queue full; only the slow path touches it. */
	atomic_long_t queue_full;
};

static unsigned int spin_us = 20;

static int owner_param_spin_us_set(const char *val,
				   const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, 1000);
}

static const struct kernel_param_ops owner_spin_us_param_ops = {
	.set = owner_param_spin_us_set,
	.get = param_get_uint,
};
module_param_cb(kthread_spin_us, &owner_spin_us_param_ops, &spin_us, 0644);
MODULE_PARM_DESC(kthread_spin_us,
		 "kthread backend: microseconds a caller or the owner spins before sleeping, 0..1000 (default 20)");

static struct owner_map *to_owner_map(struct kvbench_backend *b)
{
	return container_of(b, struct owner_map, base);
}

/*
 * Spin until @done() or for spin_us, whichever comes first, and only while
 * no other task wants this CPU: a waiter that spins while the task it waits
 * for (or one it just woke) sits in this CPU's run queue only delays it.
 */
static bool owner_spin(bool (*done)(void *arg), void *arg)
{
	u64 end = local_clock() + (u64)READ_ONCE(spin_us) * NSEC_PER_USEC;

	while (!done(arg)) {
		if (need_resched() || !single_task_running() ||
		    local_clock() >= end)
			return false;
		cpu_relax();
	}
	return true;
}

/* The owner: everything below runs only in the owner thread. */

static void owner_exec(struct owner_map *m, struct kvbench_req *req)
{
	struct kvbench_key key;
	struct kvbench_item *item;

	switch (req->op) {
	case KVBENCH_OP_GET:
		item = kvbench_table_find(&m->table, &req->key);
		req->result = item ? kvbench_get_fill(&req->get, item) :
				     -ENOENT;
		break;
	case KVBENCH_OP_SET:
		key = kvbench_item_key(req->item);
		item = kvbench_table_find(&m->table, &key);
		req->result = kvbench_charge(req->item, item);
		if (req->result)
			break;
		if (item) {
			hlist_add_before(&req->item->node, &item->node);
			hlist_del_init(&item->node);
			kvbench_item_put(item);
		} else {
			hlist_add_head(&req->item->node,
				       kvbench_table_bucket(&m->table, key.hash));
		}
		break;
	case KVBENCH_OP_DEL:
		item = kvbench_table_find(&m->table, &req->key);
		req->result = item ? 0 : -ENOENT;
		if (item) {
			hlist_del_init(&item->node);
			kvbench_uncharge(item);
			kvbench_item_put(item);
		}
		break;
	}
}

/* Answer every queued message; return how many there were. */
static unsigned long owner_drain_fifo(struct owner_map *m)
{
	struct owner_msg *msg;
	unsigned long n = 0;
	unsigned int i;

	if (kfifo_len(&m->fifo) > m->queue_hwm)
		WRITE_ONCE(m->queue_hwm, kfifo_len(&m->fifo));

	while (kfifo_get(&m->fifo, &msg)) {
		/* A slot is free: let a waiting producer in. */
		if (wq_has_sleeper(&m->room))
			wake_up(&m->room);
		for (i = 0; i < msg->n; i++)
			owner_exec(m, &msg->reqs[i]);
		/* @msg may be gone once completed. */
		complete(&msg->done);
		n++;
	}
	return n;
}

static bool owner_fifo_busy(void *arg)
{
	struct owner_map *m = arg;

	return !kfifo_is_empty(&m->fifo) || kthread_should_stop();
}

static void owner_sleep(struct owner_map *m)
{
	WRITE_ONCE(m->idle, true);
	/*
	 * set_current_state() orders the ->idle store before the fifo check
	 * below; pairs with the smp_mb() in owner_submit() between its
	 * kfifo_put() and its ->idle load. Either the producer sees ->idle
	 * and wakes us, or we see its message and do not sleep.
	 */
	set_current_state(TASK_IDLE);
	if (!owner_fifo_busy(m))
		schedule();
	__set_current_state(TASK_RUNNING);
	WRITE_ONCE(m->idle, false);
}

static int owner_thread(void *data)
{
	struct owner_map *m = data;
	unsigned long n;

	/* Stop only once every queued request has been answered. */
	while (!kthread_should_stop() || !kfifo_is_empty(&m->fifo)) {
		n = owner_drain_fifo(m);
		if (n) {
			WRITE_ONCE(m->passes, m->passes + 1);
			WRITE_ONCE(m->drained, m->drained + n);
			continue;
		}
		if (!owner_spin(owner_fifo_busy, m))
			owner_sleep(m);
	}
	return 0;
}

/* The callers */

static bool owner_try_put(struct owner_map *m, struct owner_msg *msg)
{
	bool ok;

	spin_lock(&m->in_lock);
	ok = kfifo_put(&m->fifo, msg);
	spin_unlock(&m->in_lock);
	return ok;
}

static bool owner_msg_done(void *arg)
{
	return completion_done(arg);
}

static void owner_submit(struct kvbench_backend *b, struct kvbench_req *reqs,
			 unsigned int n)
{
	struct owner_map *m = to_owner_map(b);
	struct owner_msg msg = { .reqs = reqs, .n = n };

	init_completion(&msg.done);

	/* A full queue is backpressure: wait for room, never drop. */
	if (!owner_try_put(m, &msg)) {
		atomic_long_inc(&m->queue_full);
		wait_event(m->room, owner_try_put(m, &msg));
	}

	/* Pairs with set_current_state() in owner_sleep(). */
	smp_mb();
	if (READ_ONCE(m->idle))
		wake_up_process(m->owner);

	/*
	 * The owner reads and writes @msg, on this stack, until it completes
	 * it: the wait cannot be interrupted.
	 */
	if (!owner_spin(owner_msg_done, &msg.done))
		wait_for_completion(&msg.done);
}

static void owner_one(struct kvbench_backend *b, struct kvbench_req *req)
{
	owner_submit(b, req, 1);
}

static struct kvbench_backend *owner_create(const struct kvbench_params *p)
{
	struct owner_map *m;
	int ret = -ENOMEM;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&m->in_lock);
	init_waitqueue_head(&m->room);
	if (kfifo_alloc(&m->fifo, p->queue_len, GFP_KERNEL))
		goto free_map;
	if (kvbench_table_init(&m->table, p->hash_bits))
		goto free_fifo;

	m->owner = kthread_create(owner_thread, m, "kvbench-owner");
	if (IS_ERR(m->owner)) {
		ret = PTR_ERR(m->owner);
		goto free_table;
	}
	sched_set_fifo_low(m->owner);
	wake_up_process(m->owner);
	return &m->base;

free_table:
	kvbench_table_free(&m->table);
free_fifo:
	kfifo_free(&m->fifo);
free_map:
	kfree(m);
	return ERR_PTR(ret);
}

/* Stop the owner once it has answered everything queued. */
static void owner_stop_owner(struct owner_map *m)
{
	if (m->owner) {
		kthread_stop(m->owner);
		m->owner = NULL;
	}
}

static void owner_destroy(struct kvbench_backend *b)
{
	struct owner_map *m = to_owner_map(b);

	owner_stop_owner(m);
	kvbench_table_free(&m->table);
	kfifo_free(&m->fifo);
	kfree(m);
}

static void owner_drain(struct kvbench_backend *b,
			void (*fn)(struct kvbench_item *item, void *arg),
			void *arg)
{
	struct owner_map *m = to_owner_map(b);

	/* kthread_stop() orders the owner's last table access before ours. */
	owner_stop_owner(m);
	kvbench_table_drain(&m->table, fn, arg);
}

static void owner_adopt(struct kvbench_backend *b, struct kvbench_item *item)
{
	struct owner_map *m = to_owner_map(b);

	/*
	 * No request is in flight, so the owner is not touching the table;
	 * the kthread_stop() or completion that ends the switch orders these
	 * stores before its next access.
	 */
	hlist_add_head(&item->node, kvbench_table_bucket(&m->table, item->hash));
}

static unsigned long owner_stat(struct kvbench_backend *b,
				enum kvbench_stat stat)
{
	struct owner_map *m = to_owner_map(b);
	unsigned long passes;

	switch (stat) {
	case KVBENCH_STAT_QUEUE_HWM:
		return READ_ONCE(m->queue_hwm);
	case KVBENCH_STAT_DRAIN_MEAN_X100:
		passes = READ_ONCE(m->passes);
		return passes ? READ_ONCE(m->drained) * 100 / passes : 0;
	case KVBENCH_STAT_QUEUE_FULL:
		return atomic_long_read(&m->queue_full);
	}
	return 0;
}

static void owner_reset_stats(struct kvbench_backend *b)
{
	struct owner_map *m = to_owner_map(b);

	WRITE_ONCE(m->queue_hwm, 0);
	WRITE_ONCE(m->passes, 0);
	atomic_long_set(&m->queue_full, 0);
	WRITE_ONCE(m->drained, 0);
}

const struct kvbench_backend_ops kvbench_kthread_ops = {
	.name		= "kthread",
	.create		= owner_create,
	.destroy	= owner_destroy,
	.get		= owner_one,
	.set		= owner_one,
	.del		= owner_one,
	.batch		= owner_submit,
	.drain		= owner_drain,
	.adopt		= owner_adopt,
	.stat		= owner_stat,
	.reset_stats	= owner_reset_stats,
};
