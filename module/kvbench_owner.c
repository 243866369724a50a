// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench owner threads: a kernel thread that owns a table and answers the
 * requests callers queue to it. The machinery that the backends with owner
 * threads share (one owner per map, or one per shard of the keys), by the
 * contract kvbench_backend.h states.
 *
 * The owner is the only task that ever touches its table, so the table
 * needs no lock. A caller, whose keys and values the core has already
 * copied into kernel memory, puts a message into the owner's kfifo, makes
 * sure the owner is awake, and waits for the answer; the owner takes every
 * queued message per pass, runs its requests and answers it.
 *
 * What costs is not the table but the hand-off: a sleep and a wake-up on
 * each side of every request. So both sides first spin for a short, bounded
 * time before they sleep, and only while no other task is runnable on their
 * CPU; the producer skips the wake-up when the owner is known to be awake,
 * the owner skips it (and the completion) when the caller is still
 * spinning (owner_answer()), and a BATCH travels as one message. An idle
 * owner sleeps: it spins only right after it has done work. How long a
 * spin lasts adapts to how long the waits turn out to be
 * (kvbench_spin_next()).
 */
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/isolation.h>
#include <linux/sched/stat.h>
#include <linux/time64.h>

#include "kvbench_backend.h"
#include "kvbench_trace.h"

static unsigned int spin_us = 20;

/* A spin reads the clock once in this many turns (owner_spin()). */
#define KVBENCH_SPIN_CLOCK	32

/* Answers an owner holds at most before it hands them back together. */
#define KVBENCH_ANSWERS_MAX	16

/* A waiting caller's message's ->state. */
enum {
	OWNER_WAITING,		/* queued; its caller spins */
	OWNER_PARKED,		/* parked for room; its caller sleeps on ->room */
	OWNER_SLEEPING,		/* its caller sleeps on ->done */
	OWNER_DONE,		/* answered, ->done untouched: the caller may go */
};

static int kvbench_param_spin_us_set(const char *val,
				     const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, 1000);
}

static const struct kernel_param_ops kvbench_spin_us_param_ops = {
	.set = kvbench_param_spin_us_set,
	.get = param_get_uint,
};
module_param_cb(kthread_spin_us, &kvbench_spin_us_param_ops, &spin_us, 0644);
MODULE_PARM_DESC(kthread_spin_us,
		 "Microseconds an owner thread or a caller waiting for one spins at least before sleeping, and up to 16 times that when its waits end just after the spin, 0..1000 (default 20)");

/*
 * Where owner threads run: owner_cpus, a CPU list ("2-3,6"), or empty for
 * wherever a kernel thread may run: the housekeeping CPUs, which kthread()
 * gives every new kernel thread (all but the nohz_full= ones), not every
 * possible CPU, which would let a busy owner onto CPUs kept free of the
 * kernel's work. A change applies at once to every live owner, as taskset
 * would, and to every owner started later. The scheduler places an owner
 * within the list; if every CPU of it goes offline, it moves elsewhere
 * rather than stop. Set it to CPUs that run no callers (isolcpus= users
 * would name their isolated ones): an owner that has a CPU of its own
 * answers without a context switch (Documentation/design.rst).
 */
static struct cpumask owner_cpus;	/* empty: see above; under owners_lock */
static struct cpumask owner_allowed;	/* owner_cpus_allowed()'s; owners_lock */
static LIST_HEAD(owners);		/* live owners, by ->link */
static DEFINE_MUTEX(owners_lock);	/* protects the two masks and owners */

/*
 * The CPUs owners may run on now, in owner_allowed (no cpumask on the stack).
 * The housekeeping mask is copied under RCU: from 7.x on, cpuset isolated
 * partitions replace it at run time and free the old one after a grace
 * period (housekeeping_update()); set_cpus_allowed_ptr() may sleep.
 */
static const struct cpumask *owner_cpus_allowed(void)
{
	lockdep_assert_held(&owners_lock);
	if (!cpumask_empty(&owner_cpus))
		return &owner_cpus;
	rcu_read_lock();
	cpumask_copy(&owner_allowed, housekeeping_cpumask(HK_TYPE_KTHREAD));
	rcu_read_unlock();
	return &owner_allowed;
}

static int kvbench_param_owner_cpus_set(const char *val,
					const struct kernel_param *kp)
{
	struct kvbench_owner *o;
	cpumask_var_t mask;
	int ret = 0;

	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	/* A list must name a CPU that can run an owner now. */
	if (cpulist_parse(val, mask) ||
	    (!cpumask_empty(mask) && !cpumask_intersects(mask, cpu_online_mask))) {
		ret = -EINVAL;
		goto out;
	}
	mutex_lock(&owners_lock);
	cpumask_copy(&owner_cpus, mask);
	list_for_each_entry(o, &owners, link)
		set_cpus_allowed_ptr(o->task, owner_cpus_allowed());
	mutex_unlock(&owners_lock);
out:
	free_cpumask_var(mask);
	return ret;
}

static int kvbench_param_owner_cpus_get(char *buf,
					const struct kernel_param *kp)
{
	int ret;

	mutex_lock(&owners_lock);
	ret = sysfs_emit(buf, "%*pbl\n", cpumask_pr_args(&owner_cpus));
	mutex_unlock(&owners_lock);
	return ret;
}

static const struct kernel_param_ops kvbench_owner_cpus_param_ops = {
	.set = kvbench_param_owner_cpus_set,
	.get = kvbench_param_owner_cpus_get,
};
module_param_cb(owner_cpus, &kvbench_owner_cpus_param_ops, NULL, 0644);
MODULE_PARM_DESC(owner_cpus,
		 "CPUs the owner threads of the backends run on, a list such as 2-3,6; empty (default) for those of any kernel thread (not nohz_full ones)");

/*
 * Slow hand-offs on purpose, for tests: the knobs in debugfs's kvbench/
 * directory (0, the default: none). On PREEMPT_RT under emulation a
 * cross-CPU wake-up can last until the host's next tick after its waker
 * has said what it wakes the other side for (design.rst, "What PREEMPT_RT
 * changes"), and every spin must then be judged by when the answer or
 * the work was ready, not by when its waiter ran again. A guest cannot
 * make its host do that on demand; these make the module do the same:
 *
 * owner_slow_answer_us: an owner works this much longer (busy) on each
 *	message whose caller waits for it, so that an answer takes longer
 *	than a short spin.
 * owner_slow_wakeup_us: whoever wakes the other side (an owner a sleeping
 *	caller, a caller the idle owner) waits this long (busy) between its
 *	stamp of when the answer or the work was ready and the wake-up.
 *
 * The trace suite's owner_slow_wakeups test sets them. Each is at most
 * KVBENCH_SLOW_MAX_US: a caller pays its wake-up's in the ioctl.
 */
static u32 slow_answer_us;
static u32 slow_wakeup_us;
#define KVBENCH_SLOW_MAX_US	100000

/* Wait the microseconds @knob says, busy, as a waker held up would. */
static void owner_slow(const u32 *knob)
{
	u32 us = READ_ONCE(*knob);
	u64 end;

	if (likely(!us))
		return;
	/* Bounded: the clock moves on, on whichever CPU we run. */
	end = local_clock() + (u64)us * NSEC_PER_USEC;
	while (local_clock() < end)
		cpu_relax();
}

static int owner_slow_get(void *data, u64 *val)
{
	*val = READ_ONCE(*(u32 *)data);
	return 0;
}

static int owner_slow_set(void *data, u64 val)
{
	if (val > KVBENCH_SLOW_MAX_US)
		return -EINVAL;
	WRITE_ONCE(*(u32 *)data, val);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(owner_slow_fops, owner_slow_get, owner_slow_set,
			 "%llu\n");

/* The knobs above, in @dir (the module's debugfs directory). */
void kvbench_owner_debugfs(struct dentry *dir)
{
	debugfs_create_file_unsafe("owner_slow_answer_us", 0600, dir,
				   &slow_answer_us, &owner_slow_fops);
	debugfs_create_file_unsafe("owner_slow_wakeup_us", 0600, dir,
				   &slow_wakeup_us, &owner_slow_fops);
}

/*
 * How long to spin next time, after a wait of @waited_ns that began with a
 * spin of @cur_ns, for a floor of @min_ns (kthread_spin_us): halt polling
 * (virt/kvm/kvm_main.c) for the owner's hand-offs.
 *
 * A spin is meant to outlast the round trip it waits for: if it ends first,
 * both sides pay a sleep and a wake-up, which under emulation cost ten times
 * the round trip. That round trip is not a constant: on a host about three
 * times slower, the same code's grew past a fixed 20 us, and every request
 * then slept (Documentation/results.rst). So a wait that slept, yet ended
 * within the longest spin allowed (KVBENCH_SPIN_GROW times the floor),
 * doubles the spin: a longer one would have caught it. A wait far longer
 * than that (an owner idle between bursts, a caller behind a long batch)
 * halves it, down to the floor. A wait the spin caught keeps it. A spin
 * costs only CPU time nobody else wants (owner_spin() stops for any
 * runnable task), and never more than the longest spin per wait. Return:
 * the next spin, in nanoseconds, between @min_ns and
 * KVBENCH_SPIN_GROW * @min_ns.
 */
u32 kvbench_spin_next(u32 cur_ns, u64 waited_ns, u32 min_ns)
{
	u32 max_ns = min_ns * KVBENCH_SPIN_GROW;

	cur_ns = clamp(cur_ns, min_ns, max_ns);
	if (waited_ns <= cur_ns)
		return cur_ns;
	if (waited_ns <= max_ns)
		return min(cur_ns * 2, max_ns);
	return max(cur_ns / 2, min_ns);
}
EXPORT_SYMBOL_IF_KUNIT(kvbench_spin_next);

/*
 * The wait to judge a spin by (kvbench_spin_next()): from @start until
 * what it waited for was @ready (the other side's local_clock() when it
 * answered or posted, 0 if unknown), not until the waiter ran again at
 * @now. A wait that slept also holds the waiter's own wake-up, and that
 * is not the round trip a spin can catch: on PREEMPT_RT under emulation a
 * cross-CPU wake-up can last until the host's next tick (4 ms; design.rst,
 * "What PREEMPT_RT changes"), and judged by it every spin shrank to the
 * floor, so every request slept and paid two such wake-ups; an answer
 * ready 60 us into the wait now grows the spin that catches it. Another
 * CPU's clock may disagree a little: a @ready before @start counts as
 * caught, one after @now as unknown.
 */
u64 kvbench_spin_waited(u64 start, u64 ready, u64 now)
{
	if (!ready || ready > now)
		return now - start;
	return ready > start ? ready - start : 0;
}
EXPORT_SYMBOL_IF_KUNIT(kvbench_spin_waited);

/* The floor of every spin, kthread_spin_us, in nanoseconds. */
u32 kvbench_spin_min_ns(void)
{
	return READ_ONCE(spin_us) * NSEC_PER_USEC;
}

/*
 * The spin to use now, from one that kvbench_spin_next() grew or shrank
 * under an earlier kthread_spin_us: within the bounds the parameter sets
 * now. So a change of kthread_spin_us applies at the next spin of every
 * owner and caller, not after their next sleep; at 0, nobody spins.
 */
u32 kvbench_spin_now(u32 cur_ns)
{
	u32 min_ns = kvbench_spin_min_ns();

	return clamp(cur_ns, min_ns, min_ns * KVBENCH_SPIN_GROW);
}

/*
 * Spin from @start until @done() or for @spin_ns, whichever comes first,
 * and only while nothing else wants this CPU: not once the scheduler says so
 * (need_resched()), and not once any other task is runnable here
 * (single_task_running()). That other task may be the very one we wait
 * for, which a spinner keeps off its CPU: a caller spinning for its answer
 * while the owner it woke waits on the same CPU, or an owner spinning for
 * more work while the caller that would send it waits. The scheduler does
 * not always say so: a woken task does not preempt a normal one that is
 * ahead of it, and never a SCHED_FIFO one.
 *
 * Measured under QEMU (Documentation/results.rst): a single owner does best
 * as a normal task spinning on a CPU of its own (p50 of a one-thread GET
 * 2.5 us); at SCHED_FIFO it was woken onto its caller's CPU, every request
 * cost two context switches and the p50 was 8.8 us. With an owner per CPU,
 * owners always share CPUs with callers, and SCHED_FIFO owners that answer
 * at once did better. Ending the spin for any runnable task, which only the
 * SCHED_FIFO owners did at first, made the single owner faster too: without
 * it a caller that shared a CPU with the owner spun out its spin_us while
 * the owner waited, on every request.
 */
static bool owner_spin(bool (*done)(void *arg), void *arg, u64 start,
		       u32 spin_ns)
{
	u64 end = start + spin_ns;
	unsigned int turns = 0;

	/* kthread_spin_us=0: one look, no spin. */
	if (!spin_ns)
		return done(arg);
	while (!done(arg)) {
		if (need_resched() || !single_task_running())
			return false;
		/*
		 * The clock costs more than a turn (under QEMU it is emulated):
		 * read it every KVBENCH_SPIN_CLOCK turns, as poll_idle() does.
		 */
		if (!(++turns % KVBENCH_SPIN_CLOCK) && local_clock() >= end)
			return false;
		cpu_relax();
	}
	return true;
}

/*
 * The queue is a kfifo's ring: many producers, one at a time under
 * ->in_lock, and one consumer, the owner, without a lock. Each side reads
 * the index the other one moves. kfifo_put() and kfifo_get() are not used:
 * kfifo_get() orders its read of the slot before its ->out store with
 * smp_wmb(), which orders stores only, and reads ->in with no barrier
 * before the slot. On a weakly ordered CPU (arm64) the owner could read a
 * slot before the message in it was written, or a producer that saw ->out
 * move could overwrite the slot before the owner had read it: a lost
 * message and a caller that never wakes. So the module moves the kfifo's
 * indices itself, with acquire and release:
 *
 *   producer (owner_fifo_put)          consumer (owner_fifo_get)
 *   out = load_acquire(->out)   (A)    in = load_acquire(->in)        (C)
 *   write slot[in]                     read slot[out]
 *   store_release(->in, in + 1) (B)    store_release(->out, out + 1)  (D)
 *
 * (B) pairs with (C): the owner reads a slot only after the message was
 * written to it. (D) pairs with (A): a producer writes a slot only after
 * the owner has read what was in it. Each index has one writer at a time
 * (->in: the producer holding ->in_lock; ->out: the owner), which reads it
 * plainly. What a message points to is ordered by the same pairs, and its
 * answer by ->state (owner_answer()), or its ->answered callback's own
 * hand-off.
 * The indices run freely and wrap; their difference is the fill, at most
 * the ring's size (a power of two, as kfifo_alloc() made it).
 */
static struct kvbench_owner_msg **owner_fifo_slot(struct kvbench_owner *o,
						  unsigned int idx)
{
	struct kvbench_owner_msg **ring = o->fifo.kfifo.data;

	return &ring[idx & o->fifo.kfifo.mask];
}

/* Messages queued now, as the owner sees them (a hint for anyone else). */
static unsigned int owner_fifo_len(struct kvbench_owner *o)
{
	return READ_ONCE(o->fifo.kfifo.in) - READ_ONCE(o->fifo.kfifo.out);
}

static bool owner_fifo_empty(struct kvbench_owner *o)
{
	return !owner_fifo_len(o);
}

/* The owner takes the oldest message, if any. */
static bool owner_fifo_get(struct kvbench_owner *o,
			   struct kvbench_owner_msg **msg)
{
	unsigned int out = o->fifo.kfifo.out;

	/* (C): pairs with (B) in owner_fifo_put(). */
	if (smp_load_acquire(&o->fifo.kfifo.in) == out)
		return false;
	*msg = *owner_fifo_slot(o, out);
	/* (D): pairs with (A) in owner_fifo_put(). */
	smp_store_release(&o->fifo.kfifo.out, out + 1);
	return true;
}

/* A producer, holding ->in_lock, queues @msg unless the ring is full. */
static bool owner_fifo_put(struct kvbench_owner *o,
			   struct kvbench_owner_msg *msg)
{
	unsigned int in = o->fifo.kfifo.in;

	lockdep_assert_held(&o->in_lock);
	/* (A): pairs with (D) in owner_fifo_get(). */
	if (in - smp_load_acquire(&o->fifo.kfifo.out) > o->fifo.kfifo.mask)
		return false;
	*owner_fifo_slot(o, in) = msg;
	/* (B): pairs with (C) in owner_fifo_get(). */
	smp_store_release(&o->fifo.kfifo.in, in + 1);
	return true;
}

/*
 * Request lines (owners started with KVBENCH_OWNER_LINES): besides
 * its queue, an owner has a line per possible CPU, a cache line of its own in
 * that CPU's per-CPU memory, which holds one message. A caller claims the
 * line of the CPU it runs on with a cmpxchg from NULL; the owner empties it.
 * No lock, and callers on different CPUs write different lines, as ffwd's
 * clients do (Roghanchi et al., SOSP 2017): many CPUs send to one owner
 * without meeting on its queue's lock. Callers on one CPU meet only each
 * other, and the owner.
 *
 * A line holds one message. A caller that finds its line taken (another
 * caller on its CPU waits for an answer, or io_uring has several commands
 * in flight) uses the queue, with its bound, its waits for room and its
 * parking, unchanged. The CPU is only where to look first: a caller that
 * moved since it read it claims another CPU's line, which is correct, only
 * not local.
 *
 *   caller (owner_line_put)             owner (owner_drain_lines)
 *   write msg                           msg = load_acquire(line)      (F)
 *   cmpxchg(line, NULL, msg)     (E)    WRITE_ONCE(line, NULL)
 *                                       run msg, owner_answer(msg)
 *
 * (E), fully ordered, pairs with (F): the owner reads the message only after
 * its caller wrote it. While the line holds a message no claim succeeds, so
 * only the owner writes it then; once it is NULL the next claim may come,
 * while the owner still runs the message it took. A caller that sees its
 * answer finds its line emptied: the store of NULL comes before the answer,
 * which owner_answer() orders (a full barrier, or complete()'s lock).
 */
struct kvbench_owner_line {
	struct kvbench_owner_msg *msg;
} ____cacheline_aligned_in_smp;

/* A caller claims its CPU's line for @msg, if the owner has lines. */
static bool owner_line_put(struct kvbench_owner *o,
			   struct kvbench_owner_msg *msg)
{
	struct kvbench_owner_line *line;

	if (!o->lines)
		return false;
	line = per_cpu_ptr(o->lines, raw_smp_processor_id());
	/* Taken: no atomic that can only fail. */
	if (READ_ONCE(line->msg))
		return false;
	/* (E): pairs with (F) in owner_drain_lines(). */
	return !cmpxchg(&line->msg, NULL, msg);
}

/* Does a line hold a message? */
static bool owner_lines_busy(struct kvbench_owner *o)
{
	int cpu;

	if (!o->lines)
		return false;
	for_each_possible_cpu(cpu)
		if (READ_ONCE(per_cpu_ptr(o->lines, cpu)->msg))
			return true;
	return false;
}

/* The owner: everything down to the callers' part runs in the owner thread. */

/*
 * Hand back the messages that ran and have an ->answered callback (io_uring
 * commands): at the end of the pass, once KVBENCH_ANSWERS_MAX are held,
 * or before the owner may be switched out (owner_yield()). An io_uring
 * command's ->answered asks for task work in its submitting task, and
 * io_uring wakes that task for the first of a run of such requests only
 * (io_req_normal_work_add()): answered together, a pass's commands cost the
 * task one wake-up. Answered one by one as they ran, the task could be
 * woken for each, run its one completion, submit, and sleep again before
 * the next. ffwd answers up to 15 clients with one write the same way.
 */
static void owner_answer_all(struct kvbench_owner *o)
{
	struct kvbench_owner_msg *msg, *next;

	/* Each @msg may be gone after its call: @next is read before. */
	list_for_each_entry_safe(msg, next, &o->answers, parked)
		msg->base.answered(&msg->base);
	INIT_LIST_HEAD(&o->answers);
	o->nr_answers = 0;
}

/*
 * Let other tasks have this CPU: between two passes that found work, and
 * after every request inside a pass. Work that keeps arriving, or one long
 * pass, must not keep them off it: a pass answers every message queued
 * when it starts, each up to a KVBENCH_BATCH_MAX-op BATCH run, and a
 * request may walk a long chain (a map of millions of keys at the default
 * hash_bits): without a scheduling point in between, seconds on a kernel
 * without full preemption. Offering it costs a flag test or two, and bounds
 * what a normal task waits for by one request. A normal owner offers the
 * CPU at a scheduling point (kernels without full preemption have no
 * other). cond_resched() does nothing for a SCHED_FIFO owner, which would
 * starve every normal task on its CPU for as long as requests come: once
 * it has run for a tick with another task waiting, it goes on as a normal
 * task until it next goes idle. (Sleeping a tick instead is not enough:
 * owners that share a CPU take turns, and the normal task still waits.)
 *
 * It is also where the owner says it passed quiescent states. An owner
 * that always finds work never sleeps, and neither cond_resched() nor
 * being preempted is an RCU-Tasks quiescent state: only a voluntary
 * sleep, user mode or rcu_tasks_qs() are. Without the last, one busy owner
 * held up every synchronize_rcu_tasks() (ftrace, kprobe and BPF
 * trampolines) for as long as its load lasted. The owner holds no RCU
 * read lock here and runs on no trampoline of its own, so it says so after
 * every request, as the kernel's polling threads do
 * (cond_resched_tasks_rcu_qs(): kmemleak's scan, the trace benchmark
 * thread; threaded NAPI's rcu_softirq_qs_periodic()): two flag tests. The
 * same cond_resched() is, on a kernel without PREEMPT_RCU, the owner's
 * RCU quiescent state (rcu_all_qs()), so a SCHED_FIFO owner alone on its
 * CPU calls it too, where it switches to nobody.
 */
static void owner_yield(struct kvbench_owner *o)
{
	/* Held answers do not wait for another task's time slice. */
	if (o->nr_answers && need_resched())
		owner_answer_all(o);
	if (o->rt && !o->demoted) {
		if (single_task_running()) {
			o->busy_since = jiffies;
		} else if (time_after(jiffies, o->busy_since)) {
			sched_set_normal(current, 0);
			o->demoted = true;
		}
	}
	cond_resched_tasks_rcu_qs();
}

/*
 * Tell @msg's caller its requests are answered. One that still spins sees
 * OWNER_DONE and goes: no completion, no wake-up. One that went to sleep
 * (OWNER_SLEEPING, set before it waits on ->done) is completed and woken.
 * Either way the caller may return at once and @msg be gone.
 */
static void owner_answer(struct kvbench_owner_msg *msg)
{
	/*
	 * Fully ordered: the answers come before OWNER_DONE; pairs with the
	 * acquire in owner_msg_answered() and with the cmpxchg in
	 * kvbench_owner_wait(), exactly one of which wins the message.
	 */
	if (atomic_cmpxchg(&msg->state, OWNER_WAITING, OWNER_DONE) !=
	    OWNER_WAITING) {
		/*
		 * For the caller's spin (kvbench_owner_wait()): when its
		 * answer was ready. Ordered before its wake-up by ->done's
		 * lock, which complete() releases and wait_for_completion()
		 * takes.
		 */
		msg->answered_at = local_clock();
		owner_slow(&slow_wakeup_us);
		complete(&msg->done);
	}
}

/*
 * Run @msg's requests, offering the CPU after each (owner_yield()), add
 * them to @reqs, and answer it.
 */
static void owner_run(struct kvbench_owner *o, struct kvbench_owner_msg *msg,
		      unsigned long *reqs)
{
	struct kvbench_req *req, *next;

	for (req = msg->base.head; req; req = next) {
		next = req->next;
		kvbench_table_exec(&o->table, req);
		(*reqs)++;
		owner_yield(o);
	}
	/* @msg and its requests may be gone once answered. */
	if (!msg->base.answered) {
		owner_slow(&slow_answer_us);
		owner_answer(msg);
		return;
	}
	list_add_tail(&msg->parked, &o->answers);
	if (++o->nr_answers >= KVBENCH_ANSWERS_MAX)
		owner_answer_all(o);
}

/*
 * Answer the message on each request line: at most one per line and pass,
 * so callers that keep claiming lines do not make a pass endless. Return
 * how many there were.
 */
static unsigned long owner_drain_lines(struct kvbench_owner *o,
				       unsigned long *reqs)
{
	struct kvbench_owner_line *line;
	struct kvbench_owner_msg *msg;
	unsigned long n = 0;
	int cpu;

	if (!o->lines)
		return 0;
	for_each_possible_cpu(cpu) {
		line = per_cpu_ptr(o->lines, cpu);
		/* (F): pairs with (E) in owner_line_put(). */
		msg = smp_load_acquire(&line->msg);
		if (!msg)
			continue;
		/* The line is free for the next claim, which a later pass takes. */
		WRITE_ONCE(line->msg, NULL);
		owner_run(o, msg, reqs);
		n++;
	}
	return n;
}

/*
 * Answer the messages queued when the pass starts (at most the queue's
 * size: producers that keep refilling it do not make a pass endless);
 * return how many there were, and add the requests they held to @reqs.
 */
static unsigned long owner_drain_fifo(struct kvbench_owner *o,
				      unsigned long *reqs)
{
	unsigned int todo = owner_fifo_len(o);
	struct kvbench_owner_msg *msg;
	unsigned long n = 0;

	/* Written here and zeroed by a reset: marked on both sides. */
	if (todo > READ_ONCE(o->queue_hwm))
		WRITE_ONCE(o->queue_hwm, todo);

	while (todo-- && owner_fifo_get(o, &msg)) {
		owner_run(o, msg, reqs);
		n++;
	}
	return n;
}

/*
 * Move parked messages into the ring, oldest first, while it has room: at
 * most its size per pass. They are io_uring commands and ioctl callers'
 * messages alike, in the order they found the ring full, and no other
 * producer gets a slot while any is parked (owner_try_put()): one FIFO
 * for both kinds of waiter. A caller whose message moved is woken
 * (owner_park_wait()). The kvbench_queue_full event reports each parked
 * message's wait here.
 *
 * The ring holds up to 65536 (queue_len): moved under ->in_lock at once,
 * that is as long with preemption off, and producers spinning on the lock
 * all the while (spin_needbreak() says nothing on a kernel without full
 * preemption). So the lock is let go every KVBENCH_UNPARK_BATCH messages.
 * Only the owner takes parked messages off the list; producers meanwhile
 * see ->nr_parked and park behind them, so the order holds.
 */
#define KVBENCH_UNPARK_BATCH	64

static void owner_unpark(struct kvbench_owner *o)
{
	struct kvbench_owner_msg *msg;
	unsigned int moved = 0;
	bool callers = false;
	u64 now;

	if (!READ_ONCE(o->nr_parked))
		return;
	spin_lock(&o->in_lock);
	while ((msg = list_first_entry_or_null(&o->parked,
					       struct kvbench_owner_msg,
					       parked))) {
		if (!owner_fifo_put(o, msg))
			break;
		list_del(&msg->parked);
		WRITE_ONCE(o->nr_parked, o->nr_parked - 1);
		/*
		 * A caller's message is queued: its caller may go on and wait
		 * for the answer. Only this thread takes it from the ring, so
		 * nobody answers it before this store. Release: pairs with
		 * the acquire in owner_msg_parked().
		 */
		if (!msg->base.answered) {
			atomic_set_release(&msg->state, OWNER_WAITING);
			callers = true;
		}
		if (trace_kvbench_queue_full_enabled()) {
			now = msg->parked_at ? local_clock() : 0;
			trace_kvbench_queue_full(o->id, now - msg->parked_at,
						 false);
		}
		if (!(++moved % KVBENCH_UNPARK_BATCH)) {
			spin_unlock(&o->in_lock);
			cond_resched();
			spin_lock(&o->in_lock);
		}
	}
	spin_unlock(&o->in_lock);
	/*
	 * wq_has_sleeper()'s full barrier orders the state stores above
	 * before its look at the queue; pairs with prepare_to_wait_event()'s
	 * set_current_state() before the waiter's look at ->state.
	 */
	if (callers && wq_has_sleeper(&o->room))
		wake_up_all(&o->room);
}

/* Is there work: a message on a line, in the ring, or parked for room? */
static bool owner_has_work(struct kvbench_owner *o)
{
	return !owner_fifo_empty(o) || READ_ONCE(o->nr_parked) ||
	       owner_lines_busy(o);
}

static bool owner_fifo_busy(void *arg)
{
	struct kvbench_owner *o = arg;

	return owner_has_work(o) || kthread_should_stop();
}

static void owner_sleep(struct kvbench_owner *o)
{
	/* Idle again: the next request is answered at once. */
	if (o->demoted) {
		sched_set_fifo_low(current);
		o->demoted = false;
	}
	WRITE_ONCE(o->idle, true);
	/*
	 * set_current_state() orders the ->idle store before the check of
	 * the lines, the fifo and ->nr_parked below; pairs with the smp_mb()
	 * in owner_kick() between a producer's owner_line_put() or
	 * owner_fifo_put() (or its parking, in kvbench_owner_submit()) and
	 * its ->idle load. Either the producer sees ->idle and wakes us, or
	 * we see its message and do not sleep.
	 */
	set_current_state(TASK_IDLE);
	if (!owner_fifo_busy(o))
		schedule();
	__set_current_state(TASK_RUNNING);
	WRITE_ONCE(o->idle, false);
	o->busy_since = jiffies;
}

/*
 * One pass: answer what is queued. The kvbench_owner_pass event reports
 * passes that found messages; only when it is enabled is the pass timed.
 */
static unsigned long owner_pass(struct kvbench_owner *o)
{
	unsigned long n, reqs = 0;
	u64 start = 0;

	if (trace_kvbench_owner_pass_enabled())
		start = local_clock();
	n = owner_drain_lines(o, &reqs);
	n += owner_drain_fifo(o, &reqs);
	if (o->nr_answers)
		owner_answer_all(o);
	/* Slots are free: parked messages take them first. */
	owner_unpark(o);
	if (n && trace_kvbench_owner_pass_enabled())
		trace_kvbench_owner_pass(o->id, n, reqs,
					 start ? local_clock() - start : 0);
	return n;
}

/*
 * The new thread places itself within owner_cpus. Not its creator, before
 * the first wake-up: newer kernels' kthread() (7.2's does) gives a new
 * thread the housekeeping CPUs once woken, over what was set before.
 */
static void owner_place(struct kvbench_owner *o)
{
	mutex_lock(&owners_lock);
	set_cpus_allowed_ptr(current, owner_cpus_allowed());
	mutex_unlock(&owners_lock);
	/* kvbench_owner_start() returns once the owner is where it belongs. */
	complete(&o->placed);
}

static int owner_thread(void *data)
{
	struct kvbench_owner *o = data;
	unsigned long n;
	u64 start, waited;
	u32 spin_ns;
	bool busy;

	owner_place(o);

	/* Stop only once every queued request has been answered. */
	while (!kthread_should_stop() || owner_has_work(o)) {
		n = owner_pass(o);
		if (n) {
			/* Only the owner writes them (see the reset). */
			WRITE_ONCE(o->passes, READ_ONCE(o->passes) + 1);
			WRITE_ONCE(o->drained, READ_ONCE(o->drained) + n);
			owner_yield(o);
			continue;
		}
		spin_ns = kvbench_spin_now(o->work_spin_ns);
		/* kthread_spin_us=0: no spin, no polling time: sleep. */
		if (!spin_ns) {
			owner_sleep(o);
			continue;
		}
		start = local_clock();
		busy = owner_spin(owner_fifo_busy, o, start, spin_ns);
		/* Only the owner adds to it (see the reset). */
		atomic64_add(local_clock() - start, &o->polled_ns);
		if (!busy) {
			owner_sleep(o);
			/* Judged by when work came, not by our wake-up. */
			waited = kvbench_spin_waited(start, READ_ONCE(o->kicked_at),
						     local_clock());
			o->work_spin_ns = kvbench_spin_next(spin_ns, waited,
							    kvbench_spin_min_ns());
		}
	}
	return 0;
}

/* The callers */

static bool owner_try_put(struct kvbench_owner *o,
			  struct kvbench_owner_msg *msg)
{
	bool ok;

	spin_lock(&o->in_lock);
	/* Parked messages came first: they take the room before us. */
	ok = !o->nr_parked && owner_fifo_put(o, msg);
	spin_unlock(&o->in_lock);
	return ok;
}

/*
 * Park @msg at the end of the owner's parked list, unless the ring has room
 * and nothing is parked (then queue it). Under ->in_lock. Return: whether
 * it was parked.
 */
static bool owner_put_or_park(struct kvbench_owner *o,
			      struct kvbench_owner_msg *msg)
{
	lockdep_assert_held(&o->in_lock);
	if (!o->nr_parked && owner_fifo_put(o, msg))
		return false;
	/* A caller waits for this to change (owner_park_wait()). */
	if (!msg->base.answered)
		atomic_set(&msg->state, OWNER_PARKED);
	msg->parked_at = trace_kvbench_queue_full_enabled() ? local_clock() : 0;
	list_add_tail(&msg->parked, &o->parked);
	WRITE_ONCE(o->nr_parked, o->nr_parked + 1);
	return true;
}

static bool owner_msg_parked(struct kvbench_owner_msg *msg)
{
	/* Acquire: pairs with the release in owner_unpark(). */
	return atomic_read_acquire(&msg->state) == OWNER_PARKED;
}

static void owner_kick(struct kvbench_owner *o);

/*
 * The queue was full: park @msg behind the messages parked before it,
 * io_uring commands and other callers' alike, and wait until the owner
 * has moved it into the ring, or for a fatal signal. A caller so waits
 * for at most the messages queued and parked before its own: never for
 * ones that come later. Return: 0 once @msg is queued (or was queued at
 * once), nonzero when a fatal signal came first and @msg was taken off
 * the list again: nothing was queued.
 */
static int owner_park_wait(struct kvbench_owner *o,
			   struct kvbench_owner_msg *msg)
{
	bool parked;
	int ret;

	spin_lock(&o->in_lock);
	parked = owner_put_or_park(o, msg);
	spin_unlock(&o->in_lock);
	/* The owner may be asleep: a parked message is work (owner_has_work()). */
	owner_kick(o);
	if (!parked)
		return 0;
	atomic_long_inc(&o->queue_full);
	ret = wait_event_killable(o->room, !owner_msg_parked(msg));
	if (!ret)
		return 0;
	spin_lock(&o->in_lock);
	if (atomic_read(&msg->state) == OWNER_PARKED) {
		list_del(&msg->parked);
		WRITE_ONCE(o->nr_parked, o->nr_parked - 1);
	} else {
		ret = 0;	/* queued meanwhile: it will be answered */
	}
	spin_unlock(&o->in_lock);
	if (ret && trace_kvbench_queue_full_enabled())
		trace_kvbench_queue_full(o->id, msg->parked_at ?
					 local_clock() - msg->parked_at : 0,
					 true);
	return ret;
}

/* A message is in the queue: make sure the owner will see it. */
static void owner_kick(struct kvbench_owner *o)
{
	/* Pairs with set_current_state() in owner_sleep(). */
	smp_mb();
	if (READ_ONCE(o->idle)) {
		/*
		 * For the owner's spin (owner_thread()): when work came. A
		 * wake-up orders it before the owner runs; any caller's
		 * stamp will do.
		 */
		WRITE_ONCE(o->kicked_at, local_clock());
		owner_slow(&slow_wakeup_us);
		wake_up_process(o->task);
	}
}

/**
 * kvbench_owner_post() - queue a message of requests to an owner
 * @o:		the owner
 * @msg:	the message; ->head must be set, the rest is initialised here
 *
 * Waits for room when the queue is full: requests are never dropped.
 * Waiters park their messages in one FIFO with parked io_uring commands
 * (owner_park_wait()), and the owner queues them in that order. A parked
 * message can be taken back, so the wait ends on a fatal signal. Once this
 * returned 0, the caller must kvbench_owner_wait() for @msg before it
 * touches @msg or its requests again.
 *
 * Return: 0, or -EINTR when a fatal signal came first (nothing was queued).
 */
int kvbench_owner_post(struct kvbench_owner *o, struct kvbench_owner_msg *msg)
{
	init_completion(&msg->done);
	atomic_set(&msg->state, OWNER_WAITING);

	if (owner_line_put(o, msg) || owner_try_put(o, msg)) {
		owner_kick(o);
		return 0;
	}
	return owner_park_wait(o, msg) ? -EINTR : 0;
}
EXPORT_SYMBOL_IF_KUNIT(kvbench_owner_post);

/**
 * kvbench_owner_submit() - queue a message that must not wait for room
 * @o:		the owner
 * @msg:	as for kvbench_owner_post(), with ->answered set: the caller
 *		never waits for it
 *
 * Never sleeps: for io_uring commands, issued where they must not block
 * (on PREEMPT_RT ->in_lock is a sleeping lock: it may wait for a holder's
 * short section, as any spinlock_t there).
 * When the queue is full (or other messages are parked already) @msg is
 * parked on the owner's list instead, and the owner moves it into the
 * queue as room comes (owner_unpark()). A parked message holds no thread:
 * only its own memory, which its command's submitter was charged for.
 *
 * Return: 0 (queued or parked; ->answered will be called).
 */
int kvbench_owner_submit(struct kvbench_owner *o,
			 struct kvbench_owner_msg *msg)
{
	bool parked = false;

	/*
	 * A free line takes it even past parked messages: commands have no
	 * order, and the owner queues the parked ones as room comes.
	 */
	if (owner_line_put(o, msg))
		goto kick;
	spin_lock(&o->in_lock);
	parked = owner_put_or_park(o, msg);
	spin_unlock(&o->in_lock);
	if (parked)
		atomic_long_inc(&o->queue_full);
kick:
	/* A parked message wakes the owner as a queued one does. */
	owner_kick(o);
	return 0;
}

static bool owner_msg_answered(void *arg)
{
	struct kvbench_owner_msg *msg = arg;

	/* Acquire: pairs with the cmpxchg in owner_answer(). */
	return atomic_read_acquire(&msg->state) == OWNER_DONE;
}

/**
 * kvbench_owner_wait() - wait until the owner has answered @msg
 * @o:		the owner @msg was posted to
 * @msg:	a message given to kvbench_owner_post()
 *
 * The owner reads and writes @msg and its requests, which live with the
 * caller, until it answers it: the wait cannot be interrupted. It always
 * ends, because the owner answers every message it took.
 *
 * The callers of one owner share how long they spin (->answer_spin_ns): the
 * round trip is the owner's. Their updates may overwrite each other; each
 * is a whole value within bounds, and the next wait corrects it.
 */
void kvbench_owner_wait(struct kvbench_owner *o, struct kvbench_owner_msg *msg)
{
	u32 spin_ns = kvbench_spin_now(READ_ONCE(o->answer_spin_ns));
	u64 start = local_clock(), ready = 0;

	if (owner_spin(owner_msg_answered, msg, start, spin_ns))
		return;
	/* Set before the owner can see OWNER_SLEEPING, by the cmpxchg. */
	msg->answered_at = 0;
	/*
	 * Fully ordered; pairs with the cmpxchg in owner_answer(): the owner
	 * either answered first (OWNER_DONE, and its answers are visible),
	 * or sees OWNER_SLEEPING and completes ->done.
	 */
	if (atomic_cmpxchg(&msg->state, OWNER_WAITING, OWNER_SLEEPING) !=
	    OWNER_DONE) {
		this_cpu_inc(*o->sleeps);
		wait_for_completion(&msg->done);
		/* Written before complete(), under ->done's lock. */
		ready = msg->answered_at;
	}
	/* Judged by when the answer was ready, not by our wake-up. */
	WRITE_ONCE(o->answer_spin_ns,
		   kvbench_spin_next(spin_ns,
				     kvbench_spin_waited(start, ready, local_clock()),
				     kvbench_spin_min_ns()));
}

/**
 * kvbench_owner_start() - set up an owner and start its thread
 * @o:		zeroed memory for the owner
 * @p:		queue and table sizes
 * @id:		a number for the thread's name, or -1 for none
 * @flags:	KVBENCH_OWNER_RT: run the thread at SCHED_FIFO priority 1;
 *		KVBENCH_OWNER_LINES: give it request lines
 *
 * Return: 0 or a negative errno, with nothing left to undo.
 */
int kvbench_owner_start(struct kvbench_owner *o,
			const struct kvbench_params *p, int id,
			unsigned int flags)
{
	bool rt = flags & KVBENCH_OWNER_RT;
	int ret = -ENOMEM;

	spin_lock_init(&o->in_lock);
	init_waitqueue_head(&o->room);
	INIT_LIST_HEAD(&o->parked);
	INIT_LIST_HEAD(&o->answers);
	/*
	 * Sized by queue_len: up to 512 KB, a high-order allocation that may
	 * fail; its failure is the caller's ENOMEM, not a splat.
	 */
	if (kfifo_alloc(&o->fifo, p->queue_len, GFP_KERNEL | __GFP_NOWARN))
		return -ENOMEM;
	if (kvbench_table_init(&o->table, p->hash_bits))
		goto free_fifo;
	o->sleeps = alloc_percpu(unsigned long);
	if (!o->sleeps)
		goto free_table;
	/* Zeroed: every line empty. */
	if (flags & KVBENCH_OWNER_LINES) {
		o->lines = alloc_percpu(struct kvbench_owner_line);
		if (!o->lines)
			goto free_table;
	}

	if (id < 0)
		o->task = kthread_create(owner_thread, o, "kvbench-owner");
	else
		o->task = kthread_create(owner_thread, o, "kvbench-owner/%d",
					 id);
	if (IS_ERR(o->task)) {
		ret = PTR_ERR(o->task);
		o->task = NULL;
		goto free_table;
	}
	o->id = id;
	o->rt = rt;
	o->busy_since = jiffies;
	o->work_spin_ns = kvbench_spin_min_ns();
	o->answer_spin_ns = o->work_spin_ns;
	if (rt)
		sched_set_fifo_low(o->task);
	init_completion(&o->placed);
	mutex_lock(&owners_lock);
	list_add(&o->link, &owners);
	mutex_unlock(&owners_lock);
	wake_up_process(o->task);
	wait_for_completion(&o->placed);
	return 0;

free_table:
	free_percpu(o->lines);
	free_percpu(o->sleeps);
	kvbench_table_free(&o->table);
free_fifo:
	kfifo_free(&o->fifo);
	return ret;
}

/* Stop the thread once it has answered everything queued; idempotent. */
static void kvbench_owner_stop(struct kvbench_owner *o)
{
	if (o->task) {
		mutex_lock(&owners_lock);
		list_del(&o->link);
		mutex_unlock(&owners_lock);
		kthread_stop(o->task);
		o->task = NULL;
	}
}

/* Stop the owner and free what kvbench_owner_start() set up. */
void kvbench_owner_free(struct kvbench_owner *o)
{
	kvbench_owner_stop(o);
	free_percpu(o->lines);
	o->lines = NULL;
	free_percpu(o->sleeps);
	o->sleeps = NULL;
	kvbench_table_free(&o->table);
	kfifo_free(&o->fifo);
}

/*
 * Hand the owner's items to @fn. Called with no request in flight, so the
 * owner is not touching its table: it touches it only to answer a message,
 * and its answers to the last ones (then switch_sem) order its last
 * access before ours. The thread lives on: a switch that fails gives the
 * items back through kvbench_owner_adopt().
 */
void kvbench_owner_drain(struct kvbench_owner *o,
			 void (*fn)(struct kvbench_item *item, void *arg),
			 void *arg)
{
	kvbench_table_drain(&o->table, fn, arg);
}

/*
 * Link an item while no request is in flight, so the owner is not touching
 * its table; the completion of the switch (percpu_up_write() and the next
 * message's owner_fifo_put()) orders this before the owner's next access.
 */
void kvbench_owner_adopt(struct kvbench_owner *o, struct kvbench_item *item)
{
	kvbench_table_adopt(&o->table, item);
}

/* Every item is in, no request in flight (as for kvbench_owner_adopt()). */
void kvbench_owner_adopted(struct kvbench_owner *o)
{
	kvbench_table_recount(&o->table);
}

/* @count less its baseline (see kvbench_owner_reset_stats()). */
static unsigned long owner_count(const unsigned long *count,
				 const unsigned long *base)
{
	/*
	 * Pairs with smp_store_release() in kvbench_owner_reset_stats(): a
	 * baseline seen here was read from a count no newer than the one
	 * read next.
	 */
	unsigned long b = smp_load_acquire(base);

	return READ_ONCE(*count) - b;
}

/* The callers' sleeps, summed over the CPUs they counted them on. */
static unsigned long owner_sleeps(struct kvbench_owner *o)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*per_cpu_ptr(o->sleeps, cpu));
	return sum;
}

unsigned long kvbench_owner_stat(struct kvbench_owner *o,
				 enum kvbench_stat stat)
{
	unsigned long base;
	u64 ns;

	switch (stat) {
	case KVBENCH_STAT_QUEUE_HWM:
		return READ_ONCE(o->queue_hwm);
	case KVBENCH_STAT_DRAIN_PASSES:
		return owner_count(&o->passes, &o->passes_base);
	case KVBENCH_STAT_DRAINED:
		return owner_count(&o->drained, &o->drained_base);
	case KVBENCH_STAT_QUEUE_FULL:
		return atomic_long_read(&o->queue_full);
	case KVBENCH_STAT_SLEEPS:
		/* As owner_count(): the baseline first. */
		base = smp_load_acquire(&o->sleeps_base);
		return owner_sleeps(o) - base;
	case KVBENCH_STAT_OWNERS:
		return 1;
	case KVBENCH_STAT_POLL_US:
		/*
		 * As owner_count(), 64 bits wide. Pairs with
		 * atomic64_set_release() in kvbench_owner_reset_stats().
		 */
		ns = atomic64_read_acquire(&o->polled_base);
		return div_u64(atomic64_read(&o->polled_ns) - ns,
			       NSEC_PER_USEC);
	default:
		return kvbench_table_stat(&o->table, stat);
	}
}

/* Called with the stats reset's mutex held: the baselines' only writer. */
void kvbench_owner_reset_stats(struct kvbench_owner *o)
{
	WRITE_ONCE(o->queue_hwm, 0);
	/* Pairs with smp_load_acquire() in owner_count(). */
	smp_store_release(&o->passes_base, READ_ONCE(o->passes));
	/* Pairs with smp_load_acquire() in owner_count(). */
	smp_store_release(&o->drained_base, READ_ONCE(o->drained));
	/* Pairs with atomic64_read_acquire() in kvbench_owner_stat(). */
	atomic64_set_release(&o->polled_base, atomic64_read(&o->polled_ns));
	atomic_long_set(&o->queue_full, 0);
	/* Pairs with smp_load_acquire() in kvbench_owner_stat(). */
	smp_store_release(&o->sleeps_base, owner_sleeps(o));
}
