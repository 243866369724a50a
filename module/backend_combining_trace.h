/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The combining backend's trace event, in the kvbench system
 * (/sys/kernel/tracing/events/kvbench/):
 *
 *   kvbench_comb_pass	one pass of a combiner (a caller that runs others'
 *			requests)
 *
 * backend_combining.c creates it; its fields and uses are in
 * Documentation/kvbench.rst, "Tracing". Built with KVBENCH_TRACE=0 it does
 * not exist (kvbench_trace_event.h).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM kvbench

/* Values of the event's fields, defined once however often this is read. */
#ifndef _BACKEND_COMBINING_TRACE_DEFS_H
#define _BACKEND_COMBINING_TRACE_DEFS_H
/* How a combiner's pass ended: the kvbench_comb_pass event's @ended. */
enum kvbench_comb_end {
	KVBENCH_COMB_RELEASED,	/* nothing left: the role is free */
	KVBENCH_COMB_KEPT,	/* the combiner's own message is left */
	KVBENCH_COMB_TO_CALLER,	/* handed to the caller of the oldest message */
	KVBENCH_COMB_TO_WORK,	/* handed to the work item (io_uring only) */
};
#endif /* _BACKEND_COMBINING_TRACE_DEFS_H */

#if !defined(_BACKEND_COMBINING_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _BACKEND_COMBINING_TRACE_H

#include <linux/tracepoint.h>

#include "kvbench_trace_event.h"

TRACE_DEFINE_ENUM(KVBENCH_COMB_RELEASED);
TRACE_DEFINE_ENUM(KVBENCH_COMB_KEPT);
TRACE_DEFINE_ENUM(KVBENCH_COMB_TO_CALLER);
TRACE_DEFINE_ENUM(KVBENCH_COMB_TO_WORK);

/*
 * A combiner ran @msgs messages holding @reqs requests (its own among
 * them) in @duration_ns, and its pass @ended (enum kvbench_comb_end).
 */
KVBENCH_TRACE_EVENT(kvbench_comb_pass,
		    TP_PROTO(unsigned long msgs, unsigned long reqs, int ended,
			     u64 duration_ns),
		    TP_ARGS(msgs, reqs, ended, duration_ns),
		    TP_STRUCT__entry(__field(unsigned long, msgs)
				     __field(unsigned long, reqs)
				     __field(int, ended)
				     __field(u64, duration_ns)),
		    TP_fast_assign(__entry->msgs = msgs;
				   __entry->reqs = reqs;
				   __entry->ended = ended;
				   __entry->duration_ns = duration_ns;),
		    TP_printk("msgs=%lu reqs=%lu ended=%s duration_ns=%llu",
			      __entry->msgs, __entry->reqs,
			      __print_symbolic(__entry->ended,
					       { KVBENCH_COMB_RELEASED, "released" },
					       { KVBENCH_COMB_KEPT, "kept" },
					       { KVBENCH_COMB_TO_CALLER, "caller" },
					       { KVBENCH_COMB_TO_WORK, "work" }),
			      __entry->duration_ns)
);

#endif /* _BACKEND_COMBINING_TRACE_H */

/* An out-of-tree header: define_trace.h finds it through -I$(src). */
#undef TRACE_INCLUDE_PATH
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE backend_combining_trace
#include <trace/define_trace.h>
