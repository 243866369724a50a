// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench sysfs: the files of /sys/class/misc/kvbench/ (see
 * Documentation/ABI/testing/sysfs-class-misc-kvbench): the backend switch
 * and the backends it knows, the limits' counts and the per-CPU operation
 * counters, summed when read.
 */
#include <linux/device.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sysfs.h>
#include <linux/time64.h>

#include "kvbench.h"

static ssize_t backend_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return kvbench_backend_name_show(buf);
}

static ssize_t backend_store(struct device *dev, struct device_attribute *attr,
			     const char *buf, size_t count)
{
	int ret = kvbench_switch_by_name(buf);

	return ret ? ret : count;
}
static DEVICE_ATTR_RW(backend);

/*
 * Every name backend takes, in the order of the core's table, on one line:
 * so that a tool can check a name before it writes one.
 */
static ssize_t backends_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	const struct kvbench_backend_ops *ops;
	unsigned int i;
	int len = 0;

	for (i = 0; (ops = kvbench_backend_at(i)); i++)
		len += sysfs_emit_at(buf, len, "%s%s", i ? " " : "", ops->name);
	return len + sysfs_emit_at(buf, len, "\n");
}
static DEVICE_ATTR_RO(backends);

static ssize_t entries_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%lu\n", kvbench_entries());
}
static DEVICE_ATTR_RO(entries);

static ssize_t bytes_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%lu\n", kvbench_bytes());
}
static DEVICE_ATTR_RO(bytes);

/*
 * A reset does not zero the counters: only their own CPU writes them
 * (kvbench_count(), an unlocked read-modify-write that would undo a remote
 * store of 0 landing inside it). It records each counter's value as that
 * CPU's baseline, and a read reports the sum of the counts above the
 * baselines.
 */
static DEFINE_PER_CPU(struct kvbench_stats, kvbench_stats_base);
/* Serialises resets: the baselines' only writers. */
static DEFINE_MUTEX(kvbench_reset_lock);

static unsigned long *kvbench_stat_ptr(struct kvbench_stats __percpu *st,
				       int cpu, size_t offset)
{
	return (unsigned long *)((char *)per_cpu_ptr(st, cpu) + offset);
}

static unsigned long kvbench_stat_sum(size_t offset)
{
	unsigned long sum = 0, base;
	int cpu;

	for_each_possible_cpu(cpu) {
		/*
		 * Pairs with the smp_store_release() in reset_store(): a
		 * baseline seen here was read from a counter no newer than
		 * the one read next, so the difference never goes negative.
		 */
		base = smp_load_acquire(kvbench_stat_ptr(&kvbench_stats_base,
							 cpu, offset));
		sum += READ_ONCE(*kvbench_stat_ptr(&kvbench_stats, cpu,
						   offset)) - base;
	}
	return sum;
}

/* The per-CPU counters: each file's ->var is its offset in kvbench_stats. */
static ssize_t kvbench_stat_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	size_t offset = (size_t)container_of(attr, struct dev_ext_attribute,
					     attr)->var;

	return sysfs_emit(buf, "%lu\n", kvbench_stat_sum(offset));
}

static ssize_t gets_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%lu\n",
			  kvbench_stat_sum(offsetof(struct kvbench_stats, hits)) +
			  kvbench_stat_sum(offsetof(struct kvbench_stats, misses)));
}
static DEVICE_ATTR_RO(gets);

static struct dev_ext_attribute dev_attr_hits = {
	__ATTR(hits, 0444, kvbench_stat_show, NULL),
	(void *)offsetof(struct kvbench_stats, hits)
};

static struct dev_ext_attribute dev_attr_misses = {
	__ATTR(misses, 0444, kvbench_stat_show, NULL),
	(void *)offsetof(struct kvbench_stats, misses)
};

static struct dev_ext_attribute dev_attr_sets = {
	__ATTR(sets, 0444, kvbench_stat_show, NULL),
	(void *)offsetof(struct kvbench_stats, sets)
};

static struct dev_ext_attribute dev_attr_dels = {
	__ATTR(dels, 0444, kvbench_stat_show, NULL),
	(void *)offsetof(struct kvbench_stats, dels)
};

static struct dev_ext_attribute dev_attr_batches = {
	__ATTR(batches, 0444, kvbench_stat_show, NULL),
	(void *)offsetof(struct kvbench_stats, batches)
};

static unsigned long kvbench_backend_stat1(enum kvbench_stat stat)
{
	unsigned long val;

	kvbench_backend_stats(&stat, &val, 1);
	return val;
}

/*
 * A backend's statistic, as it keeps it: each file's ->var is its enum
 * kvbench_stat.
 */
static ssize_t kvbench_backend_stat_show(struct device *dev,
					 struct device_attribute *attr,
					 char *buf)
{
	enum kvbench_stat stat = (uintptr_t)container_of(attr,
							  struct dev_ext_attribute,
							  attr)->var;

	return sysfs_emit(buf, "%lu\n", kvbench_backend_stat1(stat));
}

static struct dev_ext_attribute dev_attr_queue_hwm = {
	__ATTR(queue_hwm, 0444, kvbench_backend_stat_show, NULL),
	(void *)KVBENCH_STAT_QUEUE_HWM
};

static struct dev_ext_attribute dev_attr_queue_full = {
	__ATTR(queue_full, 0444, kvbench_backend_stat_show, NULL),
	(void *)KVBENCH_STAT_QUEUE_FULL
};

static struct dev_ext_attribute dev_attr_handoffs = {
	__ATTR(handoffs, 0444, kvbench_backend_stat_show, NULL),
	(void *)KVBENCH_STAT_PEER_HANDOFFS
};

static struct dev_ext_attribute dev_attr_sleeps = {
	__ATTR(sleeps, 0444, kvbench_backend_stat_show, NULL),
	(void *)KVBENCH_STAT_SLEEPS
};

static struct dev_ext_attribute dev_attr_owners = {
	__ATTR(owners, 0444, kvbench_backend_stat_show, NULL),
	(void *)KVBENCH_STAT_OWNERS
};

/**
 * kvbench_ratio() - @num / @den, rounded down to hundredths
 * @num:	numerator
 * @den:	denominator; 0 gives 0
 * @whole:	out: the whole part
 * @hundredths:	out: the hundredths, 0..99
 *
 * In 64 bits, and without multiplying @num: a count times 100 overflows
 * an unsigned long on 32-bit from 43 million on, and a u64 from 1.8e17.
 */
void kvbench_ratio(u64 num, u64 den, u64 *whole, u32 *hundredths)
{
	u64 rem;

	*whole = 0;
	*hundredths = 0;
	if (!den)
		return;
	*whole = div64_u64_rem(num, den, &rem);
	/* @rem < @den: the quotient is below 100. */
	*hundredths = mul_u64_u64_div_u64(rem, 100, den);
}
EXPORT_SYMBOL_IF_KUNIT(kvbench_ratio);

/* @num / @den with two decimals, e.g. "3.25"; "0.00" when @den is 0. */
static ssize_t kvbench_ratio_show(char *buf, u64 num, u64 den)
{
	u32 hundredths;
	u64 whole;

	kvbench_ratio(num, den, &whole, &hundredths);
	return sysfs_emit(buf, "%llu.%02u\n", whole, hundredths);
}

/* The mean of statistic @num per @den, as kvbench_ratio_show(). */
static ssize_t kvbench_mean_show(char *buf, enum kvbench_stat den,
				 enum kvbench_stat num)
{
	const enum kvbench_stat which[] = { den, num };
	unsigned long val[ARRAY_SIZE(which)];

	kvbench_backend_stats(which, val, ARRAY_SIZE(which));
	return kvbench_ratio_show(buf, val[1], val[0]);
}

static ssize_t drain_mean_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return kvbench_mean_show(buf, KVBENCH_STAT_DRAIN_PASSES,
				 KVBENCH_STAT_DRAINED);
}
static DEVICE_ATTR_RO(drain_mean);

static ssize_t combine_mean_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return kvbench_mean_show(buf, KVBENCH_STAT_PEER_PASSES,
				 KVBENCH_STAT_PEER_REQS);
}
static DEVICE_ATTR_RO(combine_mean);

static ssize_t poll_us_show(struct device *dev,
			    struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lu\n",
			  kvbench_backend_stat1(KVBENCH_STAT_POLL_US));
}
static DEVICE_ATTR_RO(poll_us);

/*
 * Entries per bucket, with two decimals: the mean chain a GET of a
 * present key walks half of, and a miss all of. Read from the limit's
 * entry count and the backend's bucket count, neither a walk.
 */
static ssize_t load_factor_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	unsigned long buckets = kvbench_backend_stat1(KVBENCH_STAT_BUCKETS);

	return kvbench_ratio_show(buf, kvbench_entries(), buckets);
}
static DEVICE_ATTR_RO(load_factor);

static struct dev_ext_attribute dev_attr_longest_chain = {
	__ATTR(longest_chain, 0444, kvbench_backend_stat_show, NULL),
	(void *)KVBENCH_STAT_LONGEST_CHAIN
};

static ssize_t reset_store(struct device *dev, struct device_attribute *attr,
			   const char *buf, size_t count)
{
	static const size_t fields[] = {
		offsetof(struct kvbench_stats, hits),
		offsetof(struct kvbench_stats, misses),
		offsetof(struct kvbench_stats, sets),
		offsetof(struct kvbench_stats, dels),
		offsetof(struct kvbench_stats, batches),
	};
	unsigned long now;
	int cpu, i;

	if (!sysfs_streq(buf, "1"))
		return -EINVAL;
	/*
	 * Each counter's present value becomes its baseline (see
	 * kvbench_stat_sum()). An operation counted while this runs is
	 * counted after the reset or not, never lost nor counted twice.
	 */
	mutex_lock(&kvbench_reset_lock);
	for_each_possible_cpu(cpu) {
		for (i = 0; i < ARRAY_SIZE(fields); i++) {
			now = READ_ONCE(*kvbench_stat_ptr(&kvbench_stats, cpu,
							  fields[i]));
			/* Pairs with smp_load_acquire() in kvbench_stat_sum(). */
			smp_store_release(kvbench_stat_ptr(&kvbench_stats_base,
							   cpu, fields[i]),
					  now);
		}
	}
	kvbench_backend_reset_stats();
	mutex_unlock(&kvbench_reset_lock);
	return count;
}
static DEVICE_ATTR_WO(reset);

static ssize_t pending_frees_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lu\n", kvbench_items_pending());
}
static DEVICE_ATTR_RO(pending_frees);

/* Returns once the work of every operation before the write is done. */
static ssize_t settle_store(struct device *dev, struct device_attribute *attr,
			    const char *buf, size_t count)
{
	if (!sysfs_streq(buf, "1"))
		return -EINVAL;
	kvbench_settle();
	return count;
}
static DEVICE_ATTR_WO(settle);

static struct attribute *kvbench_attrs[] = {
	&dev_attr_backend.attr,
	&dev_attr_backends.attr,
	&dev_attr_entries.attr,
	&dev_attr_bytes.attr,
	&dev_attr_gets.attr,
	&dev_attr_hits.attr.attr,
	&dev_attr_misses.attr.attr,
	&dev_attr_sets.attr.attr,
	&dev_attr_dels.attr.attr,
	&dev_attr_batches.attr.attr,
	&dev_attr_queue_hwm.attr.attr,
	&dev_attr_drain_mean.attr,
	&dev_attr_queue_full.attr.attr,
	&dev_attr_combine_mean.attr,
	&dev_attr_handoffs.attr.attr,
	&dev_attr_sleeps.attr.attr,
	&dev_attr_owners.attr.attr,
	&dev_attr_poll_us.attr,
	&dev_attr_load_factor.attr,
	&dev_attr_longest_chain.attr.attr,
	&dev_attr_reset.attr,
	&dev_attr_pending_frees.attr,
	&dev_attr_settle.attr,
	NULL,
};

static const struct attribute_group kvbench_group = {
	.attrs = kvbench_attrs,
};

const struct attribute_group *kvbench_groups[] = {
	&kvbench_group,
	NULL,
};
