// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench "rwlock" backend: one rwlock_t over a table of hash buckets.
 *
 * The baseline every other backend is measured against. Readers share the
 * lock, so a GET never waits for another GET, but every read_lock() and
 * read_unlock() is an atomic operation on the one cache line that holds the
 * lock: with many CPUs reading, that line bounces between them.
 */
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "kvbench_backend.h"
#include "kvbench_backends.h"

struct rwlock_map {
	struct kvbench_backend base;
	/* Protects the table: every link, and which item a key maps to. */
	rwlock_t lock;
	struct kvbench_table table;
};

static struct rwlock_map *to_rwlock_map(struct kvbench_backend *b)
{
	return container_of(b, struct rwlock_map, base);
}

static struct kvbench_backend *rwlock_create(const struct kvbench_params *p)
{
	struct rwlock_map *m;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return ERR_PTR(-ENOMEM);
	if (kvbench_table_init(&m->table, p->hash_bits)) {
		kfree(m);
		return ERR_PTR(-ENOMEM);
	}
	rwlock_init(&m->lock);
	return &m->base;
}

static void rwlock_destroy(struct kvbench_backend *b)
{
	struct rwlock_map *m = to_rwlock_map(b);

	kvbench_table_free(&m->table);
	kfree(m);
}

static void rwlock_get(struct kvbench_backend *b, struct kvbench_req *req)
{
	struct rwlock_map *m = to_rwlock_map(b);
	struct kvbench_item *item;

	read_lock(&m->lock);
	item = kvbench_table_find(&m->table, &req->key);
	req->result = item ? kvbench_get_fill(&req->get, item) : -ENOENT;
	read_unlock(&m->lock);
}

static void rwlock_set(struct kvbench_backend *b, struct kvbench_req *req)
{
	struct rwlock_map *m = to_rwlock_map(b);
	struct kvbench_item *item = req->item;
	struct kvbench_key key = kvbench_item_key(item);
	struct kvbench_item *old;
	unsigned int walked;

	write_lock(&m->lock);
	old = kvbench_table_find_len(&m->table, &key, &walked);
	req->result = kvbench_charge(item, old);
	if (!req->result) {
		if (old) {
			hlist_add_before(&item->node, &old->node);
			hlist_del_init(&old->node);
		} else {
			hlist_add_head(&item->node,
				       kvbench_table_bucket(&m->table, key.hash));
			kvbench_table_linked(&m->table, walked);
		}
	}
	write_unlock(&m->lock);

	/* GETs pin what they still need: the map's reference can go now. */
	if (!req->result && old)
		kvbench_item_put(old);
}

static void rwlock_del(struct kvbench_backend *b, struct kvbench_req *req)
{
	struct rwlock_map *m = to_rwlock_map(b);
	struct kvbench_item *item;

	write_lock(&m->lock);
	item = kvbench_table_find(&m->table, &req->key);
	if (item) {
		hlist_del_init(&item->node);
		kvbench_uncharge(item);
	}
	write_unlock(&m->lock);

	req->result = item ? 0 : -ENOENT;
	if (item)
		kvbench_item_put(item);
}

static void rwlock_drain(struct kvbench_backend *b,
			 void (*fn)(struct kvbench_item *item, void *arg),
			 void *arg)
{
	/* No operation is in flight: the table is ours alone. */
	kvbench_table_drain(&to_rwlock_map(b)->table, fn, arg);
}

static int rwlock_adopt(struct kvbench_backend *b, struct kvbench_item *item)
{
	struct rwlock_map *m = to_rwlock_map(b);

	write_lock(&m->lock);
	kvbench_table_adopt(&m->table, item);
	write_unlock(&m->lock);
	return 0;
}

static void rwlock_adopted(struct kvbench_backend *b)
{
	kvbench_table_recount(&to_rwlock_map(b)->table);
}

static unsigned long rwlock_stat(struct kvbench_backend *b,
				 enum kvbench_stat stat)
{
	return kvbench_table_stat(&to_rwlock_map(b)->table, stat);
}

const struct kvbench_backend_ops kvbench_rwlock_ops = {
	.name		= "rwlock",
	.params		= KVBENCH_PARAM_HASH_BITS,
	.create		= rwlock_create,
	.destroy	= rwlock_destroy,
	.get		= rwlock_get,
	.set		= rwlock_set,
	.del		= rwlock_del,
	.drain		= rwlock_drain,
	.adopt		= rwlock_adopt,
	.adopted	= rwlock_adopted,
	.stat		= rwlock_stat,
};
