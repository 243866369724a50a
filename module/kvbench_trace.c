// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench trace events: the one place that creates them (kvbench_trace.h).
 * Left out of a build with KVBENCH_TRACE=0.
 */
#define CREATE_TRACE_POINTS
#include "kvbench_trace.h"
