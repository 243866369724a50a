/* SPDX-License-Identifier: GPL-2.0 */
/*
 * io_uring helpers of the kvbench selftests: a ring driven through the raw
 * syscalls (no liburing: Debian 12's has no helper for uring commands, and
 * the guest needs nothing then), IORING_OP_URING_CMD SQEs carrying a
 * struct kvbench_uring_cmd, and how to tell that io_uring or the module's
 * uring commands are missing.
 *
 * Functions return 0 or a negative errno unless they say otherwise.
 */
#ifndef KVBENCH_URING_H
#define KVBENCH_URING_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/io_uring.h>
#include <linux/kvbench.h>

#include "kvbench_helpers.h"

struct ring {
	int fd;
	unsigned int flags;
	unsigned int sq_entries, cq_entries;
	unsigned int *sq_head, *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	void *sqes;
	void *cqes;
	size_t sq_len, cq_len, sqes_len;
	void *sq_map, *cq_map;
	unsigned int pending;		/* SQEs queued, not yet submitted */
};

struct cqe {
	__u64 user_data;
	__s32 res;
	__u64 extra;			/* big_cqe[0] (CQE32 rings) */
};

static inline int sys_io_uring_setup(unsigned int entries,
				     struct io_uring_params *p)
{
	return syscall(__NR_io_uring_setup, entries, p);
}

static inline int sys_io_uring_enter(int fd, unsigned int submit,
				     unsigned int wait, unsigned int flags,
				     void *arg, size_t argsz)
{
	return syscall(__NR_io_uring_enter, fd, submit, wait, flags, arg, argsz);
}

static inline int sys_io_uring_register(int fd, unsigned int op, void *arg,
					unsigned int n)
{
	return syscall(__NR_io_uring_register, fd, op, arg, n);
}

static inline __u64 ptr(const void *p)
{
	return (__u64)(unsigned long)p;
}

/* An SQPOLL ring's thread sleeps after this many ms without work. */
#define RING_SQ_IDLE_MS		10

static inline int ring_init(struct ring *r, unsigned int entries,
			    unsigned int flags)
{
	struct io_uring_params p = { .flags = flags };
	size_t sqe_size = flags & IORING_SETUP_SQE128 ? 128 : 64;
	size_t cqe_size = flags & IORING_SETUP_CQE32 ? 32 : 16;

	if (flags & IORING_SETUP_SQPOLL)
		p.sq_thread_idle = RING_SQ_IDLE_MS;
	memset(r, 0, sizeof(*r));
	r->fd = sys_io_uring_setup(entries, &p);
	if (r->fd < 0)
		return -errno;
	r->flags = flags;
	r->sq_entries = p.sq_entries;
	r->cq_entries = p.cq_entries;
	r->sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	r->cq_len = p.cq_off.cqes + p.cq_entries * cqe_size;
	r->sqes_len = p.sq_entries * sqe_size;
	r->sq_map = mmap(NULL, r->sq_len, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
	r->cq_map = mmap(NULL, r->cq_len, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, r->sqes_len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
	if (r->sq_map == MAP_FAILED || r->cq_map == MAP_FAILED ||
	    r->sqes == MAP_FAILED) {
		close(r->fd);
		r->fd = -1;
		return -ENOMEM;
	}
	r->sq_head = r->sq_map + p.sq_off.head;
	r->sq_tail = r->sq_map + p.sq_off.tail;
	r->sq_mask = r->sq_map + p.sq_off.ring_mask;
	r->sq_array = r->sq_map + p.sq_off.array;
	r->cq_head = r->cq_map + p.cq_off.head;
	r->cq_tail = r->cq_map + p.cq_off.tail;
	r->cq_mask = r->cq_map + p.cq_off.ring_mask;
	r->cqes = r->cq_map + p.cq_off.cqes;
	return 0;
}

static inline void ring_exit(struct ring *r)
{
	if (r->fd < 0)
		return;
	munmap(r->sqes, r->sqes_len);
	munmap(r->cq_map, r->cq_len);
	munmap(r->sq_map, r->sq_len);
	close(r->fd);
	r->fd = -1;
}

/*
 * Queue one uring command on @fd (a registered file index with
 * IOSQE_FIXED_FILE in @sqe_flags); submitted by ring_submit(). Returns
 * the SQE, which may still be changed until then. The caller keeps no
 * more SQEs queued than the ring has (an SQPOLL ring's thread frees them
 * as it takes them: never more than the commands in flight).
 */
static inline struct io_uring_sqe *
ring_cmd(struct ring *r, int fd, __u32 op, __u64 kv, __u32 flags,
	 __u32 reserved, __u64 user_data, __u8 sqe_flags, __u32 cmd_flags)
{
	size_t sqe_size = r->flags & IORING_SETUP_SQE128 ? 128 : 64;
	unsigned int tail = *r->sq_tail, idx = tail & *r->sq_mask;
	struct io_uring_sqe *sqe = r->sqes + idx * sqe_size;
	struct kvbench_uring_cmd *c = (struct kvbench_uring_cmd *)sqe->cmd;

	memset(sqe, 0, sqe_size);
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->flags = sqe_flags;
	sqe->cmd_op = op;
	sqe->uring_cmd_flags = cmd_flags;
	sqe->user_data = user_data;
	c->kv = kv;
	c->flags = flags;
	c->reserved = reserved;
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	r->pending++;
	return sqe;
}

/*
 * Submit what is queued and wait for @wait CQEs, at most @timeout_ms
 * (-1: no limit; 0 with @wait 0: only run the task work that waits for
 * io_uring_enter, as on a DEFER_TASKRUN ring). Return: 0, -ETIME when the
 * time ran out first, or another -errno.
 */
static inline int ring_enter(struct ring *r, unsigned int wait, int timeout_ms)
{
	struct __kernel_timespec ts = {
		.tv_sec = timeout_ms / 1000,
		.tv_nsec = (timeout_ms % 1000) * 1000000L,
	};
	struct io_uring_getevents_arg arg = { .ts = ptr(&ts) };
	unsigned int flags = 0;
	void *argp = NULL;
	size_t argsz = 0;
	int ret;

	if (wait || timeout_ms >= 0)
		flags |= IORING_ENTER_GETEVENTS;
	if (timeout_ms > 0) {
		flags |= IORING_ENTER_EXT_ARG;
		argp = &arg;
		argsz = sizeof(arg);
	}
	/* The SQ thread may sleep: wake it (harmless when it does not). */
	if (r->flags & IORING_SETUP_SQPOLL)
		flags |= IORING_ENTER_SQ_WAKEUP;
	do {
		ret = sys_io_uring_enter(r->fd, r->pending, wait, flags, argp,
					 argsz);
	} while (ret < 0 && errno == EINTR);
	if (ret < 0)
		return -errno;
	r->pending -= ret;
	return 0;
}

/* Submit what is queued and wait for @wait CQEs. */
static inline int ring_submit(struct ring *r, unsigned int wait)
{
	return ring_enter(r, wait, -1);
}

/*
 * CQEs whose big_cqe[0] broke the ABI: it is a GET's value length when
 * res is 0 or -ERANGE, and 0 otherwise (no byte the module did not mean to
 * write). Counted by every ring_peek(), summed over the process's threads;
 * suites check it at their end.
 */
static unsigned long ring_stray_extra;

/* Take one CQE if there is one. Return: 0, or -EAGAIN when there is none. */
static inline int ring_peek(struct ring *r, struct cqe *out)
{
	size_t cqe_size = r->flags & IORING_SETUP_CQE32 ? 32 : 16;
	unsigned int head = *r->cq_head;
	struct io_uring_cqe *cqe;

	if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
		return -EAGAIN;
	cqe = r->cqes + (head & *r->cq_mask) * cqe_size;
	out->user_data = cqe->user_data;
	out->res = cqe->res;
	out->extra = r->flags & IORING_SETUP_CQE32 ? cqe->big_cqe[0] : 0;
	if (out->extra && out->res && out->res != -ERANGE)
		__atomic_add_fetch(&ring_stray_extra, 1, __ATOMIC_RELAXED);
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return 0;
}

/* Take one CQE, waiting for it. */
static inline int ring_reap(struct ring *r, struct cqe *out)
{
	int ret;

	while (ring_peek(r, out)) {
		ret = ring_submit(r, 1);
		if (ret)
			return ret;
	}
	return 0;
}

/* One command, waited for: its CQE's res (and big_cqe[0] in @extra). */
static inline int ring_one(struct ring *r, int fd, __u32 op, __u64 kv,
			   __u32 flags, __u32 reserved, __u32 cmd_flags,
			   __u64 *extra)
{
	struct cqe cqe;
	int ret;

	ring_cmd(r, fd, op, kv, flags, reserved, 0x5eed, 0, cmd_flags);
	ret = ring_submit(r, 1);
	if (!ret)
		ret = ring_reap(r, &cqe);
	if (ret)
		return 1000 + -ret;	/* not an errno a command gives */
	if (extra)
		*extra = cqe.extra;
	return cqe.user_data == 0x5eed ? cqe.res : 2000;
}

/*
 * Why this kernel and module cannot run uring commands (no io_uring:
 * ENOSYS, or EPERM where io_uring_disabled says so; a module built
 * without them: EOPNOTSUPP), or NULL when they can, or when something
 * else is wrong that the caller's tests will report.
 */
static inline const char *uring_unavailable(void)
{
	static char why[128];
	struct ring r;
	int fd, ret;

	ret = ring_init(&r, 4, 0);
	if (ret == -ENOSYS || ret == -EPERM) {
		snprintf(why, sizeof(why), "io_uring_setup: %s",
			 strerror(-ret));
		return why;
	}
	if (ret)
		return NULL;
	fd = open(KVB_DEV, O_RDWR);
	if (fd < 0) {
		ring_exit(&r);
		return NULL;
	}
	ret = ring_one(&r, fd, KVBENCH_URING_NOP, 0, 0, 0, 0, NULL);
	close(fd);
	ring_exit(&r);
	if (ret == -EOPNOTSUPP)
		return KVB_DEV " takes no io_uring commands (EOPNOTSUPP)";
	return NULL;
}

/*
 * The module's reference count, once it is at most @base: io_uring drops
 * what a ring held (a registered file, the file of each command) only
 * when the ring's teardown has run, in a worker, after its last close.
 * Waits up to 20 s; returns the last count read (~0 if unreadable).
 */
static inline unsigned long long wait_refcnt(unsigned long long base)
{
	unsigned long long refcnt = ~0ULL;
	int i;

	for (i = 0; i < 2000; i++) {
		if (sysfs_read_u64(KVB_MODULE "/refcnt", &refcnt))
			return ~0ULL;
		if (refcnt <= base)
			break;
		usleep(10000);
	}
	return refcnt;
}

#endif /* KVBENCH_URING_H */
