/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the "rhashtable" backend shows its KUnit test, beyond its ops: none
 * of the core's files nor another backend includes it.
 */
#ifndef _KVBENCH_BACKEND_RHASHTABLE_H
#define _KVBENCH_BACKEND_RHASHTABLE_H

#include <linux/types.h>

struct kvbench_key;

/* The rhashtable backend's hash of @key under the table's @seed. */
u32 kvbench_rht_hash(const struct kvbench_key *key, u32 seed);

#endif /* _KVBENCH_BACKEND_RHASHTABLE_H */
