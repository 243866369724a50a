// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench sysfs: the files of /sys/class/misc/kvbench/ (see
 * Documentation/ABI/testing/sysfs-class-misc-kvbench): the backend switch,
 * the limits' counts and the per-CPU operation counters, summed when read.
 */
#include <linux/device.h>
#include <linux/percpu.h>
#include <linux/sysfs.h>

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

static unsigned long kvbench_stat_sum(size_t offset)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*(unsigned long *)
				 ((char *)per_cpu_ptr(&kvbench_stats, cpu) +
				  offset));
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

static ssize_t queue_hwm_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lu\n",
			  kvbench_backend_stat1(KVBENCH_STAT_QUEUE_HWM));
}
static DEVICE_ATTR_RO(queue_hwm);

static ssize_t drain_mean_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	static const enum kvbench_stat which[] = {
		KVBENCH_STAT_DRAIN_PASSES, KVBENCH_STAT_DRAINED,
	};
	unsigned long val[ARRAY_SIZE(which)], x100 = 0;

	kvbench_backend_stats(which, val, ARRAY_SIZE(which));
	if (val[0])
		x100 = val[1] * 100 / val[0];
	return sysfs_emit(buf, "%lu.%02lu\n", x100 / 100, x100 % 100);
}
static DEVICE_ATTR_RO(drain_mean);

static ssize_t queue_full_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lu\n",
			  kvbench_backend_stat1(KVBENCH_STAT_QUEUE_FULL));
}
static DEVICE_ATTR_RO(queue_full);

static ssize_t reset_store(struct device *dev, struct device_attribute *attr,
			   const char *buf, size_t count)
{
	struct kvbench_stats *st;
	int cpu;

	if (!sysfs_streq(buf, "1"))
		return -EINVAL;
	/*
	 * The counters are live: each is one word, stored whole. An
	 * increment racing with this may survive it; that is all.
	 */
	for_each_possible_cpu(cpu) {
		st = per_cpu_ptr(&kvbench_stats, cpu);
		WRITE_ONCE(st->hits, 0);
		WRITE_ONCE(st->misses, 0);
		WRITE_ONCE(st->sets, 0);
		WRITE_ONCE(st->dels, 0);
		WRITE_ONCE(st->batches, 0);
	}

	kvbench_backend_reset_stats();
	return count;
}
static DEVICE_ATTR_WO(reset);

static struct attribute *kvbench_attrs[] = {
	&dev_attr_backend.attr,
	&dev_attr_entries.attr,
	&dev_attr_bytes.attr,
	&dev_attr_gets.attr,
	&dev_attr_hits.attr.attr,
	&dev_attr_misses.attr.attr,
	&dev_attr_sets.attr.attr,
	&dev_attr_dels.attr.attr,
	&dev_attr_batches.attr.attr,
	&dev_attr_queue_hwm.attr,
	&dev_attr_drain_mean.attr,
	&dev_attr_queue_full.attr,
	&dev_attr_reset.attr,
	NULL,
};

static const struct attribute_group kvbench_group = {
	.attrs = kvbench_attrs,
};

const struct attribute_group *kvbench_groups[] = {
	&kvbench_group,
	NULL,
};
