// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench "combining" backend: ownership that moves to a caller.
 *
 * Flat combining (Hendler, Incze, Shavit, Tzafrir, SPAA 2010) and
 * CC-Synch (Fatourou, Kallimanis, PPoPP 2012): the table has one owner at
 * a time, as in the "kthread" backend, but the owner is not a thread to
 * wake. A caller that finds the table free takes the combiner role, runs
 * its own requests, then every message other callers published meanwhile,
 * and leaves. A caller that finds it taken publishes its message on a
 * lock-free list and spins on its own message's state word, which only it
 * and the combiner write; after a bounded spin it says it sleeps and
 * sleeps, and only then does the combiner wake it. Without contention a
 * request costs two atomic operations on the role word; with contention,
 * one combiner answers many callers in one pass, each from the cache line
 * of its own message.
 *
 * The role is an atomic word, not a lock a task owns, because it moves:
 * a combiner that has run KVBENCH_COMB_PASS requests hands it, with what
 * is left of the pass, to the caller of the oldest message left (or, for
 * an io_uring command, which has no caller waiting, to a work item) instead
 * of serving on for ever. A SCHED_IDLE task never holds it
 * (comb_may_hold()). The table is the role holder's alone, so it needs no
 * lock; the combiner may sleep (freeing an item may), and offers its CPU
 * after every request, as an owner thread does, saying also that it
 * passed an RCU-Tasks quiescent state (cond_resched_tasks_rcu_qs(), see
 * owner_yield()): the work item that serves io_uring commands may run
 * pass after pass without a sleep.
 */
#include <linux/atomic.h>
#include <linux/llist.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/stat.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "kvbench_backend.h"
#include "kvbench_backends.h"

/* This file creates its own trace event (not with KVBENCH_TRACE=0). */
#ifndef KVBENCH_NO_TRACE
#define CREATE_TRACE_POINTS
#endif
#include "backend_combining_trace.h"

/* Requests a combiner runs before it hands the role on. */
#define KVBENCH_COMB_PASS	256

/* A message's ->state: written by its caller and by the combiner. */
enum {
	COMB_WAITING,		/* published, its caller spins */
	COMB_SLEEPING,		/* its caller sleeps: the combiner wakes it */
	COMB_DONE,		/* answered: the caller may go */
	COMB_COMBINE,		/* its caller is the combiner now */
};

/* A combining map's statistics, per CPU: comb_map.stats[COMB_...]. */
enum {
	COMB_PASSES,		/* combiner passes */
	COMB_MSGS,		/* messages answered in them */
	COMB_REQS,		/* requests */
	COMB_HANDOFFS,		/* times the role went to a waiting caller */
	COMB_SLEEPS,		/* times a caller slept for its answer */
	COMB_NR_STATS,
};

/**
 * struct comb_msg - a message published to a "combining" map
 * @base:	the requests; ->answered for an io_uring command, which has
 *		no caller waiting
 * @node:	on the map's list of published messages, then its backlog
 * @state:	how the answer reaches a caller that waits (COMB_WAITING
 *		...): written by it and by the combiner
 * @task:	the caller waiting for it, NULL with @base.answered
 *
 * Lives with its caller, on its stack, until it is answered; an io_uring
 * command's lives in the core's union kvbench_msg_room until ->answered.
 */
struct comb_msg {
	struct kvbench_msg base;
	struct llist_node node;
	atomic_t state;
	struct task_struct *task;
};

static_assert(sizeof(struct comb_msg) <= sizeof(union kvbench_msg_room));

struct comb_stats {
	unsigned long v[COMB_NR_STATS];
};

struct comb_map {
	struct kvbench_backend base;
	/* The combiner role: 1 while someone holds it. */
	atomic_t busy;
	/* Published messages, newest first. */
	struct llist_head pending;
	/* The role holder's: messages taken, not answered, oldest first. */
	struct llist_node *backlog;
	/* The role holder's alone. */
	struct kvbench_table table;
	/* Runs a pass for io_uring commands that nobody waits for. */
	struct work_struct work;
	/* How long callers spin before they sleep (kvbench_spin_next()). */
	u32 spin_ns;
	struct comb_stats __percpu *stats;
	struct comb_stats base_stats;	/* at the last reset */
};

static struct comb_map *to_comb_map(struct kvbench_backend *b)
{
	return container_of(b, struct comb_map, base);
}

static void comb_count(struct comb_map *m, int stat, unsigned long n)
{
	this_cpu_add(m->stats->v[stat], n);
}

static bool comb_trylock(struct comb_map *m)
{
	int old = 0;

	/* Acquire: pairs with the release in comb_unlock_or_retake(). */
	return !atomic_read(&m->busy) &&
	       atomic_try_cmpxchg_acquire(&m->busy, &old, 1);
}

/*
 * Give the role up, then look whether a message came in meanwhile: its
 * caller may have seen the role held and gone to sleep. Returns true when
 * we took the role back to serve it.
 */
static bool comb_unlock_or_retake(struct comb_map *m)
{
	/* Release: the table and the answers come before. */
	atomic_set_release(&m->busy, 0);
	/*
	 * Pairs with the full barriers between a caller's llist_add() and its
	 * read of ->busy in comb_sleep() (set_current_state() and the
	 * cmpxchg): either it sees the role free and takes it, or we see its
	 * message here. The same for comb_submit()'s second comb_trylock().
	 */
	smp_mb();
	return !llist_empty(&m->pending) && comb_trylock(m);
}

/*
 * Tell @msg's caller it is answered (COMB_DONE) or the combiner
 * (COMB_COMBINE). A spinning caller sees the state change; a sleeping one
 * (it set COMB_SLEEPING, and does not leave before the change) is woken.
 * After the change the caller may return and its stack be gone: a waker
 * holds a reference to the task, not to the message.
 */
static void comb_tell(struct comb_msg *msg, int state)
{
	struct task_struct *task;

	/* Full barrier: the answers come before, as with release. */
	if (atomic_cmpxchg(&msg->state, COMB_WAITING, state) ==
	    COMB_WAITING)
		return;
	/* COMB_SLEEPING: the caller waits until we change it. */
	task = msg->task;
	get_task_struct(task);
	/* Pairs with the acquire in comb_wait(). */
	atomic_set_release(&msg->state, state);
	wake_up_process(task);
	put_task_struct(task);
}

/*
 * May @task hold the role? Not a SCHED_IDLE task: it runs only when no
 * other task wants its CPU, and every caller waits for the holder (an
 * idle caller beside busy normal tasks held it for seconds). Its messages
 * are served by the next combiner or by the work item, which it hands the
 * role to when it finds the role free (comb_serve()). The policy is read
 * without a lock: one that changes meanwhile only decides this time.
 */
static bool comb_may_hold(struct task_struct *task)
{
	return READ_ONCE(task->policy) != SCHED_IDLE;
}

static void comb_answer(struct comb_msg *msg)
{
	if (msg->base.answered)
		msg->base.answered(&msg->base);
	else
		comb_tell(msg, COMB_DONE);
}

/* When a pass starts, for its kvbench_comb_pass event; 0 with it off. */
static u64 comb_start(void)
{
	return trace_kvbench_comb_pass_enabled() ? local_clock() : 0;
}

/*
 * The role holder's work, having run @msgs messages of @reqs requests
 * since @start (comb_start()): answer the backlog, taking what was published
 * when it runs out, until KVBENCH_COMB_PASS requests are done; then hand
 * the role, with the backlog, on (comb_handoff()). Returns with the role
 * given up or handed on.
 */
static int comb_handoff(struct comb_map *m);

static void comb_pass(struct comb_map *m, unsigned long msgs,
		      unsigned long reqs, u64 start)
{
	int ended = KVBENCH_COMB_RELEASED;
	struct comb_msg *msg;
	struct kvbench_req *req;

	for (;;) {
		/* Look before the xchg: alone, a pass writes nothing shared. */
		if (!m->backlog && !llist_empty(&m->pending))
			m->backlog = llist_reverse_order(llist_del_all(&m->pending));
		if (!m->backlog) {
			if (!comb_unlock_or_retake(m))
				break;
			/*
			 * Retaken for a message another combiner may have
			 * served meanwhile; each turn round here that finds
			 * nothing means someone else made progress. Offer
			 * the CPU all the same.
			 */
			cond_resched_tasks_rcu_qs();
			continue;
		}
		if (reqs >= KVBENCH_COMB_PASS) {
			ended = comb_handoff(m);
			break;
		}
		msg = llist_entry(m->backlog, struct comb_msg,
				  node);
		m->backlog = m->backlog->next;
		for (req = msg->base.head; req; req = req->next) {
			kvbench_table_exec(&m->table, req);
			reqs++;
			cond_resched_tasks_rcu_qs();
		}
		comb_answer(msg);
		msgs++;
	}
	comb_count(m, COMB_PASSES, 1);
	comb_count(m, COMB_MSGS, msgs);
	comb_count(m, COMB_REQS, reqs);
	if (start)
		trace_kvbench_comb_pass(msgs, reqs, ended, local_clock() - start);
}

/*
 * The pass is over and messages are left: the caller of the oldest one
 * that has a caller that may hold the role becomes the combiner; with none
 * (io_uring commands, SCHED_IDLE callers), the work item does. The role
 * stays taken meanwhile.
 */
static int comb_handoff(struct comb_map *m)
{
	struct comb_msg *msg;
	struct llist_node *node;

	for (node = m->backlog; node; node = node->next) {
		msg = llist_entry(node, struct comb_msg, node);
		if (msg->base.answered)
			continue;
		if (msg->task == current) {
			/* Our own message is left: the role stays ours. */
			comb_tell(msg, COMB_COMBINE);
			return KVBENCH_COMB_KEPT;
		}
		/* Waiting, the caller is alive: its stack holds @msg. */
		if (!comb_may_hold(msg->task))
			continue;
		comb_count(m, COMB_HANDOFFS, 1);
		comb_tell(msg, COMB_COMBINE);
		return KVBENCH_COMB_TO_CALLER;
	}
	queue_work(system_unbound_wq, &m->work);
	return KVBENCH_COMB_TO_WORK;
}

static void comb_work(struct work_struct *work)
{
	comb_pass(container_of(work, struct comb_map, work), 0, 0,
		  comb_start());
}

/*
 * We hold the role, taken for messages published: serve them, or, when we
 * may not hold it, hand it to the work item at once. The work is not
 * pending: only a role holder queues it, and it holds the role from then
 * until its pass leaves it.
 */
static void comb_serve(struct comb_map *m)
{
	if (comb_may_hold(current))
		comb_pass(m, 0, 0, comb_start());
	else
		queue_work(system_unbound_wq, &m->work);
}

/*
 * Sleep until the state changes, having said so; unless the role is free,
 * which a caller that published its message must then take (see
 * comb_unlock_or_retake()). COMB_SLEEPS counts the sleeps that happen,
 * not the times a caller said it would sleep and then found the role free.
 */
static void comb_sleep(struct comb_map *m, struct comb_msg *msg)
{
	int old = COMB_WAITING;

	set_current_state(TASK_UNINTERRUPTIBLE);
	/* Full barrier: pairs with the one in comb_unlock_or_retake(). */
	if (!atomic_try_cmpxchg(&msg->state, &old, COMB_SLEEPING) &&
	    old != COMB_SLEEPING)
		goto out;
	if (atomic_read(&m->busy)) {
		comb_count(m, COMB_SLEEPS, 1);
		schedule();
	}
out:
	__set_current_state(TASK_RUNNING);
}

/*
 * Spin on @msg's state while nothing else wants this CPU (the combiner may
 * be what waits for it, preempted here): as owner_spin() does.
 */
static bool comb_spin_on(struct comb_msg *msg, u64 end)
{
	if (atomic_read(&msg->state) != COMB_WAITING)
		return false;
	if (need_resched() || !single_task_running() || local_clock() >= end)
		return false;
	cpu_relax();
	return true;
}

/* Wait for @msg, published, to be answered, combining if need be. */
static void comb_wait(struct comb_map *m, struct comb_msg *msg)
{
	u32 spin_ns = kvbench_spin_now(READ_ONCE(m->spin_ns));
	u64 start = local_clock();
	bool slept = false;
	int state;

	/* Acquire: pairs with comb_tell(); the answers come first. */
	while ((state = atomic_read_acquire(&msg->state)) != COMB_DONE) {
		if (state == COMB_COMBINE || comb_trylock(m)) {
			/*
			 * Only the role holder writes @msg's state, so nobody
			 * else does now; but the holder before us may have
			 * answered @msg after we read the state: COMB_DONE
			 * stays (overwriting it lost the message, and the loop
			 * took the free role again and again for ever).
			 */
			if (atomic_read(&msg->state) != COMB_DONE)
				atomic_set(&msg->state, COMB_WAITING);
			/* A handed-over role finds @msg first in the backlog. */
			comb_serve(m);
			continue;
		}
		if (comb_spin_on(msg, start + spin_ns))
			continue;
		comb_sleep(m, msg);
		slept = true;
	}
	/* As the owners' callers adapt theirs (kvbench_spin_next()). */
	if (slept)
		WRITE_ONCE(m->spin_ns,
			   kvbench_spin_next(spin_ns, local_clock() - start,
					     kvbench_spin_min_ns()));
}

/*
 * Run @msg's requests: at once when the role is free, the published ones
 * after them; else publish @msg for a combiner, or to combine ourselves.
 */
static void comb_run(struct comb_map *m, struct comb_msg *msg)
{
	struct kvbench_req *req;
	unsigned long n = 0;
	u64 start;

	if (comb_may_hold(current) && comb_trylock(m)) {
		start = comb_start();
		for (req = msg->base.head; req; req = req->next) {
			kvbench_table_exec(&m->table, req);
			n++;
			cond_resched_tasks_rcu_qs();
		}
		comb_pass(m, 1, n, start);
		return;
	}
	msg->task = current;
	msg->base.answered = NULL;
	atomic_set(&msg->state, COMB_WAITING);
	/* Full barrier (cmpxchg): comb_sleep() relies on it. */
	llist_add(&msg->node, &m->pending);
	comb_wait(m, msg);
}

static void comb_batch(struct kvbench_backend *b, struct kvbench_req *reqs,
		       unsigned int n)
{
	struct comb_msg msg = { .base.head = reqs };
	unsigned int i;

	for (i = 0; i < n; i++)
		reqs[i].next = i + 1 < n ? &reqs[i + 1] : NULL;
	comb_run(to_comb_map(b), &msg);
}

static void comb_one(struct kvbench_backend *b, struct kvbench_req *req)
{
	comb_batch(b, req, 1);
}

/*
 * An io_uring command. When the role is free it runs now, and the
 * published messages after it: KVBENCH_SUBMIT_RAN, answered inline.
 * Otherwise it is published for the role holder, whose
 * comb_unlock_or_retake() sees it, and answered through ->answered.
 * Never waits for another task; may reschedule, run others' requests for
 * a pass, and free their items (kvfree() may sleep), as ->submit allows.
 */
static int comb_submit(struct kvbench_backend *b, struct kvbench_msg *base)
{
	struct comb_msg *msg = container_of(base, struct comb_msg, base);
	struct comb_map *m = to_comb_map(b);

	msg->base.head->next = NULL;
	if (comb_may_hold(current) && comb_trylock(m)) {
		u64 start = comb_start();

		kvbench_table_exec(&m->table, msg->base.head);
		comb_pass(m, 1, 1, start);
		return KVBENCH_SUBMIT_RAN;
	}
	msg->task = NULL;
	atomic_set(&msg->state, COMB_WAITING);
	llist_add(&msg->node, &m->pending);
	/* The holder may have looked before we published: look again. */
	if (comb_trylock(m))
		comb_serve(m);
	return 0;
}

static struct kvbench_backend *comb_create(const struct kvbench_params *p)
{
	struct comb_map *m;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return ERR_PTR(-ENOMEM);
	m->stats = alloc_percpu(struct comb_stats);
	if (!m->stats)
		goto free_map;
	if (kvbench_table_init(&m->table, p->hash_bits))
		goto free_stats;
	atomic_set(&m->busy, 0);
	init_llist_head(&m->pending);
	INIT_WORK(&m->work, comb_work);
	m->spin_ns = kvbench_spin_min_ns();
	return &m->base;

free_stats:
	free_percpu(m->stats);
free_map:
	kfree(m);
	return ERR_PTR(-ENOMEM);
}

static void comb_destroy(struct kvbench_backend *b)
{
	struct comb_map *m = to_comb_map(b);

	/* A pass the work item ran may still be leaving the role. */
	flush_work(&m->work);
	kvbench_table_free(&m->table);
	free_percpu(m->stats);
	kfree(m);
}

/*
 * No request is in flight (switch_sem, async_inflight): nobody holds the
 * role but, perhaps, the work item leaving it.
 */
static void comb_drain(struct kvbench_backend *b,
		       void (*fn)(struct kvbench_item *item, void *arg),
		       void *arg)
{
	struct comb_map *m = to_comb_map(b);

	flush_work(&m->work);
	kvbench_table_drain(&m->table, fn, arg);
}

/* No request is queued: the work item may still be leaving the role. */
static void comb_settle(struct kvbench_backend *b)
{
	flush_work(&to_comb_map(b)->work);
}

/* As drain: nobody touches the table. */
static int comb_adopt(struct kvbench_backend *b, struct kvbench_item *item)
{
	struct comb_map *m = to_comb_map(b);

	kvbench_table_adopt(&m->table, item);
	return 0;
}

static void comb_adopted(struct kvbench_backend *b)
{
	kvbench_table_recount(&to_comb_map(b)->table);
}

static void comb_sum(struct comb_map *m, struct comb_stats *sum)
{
	const struct comb_stats *c;
	int cpu, i;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(m->stats, cpu);
		for (i = 0; i < COMB_NR_STATS; i++)
			sum->v[i] += READ_ONCE(c->v[i]);
	}
}

/* @stat less its baseline (see comb_reset_stats()). */
static unsigned long comb_stat(struct kvbench_backend *b,
			       enum kvbench_stat stat)
{
	struct comb_map *m = to_comb_map(b);
	struct comb_stats sum;
	unsigned long then;
	int i;

	/* The queue statistics (drain_mean, ...) are the owner threads'. */
	switch (stat) {
	case KVBENCH_STAT_PEER_PASSES:
		i = COMB_PASSES;
		break;
	case KVBENCH_STAT_PEER_REQS:
		i = COMB_REQS;
		break;
	case KVBENCH_STAT_PEER_HANDOFFS:
		i = COMB_HANDOFFS;
		break;
	case KVBENCH_STAT_SLEEPS:
		i = COMB_SLEEPS;
		break;
	default:
		return kvbench_table_stat(&m->table, stat);
	}
	/*
	 * The baseline first: pairs with smp_store_release() in
	 * comb_reset_stats(), so that the sum read next is no older than the
	 * one it was taken from, and the difference never goes negative.
	 */
	then = smp_load_acquire(&m->base_stats.v[i]);
	comb_sum(m, &sum);
	return sum.v[i] - then;
}

/* Called with the stats reset's mutex held: the baselines' only writer. */
static void comb_reset_stats(struct kvbench_backend *b)
{
	struct comb_map *m = to_comb_map(b);
	struct comb_stats now;
	int i;

	comb_sum(m, &now);
	for (i = 0; i < COMB_NR_STATS; i++)
		/* Pairs with smp_load_acquire() in comb_stat(). */
		smp_store_release(&m->base_stats.v[i], now.v[i]);
}

const struct kvbench_backend_ops kvbench_combining_ops = {
	.name		= "combining",
	.params		= KVBENCH_PARAM_HASH_BITS,
	.create		= comb_create,
	.destroy	= comb_destroy,
	.get		= comb_one,
	.set		= comb_one,
	.del		= comb_one,
	.batch		= comb_batch,
	.drain		= comb_drain,
	.adopt		= comb_adopt,
	.adopted	= comb_adopted,
	.stat		= comb_stat,
	.reset_stats	= comb_reset_stats,
	.settle		= comb_settle,
	.submit		= comb_submit,
};
