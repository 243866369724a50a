/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvbench core internals: what the core's files (the device, requests,
 * sysfs, io_uring, the module's init and parameters) share. Backends never
 * include it: theirs is kvbench_backend.h, which this header includes.
 */
#ifndef _KVBENCH_H
#define _KVBENCH_H

#include <linux/kvbench.h>
#include <linux/percpu.h>
#include <linux/types.h>
#include <kunit/visibility.h>

#include "kvbench_backend.h"

/* Items (kvbench_item.c), for the core */
unsigned long kvbench_items_pending(void);
void kvbench_hash_init(void);

/* Limits (kvbench_limits.c), for sysfs */
unsigned long kvbench_bytes(void);

/**
 * struct kvbench_async - one request run without its caller waiting
 * @msg:	carries the request (->head) to a backend with ->submit
 * @room:	around @msg: room for the backend's own message type
 * @done:	called once, from the backend's thread, when a request that
 *		kvbench_run_async() queued has run; must not sleep. The core
 *		does not touch @a after the call.
 * @backend:	the name of the backend it was queued to (trace events)
 */
struct kvbench_async {
	union {
		struct kvbench_msg msg;
		union kvbench_msg_room room;
	};
	void (*done)(struct kvbench_async *a);
	const char *backend;
};

/* What kvbench_run_async() did with a request it did not refuse. */
#define KVBENCH_RAN	0	/* ran, in the caller's context */
#define KVBENCH_QUEUED	1	/* queued: ->done says when it ran */

/*
 * Counters bumped on every operation: per CPU (kvbench_req.c), summed when
 * read (kvbench_sysfs.c). A GET bumps one of hits or misses; "gets" is
 * their sum.
 */
struct kvbench_stats {
	unsigned long hits;
	unsigned long misses;
	unsigned long sets;
	unsigned long dels;
	unsigned long batches;
};

DECLARE_PER_CPU(struct kvbench_stats, kvbench_stats);

/* Add up the counters of a request that ran, for kvbench_count(). */
static inline void kvbench_tally(struct kvbench_stats *t,
				 const struct kvbench_req *req)
{
	switch (req->op) {
	case KVBENCH_OP_GET:
		if (req->result == -ENOENT)
			t->misses++;
		else
			t->hits++;
		break;
	case KVBENCH_OP_SET:
		t->sets++;
		break;
	case KVBENCH_OP_DEL:
		t->dels++;
		break;
	}
}

/*
 * Requests (kvbench_req.c): the two ends of every operation's path, and
 * the user copies of the core.
 */
int kvbench_value_len_ok(u32 value_len);
int kvbench_prepare(struct kvbench_req *req, u32 op, const u8 *key,
		    u32 key_len, const void __user *value, u32 value_len,
		    void *valbuf);
int kvbench_prepare_kv(struct kvbench_req *req, u32 op,
		       const struct kvbench_kv *kv, u8 *keybuf, void *valbuf);
void kvbench_release(struct kvbench_req *req);
int kvbench_complete(struct kvbench_req *req, void __user *value);
int kvbench_complete_kv(struct kvbench_req *req, struct kvbench_kv *kv);
void kvbench_count(const struct kvbench_stats *t);
void kvbench_count_one(const struct kvbench_req *req);
int kvbench_copy_in(void *dst, const void __user *src, size_t len);
int kvbench_copy_out(void __user *dst, const void *src, size_t len);

/* The device (kvbench_dev.c) and its sysfs files (kvbench_sysfs.c) */
struct io_uring_cmd;
int kvbench_uring_cmd(struct io_uring_cmd *cmd, unsigned int issue_flags);
#ifdef KVBENCH_URING
int kvbench_uring_init(void);
void kvbench_uring_exit(void);
#else
static inline int kvbench_uring_init(void)
{
	return 0;
}

static inline void kvbench_uring_exit(void)
{
}
#endif
int kvbench_dev_register(void);
void kvbench_dev_unregister(void);
extern const struct attribute_group *kvbench_groups[];
void kvbench_ratio(u64 num, u64 den, u64 *whole, u32 *hundredths);

/* The longest backend name, its NUL included. */
#define KVBENCH_NAME_MAX	32
/* The most backends the core's table may list. */
#define KVBENCH_BACKENDS_MAX	8

/* The core (kvbench_main.c), for the module, the device and sysfs */
int kvbench_core_init(void);
void kvbench_core_exit(void);
bool kvbench_core_live(void);
extern unsigned int kvbench_hash_bits;
extern unsigned int kvbench_queue_len;
extern unsigned int kvbench_owners;
int kvbench_backend_name_show(char *buf);
const struct kvbench_backend_ops *kvbench_backend_at(unsigned int i);
void kvbench_backend_stats(const enum kvbench_stat *which, unsigned long *val,
			   unsigned int n);
void kvbench_backend_reset_stats(void);
void kvbench_settle(void);

/*
 * The core's own entry points, exported to the KUnit suite (and only there:
 * see EXPORT_SYMBOL_IF_KUNIT).
 */
const struct kvbench_backend_ops *kvbench_find_backend(const char *name);
struct kvbench_backend *
kvbench_backend_create(const struct kvbench_backend_ops *ops,
		       const struct kvbench_params *p);
void kvbench_backend_destroy(struct kvbench_backend *b);
void kvbench_backend_run(struct kvbench_backend *b, struct kvbench_req *reqs,
			 unsigned int n);
void kvbench_run(struct kvbench_req *reqs, unsigned int n);
int kvbench_run_async(struct kvbench_async **ap,
		      struct kvbench_async *(*keep)(struct kvbench_async *a),
		      bool nowait);
int kvbench_switch_by_name(const char *name);
unsigned long kvbench_entries(void);
void kvbench_swap_limits(unsigned long *entries, unsigned long *bytes);

#endif /* _KVBENCH_H */
