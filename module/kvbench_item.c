// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench items: the key/value records every backend stores.
 *
 * The core allocates an item and fills it from user memory before any
 * backend lock is taken; a backend only links, unlinks and releases it.
 */
#include <linux/hash.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "kvbench.h"

static u64 kvbench_hash_seed __read_mostly;

void kvbench_hash_init(void)
{
	kvbench_hash_seed = get_random_u64();
}

/*
 * Words at any address of a key (get_unaligned(), whose header moved
 * between the kernels the module builds for).
 */
struct kvbench_u64 {
	u64 v;
} __packed;

struct kvbench_u32 {
	u32 v;
} __packed;

/* One word into the state: bijective in @w for a given @h. */
static __always_inline u64 kvbench_hash_mix(u64 h, u64 w)
{
	return rol64((h ^ w) * GOLDEN_RATIO_64, 29);
}

/*
 * The key's hash, for the tables' buckets (hash_32() of it) and the
 * compare's first test. A word at a time: the key's 8-byte words in turn,
 * the last one read where it ends (overlapping the one before when the
 * length is not a multiple of 8), a key under 8 bytes read as two
 * overlapping halves or its first, middle and last byte; the length goes
 * into the seed, so keys of different lengths that read the same words
 * differ. About one instruction per key byte, where jhash() took three
 * (tools/vm/icount.sh, Documentation/results.rst). Not a defence against
 * chosen collisions beyond what a random seed gives, as jhash() was not.
 */
u32 kvbench_hash(const void *data, u32 len)
{
	const u8 *p = data, *last;
	u64 h = kvbench_hash_seed ^ ((u64)len * GOLDEN_RATIO_64);
	u64 w;

	if (len >= sizeof(u64)) {
		last = p + len - sizeof(u64);
		for (; p < last; p += sizeof(u64))
			h = kvbench_hash_mix(h, ((const struct kvbench_u64 *)p)->v);
		w = ((const struct kvbench_u64 *)last)->v;
	} else if (len >= sizeof(u32)) {
		w = (u64)((const struct kvbench_u32 *)p)->v << 32 |
		    ((const struct kvbench_u32 *)(p + len - sizeof(u32)))->v;
	} else {
		w = len ? (u32)p[0] << 16 | (u32)p[len / 2] << 8 | p[len - 1] : 0;
	}
	h = kvbench_hash_mix(h, w);
	h ^= h >> 32;
	return (h * GOLDEN_RATIO_64) >> 32;
}
EXPORT_SYMBOL_IF_KUNIT(kvbench_hash);

struct kvbench_item *kvbench_item_alloc(u32 key_len, u32 value_len)
{
	struct kvbench_item *item;

	/* The caller's SET sizes it: charge the caller, and no warning. */
	item = kvmalloc(struct_size(item, data, (size_t)key_len + value_len),
			GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!item)
		return NULL;
	INIT_HLIST_NODE(&item->node);
	refcount_set(&item->ref, 1);
	item->key_len = key_len;
	item->value_len = value_len;
	return item;
}
EXPORT_SYMBOL_IF_KUNIT(kvbench_item_alloc);

void kvbench_item_put(struct kvbench_item *item)
{
	/* Also called from RCU callbacks: kvfree() is fine in softirq. */
	if (refcount_dec_and_test(&item->ref))
		kvfree(item);
}
EXPORT_SYMBOL_IF_KUNIT(kvbench_item_put);

/*
 * Items handed to call_rcu() whose callback has not run yet, per CPU: the
 * CPU that queues one adds 1, the CPU that runs its callback takes 1 (not
 * always the same CPU, so one CPU's count may go below 0; the sum does not).
 * Each CPU writes only its own counter, so an unlink writes no line that
 * other CPUs write.
 */
static DEFINE_PER_CPU(long, kvbench_pending);

static void kvbench_item_put_cb(struct rcu_head *head)
{
	kvbench_item_put(container_of(head, struct kvbench_item, rcu));
	this_cpu_dec(kvbench_pending);
}

/**
 * kvbench_items_pending() - items unlinked and not yet freed by RCU
 *
 * The sum over the CPUs; while operations run it is a snapshot that may be
 * off by those in flight. After kvbench_settle() with nothing running, 0.
 */
unsigned long kvbench_items_pending(void)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*per_cpu_ptr(&kvbench_pending, cpu));
	return sum > 0 ? sum : 0;
}

/**
 * kvbench_item_put_rcu() - drop the map's reference after a grace period
 * @item:	an item just unlinked from an RCU-read map
 *
 * Readers that found @item inside an RCU read section may still copy from
 * it or pin it; they rely on the map's reference outliving their section.
 * The caller of the module's exit path runs rcu_barrier() before unload.
 */
void kvbench_item_put_rcu(struct kvbench_item *item)
{
	this_cpu_inc(kvbench_pending);
	call_rcu(&item->rcu, kvbench_item_put_cb);
}

/*
 * Bucket tables: an array of hlist heads indexed by the key's hash. They
 * carry no lock; each backend says what protects its table.
 */

int kvbench_table_init(struct kvbench_table *t, unsigned int bits)
{
	size_t i;

	t->bits = bits;
	/* Sized by hash_bits: a failure is the writer's ENOMEM, not a splat. */
	t->buckets = kvmalloc_array(1UL << bits, sizeof(*t->buckets),
				    GFP_KERNEL | __GFP_NOWARN);
	if (!t->buckets)
		return -ENOMEM;
	for (i = 0; i < (1UL << bits); i++)
		INIT_HLIST_HEAD(&t->buckets[i]);
	return 0;
}

void kvbench_table_free(struct kvbench_table *t)
{
	kvfree(t->buckets);
	t->buckets = NULL;
}

/*
 * Find @key, counting in *@walked the items looked at: the whole chain
 * when @key is not there. The caller excludes writers of the table.
 */
struct kvbench_item *kvbench_table_find_len(const struct kvbench_table *t,
					    const struct kvbench_key *key,
					    unsigned int *walked)
{
	struct kvbench_item *item;

	*walked = 0;
	hlist_for_each_entry(item, kvbench_table_bucket(t, key->hash), node) {
		if (kvbench_item_match(item, key))
			return item;
		(*walked)++;
	}
	return NULL;
}

/* What a table says of itself: KVBENCH_STAT_BUCKETS, _LONGEST_CHAIN. */
unsigned long kvbench_table_stat(const struct kvbench_table *t,
				 enum kvbench_stat stat)
{
	switch (stat) {
	case KVBENCH_STAT_BUCKETS:
		return 1UL << t->bits;
	case KVBENCH_STAT_LONGEST_CHAIN:
		/* Written by the table's writer: marked on both sides. */
		return READ_ONCE(t->longest);
	default:
		return 0;
	}
}

/* Link @item during a switch: no reader, no writer. */
void kvbench_table_adopt(struct kvbench_table *t, struct kvbench_item *item)
{
	hlist_add_head(&item->node, kvbench_table_bucket(t, item->hash));
}

/* Buckets, and items, a recount walks between two scheduling points. */
#define KVBENCH_RECOUNT_BATCH	256

/*
 * Count the longest chain anew, once a switch has moved every item in (no
 * reader, no writer): one walk of the table, not one of a chain per item,
 * which into an overfull table would cost entries squared over buckets.
 */
void kvbench_table_recount(struct kvbench_table *t)
{
	const struct hlist_node *node;
	unsigned int n, longest = 0;
	unsigned long seen = 0;
	size_t i;

	for (i = 0; i < (1UL << t->bits); i++) {
		n = 0;
		hlist_for_each(node, &t->buckets[i]) {
			n++;
			if (++seen % KVBENCH_RECOUNT_BATCH == 0)
				cond_resched();
		}
		longest = max(longest, n);
		if (i % KVBENCH_RECOUNT_BATCH == 0)
			cond_resched();
	}
	WRITE_ONCE(t->longest, longest);
}

/**
 * kvbench_table_exec() - run one request on a table its caller has alone
 * @t:		the table: nobody else reads or writes it meanwhile
 * @req:	a prepared GET, SET or DEL; ->result is set
 *
 * For the backends whose table has one user at a time (an owner thread,
 * a combiner). Frees what a SET replaced or a DEL removed, at once: no
 * reader can hold it. May sleep (freeing a large item).
 */
void kvbench_table_exec(struct kvbench_table *t, struct kvbench_req *req)
{
	struct kvbench_item *item;
	struct kvbench_key key;
	unsigned int walked;

	switch (req->op) {
	case KVBENCH_OP_GET:
		item = kvbench_table_find(t, &req->key);
		req->result = item ? kvbench_get_fill(&req->get, item) :
				     -ENOENT;
		break;
	case KVBENCH_OP_SET:
		key = kvbench_item_key(req->item);
		item = kvbench_table_find_len(t, &key, &walked);
		req->result = kvbench_charge(req->item, item);
		if (req->result)
			break;
		if (item) {
			hlist_add_before(&req->item->node, &item->node);
			hlist_del_init(&item->node);
			kvbench_item_put(item);
		} else {
			hlist_add_head(&req->item->node,
				       kvbench_table_bucket(t, key.hash));
			kvbench_table_linked(t, walked);
		}
		break;
	case KVBENCH_OP_DEL:
		item = kvbench_table_find(t, &req->key);
		req->result = item ? 0 : -ENOENT;
		if (item) {
			hlist_del_init(&item->node);
			kvbench_uncharge(item);
			kvbench_item_put(item);
		}
		break;
	}
}

/* Items a drain hands over between two scheduling points. */
#define KVBENCH_DRAIN_BATCH	256

/*
 * Unlink every item and pass it to @fn, which may link it elsewhere at once.
 * The caller excludes every
 * other user of the table, readers included, and holds no spinning lock:
 * a map of millions of entries takes a while, so the walk reschedules.
 */
void kvbench_table_drain(struct kvbench_table *t,
			 void (*fn)(struct kvbench_item *item, void *arg),
			 void *arg)
{
	struct kvbench_item *item;
	struct hlist_node *tmp;
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < (1UL << t->bits); i++) {
		hlist_for_each_entry_safe(item, tmp, &t->buckets[i], node) {
			hlist_del_init(&item->node);
			fn(item, arg);
			if (++n % KVBENCH_DRAIN_BATCH == 0)
				cond_resched();
		}
		if (i % KVBENCH_DRAIN_BATCH == 0)
			cond_resched();
	}
}
