/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvbench's backends: each defines its ops in its own file (backend_*.c),
 * and the core's table (kvbench_main.c) lists them, in the order the sysfs
 * file "backends" shows. A new backend is one file, one line here and one
 * in the table.
 */
#ifndef _KVBENCH_BACKENDS_H
#define _KVBENCH_BACKENDS_H

struct kvbench_backend_ops;

extern const struct kvbench_backend_ops kvbench_rwlock_ops;
extern const struct kvbench_backend_ops kvbench_rcu_ops;
extern const struct kvbench_backend_ops kvbench_kthread_ops;
extern const struct kvbench_backend_ops kvbench_kthread_percpu_ops;
extern const struct kvbench_backend_ops kvbench_rhashtable_ops;
extern const struct kvbench_backend_ops kvbench_combining_ops;

#endif /* _KVBENCH_BACKENDS_H */
