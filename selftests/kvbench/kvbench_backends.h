/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The backends the kvbench selftests know, in the order of the module's
 * table, with what the tests expect of each:
 *
 *   KVB_OWNER      owner threads answer the requests, through queues
 *   KVB_SHARDED    as many owners as the owners parameter says
 *   KVB_COMBINING  callers publish requests for a combiner to run
 *
 * The fixtures of kvbench_test, kvbench_trace, kvbench_uring and
 * kvbench_faults run once per entry (KVB_FIXTURE_VARIANTS); tests that go
 * through the backends read the module's own list at run time instead
 * (kvb_backends_read() in kvbench_helpers.h). backends.variants_match_module
 * (kvbench_test) fails when this list and the module's disagree: a backend
 * added to module/ gets its line here.
 *
 * KVB_BACKENDS(X, arg) calls X(arg, variant name, backend name, flags) for
 * each: a list macro, the one place that names them all.
 */
#ifndef KVBENCH_BACKENDS_H
#define KVBENCH_BACKENDS_H

#include <stdbool.h>
#include <string.h>

#include "kselftest.h"

#define KVB_OWNER		0x1
#define KVB_SHARDED		0x2
#define KVB_COMBINING		0x4

#define KVB_BACKENDS(X, arg)						\
	X(arg, rwlock, "rwlock", 0)					\
	X(arg, rcu, "rcu", 0)						\
	X(arg, kthread, "kthread", KVB_OWNER)				\
	X(arg, kthread_percpu, "kthread-percpu", KVB_OWNER | KVB_SHARDED) \
	X(arg, rhashtable, "rhashtable", 0)				\
	X(arg, combining, "combining", KVB_COMBINING)

struct kvb_backend {
	const char *name;
	unsigned int flags;
};

#define KVB_BACKEND_ENTRY(arg, id, name, flags)	{ name, flags },

static const struct kvb_backend kvb_backends[] = {
	KVB_BACKENDS(KVB_BACKEND_ENTRY, kvb)
};

#define KVB_NR_BACKENDS		ARRAY_SIZE(kvb_backends)

/* The index of @name in kvb_backends[], or -1. */
static inline int kvb_backend_index(const char *name)
{
	unsigned int i;

	for (i = 0; i < KVB_NR_BACKENDS; i++)
		if (!strcmp(kvb_backends[i].name, name))
			return i;
	return -1;
}

/*
 * A kselftest harness fixture's variants, one per backend of KVB_BACKENDS,
 * named after it ("kthread_percpu" for kthread-percpu), each with the
 * backend's name and flags.
 */
#define KVB_VARIANT_ADD(fixture, id, name, flags)			\
	FIXTURE_VARIANT_ADD(fixture, id) {				\
		.backend = name,					\
		.owner = (flags) & KVB_OWNER,				\
		.sharded = (flags) & KVB_SHARDED,			\
		.combining = (flags) & KVB_COMBINING,			\
	};

#define KVB_FIXTURE_VARIANTS(fixture)					\
	FIXTURE_VARIANT(fixture) {					\
		const char *backend;					\
		bool owner;						\
		bool sharded;						\
		bool combining;						\
	};								\
	KVB_BACKENDS(KVB_VARIANT_ADD, fixture)

#endif /* KVBENCH_BACKENDS_H */
