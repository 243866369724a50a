// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench: the target table, every target -b knows by name with its row
 * (struct kvb_target_ops, defined where it is implemented: device.c,
 * uring.c, umap.c, bpf.c), and the targets a list of names and --io make.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvbench.h"

/*
 * The target table: every target -b knows by name, in the order "all"
 * runs them. Any other lower-case name may be a kernel backend the module
 * offers (kvb_check_backends() says whether).
 */
const struct kvb_target_row kvb_target_table[] = {
	{ "nop", &kvb_nop_ops },
	{ "rwlock", &kvb_kernel_ops },
	{ "rcu", &kvb_kernel_ops },
	{ "kthread", &kvb_kernel_ops },
	{ "kthread-percpu", &kvb_kernel_ops },
	{ "rhashtable", &kvb_kernel_ops },
	{ "combining", &kvb_kernel_ops },
	{ "bpf-htab", &kvb_bpf_htab_ops },
	{ "user-rwlock", &kvb_urw_ops },
	{ "user-owner", &kvb_owner_ops },
};

const int kvb_ntarget_table = ARRAY_SIZE(kvb_target_table);

/* The -b groups: "all", then each row's group */
const char * const kvb_target_groups[] = { "all", "kernel", "baselines", "peers" };
const int kvb_ntarget_groups = ARRAY_SIZE(kvb_target_groups);

/*
 * The same row through io_uring (--io uring), or NULL: nop and the kernel
 * backends, the targets of the device.
 */
static const struct kvb_target_ops *uring_of(const struct kvb_target_ops *ops)
{
	if (ops == &kvb_nop_ops)
		return &kvb_nop_uring_ops;
	if (ops == &kvb_kernel_ops)
		return &kvb_kernel_uring_ops;
	return NULL;
}

/* A known target, or a kernel backend of that name: 0; -1: bad name. */
int kvb_target_by_name(const char *name, struct kvb_target *t)
{
	const struct kvb_target_ops *ops = &kvb_kernel_ops;
	int i;

	for (i = 0; i < (int)kvb_ntarget_table; i++)
		if (!strcmp(name, kvb_target_table[i].name))
			ops = kvb_target_table[i].ops;
	if (strlen(name) >= sizeof(t->base))
		return -1;
	memset(t, 0, sizeof(*t));
	t->kind = ops->kind;
	t->ops = ops;
	t->io = ops->flags & KVB_T_DEVICE ? KVB_IO_IOCTL : KVB_IO_NONE;
	kvb_target_rename(t, name);
	return 0;
}

/*
 * The targets as --io, --qd and --sqpoll make them: each target that has
 * the device (and so an io_uring row) once through ioctls (--io ioctl) and
 * once per queue depth through io_uring (--io uring), side by side; the
 * others once, as they are.
 */
int kvb_expand_io(struct kvb_target **targets, int *n, unsigned int ios,
		  const struct kvb_ulist *qds, int sqpoll, char *err,
		  size_t errlen)
{
	int per = qds->n + 1, i, j, cnt = 0, any = 0;
	struct kvb_target *t = calloc((size_t)*n * per, sizeof(*t));

	if (!t)
		return kvb_fail(err, errlen, "out of memory");
	for (i = 0; i < *n; i++) {
		const struct kvb_target *x = &(*targets)[i];
		const struct kvb_target_ops *uring = uring_of(x->ops);

		if (!uring || (ios & 1U << KVB_IO_IOCTL))
			t[cnt++] = *x;
		if (!uring || !(ios & 1U << KVB_IO_URING))
			continue;
		any = 1;
		for (j = 0; j < qds->n; j++) {
			struct kvb_target *u = &t[cnt++];

			*u = *x;
			u->ops = uring;
			u->kind = u->ops->kind;
			u->io = KVB_IO_URING;
			u->qd = qds->v[j];
			u->sqpoll = sqpoll;
			kvb_target_rename(u, x->base);
		}
	}
	if ((ios & 1U << KVB_IO_URING) && !any) {
		free(t);
		return kvb_fail(err, errlen,
			    "no target runs on the device (nop or a kernel backend), so none can use io_uring");
	}
	free(*targets);
	*targets = t;
	*n = cnt;
	return 0;
}
