// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench limits: how many entries and bytes the map holds, charged
 * against the max_entries and max_bytes parameters.
 *
 * A backend charges an item while it holds whatever makes the item's link
 * or unlink atomic for other callers (a lock over its writers, or the owner
 * thread that alone sees its table), and in the same critical section as
 * the link or unlink. So a SET that fails with ENOSPC saw a map that, at
 * one instant of the call, really was full: never one that a DEL had
 * already emptied, nor one counting a SET that failed.
 *
 * Both counters change together under one lock: a charge either takes its
 * entry and its bytes or nothing. Writers already serialise per map (or
 * per shard); the lock is taken by SET and DEL only, never by GET.
 */
#include <linux/limits.h>
#include <linux/moduleparam.h>
#include <linux/spinlock.h>

#include "kvbench.h"

/* Protects kvbench_nr_entries and kvbench_nr_bytes; innermost lock. */
static DEFINE_SPINLOCK(kvbench_acct_lock);
/* Written under kvbench_acct_lock; read locklessly for sysfs. */
static unsigned long kvbench_nr_entries;
static unsigned long kvbench_nr_bytes;

/* 0 means unlimited; any other value up to ULONG_MAX is a plain limit. */
static unsigned long max_entries;
static unsigned long max_bytes;

module_param(max_entries, ulong, 0644);
MODULE_PARM_DESC(max_entries,
		 "Most entries the map holds, 0 = unlimited (default), up to 18446744073709551615");

module_param(max_bytes, ulong, 0644);
MODULE_PARM_DESC(max_bytes,
		 "Most bytes (keys + values + 64 per entry) the map holds, 0 = unlimited (default)");

/* Is there room for @more on top of @used under @limit (0: no limit)? */
static bool kvbench_room(unsigned long used, unsigned long more,
			 unsigned long limit)
{
	return !limit || (used <= limit && more <= limit - used);
}

/**
 * kvbench_charge() - account for @item replacing @old (or nothing)
 * @item:	the item about to be linked
 * @old:	the item it replaces, or NULL for a new key
 *
 * A new key needs room under max_entries; growth needs room under
 * max_bytes. Replacing a key by a value no longer than the old one always
 * succeeds, whatever the limits. Never sleeps (on PREEMPT_RT, where
 * spinlock_t is a sleeping lock, it may wait for a holder's short section).
 *
 * Return: 0, or -ENOSPC with nothing charged.
 */
int kvbench_charge(const struct kvbench_item *item,
		   const struct kvbench_item *old)
{
	unsigned long size = kvbench_item_bytes(item);
	unsigned long old_size = old ? kvbench_item_bytes(old) : 0;
	int ret = -ENOSPC;

	spin_lock(&kvbench_acct_lock);
	if (!old && !kvbench_room(kvbench_nr_entries, 1, READ_ONCE(max_entries)))
		goto out;
	if (size > old_size &&
	    !kvbench_room(kvbench_nr_bytes, size - old_size, READ_ONCE(max_bytes)))
		goto out;
	if (!old)
		WRITE_ONCE(kvbench_nr_entries, kvbench_nr_entries + 1);
	WRITE_ONCE(kvbench_nr_bytes, kvbench_nr_bytes + size - old_size);
	ret = 0;
out:
	spin_unlock(&kvbench_acct_lock);
	return ret;
}

/* Account for @item leaving the map. */
void kvbench_uncharge(const struct kvbench_item *item)
{
	spin_lock(&kvbench_acct_lock);
	WRITE_ONCE(kvbench_nr_entries, kvbench_nr_entries - 1);
	WRITE_ONCE(kvbench_nr_bytes, kvbench_nr_bytes - kvbench_item_bytes(item));
	spin_unlock(&kvbench_acct_lock);
}

/* Undo a successful kvbench_charge(@item, @old) that was not used. */
void kvbench_charge_undo(const struct kvbench_item *item,
			 const struct kvbench_item *old)
{
	unsigned long size = kvbench_item_bytes(item);
	unsigned long old_size = old ? kvbench_item_bytes(old) : 0;

	spin_lock(&kvbench_acct_lock);
	if (!old)
		WRITE_ONCE(kvbench_nr_entries, kvbench_nr_entries - 1);
	WRITE_ONCE(kvbench_nr_bytes, kvbench_nr_bytes - size + old_size);
	spin_unlock(&kvbench_acct_lock);
}

unsigned long kvbench_entries(void)
{
	return READ_ONCE(kvbench_nr_entries);
}
EXPORT_SYMBOL_IF_KUNIT(kvbench_entries);

unsigned long kvbench_bytes(void)
{
	return READ_ONCE(kvbench_nr_bytes);
}

/* For tests: set max_entries and max_bytes, return the old ones in place. */
void kvbench_swap_limits(unsigned long *entries, unsigned long *bytes)
{
	*entries = xchg(&max_entries, *entries);
	*bytes = xchg(&max_bytes, *bytes);
}
EXPORT_SYMBOL_IF_KUNIT(kvbench_swap_limits);
