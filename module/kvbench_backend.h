/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvbench for backends: all that a backend may use, and what it offers the
 * core (struct kvbench_backend_ops). Items and keys, the hash table, the
 * limits' accounting, the statistics a backend may keep, and the owner
 * machinery (kvbench_owner.c): a library of owner threads, their messages
 * and the adaptive spin of a caller that waits for an answer, which
 * backends use by its contract here, not by its internals.
 *
 * A backend includes this header, kvbench_backends.h (to define its ops)
 * and, for the shared trace events, kvbench_trace.h; its own events are in
 * a trace header of its own that it creates (backend_<name>_trace.h);
 * never kvbench.h (the core's own) nor another backend's file. It sees
 * nothing of user memory: the core copies keys and values in before
 * calling it and copies results out after it returns.
 */
#ifndef _KVBENCH_BACKEND_H
#define _KVBENCH_BACKEND_H

#include <linux/completion.h>
#include <linux/hash.h>
#include <linux/kfifo.h>
#include <linux/llist.h>
#include <linux/kvbench.h>
#include <kunit/visibility.h>
#include <linux/list.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/rhashtable-types.h>
#include <linux/string.h>
#include <linux/types.h>

/*
 * Bytes charged against max_bytes for each entry on top of its key and
 * value: a round figure for the item header and the backend's link, so
 * that the limit means the same for every backend.
 */
#define KVBENCH_ENTRY_OVERHEAD	64

/*
 * A GET copies values up to this size into a caller-provided buffer while
 * the backend holds its read-side protection, so that such a GET writes no
 * cache line shared with other CPUs. Larger values are pinned with a
 * reference instead and copied to user memory from the item itself.
 */
#define KVBENCH_GET_INLINE	512

/**
 * struct kvbench_item - one key and its value, as stored by every backend
 * @node:	the link of backends with hash chains
 * @rhead:	the link of backends that keep items in a struct rhashtable;
 *		only the backend holding the item uses either
 * @rcu:	for backends whose readers need a grace period before a put
 * @ref:	one reference for the map that holds the item, one per pending
 *		GET that pinned a large value, one while the kvbench_op event
 *		of a SET records it
 * @hash:	hash of the key, computed once by the core
 * @key_len:	bytes of key at the start of @data
 * @value_len:	bytes of value right after the key
 * @data:	the key then the value
 *
 * Items are immutable once published: an overwrite links a new item and
 * releases the old one.
 */
struct kvbench_item {
	union {
		struct hlist_node node;
		struct rhash_head rhead;
	};
	struct rcu_head rcu;
	refcount_t ref;
	u32 hash;
	u32 key_len;
	u32 value_len;
	u8 data[];
};

/**
 * struct kvbench_key - a key to look up, in kernel memory
 * @data:	the key bytes
 * @len:	1..KVBENCH_KEY_MAX
 * @hash:	kvbench_hash() of the bytes
 */
struct kvbench_key {
	const u8 *data;
	u32 len;
	u32 hash;
};

/**
 * struct kvbench_gather - where the GETs of one MGET leave their values
 * @buf:	small values (up to KVBENCH_GET_INLINE bytes), back to back
 * @used:	bytes of @buf taken
 * @room:	bytes of the caller's output not yet taken, by small and
 *		large values alike
 *
 * The GETs of an MGET run in array order (one after the other, or in
 * owner threads that answer one message before the next is posted), so
 * each finds @used and @room where the GETs before it left them: a value
 * that fits in @room takes its length of it, one that does not gets
 * -ERANGE and takes nothing. @buf needs min(caller's output, count *
 * KVBENCH_GET_INLINE) bytes.
 */
struct kvbench_gather {
	u8 *buf;
	u32 used;
	u32 room;
};

/**
 * struct kvbench_get - where a backend leaves the result of a GET
 * @buf:	room for min(@cap, KVBENCH_GET_INLINE) bytes
 * @cap:	size of the caller's user buffer
 * @len:	out: length of the value found
 * @ref:	out: the item, pinned, when the value was too big for @buf
 * @gather:	an MGET's GET: @buf and @cap are unused, a small value is
 *		appended to @gather instead
 */
struct kvbench_get {
	void *buf;
	u32 cap;
	u32 len;
	struct kvbench_item *ref;
	struct kvbench_gather *gather;
};

/**
 * struct kvbench_req - one operation handed to a backend
 * @op:		KVBENCH_OP_GET, KVBENCH_OP_SET or KVBENCH_OP_DEL
 * @result:	out: 0 or a negative errno
 * @key:	GET, DEL: the key. SET: only its length and hash, copied
 *		from @item (kvbench_req_set()); the bytes live in @item
 * @value_len:	SET: the length of @item's value, copied as @key's
 * @item:	SET: the new item; the backend owns it once it returns 0
 * @get:	GET: the result
 * @next:	free for the backend to chain requests
 *
 * Once a SET ran, the map may free its item at any time (another caller's
 * DEL): whoever reports the request afterwards (the kvbench_op event)
 * reads @key and @value_len, never @item.
 */
struct kvbench_req {
	u32 op;
	int result;
	struct kvbench_key key;
	u32 value_len;
	struct kvbench_item *item;
	struct kvbench_get get;
	struct kvbench_req *next;
};

/*
 * Make @req the SET of @item, recording what reports of it read (see
 * struct kvbench_req) while @item is still the request's alone.
 */
static inline void kvbench_req_set(struct kvbench_req *req,
				   struct kvbench_item *item)
{
	req->op = KVBENCH_OP_SET;
	req->item = item;
	req->key.data = NULL;
	req->key.len = item->key_len;
	req->key.hash = item->hash;
	req->value_len = item->value_len;
}

struct kvbench_backend;

/**
 * struct kvbench_msg - requests a backend runs for a caller that may not wait
 * @head:	the first request; the rest follow through ->next
 * @answered:	NULL, or what the backend calls once every request has run,
 *		from its own thread (or whoever ran them); must not sleep.
 *		The backend does not touch the message after the call.
 *
 * Each backend that queues requests wraps it in a message type of its own
 * (the owner machinery's struct kvbench_owner_msg, or a backend's own):
 * what it needs to queue, and to answer a caller that waits.
 */
struct kvbench_msg {
	struct kvbench_req *head;
	void (*answered)(struct kvbench_msg *msg);
};

/**
 * struct kvbench_params - how to size a new map
 * @hash_bits:	log2 of the bucket count, for backends with buckets
 * @queue_len:	request queue slots (a power of two), for backends that
 *		queue requests to an owner thread
 * @owners:	owner threads, for backends with several: 0 for one per
 *		KVBENCH_CPUS_PER_OWNER online CPUs
 * @entries:	how many entries the map is about to adopt (a hint)
 */
struct kvbench_params {
	unsigned int hash_bits;
	unsigned int queue_len;
	unsigned int owners;
	unsigned long entries;
};

/* Which of struct kvbench_params a backend's ->create uses (->params). */
#define KVBENCH_PARAM_HASH_BITS	BIT(0)
#define KVBENCH_PARAM_QUEUE_LEN	BIT(1)
#define KVBENCH_PARAM_OWNERS	BIT(2)

/* owners=0: one owner thread per this many online CPUs, rounded up. */
#define KVBENCH_CPUS_PER_OWNER	8
/* The most owner threads a map may have (the owners parameter). */
#define KVBENCH_OWNERS_MAX	1024

/*
 * Statistics only some backends keep (see ->stat), named for what they
 * count, not for who counts it: a backend keeps those that mean something
 * for it. Owner passes are those of a map's own threads; peer passes
 * those in which one caller ran other callers' requests (sysfs names
 * these combine_mean and handoffs).
 */
enum kvbench_stat {
	KVBENCH_STAT_QUEUE_HWM,		/* most messages ever queued at once */
	KVBENCH_STAT_DRAIN_PASSES,	/* owner passes that found messages */
	KVBENCH_STAT_DRAINED,		/* messages answered in those passes */
	KVBENCH_STAT_QUEUE_FULL,	/* times a caller found the queue full */
	KVBENCH_STAT_PEER_PASSES,	/* peer passes */
	KVBENCH_STAT_PEER_REQS,		/* requests peer passes ran */
	KVBENCH_STAT_PEER_HANDOFFS,	/* peer passes handed on to a caller */
	KVBENCH_STAT_SLEEPS,		/* times a caller slept for its answer */
	KVBENCH_STAT_OWNERS,		/* owner threads */
	KVBENCH_STAT_POLL_US,		/* us owners spent polling for work */
	KVBENCH_STAT_BUCKETS,		/* hash buckets, over every table */
	KVBENCH_STAT_LONGEST_CHAIN,	/* longest chain a table has had */
};

/**
 * struct kvbench_backend_ops - a concurrency backend
 * @name:	what the backend= parameter and the sysfs file call it
 * @create:	make an empty map sized by @p; may sleep. Returns an ERR_PTR
 *		on failure.
 * @destroy:	free an empty map (drained, or never used); may sleep
 * @get:	look up @req->key, fill @req->get with kvbench_get_fill()
 * @set:	insert or replace @req->item, charging it with kvbench_charge()
 *		under the lock that serialises writers of the key
 * @del:	unlink @req->key and kvbench_uncharge() it
 * @batch:	optional: run @n requests in order; without it the core calls
 *		@get/@set/@del one by one
 * @drain:	unlink every item and hand it (with the map's reference) to
 *		@fn, rescheduling now and then; the core calls it with no
 *		operation in flight. Unless the backend's @adopt can fail,
 *		the map stays usable: a failed switch gives the items back
 *		through @adopt.
 * @adopt:	link an item that comes from another map (already charged);
 *		called with no operation in flight; may sleep. Returns 0, or
 *		-ENOMEM when the map has no room for it and cannot make any.
 *		Only a backend with KVBENCH_BACKEND_ADOPT_MAY_FAIL may fail
 *		here: a switch then never moves its items into a map of its
 *		own kind (see kvbench_switch()), and a failed switch hands
 *		them back to a map whose @adopt cannot fail.
 * @adopted:	optional: a switch has linked every item it moved with @adopt
 *		(or given them back), still with no operation in flight; may
 *		sleep. For what adopt does not count (the longest chain).
 * @stat:	optional: the value of a backend-specific statistic, summed
 *		over its queues (QUEUE_HWM: the largest), 0 for those it
 *		does not keep
 * @reset_stats: optional: zero the backend-specific statistics
 * @settle:	optional: wait for the work the map deferred to a worker of
 *		its own (a table's resize, a pass handed to a work item); may
 *		sleep. Called with no request queued; operations may run.
 * @submit:	optional: queue the one request of @msg (->head, with ->next
 *		NULL) and return without waiting for it, nor for room in a
 *		full queue, nor for any other task: it must not block, since
 *		io_uring issues commands where they must not
 *		(IO_URING_F_NONBLOCK). It is called in process context,
 *		preemptible, under switch_sem (read) and no spinlock, so it
 *		may reschedule and may free memory (kvfree() may sleep), as a
 *		backend without it does in the same place: a backend may run
 *		the request, and others' after it, there. @msg is the start
 *		of a union kvbench_msg_room, for the backend's own message
 *		type around it. Once the request has run, the backend calls
 *		@msg->answered(@msg) from its own thread (or from whichever
 *		task ran it), which must not block there: every
 *		caller waits on that thread. Returns 0 (queued),
 *		KVBENCH_SUBMIT_RAN (ran already; ->answered is not called) or
 *		a negative errno (nothing was queued). Backends without it
 *		run every request before they return.
 *
 * @params:	the KVBENCH_PARAM_* that @create uses
 * @flags:	the KVBENCH_BACKEND_* that set the backend apart
 *
 * @get, @set, @del and @batch store their outcome in ->result. They may
 * run concurrently with each other from any number of tasks.
 */
struct kvbench_backend_ops {
	const char *name;
	unsigned int params;
	unsigned int flags;
	struct kvbench_backend *(*create)(const struct kvbench_params *p);
	void (*destroy)(struct kvbench_backend *b);
	void (*get)(struct kvbench_backend *b, struct kvbench_req *req);
	void (*set)(struct kvbench_backend *b, struct kvbench_req *req);
	void (*del)(struct kvbench_backend *b, struct kvbench_req *req);
	void (*batch)(struct kvbench_backend *b, struct kvbench_req *reqs,
		      unsigned int n);
	void (*drain)(struct kvbench_backend *b,
		      void (*fn)(struct kvbench_item *item, void *arg),
		      void *arg);
	int (*adopt)(struct kvbench_backend *b, struct kvbench_item *item);
	void (*adopted)(struct kvbench_backend *b);
	unsigned long (*stat)(struct kvbench_backend *b, enum kvbench_stat stat);
	void (*reset_stats)(struct kvbench_backend *b);
	void (*settle)(struct kvbench_backend *b);
	int (*submit)(struct kvbench_backend *b, struct kvbench_msg *msg);
};

/*
 * ->adopt may refuse an item, and ->drain may leave the map unusable: a
 * switch never rebuilds such a map as its own kind (its parameters are
 * those it was created with until a switch to another backend), nor gives
 * items back to it.
 */
#define KVBENCH_BACKEND_ADOPT_MAY_FAIL	BIT(0)

/* ->submit ran the message's requests already: ->answered is not called. */
#define KVBENCH_SUBMIT_RAN	1

/**
 * struct kvbench_backend - a map; each backend embeds it in its own state
 * @ops:	the backend
 * @params:	what the map was created with
 */
struct kvbench_backend {
	const struct kvbench_backend_ops *ops;
	struct kvbench_params params;
};

/* Items (kvbench_item.c) */
struct kvbench_item *kvbench_item_alloc(u32 key_len, u32 value_len);
void kvbench_item_put(struct kvbench_item *item);
void kvbench_item_put_rcu(struct kvbench_item *item);
u32 kvbench_hash(const void *data, u32 len);

/**
 * struct kvbench_table - hash buckets of items, linked through ->node
 * @bits:	log2 of the number of buckets
 * @longest:	the longest chain a link has made (a high-water mark: an
 *		unlink does not lower it); written by the table's writer,
 *		read by anyone (sysfs longest_chain)
 * @buckets:	the chains
 *
 * A table has no lock of its own: each backend documents what protects it.
 */
struct kvbench_table {
	unsigned int bits;
	unsigned int longest;
	struct hlist_head *buckets;
};

int kvbench_table_init(struct kvbench_table *t, unsigned int bits);
void kvbench_table_free(struct kvbench_table *t);

struct kvbench_item *kvbench_table_find_len(const struct kvbench_table *t,
					    const struct kvbench_key *key,
					    unsigned int *walked);
void kvbench_table_exec(struct kvbench_table *t, struct kvbench_req *req);
void kvbench_table_drain(struct kvbench_table *t,
			 void (*fn)(struct kvbench_item *item, void *arg),
			 void *arg);

static inline struct hlist_head *
kvbench_table_bucket(const struct kvbench_table *t, u32 hash)
{
	return &t->buckets[hash_32(hash, t->bits)];
}

/*
 * An item was linked into a chain that held @others: note the chain's
 * length. Called by the table's writer, after the link.
 */
static inline void kvbench_table_linked(struct kvbench_table *t,
					unsigned int others)
{
	if (others + 1 > t->longest)
		WRITE_ONCE(t->longest, others + 1);
}

/* Find @key; the caller excludes writers of the table. */
static inline struct kvbench_item *
kvbench_table_find(const struct kvbench_table *t, const struct kvbench_key *key)
{
	unsigned int walked;

	return kvbench_table_find_len(t, key, &walked);
}

unsigned long kvbench_table_stat(const struct kvbench_table *t,
				 enum kvbench_stat stat);
void kvbench_table_adopt(struct kvbench_table *t, struct kvbench_item *item);
void kvbench_table_recount(struct kvbench_table *t);

/**
 * struct kvbench_owner_msg - requests queued to an owner thread
 * @base:	the requests, and ->answered: NULL, or what the owner calls
 *		instead of completing @done, from the owner thread, once
 *		every request is answered (see struct kvbench_msg)
 * @done:	completed by the owner once every request is answered, if
 *		its caller went to sleep for it (see @state), unless
 *		@base.answered is set
 * @parked:	on the owner's @parked list while it waits there for room
 *		(kvbench_owner_submit(), kvbench_owner_post(); under the
 *		owner's in_lock); later, with @base.answered, on the owner's
 *		@answers from its run until the owner answers it (owner
 *		thread only)
 * @parked_at:	local_clock() when it was parked, for the kvbench_queue_full
 *		event; 0 when the event was off
 * @state:	how the answer reaches a caller that waits: written by it and
 *		by the owner (kvbench_owner.c)
 *
 * Lives with the caller (usually on its stack) until it is answered: a
 * message that kvbench_owner_post() queued must be waited for, and the
 * wait cannot be interrupted. A message with @base.answered set lives
 * until that call instead (the caller then never waits: see ->submit).
 */
struct kvbench_owner_msg {
	struct kvbench_msg base;
	struct completion done;
	struct list_head parked;
	u64 parked_at;
	atomic_t state;
	u64 answered_at;	/* when it was answered to a sleeping caller */
};

/* The owner message that ->submit's @msg is the start of. */
static inline struct kvbench_owner_msg *
kvbench_owner_msg_of(struct kvbench_msg *msg)
{
	return container_of(msg, struct kvbench_owner_msg, base);
}

/*
 * Room for the message of any backend with ->submit: ->submit's @msg is
 * the start of one. The owner machinery's is the largest; a backend with a
 * message type of its own asserts that it fits (static_assert()).
 */
union kvbench_msg_room {
	struct kvbench_msg msg;
	struct kvbench_owner_msg owner;
};

struct kvbench_owner_line;

/**
 * struct kvbench_owner - a kernel thread that owns a table (kvbench_owner.c)
 * @in_lock:	serialises producers putting messages into @fifo
 * @fifo:	many producers under @in_lock, one consumer (the owner thread)
 *		without a lock; its storage only: kvbench_owner.c moves its
 *		indices with acquire and release
 * @room:	callers whose messages are on @parked wait here until the
 *		owner has moved theirs into @fifo (owner_unpark())
 * @lines:	NULL, or a request line per possible CPU (KVBENCH_OWNER_LINES):
 *		one message slot that callers on that CPU claim with a
 *		cmpxchg and the owner empties; a caller whose line is taken
 *		uses @fifo (kvbench_owner.c, "Request lines")
 * @parked:	messages that found @fifo full, or other messages parked
 *		before them (io_uring commands, and callers' messages whose
 *		callers wait on @room), oldest first, under @in_lock; the
 *		owner moves them into @fifo as it frees slots, before any
 *		other producer gets one
 * @nr_parked:	how many are on @parked: written under @in_lock, read by
 *		the owner without it
 * @answers:	owner only: messages with ->answered that ran, by ->parked,
 *		oldest first; answered together (owner_answer_all())
 * @nr_answers:	owner only: how many are on @answers
 * @task:	the owner thread
 * @id:		the number in the thread's name, -1 for none (trace events)
 * @idle:	set by the owner before it checks @fifo a last time and
 *		sleeps; a producer that sees it set wakes the owner
 * @rt:		the thread runs at SCHED_FIFO priority 1
 * @busy_since:	owner only: jiffies when it last left its CPU to others
 * @demoted:	owner only: an @rt owner that runs as a normal task until
 *		it next goes idle, because it kept others off its CPU
 * @work_spin_ns: owner only: how long it spins for work before it sleeps
 * @link:	on the list of live owners, which a change of owner_cpus
 *		walks (under its mutex, in kvbench_owner.c)
 * @placed:	completed by the thread once it runs on owner_cpus
 * @answer_spin_ns: how long its callers spin for an answer before they
 *		sleep; any caller updates it (kvbench_owner_wait())
 * @table:	touched only by the owner thread, or by whoever stopped it
 * @queue_hwm:	written by the owner: most messages seen queued at once
 * @passes:	written by the owner: passes that found messages
 * @drained:	written by the owner: messages answered
 * @polled_ns:	written by the owner: ns it spent spinning for work; 64
 *		bits everywhere (an unsigned long of ns wraps every 4.3 s
 *		on 32-bit), atomic64_t so that a reader on 32-bit never
 *		sees half of an update
 * @passes_base: @passes at the last stats reset (written by the reset)
 * @drained_base: @drained at the last stats reset (written by the reset)
 * @polled_base: @polled_ns at the last stats reset (written by the reset)
 * @queue_full:	times a message waited for room in @fifo, a caller's
 *		or parked (slow path only)
 * @sleeps:	per CPU: times a caller stopped spinning to wait, counted on
 *		the caller's CPU (its callers are on every CPU: a shared
 *		counter would be a line they all write)
 * @sleeps_base: the sum of @sleeps at the last stats reset (written by
 *		the reset)
 *
 * A stats reset never writes what the owner or the callers write: it
 * records @passes, @drained, @polled_ns and the sum of @sleeps as their
 * baselines, and a read reports the counts above them
 * (kvbench_owner_stat()). It zeroes @queue_hwm, a maximum that
 * the owner only ever raises to what it sees queued.
 */
struct kvbench_owner {
	spinlock_t in_lock;	/* serialises producers of @fifo; @parked */
	DECLARE_KFIFO_PTR(fifo, struct kvbench_owner_msg *);
	wait_queue_head_t room;
	struct kvbench_owner_line __percpu *lines;
	struct list_head parked;
	unsigned int nr_parked;
	struct list_head answers;
	unsigned int nr_answers;
	struct task_struct *task;
	int id;
	bool idle;
	bool rt;
	unsigned long busy_since;
	bool demoted;
	u32 work_spin_ns;
	u32 answer_spin_ns;
	u64 kicked_at;		/* when a caller last woke the idle owner */
	struct list_head link;
	struct completion placed;
	struct kvbench_table table;
	unsigned long queue_hwm;
	unsigned long passes;
	unsigned long drained;
	atomic64_t polled_ns;
	unsigned long passes_base;
	unsigned long drained_base;
	atomic64_t polled_base;
	atomic_long_t queue_full;
	unsigned long __percpu *sleeps;
	unsigned long sleeps_base;
};

/* How an owner runs (kvbench_owner_start()). */
#define KVBENCH_OWNER_RT	BIT(0)	/* at SCHED_FIFO priority 1 */
#define KVBENCH_OWNER_LINES	BIT(1)	/* with per-CPU request lines */

int kvbench_owner_start(struct kvbench_owner *o,
			const struct kvbench_params *p, int id,
			unsigned int flags);
void kvbench_owner_free(struct kvbench_owner *o);

/*
 * The adaptive spin (kvbench_owner.c) of a caller that waits for another
 * task's answer before it sleeps: an owner's callers use it, and so may
 * any backend whose callers wait for one another. The backend keeps its
 * current spin (a u32 of ns, written by any caller without a lock) and
 * reads no parameter itself: kvbench_spin_min_ns() is the floor every spin
 * has now (the kthread_spin_us parameter; 0: nobody spins),
 * kvbench_spin_now() the spin to use now from the one kept, and
 * kvbench_spin_next() the one to keep after a wait of @waited_ns.
 */
/* Spins grow to at most this many times the floor. */
#define KVBENCH_SPIN_GROW	16
u32 kvbench_spin_next(u32 cur_ns, u64 waited_ns, u32 min_ns);
u64 kvbench_spin_waited(u64 start, u64 ready, u64 now);
u32 kvbench_spin_min_ns(void);
u32 kvbench_spin_now(u32 cur_ns);

int kvbench_owner_post(struct kvbench_owner *o, struct kvbench_owner_msg *msg);
int kvbench_owner_submit(struct kvbench_owner *o,
			 struct kvbench_owner_msg *msg);
void kvbench_owner_wait(struct kvbench_owner *o, struct kvbench_owner_msg *msg);
void kvbench_owner_drain(struct kvbench_owner *o,
			 void (*fn)(struct kvbench_item *item, void *arg),
			 void *arg);
void kvbench_owner_adopt(struct kvbench_owner *o, struct kvbench_item *item);
void kvbench_owner_adopted(struct kvbench_owner *o);
unsigned long kvbench_owner_stat(struct kvbench_owner *o,
				 enum kvbench_stat stat);
void kvbench_owner_reset_stats(struct kvbench_owner *o);
/* The owners' test knobs, for the module's debugfs directory (its init) */
struct dentry;
void kvbench_owner_debugfs(struct dentry *dir);

/* Limits and accounting (kvbench_limits.c); never sleep */
int kvbench_charge(const struct kvbench_item *item,
		   const struct kvbench_item *old);
void kvbench_uncharge(const struct kvbench_item *item);
void kvbench_charge_undo(const struct kvbench_item *item,
			 const struct kvbench_item *old);

static inline const u8 *kvbench_item_value(const struct kvbench_item *item)
{
	return item->data + item->key_len;
}

static inline size_t kvbench_item_bytes(const struct kvbench_item *item)
{
	return (size_t)item->key_len + item->value_len + KVBENCH_ENTRY_OVERHEAD;
}

static inline struct kvbench_key
kvbench_item_key(const struct kvbench_item *item)
{
	return (struct kvbench_key){
		.data = item->data, .len = item->key_len, .hash = item->hash,
	};
}

static inline bool kvbench_item_match(const struct kvbench_item *item,
				      const struct kvbench_key *key)
{
	return item->hash == key->hash && item->key_len == key->len &&
	       !memcmp(item->data, key->data, key->len);
}

/**
 * kvbench_get_fill() - answer a GET from @item
 * @get:	the request's result
 * @item:	the item found
 *
 * Call with the item protected from being freed (the backend's read lock,
 * an RCU read section, or ownership). Never sleeps.
 *
 * Return: 0, or -ERANGE when the caller's buffer is too small.
 */
static inline int kvbench_get_fill(struct kvbench_get *get,
				   struct kvbench_item *item)
{
	struct kvbench_gather *g = get->gather;
	void *buf = get->buf;
	u32 len = item->value_len;

	get->len = len;
	if (g) {
		/* An MGET's GET: its value goes where the last one ended. */
		if (len > g->room)
			return -ERANGE;
		g->room -= len;
		if (len <= KVBENCH_GET_INLINE) {
			buf = g->buf + g->used;
			g->used += len;
		}
	} else if (len > get->cap) {
		return -ERANGE;
	}
	if (len <= KVBENCH_GET_INLINE) {
		memcpy(buf, kvbench_item_value(item), len);
	} else {
		refcount_inc(&item->ref);
		get->ref = item;
	}
	return 0;
}

#endif /* _KVBENCH_BACKEND_H */
