// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench "rhashtable" backend: the rcu backend's read path over
 * <linux/rhashtable.h>, a table that grows and shrinks with its contents.
 *
 * Readers look up inside an RCU read section and take no lock, also while
 * the table is being resized. Writers are serialised by one lock, as in the
 * rcu backend, so that a SET's lookup, its charge against the limits and
 * its insert or replace are one step for every other writer (and a DEL's
 * lookup, remove and uncharge): no writer sees the map half changed, no SET
 * is refused for room a DEL has already freed, and no writer retries. The
 * rhashtable's own bucket locks still order writers against its resizer.
 * The map's reference on an unlinked item is dropped after a grace period,
 * as in the rcu backend.
 */
#include <kunit/visibility.h>
#include <linux/jhash.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "kvbench_backend.h"
#include "kvbench_backends.h"
#include "backend_rhashtable.h"

struct rht_map {
	struct kvbench_backend base;
	/*
	 * Serialises writers: which item a key maps to, and the charge
	 * that goes with each link and unlink. Readers do not take it.
	 */
	spinlock_t lock;
	struct rhashtable ht;
};

static struct rht_map *to_rht_map(struct kvbench_backend *b)
{
	return container_of(b, struct rht_map, base);
}

/*
 * Keys are struct kvbench_key. Their bytes are hashed again, with the seed
 * the table passes, not their kvbench_hash(): a table that finds a chain
 * too long rehashes with a new seed, which splits the chain only if the
 * hash depends on the bytes. Keys whose 32-bit kvbench_hash() collide
 * would stay in one chain under any function of that hash.
 */
static u32 rht_hashfn(const void *data, u32 len, u32 seed)
{
	const struct kvbench_key *key = data;

	return jhash(key->data, key->len, seed);
}

u32 kvbench_rht_hash(const struct kvbench_key *key, u32 seed)
{
	return rht_hashfn(key, 0, seed);
}
EXPORT_SYMBOL_IF_KUNIT(kvbench_rht_hash);

static u32 rht_obj_hashfn(const void *data, u32 len, u32 seed)
{
	const struct kvbench_item *item = data;

	return jhash(item->data, item->key_len, seed);
}

static int rht_obj_cmpfn(struct rhashtable_compare_arg *arg, const void *obj)
{
	return !kvbench_item_match(obj, arg->key);
}

static const struct rhashtable_params rht_params = {
	.head_offset		= offsetof(struct kvbench_item, rhead),
	.hashfn			= rht_hashfn,
	.obj_hashfn		= rht_obj_hashfn,
	.obj_cmpfn		= rht_obj_cmpfn,
	.automatic_shrinking	= true,
};

static struct kvbench_backend *rht_create(const struct kvbench_params *p)
{
	struct rhashtable_params params = rht_params;
	struct rht_map *m;
	int ret;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&m->lock);
	/* Room for the entries a switch is about to move in. */
	params.nelem_hint = min_t(unsigned long, p->entries, U16_MAX);
	ret = rhashtable_init(&m->ht, &params);
	if (ret) {
		kfree(m);
		return ERR_PTR(ret);
	}
	return &m->base;
}

static void rht_destroy(struct kvbench_backend *b)
{
	struct rht_map *m = to_rht_map(b);

	/* Drained: the table is empty, or was already destroyed by drain. */
	if (m->ht.tbl)
		rhashtable_destroy(&m->ht);
	kfree(m);
}

static void rht_get(struct kvbench_backend *b, struct kvbench_req *req)
{
	struct rht_map *m = to_rht_map(b);
	struct kvbench_item *item;

	rcu_read_lock();
	item = rhashtable_lookup(&m->ht, &req->key, rht_params);
	req->result = item ? kvbench_get_fill(&req->get, item) : -ENOENT;
	rcu_read_unlock();
}

static void rht_set(struct kvbench_backend *b, struct kvbench_req *req)
{
	struct rht_map *m = to_rht_map(b);
	struct kvbench_item *item = req->item;
	struct kvbench_key key = kvbench_item_key(item);
	struct kvbench_item *old;
	int ret;

	spin_lock(&m->lock);
	old = rhashtable_lookup_fast(&m->ht, &key, rht_params);
	ret = kvbench_charge(item, old);
	if (!ret) {
		/*
		 * No other writer runs: @old stays linked until we replace
		 * it. An insert may still fail: the table may have to grow,
		 * and from here it can only try to with GFP_ATOMIC.
		 */
		if (old)
			ret = rhashtable_replace_fast(&m->ht, &old->rhead,
						      &item->rhead, rht_params);
		else
			ret = rhashtable_insert_fast(&m->ht, &item->rhead,
						     rht_params);
		if (ret) {
			kvbench_charge_undo(item, old);
			ret = -ENOMEM;
		}
	}
	spin_unlock(&m->lock);

	req->result = ret;
	if (!ret && old)
		kvbench_item_put_rcu(old);
}

static void rht_del(struct kvbench_backend *b, struct kvbench_req *req)
{
	struct rht_map *m = to_rht_map(b);
	struct kvbench_item *item;

	spin_lock(&m->lock);
	item = rhashtable_lookup_fast(&m->ht, &req->key, rht_params);
	/* A remove never allocates, and no other writer took @item. */
	if (item && !WARN_ON_ONCE(rhashtable_remove_fast(&m->ht, &item->rhead,
							 rht_params)))
		kvbench_uncharge(item);
	else
		item = NULL;
	spin_unlock(&m->lock);

	req->result = item ? 0 : -ENOENT;
	if (item)
		kvbench_item_put_rcu(item);
}

struct rht_drain_arg {
	void (*fn)(struct kvbench_item *item, void *arg);
	void *arg;
};

static void rht_drain_one(void *ptr, void *arg)
{
	struct rht_drain_arg *d = arg;

	d->fn(ptr, d->arg);
}

static void rht_drain(struct kvbench_backend *b,
		      void (*fn)(struct kvbench_item *item, void *arg),
		      void *arg)
{
	struct rht_map *m = to_rht_map(b);
	struct rht_drain_arg d = { .fn = fn, .arg = arg };

	/*
	 * No operation is in flight and no reader is inside a read section:
	 * hand every item over and free the table in one walk (which
	 * reschedules per bucket). The map is not usable afterwards, which
	 * is allowed because rht_adopt() can fail
	 * (KVBENCH_BACKEND_ADOPT_MAY_FAIL): a failed switch never gives
	 * items back to a rhashtable map.
	 */
	rhashtable_free_and_destroy(&m->ht, rht_drain_one, &d);
	m->ht.tbl = NULL;
}

/* Inserts an adoption tries, waiting for the table's worker in between. */
#define RHT_ADOPT_TRIES		8

static int rht_adopt(struct kvbench_backend *b, struct kvbench_item *item)
{
	struct rht_map *m = to_rht_map(b);
	unsigned int tries;
	int ret;

	/*
	 * No operation is in flight. The key is not in this map (it comes
	 * from one that held each key once), so an insert fails only when
	 * the table must grow first and could not with GFP_ATOMIC: then the
	 * table's worker, which it has scheduled, grows it with GFP_KERNEL.
	 * Let it run and try again, a bounded number of times.
	 */
	for (tries = 1;; tries++) {
		ret = rhashtable_insert_fast(&m->ht, &item->rhead, rht_params);
		if (!ret || tries == RHT_ADOPT_TRIES)
			break;
		flush_work(&m->ht.run_work);
	}
	return ret ? -ENOMEM : 0;
}

/* A resize the table scheduled (it grows at 75% full, shrinks when set). */
static void rht_settle(struct kvbench_backend *b)
{
	flush_work(&to_rht_map(b)->ht.run_work);
}

/*
 * Its bucket count, which the table's resizes change: that of the newest
 * table (during a resize, the one new keys go to), read under RCU as
 * readers find the tables. The chains are rhashtable's: not counted here
 * (it grows the table once it is 75% full, so they stay short).
 */
static unsigned long rht_stat(struct kvbench_backend *b,
			      enum kvbench_stat stat)
{
	struct rht_map *m = to_rht_map(b);
	struct bucket_table *tbl, *next;
	unsigned long size;

	if (stat != KVBENCH_STAT_BUCKETS)
		return 0;
	rcu_read_lock();
	tbl = rcu_dereference(m->ht.tbl);
	/* Finite: each table links at most one newer one. */
	while ((next = rcu_dereference(tbl->future_tbl)))
		tbl = next;
	size = tbl->size;
	rcu_read_unlock();
	return size;
}

const struct kvbench_backend_ops kvbench_rhashtable_ops = {
	.name		= "rhashtable",
	.params		= 0,
	.flags		= KVBENCH_BACKEND_ADOPT_MAY_FAIL,
	.create		= rht_create,
	.destroy	= rht_destroy,
	.get		= rht_get,
	.set		= rht_set,
	.del		= rht_del,
	.drain		= rht_drain,
	.adopt		= rht_adopt,
	.stat		= rht_stat,
	.settle		= rht_settle,
};
