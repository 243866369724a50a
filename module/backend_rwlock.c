// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench "rwlock" backend: one rwlock_t over an array of hash buckets.
 *
 * The baseline every other backend is measured against. Readers share the
 * lock, so a GET never waits for another GET, but every read_lock() and
 * read_unlock() is an atomic operation on the one cache line that holds the
 * lock: with many CPUs reading, that line bounces between them.
 */
#include <linux/hash.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "kvbench.h"

struct rwlock_map {
	struct kvbench_backend base;
	/* Protects the bucket chains: every link, and which item a key maps to. */
	rwlock_t lock;
	unsigned int bits;
	struct hlist_head *buckets;
};

static struct rwlock_map *to_rwlock_map(struct kvbench_backend *b)
{
	return container_of(b, struct rwlock_map, base);
}

static struct hlist_head *rwlock_bucket(struct rwlock_map *m, u32 hash)
{
	return &m->buckets[hash_32(hash, m->bits)];
}

static struct kvbench_item *rwlock_find(struct rwlock_map *m,
					const struct kvbench_key *key)
{
	struct kvbench_item *item;

	lockdep_assert_held(&m->lock);
	hlist_for_each_entry(item, rwlock_bucket(m, key->hash), node)
		if (kvbench_item_match(item, key))
			return item;
	return NULL;
}

static struct kvbench_backend *rwlock_create(unsigned int hash_bits)
{
	struct rwlock_map *m;
	size_t i;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return ERR_PTR(-ENOMEM);
	m->bits = hash_bits;
	m->buckets = kvmalloc_array(1UL << hash_bits, sizeof(*m->buckets),
				    GFP_KERNEL);
	if (!m->buckets) {
		kfree(m);
		return ERR_PTR(-ENOMEM);
	}
	for (i = 0; i < (1UL << hash_bits); i++)
		INIT_HLIST_HEAD(&m->buckets[i]);
	rwlock_init(&m->lock);
	return &m->base;
}

static void rwlock_destroy(struct kvbench_backend *b)
{
	struct rwlock_map *m = to_rwlock_map(b);

	kvfree(m->buckets);
	kfree(m);
}

static void rwlock_get(struct kvbench_backend *b, struct kvbench_req *req)
{
	struct rwlock_map *m = to_rwlock_map(b);
	struct kvbench_item *item;

	read_lock(&m->lock);
	item = rwlock_find(m, &req->key);
	req->result = item ? kvbench_get_fill(&req->get, item) : -ENOENT;
	read_unlock(&m->lock);
}

static void rwlock_set(struct kvbench_backend *b, struct kvbench_req *req)
{
	struct rwlock_map *m = to_rwlock_map(b);
	struct kvbench_item *item = req->item;
	struct kvbench_key key = {
		.data = item->data, .len = item->key_len, .hash = item->hash,
	};
	struct kvbench_item *old;

	write_lock(&m->lock);
	old = rwlock_find(m, &key);
	req->result = kvbench_charge(item, old);
	if (!req->result) {
		if (old) {
			hlist_add_before(&item->node, &old->node);
			hlist_del_init(&old->node);
		} else {
			hlist_add_head(&item->node, rwlock_bucket(m, key.hash));
		}
	}
	write_unlock(&m->lock);

	/* Readers pin what they still need: the map's reference can go now. */
	if (!req->result && old)
		kvbench_item_put(old);
}

static void rwlock_del(struct kvbench_backend *b, struct kvbench_req *req)
{
	struct rwlock_map *m = to_rwlock_map(b);
	struct kvbench_item *item;

	write_lock(&m->lock);
	item = rwlock_find(m, &req->key);
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
	struct rwlock_map *m = to_rwlock_map(b);
	struct kvbench_item *item;
	struct hlist_node *tmp;
	size_t i;

	/*
	 * The core guarantees that no operation is in flight, so the chains
	 * are ours alone; @fn may link the item into another map at once.
	 */
	for (i = 0; i < (1UL << m->bits); i++) {
		hlist_for_each_entry_safe(item, tmp, &m->buckets[i], node) {
			hlist_del_init(&item->node);
			fn(item, arg);
		}
	}
}

static void rwlock_adopt(struct kvbench_backend *b, struct kvbench_item *item)
{
	struct rwlock_map *m = to_rwlock_map(b);

	write_lock(&m->lock);
	hlist_add_head(&item->node, rwlock_bucket(m, item->hash));
	write_unlock(&m->lock);
}

const struct kvbench_backend_ops kvbench_rwlock_ops = {
	.name		= "rwlock",
	.create		= rwlock_create,
	.destroy	= rwlock_destroy,
	.get		= rwlock_get,
	.set		= rwlock_set,
	.del		= rwlock_del,
	.drain		= rwlock_drain,
	.adopt		= rwlock_adopt,
};
