// SPDX-License-Identifier: GPL-2.0
/*
 * Systematic fault injection on every failure point of /dev/kvbench.
 *
 * The walk is syzkaller's: for N = 1, 2, ... write N to
 * /proc/thread-self/fail-nth, make the call, and read fail-nth back. The
 * kernel counts down the failure points (slab and page allocations, copies
 * from and to user memory) this task reaches and fails the N-th; a count
 * that did not run out means the call reached fewer than N points, and the
 * walk of that call is complete. A point is anything the call reaches: our
 * allocations and user copies and those of the kernel code it goes through
 * (vmalloc, kernfs, kmemleak's and KASAN's bookkeeping).
 *
 * After every faulted call the result must be 0 or an errno the ABI
 * documents for that call, and the map, "entries", "bytes" and the
 * counters must be exactly what that result implies: a failed SET keeps
 * the old value, a failed switch keeps the old backend with every entry,
 * a BATCH's per-op results match the map. A packed MGET, MSET or MDEL that
 * failed as a whole with EFAULT ran none of its ops or (the results could
 * not be written back) all of them; with ENOMEM, the ops before some op.
 *
 * The io_uring commands (GET of a small and of a large value, SET of a
 * new key and an overwrite, DEL) are walked too, each step on a ring made
 * before fail-nth is armed: io_uring_enter submits the command and waits
 * for its CQE (min_complete 1), so that the issue, io_uring's own work for
 * the command and the owner backends' completion (task work) all run in
 * this task. The CQE's res (or io_uring_enter's own error, which would
 * mean that the command never reached kvbench) must be 0 or a documented
 * errno, the map and counters as for the ioctl of the same name, and a
 * GET that failed must have written neither value_len nor big_cqe[0] nor
 * anything but the value's own bytes.
 *
 * One test per call shape and backend; each prints the points it reached
 * and how its faulted calls ended (0: the fault was absorbed, EFAULT,
 * ENOMEM, an io_uring_enter that failed).
 * The last test prints the table and checks that nothing leaked (kmemleak,
 * slab and vmalloc use back within noise).
 *
 * Needs a kernel with CONFIG_FAULT_INJECTION, CONFIG_FAILSLAB,
 * CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAULT_INJECTION_USERCOPY and debugfs (the
 * debug kernel of tools/vm); it skips elsewhere, and the uring shapes skip
 * without io_uring (CONFIG_IO_URING). Run through kvbench.sh
 * (KVBENCH_SUITES=faults), which loads the module first.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/kvbench.h>

/*
 * The harness has an unused handler argument, and the shapes' callbacks
 * each take what any of them needs: unused parameters are fine here. GCC
 * also takes the harness's own "child", around its setjmp(), for one that
 * longjmp() may clobber; it is not written after the setjmp().
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#include "kvbench_helpers.h"
#include "kvbench_uring.h"

#define FAIL_NTH		"/proc/thread-self/fail-nth"
#define DEBUGFS			"/sys/kernel/debug/"
#define KMEMLEAK		DEBUGFS "kmemleak"

#define SMALL_LEN		100U	/* answered from the inline buffer */
#define LARGE_LEN		65536U	/* above a page: kvmalloc's vmalloc path */
#define NR_BULK			6	/* more entries for the switch to carry */
#define NR_CHUNKED		20	/* SETs of LARGE_LEN: a BATCH of 2 chunks */
#define MAX_POINTS		20000U	/* a walk that goes on is a failure */
#define SENTINEL		0x7eadbeef

enum shape {
	S_GET_SMALL, S_GET_LARGE, S_SET_NEW, S_SET_OVERWRITE, S_SET_GROW,
	S_SET_SHRINK, S_DEL, S_BATCH, S_BATCH_CHUNKED, S_MGET, S_MSET, S_MDEL,
	S_SWITCH, S_PARAM, S_U_GET_SMALL, S_U_GET_LARGE, S_U_SET_NEW,
	S_U_SET_OVERWRITE, S_U_DEL, NR_SHAPES
};

static const char * const shape_names[NR_SHAPES] = {
	"GET small", "GET large", "SET new", "SET overwrite", "SET grow",
	"SET shrink", "DEL", "BATCH", "BATCH chunked", "MGET", "MSET", "MDEL",
	"switch", "param write", "uring GET small", "uring GET large",
	"uring SET new", "uring SET overwrite", "uring DEL",
};

/*
 * Failure points reached, per shape and backend, written by the tests'
 * processes (the harness forks one per test) into memory they share with
 * the parent, which the last test reads. -1: did not run.
 */
static int (*tally)[KVB_NR_BACKENDS];
static unsigned long long slab_before, vmalloc_before;

/* The fault-injection knobs the walk sets, and what it sets them to. */
static const struct knob {
	const char *path;
	const char *value;
} knobs[] = {
	/* Fail GFP_KERNEL allocations too, and order-0 pages. */
	{ DEBUGFS "failslab/ignore-gfp-wait", "N" },
	{ DEBUGFS "fail_page_alloc/ignore-gfp-wait", "N" },
	{ DEBUGFS "fail_page_alloc/ignore-gfp-highmem", "N" },
	{ DEBUGFS "fail_page_alloc/min-order", "0" },
	/* No line, no stack per injected fault: the log stays clean. */
	{ DEBUGFS "failslab/verbose", "0" },
	{ DEBUGFS "fail_page_alloc/verbose", "0" },
	{ DEBUGFS "fail_usercopy/verbose", "0" },
};

#define NR_KNOBS		ARRAY_SIZE(knobs)

/* A value of @len bytes from pattern @seed. */
static void fill(unsigned char *buf, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 8));
}

static unsigned long long meminfo_kb(const char *field)
{
	char line[256];
	unsigned long long kb = 0;
	size_t len = strlen(field);
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, len) && line[len] == ':')
			kb = strtoull(line + len + 1, NULL, 10);
	fclose(f);
	return kb;
}

/*
 * Unreclaimable slab, in kB, once every cache has been shrunk: that also
 * empties KASAN's quarantine of freed objects, which would otherwise hide
 * a leak or pass for one.
 */
static unsigned long long slab_settled(void)
{
	char path[512];
	struct dirent *d;
	DIR *dir = opendir("/sys/kernel/slab");

	while (dir && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink",
			 d->d_name);
		sysfs_write(path, "1");
	}
	if (dir)
		closedir(dir);
	return meminfo_kb("SUnreclaim");
}

static void __attribute__((constructor)) faults_init(void)
{
	unsigned int s, b;

	tally = mmap(NULL, sizeof(int) * NR_SHAPES * KVB_NR_BACKENDS,
		     PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (tally == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	for (s = 0; s < NR_SHAPES; s++)
		for (b = 0; b < KVB_NR_BACKENDS; b++)
			tally[s][b] = -1;
	slab_before = slab_settled();
	vmalloc_before = meminfo_kb("VmallocUsed");
	/* Reports from before the walk are not its own. */
	sysfs_write(KMEMLEAK, "clear");
}

/* --------------------------------------------------------- the fixture */

/* Signed: the walk compares differences. */
struct kvb_stats {
	long long gets, hits, misses, sets, dels, batches;
	long long entries, bytes;
};

/* The test's keys, by index. */
enum {
	K_SMALL, K_LARGE, K_NEW, K_RESIZE, K_DEL, K_B1, K_B2, K_B3,
	K_BULK, K_CHUNKED = K_BULK + NR_BULK, NR_KEYS = K_CHUNKED + NR_CHUNKED
};

/* What a test works with; the fixture's data. */
struct fstate {
	int fd;
	int nth;			/* /proc/thread-self/fail-nth */
	int bi;				/* index of the variant's backend */
	const char *backend;
	char orig_backend[64];
	unsigned long long orig_max_value_len;
	char saved[NR_KNOBS][32];
	bool knob_set[NR_KNOBS];
	char prefix[64];
	char key[NR_KEYS][KVBENCH_KEY_MAX + 1];
	unsigned char *val[3];		/* patterns 0, 1, 2; LARGE_LEN each */
	unsigned char *buf;		/* the calls' GET buffers: 2 x LARGE_LEN */
	unsigned char *chk;		/* the checks' GET buffer: LARGE_LEN */
	struct kvb_stats before;
	struct kvbench_op ops[NR_CHUNKED];
	unsigned int nops;
	/* the packed commands' argument and arrays */
	enum shape mshape;
	struct kvbench_multi marg;
	char mkeys[4 * (KVBENCH_KEY_MAX + 1)];
	__u32 mklens[4];
	__u32 mvlens[4];
	__s32 mres[4];
	unsigned char *mbuf;		/* MSET values: LARGE_LEN + 2 x SMALL_LEN */
	/* the uring shapes: the step's ring, its command's argument */
	struct ring ring;
	struct kvbench_kv ukv;
	int enter_err;			/* io_uring_enter's own error, or 0 */
	__u64 res2;			/* the CQE's big_cqe[0] */
};

FIXTURE(faults) {
	struct fstate s;
};

/* A variant per backend of KVB_BACKENDS (kvbench_backends.h). */
KVB_FIXTURE_VARIANTS(faults)

static const char *key(struct fstate *self, unsigned int k)
{
	if (!self->key[k][0])
		snprintf(self->key[k], sizeof(self->key[k]), "%s%u",
			 self->prefix, k);
	return self->key[k];
}

static int kv_ioctl(int fd, unsigned long cmd, const char *k, const void *v,
		    __u32 *len)
{
	struct kvbench_kv kv = {
		.key = (uintptr_t)k, .key_len = strlen(k),
		.value = (uintptr_t)v, .value_len = len ? *len : 0,
	};
	int ret = ioctl(fd, cmd, &kv) ? -errno : 0;

	if (len)
		*len = kv.value_len;
	return ret;
}

static int kv_set(struct fstate *self, unsigned int k,
		  unsigned int pat, __u32 len)
{
	return kv_ioctl(self->fd, KVBENCH_IOC_SET, key(self, k),
			self->val[pat], &len);
}

static int kv_del(struct fstate *self, unsigned int k)
{
	return kv_ioctl(self->fd, KVBENCH_IOC_DEL, key(self, k), NULL, NULL);
}

/* Does key @k hold @len bytes of pattern @pat (@pat < 0: is it absent)? */
static bool holds(struct fstate *self, unsigned int k, int pat,
		  __u32 len)
{
	__u32 got = LARGE_LEN;
	int ret;

	ret = kv_ioctl(self->fd, KVBENCH_IOC_GET, key(self, k), self->chk,
		       &got);
	if (pat < 0)
		return ret == -ENOENT;
	return !ret && got == len && !memcmp(self->chk, self->val[pat], len);
}

static bool stat_read(const char *path, long long *val)
{
	unsigned long long v;

	if (sysfs_read_u64(path, &v))
		return false;
	*val = (long long)v;
	return true;
}

static bool stats_read(struct kvb_stats *st)
{
	return stat_read(KVB_ATTR("gets"), &st->gets) &&
	       stat_read(KVB_ATTR("hits"), &st->hits) &&
	       stat_read(KVB_ATTR("misses"), &st->misses) &&
	       stat_read(KVB_ATTR("sets"), &st->sets) &&
	       stat_read(KVB_ATTR("dels"), &st->dels) &&
	       stat_read(KVB_ATTR("batches"), &st->batches) &&
	       stat_read(KVB_ATTR("entries"), &st->entries) &&
	       stat_read(KVB_ATTR("bytes"), &st->bytes);
}

/* Counter and size changes since self->before. */
static struct kvb_stats delta(struct __test_metadata *_metadata,
			      struct fstate *self)
{
	struct kvb_stats now = {}, d;

	EXPECT_TRUE(stats_read(&now)) TH_LOG("cannot read the statistics");
	d.gets = now.gets - self->before.gets;
	d.hits = now.hits - self->before.hits;
	d.misses = now.misses - self->before.misses;
	d.sets = now.sets - self->before.sets;
	d.dels = now.dels - self->before.dels;
	d.batches = now.batches - self->before.batches;
	d.entries = now.entries - self->before.entries;
	d.bytes = now.bytes - self->before.bytes;
	return d;
}

static long long entry_bytes(struct fstate *self, unsigned int k,
			     __u32 len)
{
	return (long long)strlen(key(self, k)) + len + KVB_ENTRY_OVERHEAD;
}

FIXTURE_SETUP(faults)
{
	struct fstate *st = &self->s;
	unsigned int i;
	int ret;

	st->fd = -1;
	st->nth = -1;
	st->ring.fd = -1;
	if (access(KVB_MODULE, F_OK))
		SKIP(return, "kvbench module not loaded (run kvbench.sh)");
	if (access(FAIL_NTH, W_OK))
		SKIP(return, "no " FAIL_NTH " (CONFIG_FAULT_INJECTION)");
	for (i = 0; i < NR_KNOBS; i++)
		if (access(knobs[i].path, W_OK))
			SKIP(return, "no %s (failslab, fail_page_alloc, fail_usercopy in debugfs)",
			     knobs[i].path);

	st->bi = kvb_backend_index(variant->backend);
	st->backend = variant->backend;
	snprintf(st->prefix, sizeof(st->prefix), "kvbench_faults/%s/",
		 _metadata->name);

	for (i = 0; i < 3; i++) {
		st->val[i] = mmap(NULL, LARGE_LEN, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(MAP_FAILED, st->val[i]);
		fill(st->val[i], LARGE_LEN, i);
	}
	/* Touched now: a GET's copy to it faults in no page. */
	st->buf = mmap(NULL, 2 * LARGE_LEN, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, st->buf);
	memset(st->buf, 0, 2 * LARGE_LEN);
	st->chk = mmap(NULL, LARGE_LEN, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, st->chk);
	st->mbuf = mmap(NULL, 2 * LARGE_LEN, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, st->mbuf);
	memset(st->mbuf, 0, 2 * LARGE_LEN);

	ASSERT_EQ(0, sysfs_read(KVB_ATTR("backend"), st->orig_backend,
				sizeof(st->orig_backend)));
	ASSERT_EQ(0, sysfs_read_u64(KVB_PARAM("max_value_len"),
				    &st->orig_max_value_len));
	st->fd = open(KVB_DEV, O_RDWR);
	ASSERT_LE(0, st->fd) TH_LOG("open %s: %s", KVB_DEV, strerror(errno));
	st->nth = open(FAIL_NTH, O_RDWR);
	ASSERT_LE(0, st->nth) TH_LOG("open %s: %s", FAIL_NTH, strerror(errno));

	ret = sysfs_write(KVB_ATTR("backend"), variant->backend);
	if (ret == -EINVAL)
		SKIP(return, "backend %s not built", variant->backend);
	ASSERT_EQ(0, ret);
	if (st->orig_max_value_len < LARGE_LEN)
		ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("max_value_len"),
					     LARGE_LEN));

	/* What every shape finds in the map. */
	ASSERT_EQ(0, kv_set(st, K_SMALL, 0, SMALL_LEN));
	ASSERT_EQ(0, kv_set(st, K_LARGE, 0, LARGE_LEN));

	for (i = 0; i < NR_KNOBS; i++) {
		ASSERT_EQ(0, sysfs_read(knobs[i].path, st->saved[i],
					sizeof(st->saved[i])));
		ASSERT_EQ(0, sysfs_write(knobs[i].path, knobs[i].value));
		st->knob_set[i] = true;
	}
}

FIXTURE_TEARDOWN(faults)
{
	struct fstate *st = &self->s;
	unsigned int i;
	int ret;

	if (st->fd >= 0) {
		for (i = 0; i < NR_KEYS; i++) {
			ret = kv_del(st, i);
			EXPECT_TRUE(ret == 0 || ret == -ENOENT);
		}
		EXPECT_EQ(0, sysfs_write_u64(KVB_PARAM("max_value_len"),
					     st->orig_max_value_len));
		EXPECT_EQ(0, sysfs_write(KVB_ATTR("backend"),
					 st->orig_backend));
		close(st->fd);
	}
	for (i = 0; i < NR_KNOBS; i++)
		if (st->knob_set[i])
			EXPECT_EQ(0, sysfs_write(knobs[i].path, st->saved[i]));
	if (st->nth >= 0)
		close(st->nth);
	ring_exit(&st->ring);
}

/* ------------------------------------------------------------ the walk */

/* Fail the @n-th failure point this task reaches from now on. */
static int nth_arm(int fd, unsigned int n)
{
	char b[16];
	int len = snprintf(b, sizeof(b), "%u", n);

	return pwrite(fd, b, len, 0) == len ? 0 : -errno;
}

/*
 * Disarm; return 1 when the armed fault was injected (the count ran out),
 * 0 when it was not, -errno when fail-nth cannot be read or cleared. The
 * read's own copy to user memory is a failure point: when it was the last
 * one of the count (EFAULT), the call did not reach it.
 */
static int nth_disarm(int fd)
{
	char b[16] = "";
	ssize_t n = pread(fd, b, sizeof(b) - 1, 0);
	int injected, tries;

	if (n < 0 && errno != EFAULT)
		return -errno;
	injected = n > 0 && strtoul(b, NULL, 10) == 0;
	/* Likewise the write's copy from user memory; the second one works. */
	for (tries = 0; tries < 3; tries++)
		if (pwrite(fd, "0", 1, 0) == 1)
			return injected;
	return -errno;
}

struct shape_ops {
	enum shape shape;
	/* Put the map where the call starts from (no fault armed). */
	void (*prepare)(struct __test_metadata *_metadata,
			struct fstate *self);
	/* Open what the call needs, so that only the call itself is armed. */
	int (*open)(struct fstate *self);
	/* Close it, when close() is not enough. */
	void (*close)(struct fstate *self, int fd);
	/* The call under test: 0 or a negative errno. */
	int (*call)(struct fstate *self, int fd);
	/* Check the map and the counters against @ret. */
	void (*check)(struct __test_metadata *_metadata,
		      struct fstate *self, int ret);
	/* The errnos a faulted call may return; 0-terminated. */
	int errnos[4];
	/* An io_uring command: ret may be io_uring_enter's own error. */
	bool uring;
};

/* What io_uring_enter may fail with, having queued nothing of ours. */
static const int enter_errnos[] = { EAGAIN, ENOMEM, 0 };

static bool allowed(const struct shape_ops *ops, struct fstate *self,
		    int ret)
{
	const int *errnos = self->enter_err ? enter_errnos : ops->errnos;
	unsigned int i;

	for (i = 0; errnos[i]; i++)
		if (ret == -errnos[i])
			return true;
	return false;
}

static void check_uring(struct __test_metadata *_metadata,
			struct fstate *self, const struct shape_ops *ops,
			int ret);

/* How the faulted calls of a walk ended. */
struct outcomes {
	unsigned int ok, efault, enomem, enter;
};

static void walk(struct __test_metadata *_metadata, struct fstate *self,
		 const struct shape_ops *ops)
{
	struct outcomes out = {};
	unsigned int n, points = 0;
	int ret, injected, fd = -1;

	for (n = 1; n <= MAX_POINTS; n++) {
		ops->prepare(_metadata, self);
		if (_metadata->exit_code)
			return;
		ASSERT_TRUE(stats_read(&self->before));
		if (ops->open) {
			fd = ops->open(self);
			ASSERT_LE(0, fd) TH_LOG("open: %s", strerror(errno));
		}

		self->enter_err = 0;
		ASSERT_EQ(0, nth_arm(self->nth, n));
		ret = ops->call(self, fd);
		injected = nth_disarm(self->nth);

		if (ops->close)
			ops->close(self, fd);
		else if (fd >= 0)
			close(fd);
		fd = -1;
		ASSERT_LE(0, injected) TH_LOG("fail-nth: %s", strerror(-injected));
		if (injected) {
			ASSERT_TRUE(!ret || allowed(ops, self, ret))
				TH_LOG("%s on %s, failure point %u: %s%s (%d)",
				       shape_names[ops->shape], self->backend,
				       n, self->enter_err ? "io_uring_enter: " : "",
				       strerror(-ret), ret);
		} else {
			/* Fewer than n points: this one ran clean. */
			ASSERT_EQ(0, ret) TH_LOG("%s on %s without a fault: %s%s",
						 shape_names[ops->shape],
						 self->backend,
						 self->enter_err ? "io_uring_enter: " : "",
						 strerror(-ret));
		}
		/* Before ops->check(), whose GETs move the counters. */
		if (ops->uring)
			check_uring(_metadata, self, ops, ret);
		ops->check(_metadata, self, ret);
		if (_metadata->exit_code) {
			TH_LOG("%s on %s, failure point %u: the state does not match result %d",
			       shape_names[ops->shape], self->backend, n, ret);
			return;
		}
		if (!injected)
			break;
		points++;
		if (self->enter_err)
			out.enter++;
		else if (!ret)
			out.ok++;
		else if (ret == -EFAULT)
			out.efault++;
		else
			out.enomem++;
	}
	ASSERT_GE(MAX_POINTS, n) TH_LOG("still failing after %u points", MAX_POINTS);
	tally[ops->shape][self->bi] = points;
	/* Answered with 0, EFAULT, ENOMEM; io_uring_enter's own errors. */
	ksft_print_msg("faults: %s on %s: %u failure points reached, all survived",
		       shape_names[ops->shape], self->backend, points);
	printf(" (%u absorbed, %u EFAULT, %u ENOMEM", out.ok, out.efault,
	       out.enomem);
	if (ops->uring)
		printf(", %u failing io_uring_enter", out.enter);
	printf(")\n");
	fflush(stdout);
}

/* ------------------------------------------------------------- GET */

static void prepare_nothing(struct __test_metadata *_metadata,
			    struct fstate *self)
{
}

static int call_get_small(struct fstate *self, int fd)
{
	__u32 len = LARGE_LEN;
	int ret;

	memset(self->buf, 0, SMALL_LEN);
	ret = kv_ioctl(self->fd, KVBENCH_IOC_GET, key(self, K_SMALL),
		       self->buf, &len);
	return ret ? ret : (len == SMALL_LEN &&
			    !memcmp(self->buf, self->val[0], SMALL_LEN)) ? 0 : -EBADMSG;
}

static int call_get_large(struct fstate *self, int fd)
{
	__u32 len = LARGE_LEN;
	int ret;

	memset(self->buf, 0, LARGE_LEN);
	ret = kv_ioctl(self->fd, KVBENCH_IOC_GET, key(self, K_LARGE),
		       self->buf, &len);
	return ret ? ret : (len == LARGE_LEN &&
			    !memcmp(self->buf, self->val[0], LARGE_LEN)) ? 0 : -EBADMSG;
}

/*
 * A GET changes nothing but its counters: one GET and one hit once it
 * reached the map. EFAULT may come before that (copying the key in) or
 * after (copying the value out).
 */
static void check_get(struct __test_metadata *_metadata,
		      struct fstate *self, int ret)
{
	struct kvb_stats d = delta(_metadata, self);

	if (!ret)
		EXPECT_EQ(1, d.gets);
	EXPECT_GE(1, d.gets);
	EXPECT_EQ(d.gets, d.hits);
	EXPECT_EQ(0, d.misses + d.sets + d.dels + d.batches + d.entries + d.bytes);
	EXPECT_TRUE(holds(self, K_SMALL, 0, SMALL_LEN));
	EXPECT_TRUE(holds(self, K_LARGE, 0, LARGE_LEN));
}

static const struct shape_ops get_small = {
	.shape = S_GET_SMALL, .prepare = prepare_nothing,
	.call = call_get_small, .check = check_get, .errnos = { EFAULT },
};

static const struct shape_ops get_large = {
	.shape = S_GET_LARGE, .prepare = prepare_nothing,
	.call = call_get_large, .check = check_get, .errnos = { EFAULT },
};

TEST_F(faults, get_small) { walk(_metadata, &self->s, &get_small); }
TEST_F(faults, get_large) { walk(_metadata, &self->s, &get_large); }

/* ------------------------------------------------------------- SET */

/*
 * The rhashtable backend fails a SET with ENOMEM after it reached the map
 * (its table could not grow), and counts it; the others fail only before.
 */
static bool rht_counts_enomem(struct fstate *self)
{
	return !strcmp(self->backend, "rhashtable");
}

/*
 * One SET of key @k from (@old_pat, @old_len) (@old_pat < 0: absent) to
 * (@pat, @len). A SET that failed changed nothing; one that reached the
 * map counts, and only the rhashtable backend can fail there (ENOMEM,
 * its table could not grow).
 */
static void check_set_one(struct __test_metadata *_metadata,
			  struct fstate *self, int ret, unsigned int k,
			  int old_pat, __u32 old_len, int pat, __u32 len)
{
	struct kvb_stats d = delta(_metadata, self);
	long long bytes = 0, entries = 0;

	if (!ret) {
		EXPECT_EQ(1, d.sets);
		EXPECT_TRUE(holds(self, k, pat, len));
		bytes = entry_bytes(self, k, len);
		entries = 1;
		if (old_pat >= 0) {
			bytes -= entry_bytes(self, k, old_len);
			entries = 0;
		}
	} else {
		EXPECT_TRUE(!d.sets || (d.sets == 1 && ret == -ENOMEM &&
					rht_counts_enomem(self)));
		EXPECT_TRUE(holds(self, k, old_pat, old_len));
	}
	EXPECT_EQ(entries, d.entries);
	EXPECT_EQ(bytes, d.bytes);
	EXPECT_EQ(0, d.gets + d.dels + d.batches);
}

static void prepare_set_new(struct __test_metadata *_metadata,
			    struct fstate *self)
{
	int ret = kv_del(self, K_NEW);

	ASSERT_TRUE(ret == 0 || ret == -ENOENT);
}

static int call_set_new(struct fstate *self, int fd)
{
	return kv_set(self, K_NEW, 1, SMALL_LEN);
}

static void check_set_new(struct __test_metadata *_metadata,
			  struct fstate *self, int ret)
{
	check_set_one(_metadata, self, ret, K_NEW, -1, 0, 1, SMALL_LEN);
}

static void prepare_set_overwrite(struct __test_metadata *_metadata,
				  struct fstate *self)
{
	ASSERT_EQ(0, kv_set(self, K_NEW, 1, SMALL_LEN));
}

static int call_set_overwrite(struct fstate *self, int fd)
{
	return kv_set(self, K_NEW, 2, SMALL_LEN);
}

static void check_set_overwrite(struct __test_metadata *_metadata,
				struct fstate *self, int ret)
{
	check_set_one(_metadata, self, ret, K_NEW, 1, SMALL_LEN, 2, SMALL_LEN);
}

static void prepare_set_grow(struct __test_metadata *_metadata,
			     struct fstate *self)
{
	ASSERT_EQ(0, kv_set(self, K_RESIZE, 1, SMALL_LEN));
}

static int call_set_grow(struct fstate *self, int fd)
{
	return kv_set(self, K_RESIZE, 2, LARGE_LEN);
}

static void check_set_grow(struct __test_metadata *_metadata,
			   struct fstate *self, int ret)
{
	check_set_one(_metadata, self, ret, K_RESIZE, 1, SMALL_LEN, 2, LARGE_LEN);
}

static void prepare_set_shrink(struct __test_metadata *_metadata,
			       struct fstate *self)
{
	ASSERT_EQ(0, kv_set(self, K_RESIZE, 1, LARGE_LEN));
}

static int call_set_shrink(struct fstate *self, int fd)
{
	return kv_set(self, K_RESIZE, 2, SMALL_LEN);
}

static void check_set_shrink(struct __test_metadata *_metadata,
			     struct fstate *self, int ret)
{
	check_set_one(_metadata, self, ret, K_RESIZE, 1, LARGE_LEN, 2, SMALL_LEN);
}

#define SET_SHAPE(name, s) {						\
	.shape = s, .prepare = prepare_##name, .call = call_##name,	\
	.check = check_##name, .errnos = { ENOMEM, EFAULT },		\
}

static const struct shape_ops set_new = SET_SHAPE(set_new, S_SET_NEW);
static const struct shape_ops set_overwrite =
	SET_SHAPE(set_overwrite, S_SET_OVERWRITE);
static const struct shape_ops set_grow = SET_SHAPE(set_grow, S_SET_GROW);
static const struct shape_ops set_shrink = SET_SHAPE(set_shrink, S_SET_SHRINK);

TEST_F(faults, set_new) { walk(_metadata, &self->s, &set_new); }
TEST_F(faults, set_overwrite) { walk(_metadata, &self->s, &set_overwrite); }
TEST_F(faults, set_grow) { walk(_metadata, &self->s, &set_grow); }
TEST_F(faults, set_shrink) { walk(_metadata, &self->s, &set_shrink); }

/* ------------------------------------------------------------- DEL */

static void prepare_del(struct __test_metadata *_metadata,
			struct fstate *self)
{
	ASSERT_EQ(0, kv_set(self, K_DEL, 1, SMALL_LEN));
}

static int call_del(struct fstate *self, int fd)
{
	return kv_del(self, K_DEL);
}

/* A DEL can only fail before it reaches the map (copying the key in). */
static void check_del(struct __test_metadata *_metadata,
		      struct fstate *self, int ret)
{
	struct kvb_stats d = delta(_metadata, self);

	EXPECT_EQ(!ret, d.dels);
	EXPECT_TRUE(holds(self, K_DEL, ret ? 1 : -1, SMALL_LEN));
	EXPECT_EQ(ret ? 0 : -1, d.entries);
	EXPECT_EQ(ret ? 0 : -entry_bytes(self, K_DEL, SMALL_LEN), d.bytes);
	EXPECT_EQ(0, d.gets + d.sets + d.batches);
}

static const struct shape_ops del = {
	.shape = S_DEL, .prepare = prepare_del, .call = call_del,
	.check = check_del, .errnos = { EFAULT },
};

TEST_F(faults, del) { walk(_metadata, &self->s, &del); }

/* ----------------------------------------------------------- BATCH */

/*
 * A mixed batch, with ops that succeed and ops that fail by themselves:
 *   0 SET B1 (overwrite)      1 SET B2 (new, large)   2 GET small
 *   3 GET missing (ENOENT)    4 DEL B3                5 SET, flags (EINVAL)
 *   6 GET large, short buffer (ERANGE)                7 DEL missing (ENOENT)
 *   8 GET large
 */
enum {
	B_SET_OLD, B_SET_NEW, B_GET, B_GET_MISSING, B_DEL, B_BAD, B_SHORT,
	B_DEL_MISSING, B_GET_LARGE, NR_B
};

static const int batch_expect[NR_B] = {
	0, 0, 0, -ENOENT, 0, -EINVAL, -ERANGE, -ENOENT, 0,
};

static void op(struct kvbench_op *o, __u32 code, const char *k,
	       const void *v, __u32 len)
{
	memset(o, 0, sizeof(*o));
	o->op = code;
	o->kv.key = (uintptr_t)k;
	o->kv.key_len = strlen(k);
	o->kv.value = (uintptr_t)v;
	o->kv.value_len = len;
	o->result = SENTINEL;
}

static void prepare_batch(struct __test_metadata *_metadata,
			  struct fstate *self)
{
	struct kvbench_op *o = self->ops;
	int ret;

	ASSERT_EQ(0, kv_set(self, K_B1, 1, SMALL_LEN));
	ret = kv_del(self, K_B2);
	ASSERT_TRUE(ret == 0 || ret == -ENOENT);
	ASSERT_EQ(0, kv_set(self, K_B3, 1, SMALL_LEN));
	memset(self->buf, 0, 2 * LARGE_LEN);

	op(&o[B_SET_OLD], KVBENCH_OP_SET, key(self, K_B1), self->val[2], SMALL_LEN);
	op(&o[B_SET_NEW], KVBENCH_OP_SET, key(self, K_B2), self->val[2], LARGE_LEN);
	op(&o[B_GET], KVBENCH_OP_GET, key(self, K_SMALL), self->buf, SMALL_LEN);
	op(&o[B_GET_MISSING], KVBENCH_OP_GET, key(self, K_NEW),
	   self->buf + SMALL_LEN, SMALL_LEN);
	op(&o[B_DEL], KVBENCH_OP_DEL, key(self, K_B3), NULL, 0);
	op(&o[B_BAD], KVBENCH_OP_SET, key(self, K_NEW), self->val[2], SMALL_LEN);
	o[B_BAD].kv.flags = 1;
	op(&o[B_SHORT], KVBENCH_OP_GET, key(self, K_LARGE),
	   self->buf + 2 * SMALL_LEN, SMALL_LEN);
	op(&o[B_DEL_MISSING], KVBENCH_OP_DEL, key(self, K_NEW), NULL, 0);
	op(&o[B_GET_LARGE], KVBENCH_OP_GET, key(self, K_LARGE),
	   self->buf + LARGE_LEN, LARGE_LEN);
	self->nops = NR_B;
	ASSERT_TRUE(holds(self, K_NEW, -1, 0));
}

static int call_batch(struct fstate *self, int fd)
{
	struct kvbench_batch b = {
		.ops = (uintptr_t)self->ops, .count = self->nops,
	};

	return ioctl(self->fd, KVBENCH_IOC_BATCH, &b) ? -errno : 0;
}

/* The errnos one op may get from a fault, beside its own result. */
static bool op_fault(const struct kvbench_op *o, int res)
{
	return res == -EFAULT || (res == -ENOMEM && o->op == KVBENCH_OP_SET);
}

static void check_batch(struct __test_metadata *_metadata,
			struct fstate *self, int ret)
{
	struct kvb_stats d = delta(_metadata, self);
	struct kvbench_op *o = self->ops;
	long long gets_min = 0, gets_max = 0, sets = 0, dels = 0;
	long long entries = 0, bytes = 0;
	unsigned int i;

	if (ret) {
		/* Failed as a whole: before any op ran, nothing written. */
		for (i = 0; i < NR_B; i++)
			EXPECT_EQ(SENTINEL, o[i].result) TH_LOG("op %u", i);
		EXPECT_EQ(0, d.gets + d.sets + d.dels + d.batches + d.entries +
			     d.bytes);
		EXPECT_TRUE(holds(self, K_B1, 1, SMALL_LEN));
		EXPECT_TRUE(holds(self, K_B2, -1, 0));
		EXPECT_TRUE(holds(self, K_B3, 1, SMALL_LEN));
		return;
	}

	EXPECT_EQ(1, d.batches);
	for (i = 0; i < NR_B; i++) {
		int res = o[i].result;

		EXPECT_TRUE(res == batch_expect[i] || op_fault(&o[i], res))
			TH_LOG("op %u: result %d, expected %d", i, res,
			       batch_expect[i]);
		/* What reached the map counts; a fault in copying in did not. */
		switch (o[i].op) {
		case KVBENCH_OP_GET:
			if (res != -EFAULT)
				gets_min++;
			gets_max++;
			break;
		case KVBENCH_OP_SET:
			if (i != B_BAD && res == 0)
				sets++;
			break;
		case KVBENCH_OP_DEL:
			if (res != -EFAULT)
				dels++;
			break;
		}
	}
	EXPECT_LE(gets_min, d.gets);
	EXPECT_GE(gets_max, d.gets);
	EXPECT_TRUE(d.sets == sets || (d.sets > sets && rht_counts_enomem(self)));
	EXPECT_EQ(dels, d.dels);

	/* The map follows each op's result. */
	EXPECT_TRUE(holds(self, K_B1, o[B_SET_OLD].result ? 1 : 2, SMALL_LEN));
	if (!o[B_SET_NEW].result) {
		EXPECT_TRUE(holds(self, K_B2, 2, LARGE_LEN));
		entries++;
		bytes += entry_bytes(self, K_B2, LARGE_LEN);
	} else {
		EXPECT_TRUE(holds(self, K_B2, -1, 0));
	}
	if (!o[B_DEL].result) {
		EXPECT_TRUE(holds(self, K_B3, -1, 0));
		entries--;
		bytes -= entry_bytes(self, K_B3, SMALL_LEN);
	} else {
		EXPECT_TRUE(holds(self, K_B3, 1, SMALL_LEN));
	}
	EXPECT_EQ(entries, d.entries);
	EXPECT_EQ(bytes, d.bytes);

	/* What the GETs answered. */
	if (!o[B_GET].result) {
		EXPECT_EQ(SMALL_LEN, o[B_GET].kv.value_len);
		EXPECT_EQ(0, memcmp(self->buf, self->val[0], SMALL_LEN));
	}
	if (o[B_SHORT].result == -ERANGE)
		EXPECT_EQ(LARGE_LEN, o[B_SHORT].kv.value_len);
	if (!o[B_GET_LARGE].result) {
		EXPECT_EQ(LARGE_LEN, o[B_GET_LARGE].kv.value_len);
		EXPECT_EQ(0, memcmp(self->buf + LARGE_LEN, self->val[0],
				    LARGE_LEN));
	}
}

static const struct shape_ops batch = {
	.shape = S_BATCH, .prepare = prepare_batch, .call = call_batch,
	.check = check_batch, .errnos = { ENOMEM, EFAULT },
};

TEST_F_TIMEOUT(faults, batch, 120) { walk(_metadata, &self->s, &batch); }

/*
 * A batch of NR_CHUNKED new keys of LARGE_LEN each: more than the 1 MiB
 * one chunk holds, so it is copied in and run in two chunks. Each op's
 * result says whether its key is in the map.
 */
static void prepare_chunked(struct __test_metadata *_metadata,
			    struct fstate *self)
{
	unsigned int i;
	int ret;

	for (i = 0; i < NR_CHUNKED; i++) {
		ret = kv_del(self, K_CHUNKED + i);
		ASSERT_TRUE(ret == 0 || ret == -ENOENT);
		op(&self->ops[i], KVBENCH_OP_SET, key(self, K_CHUNKED + i),
		   self->val[1], LARGE_LEN);
	}
	self->nops = NR_CHUNKED;
}

static void check_chunked(struct __test_metadata *_metadata,
			  struct fstate *self, int ret)
{
	struct kvb_stats d = delta(_metadata, self);
	long long sets = 0, bytes = 0;
	unsigned int i;

	EXPECT_EQ(!ret, d.batches);
	for (i = 0; i < NR_CHUNKED; i++) {
		int res = self->ops[i].result;

		if (ret) {
			EXPECT_EQ(SENTINEL, res) TH_LOG("op %u", i);
		} else {
			EXPECT_TRUE(!res || op_fault(&self->ops[i], res))
				TH_LOG("op %u: result %d", i, res);
		}
		EXPECT_TRUE(holds(self, K_CHUNKED + i, !ret && !res ? 1 : -1,
				  LARGE_LEN)) TH_LOG("op %u: result %d", i, res);
		if (!ret && !res) {
			sets++;
			bytes += entry_bytes(self, K_CHUNKED + i, LARGE_LEN);
		}
	}
	EXPECT_TRUE(d.sets == sets || (d.sets > sets && rht_counts_enomem(self)));
	EXPECT_EQ(sets, d.entries);
	EXPECT_EQ(bytes, d.bytes);
	EXPECT_EQ(0, d.gets + d.dels);
}

static const struct shape_ops batch_chunked = {
	.shape = S_BATCH_CHUNKED, .prepare = prepare_chunked,
	.call = call_batch, .check = check_chunked,
	.errnos = { ENOMEM, EFAULT },
};

TEST_F_TIMEOUT(faults, batch_chunked, 300) { walk(_metadata, &self->s, &batch_chunked); }

/* -------------------------------------------- MGET, MSET and MDEL */

/*
 * The packed commands, NR_M ops each. MGET: [small, missing, large, large
 * again, for which the values have no room left (ERANGE)]. MSET: [B1
 * overwrite, B2 new and large, B3 overwrite]. MDEL: [B1, missing, B3].
 */
#define NR_M		4
#define M_ROOM		(SMALL_LEN + LARGE_LEN + 10)
#define M_CANARY	0xa5

/*
 * Did the call leave bytes @from to @to of self->buf as it found them
 * (M_CANARY), or write there nothing but the bytes of @value (if given)?
 */
static void expect_untouched(struct __test_metadata *_metadata,
			     struct fstate *self, unsigned int from,
			     unsigned int to, const unsigned char *value,
			     int ret)
{
	unsigned int i;

	for (i = from; i < to; i++)
		if (self->buf[i] != M_CANARY &&
		    (!value || self->buf[i] != value[i])) {
			EXPECT_EQ(M_CANARY, self->buf[i])
				TH_LOG("result %d, yet byte %u of the buffer written",
				       ret, i);
			return;
		}
}

static void multi_arg(struct fstate *self, const unsigned int *ks,
		      unsigned int n)
{
	size_t off = 0;
	unsigned int i;

	memset(&self->marg, 0, sizeof(self->marg));
	for (i = 0; i < n; i++) {
		const char *k = key(self, ks[i]);

		self->mklens[i] = strlen(k);
		memcpy(self->mkeys + off, k, self->mklens[i]);
		off += self->mklens[i];
		self->mres[i] = SENTINEL;
		self->mvlens[i] = SENTINEL;
	}
	self->marg.keys = (uintptr_t)self->mkeys;
	self->marg.key_lens = (uintptr_t)self->mklens;
	self->marg.results = (uintptr_t)self->mres;
	self->marg.count = n;
}

static void prepare_mget(struct __test_metadata *_metadata,
			 struct fstate *self)
{
	static const unsigned int ks[NR_M] = { K_SMALL, K_NEW, K_LARGE, K_LARGE };
	int ret = kv_del(self, K_NEW);

	ASSERT_TRUE(ret == 0 || ret == -ENOENT);
	multi_arg(self, ks, NR_M);
	self->marg.values = (uintptr_t)self->buf;
	self->marg.value_lens = (uintptr_t)self->mvlens;
	self->marg.values_size = M_ROOM;
}

static int call_multi(struct fstate *self, int fd)
{
	static const unsigned long cmd[] = {
		[S_MGET] = KVBENCH_IOC_MGET,
		[S_MSET] = KVBENCH_IOC_MSET,
		[S_MDEL] = KVBENCH_IOC_MDEL,
	};

	return ioctl(self->fd, cmd[self->mshape], &self->marg) ? -errno : 0;
}

static int call_mget(struct fstate *self, int fd)
{
	memset(self->buf, M_CANARY, M_ROOM + 64);
	self->mshape = S_MGET;
	return call_multi(self, fd);
}

/* An MGET changes nothing but its counters, whatever it returned. */
static void check_mget(struct __test_metadata *_metadata,
		       struct fstate *self, int ret)
{
	static const int exp[NR_M] = { 0, -ENOENT, 0, -ERANGE };
	static const __u32 lens[NR_M] = { SMALL_LEN, 0, LARGE_LEN, LARGE_LEN };
	struct kvb_stats d = delta(_metadata, self);
	unsigned int i;

	EXPECT_EQ(0, d.sets + d.dels + d.entries + d.bytes);
	EXPECT_TRUE(holds(self, K_SMALL, 0, SMALL_LEN));
	EXPECT_TRUE(holds(self, K_LARGE, 0, LARGE_LEN));
	if (ret == -EFAULT) {
		/* Before the ops (copying in) or after (copying out). */
		EXPECT_TRUE((!d.gets && !d.hits && !d.misses) ||
			    (d.gets == NR_M && d.hits == 3 && d.misses == 1))
			TH_LOG("gets %lld hits %lld misses %lld", d.gets, d.hits,
			       d.misses);
		return;
	}
	if (ret) {
		/* ENOMEM: the ABI does not say whether some ops ran. */
		EXPECT_GE(NR_M, d.gets);
		EXPECT_EQ(d.gets, d.hits + d.misses);
		return;
	}
	EXPECT_EQ(NR_M, d.gets);
	EXPECT_EQ(3, d.hits);
	EXPECT_EQ(1, d.misses);
	for (i = 0; i < NR_M; i++) {
		EXPECT_EQ(exp[i], self->mres[i]) TH_LOG("op %u", i);
		EXPECT_EQ(lens[i], self->mvlens[i]) TH_LOG("op %u", i);
	}
	EXPECT_EQ(0, memcmp(self->buf, self->val[0], SMALL_LEN));
	EXPECT_EQ(0, memcmp(self->buf + SMALL_LEN, self->val[0], LARGE_LEN));
	/* Nothing past the last value. */
	expect_untouched(_metadata, self, SMALL_LEN + LARGE_LEN, M_ROOM + 64,
			 NULL, ret);
}

static const struct shape_ops mget = {
	.shape = S_MGET, .prepare = prepare_mget, .call = call_mget,
	.check = check_mget, .errnos = { EFAULT, ENOMEM },
};

TEST_F_TIMEOUT(faults, mget, 120) { walk(_metadata, &self->s, &mget); }

static void prepare_mset(struct __test_metadata *_metadata,
			 struct fstate *self)
{
	static const unsigned int ks[3] = { K_B1, K_B2, K_B3 };
	int ret;

	ASSERT_EQ(0, kv_set(self, K_B1, 1, SMALL_LEN));
	ret = kv_del(self, K_B2);
	ASSERT_TRUE(ret == 0 || ret == -ENOENT);
	ASSERT_EQ(0, kv_set(self, K_B3, 1, SMALL_LEN));
	multi_arg(self, ks, 3);
	/* pattern 2, back to back: small, large, small */
	memcpy(self->mbuf, self->val[2], SMALL_LEN);
	memcpy(self->mbuf + SMALL_LEN, self->val[2], LARGE_LEN);
	memcpy(self->mbuf + SMALL_LEN + LARGE_LEN, self->val[2], SMALL_LEN);
	self->mvlens[0] = SMALL_LEN;
	self->mvlens[1] = LARGE_LEN;
	self->mvlens[2] = SMALL_LEN;
	self->marg.values = (uintptr_t)self->mbuf;
	self->marg.value_lens = (uintptr_t)self->mvlens;
	self->marg.values_size = 2 * SMALL_LEN + LARGE_LEN;
}

static int call_mset(struct fstate *self, int fd)
{
	self->mshape = S_MSET;
	return call_multi(self, fd);
}

/*
 * Which of the three ops are in the map. A call that failed as a whole
 * ran none of its ops, or (EFAULT writing the results) all of them, or
 * (ENOMEM, where the ABI does not say) those before some op; one that
 * returned 0 has each op's result match the map.
 */
static void check_mset(struct __test_metadata *_metadata,
		       struct fstate *self, int ret)
{
	struct kvb_stats d = delta(_metadata, self);
	bool in[3];
	long long sets = 0, entries = 0, bytes = 0;
	unsigned int i;

	in[0] = holds(self, K_B1, 2, SMALL_LEN);
	in[1] = holds(self, K_B2, 2, LARGE_LEN);
	in[2] = holds(self, K_B3, 2, SMALL_LEN);
	EXPECT_TRUE(in[0] || holds(self, K_B1, 1, SMALL_LEN));
	EXPECT_TRUE(in[1] || holds(self, K_B2, -1, 0));
	EXPECT_TRUE(in[2] || holds(self, K_B3, 1, SMALL_LEN));
	for (i = 0; i < 3; i++)
		sets += in[i];
	if (in[1]) {
		entries = 1;
		bytes = entry_bytes(self, K_B2, LARGE_LEN);
	}
	if (!ret) {
		for (i = 0; i < 3; i++) {
			int res = self->mres[i];

			EXPECT_TRUE(res == 0 || res == -EFAULT || res == -ENOMEM)
				TH_LOG("op %u: result %d", i, res);
			EXPECT_EQ(!res, in[i]) TH_LOG("op %u: result %d", i, res);
		}
	} else if (ret == -EFAULT) {
		EXPECT_TRUE(sets == 0 || sets == 3)
			TH_LOG("EFAULT for the call, %lld of 3 ops ran", sets);
	} else {
		EXPECT_TRUE(!in[2] || in[1]) TH_LOG("ENOMEM: op 2 ran, op 1 not");
		EXPECT_TRUE(!in[1] || in[0]) TH_LOG("ENOMEM: op 1 ran, op 0 not");
	}
	EXPECT_TRUE(d.sets == sets || (d.sets > sets && rht_counts_enomem(self)));
	EXPECT_EQ(entries, d.entries);
	EXPECT_EQ(bytes, d.bytes);
	EXPECT_EQ(0, d.gets + d.dels);
}

static const struct shape_ops mset = {
	.shape = S_MSET, .prepare = prepare_mset, .call = call_mset,
	.check = check_mset, .errnos = { EFAULT, ENOMEM },
};

TEST_F_TIMEOUT(faults, mset, 120) { walk(_metadata, &self->s, &mset); }

static void prepare_mdel(struct __test_metadata *_metadata,
			 struct fstate *self)
{
	static const unsigned int ks[3] = { K_B1, K_NEW, K_B3 };
	int ret;

	ASSERT_EQ(0, kv_set(self, K_B1, 1, SMALL_LEN));
	ret = kv_del(self, K_NEW);
	ASSERT_TRUE(ret == 0 || ret == -ENOENT);
	ASSERT_EQ(0, kv_set(self, K_B3, 1, SMALL_LEN));
	multi_arg(self, ks, 3);
}

static int call_mdel(struct fstate *self, int fd)
{
	self->mshape = S_MDEL;
	return call_multi(self, fd);
}

/* As check_mset(); a DEL op has no fault of its own. */
static void check_mdel(struct __test_metadata *_metadata,
		       struct fstate *self, int ret)
{
	struct kvb_stats d = delta(_metadata, self);
	bool gone0 = holds(self, K_B1, -1, 0), gone2 = holds(self, K_B3, -1, 0);

	EXPECT_TRUE(gone0 || holds(self, K_B1, 1, SMALL_LEN));
	EXPECT_TRUE(gone2 || holds(self, K_B3, 1, SMALL_LEN));
	EXPECT_EQ(-(gone0 + gone2), d.entries);
	EXPECT_EQ(-(gone0 + gone2) * entry_bytes(self, K_B1, SMALL_LEN), d.bytes);
	EXPECT_EQ(0, d.gets + d.sets);
	if (!ret) {
		EXPECT_EQ(0, self->mres[0]);
		EXPECT_EQ(-ENOENT, self->mres[1]);
		EXPECT_EQ(0, self->mres[2]);
		EXPECT_TRUE(gone0 && gone2);
		EXPECT_EQ(3, d.dels);
	} else if (ret == -EFAULT) {
		EXPECT_TRUE((gone0 && gone2 && d.dels == 3) ||
			    (!gone0 && !gone2 && !d.dels))
			TH_LOG("EFAULT for the call: B1 %s, B3 %s, %lld DELs",
			       gone0 ? "gone" : "kept", gone2 ? "gone" : "kept",
			       d.dels);
	} else {
		EXPECT_TRUE(!gone2 || gone0) TH_LOG("ENOMEM: op 2 ran, op 0 not");
		EXPECT_LE(d.dels, 3);
	}
}

static const struct shape_ops mdel = {
	.shape = S_MDEL, .prepare = prepare_mdel, .call = call_mdel,
	.check = check_mdel, .errnos = { EFAULT, ENOMEM },
};

TEST_F_TIMEOUT(faults, mdel, 120) { walk(_metadata, &self->s, &mdel); }

/* --------------------------------------------- a switch, a parameter */

/* Where a switch to the variant's backend starts from. */
static const char *switch_source(struct fstate *self)
{
	return strcmp(self->backend, "rcu") ? "rcu" : "rwlock";
}

static void prepare_switch(struct __test_metadata *_metadata,
			   struct fstate *self)
{
	unsigned int i;

	ASSERT_EQ(0, sysfs_write(KVB_ATTR("backend"), switch_source(self)));
	for (i = 0; i < NR_BULK; i++)
		ASSERT_EQ(0, kv_set(self, K_BULK + i, i % 3, 200 + i));
}

static int open_backend(struct fstate *self)
{
	return open(KVB_ATTR("backend"), O_WRONLY);
}

static int call_switch(struct fstate *self, int fd)
{
	return sysfs_write_fd(fd, self->backend);
}

/*
 * A switch that failed (ENOMEM; EFAULT or ENOMEM from the write itself)
 * keeps the old backend; either way every entry is there, unchanged.
 */
static void check_switch(struct __test_metadata *_metadata,
			 struct fstate *self, int ret)
{
	struct kvb_stats d = delta(_metadata, self);
	char cur[64];
	unsigned int i;

	ASSERT_EQ(0, sysfs_read(KVB_ATTR("backend"), cur, sizeof(cur)));
	EXPECT_STREQ(ret ? switch_source(self) : self->backend, cur);
	EXPECT_EQ(0, d.entries);
	EXPECT_EQ(0, d.bytes);
	EXPECT_TRUE(holds(self, K_SMALL, 0, SMALL_LEN));
	EXPECT_TRUE(holds(self, K_LARGE, 0, LARGE_LEN));
	for (i = 0; i < NR_BULK; i++)
		EXPECT_TRUE(holds(self, K_BULK + i, i % 3, 200 + i));
}

static const struct shape_ops switch_to = {
	.shape = S_SWITCH, .prepare = prepare_switch, .open = open_backend,
	.call = call_switch, .check = check_switch,
	.errnos = { ENOMEM, EFAULT },
};

TEST_F_TIMEOUT(faults, switch_to, 120) { walk(_metadata, &self->s, &switch_to); }

#define PARAM_A		(LARGE_LEN + 1)
#define PARAM_B		(LARGE_LEN + 2)

static void prepare_param(struct __test_metadata *_metadata,
			  struct fstate *self)
{
	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("max_value_len"), PARAM_A));
}

static int open_param(struct fstate *self)
{
	return open(KVB_PARAM("max_value_len"), O_WRONLY);
}

static int call_param(struct fstate *self, int fd)
{
	return sysfs_write_fd(fd, "65538");
}

/* A parameter write that failed left the parameter as it was. */
static void check_param(struct __test_metadata *_metadata,
			struct fstate *self, int ret)
{
	unsigned long long v;

	ASSERT_EQ(0, sysfs_read_u64(KVB_PARAM("max_value_len"), &v));
	EXPECT_EQ(ret ? PARAM_A : PARAM_B, v);
}

static const struct shape_ops param = {
	.shape = S_PARAM, .prepare = prepare_param, .open = open_param,
	.call = call_param, .check = check_param,
	.errnos = { ENOMEM, EFAULT },
};

TEST_F(faults, param_write) { walk(_metadata, &self->s, &param); }

/* ------------------------------------------------ io_uring commands */

/*
 * The same GET, SET and DEL as above, as IORING_OP_URING_CMDs, checked by
 * the same checks plus check_uring(). Each step makes a fresh ring before
 * fail-nth is armed (ops->open), so that every step meets the same
 * points: io_uring's own for the first command of a ring (its requests,
 * the command's state), then ours. io_uring_enter submits the command and,
 * min_complete 1, waits for its CQE in this task, which also runs the
 * owner backends' completion (task work): every point of the command but
 * the owner thread's is this task's.
 */
#define U_CAP		(LARGE_LEN + 64)	/* a GET's buffer, > the value */
#define U_DATA		0x5eed			/* the SQE's user_data */

static int open_ring(struct fstate *self)
{
	int ret = ring_init(&self->ring, 4, IORING_SETUP_CQE32);

	if (ret) {
		errno = -ret;
		return -1;
	}
	return self->ring.fd;
}

static void close_ring(struct fstate *self, int fd)
{
	ring_exit(&self->ring);
}

/*
 * One command on key @k, waited for. Return: its CQE's res, or the error
 * of io_uring_enter itself (then in self->enter_err too). -EPROTO, which
 * no step may return: a CQE that is not the command's, or an SQE that
 * io_uring_enter neither took nor failed.
 */
static int uring_kv(struct fstate *self, __u32 op, unsigned int k,
		    const void *value, __u32 len)
{
	struct cqe cqe;
	int ret;

	memset(&self->ukv, 0, sizeof(self->ukv));
	self->ukv.key = (uintptr_t)key(self, k);
	self->ukv.key_len = strlen(key(self, k));
	self->ukv.value = (uintptr_t)value;
	self->ukv.value_len = len;
	self->res2 = SENTINEL;
	ring_cmd(&self->ring, self->fd, op, (uintptr_t)&self->ukv, 0, 0,
		 U_DATA, 0, 0);
	ret = ring_submit(&self->ring, 1);
	if (!ret && self->ring.pending)
		ret = -EPROTO;
	if (!ret)
		ret = ring_reap(&self->ring, &cqe);
	if (ret) {
		self->enter_err = ret;
		return ret;
	}
	self->res2 = cqe.extra;
	return cqe.user_data == U_DATA ? cqe.res : -EPROTO;
}

static int call_u_get(struct fstate *self, unsigned int k)
{
	memset(self->buf, M_CANARY, U_CAP);
	return uring_kv(self, KVBENCH_URING_GET, k, self->buf, U_CAP);
}

static int call_u_get_small(struct fstate *self, int fd)
{
	return call_u_get(self, K_SMALL);
}

static int call_u_get_large(struct fstate *self, int fd)
{
	return call_u_get(self, K_LARGE);
}

static int call_u_set_new(struct fstate *self, int fd)
{
	return uring_kv(self, KVBENCH_URING_SET, K_NEW, self->val[1],
			SMALL_LEN);
}

static int call_u_set_overwrite(struct fstate *self, int fd)
{
	return uring_kv(self, KVBENCH_URING_SET, K_NEW, self->val[2],
			SMALL_LEN);
}

static int call_u_del(struct fstate *self, int fd)
{
	return uring_kv(self, KVBENCH_URING_DEL, K_DEL, NULL, 0);
}

/*
 * What a command wrote to the caller's memory; ops->check() follows, for
 * the map and the counters. A command that io_uring_enter failed never
 * reached kvbench: nothing moved. A GET that answered 0 wrote its value
 * and its length, to value_len and big_cqe[0]; one that failed wrote
 * neither value_len (still the buffer's size) nor big_cqe[0] (0), and of
 * the buffer at most the value's own bytes (the ABI: nothing the kernel
 * did not compute). No GET writes past the value.
 */
static void check_uring(struct __test_metadata *_metadata,
			struct fstate *self, const struct shape_ops *ops,
			int ret)
{
	bool get = ops->shape == S_U_GET_SMALL || ops->shape == S_U_GET_LARGE;
	__u32 len = ops->shape == S_U_GET_SMALL ? SMALL_LEN : LARGE_LEN;
	const unsigned char *v = self->val[0];

	if (self->enter_err) {
		struct kvb_stats d = delta(_metadata, self);

		EXPECT_EQ(0, d.gets + d.hits + d.misses + d.sets + d.dels +
			     d.entries + d.bytes)
			TH_LOG("io_uring_enter failed (%d), yet kvbench moved", ret);
	}
	if (!get)
		return;
	if (!ret) {
		EXPECT_EQ(len, self->ukv.value_len);
		EXPECT_EQ(len, self->res2);
		EXPECT_EQ(0, memcmp(self->buf, v, len));
	} else {
		EXPECT_EQ(U_CAP, self->ukv.value_len)
			TH_LOG("a GET that failed (%d) wrote value_len", ret);
		if (!self->enter_err)
			EXPECT_EQ(0ULL, self->res2);
		expect_untouched(_metadata, self, 0, len, v, ret);
	}
	expect_untouched(_metadata, self, len, U_CAP, NULL, ret);
}

#define URING_SHAPE(name, s, prep, chk) {				\
	.shape = s, .prepare = prep, .open = open_ring,			\
	.close = close_ring, .call = call_##name, .check = chk,		\
	.errnos = { EFAULT, ENOMEM }, .uring = true,			\
}

static const struct shape_ops u_get_small =
	URING_SHAPE(u_get_small, S_U_GET_SMALL, prepare_nothing, check_get);
static const struct shape_ops u_get_large =
	URING_SHAPE(u_get_large, S_U_GET_LARGE, prepare_nothing, check_get);
static const struct shape_ops u_set_new =
	URING_SHAPE(u_set_new, S_U_SET_NEW, prepare_set_new, check_set_new);
static const struct shape_ops u_set_overwrite =
	URING_SHAPE(u_set_overwrite, S_U_SET_OVERWRITE, prepare_set_overwrite,
		    check_set_overwrite);
static const struct shape_ops u_del =
	URING_SHAPE(u_del, S_U_DEL, prepare_del, check_del);

/* Skips where io_uring or the device's uring commands are missing. */
static void walk_uring(struct __test_metadata *_metadata, struct fstate *self,
		       const struct shape_ops *ops)
{
	const char *why = uring_unavailable();

	if (why)
		SKIP(return, "%s", why);
	walk(_metadata, self, ops);
}

TEST_F(faults, uring_get_small) { walk_uring(_metadata, &self->s, &u_get_small); }
TEST_F(faults, uring_get_large) { walk_uring(_metadata, &self->s, &u_get_large); }
TEST_F(faults, uring_set_new) { walk_uring(_metadata, &self->s, &u_set_new); }
TEST_F(faults, uring_set_overwrite) { walk_uring(_metadata, &self->s, &u_set_overwrite); }
TEST_F(faults, uring_del) { walk_uring(_metadata, &self->s, &u_del); }

/* ------------------------------------------- the table, and leaks */

/* ------------------------------------------- allocations sized by knobs */

/*
 * Allocations whose size a parameter sets (kthread-percpu's owners array,
 * about 300 KB at owners=1024; each owner's queue, 512 KB at
 * queue_len=65536) are of an order that may fail without the system
 * being short of memory. Their failure must be the switch's ENOMEM and
 * nothing in the kernel log: each passes __GFP_NOWARN (or falls back to
 * vmalloc). fail_page_alloc fails every allocation of this task of order 3
 * (32 KB) or more, verbosely: an injected failure prints its
 * "FAULT_INJECTION" line unless the allocation said __GFP_NOWARN, as the
 * kernel's own warning would have said it on a real failure.
 */
#define FPA			DEBUGFS "fail_page_alloc/"
#define MAKE_IT_FAIL		"/proc/thread-self/make-it-fail"

static const struct knob quiet_knobs[] = {
	{ FPA "ignore-gfp-wait", "N" },
	{ FPA "ignore-gfp-highmem", "N" },
	{ FPA "min-order", "3" },
	{ FPA "task-filter", "Y" },
	{ FPA "interval", "1" },
	{ FPA "times", "-1" },
	{ FPA "space", "0" },
	{ FPA "verbose", "1" },
	{ FPA "probability", "100" },	/* last: arms it */
};

#define NR_QUIET_KNOBS		ARRAY_SIZE(quiet_knobs)

FIXTURE(quiet) {
	int fd;				/* /dev/kvbench, kept open */
	int kmsg;			/* /dev/kmsg, at its end */
	char orig_backend[64];
	unsigned long long orig_owners, orig_queue_len;
	char saved[NR_QUIET_KNOBS][32];
	bool knob_set[NR_QUIET_KNOBS];
};

FIXTURE_SETUP(quiet)
{
	unsigned int i;

	self->fd = -1;
	self->kmsg = -1;
	if (access(KVB_MODULE, F_OK))
		SKIP(return, "kvbench module not loaded (run kvbench.sh)");
	if (access(MAKE_IT_FAIL, W_OK))
		SKIP(return, "no " MAKE_IT_FAIL " (CONFIG_FAULT_INJECTION)");
	for (i = 0; i < NR_QUIET_KNOBS; i++)
		if (access(quiet_knobs[i].path, W_OK))
			SKIP(return, "no %s (CONFIG_FAIL_PAGE_ALLOC)",
			     quiet_knobs[i].path);
	ASSERT_EQ(0, sysfs_read(KVB_ATTR("backend"), self->orig_backend,
				sizeof(self->orig_backend)));
	ASSERT_EQ(0, sysfs_read_u64(KVB_PARAM("owners"), &self->orig_owners));
	ASSERT_EQ(0, sysfs_read_u64(KVB_PARAM("queue_len"),
				    &self->orig_queue_len));
	self->fd = open(KVB_DEV, O_RDWR);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", KVB_DEV, strerror(errno));
	/* A backend without owners: the switches below build every owner. */
	ASSERT_EQ(0, sysfs_write(KVB_ATTR("backend"), "rwlock"));
	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("owners"), 1024));
	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("queue_len"), 65536));
	self->kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, self->kmsg) TH_LOG("open /dev/kmsg: %s", strerror(errno));
	ASSERT_LE(0, lseek(self->kmsg, 0, SEEK_END));
	for (i = 0; i < NR_QUIET_KNOBS; i++) {
		ASSERT_EQ(0, sysfs_read(quiet_knobs[i].path, self->saved[i],
					sizeof(self->saved[i])));
		ASSERT_EQ(0, sysfs_write(quiet_knobs[i].path,
					 quiet_knobs[i].value));
		self->knob_set[i] = true;
	}
}

FIXTURE_TEARDOWN(quiet)
{
	int i;

	sysfs_write(MAKE_IT_FAIL, "0");
	/* The probability first: disarmed before anything else changes. */
	for (i = NR_QUIET_KNOBS - 1; i >= 0; i--)
		if (self->knob_set[i])
			EXPECT_EQ(0, sysfs_write(quiet_knobs[i].path,
						 self->saved[i]));
	if (self->fd >= 0) {
		EXPECT_EQ(0, sysfs_write_u64(KVB_PARAM("owners"),
					     self->orig_owners));
		EXPECT_EQ(0, sysfs_write_u64(KVB_PARAM("queue_len"),
					     self->orig_queue_len));
		EXPECT_EQ(0, sysfs_write(KVB_ATTR("backend"),
					 self->orig_backend));
		close(self->fd);
	}
	if (self->kmsg >= 0)
		close(self->kmsg);
}

/* How many kernel log records since the setup say what @what lists. */
static int kmsg_count(int fd, const char * const *what)
{
	char rec[2048];
	ssize_t n;
	int i, found = 0;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)	/* overwritten: read on */
			continue;
		if (n <= 0)
			break;
		rec[n] = '\0';
		for (i = 0; what[i]; i++)
			if (strstr(rec, what[i])) {
				ksft_print_msg("kernel log: %s", rec);
				found++;
				break;
			}
	}
	return found;
}

TEST_F_TIMEOUT(quiet, high_order_enomem, 120)
{
	static const char * const to[] = { "kthread-percpu", "kthread" };
	static const char * const splat[] = {
		"FAULT_INJECTION", "WARNING", "allocation failure",
		"vmalloc error", "PERCPU", "Call Trace", NULL,
	};
	char cur[64];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(to); i++) {
		ASSERT_EQ(0, sysfs_write(MAKE_IT_FAIL, "1"));
		EXPECT_EQ(-ENOMEM, sysfs_write(KVB_ATTR("backend"), to[i]))
			TH_LOG("switch to %s", to[i]);
		ASSERT_EQ(0, sysfs_write(MAKE_IT_FAIL, "0"));
		ASSERT_EQ(0, sysfs_read(KVB_ATTR("backend"), cur, sizeof(cur)));
		EXPECT_STREQ("rwlock", cur);
	}
	EXPECT_EQ(0, kmsg_count(self->kmsg, splat));
}

FIXTURE(after) {
	int unused;
};

FIXTURE_SETUP(after)
{
}

FIXTURE_TEARDOWN(after)
{
}

/* kmemleak's reports, once objects allocated now are old enough. */
static int kmemleak_reports(char *buf, size_t size)
{
	int fd;
	ssize_t n, got = 0;

	sleep(6);	/* kmemleak reports objects older than 5 s */
	/*
	 * Twice: the first scan that finds an object unreferenced records
	 * its checksum, which then counts as a change, and reports nothing;
	 * the second reports it.
	 */
	if (sysfs_write(KMEMLEAK, "scan") || sysfs_write(KMEMLEAK, "scan"))
		return -1;
	fd = open(KMEMLEAK, O_RDONLY);
	if (fd < 0)
		return -1;
	while ((size_t)got < size - 1 &&
	       (n = read(fd, buf + got, size - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	return got;
}

TEST_F_TIMEOUT(after, table_and_leaks, 300)
{
	unsigned long long slab, vmalloc_now, total = 0;
	static char report[8192];
	unsigned int s, b;
	char line[256];
	int n, len;

	if (access(FAIL_NTH, W_OK))
		SKIP(return, "no " FAIL_NTH " (CONFIG_FAULT_INJECTION)");
	len = snprintf(line, sizeof(line), "%-19s", "points");
	for (b = 0; b < KVB_NR_BACKENDS; b++)
		len += snprintf(line + len, sizeof(line) - len, " %14s",
				kvb_backends[b].name);
	ksft_print_msg("faults: %s\n", line);
	for (s = 0; s < NR_SHAPES; s++) {
		len = snprintf(line, sizeof(line), "%-19s", shape_names[s]);
		for (b = 0; b < KVB_NR_BACKENDS; b++) {
			n = tally[s][b];
			if (n < 0)
				len += snprintf(line + len, sizeof(line) - len,
						" %14s", "-");
			else
				len += snprintf(line + len, sizeof(line) - len,
						" %14d", n);
			total += n > 0 ? n : 0;
		}
		ksft_print_msg("faults: %s\n", line);
	}
	ksft_print_msg("faults: %llu failure points reached in all\n", total);

	if (!access(KMEMLEAK, W_OK)) {
		n = kmemleak_reports(report, sizeof(report));
		EXPECT_EQ(0, n) TH_LOG("kmemleak:\n%s", report);
	}
	slab = slab_settled();
	vmalloc_now = meminfo_kb("VmallocUsed");
	ksft_print_msg("faults: unreclaimable slab %+lld kB, vmalloc %+lld kB since the start\n",
		       (long long)(slab - slab_before),
		       (long long)(vmalloc_now - vmalloc_before));
	fflush(stdout);
	/*
	 * Noise: the kernel's own caches (kernfs, kmemleak's metadata) move
	 * by a few hundred kB. kmemleak above is the exact judge of leaks.
	 */
	EXPECT_GT(slab_before + 4096, slab);
	EXPECT_GT(vmalloc_before + 1024, vmalloc_now);
}

TEST_HARNESS_MAIN
