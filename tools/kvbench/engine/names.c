// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench: the names of what a case varies, as the table, the CSV, the
 * JSON and the progress lines write them: a target (its backend and io),
 * the io, the call (batch or packed), the fd mode, the kind, the mix and
 * the key distribution.
 */
#include <stdio.h>

#include "kvbench.h"

/*
 * "rcu" through ioctls; "rcu/uring-qd16" through io_uring, 16 commands in
 * flight per thread; "rcu/uring-qd16-sqpoll" with a kernel SQ thread.
 */
void kvb_target_name(char *buf, size_t len, const char *base, enum kvb_io io,
		     unsigned int qd, int sqpoll)
{
	if (io != KVB_IO_URING)
		snprintf(buf, len, "%s", base);
	else
		snprintf(buf, len, "%s/uring-qd%u%s", base, qd, sqpoll ? "-sqpoll" : "");
}

/* A new backend name (current -> rcu), the io kept. */
void kvb_target_rename(struct kvb_target *t, const char *base)
{
	snprintf(t->base, sizeof(t->base), "%s", base);
	kvb_target_name(t->name, sizeof(t->name), t->base, t->io, t->qd, t->sqpoll);
}

/* "-" for a target without the device (the JSON says null). */
const char *kvb_io_name(enum kvb_io io)
{
	switch (io) {
	case KVB_IO_IOCTL:
		return "ioctl";
	case KVB_IO_URING:
		return "uring";
	default:
		return "-";
	}
}

/*
 * The table's batch column and the case labels: "64" for a BATCH of 64
 * (1: single ops), "M64" for packed MGET/MSET/MDEL calls of 64 keys.
 */
void kvb_call_name(unsigned int batch, int multi, char *buf, size_t len)
{
	snprintf(buf, len, "%s%u", multi ? "M" : "", batch);
}

/* "-": a target that has no fd of the device (the JSON says null). */
const char *kvb_fd_name(enum kvb_fd fd)
{
	switch (fd) {
	case KVB_FD_SHARED:
		return "shared";
	case KVB_FD_NONE:
		return "-";
	default:
		return "per-thread";
	}
}

const char *kvb_kind_name(enum kvb_kind kind)
{
	switch (kind) {
	case KVB_NOP:
		return "floor";
	case KVB_KERNEL:
		return "kernel";
	case KVB_PEER:
		return "peer";
	default:
		return "userspace";
	}
}

const char *kvb_dist_name(enum kvb_dist dist)
{
	switch (dist) {
	case KVB_ZIPF:
		return "zipf";
	case KVB_LATEST:
		return "latest";
	case KVB_SCRAMBLED:
		return "scrambled-zipf";
	default:
		return "uniform";
	}
}

void kvb_mix_name(const struct kvb_mix *mix, char *buf, size_t len)
{
	if (mix->wl)
		snprintf(buf, len, "%s", mix->wl->name);
	else if (mix->get && !mix->set && !mix->del)
		snprintf(buf, len, "get");
	else if (!mix->get && mix->set && !mix->del)
		snprintf(buf, len, "set");
	else if (!mix->get && !mix->set && mix->del)
		snprintf(buf, len, "del");
	else if (!mix->del)
		snprintf(buf, len, "%u:%u", mix->get, mix->set);
	else
		snprintf(buf, len, "%u:%u:%u", mix->get, mix->set, mix->del);
}

/*
 * n mixes in turn (--after), as the reports name them: "set", or
 * "set,get" for set then get round by round; each name at most 31 bytes.
 */
void kvb_mix_names(const struct kvb_mix *mixes, unsigned int n, char *buf, size_t len)
{
	size_t l = 0;
	unsigned int k;
	char m[32];

	if (len)
		buf[0] = '\0';
	for (k = 0; k < n && l < len; k++) {
		kvb_mix_name(&mixes[k], m, sizeof(m));
		l += snprintf(buf + l, len - l, "%s%s", k ? "," : "", m);
	}
}
