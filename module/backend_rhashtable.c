// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench "rhashtable" backend: the rcu backend's read path over
 * <linux/rhashtable.h>, a table that grows and shrinks with its contents.
 *
 * Readers look up inside an RCU read section and take no lock, also while
 * the table is being resized. Writers are serialised per bucket by the
 * rhashtable itself; a SET or DEL is a lookup followed by an insert,
 * replace or remove that fails if the bucket changed in between, and then
 * simply starts again. The map's reference on an unlinked item is dropped
 * after a grace period, as in the rcu backend.
 */
#include <linux/jhash.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>

#include "kvbench.h"

struct rht_map {
	struct kvbench_backend base;
	struct rhashtable ht;
};

static struct rht_map *to_rht_map(struct kvbench_backend *b)
{
	return container_of(b, struct rht_map, base);
}

/* Keys are struct kvbench_key: their hash is already computed. */
static u32 rht_hashfn(const void *data, u32 len, u32 seed)
{
	const struct kvbench_key *key = data;

	return jhash_1word(key->hash, seed);
}

static u32 rht_obj_hashfn(const void *data, u32 len, u32 seed)
{
	const struct kvbench_item *item = data;

	return jhash_1word(item->hash, seed);
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
	struct rht_map *m;
	int ret;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return ERR_PTR(-ENOMEM);
	ret = rhashtable_init(&m->ht, &rht_params);
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

/* Insert @item as a new key; -EEXIST with *@old set if the key is there. */
static int rht_insert(struct rht_map *m, struct kvbench_item *item,
		      const struct kvbench_key *key, struct kvbench_item **old)
{
	struct kvbench_item *cur;
	int ret = kvbench_charge(item, NULL);

	if (ret)
		return ret;
	cur = rhashtable_lookup_get_insert_key(&m->ht, key, &item->rhead,
					       rht_params);
	if (!cur)
		return 0;
	kvbench_charge_undo(item, NULL);
	if (IS_ERR(cur))
		return -ENOMEM;
	*old = cur;
	return -EEXIST;
}

static void rht_set(struct kvbench_backend *b, struct kvbench_req *req)
{
	struct rht_map *m = to_rht_map(b);
	struct kvbench_item *item = req->item;
	struct kvbench_key key = kvbench_item_key(item);
	struct kvbench_item *old;
	int ret;

	rcu_read_lock();
	for (;;) {
		old = rhashtable_lookup(&m->ht, &key, rht_params);
		if (!old) {
			ret = rht_insert(m, item, &key, &old);
			if (ret != -EEXIST)
				break;
		}
		ret = kvbench_charge(item, old);
		if (ret)
			break;
		ret = rhashtable_replace_fast(&m->ht, &old->rhead, &item->rhead,
					      rht_params);
		if (!ret)
			break;
		/* @old went away meanwhile: look again. */
		kvbench_charge_undo(item, old);
	}
	rcu_read_unlock();

	req->result = ret;
	if (!ret && old)
		kvbench_item_put_rcu(old);
}

static void rht_del(struct kvbench_backend *b, struct kvbench_req *req)
{
	struct rht_map *m = to_rht_map(b);
	struct kvbench_item *item;

	rcu_read_lock();
	do {
		item = rhashtable_lookup(&m->ht, &req->key, rht_params);
		/* A failed remove means a SET replaced @item: look again. */
	} while (item && rhashtable_remove_fast(&m->ht, &item->rhead,
						rht_params));
	rcu_read_unlock();

	req->result = item ? 0 : -ENOENT;
	if (item) {
		kvbench_uncharge(item);
		kvbench_item_put_rcu(item);
	}
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
	 * hand every item over and free the table in one walk.
	 */
	rhashtable_free_and_destroy(&m->ht, rht_drain_one, &d);
	m->ht.tbl = NULL;
}

static void rht_adopt(struct kvbench_backend *b, struct kvbench_item *item)
{
	struct rht_map *m = to_rht_map(b);

	/*
	 * The key is not in this map (it comes from one that held each key
	 * once); an insert can only fail for lack of memory, and the
	 * entry must not be lost, so retry until it is in.
	 */
	while (rhashtable_insert_fast(&m->ht, &item->rhead, rht_params))
		cond_resched();
}

const struct kvbench_backend_ops kvbench_rhashtable_ops = {
	.name		= "rhashtable",
	.create		= rht_create,
	.destroy	= rht_destroy,
	.get		= rht_get,
	.set		= rht_set,
	.del		= rht_del,
	.drain		= rht_drain,
	.adopt		= rht_adopt,
};
