// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench core: the backends, the one in use, the runtime switch between
 * them, and the run of every operation. Around it:
 *
 *   kvbench_module.c  the module's parameters, init and exit
 *   kvbench_dev.c     /dev/kvbench and its ioctls
 *   kvbench_req.c     prepare (copy in, validate) and complete (copy out)
 *   kvbench_sysfs.c   /sys/class/misc/kvbench/ and the operation counters
 *   kvbench_limits.c  max_entries, max_bytes and their accounting
 *
 * Every operation follows the same path:
 *
 *   kvbench_prepare()   user memory, no lock held
 *   kvbench_run()       under switch_sem (read), backend's own locking
 *   kvbench_complete()  user memory, no lock held
 *
 * so nothing that may fault or sleep ever runs under a backend's spinning
 * lock or inside an RCU read section.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu-rwsem.h>
#include <linux/sched/clock.h>
#include <linux/sysfs.h>

#include "kvbench.h"
#include "kvbench_backends.h"
#include "kvbench_trace.h"

static const struct kvbench_backend_ops * const kvbench_backends[] = {
	&kvbench_rwlock_ops,
	&kvbench_rcu_ops,
	&kvbench_kthread_ops,
	&kvbench_kthread_percpu_ops,
	&kvbench_rhashtable_ops,
	&kvbench_combining_ops,
};

static_assert(ARRAY_SIZE(kvbench_backends) <= KVBENCH_BACKENDS_MAX);

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

	/*
	 * Requests that kvbench_run_async() queued to a backend's thread
	 * and that it has not answered yet: raised under switch_sem (read),
	 * lowered by the backend's thread once it is done with the request
	 * and the map. A switch waits, holding switch_sem for write, until
	 * it is 0: the read side cannot be held across the wait for an
	 * answer, which the submitter does not wait for.
	 */
	atomic_t async_inflight;
	wait_queue_head_t async_idle;	/* woken when it drops to 0 */
} kvbench;

/*
 * Serialises backend switches with each other and with module init and
 * exit. Protects kvbench_live and kvbench_backend_name, and kvbench.backend
 * against being replaced (switch_sem covers the operations in flight).
 */
static DEFINE_MUTEX(kvbench_switch_mutex);
static bool kvbench_live;
static char kvbench_backend_name[KVBENCH_NAME_MAX] = "rcu";

/*
 * What a map created now gets: the module's parameters hash_bits,
 * queue_len and owners (kvbench_module.c), read without a lock.
 */
unsigned int kvbench_hash_bits = 12;
unsigned int kvbench_queue_len = 256;
unsigned int kvbench_owners;

const struct kvbench_backend_ops *kvbench_find_backend(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kvbench_backends); i++)
		if (sysfs_streq(name, kvbench_backends[i]->name))
			return kvbench_backends[i];
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(kvbench_find_backend);

/* The @i-th backend of the table kvbench_find_backend() searches; NULL past it. */
const struct kvbench_backend_ops *kvbench_backend_at(unsigned int i)
{
	return i < ARRAY_SIZE(kvbench_backends) ? kvbench_backends[i] : NULL;
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
	p->hash_bits = READ_ONCE(kvbench_hash_bits);
	p->queue_len = READ_ONCE(kvbench_queue_len);
	p->owners = READ_ONCE(kvbench_owners);
	p->entries = kvbench_entries();
}

static struct kvbench_backend *
kvbench_create(const struct kvbench_backend_ops *ops)
{
	struct kvbench_params p;

	kvbench_params_now(&p);
	return kvbench_backend_create(ops, &p);
}

/*
 * A switch in progress: where items go, those that did not fit, and how
 * many the new map took (for the kvbench_switch event).
 */
struct kvbench_move {
	struct kvbench_backend *to;
	struct hlist_head refused;	/* linked through ->node */
	unsigned long moved;
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
	} else {
		mv->moved++;
	}
}

/*
 * Give the items of a switch that failed back to @to, the old map. Its
 * @adopt cannot fail: only a backend with KVBENCH_BACKEND_ADOPT_MAY_FAIL
 * may refuse an item, and such a map is never replaced by its own kind
 * (kvbench_differs()).
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
	/* Its items could not come back to it if the new map refused one. */
	if (ops->flags & KVBENCH_BACKEND_ADOPT_MAY_FAIL)
		return false;
	kvbench_params_now(&p);
	return ((used & KVBENCH_PARAM_HASH_BITS) &&
		p.hash_bits != b->params.hash_bits) ||
	       ((used & KVBENCH_PARAM_QUEUE_LEN) &&
		p.queue_len != b->params.queue_len) ||
	       ((used & KVBENCH_PARAM_OWNERS) &&
		p.owners != b->params.owners);
}

/*
 * Record a switch from @from to @to that started at @start (local_clock(),
 * taken only when the event was enabled; 0 otherwise) and kept operations
 * waiting for @blocked ns.
 */
static void kvbench_trace_switch(const char *from, const char *to,
				 unsigned long moved, int result, u64 start,
				 u64 blocked)
{
	if (trace_kvbench_switch_enabled())
		trace_kvbench_switch(from, to, moved, result,
				     start ? local_clock() - start : 0,
				     blocked);
}

/*
 * Wait until no request queued by kvbench_run_async() is in a backend's
 * hands. The caller holds switch_sem for write, so none is queued
 * meanwhile; each that is answers in bounded time (an owner answers
 * every message it queued before it sleeps or stops).
 */
static void kvbench_async_wait(void)
{
	/* Acquire: pairs with the fully ordered atomic_dec_and_test(). */
	wait_event(kvbench.async_idle,
		   !atomic_read_acquire(&kvbench.async_inflight));
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
	u64 start = 0, blocked = 0;
	struct kvbench_item *item;
	struct hlist_node *tmp;
	const char *from;

	lockdep_assert_held(&kvbench_switch_mutex);

	if (!kvbench_differs(kvbench.backend, ops))
		return 0;
	if (trace_kvbench_switch_enabled())
		start = local_clock();
	/* The old map's ops outlive it: they are static. */
	from = kvbench.backend->ops->name;
	new = kvbench_create(ops);
	if (IS_ERR(new)) {
		kvbench_trace_switch(from, ops->name, 0, PTR_ERR(new), start, 0);
		return PTR_ERR(new);
	}

	percpu_down_write(&kvbench.switch_sem);
	if (start)
		blocked = local_clock();
	kvbench_async_wait();
	old = kvbench.backend;
	mv.to = new;
	old->ops->drain(old, kvbench_move_cb, &mv);
	if (mv.err) {
		new->ops->drain(new, kvbench_move_back_cb, old);
		/* Every entry but one may have been refused: a long walk. */
		hlist_for_each_entry_safe(item, tmp, &mv.refused, node) {
			hlist_del_init(&item->node);
			kvbench_move_back_cb(item, old);
			cond_resched();
		}
		swap(old, new);
	}
	/* The map in place has every item: it may count what they make. */
	if (new->ops->adopted)
		new->ops->adopted(new);
	kvbench.backend = new;
	percpu_up_write(&kvbench.switch_sem);
	if (start)
		blocked = local_clock() - blocked;

	old->ops->destroy(old);
	kvbench_trace_switch(from, ops->name, mv.moved, mv.err, start, blocked);
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

/* The backend= parameter and the sysfs file backend, as they read. */
int kvbench_backend_name_show(char *buf)
{
	int ret;

	mutex_lock(&kvbench_switch_mutex);
	ret = sysfs_emit(buf, "%s\n", kvbench_backend_name);
	mutex_unlock(&kvbench_switch_mutex);
	return ret;
}

/*
 * Whether the core serves operations (between kvbench_core_init() and
 * kvbench_core_exit()); before, a switch only names the backend to start.
 */
bool kvbench_core_live(void)
{
	return READ_ONCE(kvbench_live);
}

/**
 * kvbench_backend_stats() - statistics of the backend in use
 * @which:	the statistics
 * @val:	out: their values, 0 for those the backend does not keep
 * @n:		how many
 *
 * All @n are read from the same backend: no switch runs in between.
 */
void kvbench_backend_stats(const enum kvbench_stat *which, unsigned long *val,
			   unsigned int n)
{
	struct kvbench_backend *b;
	unsigned int i;

	mutex_lock(&kvbench_switch_mutex);
	b = kvbench.backend;
	for (i = 0; i < n; i++)
		val[i] = b && b->ops->stat ? b->ops->stat(b, which[i]) : 0;
	mutex_unlock(&kvbench_switch_mutex);
}

/* Zero the statistics of the backend in use. */
void kvbench_backend_reset_stats(void)
{
	struct kvbench_backend *b;

	mutex_lock(&kvbench_switch_mutex);
	b = kvbench.backend;
	if (b && b->ops->reset_stats)
		b->ops->reset_stats(b);
	mutex_unlock(&kvbench_switch_mutex);
}

/**
 * kvbench_settle() - finish the work earlier operations left behind
 *
 * So that a benchmark's next run starts from the state the previous one
 * would have reached had it waited: every io_uring request queued to a
 * backend's thread answered, the backend's own deferred work (a table's
 * resize, a pass handed to a work item of its own) done, and every item
 * unlinked before the call freed (their RCU callbacks run: rcu_barrier()).
 * Operations may run meanwhile: they wait only while switch_sem is held
 * for write, and what they leave behind is theirs to settle. May sleep.
 */
void kvbench_settle(void)
{
	struct kvbench_backend *b;

	/* Keeps ->backend in place: a switch also holds it. */
	mutex_lock(&kvbench_switch_mutex);
	b = kvbench.backend;
	if (b) {
		/* Nothing is queued while the write side is held. */
		percpu_down_write(&kvbench.switch_sem);
		kvbench_async_wait();
		percpu_up_write(&kvbench.switch_sem);
		if (b->ops->settle)
			b->ops->settle(b);
	}
	mutex_unlock(&kvbench_switch_mutex);
	/* After ->settle: a resize frees its old table through call_rcu(). */
	rcu_barrier();
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

static void kvbench_backend_run_ops(struct kvbench_backend *b,
				    struct kvbench_req *reqs, unsigned int n)
{
	unsigned int i;

	if (n > 1 && b->ops->batch) {
		b->ops->batch(b, reqs, n);
		return;
	}
	for (i = 0; i < n; i++)
		kvbench_run_one(b, &reqs[i]);
}

/*
 * kvbench_backend_run() with a kvbench_op event per request once the
 * backend ran them all. The events read the requests only (see struct
 * kvbench_req): a SET's item is the map's, which may have freed it.
 */
static noinline void kvbench_backend_run_traced(struct kvbench_backend *b,
						struct kvbench_req *reqs,
						unsigned int n)
{
	unsigned int i;

	kvbench_backend_run_ops(b, reqs, n);
	for (i = 0; i < n; i++)
		trace_kvbench_op(b->ops->name, &reqs[i], n);
}

/* Run prepared requests, in order, on @b. */
void kvbench_backend_run(struct kvbench_backend *b, struct kvbench_req *reqs,
			 unsigned int n)
{
	if (trace_kvbench_op_enabled())
		kvbench_backend_run_traced(b, reqs, n);
	else
		kvbench_backend_run_ops(b, reqs, n);
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

/*
 * Take switch_sem for read, so that the backend in use stays in use, and
 * return it; with @nowait, NULL instead of waiting for a switch to end.
 */
static struct kvbench_backend *kvbench_switch_enter(bool nowait)
{
	if (!nowait)
		percpu_down_read(&kvbench.switch_sem);
	else if (!percpu_down_read_trylock(&kvbench.switch_sem))
		return NULL;
	return kvbench.backend;
}

/*
 * A backend's thread answered a request of kvbench_run_async(): record
 * it, let a switch that waits for it go on, then hand it back. The event
 * reads the request, not a SET's item: the map may have freed that (a DEL
 * that ran in the same owner pass or combiner pass).
 */
static void kvbench_async_answered(struct kvbench_msg *msg)
{
	struct kvbench_async *a = container_of(msg, struct kvbench_async, msg);

	if (trace_kvbench_op_enabled())
		trace_kvbench_op(a->backend, msg->head, 1);
	/* Release: the backend's accesses to its map come before. */
	if (atomic_dec_and_test(&kvbench.async_inflight))
		wake_up(&kvbench.async_idle);
	a->done(a);
}

/**
 * kvbench_run_async() - run one prepared request, or queue it
 * @ap:		in: ->msg.head is the request, ->done what to call once a
 *		queued one ran; out: where the request is now: @*ap, or the
 *		copy @keep made
 * @keep:	NULL when @*ap (the request, and all it points to) lives
 *		until ->done; else what is called, under switch_sem (read;
 *		may sleep), when the backend in use would queue the request:
 *		it returns a copy of @*ap, with the request and all it points
 *		to, that lives until ->done, or NULL when there is no memory.
 *		The core then uses the copy only.
 * @nowait:	do not sleep for a switch to end: return -EAGAIN instead (a
 *		full queue never makes it wait; @keep may sleep to allocate)
 *
 * The run step of a caller that may not wait for a backend's thread (an
 * io_uring command): the backend in use decides, under switch_sem (read),
 * as kvbench_run() holds it. One without ->submit runs the request now, in
 * the caller's context. One with ->submit gets it queued to its thread,
 * which answers later through ->done; the request must then outlive the
 * call, so @keep, if set, first moves it where it does. The read side is
 * held only while the request is queued: a switch waits for the queued
 * ones (async_inflight) instead.
 *
 * Nothing is decided before switch_sem is taken, so a switch between the
 * caller's prepare and this call changes nothing: a prepared request
 * belongs to no backend, and it runs on, or is queued to, whichever is in
 * use now.
 *
 * Return: KVBENCH_RAN when the request ran (->done is not called: the
 * caller completes it from @*ap), KVBENCH_QUEUED when it is queued (->done
 * will be called with @*ap), or a negative errno when it did not run and
 * the core holds nothing: -EAGAIN (only with @nowait) when a switch holds
 * switch_sem, -ENOMEM when @keep failed, or ->submit's errno (@*ap may be
 * @keep's copy then).
 */
int kvbench_run_async(struct kvbench_async **ap,
		      struct kvbench_async *(*keep)(struct kvbench_async *a),
		      bool nowait)
{
	struct kvbench_async *a = *ap;
	struct kvbench_backend *b;
	int ret = KVBENCH_RAN;

	b = kvbench_switch_enter(nowait);
	if (!b)
		return -EAGAIN;
	if (!b->ops->submit) {
		kvbench_backend_run(b, a->msg.head, 1);
		goto unlock;
	}
	if (keep) {
		a = keep(a);
		if (!a) {
			ret = -ENOMEM;
			goto unlock;
		}
		*ap = a;
	}
	a->backend = b->ops->name;
	a->msg.answered = kvbench_async_answered;
	atomic_inc(&kvbench.async_inflight);
	ret = b->ops->submit(b, &a->msg);
	if (!ret) {
		ret = KVBENCH_QUEUED;
	} else {
		/* Ran already (KVBENCH_SUBMIT_RAN), or not queued. */
		if (ret == KVBENCH_SUBMIT_RAN) {
			if (trace_kvbench_op_enabled())
				trace_kvbench_op(a->backend, a->msg.head, 1);
			ret = KVBENCH_RAN;
		}
		/* A switch may be waiting for this one too. */
		if (atomic_dec_and_test(&kvbench.async_inflight))
			wake_up(&kvbench.async_idle);
	}
unlock:
	percpu_up_read(&kvbench.switch_sem);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kvbench_run_async);

/* Undo whatever part of kvbench_core_init() was done. */
void kvbench_core_exit(void)
{
	struct kvbench_backend *b;

	mutex_lock(&kvbench_switch_mutex);
	kvbench_live = false;
	b = kvbench.backend;
	kvbench.backend = NULL;
	mutex_unlock(&kvbench_switch_mutex);

	/*
	 * No file is open and sysfs is gone: nothing else uses @b. An
	 * io_uring command holds its file until it completes, which comes
	 * after its answer: none is queued (kvbench_async_wait() says so).
	 */
	if (b) {
		kvbench_async_wait();
		b->ops->drain(b, kvbench_release_cb, NULL);
		b->ops->destroy(b);
	}
	/* Wait for kvbench_item_put_rcu() callbacks: they call our code. */
	rcu_barrier();

	percpu_free_rwsem(&kvbench.switch_sem);
}

/*
 * Start serving: the backend that the backend= parameter named, created
 * with the parameters as they are now. Undoes itself on failure.
 */
int kvbench_core_init(void)
{
	const struct kvbench_backend_ops *ops;
	struct kvbench_backend *b;
	int ret;

	kvbench_hash_init();

	init_waitqueue_head(&kvbench.async_idle);
	ret = percpu_init_rwsem(&kvbench.switch_sem);
	if (ret)
		return ret;

	mutex_lock(&kvbench_switch_mutex);
	ops = kvbench_find_backend(kvbench_backend_name);
	b = ops ? kvbench_create(ops) : ERR_PTR(-EINVAL);
	if (!IS_ERR(b)) {
		kvbench.backend = b;
		kvbench_live = true;
	}
	mutex_unlock(&kvbench_switch_mutex);
	if (IS_ERR(b)) {
		kvbench_core_exit();
		return PTR_ERR(b);
	}
	return 0;
}
