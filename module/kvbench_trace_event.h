/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KVBENCH_TRACE_EVENT(): TRACE_EVENT() for the kvbench trace headers
 * (kvbench_trace.h, and a backend's own, backend_<name>_trace.h),
 * or, built with KVBENCH_TRACE=0 (-DKVBENCH_NO_TRACE), an empty inline
 * trace_<name>() and a trace_<name>_enabled() that is false.
 *
 * It expands to TRACE_EVENT() where it is used, so one definition serves
 * every pass define_trace.h makes over a trace header.
 */
#ifndef _KVBENCH_TRACE_EVENT_H
#define _KVBENCH_TRACE_EVENT_H

#ifdef KVBENCH_NO_TRACE
#define KVBENCH_TRACE_EVENT(name, proto, ...)				\
	static inline void trace_##name(proto)				\
	{								\
	}								\
	static inline bool trace_##name##_enabled(void)			\
	{								\
		return false;						\
	}
#else
#define KVBENCH_TRACE_EVENT(name, proto, args, tstruct, assign, print)	\
	TRACE_EVENT(name, PARAMS(proto), PARAMS(args), PARAMS(tstruct),	\
		    PARAMS(assign), PARAMS(print))
#endif

#endif /* _KVBENCH_TRACE_EVENT_H */
