// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench: the --workload presets: YCSB's core workloads and the seed's.
 */
#include <stdio.h>
#include <string.h>

#include "kvbench.h"

/*
 * The --workload presets. YCSB's core workloads (workloads/workloada..f in
 * its repository, CoreWorkload's defaults: zipfian constant 0.99) that a
 * map can run: E (short scans) cannot, a hash map has no order. The
 * weights are YCSB's proportions, in percent: read (GET), update (SET of
 * a key), insert (SET of a new newest key), read-modify-write.
 */
const struct kvb_workload kvb_workloads[] = {
	{ "ycsb-a", "a", "update heavy: a session store recording recent actions",
	  { .get = 50, .set = 50 }, KVB_SCRAMBLED, 0.99, 0 },
	{ "ycsb-b", "b", "read mostly: photo tagging (reading tags, adding one now and then)",
	  { .get = 95, .set = 5 }, KVB_SCRAMBLED, 0.99, 0 },
	{ "ycsb-c", "c", "read only: a user profile cache",
	  { .get = 100 }, KVB_SCRAMBLED, 0.99, 0 },
	{ "ycsb-d", "d", "read latest: user status updates (people read the newest)",
	  { .get = 95, .ins = 5 }, KVB_LATEST, 0.99, 0 },
	{ "ycsb-f", "f", "read-modify-write: a user database (read a record, change it, write it)",
	  { .get = 50, .rmw = 50 }, KVB_SCRAMBLED, 0.99, 0 },
	{ "seed", NULL, "the seed experiment: GET only, uniform keys, a thread per CPU",
	  { .get = 100 }, KVB_UNIFORM, 0, 1 },
};

const int kvb_nworkloads = ARRAY_SIZE(kvb_workloads);

/* "ycsb-a (a), ycsb-b (b), ..., seed" */
void kvb_workload_list(char *buf, size_t len)
{
	size_t at = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < kvb_nworkloads && at < len; i++) {
		const struct kvb_workload *w = &kvb_workloads[i];

		at += snprintf(buf + at, len - at, "%s%s%s%s%s", i ? ", " : "",
			       w->name, w->alias ? " (" : "", w->alias ? w->alias : "",
			       w->alias ? ")" : "");
	}
}

/* A preset by its name (not an alias: the reports name it so), or NULL */
const struct kvb_workload *kvb_workload_by_name(const char *name)
{
	int i;

	for (i = 0; i < kvb_nworkloads; i++)
		if (!strcmp(name, kvb_workloads[i].name))
			return &kvb_workloads[i];
	return NULL;
}
