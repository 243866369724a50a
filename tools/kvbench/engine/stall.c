// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench: --trace-stall. The first operation of the process over a
 * threshold (or the Nth in one run) names itself in tracefs' trace_marker
 * and stops the kernel's trace, whose ring buffer then holds what led up
 * to it. The worker loop (bench.c) compares each timed step with the
 * threshold and calls kvb_stall_hit() only above it.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kvbench.h"

/*
 * The tracefs directory --trace-stall writes to: the one whose
 * trace_marker exists, or the first when neither's does.
 */
static const char * const tracefs_dirs[] = {
	"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
};

/*
 * Arm --trace-stall: open dir's trace_marker and tracing_on (dir NULL:
 * tracefs where it is mounted). 0, or -1 with the reason in err. A trace
 * that is off already is no error (an earlier run may have frozen it, and
 * this one must not overwrite what it caught): off_at_start says so, and
 * nothing will be written.
 */
int kvb_stall_open(struct kvb_stall *s, const char *dir, unsigned long long us,
		   char *err, size_t errlen)
{
	char path[300], on[4] = "";
	unsigned int i;
	ssize_t n;

	memset(s, 0, sizeof(*s));
	s->marker_fd = -1;
	s->on_fd = -1;
	s->count = 1;
	s->us = us;
	s->threshold_ns = us * 1000;
	for (i = 0; !dir && i < ARRAY_SIZE(tracefs_dirs); i++) {
		snprintf(path, sizeof(path), "%s/trace_marker", tracefs_dirs[i]);
		if (!access(path, F_OK))
			dir = tracefs_dirs[i];
	}
	if (!dir)
		dir = tracefs_dirs[0];
	snprintf(s->dir, sizeof(s->dir), "%s", dir);
	snprintf(path, sizeof(path), "%s/trace_marker", s->dir);
	s->marker_fd = open(path, O_WRONLY | O_CLOEXEC);
	if (s->marker_fd < 0)
		goto fail;
	snprintf(path, sizeof(path), "%s/tracing_on", s->dir);
	s->on_fd = open(path, O_RDWR | O_CLOEXEC);
	if (s->on_fd < 0)
		goto fail;
	n = pread(s->on_fd, on, sizeof(on) - 1, 0);
	if (n < 0)
		goto fail;
	s->off_at_start = on[0] == '0';
	if (s->off_at_start)
		atomic_store(&s->fired, 1);
	return 0;
fail:
	snprintf(err, errlen, "%s: %s%s", path, strerror(errno),
		 errno == ENOENT ? " (is tracefs mounted?)" :
		 errno == EACCES || errno == EPERM ? " (root?)" : "");
	kvb_stall_close(s);
	return -1;
}

void kvb_stall_close(struct kvb_stall *s)
{
	if (s->marker_fd >= 0)
		close(s->marker_fd);
	if (s->on_fd >= 0)
		close(s->on_fd);
	s->marker_fd = -1;
	s->on_fd = -1;
}

/*
 * An operation took ns, over the threshold: the first one of the process
 * names itself in the trace and stops it; 1 when this call did, else 0.
 * Not on the common path: the caller compares first.
 */
int kvb_stall_hit(struct kvb_stall *s, __u64 ns, const char *what,
		  const char *label, unsigned int thread)
{
	char line[400], nth[48] = "";
	int len;

	if (ns <= s->threshold_ns ||
	    atomic_load_explicit(&s->fired, memory_order_relaxed))
		return 0;
	/* US:N: the Nth over the threshold in this run, not the first */
	if (s->count > 1 &&
	    atomic_fetch_add_explicit(&s->over, 1, memory_order_relaxed) + 1 < s->count)
		return 0;
	if (atomic_exchange(&s->fired, 1))
		return 0;
	s->at_ns = kvb_now_ns();
	s->ns = ns;
	s->thread = thread;
	s->tid = gettid();
	s->cpu = sched_getcpu();
	snprintf(s->what, sizeof(s->what), "%s", what);
	snprintf(s->label, sizeof(s->label), "%s", label);
	if (s->count > 1)
		snprintf(nth, sizeof(nth), "; the %u%s over it in the run", s->count,
			 s->count % 100 / 10 == 1 ? "th" : s->count % 10 == 1 ? "st" :
			 s->count % 10 == 2 ? "nd" : s->count % 10 == 3 ? "rd" : "th");
	len = snprintf(line, sizeof(line),
		       "kvbench stall: %s took %llu us (over %llu us%s), thread %u tid %d cpu %d, case %s\n",
		       what, (unsigned long long)(ns / 1000), s->us, nth, thread,
		       s->tid, s->cpu, label);
	if (len >= (int)sizeof(line))
		len = sizeof(line) - 1;
	/* The line first: it is the last thing the frozen buffer holds. */
	if (write(s->marker_fd, line, len) < 0)
		s->marker_err = errno;
	if (pwrite(s->on_fd, "0\n", 2, 0) < 0)
		s->off_err = errno;
	return 1;
}

/* What the reports say of --trace-stall, one line (no newline). */
void kvb_stall_line(const struct kvb_stall *s, char *buf, size_t len)
{
	if (s->off_at_start && !s->what[0])
		snprintf(buf, len,
			 "trace-stall: %s/tracing_on was 0 at the start (frozen by an earlier run?): not armed",
			 s->dir);
	else if (!atomic_load(&s->fired))
		snprintf(buf, len, "trace-stall: no operation over %llu us", s->us);
	else
		snprintf(buf, len,
			 "trace-stall: trace frozen at %s %llu us (over %llu us), %.3f s into the run, thread %u (tid %d, cpu %d), case %s%s%s",
			 s->what, (unsigned long long)(s->ns / 1000), s->us,
			 s->at_s, s->thread, s->tid, s->cpu, s->label,
			 s->marker_err ? "; the trace_marker write failed: " :
			 s->off_err ? "; the tracing_on write failed: " : "",
			 s->marker_err ? strerror(s->marker_err) :
			 s->off_err ? strerror(s->off_err) : "");
}

