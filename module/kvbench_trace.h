/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvbench trace events: /sys/kernel/tracing/events/kvbench/
 *
 *   kvbench_op		one operation, after the backend ran it
 *   kvbench_switch	one backend switch, done or failed
 *   kvbench_owner_pass	one pass of an owner thread that found messages
 *   kvbench_queue_full	one wait of a caller for room in an owner's queue
 *
 * A backend's own events are in its own header, in the same system
 * (backend_<name>_trace.h, which that backend creates). Their fields and uses
 * are in Documentation/kvbench.rst, "Tracing".
 *
 * Every trace_kvbench_*() call is behind a static key: while an event is
 * disabled, its call site is a no-op jump. What only an event needs (a
 * timestamp, a reference) is computed under trace_kvbench_*_enabled().
 * Built with KVBENCH_TRACE=0 (-DKVBENCH_NO_TRACE), the events do not
 * exist: each trace_kvbench_*() is an empty inline function and each
 * trace_kvbench_*_enabled() is false.
 *
 * Strings are fixed-size arrays rather than __string(): __assign_str()
 * lost its second argument in 6.10, and backend names are short.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM kvbench

#if !defined(_KVBENCH_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _KVBENCH_TRACE_H

#include <linux/tracepoint.h>

#include "kvbench_backend.h"
#include "kvbench_trace_event.h"

/* Room for a backend's name in an event, its NUL included. */
#define KVBENCH_TRACE_NAME	16

/* Userspace tools read the numbers of the ops, not their names. */
TRACE_DEFINE_ENUM(KVBENCH_OP_GET);
TRACE_DEFINE_ENUM(KVBENCH_OP_SET);
TRACE_DEFINE_ENUM(KVBENCH_OP_DEL);

#define show_kvbench_op(op)						\
	__print_symbolic(op,						\
			 { KVBENCH_OP_GET, "GET" },			\
			 { KVBENCH_OP_SET, "SET" },			\
			 { KVBENCH_OP_DEL, "DEL" })

/*
 * Every field comes from the request itself, never from a SET's item: the
 * map owns the item once the SET ran and another caller's DEL may free it
 * before the event is recorded (an io_uring SET is traced when its answer
 * is handed back). kvbench_prepare() recorded a SET's key length, hash and
 * value length in the request (kvbench_req_set()). A GET's value length is
 * that of the value found (0 for a miss), a DEL's 0.
 * @batch is the number of requests the backend ran in the same call: 1 for
 * a single-op ioctl, the size of the batch (or of its chunk) for a BATCH.
 */
KVBENCH_TRACE_EVENT(kvbench_op,
		    TP_PROTO(const char *backend, const struct kvbench_req *req,
			     unsigned int batch),
		    TP_ARGS(backend, req, batch),
		    TP_STRUCT__entry(__array(char, backend, KVBENCH_TRACE_NAME)
				     __field(u32, op)
				     __field(u32, hash)
				     __field(u32, key_len)
				     __field(u32, value_len)
				     __field(u32, batch)
				     __field(int, result)),
		    TP_fast_assign(strscpy_pad(__entry->backend, backend,
					       KVBENCH_TRACE_NAME);
				   __entry->op = req->op;
				   __entry->hash = req->key.hash;
				   __entry->key_len = req->key.len;
				   __entry->value_len =
					req->op == KVBENCH_OP_SET ? req->value_len :
					req->op == KVBENCH_OP_GET ? req->get.len : 0;
				   __entry->batch = batch;
				   __entry->result = req->result;),
		    TP_printk("backend=%s op=%s hash=%08x key_len=%u value_len=%u batch=%u result=%d",
			      __entry->backend, show_kvbench_op(__entry->op),
			      __entry->hash, __entry->key_len,
			      __entry->value_len, __entry->batch,
			      __entry->result)
);

/*
 * @moved counts the entries the new map took; when the switch failed they
 * went back to the old map. @duration_ns is the whole switch, building
 * the new map and destroying the old one included; @blocked_ns the part
 * during which operations waited (switch_sem held for writing).
 */
KVBENCH_TRACE_EVENT(kvbench_switch,
		    TP_PROTO(const char *from, const char *to,
			     unsigned long moved, int result, u64 duration_ns,
			     u64 blocked_ns),
		    TP_ARGS(from, to, moved, result, duration_ns, blocked_ns),
		    TP_STRUCT__entry(__array(char, from, KVBENCH_TRACE_NAME)
				     __array(char, to, KVBENCH_TRACE_NAME)
				     __field(unsigned long, moved)
				     __field(int, result)
				     __field(u64, duration_ns)
				     __field(u64, blocked_ns)),
		    TP_fast_assign(strscpy_pad(__entry->from, from,
					       KVBENCH_TRACE_NAME);
				   strscpy_pad(__entry->to, to, KVBENCH_TRACE_NAME);
				   __entry->moved = moved;
				   __entry->result = result;
				   __entry->duration_ns = duration_ns;
				   __entry->blocked_ns = blocked_ns;),
		    TP_printk("from=%s to=%s moved=%lu result=%d duration_ns=%llu blocked_ns=%llu",
			      __entry->from, __entry->to, __entry->moved,
			      __entry->result, __entry->duration_ns,
			      __entry->blocked_ns)
);

/*
 * @owner is the number in the thread's name (kvbench-owner/N), -1 for a
 * map's single owner; @msgs the messages the pass answered, @reqs
 * the requests they held; @duration_ns the time the pass took.
 */
KVBENCH_TRACE_EVENT(kvbench_owner_pass,
		    TP_PROTO(int owner, unsigned long msgs, unsigned long reqs,
			     u64 duration_ns),
		    TP_ARGS(owner, msgs, reqs, duration_ns),
		    TP_STRUCT__entry(__field(int, owner)
				     __field(unsigned long, msgs)
				     __field(unsigned long, reqs)
				     __field(u64, duration_ns)),
		    TP_fast_assign(__entry->owner = owner;
				   __entry->msgs = msgs;
				   __entry->reqs = reqs;
				   __entry->duration_ns = duration_ns;),
		    TP_printk("owner=%d msgs=%lu reqs=%lu duration_ns=%llu",
			      __entry->owner, __entry->msgs, __entry->reqs,
			      __entry->duration_ns)
);

/*
 * A caller found @owner's queue full and waited @waited_ns for room, or
 * until a fatal signal (@interrupted: the request was not queued).
 */
KVBENCH_TRACE_EVENT(kvbench_queue_full,
		    TP_PROTO(int owner, u64 waited_ns, bool interrupted),
		    TP_ARGS(owner, waited_ns, interrupted),
		    TP_STRUCT__entry(__field(int, owner)
				     __field(u64, waited_ns)
				     __field(bool, interrupted)),
		    TP_fast_assign(__entry->owner = owner;
				   __entry->waited_ns = waited_ns;
				   __entry->interrupted = interrupted;),
		    TP_printk("owner=%d waited_ns=%llu interrupted=%d",
			      __entry->owner, __entry->waited_ns,
			      __entry->interrupted)
);

#endif /* _KVBENCH_TRACE_H */

/* An out-of-tree header: define_trace.h finds it through -I$(src). */
#undef TRACE_INCLUDE_PATH
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE kvbench_trace
#include <trace/define_trace.h>
