// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench "rcu" backend: lock-free readers over a table of hash buckets.
 *
 * A GET walks its bucket inside an RCU read section and copies a small
 * value into the caller's buffer before leaving it: it takes no lock and
 * writes no memory shared with other CPUs. A large value is pinned with a
 * reference instead (one atomic on the item) and copied to user memory after
 * the read section.
 *
 * Writers are serialised by one spinlock. They publish a new item with
 * hlist_add_head_rcu() or hlist_replace_rcu() and drop the map's reference
 * to the unlinked item only after a grace period (kvbench_item_put_rcu()),
 * so a reader that found an item in its read section can still copy from
 * it or pin it.
 */
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "kvbench_backend.h"
#include "kvbench_backends.h"

struct rcu_map {
	struct kvbench_backend base;
	/*
	 * Serialises writers of the table: links, unlinks and the charge
	 * that goes with them. Readers do not take it.
	 */
	spinlock_t lock;
	struct kvbench_table table;
};

static struct rcu_map *to_rcu_map(struct kvbench_backend *b)
{
	return container_of(b, struct rcu_map, base);
}

/*
 * Find @key under rcu_read_lock() or the writers' lock, counting in
 * *@walked the items looked at (the whole chain when it is not there).
 * Inlined: a GET's walk is then a loop in rcu_get(), which counts nothing.
 */
static __always_inline struct kvbench_item *
rcu_find(struct rcu_map *m, const struct kvbench_key *key,
	 unsigned int *walked)
{
	struct kvbench_item *item;

	*walked = 0;
	hlist_for_each_entry_rcu(item,
				 kvbench_table_bucket(&m->table, key->hash),
				 node, lockdep_is_held(&m->lock)) {
		if (kvbench_item_match(item, key))
			return item;
		(*walked)++;
	}
	return NULL;
}

static struct kvbench_backend *rcu_create(const struct kvbench_params *p)
{
	struct rcu_map *m;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return ERR_PTR(-ENOMEM);
	if (kvbench_table_init(&m->table, p->hash_bits)) {
		kfree(m);
		return ERR_PTR(-ENOMEM);
	}
	spin_lock_init(&m->lock);
	return &m->base;
}

static void rcu_destroy(struct kvbench_backend *b)
{
	struct rcu_map *m = to_rcu_map(b);

	kvbench_table_free(&m->table);
	kfree(m);
}

/* A GET, inside the caller's RCU read section. */
static __always_inline void rcu_get_locked(struct rcu_map *m,
					   struct kvbench_req *req)
{
	struct kvbench_item *item;
	unsigned int walked;

	item = rcu_find(m, &req->key, &walked);
	req->result = item ? kvbench_get_fill(&req->get, item) : -ENOENT;
}

/*
 * Flattened, as rcu_batch() is: with two walks inline, the compiler would
 * otherwise make kvbench_get_fill() a call of its own in both.
 */
static void __flatten rcu_get(struct kvbench_backend *b,
			      struct kvbench_req *req)
{
	rcu_read_lock();
	rcu_get_locked(to_rcu_map(b), req);
	rcu_read_unlock();
}

static void rcu_set(struct kvbench_backend *b, struct kvbench_req *req)
{
	struct rcu_map *m = to_rcu_map(b);
	struct kvbench_item *item = req->item;
	struct kvbench_key key = kvbench_item_key(item);
	struct kvbench_item *old;
	unsigned int walked;

	spin_lock(&m->lock);
	old = rcu_find(m, &key, &walked);
	req->result = kvbench_charge(item, old);
	if (!req->result) {
		if (old) {
			hlist_replace_rcu(&old->node, &item->node);
		} else {
			hlist_add_head_rcu(&item->node,
					   kvbench_table_bucket(&m->table,
								key.hash));
			kvbench_table_linked(&m->table, walked);
		}
	}
	spin_unlock(&m->lock);

	if (!req->result && old)
		kvbench_item_put_rcu(old);
}

static void rcu_del(struct kvbench_backend *b, struct kvbench_req *req)
{
	struct rcu_map *m = to_rcu_map(b);
	struct kvbench_item *item;
	unsigned int walked;

	spin_lock(&m->lock);
	item = rcu_find(m, &req->key, &walked);
	if (item) {
		hlist_del_rcu(&item->node);
		kvbench_uncharge(item);
	}
	spin_unlock(&m->lock);

	req->result = item ? 0 : -ENOENT;
	if (item)
		kvbench_item_put_rcu(item);
}

/*
 * The requests of a BATCH or packed call, in order: each run of GETs in
 * one read section, with no call per GET (a GET does what rcu_get()
 * does, and a run of them holds the section no longer than its chunk,
 * at most KVBENCH_BATCH_MAX bucket walks and small copies); a SET or a
 * DEL as when it runs alone.
 */
static void __flatten rcu_batch(struct kvbench_backend *b,
				struct kvbench_req *reqs, unsigned int n)
{
	struct rcu_map *m = to_rcu_map(b);
	unsigned int i = 0;

	while (i < n) {
		switch (reqs[i].op) {
		case KVBENCH_OP_GET:
			rcu_read_lock();
			do {
				rcu_get_locked(m, &reqs[i]);
			} while (++i < n && reqs[i].op == KVBENCH_OP_GET);
			rcu_read_unlock();
			continue;
		case KVBENCH_OP_SET:
			rcu_set(b, &reqs[i]);
			break;
		case KVBENCH_OP_DEL:
			rcu_del(b, &reqs[i]);
			break;
		}
		i++;
	}
}

static void rcu_drain(struct kvbench_backend *b,
		      void (*fn)(struct kvbench_item *item, void *arg),
		      void *arg)
{
	/*
	 * No operation is in flight, so no reader is inside a read section
	 * on this table either: items can be relinked at once.
	 */
	kvbench_table_drain(&to_rcu_map(b)->table, fn, arg);
}

static int rcu_adopt(struct kvbench_backend *b, struct kvbench_item *item)
{
	struct rcu_map *m = to_rcu_map(b);

	spin_lock(&m->lock);
	hlist_add_head_rcu(&item->node,
			   kvbench_table_bucket(&m->table, item->hash));
	spin_unlock(&m->lock);
	return 0;
}

/* After a switch: no reader, no writer (see rcu_drain()). */
static void rcu_adopted(struct kvbench_backend *b)
{
	kvbench_table_recount(&to_rcu_map(b)->table);
}

static unsigned long rcu_stat(struct kvbench_backend *b,
			      enum kvbench_stat stat)
{
	return kvbench_table_stat(&to_rcu_map(b)->table, stat);
}

const struct kvbench_backend_ops kvbench_rcu_ops = {
	.name		= "rcu",
	.params		= KVBENCH_PARAM_HASH_BITS,
	.create		= rcu_create,
	.destroy	= rcu_destroy,
	.get		= rcu_get,
	.set		= rcu_set,
	.del		= rcu_del,
	.batch		= rcu_batch,
	.drain		= rcu_drain,
	.adopt		= rcu_adopt,
	.adopted	= rcu_adopted,
	.stat		= rcu_stat,
};
