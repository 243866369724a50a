// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the io_uring commands of /dev/kvbench (IORING_OP_URING_CMD with
 * a struct kvbench_uring_cmd, Documentation/userspace-api/kvbench.rst).
 *
 * Every test runs once per backend (FIXTURE_VARIANT): on rwlock, rcu and
 * rhashtable a command completes when it is issued, on kthread and
 * kthread-percpu the owner thread's answer completes it later. The rings
 * are driven through the raw syscalls (kvbench_uring.h, shared with the
 * stress suite and the fuzzer).
 *
 * Skips (exit 4) when the kernel has no io_uring (ENOSYS, or EPERM where
 * io_uring_disabled says so) or the device takes no uring commands
 * (EOPNOTSUPP: a module built without them).
 *
 * Run through kvbench.sh (KVBENCH_SUITES=uring), which loads the module.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The harness has an unused handler argument; that is all we silence. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#include "kvbench_helpers.h"
#include "kvbench_uring.h"

#define KEY_PREFIX	"kvbench_uring/"
#define RING_ENTRIES	256

/* ------------------------------------------------------------ ops */

static int u_op(struct ring *r, int fd, __u32 op, struct kvbench_kv *kv)
{
	return ring_one(r, fd, op, ptr(kv), 0, 0, 0, NULL);
}

static int u_set(struct ring *r, int fd, const char *key, const void *value,
		 unsigned int len)
{
	struct kvbench_kv kv;

	kv_str(&kv, key, value, len);
	return u_op(r, fd, KVBENCH_URING_SET, &kv);
}

static int u_del(struct ring *r, int fd, const char *key)
{
	struct kvbench_kv kv;

	kv_str(&kv, key, NULL, 0);
	return u_op(r, fd, KVBENCH_URING_DEL, &kv);
}

static int ioctl_del(int fd, const char *key)
{
	struct kvbench_kv kv;

	kv_str(&kv, key, NULL, 0);
	return ioctl(fd, KVBENCH_IOC_DEL, &kv) ? -errno : 0;
}

/* ------------------------------------------------------------ fixture */

FIXTURE(uring) {
	int fd;
	struct ring ring;
	char orig_backend[64];
	unsigned long long orig_queue_len;
	unsigned long long orig_max_entries;
	unsigned long long orig_max_value_len;
	unsigned long long orig_hash_bits;
	long page_size;
	unsigned char *map;		/* [rw][hole] */
	void *hole;
};

/*
 * A variant per backend of KVB_BACKENDS (kvbench_backends.h): ->combining,
 * published commands wait for a combiner.
 */
KVB_FIXTURE_VARIANTS(uring)

FIXTURE_SETUP(uring)
{
	int ret;

	self->fd = -1;
	self->ring.fd = -1;
	ASSERT_EQ(0, sysfs_read(KVB_ATTR("backend"), self->orig_backend,
				sizeof(self->orig_backend)));
	ASSERT_EQ(0, sysfs_read_u64(KVB_PARAM("queue_len"),
				    &self->orig_queue_len));
	ASSERT_EQ(0, sysfs_read_u64(KVB_PARAM("max_entries"),
				    &self->orig_max_entries));
	ASSERT_EQ(0, sysfs_read_u64(KVB_PARAM("max_value_len"),
				    &self->orig_max_value_len));
	ASSERT_EQ(0, sysfs_read_u64(KVB_PARAM("hash_bits"),
				    &self->orig_hash_bits));

	self->page_size = sysconf(_SC_PAGESIZE);
	self->map = mmap(NULL, 2 * self->page_size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->map);
	self->hole = self->map + self->page_size;
	ASSERT_EQ(0, munmap(self->hole, self->page_size));

	self->fd = open(KVB_DEV, O_RDWR);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", KVB_DEV, strerror(errno));
	ASSERT_EQ(0, ring_init(&self->ring, RING_ENTRIES, IORING_SETUP_CQE32));

	ret = sysfs_write(KVB_ATTR("backend"), variant->backend);
	if (ret == -EINVAL)
		SKIP(return, "backend %s not built", variant->backend);
	ASSERT_EQ(0, ret);
}

FIXTURE_TEARDOWN(uring)
{
	EXPECT_EQ(0UL, ring_stray_extra)
		TH_LOG("CQEs with big_cqe[0] set beside an error");
	EXPECT_EQ(0, sysfs_write_u64(KVB_PARAM("max_entries"),
				     self->orig_max_entries));
	EXPECT_EQ(0, sysfs_write_u64(KVB_PARAM("max_value_len"),
				     self->orig_max_value_len));
	EXPECT_EQ(0, sysfs_write_u64(KVB_PARAM("queue_len"),
				     self->orig_queue_len));
	EXPECT_EQ(0, sysfs_write_u64(KVB_PARAM("hash_bits"),
				     self->orig_hash_bits));
	EXPECT_EQ(0, sysfs_write(KVB_ATTR("backend"), self->orig_backend));
	ring_exit(&self->ring);
	if (self->fd >= 0)
		close(self->fd);
	munmap(self->map, self->page_size);
}

/* ------------------------------------------------------------ tests */

TEST_F(uring, nop)
{
	EXPECT_EQ(0, ring_one(&self->ring, self->fd, KVBENCH_URING_NOP, 0, 0, 0,
			      0, NULL));
}

TEST_F(uring, nop_kv_einval)
{
	EXPECT_EQ(-EINVAL, ring_one(&self->ring, self->fd, KVBENCH_URING_NOP,
				    ptr(self->map), 0, 0, 0, NULL));
}

TEST_F(uring, flags_reserved_einval)
{
	struct kvbench_kv kv;
	__u32 op;

	kv_str(&kv, KEY_PREFIX "flags", self->map, 8);
	for (op = KVBENCH_URING_NOP; op <= KVBENCH_URING_DEL; op++) {
		EXPECT_EQ(-EINVAL, ring_one(&self->ring, self->fd, op,
					    op ? ptr(&kv) : 0, 1, 0, 0, NULL));
		EXPECT_EQ(-EINVAL, ring_one(&self->ring, self->fd, op,
					    op ? ptr(&kv) : 0, 0, 1, 0, NULL));
		EXPECT_EQ(-EINVAL, ring_one(&self->ring, self->fd, op,
					    op ? ptr(&kv) : 0, 0x80000000u,
					    0, 0, NULL));
	}
	EXPECT_EQ(-ENOENT, ioctl_del(self->fd, KEY_PREFIX "flags"));
}

/* Registered buffers are not supported: the command says so, not io_uring. */
TEST_F(uring, fixed_einval)
{
	struct iovec iov = { .iov_base = self->map, .iov_len = 64 };
	struct kvbench_kv kv;

	ASSERT_EQ(0, sys_io_uring_register(self->ring.fd,
					   IORING_REGISTER_BUFFERS, &iov, 1));
	kv_str(&kv, KEY_PREFIX "fixed", self->map, 8);
	EXPECT_EQ(-EINVAL, ring_one(&self->ring, self->fd, KVBENCH_URING_GET,
				    ptr(&kv), 0, 0, IORING_URING_CMD_FIXED,
				    NULL));
	EXPECT_EQ(-EINVAL, ring_one(&self->ring, self->fd, KVBENCH_URING_NOP,
				    0, 0, 0, IORING_URING_CMD_FIXED, NULL));
}

TEST_F(uring, unknown_cmd_enotty)
{
	struct kvbench_kv kv;

	kv_str(&kv, KEY_PREFIX "enotty", self->map, 8);
	EXPECT_EQ(-ENOTTY, ring_one(&self->ring, self->fd, 4, ptr(&kv), 0, 0,
				    0, NULL));
	EXPECT_EQ(-ENOTTY, ring_one(&self->ring, self->fd, 0x1000, 0, 0, 0, 0,
				    NULL));
	EXPECT_EQ(-ENOTTY, ring_one(&self->ring, self->fd, KVBENCH_IOC_GET,
				    ptr(&kv), 0, 0, 0, NULL));
}

TEST_F(uring, set_get_del_roundtrip)
{
	const char *key = KEY_PREFIX "roundtrip";
	char out[64] = "", val[] = "uring value";
	struct kvbench_kv kv;
	__u64 extra = 99;

	ASSERT_EQ(0, u_set(&self->ring, self->fd, key, val, sizeof(val)));
	kv_str(&kv, key, out, sizeof(out));
	EXPECT_EQ(0, ring_one(&self->ring, self->fd, KVBENCH_URING_GET,
			      ptr(&kv), 0, 0, 0, &extra));
	EXPECT_EQ(sizeof(val), kv.value_len);
	EXPECT_EQ(sizeof(val), extra);
	EXPECT_STREQ(val, out);
	/* The ioctl sees what uring wrote. */
	kv_str(&kv, key, out, sizeof(out));
	memset(out, 0, sizeof(out));
	EXPECT_EQ(0, ioctl(self->fd, KVBENCH_IOC_GET, &kv));
	EXPECT_STREQ(val, out);
	EXPECT_EQ(0, u_del(&self->ring, self->fd, key));
	kv_str(&kv, key, out, sizeof(out));
	EXPECT_EQ(-ENOENT, ring_one(&self->ring, self->fd, KVBENCH_URING_GET,
				    ptr(&kv), 0, 0, 0, &extra));
	EXPECT_EQ(0ULL, extra);
	EXPECT_EQ(-ENOENT, u_del(&self->ring, self->fd, key));
}

/* Values above KVBENCH_GET_INLINE go out from the pinned item. */
TEST_F(uring, large_value)
{
	const char *key = KEY_PREFIX "large";
	static unsigned char val[3000], out[4096];
	struct kvbench_kv kv;
	__u64 extra = 0;
	size_t i;

	for (i = 0; i < sizeof(val); i++)
		val[i] = i * 7;
	ASSERT_EQ(0, u_set(&self->ring, self->fd, key, val, sizeof(val)));
	kv_str(&kv, key, out, sizeof(out));
	EXPECT_EQ(0, ring_one(&self->ring, self->fd, KVBENCH_URING_GET,
			      ptr(&kv), 0, 0, 0, &extra));
	EXPECT_EQ(sizeof(val), kv.value_len);
	EXPECT_EQ(sizeof(val), extra);
	EXPECT_EQ(0, memcmp(val, out, sizeof(val)));
	EXPECT_EQ(0, u_del(&self->ring, self->fd, key));
}

TEST_F(uring, get_erange)
{
	const char *key = KEY_PREFIX "erange";
	char val[100], out[10];
	struct kvbench_kv kv;
	__u64 extra = 0;

	memset(val, 'r', sizeof(val));
	ASSERT_EQ(0, u_set(&self->ring, self->fd, key, val, sizeof(val)));
	kv_str(&kv, key, out, sizeof(out));
	EXPECT_EQ(-ERANGE, ring_one(&self->ring, self->fd, KVBENCH_URING_GET,
				    ptr(&kv), 0, 0, 0, &extra));
	EXPECT_EQ(sizeof(val), kv.value_len);
	EXPECT_EQ(sizeof(val), extra);
	EXPECT_EQ(0, u_del(&self->ring, self->fd, key));
}

/* A ring without CQE32 and with SQE128 works the same. */
TEST_F(uring, sqe128_no_cqe32)
{
	const char *key = KEY_PREFIX "sqe128";
	char out[16] = "", val[] = "big sqe";
	struct kvbench_kv kv;
	struct ring r;

	ASSERT_EQ(0, ring_init(&r, 8, IORING_SETUP_SQE128));
	EXPECT_EQ(0, u_set(&r, self->fd, key, val, sizeof(val)));
	kv_str(&kv, key, out, sizeof(out));
	EXPECT_EQ(0, u_op(&r, self->fd, KVBENCH_URING_GET, &kv));
	EXPECT_STREQ(val, out);
	EXPECT_EQ(sizeof(val), kv.value_len);
	EXPECT_EQ(0, u_del(&r, self->fd, key));
	ring_exit(&r);
}

/*
 * Rings whose commands are issued by the SQ thread (which shares the
 * process' memory, and runs their task work), or whose task work runs
 * only when the task waits for completions.
 */
TEST_F(uring, sqpoll_and_defer_taskrun)
{
	static const unsigned int kinds[] = {
		IORING_SETUP_SQPOLL | IORING_SETUP_CQE32,
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN |
			IORING_SETUP_CQE32,
	};
	const char *key = KEY_PREFIX "sqpoll";
	char out[600], val[600];
	struct kvbench_kv kv;
	unsigned int i;
	__u64 extra;
	struct ring r;
	int ret;

	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		ret = ring_init(&r, 8, kinds[i]);
		if (ret == -EINVAL) {
			TH_LOG("ring flags %#x not supported here", kinds[i]);
			continue;
		}
		ASSERT_EQ(0, ret);
		memset(val, 'a' + i, sizeof(val));
		/* A small and a large (pinned) value. */
		EXPECT_EQ(0, u_set(&r, self->fd, key, val, 10));
		kv_str(&kv, key, out, sizeof(out));
		memset(out, 0, sizeof(out));
		extra = 0;
		EXPECT_EQ(0, ring_one(&r, self->fd, KVBENCH_URING_GET,
				      ptr(&kv), 0, 0, 0, &extra));
		EXPECT_EQ(10ULL, extra);
		EXPECT_EQ(0, memcmp(out, val, 10));
		EXPECT_EQ(0, u_set(&r, self->fd, key, val, sizeof(val)));
		kv_str(&kv, key, out, sizeof(out));
		memset(out, 0, sizeof(out));
		EXPECT_EQ(0, ring_one(&r, self->fd, KVBENCH_URING_GET,
				      ptr(&kv), 0, 0, 0, &extra));
		EXPECT_EQ(sizeof(val), extra);
		EXPECT_EQ(0, memcmp(out, val, sizeof(val)));
		EXPECT_EQ(0, u_del(&r, self->fd, key));
		ring_exit(&r);
	}
}

TEST_F(uring, kv_einval)
{
	struct kvbench_kv kv;
	__u32 op;

	for (op = KVBENCH_URING_GET; op <= KVBENCH_URING_DEL; op++) {
		kv_str(&kv, "", self->map, 8);
		EXPECT_EQ(-EINVAL, u_op(&self->ring, self->fd, op, &kv));
		kv_str(&kv, KEY_PREFIX "kv_einval", self->map, 8);
		kv.key_len = KVBENCH_KEY_MAX + 1;
		EXPECT_EQ(-EINVAL, u_op(&self->ring, self->fd, op, &kv));
		kv_str(&kv, KEY_PREFIX "kv_einval", self->map, 8);
		kv.flags = 1;
		EXPECT_EQ(-EINVAL, u_op(&self->ring, self->fd, op, &kv));
		kv_str(&kv, KEY_PREFIX "kv_einval", self->map, 8);
		kv.reserved = 1;
		EXPECT_EQ(-EINVAL, u_op(&self->ring, self->fd, op, &kv));
	}
}

TEST_F(uring, efault)
{
	const char *key = KEY_PREFIX "efault";
	char val[] = "efault";
	struct kvbench_kv kv;
	__u32 op;

	/* The struct kvbench_kv itself. */
	for (op = KVBENCH_URING_GET; op <= KVBENCH_URING_DEL; op++) {
		EXPECT_EQ(-EFAULT, ring_one(&self->ring, self->fd, op,
					    ptr(self->hole), 0, 0, 0, NULL));
		EXPECT_EQ(-EFAULT, ring_one(&self->ring, self->fd, op,
					    KVB_KERNEL_PTR, 0, 0, 0, NULL));
		/* The key. */
		kv_str(&kv, key, self->map, 8);
		kv.key = ptr(self->hole);
		EXPECT_EQ(-EFAULT, u_op(&self->ring, self->fd, op, &kv));
	}
	/* A SET's value. */
	kv_str(&kv, key, self->hole, 8);
	EXPECT_EQ(-EFAULT, u_op(&self->ring, self->fd, KVBENCH_URING_SET, &kv));
	EXPECT_EQ(-ENOENT, ioctl_del(self->fd, key));

	/* A GET's buffer: written at completion (the owner's, on those). */
	ASSERT_EQ(0, u_set(&self->ring, self->fd, key, val, sizeof(val)));
	kv_str(&kv, key, self->hole, 64);
	EXPECT_EQ(-EFAULT, u_op(&self->ring, self->fd, KVBENCH_URING_GET, &kv));
	kv_str(&kv, key, (void *)(unsigned long)KVB_KERNEL_PTR, 64);
	EXPECT_EQ(-EFAULT, u_op(&self->ring, self->fd, KVBENCH_URING_GET, &kv));
	EXPECT_EQ(0, u_del(&self->ring, self->fd, key));
}

TEST_F(uring, e2big)
{
	const char *key = KEY_PREFIX "e2big";

	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("max_value_len"), 16));
	EXPECT_EQ(-E2BIG, u_set(&self->ring, self->fd, key, self->map, 17));
	EXPECT_EQ(0, u_set(&self->ring, self->fd, key, self->map, 16));
	EXPECT_EQ(0, u_del(&self->ring, self->fd, key));
}

TEST_F(uring, enospc)
{
	const char *key = KEY_PREFIX "enospc", *key2 = KEY_PREFIX "enospc2";
	unsigned long long entries;

	ASSERT_EQ(0, u_set(&self->ring, self->fd, key, "a", 1));
	ASSERT_EQ(0, sysfs_read_u64(KVB_ATTR("entries"), &entries));
	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("max_entries"), entries));
	EXPECT_EQ(-ENOSPC, u_set(&self->ring, self->fd, key2, "b", 1));
	/* An overwrite needs no new entry. */
	EXPECT_EQ(0, u_set(&self->ring, self->fd, key, "c", 1));
	EXPECT_EQ(0, u_del(&self->ring, self->fd, key));
	EXPECT_EQ(-ENOENT, u_del(&self->ring, self->fd, key2));
}

/*
 * Far more commands in flight than the owner's queue holds (queue_len 2):
 * the full queue sends them to wait in the module's workers, none is lost
 * or answered twice.
 */
TEST_F(uring, many_in_flight)
{
	static struct kvbench_kv kv[RING_ENTRIES];
	static char keys[RING_ENTRIES][32], out[RING_ENTRIES][32];
	static bool seen[RING_ENTRIES];
	unsigned int i, n = RING_ENTRIES;
	unsigned long long full0 = 0, full1 = 0;
	struct cqe cqe;

	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("queue_len"), 2));
	/* Rebuilds the owner backends with the short queue. */
	ASSERT_EQ(0, sysfs_write(KVB_ATTR("backend"), variant->backend));
	sysfs_read_u64(KVB_ATTR("queue_full"), &full0);

	for (i = 0; i < n; i++) {
		snprintf(keys[i], sizeof(keys[i]), KEY_PREFIX "many/%u", i);
		kv_str(&kv[i], keys[i], keys[i], strlen(keys[i]) + 1);
		ring_cmd(&self->ring, self->fd, KVBENCH_URING_SET, ptr(&kv[i]),
			 0, 0, i, 0, 0);
	}
	ASSERT_EQ(0, ring_submit(&self->ring, 0));
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, ring_reap(&self->ring, &cqe));
		ASSERT_GT(n, cqe.user_data);
		EXPECT_FALSE(seen[cqe.user_data]);
		seen[cqe.user_data] = true;
		EXPECT_EQ(0, cqe.res);
	}

	/* GETs, each into its own buffer, then DELs of the same keys. */
	for (i = 0; i < n; i++) {
		kv_str(&kv[i], keys[i], out[i], sizeof(out[i]));
		ring_cmd(&self->ring, self->fd, KVBENCH_URING_GET, ptr(&kv[i]),
			 0, 0, i, 0, 0);
	}
	ASSERT_EQ(0, ring_submit(&self->ring, 0));
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, ring_reap(&self->ring, &cqe));
		ASSERT_GT(n, cqe.user_data);
		EXPECT_FALSE(seen[cqe.user_data]);
		seen[cqe.user_data] = true;
		EXPECT_EQ(0, cqe.res);
		EXPECT_EQ(strlen(keys[cqe.user_data]) + 1, cqe.extra);
	}
	for (i = 0; i < n; i++) {
		EXPECT_STREQ(keys[i], out[i]);
		EXPECT_EQ(strlen(keys[i]) + 1, kv[i].value_len);
		kv_str(&kv[i], keys[i], NULL, 0);
		ring_cmd(&self->ring, self->fd, KVBENCH_URING_DEL, ptr(&kv[i]),
			 0, 0, i, 0, 0);
	}
	ASSERT_EQ(0, ring_submit(&self->ring, 0));
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, ring_reap(&self->ring, &cqe));
		EXPECT_EQ(0, cqe.res);
	}
	sysfs_read_u64(KVB_ATTR("queue_full"), &full1);
	if (variant->owner)
		TH_LOG("queue full %llu times", full1 - full0);
	/*
	 * Each command waits for room at most once, in a worker: a command
	 * that found the queue full when issued used to count again when its
	 * worker found it full as well.
	 */
	EXPECT_GE(3ULL * n, full1 - full0);
}

/*
 * The SQE is read once, when the command is issued. A ring of 4 SQEs,
 * one SET per submission, up to 8 in flight and owner queues of 2: on an
 * owner backend most SETs find the queue full, and the application has
 * filled their SQE's slot with a later SET by the time they are queued.
 * Each key must end up set once, to its own value. (Debian's 6.12
 * io_uring issues a command that returned -EAGAIN again with its SQE
 * pointer still in the SQ ring: a module that did so ran a later
 * command's SET twice and lost this one.)
 */
TEST_F(uring, sqe_read_once)
{
	enum { N = 512, SQES = 4 };
	static struct kvbench_kv kv[N];
	static char keys[N][32];
	static bool seen[N];
	unsigned int i, inflight = 0, lost = 0;
	struct ring small = { .fd = -1 };
	struct kvbench_kv get;
	struct cqe cqe;
	char out[32];

	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("queue_len"), 2));
	ASSERT_EQ(0, sysfs_write(KVB_ATTR("backend"), variant->backend));
	ASSERT_EQ(0, ring_init(&small, SQES, 0));
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < N || inflight; ) {
		if (i < N && inflight < 2 * SQES) {
			snprintf(keys[i], sizeof(keys[i]), KEY_PREFIX "once/%u", i);
			kv_str(&kv[i], keys[i], keys[i], strlen(keys[i]) + 1);
			ring_cmd(&small, self->fd, KVBENCH_URING_SET,
				 ptr(&kv[i]), 0, 0, i, 0, 0);
			ASSERT_EQ(0, ring_submit(&small, 0));
			i++;
			inflight++;
			if (ring_peek(&small, &cqe))
				continue;
		} else {
			ASSERT_EQ(0, ring_reap(&small, &cqe));
		}
		inflight--;
		ASSERT_GT((__u64)N, cqe.user_data);
		EXPECT_FALSE(seen[cqe.user_data]);
		seen[cqe.user_data] = true;
		EXPECT_EQ(0, cqe.res) TH_LOG("SET %llu", cqe.user_data);
	}
	ring_exit(&small);

	for (i = 0; i < N; i++) {
		kv_str(&get, keys[i], out, sizeof(out));
		if (ioctl(self->fd, KVBENCH_IOC_GET, &get) ||
		    get.value_len != strlen(keys[i]) + 1 ||
		    strcmp(out, keys[i])) {
			if (!lost++)
				TH_LOG("%s: missing, or not its own value",
				       keys[i]);
		}
		ioctl_del(self->fd, keys[i]);
	}
	EXPECT_EQ(0U, lost) TH_LOG("%u of %u keys lost", lost, N);
}

/*
 * A child submits commands and exits without waiting for them: on the
 * owner backends they are answered after (or while) it is gone. The
 * module must not touch its memory, leak, or stop serving.
 */
TEST_F(uring, exit_with_commands_in_flight)
{
	const char *key = KEY_PREFIX "exit";
	unsigned long long base;
	char out[16] = "";
	struct kvbench_kv kv;
	int round, status;
	pid_t pid;

	ASSERT_EQ(0, sysfs_read_u64(KVB_MODULE "/refcnt", &base));
	ASSERT_EQ(0, u_set(&self->ring, self->fd, key, "alive", 6));
	for (round = 0; round < 8; round++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			static struct kvbench_kv ckv[RING_ENTRIES];
			static char cout[RING_ENTRIES][16];
			/* A file of its own: the module count follows it. */
			int cfd = open(KVB_DEV, O_RDWR);
			struct ring r;
			unsigned int i;

			if (cfd < 0 ||
			    ring_init(&r, RING_ENTRIES, IORING_SETUP_CQE32))
				_exit(1);
			for (i = 0; i < RING_ENTRIES; i++) {
				if (i & 1)
					kv_str(&ckv[i], key, cout[i],
					       sizeof(cout[i]));
				else
					kv_str(&ckv[i], key, "alive", 6);
				ring_cmd(&r, cfd, i & 1 ?
					 KVBENCH_URING_GET : KVBENCH_URING_SET,
					 ptr(&ckv[i]), 0, 0, i, 0, 0);
			}
			sys_io_uring_enter(r.fd, RING_ENTRIES, 0, 0, NULL, 0);
			/* Half the time, die by a signal instead. */
			if (round & 1)
				raise(SIGKILL);
			_exit(0);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE((WIFEXITED(status) && !WEXITSTATUS(status)) ||
			    (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL));
	}
	kv_str(&kv, key, out, sizeof(out));
	EXPECT_EQ(0, u_op(&self->ring, self->fd, KVBENCH_URING_GET, &kv));
	EXPECT_STREQ("alive", out);
	/*
	 * Every command of the children completed: none holds its file,
	 * and with it the module, any more.
	 */
	EXPECT_EQ(base, wait_refcnt(base));
	/* A switch waits for whatever is still in flight. */
	EXPECT_EQ(0, sysfs_write(KVB_ATTR("backend"), "rwlock"));
	EXPECT_EQ(0, sysfs_write(KVB_ATTR("backend"), variant->backend));
	EXPECT_EQ(0, u_del(&self->ring, self->fd, key));
}

#define RT_RUNTIME	"/proc/sys/kernel/sched_rt_runtime_us"

/*
 * Keep the owner threads off the CPU: every owner moved to CPU 1 at
 * SCHED_FIFO 1, RT throttling off, and a SCHED_FIFO 99 thread spinning on
 * CPU 1, while the caller runs on CPU 0. No owner answers until
 * owners_release(). (SCHED_FIFO: 6.12's fair server would run a normal
 * owner 50 ms of each second.)
 */
struct owner_hold {
	pid_t pid[16];
	unsigned int n;
	char rt_runtime[32];
	atomic_bool stop;
	pthread_t hog;
	bool hogging;
};

static void *hog_fn(void *arg)
{
	atomic_bool *stop = arg;

	while (!atomic_load(stop))
		;
	return NULL;
}

/* Hold h->pid[0..n-1] off: 0, or why they could not be held. */
static const char *hold_off(struct owner_hold *h)
{
	struct sched_param fifo1 = { .sched_priority = 1 };
	struct sched_param fifo99 = { .sched_priority = 99 };
	pthread_attr_t attr;
	cpu_set_t cpu0, cpu1;
	unsigned int i;

	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	CPU_ZERO(&cpu1);
	CPU_SET(1, &cpu1);
	if (sysfs_read(RT_RUNTIME, h->rt_runtime, sizeof(h->rt_runtime)) ||
	    sysfs_write(RT_RUNTIME, "-1"))
		return "cannot turn RT throttling off";
	for (i = 0; i < h->n; i++)
		if (sched_setaffinity(h->pid[i], sizeof(cpu1), &cpu1) ||
		    sched_setscheduler(h->pid[i], SCHED_FIFO, &fifo1))
			return "cannot move an owner";
	if (sched_setaffinity(0, sizeof(cpu0), &cpu0) ||
	    pthread_attr_init(&attr))
		return "cannot move the caller";
	if (pthread_attr_setaffinity_np(&attr, sizeof(cpu1), &cpu1) ||
	    pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED) ||
	    pthread_attr_setschedpolicy(&attr, SCHED_FIFO) ||
	    pthread_attr_setschedparam(&attr, &fifo99) ||
	    pthread_create(&h->hog, &attr, hog_fn, &h->stop)) {
		pthread_attr_destroy(&attr);
		return "cannot start a SCHED_FIFO thread";
	}
	pthread_attr_destroy(&attr);
	h->hogging = true;
	/* Let the hog take CPU 1 from whatever owner ran there. */
	usleep(20000);
	return NULL;
}

/* 0, or why the owners could not be held. */
static const char *owners_hold(struct owner_hold *h)
{
	memset(h, 0, sizeof(*h));
	h->n = kvb_owner_pids(h->pid, 16);
	if (!h->n)
		return "no owner thread found";
	return hold_off(h);
}

/* Let the owners run again, where and as they ran before. */
static void owners_release(struct owner_hold *h, bool owners_fifo)
{
	struct sched_param fifo1 = { .sched_priority = 1 }, other = {};
	cpu_set_t all;
	unsigned int i;
	long cpu;

	if (h->hogging) {
		atomic_store(&h->stop, true);
		pthread_join(h->hog, NULL);
	}
	CPU_ZERO(&all);
	for (cpu = 0; cpu < sysconf(_SC_NPROCESSORS_ONLN) && cpu < CPU_SETSIZE;
	     cpu++)
		CPU_SET(cpu, &all);
	for (i = 0; i < h->n; i++) {
		sched_setaffinity(h->pid[i], sizeof(all), &all);
		sched_setscheduler(h->pid[i], owners_fifo ? SCHED_FIFO :
				   SCHED_OTHER, owners_fifo ? &fifo1 : &other);
	}
	sched_setaffinity(0, sizeof(all), &all);
	if (h->rt_runtime[0])
		sysfs_write(RT_RUNTIME, h->rt_runtime);
}

/*
 * combining has no owner thread: its combiner is a caller. The hold makes
 * one of ours, the holder, keep the combiner role: it sends BATCHes of
 * KVBENCH_BATCH_MAX GETs of a missing key back to back, each walking one
 * of two buckets of COMB_HOLD_KEYS / 2 entries (comb_fill()), some 100 ms
 * under TCG holding the role, and is then held off CPU 1 as an owner is
 * (hold_off()): stopped inside its pass, it keeps the role until the
 * release, and whatever is issued meanwhile is published for it. (Stopped
 * in the moment between two BATCHes, it holds nothing: a round that saw
 * nothing it expected goes round again.)
 */
#define COMB_HOLD_KEYS		8192
#define COMB_HOLD_BITS		12	/* the fill's hash_bits */

struct comb_holder {
	pthread_t thread;
	bool started;
	atomic_int tid;
	atomic_bool stop;
	atomic_uint batches;
	atomic_int err;
};

static unsigned int hold_key(unsigned int i, char *buf, size_t size)
{
	return snprintf(buf, size, KEY_PREFIX "hold/%05u", i);
}

static void *comb_holder_fn(void *arg)
{
	static struct kvbench_op ops[KVBENCH_BATCH_MAX];
	struct comb_holder *c = arg;
	struct kvbench_batch b = {
		.ops = ptr(ops), .count = KVBENCH_BATCH_MAX,
	};
	char key[32], out[8];
	unsigned int i, klen;
	int fd;

	fd = open(KVB_DEV, O_RDWR);
	atomic_store(&c->tid, syscall(SYS_gettid));
	if (fd < 0) {
		atomic_store(&c->err, -errno);
		return NULL;
	}
	klen = hold_key(COMB_HOLD_KEYS, key, sizeof(key));	/* missing */
	memset(ops, 0, sizeof(ops));
	for (i = 0; i < KVBENCH_BATCH_MAX; i++) {
		ops[i].op = KVBENCH_OP_GET;
		ops[i].kv.key = ptr(key);
		ops[i].kv.key_len = klen;
		ops[i].kv.value = ptr(out);
		ops[i].kv.value_len = sizeof(out);
	}
	while (!atomic_load(&c->stop)) {
		if (ioctl(fd, KVBENCH_IOC_BATCH, &b) ||
		    ops[KVBENCH_BATCH_MAX - 1].result != -ENOENT) {
			atomic_store(&c->err, errno ? -errno : -EBADMSG);
			break;
		}
		atomic_fetch_add(&c->batches, 1);
	}
	close(fd);
	return NULL;
}

/* SET (or DEL) the hold's keys with BATCHes: 0 or -errno. */
static int hold_keys(int fd, __u32 code)
{
	static struct kvbench_op ops[KVBENCH_BATCH_MAX];
	static char keys[KVBENCH_BATCH_MAX][32];
	struct kvbench_batch b = { .ops = ptr(ops) };
	unsigned int i, j, klen;

	for (i = 0; i < COMB_HOLD_KEYS; i += KVBENCH_BATCH_MAX) {
		memset(ops, 0, sizeof(ops));
		for (j = 0; j < KVBENCH_BATCH_MAX; j++) {
			klen = hold_key(i + j, keys[j], sizeof(keys[j]));
			ops[j].op = code;
			ops[j].kv.key = ptr(keys[j]);
			ops[j].kv.key_len = klen;
			if (code == KVBENCH_OP_SET) {
				ops[j].kv.value = ptr(keys[j]);
				ops[j].kv.value_len = 4;
			}
		}
		b.count = KVBENCH_BATCH_MAX;
		if (ioctl(fd, KVBENCH_IOC_BATCH, &b))
			return -errno;
		for (j = 0; j < KVBENCH_BATCH_MAX; j++)
			if (ops[j].result)
				return ops[j].result;
	}
	return 0;
}

/*
 * The hold's keys in two buckets: SET at COMB_HOLD_BITS (a SET at
 * hash_bits 1 walks a bucket), then the map rebuilt at hash_bits 1.
 */
static int comb_fill(int fd)
{
	return sysfs_write_u64(KVB_PARAM("hash_bits"), COMB_HOLD_BITS) ?:
	       sysfs_write(KVB_ATTR("backend"), "combining") ?:
	       hold_keys(fd, KVBENCH_OP_SET) ?:
	       sysfs_write_u64(KVB_PARAM("hash_bits"), 1) ?:
	       sysfs_write(KVB_ATTR("backend"), "combining");
}

/* And gone again (a DEL at hash_bits 1 walks a bucket: short ones first). */
static int comb_unfill(int fd)
{
	return sysfs_write_u64(KVB_PARAM("hash_bits"), COMB_HOLD_BITS) ?:
	       sysfs_write(KVB_ATTR("backend"), "combining") ?:
	       hold_keys(fd, KVBENCH_OP_DEL);
}

/*
 * Ioctl callers and io_uring commands share the room of an owner's queue
 * (issue 45, item 3): once it is full, both wait in one FIFO order, the
 * owner's parked list (Documentation/design.rst, "kthread"), so an ioctl
 * caller waits for at most the messages queued or parked before its own.
 * Here a ring keeps FAIR_IN_FLIGHT SETs of one key in flight against a
 * queue of 2 on the owners' CPU, each SET's value its sequence number, and
 * another thread on the ring's CPU GETs the key by ioctl. The value a GET
 * returns is the last SET the owner ran before it: the SETs that the ring
 * submitted after the GET began and that the owner ran before it number
 * the GET's value less the sequence number the GET saw last when it
 * began. That count is the owner's order, not anybody's timing: the ring
 * runs only when the GET thread does not, so it submits nothing between
 * the GET's look and its parking unless the GET thread was preempted
 * there (those GETs, seen in its involuntary context switches, are left
 * out), and after the parking FIFO order keeps later SETs behind the GET.
 * It was 0 for every GET with the fix; the test allows FAIR_BOUND, room
 * for the commands in flight and, on kthread-percpu, for the one a
 * request line takes past the parked ones per pass. Only GETs that began
 * and ended while the ring ran count, and they must have at least a
 * quarter of the documented share: one answer per FAIR_IN_FLIGHT + 2
 * SETs. A GET that waited for the parked list to empty was overtaken by
 * up to 938 SETs, and 49 GETs beside 4096 SETs, on stock 6.12 before the
 * fix (3 beside 2048, with unpinned threads); with it, 518 and 0.
 */
#define FAIR_SETS	4096
#define FAIR_IN_FLIGHT	16
#define FAIR_BOUND	(2 * FAIR_IN_FLIGHT + 2)
#define FAIR_SHARE	(FAIR_SETS / (FAIR_IN_FLIGHT + 2) / 4)
#define FAIR_KEY	KEY_PREFIX "fair"

struct fair_getter {
	atomic_bool stop;
	atomic_uint *submitted;	/* the last SET's sequence number */
	int cpu;
	unsigned int gets;	/* GETs answered while the ring ran */
	unsigned int preempted;	/* of them, preempted: not measured */
	unsigned int over;	/* overtaken by more than FAIR_BOUND */
	unsigned int most;	/* most SETs that overtook one GET */
	int bad;
};

static void *fair_getter_fn(void *arg)
{
	struct fair_getter *g = arg;
	struct rusage ru0, ru1;
	unsigned int seen, value;
	struct kvbench_kv kv;
	cpu_set_t set;
	int fd;

	CPU_ZERO(&set);
	CPU_SET(g->cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	fd = open(KVB_DEV, O_RDWR);
	if (fd < 0) {
		g->bad = -errno;
		return NULL;
	}
	while (!atomic_load(&g->stop)) {
		getrusage(RUSAGE_THREAD, &ru0);
		seen = atomic_load(g->submitted);
		value = 0;
		kv_str(&kv, FAIR_KEY, &value, sizeof(value));
		if (ioctl(fd, KVBENCH_IOC_GET, &kv) && errno != ENOENT) {
			g->bad = -errno;
			break;
		}
		/* Ended after the ring stopped: not a GET beside it. */
		if (atomic_load(&g->stop))
			break;
		g->gets++;
		getrusage(RUSAGE_THREAD, &ru1);
		if (ru1.ru_nivcsw != ru0.ru_nivcsw) {
			g->preempted++;
			continue;
		}
		if (value > seen && value - seen > g->most)
			g->most = value - seen;
		if (value > seen && value - seen > FAIR_BOUND)
			g->over++;
	}
	close(fd);
	return NULL;
}

TEST_F_TIMEOUT(uring, ioctl_share_beside_parked, 120)
{
	static struct kvbench_kv kv[FAIR_IN_FLIGHT];
	static unsigned int vals[FAIR_IN_FLIGHT];
	atomic_uint submitted = 0;
	struct fair_getter g = { .submitted = &submitted };
	unsigned int i, sent = 0, done = 0;
	int ncpus = get_nprocs();
	char cpus[16], owner_cpus[64];
	cpu_set_t one, all;
	struct cqe cqe;
	pthread_t t;

	if (!variant->owner)
		SKIP(return, "%s has no owner queue", variant->backend);
	if (ncpus < 2)
		SKIP(return, "needs two CPUs");
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(all), &all));
	ASSERT_EQ(0, sysfs_read(KVB_PARAM("owner_cpus"), owner_cpus,
				sizeof(owner_cpus)));
	/* The owners on the last CPU, the ring and the GETs on the first. */
	snprintf(cpus, sizeof(cpus), "%d", ncpus - 1);
	ASSERT_EQ(0, sysfs_write(KVB_PARAM("owner_cpus"), cpus));
	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("queue_len"), 2));
	ASSERT_EQ(0, sysfs_write(KVB_ATTR("backend"), variant->backend));
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));

	for (i = 0; i < FAIR_IN_FLIGHT; i++) {
		vals[i] = ++sent;
		kv_str(&kv[i], FAIR_KEY, &vals[i], sizeof(vals[i]));
		atomic_store(&submitted, sent);
		ring_cmd(&self->ring, self->fd, KVBENCH_URING_SET, ptr(&kv[i]),
			 0, 0, i, 0, 0);
	}
	ASSERT_EQ(0, ring_submit(&self->ring, 0));
	ASSERT_EQ(0, pthread_create(&t, NULL, fair_getter_fn, &g));
	while (done < sent) {
		ASSERT_EQ(0, ring_reap(&self->ring, &cqe));
		EXPECT_EQ(0, cqe.res);
		done++;
		/* Another in its place: FAIR_IN_FLIGHT in flight. */
		if (sent < FAIR_SETS) {
			i = cqe.user_data;
			vals[i] = ++sent;
			kv_str(&kv[i], FAIR_KEY, &vals[i], sizeof(vals[i]));
			/* Seen submitted before it can run. */
			atomic_store(&submitted, sent);
			ring_cmd(&self->ring, self->fd, KVBENCH_URING_SET,
				 ptr(&kv[i]), 0, 0, i, 0, 0);
			ASSERT_EQ(0, ring_submit(&self->ring, 0));
		}
	}
	atomic_store(&g.stop, true);
	pthread_join(t, NULL);
	EXPECT_EQ(0, sched_setaffinity(0, sizeof(all), &all));
	/* An empty line: sysfs passes no empty write on. */
	EXPECT_EQ(0, sysfs_write(KVB_PARAM("owner_cpus"),
				 owner_cpus[0] ? owner_cpus : "\n"));
	EXPECT_EQ(0, g.bad);
	TH_LOG("%s: %u GETs by ioctl beside %u SETs, %u in flight, queue_len 2",
	       variant->backend, g.gets, done, FAIR_IN_FLIGHT);
	TH_LOG("%u GETs preempted; of the others, %u overtaken by more than %u SETs, at most by %u",
	       g.preempted, g.over, FAIR_BOUND, g.most);
	EXPECT_LE((unsigned int)FAIR_SHARE, g.gets)
		TH_LOG("the ioctl caller waited behind the parked commands");
	EXPECT_EQ(0U, g.over)
		TH_LOG("later commands overtook the ioctl caller");
	EXPECT_EQ(0, ioctl_del(self->fd, FAIR_KEY));
}

/* 0, or why the role could not be held; comb_fill() first. */
static const char *comb_hold(struct owner_hold *h, struct comb_holder *c)
{
	unsigned int i;
	cpu_set_t cpu1;

	memset(h, 0, sizeof(*h));
	memset(c, 0, sizeof(*c));
	CPU_ZERO(&cpu1);
	CPU_SET(1, &cpu1);
	if (pthread_create(&c->thread, NULL, comb_holder_fn, c))
		return "cannot start the holder";
	c->started = true;
	for (i = 0; i < 1000 && !atomic_load(&c->tid); i++)
		usleep(1000);
	h->pid[0] = atomic_load(&c->tid);
	h->n = 1;
	if (sched_setaffinity(h->pid[0], sizeof(cpu1), &cpu1))
		return "cannot move the holder";
	/* Well into a BATCH, past its first. */
	for (i = 0; i < 5000 && !atomic_load(&c->batches); i++)
		usleep(1000);
	if (atomic_load(&c->err) || !atomic_load(&c->batches))
		return "the holder's BATCHes fail";
	usleep(20000);
	return hold_off(h);
}

/* The holder goes on, then stops; 0 or what its BATCHes failed with. */
static int comb_release(struct owner_hold *h, struct comb_holder *c)
{
	owners_release(h, false);
	atomic_store(&c->stop, true);
	if (c->started)
		pthread_join(c->thread, NULL);
	return atomic_load(&c->err);
}

/*
 * Hold off what answers the commands a backend does not answer when they
 * are issued: its owners (owners_hold()) or its combiner (comb_hold(),
 * after comb_fill()). 0, or why not.
 */
static const char *queue_hold(const char *backend, struct owner_hold *h,
			      struct comb_holder *c)
{
	if (!strcmp(backend, "combining"))
		return comb_hold(h, c);
	return owners_hold(h);
}

/* Let them answer; 0, or what the holder's BATCHes failed with. */
static int queue_release(const char *backend, struct owner_hold *h,
			 struct comb_holder *c)
{
	if (!strcmp(backend, "combining"))
		return comb_release(h, c);
	owners_release(h, !strcmp(backend, "kthread-percpu"));
	return 0;
}

struct exiting_submitter {
	struct ring *ring;
	int fd;
	unsigned int n;
	struct kvbench_kv *kv;
	atomic_bool submitted;
};

/* Submit every GET, then exit the thread without waiting for one. */
static void *exiting_submitter_fn(void *arg)
{
	struct exiting_submitter *x = arg;
	unsigned int i;

	for (i = 0; i < x->n; i++)
		ring_cmd(x->ring, x->fd, KVBENCH_URING_GET, ptr(&x->kv[i]),
			 0, 0, i, 0, 0);
	if (ring_submit(x->ring, 0))
		return (void *)1;
	atomic_store(&x->submitted, true);
	return NULL;
}

/*
 * ECANCELED: a thread submits GETs and exits while the owner still holds
 * them; its sibling reaps them from the shared ring. A GET answered after
 * the submitter began to exit completes with -ECANCELED, its buffer
 * untouched and big_cqe[0] zero (not whatever was on the kernel's stack:
 * the debug kernel fills it with 0xaa); one answered before completes
 * with its value. Only the owner backends and combining answer later
 * than the issue, so only they can cancel; their owners or combiner are
 * held off (queue_hold()) from before the submit until the submitter has
 * had 50 ms to exit. (Without the hold, kthread-percpu's SCHED_FIFO
 * owners often answered every GET before the exit.)
 */
TEST_F(uring, get_ecanceled_submitter_exits)
{
	enum { N = 64, ROUNDS = 50, VLEN = 24 };
	static const char fill = 0x5a;
	static char out[N][32];
	struct kvbench_kv kv[N];
	const char *key = KEY_PREFIX "ecanceled";
	char value[VLEN];
	unsigned int i, got, canceled = 0, answered = 0, round;
	struct exiting_submitter x = {
		.ring = &self->ring, .fd = self->fd, .n = N, .kv = kv,
	};
	bool queues = variant->owner || variant->combining;
	struct comb_holder holder;
	struct owner_hold hold;
	bool started = false;
	const char *why;
	struct cqe cqe;
	pthread_t t;
	void *tret;

	if (queues && sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two CPUs");
	memset(value, 'v', sizeof(value));
	ASSERT_EQ(0, u_set(&self->ring, self->fd, key, value, sizeof(value)));
	if (variant->combining)
		ASSERT_EQ(0, comb_fill(self->fd));
	for (round = 0; round < ROUNDS && !canceled; round++) {
		for (i = 0; i < N; i++) {
			memset(out[i], fill, sizeof(out[i]));
			kv_str(&kv[i], key, out[i], sizeof(out[i]));
		}
		atomic_store(&x.submitted, false);
		started = false;
		why = queues ? queue_hold(variant->backend, &hold, &holder) : NULL;
		if (!why && !pthread_create(&t, NULL, exiting_submitter_fn,
					    &x)) {
			for (i = 0; i < 1000 && !atomic_load(&x.submitted); i++)
				usleep(1000);
			usleep(50000);
			started = true;
		}
		if (queues)
			EXPECT_EQ(0, queue_release(variant->backend, &hold, &holder));
		ASSERT_EQ(NULL, why) TH_LOG("%s", why);
		ASSERT_TRUE(started);
		ASSERT_EQ(0, pthread_join(t, &tret));
		ASSERT_EQ(NULL, tret);
		for (got = 0; got < N; got++) {
			ASSERT_EQ(0, ring_reap(&self->ring, &cqe));
			ASSERT_GT((__u64)N, cqe.user_data);
			i = cqe.user_data;
			if (cqe.res == -ECANCELED) {
				canceled++;
				EXPECT_EQ(0ULL, cqe.extra);
				EXPECT_EQ(sizeof(out[i]), kv[i].value_len);
				EXPECT_EQ(fill, out[i][0]);
				EXPECT_EQ(fill, out[i][sizeof(out[i]) - 1]);
				continue;
			}
			answered++;
			ASSERT_EQ(0, cqe.res) TH_LOG("GET %u", i);
			EXPECT_EQ((__u64)VLEN, cqe.extra);
			EXPECT_EQ(0, memcmp(out[i], value, VLEN));
			EXPECT_EQ(fill, out[i][VLEN]);
		}
	}
	TH_LOG("%u rounds: %u GETs canceled, %u answered", round, canceled,
	       answered);
	/* Owners and combiners cancel; the others answer when issued. */
	EXPECT_EQ(queues, canceled > 0);
	if (variant->combining)
		EXPECT_EQ(0, comb_unfill(self->fd));
	EXPECT_EQ(0, u_del(&self->ring, self->fd, key));
}

/*
 * ECANCELED, the other way: the ring's last close comes while the owner
 * still holds a GET. Its answer then finds the ring being torn down, in a
 * task that is alive and would take user memory: the ABI says nothing is
 * written. The owners (or the combiner) are held off their CPU
 * (queue_hold()) from before the submit until after both closes. (6.1
 * gives the module no word of the teardown: it wrote the value there.)
 *
 * combining: a GET issued in the moment the holder was between two
 * BATCHes ran at once and wrote its value before the close, as it should;
 * such a round must have written all of it, and another round goes on,
 * until ROUNDS rounds saw the GET published.
 */
TEST_F_TIMEOUT(uring, get_ring_closed_before_answer, 120)
{
	enum { ROUNDS = 3, MAX_ROUNDS = 10 };
	const char *key = KEY_PREFIX "closed";
	static const char fill = 0x5a;
	unsigned int round, held = 0;
	struct comb_holder holder;
	unsigned long long base;
	struct owner_hold hold;
	struct kvbench_kv kv;
	const char *why;
	char out[32];
	struct ring r;
	int fd, ret;

	if (!variant->owner && !variant->combining)
		SKIP(return, "%s answers when issued", variant->backend);
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two CPUs");
	ASSERT_EQ(0, u_set(&self->ring, self->fd, key, "written", 8));
	if (variant->combining)
		ASSERT_EQ(0, comb_fill(self->fd));
	ASSERT_EQ(0, sysfs_read_u64(KVB_MODULE "/refcnt", &base));
	for (round = 0; round < MAX_ROUNDS && held < ROUNDS; round++) {
		/* A file of its own: its release says the GET completed. */
		fd = open(KVB_DEV, O_RDWR);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, ring_init(&r, 4, IORING_SETUP_CQE32));
		memset(out, fill, sizeof(out));
		kv_str(&kv, key, out, sizeof(out));
		why = queue_hold(variant->backend, &hold, &holder);
		if (!why) {
			ring_cmd(&r, fd, KVBENCH_URING_GET, ptr(&kv), 0, 0, 1,
				 0, 0);
			ret = ring_submit(&r, 0);
		}
		ring_exit(&r);
		close(fd);
		EXPECT_EQ(0, queue_release(variant->backend, &hold, &holder));
		ASSERT_EQ(NULL, why) TH_LOG("%s", why);
		ASSERT_EQ(0, ret);
		EXPECT_EQ(base, wait_refcnt(base));
		if (variant->combining && out[0] != fill) {
			EXPECT_EQ(0, memcmp(out, "written", 8));
			EXPECT_EQ(8U, kv.value_len);
			continue;
		}
		held++;
		EXPECT_EQ(fill, out[0]) TH_LOG("round %u: the GET wrote its value",
					       round);
		EXPECT_EQ(sizeof(out), kv.value_len);
	}
	EXPECT_EQ((unsigned int)ROUNDS, held)
		TH_LOG("%u rounds, the GET published in %u", round, held);
	if (variant->combining)
		EXPECT_EQ(0, comb_unfill(self->fd));
	EXPECT_EQ(0, u_del(&self->ring, self->fd, key));
}

struct load {
	int fd;
	atomic_bool stop;
	atomic_uint bad;
	unsigned long done;
};

/* Keep the ring busy with SETs, GETs and DELs until told to stop. */
static void *load_thread(void *arg)
{
	static struct kvbench_kv kv[64];
	static char keys[64][32], out[64][32];
	struct load *l = arg;
	unsigned int i, n = 64;
	struct cqe cqe;
	struct ring r;
	__u32 op;

	if (ring_init(&r, 64, IORING_SETUP_CQE32)) {
		l->bad++;
		return NULL;
	}
	while (!atomic_load(&l->stop)) {
		op = KVBENCH_URING_GET + l->done % 3;
		for (i = 0; i < n; i++) {
			snprintf(keys[i], sizeof(keys[i]), KEY_PREFIX "load/%u",
				 i % 16);
			kv_str(&kv[i], keys[i], op == KVBENCH_URING_GET ?
				out[i] : keys[i], op == KVBENCH_URING_DEL ? 0 :
				sizeof(out[i]));
			ring_cmd(&r, l->fd, op, ptr(&kv[i]), 0, 0, i, 0, 0);
		}
		if (ring_submit(&r, 0)) {
			l->bad++;
			break;
		}
		for (i = 0; i < n; i++) {
			if (ring_reap(&r, &cqe)) {
				l->bad++;
				break;
			}
			if (cqe.res && cqe.res != -ENOENT)
				l->bad++;
		}
		l->done++;
	}
	ring_exit(&r);
	return NULL;
}

/*
 * Switches while commands are queued to owners: none lost or doubled. to[]
 * is a path from owner backends to the others and back; a backend of the
 * module's list that it does not name is visited from kthread and back.
 */
TEST_F(uring, switch_under_load)
{
	static const char * const to[] = {
		"kthread", "rwlock", "kthread-percpu", "rcu", "rhashtable", "combining",
		"kthread",
	};
	struct load l = { .fd = self->fd };
	struct kvb_list backends;
	unsigned int i, j, round;
	pthread_t t;
	char key[32];

	unsigned long long base, entries;
	unsigned int found = 0;
	struct kvbench_kv kv;
	char out[32];

	for (i = 0; i < 16; i++) {
		snprintf(key, sizeof(key), KEY_PREFIX "load/%u", i);
		ioctl_del(self->fd, key);
	}
	ASSERT_EQ(0, sysfs_read_u64(KVB_ATTR("entries"), &base));
	ASSERT_EQ(0, kvb_backends_read(&backends));
	ASSERT_EQ(0, pthread_create(&t, NULL, load_thread, &l));
	for (round = 0; round < 3; round++) {
		for (i = 0; i < ARRAY_SIZE(to); i++) {
			EXPECT_EQ(0, sysfs_write(KVB_ATTR("backend"), to[i]));
			usleep(2000);
		}
		for (i = 0; i < backends.n; i++) {
			for (j = 0; j < ARRAY_SIZE(to); j++)
				if (!strcmp(backends.name[i], to[j]))
					break;
			if (j < ARRAY_SIZE(to))
				continue;
			EXPECT_EQ(0, sysfs_write(KVB_ATTR("backend"),
						 backends.name[i]));
			usleep(2000);
			EXPECT_EQ(0, sysfs_write(KVB_ATTR("backend"), "kthread"));
			usleep(2000);
		}
	}
	/*
	 * Back to back, between the owner backends: a switch then finds
	 * commands still queued to the old owners more often.
	 */
	for (round = 0; round < 40; round++)
		EXPECT_EQ(0, sysfs_write(KVB_ATTR("backend"), round & 1 ?
					 "kthread" : "kthread-percpu"));
	atomic_store(&l.stop, true);
	pthread_join(t, NULL);
	EXPECT_EQ(0U, atomic_load(&l.bad));
	EXPECT_LT(0UL, l.done);
	TH_LOG("%lu rounds of 64 commands", l.done);
	/* Every entry the map counts can be found, and no more. */
	for (i = 0; i < 16; i++) {
		snprintf(key, sizeof(key), KEY_PREFIX "load/%u", i);
		kv_str(&kv, key, out, sizeof(out));
		if (!ioctl(self->fd, KVBENCH_IOC_GET, &kv))
			found++;
	}
	ASSERT_EQ(0, sysfs_read_u64(KVB_ATTR("entries"), &entries));
	EXPECT_EQ(base + found, entries);
	for (i = 0; i < 16; i++) {
		snprintf(key, sizeof(key), KEY_PREFIX "load/%u", i);
		ioctl_del(self->fd, key);
	}
}

/*
 * A ring that holds the device (a registered file; the fd itself closed)
 * holds the module: it cannot be unloaded.
 */
TEST_F(uring, ring_holds_module)
{
	unsigned long long base, refcnt = 0;
	struct cqe cqe;
	int fd, ret;

	/* Before our second file: what the module holds without the ring. */
	ASSERT_EQ(0, sysfs_read_u64(KVB_MODULE "/refcnt", &base));
	fd = open(KVB_DEV, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, sys_io_uring_register(self->ring.fd,
					   IORING_REGISTER_FILES, &fd, 1));
	close(fd);
	ring_cmd(&self->ring, 0, KVBENCH_URING_NOP, 0, 0, 0, 7,
		 IOSQE_FIXED_FILE, 0);
	ASSERT_EQ(0, ring_submit(&self->ring, 1));
	ASSERT_EQ(0, ring_reap(&self->ring, &cqe));
	EXPECT_EQ(0, cqe.res);
	EXPECT_EQ(7ULL, cqe.user_data);
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(0, sysfs_read_u64(KVB_MODULE "/refcnt", &refcnt));
	EXPECT_LT(0ULL, refcnt);
	ret = syscall(__NR_delete_module, "kvbench", O_NONBLOCK);
	EXPECT_EQ(-1, ret);
	EXPECT_TRUE(errno == EBUSY || errno == EAGAIN)
		TH_LOG("delete_module: %s", strerror(errno));
	self->fd = open(KVB_DEV, O_RDWR);
	ASSERT_LE(0, self->fd);
	/* Once the ring is gone, so is its hold on the module. */
	ring_exit(&self->ring);
	EXPECT_EQ(base, wait_refcnt(base));
}

/* ------------------------------------------------------------ trace */

/*
 * The kvbench_op event of io_uring SETs whose items the map frees before
 * the event is recorded: a SET and a DEL of one key in one owner pass (the
 * owners hand io_uring answers back, and trace them, once per pass), or on
 * combining a pass that runs another caller's DEL of the key first. The
 * event must read the request, never the item: on the debug kernel KASAN
 * reports a use-after-free, on the KCSAN kernel KCSAN reports the read
 * racing with kfree(), and on any kernel a field read from freed memory may
 * be wrong. Every backend the module lists in `backends`, for
 * KVBENCH_OP_EVENT_MS each (default 400), in a tracefs instance of our own
 * with only kvbench_op on.
 */
#define EV_INSTANCE	"kvbench_uring_op"
#define EV_KEYS		2
#define EV_BATCH	32	/* commands per submit */
#define EV_URING_LEN	7	/* an io_uring SET's value length */
#define EV_IOCTL_LEN	13	/* the ioctl thread's */

static const char * const ev_keys[EV_KEYS] = {
	KEY_PREFIX "ev/a", KEY_PREFIX "ev/bb",
};

FIXTURE(op_event) {
	int fd;
	char orig_backend[64];
	char inst[128];		/* the instance's directory, once made */
	char record_cmd[8];	/* the global record-cmd option, to restore */
	char tracefs[64];
	bool mounted;
};

FIXTURE_SETUP(op_event)
{
	char path[256];
	const char *why;

	self->fd = -1;
	why = tracefs_find(self->tracefs, sizeof(self->tracefs),
			   &self->mounted);
	if (why)
		SKIP(return, "%s", why);
	snprintf(path, sizeof(path), "%s/events/kvbench/kvbench_op",
		 self->tracefs);
	if (access(path, F_OK))
		SKIP(return, "no kvbench_op event (KVBENCH_TRACE=0?)");
	/* No command names: see FIXTURE_SETUP(trace) in kvbench_trace.c. */
	snprintf(path, sizeof(path), "%s/options/record-cmd", self->tracefs);
	if (!sysfs_read(path, self->record_cmd, sizeof(self->record_cmd)))
		ASSERT_EQ(0, sysfs_write(path, "0"));
	snprintf(self->inst, sizeof(self->inst), "%s/instances/%s",
		 self->tracefs, EV_INSTANCE);
	rmdir(self->inst);	/* left by a test that was killed */
	if (mkdir(self->inst, 0755)) {
		TH_LOG("mkdir %s: %s", self->inst, strerror(errno));
		self->inst[0] = '\0';
		ASSERT_TRUE(false);
	}
	ASSERT_EQ(0, sysfs_write_at(self->inst, "buffer_size_kb", "256"));
	ASSERT_EQ(0, sysfs_write_at(self->inst, "events/kvbench/kvbench_op/enable",
				    "1"));
	ASSERT_EQ(0, sysfs_read(KVB_ATTR("backend"), self->orig_backend,
				sizeof(self->orig_backend)));
	self->fd = open(KVB_DEV, O_RDWR);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", KVB_DEV, strerror(errno));
}

FIXTURE_TEARDOWN(op_event)
{
	char path[256];
	size_t i;

	if (self->fd >= 0) {
		for (i = 0; i < EV_KEYS; i++)
			ioctl_del(self->fd, ev_keys[i]);
		EXPECT_EQ(0, sysfs_write(KVB_ATTR("backend"),
					 self->orig_backend));
		close(self->fd);
	}
	if (self->inst[0]) {
		EXPECT_EQ(0, sysfs_write_at(self->inst,
					    "events/kvbench/kvbench_op/enable", "0"));
		EXPECT_EQ(0, rmdir(self->inst));
	}
	if (self->record_cmd[0]) {
		snprintf(path, sizeof(path), "%s/options/record-cmd",
			 self->tracefs);
		EXPECT_EQ(0, sysfs_write(path, self->record_cmd));
	}
	if (self->mounted)
		umount(self->tracefs);
}

struct ev_writer {
	int fd;
	atomic_bool stop;
	atomic_uint bad;
	unsigned long ops;
};

/* SET and DEL the keys through ioctls until told to stop. */
static void *ev_writer_fn(void *arg)
{
	static char val[EV_IOCTL_LEN];
	struct ev_writer *w = arg;
	struct kvbench_kv kv;
	unsigned int i;
	int ret;

	while (!atomic_load(&w->stop)) {
		for (i = 0; i < 2 * EV_KEYS; i++) {
			kv_str(&kv, ev_keys[i % EV_KEYS], val,
			       i < EV_KEYS ? sizeof(val) : 0);
			ret = ioctl(w->fd, i < EV_KEYS ? KVBENCH_IOC_SET :
				    KVBENCH_IOC_DEL, &kv) ? errno : 0;
			if (ret && ret != ENOENT)
				atomic_fetch_add(&w->bad, 1);
		}
		w->ops += 2 * EV_KEYS;
	}
	return NULL;
}

/*
 * Check a SET's kvbench_op line: its key is one of ours (by length) and its
 * value one of the lengths we SET.
 */
static int ev_check_set(const char *f, void *arg)
{
	unsigned int *bad = arg, key_len, value_len, hash, batch;
	char backend[16], op[4];
	int result;
	size_t i;

	if (sscanf(f, "backend=%15s op=%3s hash=%x key_len=%u value_len=%u batch=%u result=%d",
		   backend, op, &hash, &key_len, &value_len, &batch,
		   &result) != 7)
		goto bad;
	if (strcmp(op, "SET"))
		return 0;
	if (value_len != EV_URING_LEN && value_len != EV_IOCTL_LEN)
		goto bad;
	for (i = 0; i < EV_KEYS; i++)
		if (key_len == strlen(ev_keys[i]))
			return 0;
bad:
	if (!(*bad)++)
		fprintf(stderr, "# wrong kvbench_op: %s\n", f);
	return 0;
}

/*
 * Count the SET events of the instance's buffer; the wrong ones in *@bad.
 * The whole file is read (a full buffer prints megabytes), and only whole
 * lines are looked at.
 */
static int ev_scan(const char *inst, unsigned int *bad)
{
	char path[256], *buf, *line, *next, *p;
	int sets = 0;

	snprintf(path, sizeof(path), "%s/trace", inst);
	buf = read_all(path, 1 << 20);
	if (!buf)
		return -1;
	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (!next)
			break;	/* not a whole line */
		*next++ = '\0';
		p = strstr(line, " kvbench_op: ");
		if (line[0] == '#' || !p)
			continue;
		sets += !!strstr(p, " op=SET ");
		ev_check_set(p + strlen(" kvbench_op: "), bad);
	}
	free(buf);
	return sets;
}

TEST_F_TIMEOUT(op_event, set_del_freed_items, 120)
{
	static struct kvbench_kv kv[EV_BATCH];
	static char val[EV_URING_LEN];
	unsigned long long ms = 400, rounds;
	unsigned int i, b, bad, ran = 0;
	struct kvb_list backends;
	const char *name;
	char path[256];
	long long end;
	struct ev_writer w;
	const char *env;
	struct ring r;
	struct cqe cqe;
	pthread_t t;
	int fd, sets;

	env = getenv("KVBENCH_OP_EVENT_MS");
	if (env)
		ms = strtoull(env, NULL, 10);
	ASSERT_EQ(0, kvb_backends_read(&backends));
	ASSERT_EQ(0, ring_init(&r, 2 * EV_BATCH, IORING_SETUP_CQE32));
	/* SET a, SET bb, DEL a, DEL bb, SET a...: no command waits for another. */
	for (i = 0; i < EV_BATCH; i++)
		kv_str(&kv[i], ev_keys[i % EV_KEYS], val,
		       i % (2 * EV_KEYS) < EV_KEYS ? sizeof(val) : 0);

	for (b = 0; b < backends.n; b++) {
		name = backends.name[b];
		ASSERT_EQ(0, sysfs_write(KVB_ATTR("backend"), name));
		/* Empty the buffer: opened for writing with O_TRUNC. */
		snprintf(path, sizeof(path), "%s/trace", self->inst);
		fd = open(path, O_WRONLY | O_TRUNC);
		ASSERT_LE(0, fd) TH_LOG("open %s: %s", path, strerror(errno));
		close(fd);
		memset(&w, 0, sizeof(w));
		w.fd = self->fd;
		ASSERT_EQ(0, pthread_create(&t, NULL, ev_writer_fn, &w));
		end = now_ns(CLOCK_MONOTONIC) + (long long)ms * 1000000;
		for (rounds = 0; !rounds || now_ns(CLOCK_MONOTONIC) < end; rounds++) {
			for (i = 0; i < EV_BATCH; i++)
				ring_cmd(&r, self->fd,
					 i % (2 * EV_KEYS) < EV_KEYS ?
					 KVBENCH_URING_SET : KVBENCH_URING_DEL,
					 ptr(&kv[i]), 0, 0, i, 0, 0);
			if (ring_submit(&r, 0)) {
				w.bad++;
				break;
			}
			for (i = 0; i < EV_BATCH; i++) {
				if (ring_reap(&r, &cqe)) {
					w.bad++;
					break;
				}
				if (cqe.res && cqe.res != -ENOENT)
					w.bad++;
			}
			if (i < EV_BATCH)
				break;
		}
		atomic_store(&w.stop, true);
		pthread_join(t, NULL);
		EXPECT_EQ(0U, atomic_load(&w.bad)) TH_LOG("%s", name);
		bad = 0;
		sets = ev_scan(self->inst, &bad);
		EXPECT_LT(0, sets) TH_LOG("%s: no SET events", name);
		EXPECT_EQ(0U, bad) TH_LOG("%s: %u SET events with wrong fields",
					  name, bad);
		TH_LOG("%s: %llu rounds of %d commands, %lu ioctls, %d SET events kept",
		       name, rounds, EV_BATCH, w.ops, sets);
		ran++;
	}
	ring_exit(&r);
	EXPECT_LT(0U, ran);
}

/*
 * The harness reports a run whose every test skipped as a pass: say skip
 * (exit 4) ourselves when io_uring or the device's uring commands are
 * missing.
 */
static const char *unavailable(void)
{
	if (access(KVB_MODULE, F_OK))
		return "kvbench module not loaded (run kvbench.sh)";
	return uring_unavailable();
}

int main(int argc, char **argv)
{
	kvb_skip_all_if(unavailable());
	return test_harness_run(argc, argv);
}
