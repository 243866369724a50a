// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench items: the key/value records every backend stores.
 *
 * The core allocates an item and fills it from user memory before any
 * backend lock is taken; a backend only links, unlinks and releases it.
 */
#include <linux/jhash.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "kvbench.h"

static u32 kvbench_hash_seed __read_mostly;

void kvbench_hash_init(void)
{
	kvbench_hash_seed = get_random_u32();
}

u32 kvbench_hash(const void *data, u32 len)
{
	return jhash(data, len, kvbench_hash_seed);
}

struct kvbench_item *kvbench_item_alloc(u32 key_len, u32 value_len)
{
	struct kvbench_item *item;

	item = kvmalloc(struct_size(item, data, (size_t)key_len + value_len),
			GFP_KERNEL_ACCOUNT);
	if (!item)
		return NULL;
	INIT_HLIST_NODE(&item->node);
	refcount_set(&item->ref, 1);
	item->key_len = key_len;
	item->value_len = value_len;
	return item;
}

void kvbench_item_put(struct kvbench_item *item)
{
	/* Also called from RCU callbacks: kvfree() is fine in softirq. */
	if (refcount_dec_and_test(&item->ref))
		kvfree(item);
}

static void kvbench_item_put_cb(struct rcu_head *head)
{
	kvbench_item_put(container_of(head, struct kvbench_item, rcu));
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
	call_rcu(&item->rcu, kvbench_item_put_cb);
}
