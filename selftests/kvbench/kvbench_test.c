// SPDX-License-Identifier: GPL-2.0
/*
 * Functional tests for /dev/kvbench.
 *
 * Every test runs once per backend (FIXTURE_VARIANT). The fixture switches
 * the module to the variant's backend through sysfs and skips when that
 * backend is not built. Each test names its keys after itself, deletes
 * what it creates and gets back every parameter it changes: the teardown
 * does both, so a failing test leaves the module as it found it.
 *
 * Run through kvbench.sh, which loads the module first.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
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
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/kvbench.h>

/* The harness has an unused handler argument; that is all we silence. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#include "kvbench_helpers.h"

/* Upper bound of the max_value_len parameter. */
#define KVB_VALUE_LEN_LIMIT	1048576U

#define MAX_TRACKED		320
#define NR_BAD_PTRS		4

static const char * const bad_ptr_names[NR_BAD_PTRS + 1] = {
	"NULL", "unmapped", "PROT_NONE", "kernel", "read-only",
};

/* ---------------------------------------------------------------- stats */

enum {
	ST_ENTRIES,
	ST_BYTES,
	ST_GETS,
	ST_HITS,
	ST_MISSES,
	ST_SETS,
	ST_DELS,
	ST_BATCHES,
	ST_NR,
};

static const char * const stat_names[ST_NR] = {
	"entries", "bytes", "gets", "hits", "misses", "sets", "dels", "batches",
};

struct kvb_stats {
	unsigned long long v[ST_NR];
};

static int stats_read(struct kvb_stats *st)
{
	char path[128];
	int i, ret;

	for (i = 0; i < ST_NR; i++) {
		snprintf(path, sizeof(path), KVB_ATTR("%s"), stat_names[i]);
		ret = sysfs_read_u64(path, &st->v[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---------------------------------------------------------------- ioctl */

static void op_init(struct kvbench_op *op, __u32 code, const void *key,
		    size_t key_len, const void *value, size_t value_len)
{
	memset(op, 0, sizeof(*op));
	kv_init(&op->kv, key, key_len, value, value_len);
	op->op = code;
	/* Poison: the module must overwrite it. */
	op->result = 1;
}

/* Returns 0 or -errno. */
static int kvb_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static int kvb_set(int fd, const void *key, size_t key_len,
		   const void *value, size_t value_len)
{
	struct kvbench_kv kv;

	kv_init(&kv, key, key_len, value, value_len);
	return kvb_ioctl(fd, KVBENCH_IOC_SET, &kv);
}

/* @len: in, the buffer size; out, the value length the module reported. */
static int kvb_get(int fd, const void *key, size_t key_len, void *buf,
		   __u32 *len)
{
	struct kvbench_kv kv;
	int ret;

	kv_init(&kv, key, key_len, buf, *len);
	ret = kvb_ioctl(fd, KVBENCH_IOC_GET, &kv);
	*len = kv.value_len;
	return ret;
}

static int kvb_del(int fd, const void *key, size_t key_len)
{
	struct kvbench_kv kv;

	kv_init(&kv, key, key_len, NULL, 0);
	return kvb_ioctl(fd, KVBENCH_IOC_DEL, &kv);
}

static int kvb_batch(int fd, struct kvbench_op *ops, __u32 count, __u32 flags)
{
	struct kvbench_batch batch = {
		.ops = (__u64)(unsigned long)ops,
		.count = count,
		.flags = flags,
	};

	return kvb_ioctl(fd, KVBENCH_IOC_BATCH, &batch);
}

/*
 * GET @key and compare with @exp. Returns 0 on a match, -errno when the
 * GET fails, 1 when the value differs (length or bytes).
 */
static int get_check(int fd, const void *key, size_t key_len,
		     const void *exp, size_t exp_len)
{
	size_t size = exp_len + 64;
	unsigned char *buf;
	__u32 len = size;
	int ret;

	buf = malloc(size);
	if (!buf)
		return -ENOMEM;
	memset(buf, 0xa5, size);
	ret = kvb_get(fd, key, key_len, buf, &len);
	if (!ret && (len != exp_len || memcmp(buf, exp, exp_len)))
		ret = 1;
	free(buf);
	return ret;
}

static int get_check_str(int fd, const char *key, const char *exp)
{
	return get_check(fd, key, strlen(key), exp, strlen(exp));
}

static int set_str(int fd, const char *key, const char *val)
{
	return kvb_set(fd, key, strlen(key), val, strlen(val));
}

static int del_str(int fd, const char *key)
{
	return kvb_del(fd, key, strlen(key));
}

static unsigned int bulk_key(const char *prefix, unsigned int i, char *buf)
{
	return snprintf(buf, KVBENCH_KEY_MAX + 1, "%sbulk%05u", prefix, i);
}

/* ----------------------------------------------- self-checking values */

/*
 * A value that names its own key, carries a version and a checksum over
 * everything: a torn value, a value of another key or an old version is
 * recognised by the reader.
 */
struct stamp {
	__u32 magic;
	__u32 tid;
	__u32 idx;
	__u32 len;
	__u64 version;
	__u64 csum;
};

#define STAMP_MAGIC	0x6b766273
#define STAMP_ANY_TID	0xffffffffU
#define STAMP_MAX	(sizeof(struct stamp) + 255)

enum { STAMP_OK, STAMP_TORN, STAMP_FOREIGN };

static __u64 stamp_csum(const unsigned char *buf, size_t len)
{
	return fnv1a_stamped(buf, len, sizeof(struct stamp), offsetof(struct stamp, csum));
}

static size_t stamp_encode(unsigned char *buf, __u32 tid, __u32 idx,
			   __u64 version)
{
	size_t len = sizeof(struct stamp) + (version * 37 + idx * 11 + tid) % 256;
	struct stamp st = {
		.magic = STAMP_MAGIC,
		.tid = tid,
		.idx = idx,
		.len = len,
		.version = version,
	};
	size_t i;

	for (i = sizeof(st); i < len; i++)
		buf[i] = (unsigned char)(version * 131 + idx * 7 + tid + i);
	memcpy(buf, &st, sizeof(st));
	st.csum = stamp_csum(buf, len);
	memcpy(buf, &st, sizeof(st));
	return len;
}

static int stamp_check(const unsigned char *buf, size_t len, __u32 tid,
		       __u32 idx, __u64 *version)
{
	struct stamp st;

	if (len < sizeof(st))
		return STAMP_TORN;
	memcpy(&st, buf, sizeof(st));
	if (st.magic != STAMP_MAGIC || st.len != len ||
	    st.csum != stamp_csum(buf, len))
		return STAMP_TORN;
	if ((tid != STAMP_ANY_TID && st.tid != tid) || st.idx != idx)
		return STAMP_FOREIGN;
	*version = st.version;
	return STAMP_OK;
}

/* --------------------------------------------------------------- fixture */

/* The keys a test creates, so that its teardown can delete them. */
struct test_keys {
	char prefix[96];		/* "kvbench_test/<test name>/" */
	unsigned int ntracked;
	struct {
		unsigned char key[KVBENCH_KEY_MAX];
		unsigned int len;
	} tracked[MAX_TRACKED];
	unsigned int nbulk;		/* bulk keys 0..nbulk-1 */
};

FIXTURE(kvbench) {
	int fd;
	char orig_backend[64];
	unsigned long long orig_max_entries;
	unsigned long long orig_max_bytes;
	unsigned long long orig_max_value_len;
	unsigned long long orig_hash_bits;
	unsigned long long orig_queue_len;	/* 0: no such parameter */
	unsigned long long orig_owners;
	long page_size;
	unsigned char *page;		/* readable and writable */
	unsigned char *ro;		/* read-only page */
	__u64 bad[NR_BAD_PTRS + 1];	/* unreadable; the last is read-only */
	struct test_keys keys;
};

/* A variant per backend of KVB_BACKENDS (kvbench_backends.h). */
KVB_FIXTURE_VARIANTS(kvbench)

/*
 * The owners parameter of a sharded backend's variant (kthread-percpu):
 * two owners, so that every test sees keys in different shards, and a
 * BATCH split into runs. With two CPUs they are as many as the CPUs, so
 * SCHED_FIFO; with more, normal tasks. The default, one owner per 8 CPUs,
 * is what the other suites run, and owner_threads checks.
 */
#define VARIANT_OWNERS		2

/* Remember @key so that the teardown deletes it. */
static void track(struct test_keys *keys, const void *key, size_t len)
{
	if (keys->ntracked >= MAX_TRACKED || len > KVBENCH_KEY_MAX)
		return;
	memcpy(keys->tracked[keys->ntracked].key, key, len);
	keys->tracked[keys->ntracked].len = len;
	keys->ntracked++;
}

/* Build a key unique to this test in @buf and track it. */
static const char *mkkey(struct test_keys *keys, char *buf, const char *name)
{
	snprintf(buf, KVBENCH_KEY_MAX + 1, "%s%s", keys->prefix, name);
	track(keys, buf, strlen(buf));
	return buf;
}

/* Bulk keys 0..n-1, all of the same length; the teardown deletes them. */
static void use_bulk(struct test_keys *keys, unsigned int n)
{
	if (n > keys->nbulk)
		keys->nbulk = n;
}

FIXTURE_SETUP(kvbench)
{
	unsigned char *map;
	int ret;

	if (access(KVB_MODULE, F_OK))
		SKIP(return, "kvbench module not loaded (run kvbench.sh)");

	self->fd = -1;
	snprintf(self->keys.prefix, sizeof(self->keys.prefix),
		 "kvbench_test/%s/", _metadata->name);

	ASSERT_EQ(0, sysfs_read(KVB_ATTR("backend"), self->orig_backend,
				sizeof(self->orig_backend)));
	ASSERT_EQ(0, sysfs_read_u64(KVB_PARAM("max_entries"),
				    &self->orig_max_entries));
	ASSERT_EQ(0, sysfs_read_u64(KVB_PARAM("max_bytes"),
				    &self->orig_max_bytes));
	ASSERT_EQ(0, sysfs_read_u64(KVB_PARAM("max_value_len"),
				    &self->orig_max_value_len));
	ASSERT_EQ(0, sysfs_read_u64(KVB_PARAM("hash_bits"),
				    &self->orig_hash_bits));
	/* The kthread backend's queue size, if the module has one. */
	if (sysfs_read_u64(KVB_PARAM("queue_len"), &self->orig_queue_len))
		self->orig_queue_len = 0;
	ASSERT_EQ(0, sysfs_read_u64(KVB_PARAM("owners"), &self->orig_owners));
	if (variant->sharded)
		ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("owners"),
					     VARIANT_OWNERS));

	/*
	 * [read-write][hole][PROT_NONE][read-only], all from one mapping so
	 * that no later mmap() lands in the hole.
	 */
	self->page_size = sysconf(_SC_PAGESIZE);
	map = mmap(NULL, 4 * self->page_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, mprotect(map + 2 * self->page_size, self->page_size,
			      PROT_NONE));
	ASSERT_EQ(0, mprotect(map + 3 * self->page_size, self->page_size,
			      PROT_READ));
	ASSERT_EQ(0, munmap(map + self->page_size, self->page_size));
	self->page = map;
	self->ro = map + 3 * self->page_size;

	self->bad[0] = 0;
	self->bad[1] = (unsigned long)(map + self->page_size);
	self->bad[2] = (unsigned long)(map + 2 * self->page_size);
	self->bad[3] = KVB_KERNEL_PTR;
	self->bad[4] = (unsigned long)self->ro;

	self->fd = open(KVB_DEV, O_RDWR);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", KVB_DEV, strerror(errno));

	/* Last: nothing to undo when the backend does not exist. */
	ret = switch_backend(variant->backend);
	if (ret == -EINVAL)
		SKIP(return, "backend %s not built", variant->backend);
	ASSERT_EQ(0, ret);
}

FIXTURE_TEARDOWN(kvbench)
{
	char key[KVBENCH_KEY_MAX + 1];
	unsigned int i;
	int ret;

	for (i = 0; i < self->keys.ntracked; i++) {
		ret = kvb_del(self->fd, self->keys.tracked[i].key,
			      self->keys.tracked[i].len);
		EXPECT_TRUE(ret == 0 || ret == -ENOENT);
	}
	for (i = 0; i < self->keys.nbulk; i++) {
		ret = kvb_del(self->fd, key, bulk_key(self->keys.prefix, i, key));
		EXPECT_TRUE(ret == 0 || ret == -ENOENT);
	}
	EXPECT_EQ(0, sysfs_write_u64(KVB_PARAM("max_entries"),
				     self->orig_max_entries));
	EXPECT_EQ(0, sysfs_write_u64(KVB_PARAM("max_bytes"),
				     self->orig_max_bytes));
	EXPECT_EQ(0, sysfs_write_u64(KVB_PARAM("max_value_len"),
				     self->orig_max_value_len));
	EXPECT_EQ(0, sysfs_write_u64(KVB_PARAM("hash_bits"),
				     self->orig_hash_bits));
	if (self->orig_queue_len) {
		ret = sysfs_write_u64(KVB_PARAM("queue_len"), self->orig_queue_len);
		EXPECT_EQ(0, ret);
	}
	EXPECT_EQ(0, sysfs_write_u64(KVB_PARAM("owners"), self->orig_owners));
	/* Also recreates the backend with the restored parameters. */
	EXPECT_EQ(0, switch_backend(self->orig_backend));
	close(self->fd);
	munmap(self->page, self->page_size);
	munmap(self->page + 2 * self->page_size, 2 * self->page_size);
}

/* ------------------------------------------------------ the device node */

TEST_F(kvbench, dev_node)
{
	struct stat st;

	ASSERT_EQ(0, stat(KVB_DEV, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	/* The module asks for 0600; a udev rule may open it to a group. */
	EXPECT_TRUE(st.st_gid != 0 || (st.st_mode & 07777) == 0600)
		TH_LOG("mode %o", st.st_mode & 07777);
	EXPECT_EQ(0U, st.st_mode & 07007);
	EXPECT_EQ(0, access(KVB_ATTR("dev"), R_OK));
}

TEST_F(kvbench, nop)
{
	int i;
	int ret;

	for (i = 0; i < 16; i++) {
		ret = kvb_ioctl(self->fd, KVBENCH_IOC_NOP, NULL);
		ASSERT_EQ(0, ret);
	}
}

TEST_F(kvbench, backend_name)
{
	char buf[64];

	ASSERT_EQ(0, sysfs_read(KVB_ATTR("backend"), buf, sizeof(buf)));
	EXPECT_STREQ(variant->backend, buf);
	ASSERT_EQ(0, sysfs_read(KVB_PARAM("backend"), buf, sizeof(buf)));
	EXPECT_STREQ(variant->backend, buf);
}

/*
 * The backends file lists what backend takes, and only that: one line of
 * names separated by single spaces, none twice, each one a switch to which
 * reads back as itself; a name of KVB_BACKENDS not listed is refused.
 * A fixture of its own, without variants: it switches through them all
 * once, and the teardown puts the original back.
 */
FIXTURE(backends) {
	char orig[64];
};

FIXTURE_SETUP(backends)
{
	if (access(KVB_ATTR("backends"), F_OK))
		SKIP(return, "module not loaded, or one without the backends file");
	ASSERT_EQ(0, sysfs_read(KVB_ATTR("backend"), self->orig, sizeof(self->orig)));
}

FIXTURE_TEARDOWN(backends)
{
	char buf[64];

	if (!self->orig[0])
		return;
	EXPECT_EQ(0, switch_backend(self->orig));
	ASSERT_EQ(0, sysfs_read(KVB_ATTR("backend"), buf, sizeof(buf)));
	EXPECT_STREQ(self->orig, buf);
}

TEST_F(backends, each_listed_name_switches)
{
	bool listed[KVB_NR_BACKENDS] = { false };
	char list[512], buf[64], *name, *save = NULL;
	int n = 0;
	size_t i;

	ASSERT_EQ(0, sysfs_read(KVB_ATTR("backends"), list, sizeof(list)));
	ASSERT_NE('\0', list[0]);
	EXPECT_TRUE(!strchr(list, '\n')) TH_LOG("more than one line: '%s'", list);
	EXPECT_TRUE(!strstr(list, "  ")) TH_LOG("two spaces in '%s'", list);
	EXPECT_NE(' ', list[0]);
	EXPECT_NE(' ', list[strlen(list) - 1]);

	for (name = strtok_r(list, " ", &save); name; name = strtok_r(NULL, " ", &save)) {
		n++;
		for (i = 0; i < KVB_NR_BACKENDS; i++) {
			if (strcmp(name, kvb_backends[i].name))
				continue;
			EXPECT_FALSE(listed[i]) TH_LOG("%s listed twice", name);
			listed[i] = true;
		}
		EXPECT_EQ(0, switch_backend(name)) TH_LOG("%s listed, but no switch to it", name);
		ASSERT_EQ(0, sysfs_read(KVB_ATTR("backend"), buf, sizeof(buf)));
		EXPECT_STREQ(name, buf);
	}
	EXPECT_LT(0, n);
	/* A backend of the tests' list that is not listed is not there. */
	for (i = 0; i < KVB_NR_BACKENDS; i++) {
		if (listed[i])
			continue;
		EXPECT_EQ(-EINVAL, switch_backend(kvb_backends[i].name))
			TH_LOG("backend %zu of the list not listed, but a switch to it works", i);
	}
}

/*
 * The fixtures' variants (KVB_BACKENDS in kvbench_backends.h) are the
 * module's backends, no more and no fewer: a backend the module gained
 * without a line there would run none of the per-backend tests, and one
 * the module lost would only make them skip.
 *
 * GCC (12, -O2) inlines this test into the harness's wrapper and then takes
 * the wrapper's own "child", set before its setjmp() and not written after
 * it, for one that longjmp() may clobber (-Wclobbered): not our variable.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wclobbered"
TEST_F(backends, variants_match_module)
{
	bool listed[KVB_NR_BACKENDS] = { false };
	struct kvb_list l;
	unsigned int i;
	int b;

	ASSERT_EQ(0, kvb_backends_read(&l));
	for (i = 0; i < l.n; i++) {
		b = kvb_backend_index(l.name[i]);
		EXPECT_LE(0, b)
			TH_LOG("%s: no test variant (add it to kvbench_backends.h)",
			       l.name[i]);
		if (b >= 0)
			listed[b] = true;
	}
	for (i = 0; i < KVB_NR_BACKENDS; i++) {
		const char *name = kvb_backends[i].name;

		EXPECT_TRUE(listed[i])
			TH_LOG("variant %s: the module has no such backend", name);
	}
}

#pragma GCC diagnostic pop

/* ---------------------------------------------------------- round trips */

TEST_F(kvbench, set_get_roundtrip)
{
	char key[KVBENCH_KEY_MAX + 1];

	mkkey(&self->keys, key, "k");
	ASSERT_EQ(0, set_str(self->fd, key, "hello, kvbench"));
	EXPECT_EQ(0, get_check_str(self->fd, key, "hello, kvbench"));
	EXPECT_EQ(0, del_str(self->fd, key));
}

TEST_F(kvbench, get_reports_value_len)
{
	char key[KVBENCH_KEY_MAX + 1];
	char buf[256];
	__u32 len = sizeof(buf);

	mkkey(&self->keys, key, "k");
	ASSERT_EQ(0, set_str(self->fd, key, "0123456789"));
	memset(buf, 0, sizeof(buf));
	ASSERT_EQ(0, kvb_get(self->fd, key, strlen(key), buf, &len));
	EXPECT_EQ(10U, len);
	EXPECT_EQ(0, memcmp(buf, "0123456789", 10));
	/* A buffer of exactly the value's length is enough. */
	len = 10;
	EXPECT_EQ(0, kvb_get(self->fd, key, strlen(key), buf, &len));
	EXPECT_EQ(10U, len);
}

TEST_F(kvbench, shared_between_fds)
{
	char key[KVBENCH_KEY_MAX + 1];
	int fd2;

	mkkey(&self->keys, key, "k");
	fd2 = open(KVB_DEV, O_RDWR);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, set_str(self->fd, key, "one map"));
	EXPECT_EQ(0, get_check_str(fd2, key, "one map"));
	EXPECT_EQ(0, del_str(fd2, key));
	EXPECT_EQ(-ENOENT, del_str(self->fd, key));
	close(fd2);
}

TEST_F(kvbench, binary_key_with_nul)
{
	unsigned char k1[KVBENCH_KEY_MAX], k2[KVBENCH_KEY_MAX], k3[KVBENCH_KEY_MAX];
	size_t plen = strlen(self->keys.prefix);
	unsigned char v[4] = { 0, 1, 0, 2 };

	ASSERT_LT(plen + 5, sizeof(k1));
	/* prefix "\0a\0b\xff", prefix "\0a\0c\xff", prefix "\0a" */
	memcpy(k1, self->keys.prefix, plen);
	memcpy(k1 + plen, "\0a\0b\xff", 5);
	memcpy(k2, k1, plen + 5);
	k2[plen + 3] = 'c';
	memcpy(k3, k1, plen + 2);
	track(&self->keys, k1, plen + 5);
	track(&self->keys, k2, plen + 5);
	track(&self->keys, k3, plen + 2);

	ASSERT_EQ(0, kvb_set(self->fd, k1, plen + 5, "first", 5));
	ASSERT_EQ(0, kvb_set(self->fd, k2, plen + 5, "second", 6));
	ASSERT_EQ(0, kvb_set(self->fd, k3, plen + 2, v, sizeof(v)));
	EXPECT_EQ(0, get_check(self->fd, k1, plen + 5, "first", 5));
	EXPECT_EQ(0, get_check(self->fd, k2, plen + 5, "second", 6));
	EXPECT_EQ(0, get_check(self->fd, k3, plen + 2, v, sizeof(v)));
	/* The key as a C string (cut at the first NUL) is a different key. */
	EXPECT_EQ(-ENOENT, get_check(self->fd, k1, plen, "", 0));

	EXPECT_EQ(0, kvb_del(self->fd, k2, plen + 5));
	EXPECT_EQ(0, get_check(self->fd, k1, plen + 5, "first", 5));
	EXPECT_EQ(0, get_check(self->fd, k3, plen + 2, v, sizeof(v)));
	EXPECT_EQ(0, kvb_del(self->fd, k3, plen + 2));
	EXPECT_EQ(0, kvb_del(self->fd, k1, plen + 5));
}

TEST_F(kvbench, all_byte_values_in_key_and_value)
{
	unsigned char key[KVBENCH_KEY_MAX], val[256];
	size_t plen = strlen(self->keys.prefix);
	unsigned int i;

	memcpy(key, self->keys.prefix, plen);
	for (i = 0; i < 256; i++) {
		key[plen + (i % 128)] = i;
		val[i] = 255 - i;
	}
	/* key = prefix + bytes 128..255 (each overwrote 0..127) */
	track(&self->keys, key, plen + 128);
	ASSERT_EQ(0, kvb_set(self->fd, key, plen + 128, val, sizeof(val)));
	EXPECT_EQ(0, get_check(self->fd, key, plen + 128, val, sizeof(val)));
	EXPECT_EQ(0, kvb_del(self->fd, key, plen + 128));
}

TEST_F(kvbench, keys_differ_only_in_length)
{
	char key[KVBENCH_KEY_MAX + 1];
	size_t len;

	mkkey(&self->keys, key, "abcd");
	len = strlen(key);
	track(&self->keys, key, len - 1);
	track(&self->keys, key, len - 2);

	ASSERT_EQ(0, kvb_set(self->fd, key, len, "four", 4));
	ASSERT_EQ(0, kvb_set(self->fd, key, len - 1, "three", 5));
	EXPECT_EQ(-ENOENT, get_check(self->fd, key, len - 2, "", 0));
	ASSERT_EQ(0, kvb_set(self->fd, key, len - 2, "two", 3));
	EXPECT_EQ(0, get_check(self->fd, key, len, "four", 4));
	EXPECT_EQ(0, get_check(self->fd, key, len - 1, "three", 5));
	EXPECT_EQ(0, get_check(self->fd, key, len - 2, "two", 3));
	EXPECT_EQ(0, kvb_del(self->fd, key, len - 1));
	EXPECT_EQ(0, get_check(self->fd, key, len, "four", 4));
	EXPECT_EQ(0, get_check(self->fd, key, len - 2, "two", 3));
	EXPECT_EQ(0, kvb_del(self->fd, key, len));
	EXPECT_EQ(0, kvb_del(self->fd, key, len - 2));
}

TEST_F(kvbench, empty_value)
{
	char key[KVBENCH_KEY_MAX + 1];
	char buf[8] = "xxxxxxx";
	__u32 len;

	mkkey(&self->keys, key, "k");
	ASSERT_EQ(0, kvb_set(self->fd, key, strlen(key), buf, 0));
	/* A zero-sized buffer is enough for an empty value. */
	len = 0;
	EXPECT_EQ(0, kvb_get(self->fd, key, strlen(key), buf, &len));
	EXPECT_EQ(0U, len);
	len = sizeof(buf);
	EXPECT_EQ(0, kvb_get(self->fd, key, strlen(key), buf, &len));
	EXPECT_EQ(0U, len);
	EXPECT_EQ(0, del_str(self->fd, key));
}

TEST_F(kvbench, overwrite_other_length)
{
	char key[KVBENCH_KEY_MAX + 1];
	char big[1000];

	memset(big, 'B', sizeof(big));
	mkkey(&self->keys, key, "k");
	ASSERT_EQ(0, kvb_set(self->fd, key, strlen(key), big, sizeof(big)));
	ASSERT_EQ(0, set_str(self->fd, key, "short"));
	EXPECT_EQ(0, get_check_str(self->fd, key, "short"));
	ASSERT_EQ(0, kvb_set(self->fd, key, strlen(key), big, 0));
	EXPECT_EQ(0, get_check(self->fd, key, strlen(key), big, 0));
	ASSERT_EQ(0, kvb_set(self->fd, key, strlen(key), big, sizeof(big)));
	EXPECT_EQ(0, get_check(self->fd, key, strlen(key), big, sizeof(big)));
	EXPECT_EQ(0, del_str(self->fd, key));
}

TEST_F(kvbench, max_key_len)
{
	unsigned char key[KVBENCH_KEY_MAX + 1];
	size_t plen = strlen(self->keys.prefix);

	memcpy(key, self->keys.prefix, plen);
	memset(key + plen, 'K', sizeof(key) - plen);
	track(&self->keys, key, KVBENCH_KEY_MAX);

	ASSERT_EQ(0, kvb_set(self->fd, key, KVBENCH_KEY_MAX, "max", 3));
	EXPECT_EQ(0, get_check(self->fd, key, KVBENCH_KEY_MAX, "max", 3));
	/* Its 249-byte prefix is another key. */
	EXPECT_EQ(-ENOENT, get_check(self->fd, key, KVBENCH_KEY_MAX - 1, "", 0));
	EXPECT_EQ(-EINVAL, kvb_set(self->fd, key, KVBENCH_KEY_MAX + 1, "x", 1));
	EXPECT_EQ(0, kvb_del(self->fd, key, KVBENCH_KEY_MAX));
}

TEST_F(kvbench, value_max_len)
{
	char key[KVBENCH_KEY_MAX + 1];
	size_t max = self->orig_max_value_len;
	char *val;

	val = malloc(max + 1);
	ASSERT_NE(NULL, val);
	memset(val, 'v', max + 1);
	mkkey(&self->keys, key, "k");
	EXPECT_EQ(0, kvb_set(self->fd, key, strlen(key), val, max));
	EXPECT_EQ(0, get_check(self->fd, key, strlen(key), val, max));
	EXPECT_EQ(-E2BIG, kvb_set(self->fd, key, strlen(key), val, max + 1));
	EXPECT_EQ(0, get_check(self->fd, key, strlen(key), val, max));
	EXPECT_EQ(0, del_str(self->fd, key));
	free(val);
}

TEST_F(kvbench, max_value_len_param)
{
	char key[KVBENCH_KEY_MAX + 1];
	char val[32];

	memset(val, 'v', sizeof(val));
	mkkey(&self->keys, key, "k");
	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("max_value_len"), 16));
	EXPECT_EQ(0, kvb_set(self->fd, key, strlen(key), val, 16));
	EXPECT_EQ(-E2BIG, kvb_set(self->fd, key, strlen(key), val, 17));
	EXPECT_EQ(0, get_check(self->fd, key, strlen(key), val, 16));

	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("max_value_len"), 0));
	EXPECT_EQ(0, kvb_set(self->fd, key, strlen(key), val, 0));
	EXPECT_EQ(-E2BIG, kvb_set(self->fd, key, strlen(key), val, 1));
	EXPECT_EQ(0, get_check(self->fd, key, strlen(key), val, 0));
	EXPECT_EQ(0, del_str(self->fd, key));
}

TEST_F(kvbench, max_value_len_range)
{
	unsigned long long v;
	char key[KVBENCH_KEY_MAX + 1];
	char *val;

	ASSERT_EQ(-EINVAL, sysfs_write_u64(KVB_PARAM("max_value_len"),
					   KVB_VALUE_LEN_LIMIT + 1));
	ASSERT_EQ(0, sysfs_read_u64(KVB_PARAM("max_value_len"), &v));
	EXPECT_EQ(self->orig_max_value_len, v);

	/* 1 MiB is allowed, and such a value makes a round trip. */
	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("max_value_len"),
				     KVB_VALUE_LEN_LIMIT));
	ASSERT_EQ(0, sysfs_read_u64(KVB_PARAM("max_value_len"), &v));
	EXPECT_EQ(KVB_VALUE_LEN_LIMIT, v);
	val = malloc(KVB_VALUE_LEN_LIMIT + 1);
	ASSERT_NE(NULL, val);
	for (v = 0; v <= KVB_VALUE_LEN_LIMIT; v++)
		val[v] = (char)(v * 7 + (v >> 12));
	mkkey(&self->keys, key, "k");
	EXPECT_EQ(0, kvb_set(self->fd, key, strlen(key), val,
			     KVB_VALUE_LEN_LIMIT));
	EXPECT_EQ(0, get_check(self->fd, key, strlen(key), val,
			       KVB_VALUE_LEN_LIMIT));
	EXPECT_EQ(-E2BIG, kvb_set(self->fd, key, strlen(key), val,
				  KVB_VALUE_LEN_LIMIT + 1));
	EXPECT_EQ(0, del_str(self->fd, key));
	free(val);
}

/* One or two buckets: every lookup walks a long chain of other keys. */
TEST_F(kvbench, tiny_hash_table)
{
	unsigned char val[STAMP_MAX];
	char key[KVBENCH_KEY_MAX + 1];
	unsigned int i, klen;
	size_t len;
	int ret;

	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("hash_bits"), 1));
	/* hash_bits applies when a backend is created: recreate it. */
	ASSERT_EQ(0, switch_backend(variant->backend));
	use_bulk(&self->keys, 200);
	for (i = 0; i < 200; i++) {
		klen = bulk_key(self->keys.prefix, i, key);
		len = stamp_encode(val, 1, i, i);
		ASSERT_EQ(0, kvb_set(self->fd, key, klen, val, len));
	}
	for (i = 0; i < 200; i += 2) {
		klen = bulk_key(self->keys.prefix, i, key);
		ASSERT_EQ(0, kvb_del(self->fd, key, klen));
	}
	for (i = 0; i < 200; i++) {
		klen = bulk_key(self->keys.prefix, i, key);
		len = stamp_encode(val, 1, i, i);
		ret = get_check(self->fd, key, klen, val, len);
		EXPECT_EQ(i % 2 ? 0 : -ENOENT, ret) TH_LOG("key %u", i);
	}
}

/* load_factor, as the module prints it: x100, e.g. "2.00" is 200. */
static unsigned long long load_x100(void)
{
	unsigned int whole, frac;
	char buf[32];

	if (sysfs_read(KVB_ATTR("load_factor"), buf, sizeof(buf)) ||
	    sscanf(buf, "%u.%2u", &whole, &frac) != 2)
		return ~0ULL;
	return whole * 100ULL + frac;
}

/*
 * load_factor and longest_chain after known inserts: 64 keys into tables
 * of 16 buckets (hash_bits 4; kthread-percpu: one table per owner), then
 * the same keys moved by a rebuild into tables of 64 (hash_bits 6), then
 * deleted. The load factor is the keys over every table's buckets; the
 * longest chain holds at least the keys over the buckets (pigeonhole) and
 * at most every key, is counted both when a SET adds a key and when a
 * rebuild moves one, and a DEL does not lower it: it stays at least 1
 * once the last DEL has emptied the map, and only a rebuild of the empty
 * map (hash_bits back to 4) brings it back to 0 (Documentation/ABI/testing/
 * sysfs-class-misc-kvbench). rhashtable sizes its own table (under 75%
 * full) and counts no chains.
 */
#define LOAD_KEYS	64

static void check_load(struct __test_metadata *_metadata, bool chains,
		       unsigned long long tables, unsigned int bits,
		       unsigned long long keys, unsigned long long at_least)
{
	unsigned long long buckets = tables << bits, longest;

	ASSERT_EQ(0, sysfs_read_u64(KVB_ATTR("longest_chain"), &longest));
	if (!chains) {
		/* Under 75%, or just over while the table grows. */
		EXPECT_GE(100ULL, load_x100()) TH_LOG("%llu keys", keys);
		EXPECT_EQ(0ULL, longest);
		return;
	}
	EXPECT_EQ(keys * 100 / buckets, load_x100())
		TH_LOG("%llu keys, %llu buckets", keys, buckets);
	EXPECT_LE(at_least, longest);
	EXPECT_GE(LOAD_KEYS + 0ULL, longest);
}

TEST_F(kvbench, load_factor)
{
	bool chains = strcmp(variant->backend, "rhashtable");
	unsigned long long e0, owners, tables, longest, after;
	char key[KVBENCH_KEY_MAX + 1];
	unsigned int i, klen;

	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("hash_bits"), 4));
	ASSERT_EQ(0, switch_backend(variant->backend));
	ASSERT_EQ(0, sysfs_read_u64(KVB_ATTR("entries"), &e0));
	ASSERT_EQ(0, sysfs_read_u64(KVB_ATTR("owners"), &owners));
	tables = strcmp(variant->backend, "kthread-percpu") ? 1 : owners;
	use_bulk(&self->keys, LOAD_KEYS);
	for (i = 0; i < LOAD_KEYS; i++) {
		klen = bulk_key(self->keys.prefix, i, key);
		ASSERT_EQ(0, kvb_set(self->fd, key, klen, "v", 1));
	}
	check_load(_metadata, chains, tables, 4, e0 + LOAD_KEYS,
		   (LOAD_KEYS + (tables << 4) - 1) / (tables << 4));

	/* A rebuild moves every key: the new tables count their chains. */
	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("hash_bits"), 6));
	ASSERT_EQ(0, switch_backend(variant->backend));
	check_load(_metadata, chains, tables, 6, e0 + LOAD_KEYS, 1);

	ASSERT_EQ(0, sysfs_read_u64(KVB_ATTR("longest_chain"), &longest));
	for (i = 0; i < LOAD_KEYS; i++) {
		klen = bulk_key(self->keys.prefix, i, key);
		ASSERT_EQ(0, kvb_del(self->fd, key, klen));
	}
	ASSERT_EQ(0, sysfs_read_u64(KVB_ATTR("longest_chain"), &after));
	EXPECT_EQ(longest, after);
	if (chains) {
		EXPECT_LE(1ULL, after);
		EXPECT_EQ(e0 * 100 / (tables << 6), load_x100());
	}

	/*
	 * A rebuild (a parameter changed) counts the chains of what is left:
	 * none, when empty.
	 */
	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("hash_bits"), 4));
	ASSERT_EQ(0, switch_backend(variant->backend));
	ASSERT_EQ(0, sysfs_read_u64(KVB_ATTR("longest_chain"), &after));
	EXPECT_EQ(chains && e0, after != 0)
		TH_LOG("%llu entries, longest chain %llu", e0, after);
	if (!e0)
		EXPECT_EQ(0ULL, load_x100());
}

TEST_F(kvbench, del_then_get_enoent)
{
	char key[KVBENCH_KEY_MAX + 1];

	mkkey(&self->keys, key, "k");
	ASSERT_EQ(0, set_str(self->fd, key, "soon gone"));
	ASSERT_EQ(0, del_str(self->fd, key));
	EXPECT_EQ(-ENOENT, get_check_str(self->fd, key, ""));
	EXPECT_EQ(-ENOENT, del_str(self->fd, key));
	/* And it can come back. */
	ASSERT_EQ(0, set_str(self->fd, key, "back"));
	EXPECT_EQ(0, get_check_str(self->fd, key, "back"));
	EXPECT_EQ(0, del_str(self->fd, key));
}

/* ------------------------------------------------- one test per errno */

TEST_F(kvbench, get_missing_enoent)
{
	char key[KVBENCH_KEY_MAX + 1];
	char buf[16];
	__u32 len = sizeof(buf);

	mkkey(&self->keys, key, "never-set");
	EXPECT_EQ(-ENOENT, kvb_get(self->fd, key, strlen(key), buf, &len));
}

TEST_F(kvbench, del_missing_enoent)
{
	char key[KVBENCH_KEY_MAX + 1];

	mkkey(&self->keys, key, "never-set");
	EXPECT_EQ(-ENOENT, del_str(self->fd, key));
}

TEST_F(kvbench, get_small_buffer_erange)
{
	char key[KVBENCH_KEY_MAX + 1];
	char buf[64];
	__u32 len;

	mkkey(&self->keys, key, "k");
	ASSERT_EQ(0, set_str(self->fd, key, "0123456789"));
	len = 9;
	EXPECT_EQ(-ERANGE, kvb_get(self->fd, key, strlen(key), buf, &len));
	EXPECT_EQ(10U, len);
	len = 0;
	EXPECT_EQ(-ERANGE, kvb_get(self->fd, key, strlen(key), buf, &len));
	EXPECT_EQ(10U, len);
	/* Retrying with the reported length works. */
	EXPECT_EQ(0, kvb_get(self->fd, key, strlen(key), buf, &len));
	EXPECT_EQ(10U, len);
	EXPECT_EQ(0, del_str(self->fd, key));
}

/* Issue @cmd with @kv after @mutate, expect @err, and nothing stored. */
#define EXPECT_KV_ERR(cmd, err, mutate) do {				\
	struct kvbench_kv kv;						\
	kv_init(&kv, key, strlen(key), buf, sizeof(buf));		\
	mutate;								\
	EXPECT_EQ(-(err), kvb_ioctl(self->fd, (cmd), &kv));		\
} while (0)

TEST_F(kvbench, get_key_len_zero_einval)
{
	char key[KVBENCH_KEY_MAX + 1];
	char buf[16];

	mkkey(&self->keys, key, "k");
	ASSERT_EQ(0, set_str(self->fd, key, "v"));
	EXPECT_KV_ERR(KVBENCH_IOC_GET, EINVAL, kv.key_len = 0);
}

TEST_F(kvbench, set_key_len_zero_einval)
{
	char key[KVBENCH_KEY_MAX + 1];
	char buf[16] = "value";

	mkkey(&self->keys, key, "k");
	EXPECT_KV_ERR(KVBENCH_IOC_SET, EINVAL, kv.key_len = 0);
	EXPECT_EQ(-ENOENT, get_check_str(self->fd, key, ""));
}

TEST_F(kvbench, del_key_len_zero_einval)
{
	char key[KVBENCH_KEY_MAX + 1];
	char buf[16];

	mkkey(&self->keys, key, "k");
	ASSERT_EQ(0, set_str(self->fd, key, "v"));
	EXPECT_KV_ERR(KVBENCH_IOC_DEL, EINVAL, kv.key_len = 0);
	EXPECT_EQ(0, get_check_str(self->fd, key, "v"));
}

TEST_F(kvbench, get_key_too_long_einval)
{
	char key[KVBENCH_KEY_MAX + 8];
	char buf[16];

	memset(key, 0, sizeof(key));
	mkkey(&self->keys, key, "k");
	EXPECT_KV_ERR(KVBENCH_IOC_GET, EINVAL, kv.key_len = KVBENCH_KEY_MAX + 1);
	EXPECT_KV_ERR(KVBENCH_IOC_GET, EINVAL, kv.key_len = 0xffffffff);
}

TEST_F(kvbench, set_key_too_long_einval)
{
	char key[KVBENCH_KEY_MAX + 8];
	char buf[16] = "value";

	memset(key, 0, sizeof(key));
	mkkey(&self->keys, key, "k");
	EXPECT_KV_ERR(KVBENCH_IOC_SET, EINVAL, kv.key_len = KVBENCH_KEY_MAX + 1);
	EXPECT_KV_ERR(KVBENCH_IOC_SET, EINVAL, kv.key_len = 0xffffffff);
}

TEST_F(kvbench, del_key_too_long_einval)
{
	char key[KVBENCH_KEY_MAX + 8];
	char buf[16];

	memset(key, 0, sizeof(key));
	mkkey(&self->keys, key, "k");
	EXPECT_KV_ERR(KVBENCH_IOC_DEL, EINVAL, kv.key_len = KVBENCH_KEY_MAX + 1);
	EXPECT_KV_ERR(KVBENCH_IOC_DEL, EINVAL, kv.key_len = 0xffffffff);
}

TEST_F(kvbench, get_flags_einval)
{
	char key[KVBENCH_KEY_MAX + 1];
	char buf[16];

	mkkey(&self->keys, key, "k");
	ASSERT_EQ(0, set_str(self->fd, key, "v"));
	EXPECT_KV_ERR(KVBENCH_IOC_GET, EINVAL, kv.flags = 1);
	EXPECT_KV_ERR(KVBENCH_IOC_GET, EINVAL, kv.flags = 1U << 31);
}

TEST_F(kvbench, set_flags_einval)
{
	char key[KVBENCH_KEY_MAX + 1];
	char buf[16] = "new";

	mkkey(&self->keys, key, "k");
	EXPECT_KV_ERR(KVBENCH_IOC_SET, EINVAL, kv.flags = 1);
	EXPECT_KV_ERR(KVBENCH_IOC_SET, EINVAL, kv.flags = 1U << 31);
	EXPECT_EQ(-ENOENT, get_check_str(self->fd, key, ""));
	/* Nor does a rejected overwrite change the value. */
	ASSERT_EQ(0, set_str(self->fd, key, "old"));
	EXPECT_KV_ERR(KVBENCH_IOC_SET, EINVAL, kv.flags = 2);
	EXPECT_EQ(0, get_check_str(self->fd, key, "old"));
}

TEST_F(kvbench, del_flags_einval)
{
	char key[KVBENCH_KEY_MAX + 1];
	char buf[16];

	mkkey(&self->keys, key, "k");
	ASSERT_EQ(0, set_str(self->fd, key, "v"));
	EXPECT_KV_ERR(KVBENCH_IOC_DEL, EINVAL, kv.flags = 1);
	EXPECT_KV_ERR(KVBENCH_IOC_DEL, EINVAL, kv.flags = 1U << 31);
	EXPECT_EQ(0, get_check_str(self->fd, key, "v"));
}

TEST_F(kvbench, get_reserved_einval)
{
	char key[KVBENCH_KEY_MAX + 1];
	char buf[16];

	mkkey(&self->keys, key, "k");
	ASSERT_EQ(0, set_str(self->fd, key, "v"));
	EXPECT_KV_ERR(KVBENCH_IOC_GET, EINVAL, kv.reserved = 1);
	EXPECT_KV_ERR(KVBENCH_IOC_GET, EINVAL, kv.reserved = 1U << 31);
}

TEST_F(kvbench, set_reserved_einval)
{
	char key[KVBENCH_KEY_MAX + 1];
	char buf[16] = "new";

	mkkey(&self->keys, key, "k");
	EXPECT_KV_ERR(KVBENCH_IOC_SET, EINVAL, kv.reserved = 1);
	EXPECT_KV_ERR(KVBENCH_IOC_SET, EINVAL, kv.reserved = 1U << 31);
	EXPECT_EQ(-ENOENT, get_check_str(self->fd, key, ""));
}

TEST_F(kvbench, del_reserved_einval)
{
	char key[KVBENCH_KEY_MAX + 1];
	char buf[16];

	mkkey(&self->keys, key, "k");
	ASSERT_EQ(0, set_str(self->fd, key, "v"));
	EXPECT_KV_ERR(KVBENCH_IOC_DEL, EINVAL, kv.reserved = 1);
	EXPECT_KV_ERR(KVBENCH_IOC_DEL, EINVAL, kv.reserved = 1U << 31);
	EXPECT_EQ(0, get_check_str(self->fd, key, "v"));
}

TEST_F(kvbench, set_value_too_long_e2big)
{
	char key[KVBENCH_KEY_MAX + 1];
	size_t max = self->orig_max_value_len;
	char *val;

	val = calloc(1, max + 2);
	ASSERT_NE(NULL, val);
	mkkey(&self->keys, key, "k");
	EXPECT_EQ(-E2BIG, kvb_set(self->fd, key, strlen(key), val, max + 1));
	EXPECT_EQ(-ENOENT, get_check_str(self->fd, key, ""));
	EXPECT_EQ(-E2BIG, kvb_set(self->fd, key, strlen(key), val, 0xffffffff));
	free(val);
}

TEST_F(kvbench, get_bad_key_efault)
{
	char buf[16];
	__u32 len;
	int i;

	for (i = 0; i < NR_BAD_PTRS; i++) {
		len = sizeof(buf);
		EXPECT_EQ(-EFAULT, kvb_get(self->fd, (void *)(unsigned long)self->bad[i],
					   8, buf, &len))
			TH_LOG("key pointer %s", bad_ptr_names[i]);
	}
}

TEST_F(kvbench, set_bad_key_efault)
{
	struct kvb_stats before, after;
	int i;
	int ret;

	ASSERT_EQ(0, stats_read(&before));
	for (i = 0; i < NR_BAD_PTRS; i++) {
		ret = kvb_set(self->fd, (void *)(unsigned long)self->bad[i], 8, "v", 1);
		EXPECT_EQ(-EFAULT, ret) TH_LOG("key pointer %s", bad_ptr_names[i]);
	}
	ASSERT_EQ(0, stats_read(&after));
	EXPECT_EQ(before.v[ST_ENTRIES], after.v[ST_ENTRIES]);
}

TEST_F(kvbench, del_bad_key_efault)
{
	int i;
	int ret;

	for (i = 0; i < NR_BAD_PTRS; i++) {
		ret = kvb_del(self->fd, (void *)(unsigned long)self->bad[i], 8);
		EXPECT_EQ(-EFAULT, ret) TH_LOG("key pointer %s", bad_ptr_names[i]);
	}
}

TEST_F(kvbench, set_bad_value_efault)
{
	struct kvb_stats before, after;
	char key[KVBENCH_KEY_MAX + 1];
	int i;

	mkkey(&self->keys, key, "k");
	ASSERT_EQ(0, stats_read(&before));
	for (i = 0; i < NR_BAD_PTRS; i++) {
		EXPECT_EQ(-EFAULT, kvb_set(self->fd, key, strlen(key),
					   (void *)(unsigned long)self->bad[i], 8))
			TH_LOG("value pointer %s", bad_ptr_names[i]);
		EXPECT_EQ(-ENOENT, get_check_str(self->fd, key, ""));
	}
	ASSERT_EQ(0, stats_read(&after));
	EXPECT_EQ(before.v[ST_ENTRIES], after.v[ST_ENTRIES]);
	EXPECT_EQ(before.v[ST_BYTES], after.v[ST_BYTES]);
}

TEST_F(kvbench, set_bad_value_keeps_old)
{
	struct kvb_stats before, after;
	char key[KVBENCH_KEY_MAX + 1];
	int i;

	mkkey(&self->keys, key, "k");
	ASSERT_EQ(0, set_str(self->fd, key, "old value"));
	ASSERT_EQ(0, stats_read(&before));
	for (i = 0; i < NR_BAD_PTRS; i++) {
		EXPECT_EQ(-EFAULT, kvb_set(self->fd, key, strlen(key),
					   (void *)(unsigned long)self->bad[i], 3))
			TH_LOG("value pointer %s", bad_ptr_names[i]);
		EXPECT_EQ(0, get_check_str(self->fd, key, "old value"));
	}
	ASSERT_EQ(0, stats_read(&after));
	EXPECT_EQ(before.v[ST_ENTRIES], after.v[ST_ENTRIES]);
	EXPECT_EQ(before.v[ST_BYTES], after.v[ST_BYTES]);
	EXPECT_EQ(0, del_str(self->fd, key));
}

/* Buffers that run off the end of the readable page into the hole. */
TEST_F(kvbench, straddling_hole_efault)
{
	unsigned char *edge = self->page + self->page_size;
	char key[KVBENCH_KEY_MAX + 1];

	mkkey(&self->keys, key, "k");
	ASSERT_EQ(0, set_str(self->fd, key, "old value"));

	/* A key whose last byte is unmapped. */
	memset(edge - 16, 'e', 16);
	EXPECT_EQ(-EFAULT, kvb_set(self->fd, edge - 16, 17, "v", 1));
	EXPECT_EQ(-EFAULT, kvb_del(self->fd, edge - 16, 17));

	/* A value whose last byte is unmapped: the old value stays. */
	EXPECT_EQ(-EFAULT, kvb_set(self->fd, key, strlen(key), edge - 100, 101));
	EXPECT_EQ(0, get_check_str(self->fd, key, "old value"));
	EXPECT_EQ(0, del_str(self->fd, key));
}

TEST_F(kvbench, get_bad_buffer_efault)
{
	char key[KVBENCH_KEY_MAX + 1];
	__u32 len;
	int i;

	mkkey(&self->keys, key, "k");
	ASSERT_EQ(0, set_str(self->fd, key, "a value"));
	for (i = 0; i < NR_BAD_PTRS + 1; i++) {
		len = 16;
		EXPECT_EQ(-EFAULT, kvb_get(self->fd, key, strlen(key),
					   (void *)(unsigned long)self->bad[i], &len))
			TH_LOG("buffer %s", bad_ptr_names[i]);
	}
	EXPECT_EQ(0, get_check_str(self->fd, key, "a value"));
	EXPECT_EQ(0, del_str(self->fd, key));
}

TEST_F(kvbench, bad_arg_efault)
{
	int i;

	for (i = 0; i < NR_BAD_PTRS; i++) {
		void *arg = (void *)(unsigned long)self->bad[i];

		EXPECT_EQ(-EFAULT, kvb_ioctl(self->fd, KVBENCH_IOC_GET, arg))
			TH_LOG("GET arg %s", bad_ptr_names[i]);
		EXPECT_EQ(-EFAULT, kvb_ioctl(self->fd, KVBENCH_IOC_SET, arg))
			TH_LOG("SET arg %s", bad_ptr_names[i]);
		EXPECT_EQ(-EFAULT, kvb_ioctl(self->fd, KVBENCH_IOC_DEL, arg))
			TH_LOG("DEL arg %s", bad_ptr_names[i]);
	}
}

/* Checks come in the documented order: EINVAL, E2BIG, EFAULT, then the op. */
TEST_F(kvbench, error_order)
{
	char key[KVBENCH_KEY_MAX + 1];
	size_t max = self->orig_max_value_len;
	char buf[16];
	__u32 len;

	mkkey(&self->keys, key, "missing");
	/* flags before key_len before E2BIG before EFAULT */
	EXPECT_KV_ERR(KVBENCH_IOC_SET, EINVAL,
		      kv.flags = 1; kv.key_len = 0; kv.value_len = max + 1; kv.key = 0);
	EXPECT_KV_ERR(KVBENCH_IOC_SET, EINVAL,
		      kv.key_len = KVBENCH_KEY_MAX + 1; kv.value_len = max + 1;
		      kv.key = 0);
	EXPECT_KV_ERR(KVBENCH_IOC_SET, E2BIG,
		      kv.value_len = max + 1; kv.key = 0; kv.value = 0);
	EXPECT_KV_ERR(KVBENCH_IOC_GET, EINVAL, kv.reserved = 1; kv.key = 0);
	EXPECT_KV_ERR(KVBENCH_IOC_DEL, EINVAL, kv.key_len = 0; kv.key = 0);
	/* EFAULT before ENOENT */
	EXPECT_KV_ERR(KVBENCH_IOC_GET, EFAULT, kv.key = KVB_KERNEL_PTR);
	EXPECT_KV_ERR(KVBENCH_IOC_DEL, EFAULT, kv.key = KVB_KERNEL_PTR);
	/* and the key itself is fine */
	len = sizeof(buf);
	EXPECT_EQ(-ENOENT, kvb_get(self->fd, key, strlen(key), buf, &len));
}

/*
 * Each of n commands the device does not know is refused with ENOTTY
 * (-ENOIOCTLCMD, as the VFS says it), whatever its argument: zeroes here.
 */
static void expect_enotty(struct __test_metadata *_metadata, int fd,
			  const unsigned long *cmds, unsigned int n)
{
	struct kvbench_op arg[4];
	unsigned int i;

	memset(arg, 0, sizeof(arg));
	for (i = 0; i < n; i++)
		EXPECT_EQ(-ENOTTY, kvb_ioctl(fd, cmds[i], arg)) TH_LOG("cmd %#lx", cmds[i]);
}

TEST_F(kvbench, unknown_cmd_enotty)
{
	unsigned long cmds[] = {
		_IO(KVBENCH_IOC_MAGIC, 0x05),
		_IOWR(KVBENCH_IOC_MAGIC, 0x05, struct kvbench_kv),
		_IO(KVBENCH_IOC_MAGIC, 0xff),
		_IOWR(KVBENCH_IOC_MAGIC + 1, 0x01, struct kvbench_kv),
		_IOW(KVBENCH_IOC_MAGIC - 1, 0x02, struct kvbench_kv),
		_IOR(KVBENCH_IOC_MAGIC, 0x01, struct kvbench_kv),	/* GET is _IOWR */
		_IOWR(KVBENCH_IOC_MAGIC, 0x02, struct kvbench_kv),	/* SET is _IOW */
		_IOR(KVBENCH_IOC_MAGIC, 0x03, struct kvbench_kv),	/* DEL is _IOW */
		_IOW(KVBENCH_IOC_MAGIC, 0x04, struct kvbench_batch),	/* BATCH is _IOWR */
		0,
	};

	expect_enotty(_metadata, self->fd, cmds, ARRAY_SIZE(cmds));
}

TEST_F(kvbench, wrong_size_enotty)
{
	unsigned long cmds[] = {
		_IOWR(KVBENCH_IOC_MAGIC, 0x01, struct kvbench_op),
		_IOWR(KVBENCH_IOC_MAGIC, 0x01, __u64),
		_IOW(KVBENCH_IOC_MAGIC, 0x02, struct kvbench_op),
		_IOW(KVBENCH_IOC_MAGIC, 0x02, __u32),
		_IOW(KVBENCH_IOC_MAGIC, 0x03, struct kvbench_batch),
		_IOWR(KVBENCH_IOC_MAGIC, 0x04, struct kvbench_kv),
		_IOW(KVBENCH_IOC_MAGIC, 0x00, int),			/* NOP has no argument */
	};

	expect_enotty(_metadata, self->fd, cmds, ARRAY_SIZE(cmds));
}

/* --------------------------------------------------------------- limits */

TEST_F(kvbench, bytes_accounting)
{
	char key[KVBENCH_KEY_MAX + 1];
	struct kvb_stats s0, s1;
	size_t klen;
	char val[100];

	memset(val, 'v', sizeof(val));
	mkkey(&self->keys, key, "k");
	klen = strlen(key);
	ASSERT_EQ(0, stats_read(&s0));
	ASSERT_EQ(0, kvb_set(self->fd, key, klen, val, 40));
	ASSERT_EQ(0, stats_read(&s1));
	EXPECT_EQ(s0.v[ST_ENTRIES] + 1, s1.v[ST_ENTRIES]);
	EXPECT_EQ(s0.v[ST_BYTES] + klen + 40 + KVB_ENTRY_OVERHEAD, s1.v[ST_BYTES]);

	ASSERT_EQ(0, kvb_set(self->fd, key, klen, val, 100));
	ASSERT_EQ(0, stats_read(&s1));
	EXPECT_EQ(s0.v[ST_ENTRIES] + 1, s1.v[ST_ENTRIES]);
	EXPECT_EQ(s0.v[ST_BYTES] + klen + 100 + KVB_ENTRY_OVERHEAD, s1.v[ST_BYTES]);

	ASSERT_EQ(0, kvb_set(self->fd, key, klen, val, 0));
	ASSERT_EQ(0, stats_read(&s1));
	EXPECT_EQ(s0.v[ST_BYTES] + klen + KVB_ENTRY_OVERHEAD, s1.v[ST_BYTES]);

	ASSERT_EQ(0, kvb_del(self->fd, key, klen));
	ASSERT_EQ(0, stats_read(&s1));
	EXPECT_EQ(s0.v[ST_ENTRIES], s1.v[ST_ENTRIES]);
	EXPECT_EQ(s0.v[ST_BYTES], s1.v[ST_BYTES]);
}

TEST_F(kvbench, max_entries_enospc)
{
	char a[KVBENCH_KEY_MAX + 1], b[KVBENCH_KEY_MAX + 1], c[KVBENCH_KEY_MAX + 1];
	struct kvb_stats st;

	mkkey(&self->keys, a, "a");
	mkkey(&self->keys, b, "b");
	mkkey(&self->keys, c, "c");
	ASSERT_EQ(0, stats_read(&st));
	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("max_entries"), st.v[ST_ENTRIES] + 2));

	ASSERT_EQ(0, set_str(self->fd, a, "1"));
	ASSERT_EQ(0, set_str(self->fd, b, "2"));
	EXPECT_EQ(-ENOSPC, set_str(self->fd, c, "3"));
	EXPECT_EQ(-ENOSPC, set_str(self->fd, c, ""));
	EXPECT_EQ(-ENOENT, get_check_str(self->fd, c, ""));
	/* Overwriting at the limit still works, whatever the length. */
	EXPECT_EQ(0, set_str(self->fd, a, "one, longer"));
	EXPECT_EQ(0, get_check_str(self->fd, a, "one, longer"));
	/* Room again after a DEL. */
	EXPECT_EQ(0, del_str(self->fd, b));
	EXPECT_EQ(0, set_str(self->fd, c, "3"));
	EXPECT_EQ(0, get_check_str(self->fd, c, "3"));
	EXPECT_EQ(-ENOSPC, set_str(self->fd, b, "2"));
	EXPECT_EQ(0, del_str(self->fd, a));
	EXPECT_EQ(0, del_str(self->fd, c));
}

TEST_F(kvbench, max_entries_lowered_keeps_entries)
{
	char key[KVBENCH_KEY_MAX + 1];
	char val[32];
	struct kvb_stats s0, s1;
	unsigned int i;

	use_bulk(&self->keys, 4);
	for (i = 0; i < 3; i++) {
		snprintf(val, sizeof(val), "v%u", i);
		ASSERT_EQ(0, set_str(self->fd, (bulk_key(self->keys.prefix, i, key), key), val));
	}
	ASSERT_EQ(0, stats_read(&s0));
	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("max_entries"), 1));
	/* Nothing evicted. */
	for (i = 0; i < 3; i++) {
		snprintf(val, sizeof(val), "v%u", i);
		bulk_key(self->keys.prefix, i, key);
		EXPECT_EQ(0, get_check_str(self->fd, key, val));
	}
	bulk_key(self->keys.prefix, 3, key);
	EXPECT_EQ(-ENOSPC, set_str(self->fd, key, "new"));
	bulk_key(self->keys.prefix, 1, key);
	EXPECT_EQ(0, set_str(self->fd, key, "overwritten"));
	EXPECT_EQ(0, get_check_str(self->fd, key, "overwritten"));
	ASSERT_EQ(0, stats_read(&s1));
	EXPECT_EQ(s0.v[ST_ENTRIES], s1.v[ST_ENTRIES]);
}

TEST_F(kvbench, max_bytes_enospc)
{
	char k[4][KVBENCH_KEY_MAX + 1];
	char val[32];
	struct kvb_stats st;
	unsigned long long e;
	unsigned int i, klen = 0;

	memset(val, 'v', sizeof(val));
	use_bulk(&self->keys, 4);
	for (i = 0; i < 4; i++)
		klen = bulk_key(self->keys.prefix, i, k[i]);
	e = klen + 10 + KVB_ENTRY_OVERHEAD;
	ASSERT_EQ(0, stats_read(&st));
	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("max_bytes"), st.v[ST_BYTES] + 2 * e));

	/* Filling up to the limit exactly is allowed. */
	ASSERT_EQ(0, kvb_set(self->fd, k[0], klen, val, 10));
	ASSERT_EQ(0, kvb_set(self->fd, k[1], klen, val, 10));
	EXPECT_EQ(-ENOSPC, kvb_set(self->fd, k[2], klen, val, 0));
	EXPECT_EQ(-ENOENT, get_check(self->fd, k[2], klen, val, 0));
	/* An overwrite that does not grow fits; one that grows does not. */
	EXPECT_EQ(0, kvb_set(self->fd, k[0], klen, "0123456789", 10));
	EXPECT_EQ(-ENOSPC, kvb_set(self->fd, k[0], klen, val, 11));
	EXPECT_EQ(0, get_check(self->fd, k[0], klen, "0123456789", 10));
	EXPECT_EQ(0, kvb_set(self->fd, k[0], klen, val, 5));
	EXPECT_EQ(0, kvb_set(self->fd, k[0], klen, val, 10));
	/* Room after a DEL. */
	EXPECT_EQ(0, kvb_del(self->fd, k[1], klen));
	EXPECT_EQ(0, kvb_set(self->fd, k[2], klen, val, 10));
	EXPECT_EQ(0, get_check(self->fd, k[2], klen, val, 10));
	EXPECT_EQ(-ENOSPC, kvb_set(self->fd, k[3], klen, val, 1));
}

TEST_F(kvbench, max_bytes_lowered_keeps_entries)
{
	char key[KVBENCH_KEY_MAX + 1];
	char val[64];
	struct kvb_stats s0, s1;
	unsigned int i, klen = 0;

	memset(val, 'v', sizeof(val));
	use_bulk(&self->keys, 4);
	for (i = 0; i < 3; i++) {
		klen = bulk_key(self->keys.prefix, i, key);
		ASSERT_EQ(0, kvb_set(self->fd, key, klen, val, 20 + i));
	}
	ASSERT_EQ(0, stats_read(&s0));
	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("max_bytes"), 1));
	for (i = 0; i < 3; i++) {
		bulk_key(self->keys.prefix, i, key);
		EXPECT_EQ(0, get_check(self->fd, key, klen, val, 20 + i));
	}
	bulk_key(self->keys.prefix, 3, key);
	EXPECT_EQ(-ENOSPC, kvb_set(self->fd, key, klen, val, 0));
	bulk_key(self->keys.prefix, 2, key);
	EXPECT_EQ(0, kvb_set(self->fd, key, klen, "same size, new bytes", 22));
	EXPECT_EQ(-ENOSPC, kvb_set(self->fd, key, klen, val, 23));
	EXPECT_EQ(0, kvb_set(self->fd, key, klen, val, 1));
	EXPECT_EQ(0, get_check(self->fd, key, klen, val, 1));
	ASSERT_EQ(0, stats_read(&s1));
	EXPECT_EQ(s0.v[ST_ENTRIES], s1.v[ST_ENTRIES]);
	EXPECT_EQ(s0.v[ST_BYTES] - 21, s1.v[ST_BYTES]);
}

/* ---------------------------------------------------------------- stats */

TEST_F(kvbench, stats_files)
{
	char path[128], buf[64];
	unsigned int i, j;
	int fd;

	for (i = 0; i < ST_NR; i++) {
		snprintf(path, sizeof(path), KVB_ATTR("%s"), stat_names[i]);
		fd = open(path, O_RDONLY);
		ASSERT_LE(0, fd) TH_LOG("%s", path);
		memset(buf, 0, sizeof(buf));
		ASSERT_LT(1, read(fd, buf, sizeof(buf) - 1)) TH_LOG("%s", path);
		close(fd);
		/* One decimal number, one newline. */
		for (j = 0; buf[j] >= '0' && buf[j] <= '9'; j++)
			;
		EXPECT_LT(0U, j) TH_LOG("%s: '%s'", path, buf);
		EXPECT_STREQ("\n", buf + j) TH_LOG("%s", path);
		/* Read-only. */
		EXPECT_NE(0, sysfs_write(path, "0")) TH_LOG("%s", path);
	}
}

static void expect_deltas(struct __test_metadata *_metadata,
			  const struct kvb_stats *a, const struct kvb_stats *b,
			  const long long *delta)
{
	int i;

	for (i = ST_GETS; i < ST_NR; i++) {
		long long seen = b->v[i] - a->v[i];

		EXPECT_EQ(delta[i], seen) TH_LOG("counter %s", stat_names[i]);
	}
}

TEST_F(kvbench, stats_get_set_del)
{
	char key[KVBENCH_KEY_MAX + 1], miss[KVBENCH_KEY_MAX + 1];
	struct kvb_stats s0, s1;
	long long delta[ST_NR] = { 0 };

	mkkey(&self->keys, key, "k");
	mkkey(&self->keys, miss, "missing");
	ASSERT_EQ(0, stats_read(&s0));
	ASSERT_EQ(0, set_str(self->fd, key, "v1"));
	ASSERT_EQ(0, set_str(self->fd, key, "v22"));
	ASSERT_EQ(0, get_check_str(self->fd, key, "v22"));
	ASSERT_EQ(0, get_check_str(self->fd, key, "v22"));
	ASSERT_EQ(0, get_check_str(self->fd, key, "v22"));
	ASSERT_EQ(-ENOENT, get_check_str(self->fd, miss, ""));
	ASSERT_EQ(-ENOENT, get_check_str(self->fd, miss, ""));
	ASSERT_EQ(0, del_str(self->fd, key));
	ASSERT_EQ(0, kvb_ioctl(self->fd, KVBENCH_IOC_NOP, NULL));
	ASSERT_EQ(0, stats_read(&s1));

	delta[ST_SETS] = 2;
	delta[ST_GETS] = 5;
	delta[ST_HITS] = 3;
	delta[ST_MISSES] = 2;
	delta[ST_DELS] = 1;
	expect_deltas(_metadata, &s0, &s1, delta);
	EXPECT_EQ(s0.v[ST_ENTRIES], s1.v[ST_ENTRIES]);
	EXPECT_EQ(s0.v[ST_BYTES], s1.v[ST_BYTES]);
}

TEST_F(kvbench, stats_batch)
{
	char key[KVBENCH_KEY_MAX + 1], miss[KVBENCH_KEY_MAX + 1];
	struct kvbench_op ops[5];
	struct kvb_stats s0, s1;
	long long delta[ST_NR] = { 0 };
	char buf[16];

	mkkey(&self->keys, key, "k");
	mkkey(&self->keys, miss, "missing");
	op_init(&ops[0], KVBENCH_OP_SET, key, strlen(key), "v", 1);
	op_init(&ops[1], KVBENCH_OP_GET, key, strlen(key), buf, sizeof(buf));
	op_init(&ops[2], KVBENCH_OP_GET, miss, strlen(miss), buf, sizeof(buf));
	op_init(&ops[3], KVBENCH_OP_DEL, key, strlen(key), NULL, 0);
	op_init(&ops[4], KVBENCH_OP_GET, key, strlen(key), buf, sizeof(buf));

	ASSERT_EQ(0, stats_read(&s0));
	ASSERT_EQ(0, kvb_batch(self->fd, ops, 5, 0));
	ASSERT_EQ(0, kvb_batch(self->fd, ops + 2, 1, 0));
	ASSERT_EQ(0, stats_read(&s1));
	EXPECT_EQ(0, ops[0].result);
	EXPECT_EQ(0, ops[1].result);
	EXPECT_EQ(-ENOENT, ops[2].result);
	EXPECT_EQ(0, ops[3].result);
	EXPECT_EQ(-ENOENT, ops[4].result);

	delta[ST_BATCHES] = 2;
	delta[ST_SETS] = 1;
	delta[ST_GETS] = 4;
	delta[ST_HITS] = 1;
	delta[ST_MISSES] = 3;
	delta[ST_DELS] = 1;
	expect_deltas(_metadata, &s0, &s1, delta);
}

TEST_F(kvbench, stats_reset)
{
	char key[KVBENCH_KEY_MAX + 1];
	struct kvb_stats s0, s1;
	int i;

	mkkey(&self->keys, key, "k");
	ASSERT_EQ(0, set_str(self->fd, key, "survives reset"));
	ASSERT_EQ(0, get_check_str(self->fd, key, "survives reset"));
	ASSERT_EQ(0, stats_read(&s0));
	EXPECT_LT(0ULL, s0.v[ST_SETS]);
	EXPECT_LT(0ULL, s0.v[ST_GETS]);

	ASSERT_EQ(0, sysfs_write(KVB_ATTR("reset"), "1"));
	ASSERT_EQ(0, stats_read(&s1));
	for (i = ST_GETS; i < ST_NR; i++) {
		unsigned long long seen = s1.v[i];

		EXPECT_EQ(0ULL, seen) TH_LOG("counter %s", stat_names[i]);
	}
	/* The map is untouched. */
	EXPECT_EQ(s0.v[ST_ENTRIES], s1.v[ST_ENTRIES]);
	EXPECT_EQ(s0.v[ST_BYTES], s1.v[ST_BYTES]);
	EXPECT_EQ(0, get_check_str(self->fd, key, "survives reset"));
	ASSERT_EQ(0, stats_read(&s1));
	EXPECT_EQ(1ULL, s1.v[ST_GETS]);
	EXPECT_EQ(1ULL, s1.v[ST_HITS]);
	EXPECT_EQ(0, del_str(self->fd, key));
}

#define SETTLE_KEYS	1000

/*
 * A DEL or an overwriting SET leaves the old item to an RCU callback
 * (rcu, rhashtable): pending_frees counts them, and a write to settle
 * returns only once every one is freed. Without the rcu_barrier() in
 * kvbench_settle(), hundreds of the last run's items were still pending
 * after the write.
 */
TEST_F(kvbench, settle_frees)
{
	char key[KVBENCH_KEY_MAX + 1], val[256];
	unsigned long long before, pending, entries0, entries1;
	unsigned int i, klen;

	ASSERT_EQ(0, sysfs_write(KVB_ATTR("settle"), "1"));
	ASSERT_EQ(0, sysfs_read_u64(KVB_ATTR("pending_frees"), &before));
	EXPECT_EQ(0ULL, before);
	ASSERT_EQ(0, sysfs_read_u64(KVB_ATTR("entries"), &entries0));

	memset(val, 'v', sizeof(val));
	use_bulk(&self->keys, SETTLE_KEYS);
	for (i = 0; i < SETTLE_KEYS; i++) {
		klen = bulk_key(self->keys.prefix, i, key);
		ASSERT_EQ(0, kvb_set(self->fd, key, klen, val, sizeof(val)));
		/* the overwrite unlinks the first item */
		ASSERT_EQ(0, kvb_set(self->fd, key, klen, val, sizeof(val) / 2));
	}
	for (i = 0; i < SETTLE_KEYS; i++) {
		klen = bulk_key(self->keys.prefix, i, key);
		ASSERT_EQ(0, kvb_del(self->fd, key, klen));
	}
	ASSERT_EQ(0, sysfs_read_u64(KVB_ATTR("pending_frees"), &pending));
	EXPECT_GE(2ULL * SETTLE_KEYS, pending);
	TH_LOG("%s: %llu of %u unlinked items pending before settle",
	       variant->backend, pending, 2 * SETTLE_KEYS);

	ASSERT_EQ(0, sysfs_write(KVB_ATTR("settle"), "1"));
	ASSERT_EQ(0, sysfs_read_u64(KVB_ATTR("pending_frees"), &pending));
	EXPECT_EQ(0ULL, pending);
	/* the map is left alone */
	ASSERT_EQ(0, sysfs_read_u64(KVB_ATTR("entries"), &entries1));
	EXPECT_EQ(entries0, entries1);
}

/* settle takes "1" (with or without a newline) and nothing else. */
TEST_F(kvbench, settle_einval)
{
	static const char bad[][8] = { "0", "2", "11", "1x", "yes", "1 1" };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		EXPECT_EQ(-EINVAL, sysfs_write(KVB_ATTR("settle"), bad[i]))
			TH_LOG("value '%s'", bad[i]);
	EXPECT_EQ(0, sysfs_write(KVB_ATTR("settle"), "1\n"));
}

struct settle_worker {
	pthread_t thread;
	int fd;
	char prefix[KVBENCH_KEY_MAX + 1];
	atomic_bool stop;
	unsigned int failures;
};

static void *settle_worker_fn(void *arg)
{
	struct settle_worker *w = arg;
	char key[KVBENCH_KEY_MAX + 1];
	unsigned int i = 0, klen;
	int ret;

	while (!atomic_load(&w->stop)) {
		klen = bulk_key(w->prefix, i++ % 64, key);
		if (kvb_set(w->fd, key, klen, "x", 1))
			w->failures++;
		ret = kvb_del(w->fd, key, klen);
		if (ret && ret != -ENOENT)
			w->failures++;
	}
	return NULL;
}

/*
 * A settle while another task writes: it returns (operations wait for it
 * only while it waits for queued commands), and every operation succeeds.
 */
TEST_F(kvbench, settle_under_load)
{
	struct settle_worker w = { .fd = self->fd };
	int i;

	snprintf(w.prefix, sizeof(w.prefix), "%s", self->keys.prefix);
	use_bulk(&self->keys, 64);
	ASSERT_EQ(0, pthread_create(&w.thread, NULL, settle_worker_fn, &w));
	for (i = 0; i < 20; i++)
		EXPECT_EQ(0, sysfs_write(KVB_ATTR("settle"), "1"));
	atomic_store(&w.stop, true);
	pthread_join(w.thread, NULL);
	EXPECT_EQ(0U, w.failures);
}

#define STATS_THREADS	4
#define STATS_ITERS	300

struct stats_worker {
	pthread_t thread;
	int fd;
	char key[KVBENCH_KEY_MAX + 1];
	char miss[KVBENCH_KEY_MAX + 1];
	unsigned int failures;
};

static void *stats_worker_fn(void *arg)
{
	struct stats_worker *w = arg;
	size_t klen = strlen(w->key), mlen = strlen(w->miss);
	struct kvbench_op ops[3];
	unsigned int i;
	char buf[8];
	__u32 len;

	for (i = 0; i < STATS_ITERS; i++) {
		len = sizeof(buf);
		w->failures += kvb_set(w->fd, w->key, klen, "v", 1) != 0;
		w->failures += kvb_get(w->fd, w->key, klen, buf, &len) != 0;
		w->failures += kvb_get(w->fd, w->miss, mlen, buf, &len) != -ENOENT;
		w->failures += kvb_del(w->fd, w->key, klen) != 0;
		if (i % 10)
			continue;
		op_init(&ops[0], KVBENCH_OP_SET, w->key, klen, "v", 1);
		op_init(&ops[1], KVBENCH_OP_GET, w->key, klen, buf, sizeof(buf));
		op_init(&ops[2], KVBENCH_OP_DEL, w->key, klen, NULL, 0);
		w->failures += kvb_batch(w->fd, ops, 3, 0) != 0;
		w->failures += ops[0].result || ops[1].result || ops[2].result;
	}
	return NULL;
}

/* Counters summed over CPUs lose nothing when threads race. */
TEST_F_TIMEOUT(kvbench, stats_concurrent, 120)
{
	struct stats_worker w[STATS_THREADS];
	long long delta[ST_NR] = { 0 };
	long long n = STATS_THREADS * STATS_ITERS;
	long long nb = STATS_THREADS * (STATS_ITERS / 10);
	struct kvb_stats s0, s1;
	unsigned int t;
	char name[32];
	int ret;

	for (t = 0; t < STATS_THREADS; t++) {
		memset(&w[t], 0, sizeof(w[t]));
		snprintf(name, sizeof(name), "k%u", t);
		mkkey(&self->keys, w[t].key, name);
		snprintf(name, sizeof(name), "missing%u", t);
		mkkey(&self->keys, w[t].miss, name);
		w[t].fd = open(KVB_DEV, O_RDWR);
		ASSERT_LE(0, w[t].fd);
	}
	ASSERT_EQ(0, stats_read(&s0));
	for (t = 0; t < STATS_THREADS; t++) {
		ret = pthread_create(&w[t].thread, NULL, stats_worker_fn, &w[t]);
		ASSERT_EQ(0, ret);
	}
	for (t = 0; t < STATS_THREADS; t++) {
		pthread_join(w[t].thread, NULL);
		close(w[t].fd);
		EXPECT_EQ(0U, w[t].failures) TH_LOG("thread %u", t);
	}
	ASSERT_EQ(0, stats_read(&s1));

	delta[ST_SETS] = n + nb;
	delta[ST_GETS] = 2 * n + nb;
	delta[ST_HITS] = n + nb;
	delta[ST_MISSES] = n;
	delta[ST_DELS] = n + nb;
	delta[ST_BATCHES] = nb;
	expect_deltas(_metadata, &s0, &s1, delta);
	EXPECT_EQ(s0.v[ST_ENTRIES], s1.v[ST_ENTRIES]);
	EXPECT_EQ(s0.v[ST_BYTES], s1.v[ST_BYTES]);
}

struct reset_worker {
	pthread_t thread;
	int fd;
	char miss[KVBENCH_KEY_MAX + 1];
	atomic_bool *stop;
	atomic_ullong done;	/* GETs returned, bumped after each */
	unsigned int failures;
};

static void *reset_worker_fn(void *arg)
{
	struct reset_worker *w = arg;
	size_t mlen = strlen(w->miss);
	char buf[8];
	__u32 len;

	while (!atomic_load(w->stop)) {
		len = sizeof(buf);
		w->failures += kvb_get(w->fd, w->miss, mlen, buf, &len) != -ENOENT;
		atomic_fetch_add(&w->done, 1);
	}
	return NULL;
}

static unsigned long long reset_done(struct reset_worker *w, unsigned int n)
{
	unsigned long long sum = 0;
	unsigned int t;

	for (t = 0; t < n; t++)
		sum += atomic_load(&w[t].done);
	return sum;
}

/*
 * A reset is never lost, not even in part: "gets" read right after a reset
 * counts at most the GETs that returned since the reset began, and one in
 * flight per thread. Counting CPUs race with every reset. Before resets
 * kept a baseline (the counters were zeroed remotely), a reset that landed
 * between an increment's load and store was undone whole, and that CPU's
 * count since the last reset came back: on stock 6.12 under TCG, 1 or 2 of
 * 5,000 resets, on two of five backends in each of two runs. The counters
 * are the core's, the same whatever the backend: one backend runs it. A
 * debug kernel takes 30 s for 5,000 rounds; RESET_SECONDS ends it sooner.
 */
#define RESET_THREADS	2
#define RESET_ROUNDS	5000U
#define RESET_SECONDS	8

TEST_F_TIMEOUT(kvbench, stats_reset_under_load, 120)
{
	struct reset_worker w[RESET_THREADS];
	unsigned long long before, after, gets, worst = 0;
	unsigned int t, round, over = 0;
	atomic_bool stop = false;
	long long end;
	char name[32];
	int err = 0;

	if (strcmp(variant->backend, "rcu"))
		SKIP(return, "the counters are the core's: rcu runs it");
	for (t = 0; t < RESET_THREADS; t++) {
		memset(&w[t], 0, sizeof(w[t]));
		snprintf(name, sizeof(name), "missing%u", t);
		mkkey(&self->keys, w[t].miss, name);
		w[t].stop = &stop;
		w[t].fd = open(KVB_DEV, O_RDWR);
		ASSERT_LE(0, w[t].fd);
	}
	for (t = 0; t < RESET_THREADS; t++)
		ASSERT_EQ(0, pthread_create(&w[t].thread, NULL,
					    reset_worker_fn, &w[t]));
	end = now_ns(CLOCK_MONOTONIC) + RESET_SECONDS * 1000000000LL;
	for (round = 0; round < RESET_ROUNDS; round++) {
		if (now_ns(CLOCK_MONOTONIC) >= end)
			break;
		/* Let every CPU count for a while: a lost reset shows. */
		usleep(100);
		before = reset_done(w, RESET_THREADS);
		err = sysfs_write(KVB_ATTR("reset"), "1");
		if (!err)
			err = sysfs_read_u64(KVB_ATTR("gets"), &gets);
		if (err)
			break;
		after = reset_done(w, RESET_THREADS);
		if (gets > after - before + RESET_THREADS) {
			over++;
			if (gets - (after - before) > worst)
				worst = gets - (after - before);
		}
	}
	atomic_store(&stop, true);
	for (t = 0; t < RESET_THREADS; t++) {
		pthread_join(w[t].thread, NULL);
		close(w[t].fd);
		EXPECT_EQ(0U, w[t].failures) TH_LOG("thread %u", t);
	}
	EXPECT_EQ(0, err) TH_LOG("sysfs failed in round %u: %s", round,
				 strerror(-err));
	EXPECT_LT(0U, round);
	EXPECT_EQ(0U, over)
		TH_LOG("%u of %u resets counted GETs done before them",
		       over, round);
	TH_LOG("worst: %llu GETs more than done since", worst);
}

/* ---------------------------------------------------------------- batch */

TEST_F(kvbench, batch_mixed)
{
	char a[KVBENCH_KEY_MAX + 1], b[KVBENCH_KEY_MAX + 1];
	char bufa[32], bufb[32];
	struct kvbench_op ops[6];

	mkkey(&self->keys, a, "a");
	mkkey(&self->keys, b, "b");
	memset(bufa, 0, sizeof(bufa));
	memset(bufb, 0, sizeof(bufb));
	op_init(&ops[0], KVBENCH_OP_SET, a, strlen(a), "alpha", 5);
	op_init(&ops[1], KVBENCH_OP_SET, b, strlen(b), "beta", 4);
	op_init(&ops[2], KVBENCH_OP_GET, a, strlen(a), bufa, sizeof(bufa));
	op_init(&ops[3], KVBENCH_OP_DEL, b, strlen(b), NULL, 0);
	op_init(&ops[4], KVBENCH_OP_GET, b, strlen(b), bufb, sizeof(bufb));
	op_init(&ops[5], KVBENCH_OP_SET, b, strlen(b), "gamma!", 6);

	ASSERT_EQ(0, kvb_batch(self->fd, ops, ARRAY_SIZE(ops), 0));
	EXPECT_EQ(0, ops[0].result);
	EXPECT_EQ(0, ops[1].result);
	EXPECT_EQ(0, ops[2].result);
	EXPECT_EQ(5U, ops[2].kv.value_len);
	EXPECT_EQ(0, memcmp(bufa, "alpha", 5));
	EXPECT_EQ(0, ops[3].result);
	EXPECT_EQ(-ENOENT, ops[4].result);
	EXPECT_EQ(0, ops[5].result);
	EXPECT_EQ(0, get_check_str(self->fd, a, "alpha"));
	EXPECT_EQ(0, get_check_str(self->fd, b, "gamma!"));
	EXPECT_EQ(0, del_str(self->fd, a));
	EXPECT_EQ(0, del_str(self->fd, b));
}

TEST_F(kvbench, batch_in_order)
{
	char key[KVBENCH_KEY_MAX + 1];
	char buf[4][16];
	struct kvbench_op ops[5];
	unsigned int i;

	mkkey(&self->keys, key, "k");
	memset(buf, 0, sizeof(buf));
	op_init(&ops[0], KVBENCH_OP_SET, key, strlen(key), "1", 1);
	op_init(&ops[1], KVBENCH_OP_GET, key, strlen(key), buf[0], 16);
	op_init(&ops[2], KVBENCH_OP_SET, key, strlen(key), "22", 2);
	op_init(&ops[3], KVBENCH_OP_GET, key, strlen(key), buf[1], 16);
	op_init(&ops[4], KVBENCH_OP_DEL, key, strlen(key), NULL, 0);

	ASSERT_EQ(0, kvb_batch(self->fd, ops, 5, 0));
	for (i = 0; i < 5; i++) {
		int result = ops[i].result;

		EXPECT_EQ(0, result) TH_LOG("op %u", i);
	}
	EXPECT_EQ(1U, ops[1].kv.value_len);
	EXPECT_STREQ("1", buf[0]);
	EXPECT_EQ(2U, ops[3].kv.value_len);
	EXPECT_STREQ("22", buf[1]);
	EXPECT_EQ(-ENOENT, get_check_str(self->fd, key, ""));
}

TEST_F(kvbench, batch_per_op_errors)
{
	char key[KVBENCH_KEY_MAX + 1], miss[KVBENCH_KEY_MAX + 1];
	size_t max = self->orig_max_value_len;
	struct kvbench_op ops[12];
	char buf[16], *big;
	unsigned int n = 0;

	big = calloc(1, max + 1);
	ASSERT_NE(NULL, big);
	mkkey(&self->keys, key, "k");
	mkkey(&self->keys, miss, "missing");
	ASSERT_EQ(0, set_str(self->fd, key, "0123456789"));

	op_init(&ops[n++], KVBENCH_OP_GET, miss, strlen(miss), buf, sizeof(buf));
	op_init(&ops[n++], KVBENCH_OP_DEL, miss, strlen(miss), NULL, 0);
	op_init(&ops[n++], KVBENCH_OP_GET, key, strlen(key), buf, 4);
	op_init(&ops[n++], KVBENCH_OP_SET, key, 0, "x", 1);
	op_init(&ops[n++], KVBENCH_OP_GET, key, KVBENCH_KEY_MAX + 1, buf, sizeof(buf));
	op_init(&ops[n], KVBENCH_OP_SET, key, strlen(key), "x", 1);
	ops[n++].kv.flags = 1;
	op_init(&ops[n], KVBENCH_OP_DEL, key, strlen(key), NULL, 0);
	ops[n++].kv.reserved = 1;
	op_init(&ops[n++], KVBENCH_OP_SET, key, strlen(key), big, max + 1);
	op_init(&ops[n++], KVBENCH_OP_SET, key, strlen(key),
		(void *)(unsigned long)self->bad[1], 4);
	op_init(&ops[n++], KVBENCH_OP_GET, (void *)(unsigned long)self->bad[3], 4,
		buf, sizeof(buf));
	op_init(&ops[n++], KVBENCH_OP_GET, key, strlen(key),
		(void *)(unsigned long)self->bad[4], sizeof(buf));
	/* After all that the key is intact. */
	op_init(&ops[n++], KVBENCH_OP_GET, key, strlen(key), buf, sizeof(buf));

	ASSERT_EQ(0, kvb_batch(self->fd, ops, n, 0));
	EXPECT_EQ(-ENOENT, ops[0].result);
	EXPECT_EQ(-ENOENT, ops[1].result);
	EXPECT_EQ(-ERANGE, ops[2].result);
	EXPECT_EQ(10U, ops[2].kv.value_len);
	EXPECT_EQ(-EINVAL, ops[3].result);
	EXPECT_EQ(-EINVAL, ops[4].result);
	EXPECT_EQ(-EINVAL, ops[5].result);
	EXPECT_EQ(-EINVAL, ops[6].result);
	EXPECT_EQ(-E2BIG, ops[7].result);
	EXPECT_EQ(-EFAULT, ops[8].result);
	EXPECT_EQ(-EFAULT, ops[9].result);
	EXPECT_EQ(-EFAULT, ops[10].result);
	EXPECT_EQ(0, ops[11].result);
	EXPECT_EQ(10U, ops[11].kv.value_len);
	EXPECT_EQ(0, memcmp(buf, "0123456789", 10));
	EXPECT_EQ(0, del_str(self->fd, key));
	free(big);
}

TEST_F(kvbench, batch_unknown_op)
{
	char key[KVBENCH_KEY_MAX + 1];
	struct kvbench_op ops[5];

	mkkey(&self->keys, key, "k");
	op_init(&ops[0], 0, key, strlen(key), "x", 1);
	op_init(&ops[1], 4, key, strlen(key), "x", 1);
	op_init(&ops[2], KVBENCH_OP_SET, key, strlen(key), "ok", 2);
	op_init(&ops[3], 0xffffffff, key, strlen(key), "x", 1);
	op_init(&ops[4], KVBENCH_OP_SET | 0x100, key, strlen(key), "x", 1);

	ASSERT_EQ(0, kvb_batch(self->fd, ops, 5, 0));
	EXPECT_EQ(-EINVAL, ops[0].result);
	EXPECT_EQ(-EINVAL, ops[1].result);
	EXPECT_EQ(0, ops[2].result);
	EXPECT_EQ(-EINVAL, ops[3].result);
	EXPECT_EQ(-EINVAL, ops[4].result);
	EXPECT_EQ(0, get_check_str(self->fd, key, "ok"));
	EXPECT_EQ(0, del_str(self->fd, key));
}

TEST_F(kvbench, batch_max_count)
{
	struct kvbench_op *ops;
	char (*keys)[KVBENCH_KEY_MAX + 1];
	__u32 vals[KVBENCH_BATCH_MAX], out[KVBENCH_BATCH_MAX];
	unsigned int i, klen = 0;

	ops = calloc(KVBENCH_BATCH_MAX, sizeof(*ops));
	keys = calloc(KVBENCH_BATCH_MAX, sizeof(*keys));
	ASSERT_NE(NULL, ops);
	ASSERT_NE(NULL, keys);
	use_bulk(&self->keys, KVBENCH_BATCH_MAX);
	for (i = 0; i < KVBENCH_BATCH_MAX; i++) {
		klen = bulk_key(self->keys.prefix, i, keys[i]);
		vals[i] = i * 2654435761U;
		op_init(&ops[i], KVBENCH_OP_SET, keys[i], klen, &vals[i], 4);
	}
	ASSERT_EQ(0, kvb_batch(self->fd, ops, KVBENCH_BATCH_MAX, 0));
	for (i = 0; i < KVBENCH_BATCH_MAX; i++) {
		EXPECT_EQ(0, ops[i].result) TH_LOG("SET %u", i);
		op_init(&ops[i], KVBENCH_OP_GET, keys[i], klen, &out[i], 4);
	}
	memset(out, 0, sizeof(out));
	ASSERT_EQ(0, kvb_batch(self->fd, ops, KVBENCH_BATCH_MAX, 0));
	for (i = 0; i < KVBENCH_BATCH_MAX; i++) {
		EXPECT_EQ(0, ops[i].result) TH_LOG("GET %u", i);
		EXPECT_EQ(4U, ops[i].kv.value_len);
		EXPECT_EQ(vals[i], out[i]) TH_LOG("GET %u", i);
		op_init(&ops[i], KVBENCH_OP_DEL, keys[i], klen, NULL, 0);
	}
	ASSERT_EQ(0, kvb_batch(self->fd, ops, KVBENCH_BATCH_MAX, 0));
	for (i = 0; i < KVBENCH_BATCH_MAX; i++) {
		int result = ops[i].result;

		EXPECT_EQ(0, result) TH_LOG("DEL %u", i);
	}
	free(keys);
	free(ops);
}

/* A rejected batch runs none of its ops. */
static void batch_expect_none_ran(struct __test_metadata *_metadata,
				  int fd, const struct kvbench_op *ops,
				  unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		EXPECT_EQ(1, ops[i].result) TH_LOG("op %u result written", i);
		EXPECT_EQ(-ENOENT, get_check(fd, (void *)(unsigned long)ops[i].kv.key,
					     ops[i].kv.key_len, "", 0))
			TH_LOG("op %u ran", i);
	}
}

TEST_F(kvbench, batch_count_zero_einval)
{
	char key[KVBENCH_KEY_MAX + 1];
	struct kvbench_op ops[1];
	struct kvb_stats s0, s1;

	mkkey(&self->keys, key, "k");
	op_init(&ops[0], KVBENCH_OP_SET, key, strlen(key), "x", 1);
	ASSERT_EQ(0, stats_read(&s0));
	EXPECT_EQ(-EINVAL, kvb_batch(self->fd, ops, 0, 0));
	ASSERT_EQ(0, stats_read(&s1));
	EXPECT_EQ(s0.v[ST_SETS], s1.v[ST_SETS]);
	batch_expect_none_ran(_metadata, self->fd, ops, 1);
}

TEST_F(kvbench, batch_count_too_big_einval)
{
	struct kvbench_op *ops;
	char key[KVBENCH_KEY_MAX + 1];
	unsigned int i;

	ops = calloc(KVBENCH_BATCH_MAX + 1, sizeof(*ops));
	ASSERT_NE(NULL, ops);
	mkkey(&self->keys, key, "k");
	for (i = 0; i <= KVBENCH_BATCH_MAX; i++)
		op_init(&ops[i], KVBENCH_OP_SET, key, strlen(key), "x", 1);
	EXPECT_EQ(-EINVAL, kvb_batch(self->fd, ops, KVBENCH_BATCH_MAX + 1, 0));
	EXPECT_EQ(-EINVAL, kvb_batch(self->fd, ops, 0xffffffff, 0));
	batch_expect_none_ran(_metadata, self->fd, ops, 1);
	free(ops);
}

TEST_F(kvbench, batch_flags_einval)
{
	char key[KVBENCH_KEY_MAX + 1];
	struct kvbench_op ops[1];

	mkkey(&self->keys, key, "k");
	op_init(&ops[0], KVBENCH_OP_SET, key, strlen(key), "x", 1);
	EXPECT_EQ(-EINVAL, kvb_batch(self->fd, ops, 1, 1));
	EXPECT_EQ(-EINVAL, kvb_batch(self->fd, ops, 1, 1U << 31));
	batch_expect_none_ran(_metadata, self->fd, ops, 1);
}

TEST_F(kvbench, batch_ops_efault)
{
	struct kvbench_op *edge;
	char key[KVBENCH_KEY_MAX + 1];
	int i;
	int ret;

	for (i = 0; i < NR_BAD_PTRS; i++) {
		ret = kvb_batch(self->fd, (void *)(unsigned long)self->bad[i], 1, 0);
		EXPECT_EQ(-EFAULT, ret) TH_LOG("ops pointer %s", bad_ptr_names[i]);
	}

	/* The second op of two lies in the hole. */
	mkkey(&self->keys, key, "k");
	edge = (struct kvbench_op *)(self->page + self->page_size) - 1;
	op_init(edge, KVBENCH_OP_GET, key, strlen(key), NULL, 0);
	EXPECT_EQ(-EFAULT, kvb_batch(self->fd, edge, 2, 0));
}

/* The ops can be read but their results cannot be written back. */
TEST_F(kvbench, batch_ops_readonly_efault)
{
	char key[KVBENCH_KEY_MAX + 1];
	struct kvbench_op *ops = (struct kvbench_op *)self->ro;

	mkkey(&self->keys, key, "missing");
	ASSERT_EQ(0, mprotect(self->ro, self->page_size, PROT_READ | PROT_WRITE));
	op_init(&ops[0], KVBENCH_OP_GET, key, strlen(key), NULL, 0);
	ASSERT_EQ(0, mprotect(self->ro, self->page_size, PROT_READ));
	EXPECT_EQ(-EFAULT, kvb_batch(self->fd, ops, 1, 0));
}

/* ------------------------------------------------------- packed commands */

#define MULTI_POISON	0x5eadbeef
#define MULTI_CANARY	0xa5
#define MULTI_VALS	(64 * 1024)

/*
 * One MGET, MSET or MDEL: the keys back to back with their lengths, the
 * MSET values back to back with theirs, and the arrays the kernel writes.
 * What the kernel may write is poisoned before each call, one entry past
 * count too, so that a write shows, and one where none belongs.
 */
struct multi {
	unsigned int n;
	size_t kused, vused;
	struct kvbench_multi arg;
	__u32 key_lens[KVBENCH_BATCH_MAX + 1];
	__u32 vlen_in[KVBENCH_BATCH_MAX + 1];	/* MSET: copied to value_lens */
	__u32 value_lens[KVBENCH_BATCH_MAX + 1];
	__s32 results[KVBENCH_BATCH_MAX + 1];
	unsigned char keys[(KVBENCH_BATCH_MAX + 1) * KVBENCH_KEY_MAX];
	unsigned char vin[MULTI_VALS];		/* MSET values */
	unsigned char vout[MULTI_VALS];		/* MGET values */
};

static const unsigned long multi_cmds[] = {
	KVBENCH_IOC_MGET, KVBENCH_IOC_MSET, KVBENCH_IOC_MDEL,
};

static const char *multi_name(unsigned long cmd)
{
	return cmd == KVBENCH_IOC_MGET ? "MGET" :
	       cmd == KVBENCH_IOC_MSET ? "MSET" : "MDEL";
}

static __u64 uptr(const void *p)
{
	return (__u64)(unsigned long)p;
}

/* Add a key and, for an MSET, its value (@val NULL: none). */
static void multi_add(struct multi *m, const void *key, size_t klen,
		      const void *val, size_t vlen)
{
	memcpy(m->keys + m->kused, key, klen);
	m->kused += klen;
	m->key_lens[m->n] = klen;
	if (val) {
		memcpy(m->vin + m->vused, val, vlen);
		m->vused += vlen;
	}
	m->vlen_in[m->n] = val ? vlen : 0;
	m->n++;
}

static void multi_add_str(struct multi *m, const char *key, const char *val)
{
	multi_add(m, key, strlen(key), val, val ? strlen(val) : 0);
}

/* Start over; the struct itself comes from calloc() and is freed. */
static void multi_clear(struct multi *m)
{
	m->n = 0;
	m->kused = 0;
	m->vused = 0;
}

/*
 * Fill the argument of @cmd for the ops added (MGET: @size bytes for the
 * values) and poison what the kernel writes.
 */
static void multi_prep(struct multi *m, unsigned long cmd, size_t size)
{
	unsigned int i;

	memset(&m->arg, 0, sizeof(m->arg));
	m->arg.keys = uptr(m->keys);
	m->arg.key_lens = uptr(m->key_lens);
	m->arg.results = uptr(m->results);
	m->arg.count = m->n;
	for (i = 0; i <= KVBENCH_BATCH_MAX; i++)
		m->results[i] = MULTI_POISON;
	if (cmd == KVBENCH_IOC_MSET) {
		memcpy(m->value_lens, m->vlen_in, sizeof(m->value_lens));
		m->value_lens[m->n] = MULTI_POISON;
		m->arg.values = uptr(m->vin);
		m->arg.value_lens = uptr(m->value_lens);
		m->arg.values_size = m->vused;
	} else if (cmd == KVBENCH_IOC_MGET) {
		for (i = 0; i <= KVBENCH_BATCH_MAX; i++)
			m->value_lens[i] = MULTI_POISON;
		memset(m->vout, MULTI_CANARY, sizeof(m->vout));
		m->arg.values = uptr(m->vout);
		m->arg.value_lens = uptr(m->value_lens);
		m->arg.values_size = size;
	}
}

static int multi_call(int fd, unsigned long cmd, struct multi *m)
{
	return kvb_ioctl(fd, cmd, &m->arg);
}

static int multi_run(int fd, unsigned long cmd, struct multi *m, size_t size)
{
	multi_prep(m, cmd, size);
	return multi_call(fd, cmd, m);
}

/* Every result is @exp[i], and nothing is written past count. */
static void multi_expect(struct __test_metadata *_metadata,
			 const struct multi *m, const int *exp)
{
	unsigned int i;

	for (i = 0; i < m->n; i++) {
		int res = m->results[i];

		EXPECT_EQ(exp[i], res) TH_LOG("op %u of %u", i, m->n);
	}
	EXPECT_EQ(MULTI_POISON, m->results[m->n]) TH_LOG("results[count] written");
}

/* A rejected call wrote no result (and, MGET, no length and no value). */
static void multi_expect_unwritten(struct __test_metadata *_metadata,
				   const struct multi *m, unsigned long cmd)
{
	unsigned int i;

	for (i = 0; i <= m->n; i++) {
		EXPECT_EQ(MULTI_POISON, m->results[i]) TH_LOG("results[%u] written", i);
		if (cmd != KVBENCH_IOC_MGET)
			continue;
		EXPECT_EQ((__u32)MULTI_POISON, m->value_lens[i])
			TH_LOG("value_lens[%u] written", i);
	}
	if (cmd == KVBENCH_IOC_MGET)
		for (i = 0; i < MULTI_VALS; i++)
			if (m->vout[i] != MULTI_CANARY) {
				EXPECT_EQ(MULTI_CANARY, m->vout[i])
					TH_LOG("values[%u] written", i);
				break;
			}
}

/* No byte of the MGET values from @from on was written. */
static void multi_expect_canary(struct __test_metadata *_metadata,
				const struct multi *m, size_t from)
{
	size_t i;

	for (i = from; i < MULTI_VALS; i++)
		if (m->vout[i] != MULTI_CANARY) {
			EXPECT_EQ(MULTI_CANARY, m->vout[i])
				TH_LOG("values[%zu] written past the last value (at %zu)",
				       i, from);
			return;
		}
}

/* MGET op @i found @len bytes of @val at offset @off of the values. */
static void multi_expect_value(struct __test_metadata *_metadata,
			       const struct multi *m, unsigned int i,
			       size_t off, const void *val, size_t len)
{
	EXPECT_EQ(0, m->results[i]) TH_LOG("op %u", i);
	EXPECT_EQ(len, m->value_lens[i]) TH_LOG("op %u", i);
	EXPECT_EQ(0, memcmp(m->vout + off, val, len))
		TH_LOG("op %u: value not at offset %zu", i, off);
}

/* Prefix the test's keys: "k0".."kN" of this test, tracked for teardown. */
static void multi_keys(struct test_keys *keys, char (*k)[KVBENCH_KEY_MAX + 1],
		       unsigned int n)
{
	char name[16];
	unsigned int i;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "k%u", i);
		mkkey(keys, k[i], name);
	}
}

TEST_F(kvbench, multi_roundtrip)
{
	char k[4][KVBENCH_KEY_MAX + 1];
	struct multi *m = calloc(1, sizeof(*m));

	ASSERT_NE(NULL, m);
	multi_keys(&self->keys, k, 4);

	multi_add_str(m, k[0], "alpha");
	multi_add_str(m, k[1], "");
	multi_add_str(m, k[2], "gamma, a longer value");
	ASSERT_EQ(0, multi_run(self->fd, KVBENCH_IOC_MSET, m, 0));
	multi_expect(_metadata, m, (int[]){ 0, 0, 0 });
	EXPECT_EQ(0, get_check_str(self->fd, k[0], "alpha"));
	EXPECT_EQ(0, get_check_str(self->fd, k[1], ""));
	EXPECT_EQ(0, get_check_str(self->fd, k[2], "gamma, a longer value"));

	/* Packed in array order; the missing key takes no room. */
	multi_clear(m);
	multi_add_str(m, k[2], NULL);
	multi_add_str(m, k[3], NULL);
	multi_add_str(m, k[1], NULL);
	multi_add_str(m, k[0], NULL);
	ASSERT_EQ(0, multi_run(self->fd, KVBENCH_IOC_MGET, m, 64));
	multi_expect(_metadata, m, (int[]){ 0, -ENOENT, 0, 0 });
	multi_expect_value(_metadata, m, 0, 0, "gamma, a longer value", 21);
	EXPECT_EQ(0U, m->value_lens[1]);
	multi_expect_value(_metadata, m, 2, 21, "", 0);
	multi_expect_value(_metadata, m, 3, 21, "alpha", 5);
	EXPECT_EQ((__u32)MULTI_POISON, m->value_lens[4]);
	multi_expect_canary(_metadata, m, 26);

	ASSERT_EQ(0, multi_run(self->fd, KVBENCH_IOC_MDEL, m, 0));
	multi_expect(_metadata, m, (int[]){ 0, -ENOENT, 0, 0 });
	ASSERT_EQ(0, multi_run(self->fd, KVBENCH_IOC_MGET, m, 64));
	multi_expect(_metadata, m, (int[]){ -ENOENT, -ENOENT, -ENOENT, -ENOENT });
	EXPECT_EQ(0U, m->value_lens[0]);
	EXPECT_EQ(0U, m->value_lens[2]);
	EXPECT_EQ(0U, m->value_lens[3]);
	multi_expect_canary(_metadata, m, 0);
	free(m);
}

/* KVBENCH_BATCH_MAX ops: keys of 1, 250 and many lengths between, values too. */
TEST_F(kvbench, multi_max_count)
{
	struct multi *m = calloc(1, sizeof(*m));
	unsigned char key[KVBENCH_KEY_MAX], val[200];
	size_t off = 0, vlen;
	unsigned int i, klen, blen;
	char bulk[KVBENCH_KEY_MAX + 1];

	ASSERT_NE(NULL, m);
	for (i = 0; i < KVBENCH_BATCH_MAX; i++) {
		/* The bulk key, padded: blen..250 bytes; key 0 is one byte. */
		blen = bulk_key(self->keys.prefix, i, bulk);
		memset(key, 'p', sizeof(key));
		memcpy(key, bulk, blen);
		klen = blen + (i * 7) % (KVBENCH_KEY_MAX - blen + 1);
		if (i == 1)
			klen = KVBENCH_KEY_MAX;
		if (i == 0) {
			key[0] = 0x01;
			klen = 1;
		}
		vlen = (i * 37) % sizeof(val);
		memset(val, i, vlen);
		multi_add(m, key, klen, val, vlen);
		track(&self->keys, key, klen);
	}
	ASSERT_EQ(0, multi_run(self->fd, KVBENCH_IOC_MSET, m, 0));
	for (i = 0; i < KVBENCH_BATCH_MAX; i++) {
		int res = m->results[i];

		EXPECT_EQ(0, res) TH_LOG("MSET %u", i);
	}

	ASSERT_EQ(0, multi_run(self->fd, KVBENCH_IOC_MGET, m, MULTI_VALS));
	for (i = 0; i < KVBENCH_BATCH_MAX; i++) {
		vlen = (i * 37) % sizeof(val);
		memset(val, i, vlen);
		multi_expect_value(_metadata, m, i, off, val, vlen);
		off += vlen;
	}
	multi_expect_canary(_metadata, m, off);

	ASSERT_EQ(0, multi_run(self->fd, KVBENCH_IOC_MDEL, m, 0));
	for (i = 0; i < KVBENCH_BATCH_MAX; i++) {
		int res = m->results[i];

		EXPECT_EQ(0, res) TH_LOG("MDEL %u", i);
	}
	EXPECT_EQ(MULTI_POISON, m->results[KVBENCH_BATCH_MAX]);
	free(m);
}

/*
 * A call rejected with EINVAL ran nothing: MSET stored nothing, MDEL
 * deleted nothing, no counter moved, and no result was written.
 * @k holds two keys, k[0] present with "v0" and k[1] absent.
 */
static void multi_expect_none_ran(struct __test_metadata *_metadata, int fd,
				  struct multi *m, unsigned long cmd,
				  char (*k)[KVBENCH_KEY_MAX + 1],
				  const struct kvb_stats *s0)
{
	struct kvb_stats s1;

	multi_expect_unwritten(_metadata, m, cmd);
	EXPECT_EQ(0, get_check_str(fd, k[0], "v0")) TH_LOG("%s ran", multi_name(cmd));
	EXPECT_EQ(-ENOENT, get_check_str(fd, k[1], "")) TH_LOG("%s ran", multi_name(cmd));
	ASSERT_EQ(0, stats_read(&s1));
	/* The two GETs above are the only ones. */
	EXPECT_EQ(s0->v[ST_GETS] + 2, s1.v[ST_GETS]) TH_LOG("%s", multi_name(cmd));
	EXPECT_EQ(s0->v[ST_SETS], s1.v[ST_SETS]) TH_LOG("%s", multi_name(cmd));
	EXPECT_EQ(s0->v[ST_DELS], s1.v[ST_DELS]) TH_LOG("%s", multi_name(cmd));
	EXPECT_EQ(s0->v[ST_ENTRIES], s1.v[ST_ENTRIES]) TH_LOG("%s", multi_name(cmd));
}

/*
 * For each command: k[0] = "v0" in the map, k[1] absent; the call is
 * [k[1]="new", k[0]="v0!"], valid until @mutate spoils it; it must fail
 * with EINVAL and run nothing.
 */
#define EXPECT_MULTI_EINVAL(mutate) do {					\
	char k[2][KVBENCH_KEY_MAX + 1];					\
	struct multi *m = calloc(1, sizeof(*m));			\
	struct kvb_stats s0;						\
	unsigned int c;							\
									\
	ASSERT_NE(NULL, m);						\
	multi_keys(&self->keys, k, 2);					\
	ASSERT_EQ(0, set_str(self->fd, k[0], "v0"));			\
	multi_add_str(m, k[1], "new");					\
	multi_add_str(m, k[0], "v0!");					\
	for (c = 0; c < ARRAY_SIZE(multi_cmds); c++) {			\
		unsigned long cmd = multi_cmds[c];			\
									\
		multi_prep(m, cmd, 64);					\
		mutate;							\
		ASSERT_EQ(0, stats_read(&s0));				\
		EXPECT_EQ(-EINVAL, multi_call(self->fd, cmd, m))	\
			TH_LOG("%s", multi_name(cmd));			\
		multi_expect_none_ran(_metadata, self->fd, m, cmd, k, &s0); \
	}								\
	free(m);							\
} while (0)

TEST_F(kvbench, multi_count_zero_einval)
{
	EXPECT_MULTI_EINVAL(m->arg.count = 0);
}

TEST_F(kvbench, multi_count_too_big_einval)
{
	EXPECT_MULTI_EINVAL(m->arg.count = KVBENCH_BATCH_MAX + 1);
	EXPECT_MULTI_EINVAL(m->arg.count = 0xffffffff);
	EXPECT_MULTI_EINVAL(m->arg.count = 0x80000001);
}

TEST_F(kvbench, multi_flags_einval)
{
	EXPECT_MULTI_EINVAL(m->arg.flags = 1);
	EXPECT_MULTI_EINVAL(m->arg.flags = 1U << 31);
}

TEST_F(kvbench, multi_reserved_einval)
{
	EXPECT_MULTI_EINVAL(m->arg.reserved = 1);
	EXPECT_MULTI_EINVAL(m->arg.reserved = 1U << 31);
}

/* A bad length anywhere, also after valid ones: nothing ran, not even those. */
TEST_F(kvbench, multi_key_len_zero_einval)
{
	EXPECT_MULTI_EINVAL(m->key_lens[1] = 0);
	EXPECT_MULTI_EINVAL(m->key_lens[0] = 0);
}

TEST_F(kvbench, multi_key_too_long_einval)
{
	EXPECT_MULTI_EINVAL(m->key_lens[1] = KVBENCH_KEY_MAX + 1);
	EXPECT_MULTI_EINVAL(m->key_lens[1] = 0xffffffff);
	/* Lengths whose sum wraps around 32 bits. */
	EXPECT_MULTI_EINVAL(m->key_lens[0] = 0x80000000U;
			    m->key_lens[1] = 0x80000000U + 8);
}

/* The values' lengths add up to more than values_size. */
TEST_F(kvbench, mset_values_size_einval)
{
	char k[2][KVBENCH_KEY_MAX + 1];
	struct multi *m = calloc(1, sizeof(*m));
	struct kvb_stats s0;
	__u32 lens[][2] = {
		{ 3, 4 },			/* 7 > 6 */
		{ 0xffffffff, 2 },		/* wraps to 1 in 32 bits */
		{ 0x80000000U, 0x80000000U },	/* wraps to 0 */
	};
	__u32 sizes[] = { 6, 0xffffffff, 0xffffffff };
	unsigned int i;

	ASSERT_NE(NULL, m);
	multi_keys(&self->keys, k, 2);
	ASSERT_EQ(0, set_str(self->fd, k[0], "v0"));
	multi_add_str(m, k[1], "new");
	multi_add_str(m, k[0], "v0!!");
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		multi_prep(m, KVBENCH_IOC_MSET, 0);
		m->value_lens[0] = lens[i][0];
		m->value_lens[1] = lens[i][1];
		m->arg.values_size = sizes[i];
		ASSERT_EQ(0, stats_read(&s0));
		EXPECT_EQ(-EINVAL, multi_call(self->fd, KVBENCH_IOC_MSET, m))
			TH_LOG("lengths %#x + %#x, values_size %#x",
			       lens[i][0], lens[i][1], sizes[i]);
		multi_expect_none_ran(_metadata, self->fd, m, KVBENCH_IOC_MSET,
				      k, &s0);
	}
	/* Exactly values_size, and more room than needed, are fine. */
	multi_prep(m, KVBENCH_IOC_MSET, 0);
	EXPECT_EQ(7U, m->arg.values_size);
	ASSERT_EQ(0, multi_call(self->fd, KVBENCH_IOC_MSET, m));
	multi_expect(_metadata, m, (int[]){ 0, 0 });
	multi_prep(m, KVBENCH_IOC_MSET, 0);
	m->arg.values_size = sizeof(m->vin);
	ASSERT_EQ(0, multi_call(self->fd, KVBENCH_IOC_MSET, m));
	multi_expect(_metadata, m, (int[]){ 0, 0 });
	EXPECT_EQ(0, get_check_str(self->fd, k[1], "new"));
	EXPECT_EQ(0, get_check_str(self->fd, k[0], "v0!!"));
	free(m);
}

TEST_F(kvbench, mdel_values_einval)
{
	char k[2][KVBENCH_KEY_MAX + 1];
	struct multi *m = calloc(1, sizeof(*m));
	struct kvb_stats s0;
	unsigned int i;

	ASSERT_NE(NULL, m);
	multi_keys(&self->keys, k, 2);
	ASSERT_EQ(0, set_str(self->fd, k[0], "v0"));
	multi_add_str(m, k[1], NULL);
	multi_add_str(m, k[0], NULL);
	for (i = 0; i < 4; i++) {
		multi_prep(m, KVBENCH_IOC_MDEL, 0);
		if (i == 0)
			m->arg.values = uptr(m->vin);
		else if (i == 1)
			m->arg.value_lens = uptr(m->value_lens);
		else if (i == 2)
			m->arg.values_size = 1;
		else
			m->arg.values_size = 1U << 31;
		ASSERT_EQ(0, stats_read(&s0));
		EXPECT_EQ(-EINVAL, multi_call(self->fd, KVBENCH_IOC_MDEL, m))
			TH_LOG("case %u", i);
		multi_expect_none_ran(_metadata, self->fd, m, KVBENCH_IOC_MDEL,
				      k, &s0);
	}
	free(m);
}

/* E2BIG is per op; the too-long value still takes its bytes in values. */
TEST_F(kvbench, mset_value_too_long_e2big)
{
	char k[3][KVBENCH_KEY_MAX + 1];
	size_t max = self->orig_max_value_len;
	struct multi *m = calloc(1, sizeof(*m));
	struct kvb_stats s0, s1;
	unsigned char *vals;

	ASSERT_NE(NULL, m);
	vals = calloc(1, max + 16);
	ASSERT_NE(NULL, vals);
	multi_keys(&self->keys, k, 3);
	ASSERT_EQ(0, set_str(self->fd, k[1], "old"));
	memcpy(vals, "first", 5);
	memset(vals + 5, 'x', max + 1);
	memcpy(vals + 5 + max + 1, "third", 5);
	multi_add_str(m, k[0], NULL);
	multi_add_str(m, k[1], NULL);
	multi_add_str(m, k[2], NULL);
	multi_prep(m, KVBENCH_IOC_MSET, 0);
	m->arg.values = uptr(vals);
	m->value_lens[0] = 5;
	m->value_lens[1] = max + 1;
	m->value_lens[2] = 5;
	m->arg.values_size = max + 11;
	ASSERT_EQ(0, stats_read(&s0));
	ASSERT_EQ(0, multi_call(self->fd, KVBENCH_IOC_MSET, m));
	ASSERT_EQ(0, stats_read(&s1));
	multi_expect(_metadata, m, (int[]){ 0, -E2BIG, 0 });
	EXPECT_EQ(0, get_check_str(self->fd, k[0], "first"));
	EXPECT_EQ(0, get_check_str(self->fd, k[1], "old"));
	EXPECT_EQ(0, get_check_str(self->fd, k[2], "third"));
	/* Refused before it reached the map: not counted. */
	EXPECT_EQ(s0.v[ST_SETS] + 2, s1.v[ST_SETS]);

	/* The longest length there is, alone: E2BIG, nothing read. */
	multi_clear(m);
	multi_add_str(m, k[1], NULL);
	multi_prep(m, KVBENCH_IOC_MSET, 0);
	m->arg.values = uptr(vals);
	m->value_lens[0] = 0xffffffff;
	m->arg.values_size = 0xffffffff;
	ASSERT_EQ(0, multi_call(self->fd, KVBENCH_IOC_MSET, m));
	multi_expect(_metadata, m, (int[]){ -E2BIG });
	EXPECT_EQ(0, get_check_str(self->fd, k[1], "old"));
	free(vals);
	free(m);
}

/* Values of length 0 need no bytes at all: values may be NULL. */
TEST_F(kvbench, multi_empty_values)
{
	char k[2][KVBENCH_KEY_MAX + 1];
	struct multi *m = calloc(1, sizeof(*m));

	ASSERT_NE(NULL, m);
	multi_keys(&self->keys, k, 2);
	ASSERT_EQ(0, set_str(self->fd, k[1], "not empty"));
	multi_add_str(m, k[0], "");
	multi_add_str(m, k[1], "");
	multi_prep(m, KVBENCH_IOC_MSET, 0);
	m->arg.values = 0;
	ASSERT_EQ(0, multi_call(self->fd, KVBENCH_IOC_MSET, m));
	multi_expect(_metadata, m, (int[]){ 0, 0 });
	EXPECT_EQ(0, get_check_str(self->fd, k[0], ""));
	EXPECT_EQ(0, get_check_str(self->fd, k[1], ""));

	/* MGET of empty values into no room at all. */
	multi_prep(m, KVBENCH_IOC_MGET, 0);
	m->arg.values = 0;
	ASSERT_EQ(0, multi_call(self->fd, KVBENCH_IOC_MGET, m));
	multi_expect(_metadata, m, (int[]){ 0, 0 });
	EXPECT_EQ(0U, m->value_lens[0]);
	EXPECT_EQ(0U, m->value_lens[1]);
	free(m);
}

/*
 * The packing rule: a value that does not fit in what remains gets
 * ERANGE and its length, takes no room, and a later smaller one fits.
 */
TEST_F(kvbench, mget_erange_packing)
{
	char k[6][KVBENCH_KEY_MAX + 1];
	struct multi *m = calloc(1, sizeof(*m));
	struct kvb_stats s0, s1;

	ASSERT_NE(NULL, m);
	multi_keys(&self->keys, k, 6);
	ASSERT_EQ(0, set_str(self->fd, k[0], "0123456789"));
	ASSERT_EQ(0, set_str(self->fd, k[1], "a value of thirty bytes, this."));
	ASSERT_EQ(0, set_str(self->fd, k[2], "fives"));
	/* k[3] absent */
	ASSERT_EQ(0, set_str(self->fd, k[4], "ten bytes!"));
	ASSERT_EQ(0, set_str(self->fd, k[5], ""));
	multi_add_str(m, k[0], NULL);
	multi_add_str(m, k[1], NULL);
	multi_add_str(m, k[2], NULL);
	multi_add_str(m, k[3], NULL);
	multi_add_str(m, k[4], NULL);
	multi_add_str(m, k[5], NULL);

	/* 20 bytes: 10 + (30 no) + 5, then 10 > 5 left, then "" fits. */
	ASSERT_EQ(0, stats_read(&s0));
	ASSERT_EQ(0, multi_run(self->fd, KVBENCH_IOC_MGET, m, 20));
	ASSERT_EQ(0, stats_read(&s1));
	multi_expect(_metadata, m, (int[]){ 0, -ERANGE, 0, -ENOENT, -ERANGE, 0 });
	multi_expect_value(_metadata, m, 0, 0, "0123456789", 10);
	EXPECT_EQ(30U, m->value_lens[1]);
	multi_expect_value(_metadata, m, 2, 10, "fives", 5);
	EXPECT_EQ(0U, m->value_lens[3]);
	EXPECT_EQ(10U, m->value_lens[4]);
	multi_expect_value(_metadata, m, 5, 15, "", 0);
	/* Bytes 15..19 are inside values_size but hold no value. */
	multi_expect_canary(_metadata, m, 15);
	/* ERANGE is a hit, as for GET. */
	EXPECT_EQ(s0.v[ST_GETS] + 6, s1.v[ST_GETS]);
	EXPECT_EQ(s0.v[ST_HITS] + 5, s1.v[ST_HITS]);
	EXPECT_EQ(s0.v[ST_MISSES] + 1, s1.v[ST_MISSES]);

	/* Exactly enough room for every value. */
	ASSERT_EQ(0, multi_run(self->fd, KVBENCH_IOC_MGET, m, 55));
	multi_expect(_metadata, m, (int[]){ 0, 0, 0, -ENOENT, 0, 0 });
	multi_expect_value(_metadata, m, 0, 0, "0123456789", 10);
	multi_expect_value(_metadata, m, 1, 10, "a value of thirty bytes, this.", 30);
	multi_expect_value(_metadata, m, 2, 40, "fives", 5);
	multi_expect_value(_metadata, m, 4, 45, "ten bytes!", 10);
	multi_expect_canary(_metadata, m, 55);

	/* One byte short: the last non-empty value does not fit. */
	ASSERT_EQ(0, multi_run(self->fd, KVBENCH_IOC_MGET, m, 54));
	multi_expect(_metadata, m, (int[]){ 0, 0, 0, -ENOENT, -ERANGE, 0 });
	EXPECT_EQ(10U, m->value_lens[4]);
	multi_expect_value(_metadata, m, 5, 45, "", 0);
	multi_expect_canary(_metadata, m, 45);

	/* No room: only the empty value fits. */
	ASSERT_EQ(0, multi_run(self->fd, KVBENCH_IOC_MGET, m, 0));
	multi_expect(_metadata, m,
		     (int[]){ -ERANGE, -ERANGE, -ERANGE, -ENOENT, -ERANGE, 0 });
	EXPECT_EQ(10U, m->value_lens[0]);
	EXPECT_EQ(30U, m->value_lens[1]);
	EXPECT_EQ(5U, m->value_lens[2]);
	EXPECT_EQ(0U, m->value_lens[5]);
	multi_expect_canary(_metadata, m, 0);
	free(m);
}

/* Array order: the last of several MSETs of a key wins, and so on. */
TEST_F(kvbench, multi_array_order)
{
	char k[2][KVBENCH_KEY_MAX + 1];
	struct multi *m = calloc(1, sizeof(*m));

	ASSERT_NE(NULL, m);
	multi_keys(&self->keys, k, 2);
	multi_add_str(m, k[0], "first");
	multi_add_str(m, k[1], "other");
	multi_add_str(m, k[0], "second, longer");
	multi_add_str(m, k[0], "3rd");
	ASSERT_EQ(0, multi_run(self->fd, KVBENCH_IOC_MSET, m, 0));
	multi_expect(_metadata, m, (int[]){ 0, 0, 0, 0 });
	EXPECT_EQ(0, get_check_str(self->fd, k[0], "3rd"));
	EXPECT_EQ(0, get_check_str(self->fd, k[1], "other"));

	/* Each GET of the key finds it, and each takes its room. */
	ASSERT_EQ(0, multi_run(self->fd, KVBENCH_IOC_MGET, m, 64));
	multi_expect(_metadata, m, (int[]){ 0, 0, 0, 0 });
	multi_expect_value(_metadata, m, 0, 0, "3rd", 3);
	multi_expect_value(_metadata, m, 1, 3, "other", 5);
	multi_expect_value(_metadata, m, 2, 8, "3rd", 3);
	multi_expect_value(_metadata, m, 3, 11, "3rd", 3);
	multi_expect_canary(_metadata, m, 14);

	/* The first DEL of the key finds it, the later ones do not. */
	ASSERT_EQ(0, multi_run(self->fd, KVBENCH_IOC_MDEL, m, 0));
	multi_expect(_metadata, m, (int[]){ 0, 0, -ENOENT, -ENOENT });
	EXPECT_EQ(-ENOENT, get_check_str(self->fd, k[0], ""));
	free(m);
}

/*
 * At max_entries, an MSET's ops take the room in array order: with room
 * for one new key, [b, c] stores b and refuses c, [c, b] the reverse.
 * Many pairs, so that they land in the same and in different shards of
 * kthread-percpu; an overwrite at the limit still succeeds.
 */
TEST_F(kvbench, mset_order_at_limit)
{
	char a[KVBENCH_KEY_MAX + 1], b[KVBENCH_KEY_MAX + 1], c[KVBENCH_KEY_MAX + 1];
	struct multi *m = calloc(1, sizeof(*m));
	struct kvb_stats st;
	unsigned int i;
	char name[16];

	ASSERT_NE(NULL, m);
	mkkey(&self->keys, a, "a");
	ASSERT_EQ(0, set_str(self->fd, a, "A"));
	ASSERT_EQ(0, stats_read(&st));
	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("max_entries"),
				     st.v[ST_ENTRIES] + 1));
	for (i = 0; i < 16; i++) {
		snprintf(name, sizeof(name), "b%u", i);
		mkkey(&self->keys, b, name);
		snprintf(name, sizeof(name), "c%u", i);
		mkkey(&self->keys, c, name);

		multi_clear(m);
		multi_add_str(m, a, "A, overwritten");
		multi_add_str(m, i % 2 ? c : b, "first");
		multi_add_str(m, i % 2 ? b : c, "second");
		ASSERT_EQ(0, multi_run(self->fd, KVBENCH_IOC_MSET, m, 0));
		multi_expect(_metadata, m, (int[]){ 0, 0, -ENOSPC });
		EXPECT_EQ(0, get_check_str(self->fd, i % 2 ? c : b, "first"));
		EXPECT_EQ(-ENOENT, get_check_str(self->fd, i % 2 ? b : c, ""));
		EXPECT_EQ(0, get_check_str(self->fd, a, "A, overwritten"));

		/* [DEL first, ...]: the room is back for the next pair. */
		multi_clear(m);
		multi_add_str(m, i % 2 ? c : b, NULL);
		multi_add_str(m, i % 2 ? b : c, NULL);
		ASSERT_EQ(0, multi_run(self->fd, KVBENCH_IOC_MDEL, m, 0));
		multi_expect(_metadata, m, (int[]){ 0, -ENOENT });
	}
	free(m);
}

/* max_bytes: a SET that does not fit fails, a later smaller one fits. */
TEST_F(kvbench, mset_max_bytes_enospc)
{
	char k[4][KVBENCH_KEY_MAX + 1];
	struct multi *m = calloc(1, sizeof(*m));
	struct kvb_stats st;
	unsigned long long e;
	unsigned int i, klen = 0;
	char val[32];

	ASSERT_NE(NULL, m);
	memset(val, 'v', sizeof(val));
	use_bulk(&self->keys, 4);
	for (i = 0; i < 4; i++)
		klen = bulk_key(self->keys.prefix, i, k[i]);
	e = klen + 10 + KVB_ENTRY_OVERHEAD;
	ASSERT_EQ(0, stats_read(&st));
	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("max_bytes"), st.v[ST_BYTES] + 2 * e));

	multi_add(m, k[0], klen, val, 10);
	multi_add(m, k[1], klen, val, 11);
	multi_add(m, k[2], klen, val, 10);
	multi_add(m, k[3], klen, val, 0);
	ASSERT_EQ(0, multi_run(self->fd, KVBENCH_IOC_MSET, m, 0));
	multi_expect(_metadata, m, (int[]){ 0, -ENOSPC, 0, -ENOSPC });
	EXPECT_EQ(0, get_check(self->fd, k[0], klen, val, 10));
	EXPECT_EQ(-ENOENT, get_check(self->fd, k[1], klen, val, 0));
	EXPECT_EQ(0, get_check(self->fd, k[2], klen, val, 10));
	EXPECT_EQ(-ENOENT, get_check(self->fd, k[3], klen, val, 0));
	free(m);
}

TEST_F(kvbench, mset_max_entries_enospc)
{
	char k[3][KVBENCH_KEY_MAX + 1];
	struct multi *m = calloc(1, sizeof(*m));
	struct kvb_stats st;

	ASSERT_NE(NULL, m);
	multi_keys(&self->keys, k, 3);
	ASSERT_EQ(0, stats_read(&st));
	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("max_entries"), st.v[ST_ENTRIES] + 2));
	multi_add_str(m, k[0], "1");
	multi_add_str(m, k[1], "2");
	multi_add_str(m, k[2], "3");
	multi_add_str(m, k[0], "one, longer");
	ASSERT_EQ(0, multi_run(self->fd, KVBENCH_IOC_MSET, m, 0));
	multi_expect(_metadata, m, (int[]){ 0, 0, -ENOSPC, 0 });
	EXPECT_EQ(0, get_check_str(self->fd, k[0], "one, longer"));
	EXPECT_EQ(-ENOENT, get_check_str(self->fd, k[2], ""));
	free(m);
}

/*
 * Unreadable keys, key_lens or (MSET) value_lens fail the whole call
 * before any op runs.
 */
TEST_F(kvbench, multi_arrays_efault)
{
	unsigned char *edge = self->page + self->page_size;
	char k[2][KVBENCH_KEY_MAX + 1];
	struct multi *m = calloc(1, sizeof(*m));
	struct kvb_stats s0;
	unsigned int c, i, where;

	ASSERT_NE(NULL, m);
	multi_keys(&self->keys, k, 2);
	ASSERT_EQ(0, set_str(self->fd, k[0], "v0"));
	multi_add_str(m, k[1], "new");
	multi_add_str(m, k[0], "v0!");
	for (c = 0; c < ARRAY_SIZE(multi_cmds); c++) {
		unsigned long cmd = multi_cmds[c];

		for (where = 0; where < 3; where++) {
			if (where == 2 && cmd != KVBENCH_IOC_MSET)
				continue;
			/* NR_BAD_PTRS unreadable, then one straddling the hole */
			for (i = 0; i <= NR_BAD_PTRS; i++) {
				__u64 bad = self->bad[i];
				size_t len;

				multi_prep(m, cmd, 64);
				if (where == 0) {
					len = m->kused;
					if (i == NR_BAD_PTRS) {
						/* the last key's last byte is in the hole */
						bad = uptr(edge - len + 1);
						memcpy(edge - len + 1, m->keys, len - 1);
					}
					m->arg.keys = bad;
				} else {
					len = 2 * sizeof(__u32);
					if (i == NR_BAD_PTRS) {
						bad = uptr(edge - sizeof(__u32));
						memcpy(edge - sizeof(__u32), where == 1 ?
						       m->key_lens : m->value_lens,
						       sizeof(__u32));
					}
					if (where == 1)
						m->arg.key_lens = bad;
					else
						m->arg.value_lens = bad;
				}
				ASSERT_EQ(0, stats_read(&s0));
				EXPECT_EQ(-EFAULT, multi_call(self->fd, cmd, m))
					TH_LOG("%s, %s %s", multi_name(cmd),
					       where == 0 ? "keys" : where == 1 ?
					       "key_lens" : "value_lens",
					       i < NR_BAD_PTRS ? bad_ptr_names[i] :
					       "straddling the hole");
				multi_expect_none_ran(_metadata, self->fd, m, cmd,
						      k, &s0);
			}
		}
	}
	free(m);
}

/*
 * results (and, MGET, value_lens and the values) that cannot be written
 * fail the call with EFAULT after the ops ran: the MSET stored, the MDEL
 * deleted.
 */
TEST_F(kvbench, multi_out_arrays_efault)
{
	unsigned char *edge = self->page + self->page_size;
	char k[2][KVBENCH_KEY_MAX + 1];
	struct multi *m = calloc(1, sizeof(*m));
	unsigned int c, i, where;

	ASSERT_NE(NULL, m);
	multi_keys(&self->keys, k, 2);
	for (c = 0; c < ARRAY_SIZE(multi_cmds); c++) {
		unsigned long cmd = multi_cmds[c];

		for (where = 0; where < 3; where++) {
			if (where && cmd != KVBENCH_IOC_MGET)
				continue;
			/* every bad pointer, the read-only page, then straddling */
			for (i = 0; i <= NR_BAD_PTRS + 1; i++) {
				bool straddle = i > NR_BAD_PTRS;
				__u64 bad = straddle ? 0 : self->bad[i];
				const char *what = straddle ? "straddling the hole" :
						   bad_ptr_names[i];

				ASSERT_EQ(0, set_str(self->fd, k[0], "v0"));
				ASSERT_EQ(0, set_str(self->fd, k[1], "v1"));
				multi_clear(m);
				multi_add_str(m, k[0], cmd == KVBENCH_IOC_MSET ? "new0" : NULL);
				multi_add_str(m, k[1], cmd == KVBENCH_IOC_MSET ? "new1" : NULL);
				multi_prep(m, cmd, 64);
				if (where == 0) {
					if (straddle)
						bad = uptr(edge - sizeof(__s32));
					m->arg.results = bad;
				} else if (where == 1) {
					if (straddle)
						bad = uptr(edge - sizeof(__u32));
					m->arg.value_lens = bad;
				} else {
					/* the second value runs into the hole */
					if (straddle)
						bad = uptr(edge - 3);
					m->arg.values = bad;
				}
				EXPECT_EQ(-EFAULT, multi_call(self->fd, cmd, m))
					TH_LOG("%s, %s %s", multi_name(cmd),
					       where == 0 ? "results" : where == 1 ?
					       "value_lens" : "values", what);
				/* The ops ran. */
				if (cmd == KVBENCH_IOC_MSET) {
					EXPECT_EQ(0, get_check_str(self->fd, k[0], "new0"));
					EXPECT_EQ(0, get_check_str(self->fd, k[1], "new1"));
				} else if (cmd == KVBENCH_IOC_MDEL) {
					EXPECT_EQ(-ENOENT, get_check_str(self->fd, k[0], ""));
					EXPECT_EQ(-ENOENT, get_check_str(self->fd, k[1], ""));
				} else {
					EXPECT_EQ(0, get_check_str(self->fd, k[0], "v0"));
				}
			}
		}
	}
	free(m);
}

/*
 * An MSET value that cannot be read fails that op alone, with EFAULT, and
 * keeps the old value: values running into the hole midway, values in a
 * PROT_NONE page.
 */
TEST_F(kvbench, mset_value_efault)
{
	unsigned char *edge = self->page + self->page_size;
	char k[4][KVBENCH_KEY_MAX + 1];
	struct multi *m = calloc(1, sizeof(*m));
	struct kvb_stats s0, s1;
	unsigned int i;

	ASSERT_NE(NULL, m);
	multi_keys(&self->keys, k, 4);
	ASSERT_EQ(0, set_str(self->fd, k[1], "old value"));
	multi_add_str(m, k[0], NULL);
	multi_add_str(m, k[1], NULL);
	multi_add_str(m, k[2], NULL);
	multi_add_str(m, k[3], NULL);

	/* [8 readable][4 readable + 4 in the hole][0][8 in the hole] */
	multi_prep(m, KVBENCH_IOC_MSET, 0);
	memcpy(edge - 12, "eight..!four", 12);
	m->arg.values = uptr(edge - 12);
	m->value_lens[0] = 8;
	m->value_lens[1] = 8;
	m->value_lens[2] = 0;
	m->value_lens[3] = 8;
	m->arg.values_size = 24;
	ASSERT_EQ(0, stats_read(&s0));
	ASSERT_EQ(0, multi_call(self->fd, KVBENCH_IOC_MSET, m));
	ASSERT_EQ(0, stats_read(&s1));
	multi_expect(_metadata, m, (int[]){ 0, -EFAULT, 0, -EFAULT });
	EXPECT_EQ(0, get_check_str(self->fd, k[0], "eight..!"));
	EXPECT_EQ(0, get_check_str(self->fd, k[1], "old value"));
	EXPECT_EQ(0, get_check_str(self->fd, k[2], ""));
	EXPECT_EQ(-ENOENT, get_check_str(self->fd, k[3], ""));
	EXPECT_EQ(s0.v[ST_SETS] + 2, s1.v[ST_SETS]);
	EXPECT_EQ(s0.v[ST_ENTRIES] + 2, s1.v[ST_ENTRIES]);

	/* Every unreadable pointer: the empty values still go through. */
	for (i = 0; i < NR_BAD_PTRS; i++) {
		multi_prep(m, KVBENCH_IOC_MSET, 0);
		m->arg.values = self->bad[i];
		m->value_lens[0] = 0;
		m->value_lens[1] = 3;
		m->value_lens[2] = 0;
		m->value_lens[3] = 0;
		m->arg.values_size = 3;
		ASSERT_EQ(0, multi_call(self->fd, KVBENCH_IOC_MSET, m))
			TH_LOG("values %s", bad_ptr_names[i]);
		multi_expect(_metadata, m, (int[]){ 0, -EFAULT, 0, 0 });
		EXPECT_EQ(0, get_check_str(self->fd, k[1], "old value"));
		EXPECT_EQ(0, get_check_str(self->fd, k[3], ""));
		EXPECT_EQ(0, del_str(self->fd, k[3]));
	}
	free(m);
}

/* The argument struct itself cannot be read. */
TEST_F(kvbench, multi_bad_arg_efault)
{
	unsigned int c;
	int i;

	for (c = 0; c < ARRAY_SIZE(multi_cmds); c++)
		for (i = 0; i < NR_BAD_PTRS; i++) {
			void *arg = (void *)(unsigned long)self->bad[i];

			EXPECT_EQ(-EFAULT, kvb_ioctl(self->fd, multi_cmds[c], arg))
				TH_LOG("%s arg %s", multi_name(multi_cmds[c]),
				       bad_ptr_names[i]);
		}
}

/* The new numbers with another size or direction are unknown commands. */
TEST_F(kvbench, multi_wrong_cmd_enotty)
{
	unsigned long cmds[] = {
		_IOWR(KVBENCH_IOC_MAGIC, 0x05, struct kvbench_multi),	/* MGET is _IOW */
		_IOR(KVBENCH_IOC_MAGIC, 0x05, struct kvbench_multi),
		_IO(KVBENCH_IOC_MAGIC, 0x05),
		_IOW(KVBENCH_IOC_MAGIC, 0x05, struct kvbench_batch),
		_IOW(KVBENCH_IOC_MAGIC, 0x05, struct kvbench_kv),
		_IOWR(KVBENCH_IOC_MAGIC, 0x06, struct kvbench_multi),
		_IOW(KVBENCH_IOC_MAGIC, 0x06, struct kvbench_kv),
		_IOW(KVBENCH_IOC_MAGIC, 0x06, __u64),
		_IOR(KVBENCH_IOC_MAGIC, 0x07, struct kvbench_multi),
		_IOW(KVBENCH_IOC_MAGIC, 0x07, struct kvbench_op),
		_IOW(KVBENCH_IOC_MAGIC, 0x08, struct kvbench_multi),	/* no such number */
		_IOW(KVBENCH_IOC_MAGIC + 1, 0x05, struct kvbench_multi),
		/* the old numbers with the new struct */
		_IOWR(KVBENCH_IOC_MAGIC, 0x04, struct kvbench_multi),
		_IOW(KVBENCH_IOC_MAGIC, 0x02, struct kvbench_multi),
	};

	expect_enotty(_metadata, self->fd, cmds, ARRAY_SIZE(cmds));
}

/*
 * Each op counts as its single ioctl would: gets, hits, misses, sets,
 * dels. Whether a packed call counts in "batches" the ABI does not say:
 * it is printed, not judged.
 */
TEST_F(kvbench, stats_multi)
{
	char k[3][KVBENCH_KEY_MAX + 1];
	struct multi *m = calloc(1, sizeof(*m));
	struct kvb_stats s0, s1;
	long long delta[ST_NR] = { 0 };
	int i;

	ASSERT_NE(NULL, m);
	multi_keys(&self->keys, k, 3);
	ASSERT_EQ(0, set_str(self->fd, k[0], "old"));
	ASSERT_EQ(0, stats_read(&s0));

	multi_add_str(m, k[0], "new");			/* overwrite */
	multi_add_str(m, k[1], "a longer one");		/* new */
	ASSERT_EQ(0, multi_run(self->fd, KVBENCH_IOC_MSET, m, 0));
	multi_clear(m);
	multi_add_str(m, k[0], NULL);			/* hit */
	multi_add_str(m, k[1], NULL);			/* hit, ERANGE */
	multi_add_str(m, k[2], NULL);			/* miss */
	ASSERT_EQ(0, multi_run(self->fd, KVBENCH_IOC_MGET, m, 4));
	multi_expect(_metadata, m, (int[]){ 0, -ERANGE, -ENOENT });
	ASSERT_EQ(0, multi_run(self->fd, KVBENCH_IOC_MDEL, m, 0));
	multi_expect(_metadata, m, (int[]){ 0, 0, -ENOENT });
	/* A call rejected as a whole counts nothing. */
	multi_prep(m, KVBENCH_IOC_MGET, 64);
	m->arg.flags = 1;
	ASSERT_EQ(-EINVAL, multi_call(self->fd, KVBENCH_IOC_MGET, m));
	ASSERT_EQ(0, stats_read(&s1));

	delta[ST_SETS] = 2;
	delta[ST_GETS] = 3;
	delta[ST_HITS] = 2;
	delta[ST_MISSES] = 1;
	delta[ST_DELS] = 3;
	for (i = ST_GETS; i < ST_NR; i++) {
		long long seen = s1.v[i] - s0.v[i];

		if (i == ST_BATCHES) {
			TH_LOG("batches: +%lld for 3 packed calls (not judged)", seen);
			continue;
		}
		EXPECT_EQ(delta[i], seen) TH_LOG("counter %s", stat_names[i]);
	}
	EXPECT_EQ(s0.v[ST_ENTRIES] - 1, s1.v[ST_ENTRIES]);
	EXPECT_EQ(s0.v[ST_BYTES] - (strlen(k[0]) + 3 + KVB_ENTRY_OVERHEAD),
		  s1.v[ST_BYTES]);
	free(m);
}

/* ------------------------------------------------------- backend switch */

TEST_F(kvbench, switch_unknown_einval)
{
	char buf[64];

	EXPECT_EQ(-EINVAL, switch_backend("no-such-backend"));
	EXPECT_EQ(-EINVAL, switch_backend("\n"));
	EXPECT_EQ(-EINVAL, switch_backend("rwlock-and-more"));
	ASSERT_EQ(0, sysfs_read(KVB_ATTR("backend"), buf, sizeof(buf)));
	EXPECT_STREQ(variant->backend, buf);
	/* The same name with a newline, as echo writes it, is fine. */
	snprintf(buf, sizeof(buf), "%s\n", variant->backend);
	EXPECT_EQ(0, switch_backend(buf));
}

#define SWITCH_KEYS	200

static void expect_bulk_values(struct __test_metadata *_metadata, int fd,
			       const char *prefix, unsigned int n,
			       const char *where)
{
	unsigned char val[STAMP_MAX];
	char key[KVBENCH_KEY_MAX + 1];
	unsigned int i, klen;
	size_t len;

	for (i = 0; i < n; i++) {
		klen = bulk_key(prefix, i, key);
		len = stamp_encode(val, 0, i, i);
		EXPECT_EQ(0, get_check(fd, key, klen, val, len))
			TH_LOG("key %u after switch to %s", i, where);
	}
}

TEST_F(kvbench, switch_keeps_entries)
{
	unsigned char val[STAMP_MAX];
	char key[KVBENCH_KEY_MAX + 1];
	struct kvb_stats s0, s1;
	unsigned int i, b, klen;
	struct kvb_list l;
	size_t len;

	ASSERT_EQ(0, kvb_backends_read(&l));
	use_bulk(&self->keys, SWITCH_KEYS);
	for (i = 0; i < SWITCH_KEYS; i++) {
		klen = bulk_key(self->keys.prefix, i, key);
		len = stamp_encode(val, 0, i, i);
		ASSERT_EQ(0, kvb_set(self->fd, key, klen, val, len));
	}
	ASSERT_EQ(0, stats_read(&s0));
	for (b = 0; b <= l.n; b++) {
		const char *name = b < l.n ? l.name[b] : variant->backend;

		ASSERT_EQ(0, switch_backend(name)) TH_LOG("switch to %s", name);
		expect_bulk_values(_metadata, self->fd, self->keys.prefix,
				   SWITCH_KEYS, name);
		ASSERT_EQ(0, stats_read(&s1));
		EXPECT_EQ(s0.v[ST_ENTRIES], s1.v[ST_ENTRIES]) TH_LOG("%s", name);
		EXPECT_EQ(s0.v[ST_BYTES], s1.v[ST_BYTES]) TH_LOG("%s", name);
	}
}

/* Reads the bulk keys over and over, counting wrong answers, until told. */
struct matrix_reader {
	const char *prefix;
	atomic_bool stop;
	atomic_ulong reads;
	unsigned long bad;
};

/* Wait (up to 10 s) until the reader has done @n more reads. */
static void matrix_wait(struct matrix_reader *r, unsigned long n)
{
	unsigned long target = atomic_load(&r->reads) + n;
	int i;

	for (i = 0; i < 10000 && atomic_load(&r->reads) < target; i++)
		usleep(1000);
}

static void *matrix_read(void *arg)
{
	struct matrix_reader *r = arg;
	unsigned char val[STAMP_MAX];
	char key[KVBENCH_KEY_MAX + 1];
	unsigned int i = 0, klen;
	size_t len;
	int fd;

	fd = open(KVB_DEV, O_RDWR);
	if (fd < 0) {
		r->bad++;
		return NULL;
	}
	while (!atomic_load(&r->stop)) {
		klen = bulk_key(r->prefix, i, key);
		len = stamp_encode(val, 0, i, i);
		if (get_check(fd, key, klen, val, len))
			r->bad++;
		atomic_fetch_add(&r->reads, 1);
		i = (i + 1) % SWITCH_KEYS;
	}
	close(fd);
	return NULL;
}

/*
 * From this variant's backend to every other backend and back, while a
 * reader checks every entry it reads: over all variants, every ordered pair
 * of backends is switched under load once.
 */
TEST_F(kvbench, switch_matrix)
{
	struct matrix_reader r = { .prefix = self->keys.prefix };
	unsigned char val[STAMP_MAX];
	char key[KVBENCH_KEY_MAX + 1];
	unsigned int i, b, klen;
	struct kvb_list l;
	pthread_t reader;
	size_t len;

	ASSERT_EQ(0, kvb_backends_read(&l));
	use_bulk(&self->keys, SWITCH_KEYS);
	r.prefix = self->keys.prefix;
	for (i = 0; i < SWITCH_KEYS; i++) {
		klen = bulk_key(self->keys.prefix, i, key);
		len = stamp_encode(val, 0, i, i);
		ASSERT_EQ(0, kvb_set(self->fd, key, klen, val, len));
	}
	ASSERT_EQ(0, pthread_create(&reader, NULL, matrix_read, &r));
	/* Every switch happens while the reader is reading. */
	matrix_wait(&r, SWITCH_KEYS);
	for (b = 0; b < l.n; b++) {
		if (!strcmp(l.name[b], variant->backend))
			continue;
		EXPECT_EQ(0, switch_backend(l.name[b]))
			TH_LOG("%s -> %s", variant->backend, l.name[b]);
		matrix_wait(&r, 20);
		EXPECT_EQ(0, switch_backend(variant->backend))
			TH_LOG("%s -> %s", l.name[b], variant->backend);
		matrix_wait(&r, 20);
	}
	atomic_store(&r.stop, true);
	pthread_join(reader, NULL);
	EXPECT_EQ(0UL, r.bad) TH_LOG("%lu of %lu reads wrong", r.bad,
				     atomic_load(&r.reads));
	EXPECT_LT((unsigned long)SWITCH_KEYS, atomic_load(&r.reads));
	expect_bulk_values(_metadata, self->fd, self->keys.prefix,
			   SWITCH_KEYS, variant->backend);
}

TEST_F(kvbench, switch_keeps_limits)
{
	char key[KVBENCH_KEY_MAX + 1];
	struct kvb_stats st;
	struct kvb_list l;
	unsigned int b;

	ASSERT_EQ(0, kvb_backends_read(&l));
	use_bulk(&self->keys, 2);
	ASSERT_EQ(0, set_str(self->fd, (bulk_key(self->keys.prefix, 0, key), key), "0"));
	ASSERT_EQ(0, stats_read(&st));
	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("max_entries"), st.v[ST_ENTRIES]));
	for (b = 0; b < l.n; b++) {
		ASSERT_EQ(0, switch_backend(l.name[b])) TH_LOG("%s", l.name[b]);
		bulk_key(self->keys.prefix, 1, key);
		EXPECT_EQ(-ENOSPC, set_str(self->fd, key, "1"))
			TH_LOG("%s", l.name[b]);
		bulk_key(self->keys.prefix, 0, key);
		EXPECT_EQ(0, set_str(self->fd, key, l.name[b]));
		EXPECT_EQ(0, get_check_str(self->fd, key, l.name[b]));
	}
}

/* ---------------------------------------------------------- concurrency */

#define STRESS_THREADS	4
#define STRESS_KEYS	16	/* per thread, written by their owner only */
#define STRESS_SHARED	8	/* written by every thread */
#define STRESS_SECONDS	5

struct stress {
	const char *prefix;
	unsigned int nthreads;
	const char *const *backends;
	unsigned int nbackends;
	atomic_bool stop;
	atomic_ulong ops, switches;
	atomic_ulong lost, ghost, stale, torn, foreign, errors;
	atomic_int first_errno;
};

struct stress_worker {
	struct stress *s;
	pthread_t thread;
	unsigned int tid;
	unsigned int seed;
	int fd;
	__u64 version[STRESS_KEYS];
	bool present[STRESS_KEYS];
};

/* The first failure a thread recorded: -errno, or -1 for a wrong value. */
static const char *failure_str(int err)
{
	if (!err)
		return "none";
	return err == -1 ? "wrong value" : strerror(-err);
}

static void stress_error(struct stress *s, atomic_ulong *counter, int err)
{
	int zero = 0;

	atomic_fetch_add(counter, 1);
	atomic_compare_exchange_strong(&s->first_errno, &zero, err ? err : -1);
}

static unsigned long stress_failures(struct stress *s)
{
	return atomic_load(&s->lost) + atomic_load(&s->ghost) +
	       atomic_load(&s->stale) + atomic_load(&s->torn) +
	       atomic_load(&s->foreign) + atomic_load(&s->errors);
}

/*
 * Judge the outcome @ret of a GET of key @idx of thread @tid (any thread
 * for STAMP_ANY_TID). @w knows the state of its own keys; @own says the
 * key is one of them.
 */
static void stress_judge(struct stress_worker *w, int ret,
			 const unsigned char *buf, __u32 len, __u32 tid,
			 unsigned int idx, bool own)
{
	struct stress *s = w->s;
	__u64 version;

	if (ret == -ENOENT) {
		if (own && w->present[idx])
			stress_error(s, &s->lost, ret);
		return;
	}
	if (ret) {
		stress_error(s, &s->errors, ret);
		return;
	}
	if (own && !w->present[idx]) {
		stress_error(s, &s->ghost, 0);
		return;
	}
	switch (stamp_check(buf, len, tid, idx, &version)) {
	case STAMP_TORN:
		stress_error(s, &s->torn, 0);
		return;
	case STAMP_FOREIGN:
		stress_error(s, &s->foreign, 0);
		return;
	}
	if (own && version != w->version[idx])
		stress_error(s, &s->stale, 0);
}

/* GET key @idx of thread @tid; @own: this thread owns it and knows its state. */
static void stress_get(struct stress_worker *w, unsigned int tid,
		       unsigned int idx, bool own)
{
	unsigned char buf[STAMP_MAX];
	char key[KVBENCH_KEY_MAX + 1];
	__u32 len = sizeof(buf);
	unsigned int klen;
	int ret;

	klen = bulk_key(w->s->prefix, tid * STRESS_KEYS + idx, key);
	ret = kvb_get(w->fd, key, klen, buf, &len);
	stress_judge(w, ret, buf, len, tid, idx, own);
}

static void stress_set(struct stress_worker *w, unsigned int idx)
{
	unsigned char val[STAMP_MAX];
	char key[KVBENCH_KEY_MAX + 1];
	unsigned int klen;
	size_t len;
	int ret;

	klen = bulk_key(w->s->prefix, w->tid * STRESS_KEYS + idx, key);
	len = stamp_encode(val, w->tid, idx, w->version[idx] + 1);
	ret = kvb_set(w->fd, key, klen, val, len);
	if (ret) {
		stress_error(w->s, &w->s->errors, ret);
		return;
	}
	w->version[idx]++;
	w->present[idx] = true;
}

static void stress_del(struct stress_worker *w, unsigned int idx)
{
	struct stress *s = w->s;
	char key[KVBENCH_KEY_MAX + 1];
	unsigned int klen;
	int ret;

	klen = bulk_key(s->prefix, w->tid * STRESS_KEYS + idx, key);
	ret = kvb_del(w->fd, key, klen);
	if (ret == -ENOENT && w->present[idx])
		stress_error(s, &s->lost, ret);
	else if (ret == 0 && !w->present[idx])
		stress_error(s, &s->ghost, 0);
	else if (ret && ret != -ENOENT)
		stress_error(s, &s->errors, ret);
	w->present[idx] = false;
}

/* One BATCH: SET a new version of an own key, then GET it back. */
static void stress_batch(struct stress_worker *w, unsigned int idx)
{
	unsigned char val[STAMP_MAX], buf[STAMP_MAX];
	char key[KVBENCH_KEY_MAX + 1];
	struct kvbench_op ops[2];
	unsigned int klen;
	size_t len;
	int ret;

	klen = bulk_key(w->s->prefix, w->tid * STRESS_KEYS + idx, key);
	len = stamp_encode(val, w->tid, idx, w->version[idx] + 1);
	op_init(&ops[0], KVBENCH_OP_SET, key, klen, val, len);
	op_init(&ops[1], KVBENCH_OP_GET, key, klen, buf, sizeof(buf));
	ret = kvb_batch(w->fd, ops, 2, 0);
	if (!ret)
		ret = ops[0].result;
	if (ret) {
		stress_error(w->s, &w->s->errors, ret);
		return;
	}
	w->version[idx]++;
	w->present[idx] = true;
	stress_judge(w, ops[1].result, buf, ops[1].kv.value_len, w->tid, idx,
		     true);
}

/* Keys every thread writes: only their integrity can be checked. */
static void stress_shared(struct stress_worker *w, unsigned int op)
{
	unsigned int k = rand_r(&w->seed) % STRESS_SHARED;
	unsigned char buf[STAMP_MAX];
	char key[KVBENCH_KEY_MAX + 1];
	__u32 len = sizeof(buf);
	unsigned int klen;
	int ret;

	klen = bulk_key(w->s->prefix, w->s->nthreads * STRESS_KEYS + k, key);
	if (op == 0) {
		len = stamp_encode(buf, w->tid, k, rand_r(&w->seed));
		ret = kvb_set(w->fd, key, klen, buf, len);
	} else if (op == 1) {
		ret = kvb_del(w->fd, key, klen);
		if (ret == -ENOENT)
			ret = 0;
	} else {
		ret = kvb_get(w->fd, key, klen, buf, &len);
		stress_judge(w, ret, buf, len, STAMP_ANY_TID, k, false);
		return;
	}
	if (ret)
		stress_error(w->s, &w->s->errors, ret);
}

static void *stress_worker_fn(void *arg)
{
	struct stress_worker *w = arg;
	struct stress *s = w->s;
	unsigned int idx, op;

	while (!atomic_load(&s->stop)) {
		op = rand_r(&w->seed) % 20;
		idx = rand_r(&w->seed) % STRESS_KEYS;
		if (op < 6)
			stress_set(w, idx);
		else if (op < 11)
			stress_get(w, w->tid, idx, true);
		else if (op < 12)
			stress_del(w, idx);
		else if (op < 14)
			stress_get(w, rand_r(&w->seed) % s->nthreads, idx, false);
		else if (op < 15)
			stress_batch(w, idx);
		else
			stress_shared(w, op % 3);
		atomic_fetch_add(&s->ops, 1);
	}
	return NULL;
}

static void *stress_switcher_fn(void *arg)
{
	struct stress *s = arg;
	bool gone[8] = { false };
	unsigned int i = 0;
	int ret;

	while (!atomic_load(&s->stop)) {
		i = (i + 1) % s->nbackends;
		if (gone[i])
			continue;
		ret = switch_backend(s->backends[i]);
		if (ret == -EINVAL)
			gone[i] = true;
		else if (ret)
			stress_error(s, &s->errors, ret);
		else
			atomic_fetch_add(&s->switches, 1);
		usleep(1000);
	}
	return NULL;
}

/*
 * The switcher visits every backend in turn, whichever the test starts on:
 * one backend runs it.
 */
TEST_F_TIMEOUT(kvbench, switch_under_load, 120)
{
	struct stress_worker w[STRESS_THREADS];
	struct stress s = {
		.prefix = self->keys.prefix,
		.nthreads = STRESS_THREADS,
	};
	struct kvb_list l;
	pthread_t switcher;
	unsigned int t, i;
	int ret;

	if (strcmp(variant->backend, "rwlock"))
		SKIP(return, "the switcher visits every backend: rwlock runs it");
	ASSERT_EQ(0, kvb_backends_read(&l));
	s.backends = l.name;
	s.nbackends = l.n;

	use_bulk(&self->keys, STRESS_THREADS * STRESS_KEYS + STRESS_SHARED);
	for (t = 0; t < STRESS_THREADS; t++) {
		memset(&w[t], 0, sizeof(w[t]));
		w[t].s = &s;
		w[t].tid = t;
		w[t].seed = t * 7919 + 1;
		w[t].fd = open(KVB_DEV, O_RDWR);
		ASSERT_LE(0, w[t].fd);
	}
	for (t = 0; t < STRESS_THREADS; t++) {
		ret = pthread_create(&w[t].thread, NULL, stress_worker_fn, &w[t]);
		ASSERT_EQ(0, ret);
	}
	ASSERT_EQ(0, pthread_create(&switcher, NULL, stress_switcher_fn, &s));
	sleep(STRESS_SECONDS);
	atomic_store(&s.stop, true);
	pthread_join(switcher, NULL);
	for (t = 0; t < STRESS_THREADS; t++)
		pthread_join(w[t].thread, NULL);

	TH_LOG("%lu ops, %lu backend switches", atomic_load(&s.ops),
	       atomic_load(&s.switches));
	EXPECT_LT(0UL, atomic_load(&s.switches));
	EXPECT_LT(0UL, atomic_load(&s.ops));
	EXPECT_EQ(0UL, atomic_load(&s.lost));
	EXPECT_EQ(0UL, atomic_load(&s.ghost));
	EXPECT_EQ(0UL, atomic_load(&s.stale));
	EXPECT_EQ(0UL, atomic_load(&s.torn));
	EXPECT_EQ(0UL, atomic_load(&s.foreign));
	EXPECT_EQ(0UL, atomic_load(&s.errors))
		TH_LOG("first error: %s", failure_str(atomic_load(&s.first_errno)));

	/* At rest, on this variant's backend, every key is as last written. */
	ASSERT_EQ(0, switch_backend(variant->backend));
	for (t = 0; t < STRESS_THREADS; t++) {
		unsigned long before = stress_failures(&s);

		for (i = 0; i < STRESS_KEYS; i++)
			stress_get(&w[t], t, i, true);
		EXPECT_EQ(before, stress_failures(&s))
			TH_LOG("thread %u: final state differs", t);
	}
	for (i = 0; i < STRESS_SHARED; i++) {
		unsigned char buf[STAMP_MAX];
		char key[KVBENCH_KEY_MAX + 1];
		__u32 len = sizeof(buf);
		unsigned int klen;
		__u64 version;

		klen = bulk_key(self->keys.prefix, STRESS_THREADS * STRESS_KEYS + i, key);
		ret = kvb_get(self->fd, key, klen, buf, &len);
		if (ret == -ENOENT)
			continue;
		ASSERT_EQ(0, ret);
		EXPECT_EQ(STAMP_OK, stamp_check(buf, len, STAMP_ANY_TID, i, &version))
			TH_LOG("shared key %u", i);
	}
	for (t = 0; t < STRESS_THREADS; t++)
		close(w[t].fd);
}

/* More threads than any sane request queue has slots, all at once. */
#define MANY_THREADS	320
#define MANY_ITERS	8

struct many {
	const char *prefix;
	pthread_barrier_t start;
	atomic_ulong failures;
	atomic_int first_errno;
	int fd;
};

struct many_worker {
	struct many *m;
	pthread_t thread;
	unsigned int tid;
};

static void many_fail(struct many *m, int err)
{
	int zero = 0;

	atomic_fetch_add(&m->failures, 1);
	atomic_compare_exchange_strong(&m->first_errno, &zero, err ? err : -1);
}

static void *many_worker_fn(void *arg)
{
	struct many_worker *w = arg;
	struct many *m = w->m;
	unsigned char val[STAMP_MAX], buf[STAMP_MAX];
	char key[KVBENCH_KEY_MAX + 1];
	struct kvbench_op ops[2];
	unsigned int i, klen;
	__u64 version;
	__u32 len;
	size_t vlen;
	int ret;

	klen = bulk_key(m->prefix, w->tid, key);
	pthread_barrier_wait(&m->start);
	for (i = 1; i <= MANY_ITERS; i++) {
		vlen = stamp_encode(val, w->tid, 0, i);
		if (i % 2) {
			ret = kvb_set(m->fd, key, klen, val, vlen);
			if (ret) {
				many_fail(m, ret);
				continue;
			}
			len = sizeof(buf);
			ret = kvb_get(m->fd, key, klen, buf, &len);
		} else {
			op_init(&ops[0], KVBENCH_OP_SET, key, klen, val, vlen);
			op_init(&ops[1], KVBENCH_OP_GET, key, klen, buf, sizeof(buf));
			ret = kvb_batch(m->fd, ops, 2, 0);
			if (!ret)
				ret = ops[0].result ? ops[0].result : ops[1].result;
			len = ops[1].kv.value_len;
		}
		if (ret) {
			many_fail(m, ret);
			continue;
		}
		if (stamp_check(buf, len, w->tid, 0, &version) != STAMP_OK ||
		    version != i)
			many_fail(m, 0);
	}
	ret = kvb_del(m->fd, key, klen);
	if (ret)
		many_fail(m, ret);
	return NULL;
}

TEST_F_TIMEOUT(kvbench, many_threads, 120)
{
	struct many_worker *w;
	struct many m = {
		.prefix = self->keys.prefix,
		.fd = self->fd,
	};
	pthread_attr_t attr;
	unsigned int t;

	w = calloc(MANY_THREADS, sizeof(*w));
	ASSERT_NE(NULL, w);
	use_bulk(&self->keys, MANY_THREADS);
	/* Shrink the kthread backend's queue well below the thread count. */
	if (self->orig_queue_len) {
		ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("queue_len"), 2));
		ASSERT_EQ(0, switch_backend(variant->backend));
	}
	ASSERT_EQ(0, pthread_barrier_init(&m.start, NULL, MANY_THREADS));
	ASSERT_EQ(0, pthread_attr_init(&attr));
	ASSERT_EQ(0, pthread_attr_setstacksize(&attr, 256 * 1024));
	for (t = 0; t < MANY_THREADS; t++) {
		w[t].m = &m;
		w[t].tid = t;
		ASSERT_EQ(0, pthread_create(&w[t].thread, &attr, many_worker_fn, &w[t]))
			TH_LOG("thread %u", t);
	}
	for (t = 0; t < MANY_THREADS; t++)
		pthread_join(w[t].thread, NULL);
	pthread_attr_destroy(&attr);
	pthread_barrier_destroy(&m.start);
	EXPECT_EQ(0UL, atomic_load(&m.failures))
		TH_LOG("first error: %s", failure_str(atomic_load(&m.first_errno)));
	free(w);
}

/* ------------------------------------------------- limits, contended */

/* A limit is a count up to ULONG_MAX: a huge limit is a huge limit. */
TEST_F(kvbench, limits_huge)
{
	static const unsigned long long huge[] = {
		1ULL << 63, (1ULL << 63) + 1, ~0ULL,
	};
	static const char * const params[] = { "max_entries", "max_bytes" };
	char key[KVBENCH_KEY_MAX + 1], path[128];
	unsigned long long v;
	unsigned int i, j;

	mkkey(&self->keys, key, "k");
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), KVB_PARAM("%s"), params[i]);
		for (j = 0; j < 3; j++) {
			ASSERT_EQ(0, sysfs_write_u64(path, huge[j]));
			ASSERT_EQ(0, sysfs_read_u64(path, &v));
			EXPECT_EQ(huge[j], v);
			EXPECT_EQ(0, set_str(self->fd, key, "v"))
				TH_LOG("%s=%llu", params[i], huge[j]);
			EXPECT_EQ(0, set_str(self->fd, key, "a longer value"))
				TH_LOG("%s=%llu", params[i], huge[j]);
			EXPECT_EQ(0, del_str(self->fd, key));
		}
		ASSERT_EQ(0, sysfs_write_u64(path, 0));
	}
}

/*
 * A BATCH runs in array order, also where ops on different keys meet in a
 * limit: at max_entries, [DEL a, SET b] frees the room b takes, and
 * [SET b, DEL a] finds none. Many pairs, so that a and b land in the same
 * and in different shards of kthread-percpu.
 */
TEST_F(kvbench, batch_order_at_limit)
{
	char a[KVBENCH_KEY_MAX + 1], b[KVBENCH_KEY_MAX + 1];
	struct kvbench_op ops[2];
	struct kvb_stats st;
	unsigned int i;

	mkkey(&self->keys, a, "a");
	ASSERT_EQ(0, stats_read(&st));
	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("max_entries"),
				     st.v[ST_ENTRIES] + 1));
	ASSERT_EQ(0, set_str(self->fd, a, "A"));
	for (i = 0; i < 32; i++) {
		char name[16];

		snprintf(name, sizeof(name), "b%u", i);
		mkkey(&self->keys, b, name);

		op_init(&ops[0], KVBENCH_OP_SET, b, strlen(b), "B", 1);
		op_init(&ops[1], KVBENCH_OP_DEL, a, strlen(a), NULL, 0);
		ASSERT_EQ(0, kvb_batch(self->fd, ops, 2, 0));
		EXPECT_EQ(-ENOSPC, ops[0].result) TH_LOG("[SET b, DEL a], pair %u", i);
		EXPECT_EQ(0, ops[1].result) TH_LOG("[SET b, DEL a], pair %u", i);
		EXPECT_EQ(-ENOENT, get_check_str(self->fd, b, "B"));

		/* The map is empty again: a comes back, then goes first. */
		ASSERT_EQ(0, set_str(self->fd, a, "A"));
		op_init(&ops[0], KVBENCH_OP_DEL, a, strlen(a), NULL, 0);
		op_init(&ops[1], KVBENCH_OP_SET, b, strlen(b), "B", 1);
		ASSERT_EQ(0, kvb_batch(self->fd, ops, 2, 0));
		EXPECT_EQ(0, ops[0].result) TH_LOG("[DEL a, SET b], pair %u", i);
		EXPECT_EQ(0, ops[1].result) TH_LOG("[DEL a, SET b], pair %u", i);
		EXPECT_EQ(0, get_check_str(self->fd, b, "B"));

		ASSERT_EQ(0, del_str(self->fd, b));
		ASSERT_EQ(0, set_str(self->fd, a, "A"));
	}
}

/* Threads that hammer a map through their own fds for a short while. */
struct race {
	const char *key;		/* the contended key */
	const char *other;		/* a second key, for some races */
	atomic_bool stop;
	atomic_ulong ops;
	atomic_ulong bad;		/* answers no linearisation allows */
	atomic_int first_bad;		/* the first such errno */
};

#define RACE_THREADS	4
#define RACE_SECONDS	1
#define RACE_MAX_OPS	200000UL

static void race_bad(struct race *r, int err)
{
	int none = 0;

	atomic_fetch_add(&r->bad, 1);
	atomic_compare_exchange_strong(&r->first_bad, &none, err ? err : 1);
}

static void race_run(struct __test_metadata *_metadata, struct race *r,
		     void *(*fn)(void *), unsigned int nthreads)
{
	pthread_t threads[RACE_THREADS + 1];
	struct timespec end, now;
	unsigned int t;

	ASSERT_GE((unsigned int)RACE_THREADS + 1, nthreads);
	for (t = 0; t < nthreads; t++)
		ASSERT_EQ(0, pthread_create(&threads[t], NULL, fn, r));
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += RACE_SECONDS;
	do {
		usleep(10000);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((now.tv_sec < end.tv_sec ||
		  (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec)) &&
		 atomic_load(&r->ops) < RACE_MAX_OPS);
	atomic_store(&r->stop, true);
	for (t = 0; t < nthreads; t++)
		pthread_join(threads[t], NULL);
}

/*
 * SET and DEL of one key at max_entries = 1: in every linearisation a SET
 * inserts into an empty map or overwrites, so it never meets ENOSPC.
 */
static void *race_set_del_fn(void *arg)
{
	struct race *r = arg;
	int fd = open(KVB_DEV, O_RDWR);
	unsigned long i;
	int ret;

	if (fd < 0) {
		race_bad(r, -errno);
		return NULL;
	}
	for (i = 0; !atomic_load(&r->stop); i++) {
		if (i % 2)
			ret = del_str(fd, r->key);
		else
			ret = set_str(fd, r->key, "v");
		if (ret && ret != -ENOENT)
			race_bad(r, ret);
		atomic_fetch_add(&r->ops, 1);
	}
	close(fd);
	return NULL;
}

TEST_F_TIMEOUT(kvbench, limit_set_del_one_key, 60)
{
	char key[KVBENCH_KEY_MAX + 1];
	struct race r = { .key = key };
	struct kvb_stats st;

	mkkey(&self->keys, key, "k");
	ASSERT_EQ(0, stats_read(&st));
	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("max_entries"),
				     st.v[ST_ENTRIES] + 1));
	race_run(_metadata, &r, race_set_del_fn, RACE_THREADS);
	EXPECT_EQ(0UL, atomic_load(&r.bad))
		TH_LOG("%lu of %lu ops failed, first with %s",
		       atomic_load(&r.bad), atomic_load(&r.ops),
		       strerror(-atomic_load(&r.first_bad)));
	EXPECT_LT(0UL, atomic_load(&r.ops));
}

/*
 * A SET refused for its bytes takes no entry, not even for a moment: one
 * thread keeps trying a value too big for max_bytes under a new key while
 * others SET and DEL a small key, for which there is always room.
 */
static void *race_too_big_fn(void *arg)
{
	static char big[1024];
	struct race *r = arg;
	int fd = open(KVB_DEV, O_RDWR);
	int ret;

	if (fd < 0) {
		race_bad(r, -errno);
		return NULL;
	}
	while (!atomic_load(&r->stop)) {
		ret = kvb_set(fd, r->other, strlen(r->other), big, sizeof(big));
		if (ret != -ENOSPC)
			race_bad(r, ret);
		atomic_fetch_add(&r->ops, 1);
	}
	close(fd);
	return NULL;
}

static void *race_small_or_big_fn(void *arg)
{
	static atomic_uint n;

	return atomic_fetch_add(&n, 1) % 2 ? race_set_del_fn(arg) :
					     race_too_big_fn(arg);
}

TEST_F_TIMEOUT(kvbench, limit_charge_all_or_nothing, 60)
{
	char key[KVBENCH_KEY_MAX + 1], big[KVBENCH_KEY_MAX + 1];
	struct race r = { .key = key, .other = big };
	struct kvb_stats st;

	mkkey(&self->keys, key, "small");
	mkkey(&self->keys, big, "big");
	ASSERT_EQ(0, stats_read(&st));
	/* Room for the small key's one entry and bytes, not for the big one. */
	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("max_entries"),
				     st.v[ST_ENTRIES] + 1));
	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("max_bytes"),
				     st.v[ST_BYTES] + KVB_ENTRY_OVERHEAD +
				     KVBENCH_KEY_MAX + 16));
	race_run(_metadata, &r, race_small_or_big_fn, RACE_THREADS);
	EXPECT_EQ(0UL, atomic_load(&r.bad))
		TH_LOG("%lu of %lu ops failed, first with %s",
		       atomic_load(&r.bad), atomic_load(&r.ops),
		       strerror(-atomic_load(&r.first_bad)));
}

/* --------------------------------------------------- memory per call */

#define CGROUP_ROOT	"/sys/fs/cgroup"

/* Make a cgroup v2 child with memory.max = @max; 0, or a reason to skip. */
static const char *memcg_make(char *dir, size_t len, const char *max)
{
	char path[256];

	if (access(CGROUP_ROOT "/cgroup.controllers", F_OK) &&
	    mount("none", CGROUP_ROOT, "cgroup2", 0, NULL))
		return "no cgroup v2 at " CGROUP_ROOT;
	/* Fails harmlessly when the controller is already enabled. */
	sysfs_write(CGROUP_ROOT "/cgroup.subtree_control", "+memory");
	snprintf(dir, len, CGROUP_ROOT "/kvbench_test.%d", getpid());
	if (mkdir(dir, 0755) && errno != EEXIST)
		return "cannot create a cgroup";
	snprintf(path, sizeof(path), "%s/memory.max", dir);
	if (sysfs_write(path, max)) {
		rmdir(dir);
		return "no memory controller";
	}
	return NULL;
}

#define BIG_VALUE	1048576U
#define BIG_OPS		64

/* In the child, inside the cgroup: 64 SETs of 1 MiB, all to be refused. */
static int batch_big_values(const char *prefix, const char *cgroup)
{
	char (*keys)[KVBENCH_KEY_MAX + 1], path[256];
	struct kvbench_op *ops;
	unsigned char *val;
	unsigned int i, bad = 0;
	int fd;

	fd = open(KVB_DEV, O_RDWR);
	val = malloc(BIG_VALUE);
	ops = calloc(BIG_OPS, sizeof(*ops));
	keys = calloc(BIG_OPS, sizeof(*keys));
	if (fd < 0 || !val || !ops || !keys)
		return 100;
	memset(val, 0x5a, BIG_VALUE);
	for (i = 0; i < BIG_OPS; i++)
		op_init(&ops[i], KVBENCH_OP_SET, keys[i],
			bulk_key(prefix, i, keys[i]), val, BIG_VALUE);
	/* From here on, what the kernel allocates for us is charged there. */
	snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup);
	if (sysfs_write(path, "0"))
		return 101;
	if (kvb_batch(fd, ops, BIG_OPS, 0))
		return 102;
	for (i = 0; i < BIG_OPS; i++)
		if (ops[i].result != -ENOSPC) {
			if (!bad)
				fprintf(stderr, "# op %u: %s\n", i,
					strerror(-ops[i].result));
			bad++;
		}
	return bad > 99 ? 99 : bad;
}

/*
 * In the child, inside the cgroup: 64 SETs of 1 MiB as one MSET, all to be
 * refused. Its 64 MiB of values are written before it joins the cgroup,
 * so that they are charged where it came from.
 */
static int mset_big_values(const char *prefix, const char *cgroup)
{
	struct multi *m = calloc(1, sizeof(*m));
	unsigned char *vals = malloc((size_t)BIG_OPS * BIG_VALUE);
	char key[KVBENCH_KEY_MAX + 1], path[256];
	unsigned int i, bad = 0;
	int fd;

	fd = open(KVB_DEV, O_RDWR);
	if (fd < 0 || !m || !vals)
		return 100;
	memset(vals, 0x5a, (size_t)BIG_OPS * BIG_VALUE);
	for (i = 0; i < BIG_OPS; i++)
		multi_add(m, key, bulk_key(prefix, i, key), "", 0);
	multi_prep(m, KVBENCH_IOC_MSET, 0);
	for (i = 0; i < BIG_OPS; i++)
		m->value_lens[i] = BIG_VALUE;
	m->arg.values = uptr(vals);
	m->arg.values_size = BIG_OPS * BIG_VALUE;
	snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup);
	if (sysfs_write(path, "0"))
		return 101;
	if (multi_call(fd, KVBENCH_IOC_MSET, m))
		return 102;
	for (i = 0; i < BIG_OPS; i++)
		if (m->results[i] != -ENOSPC) {
			if (!bad)
				fprintf(stderr, "# op %u: %s\n", i,
					strerror(-m->results[i]));
			bad++;
		}
	return bad > 99 ? 99 : bad;
}

/*
 * SET BIG_OPS values of BIG_VALUE bytes in one @cmd (BATCH or MSET), each
 * to be refused for max_bytes, from a child in a memory cgroup of 32 MiB.
 * Returns NULL, or why the test cannot run here.
 */
static const char *big_values_bounded(struct __test_metadata *_metadata,
				      struct test_keys *keys, unsigned long cmd)
{
	char cgroup[128];
	struct kvb_stats st;
	const char *why;
	int status;
	pid_t pid;

	why = memcg_make(cgroup, sizeof(cgroup), "32M");
	if (why)
		return why;
	use_bulk(keys, BIG_OPS);
	ASSERT_EQ(0, stats_read(&st));
	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("max_value_len"), BIG_VALUE));
	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("max_bytes"), st.v[ST_BYTES] + 1));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(cmd == KVBENCH_IOC_MSET ?
		      mset_big_values(keys->prefix, cgroup) :
		      batch_big_values(keys->prefix, cgroup));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	rmdir(cgroup);
	EXPECT_TRUE(WIFEXITED(status))
		TH_LOG("the call's task was killed by signal %d (the cgroup's OOM killer?)",
		       WTERMSIG(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("%d ops did not get ENOSPC (100+: setup failed)",
		       WEXITSTATUS(status));
	return NULL;
}

/*
 * What one BATCH or MSET holds at once is bounded, not the call's values
 * added up: 64 SETs of 1 MiB, every one refused for max_bytes, run by a
 * task in a memory cgroup of 32 MiB, get ENOSPC each, without running the
 * cgroup out of memory (which would fail them with ENOMEM, or OOM-kill
 * the task).
 */
TEST_F_TIMEOUT(kvbench, batch_memory_bounded, 120)
{
	const char *why = big_values_bounded(_metadata, &self->keys,
					     KVBENCH_IOC_BATCH);

	if (why)
		SKIP(return, "%s", why);
}

TEST_F_TIMEOUT(kvbench, mset_memory_bounded, 120)
{
	const char *why = big_values_bounded(_metadata, &self->keys,
					     KVBENCH_IOC_MSET);

	if (why)
		SKIP(return, "%s", why);
}

/* ------------------------------------------------- giving the CPU back */

/*
 * The kernel must not keep a CPU from other tasks for long, even where
 * kernel code gives it up only at scheduling points (voluntary or no
 * preemption). A victim thread of the normal policy, bound to the CPU
 * where the module works, spins and notes every time it did not run.
 *
 * Under QEMU the host also takes whole vCPUs away now and then, for up to
 * seconds when it is busy: what the victim sees as a long wait may be
 * that. So the tests do not judge by the longest wait alone (they print
 * it) but by what only the guest's scheduler does: how much work the
 * module did while the victim waited, or how often the task doing the
 * work was preempted for it.
 */

#define VICTIM_GAP_NS	1000000LL	/* a wait: 1 ms without running */
#define VICTIM_GAPS	16384

static long thread_nivcsw(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_nivcsw;
}

static void cpu_only(cpu_set_t *set, int cpu)
{
	CPU_ZERO(set);
	CPU_SET(cpu, set);
}

/* The first two CPUs of @set in *@a and *@b; false when it has only one. */
static bool two_cpus(const cpu_set_t *set, int *a, int *b)
{
	int cpu, n = 0;

	for (cpu = 0; cpu < CPU_SETSIZE && n < 2; cpu++)
		if (CPU_ISSET(cpu, set))
			*(n++ ? b : a) = cpu;
	return n == 2;
}

/* The kernel's PF_EXITING, in the flags of /proc/<pid>/stat. */
#define KVB_PF_EXITING		0x00000004U

/*
 * Whether task @pid is gone or on its way out. A switch returns once the
 * old map's owners have exited (kthread_stop()), but such a task stays in
 * /proc, under its name, until it is released a little later.
 */
static bool task_exiting(long pid)
{
	char path[64], stat[512], *p;
	unsigned int flags;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (sysfs_read(path, stat, sizeof(stat)))
		return true;
	/* After "pid (comm)": state ppid pgrp session tty_nr tpgid flags */
	p = strrchr(stat, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %u", &flags) != 1)
		return false;
	return flags & KVB_PF_EXITING;
}

/*
 * Call @fn with @arg for every thread named kvbench-owner* (with a NULL
 * @fn, only count them); those of a map that is gone do not count.
 * Returns how many there were, or -errno.
 */
static int owners_each(int (*fn)(pid_t pid, const void *arg),
		       const void *arg)
{
	char path[64], comm[32];
	struct dirent *de;
	int n = 0;
	DIR *dir;
	long pid;

	dir = opendir("/proc");
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		pid = strtol(de->d_name, NULL, 10);
		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
		if (sysfs_read(path, comm, sizeof(comm)) ||
		    strncmp(comm, "kvbench-owner", strlen("kvbench-owner")) ||
		    task_exiting(pid))
			continue;
		if (fn && fn(pid, arg)) {
			if (errno == ESRCH)	/* it has just gone */
				continue;
			n = -errno;
			break;
		}
		n++;
	}
	closedir(dir);
	return n;
}

static int owner_affinity(pid_t pid, const void *set)
{
	return sched_setaffinity(pid, sizeof(cpu_set_t), set);
}

/* Give every owner thread the CPUs of @set (NULL: only count them). */
static int owners_affinity(const cpu_set_t *set)
{
	return owners_each(set ? owner_affinity : NULL, set);
}

static int owner_sched(pid_t pid, const void *param)
{
	const int *p = param;
	struct sched_param sp = { .sched_priority = p[1] };

	return sched_setscheduler(pid, p[0], &sp);
}

/* Every owner thread to @policy at @prio; how many, or -errno. */
static int owners_sched(int policy, int prio)
{
	const int param[2] = { policy, prio };

	return owners_each(owner_sched, param);
}

struct victim {
	atomic_bool running;
	atomic_bool stop;
	long long max_gap;		/* ns: its longest wait */
	long long cpu;			/* ns of CPU time it had */
	long long wall;			/* ns it lived */
	long nivcsw;			/* times it was preempted */
	pid_t tid;			/* its thread id */
	unsigned int ngaps;		/* its waits, the first VICTIM_GAPS: */
	long long gap_start[VICTIM_GAPS];
	long long gap_end[VICTIM_GAPS];
};

static void victim_gap(struct victim *v, long long prev, long long now)
{
	if (now - prev > v->max_gap)
		v->max_gap = now - prev;
	if (now - prev >= VICTIM_GAP_NS && v->ngaps < VICTIM_GAPS) {
		v->gap_start[v->ngaps] = prev;
		v->gap_end[v->ngaps++] = now;
	}
}

static void *victim_fn(void *arg)
{
	struct victim *v = arg;
	long long start, prev, now, cpu;
	long nivcsw;

	nivcsw = thread_nivcsw();
	cpu = now_ns(CLOCK_THREAD_CPUTIME_ID);
	start = now_ns(CLOCK_MONOTONIC);
	prev = start;
	v->tid = gettid();
	atomic_store(&v->running, true);
	while (!atomic_load(&v->stop)) {
		now = now_ns(CLOCK_MONOTONIC);
		victim_gap(v, prev, now);
		prev = now;
	}
	/* A wait that ended after the stop was set is counted too. */
	now = now_ns(CLOCK_MONOTONIC);
	victim_gap(v, prev, now);
	v->cpu = now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
	v->wall = now - start;
	v->nivcsw = thread_nivcsw() - nivcsw;
	return NULL;
}

/* Start @fn(@arg) bound to @cpu, at SCHED_FIFO @prio if non-zero. */
static int thread_on(pthread_t *t, int cpu, int prio,
		     void *(*fn)(void *), void *arg)
{
	struct sched_param sp = { .sched_priority = prio };
	pthread_attr_t attr;
	cpu_set_t set;
	int ret;

	cpu_only(&set, cpu);
	pthread_attr_init(&attr);
	ret = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	if (!ret && prio)
		ret = pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED) ?:
		      pthread_attr_setschedpolicy(&attr, SCHED_FIFO) ?:
		      pthread_attr_setschedparam(&attr, &sp);
	if (!ret)
		ret = pthread_create(t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return -ret;
}

/* Start a victim bound to @cpu and wait until it runs; 0 or -errno. */
static int victim_start(struct victim *v, pthread_t *thread, int cpu)
{
	int ret, i;

	memset(v, 0, sizeof(*v));
	ret = thread_on(thread, cpu, 0, victim_fn, v);
	if (ret)
		return ret;
	for (i = 0; i < 10000 && !atomic_load(&v->running); i++)
		usleep(1000);
	return 0;
}

static void victim_stop(struct victim *v, pthread_t thread)
{
	atomic_store(&v->stop, true);
	pthread_join(thread, NULL);
}

/*
 * SET (or DEL) bulk keys @from..@to-1 of @prefix in BATCHes, with a
 * value of 8 bytes. Returns 0, or the first error.
 */
static int bulk_batch(int fd, const char *prefix, __u32 code,
		      unsigned int from, unsigned int to)
{
	static char keys[KVBENCH_BATCH_MAX][KVBENCH_KEY_MAX + 1];
	struct kvbench_op ops[KVBENCH_BATCH_MAX];
	unsigned int i, n;
	int ret;

	for (; from < to; from += n) {
		n = to - from < KVBENCH_BATCH_MAX ? to - from :
						    KVBENCH_BATCH_MAX;
		for (i = 0; i < n; i++)
			op_init(&ops[i], code, keys[i],
				bulk_key(prefix, from + i, keys[i]),
				code == KVBENCH_OP_SET ? "01234567" : NULL,
				code == KVBENCH_OP_SET ? 8 : 0);
		ret = kvb_batch(fd, ops, n, 0);
		for (i = 0; !ret && i < n; i++)
			ret = ops[i].result;
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Owner threads give their CPU back under sustained load (issue 11,
 * item 4). Callers on one CPU keep the owners, bound to another, busy
 * with messages that cost the owner much and the caller little: BATCHes
 * of GETs of missing keys, each walking a bucket of thousands of entries.
 * The queues stay full, so an owner that loops from one pass straight
 * into the next and never reaches a scheduling point (or runs at
 * SCHED_FIFO, where cond_resched() does not help) keeps the victim off
 * its CPU for as long as the load lasts, answering BATCH after BATCH
 * meanwhile. An owner that yields between passes answers at most a pass
 * or two, one message per caller each, while the victim waits.
 *
 * All the owners share the victim's CPU, as they do when fewer CPUs are
 * online than when the map was made, or when kernel threads are kept to
 * housekeeping CPUs: their yields must give the victim a turn, not each
 * other.
 *
 * The measure is those answers against the victim's turns on its CPU as
 * the scheduler counts them: the BATCHes answered during the load per
 * time the victim was taken off its CPU (nonvoluntary_ctxt_switches in
 * /proc/<pid>/task/<tid>/status; the victim never sleeps, so each wait
 * of it is one). An owner that keeps its CPU leaves the
 * victim a turn or two in the whole load (or, at SCHED_FIFO, one per RT
 * throttling period), hundreds of answers each; one that yields lets it
 * run after every slice it had, a BATCH or two each. That mean is one the
 * host cannot move: a vCPU that the host takes away stops the owners and
 * the victim alike, and the time it was away is charged to whichever of
 * them ran, which then waits as long for its next turn. The longest wait's
 * answers, which the test measured first, move with that: it failed five
 * times on busy hosts (98-157 BATCHes in one wait against a limit of 64,
 * issue 45, item 8), and it is only logged now, with the victim's run
 * and wait times where the kernel keeps them (schedstat, CONFIG_SCHED_INFO,
 * which the debug kernel lacks).
 */
#define HOG_KEYS	8192	/* in 2 buckets (hash_bits 1) */
#define HOG_CALLERS	16
#define HOG_BATCH	64
#define HOG_MS		2000	/* the load lasts this long, */
#define HOG_ENOUGH	(16U * HOG_CALLERS)	/* until this many answers, */
/*
 * but no longer than this: the debug kernel under TCG on a slow day
 * answered 192 BATCHes in 8 s (24/s), so the cap leaves room for a
 * machine three times slower than the one that set HOG_ENOUGH.
 */
#define HOG_MAX_MS	30000
#define HOG_ANSWERS	65536	/* at most, logged */

struct hog {
	const char *prefix;
	int cpu;
	atomic_uint next_id;
	atomic_bool stop;
	atomic_uint answers;	/* BATCHes answered */
	long long *answered;	/* when, the first HOG_ANSWERS of them */
	atomic_ulong bad;
	atomic_int first_bad;
};

static void hog_bad(struct hog *h, int err)
{
	int none = 0;

	atomic_fetch_add(&h->bad, 1);
	atomic_compare_exchange_strong(&h->first_bad, &none, err ? err : 1);
}

static void *hog_caller_fn(void *arg)
{
	struct hog *h = arg;
	struct kvbench_op ops[HOG_BATCH];
	char key[KVBENCH_KEY_MAX + 1];
	unsigned int i, klen;
	unsigned char buf[16];
	cpu_set_t set;
	long long t;
	int fd, ret;

	cpu_only(&set, h->cpu);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		hog_bad(h, -errno);
		return NULL;
	}
	fd = open(KVB_DEV, O_RDWR);
	if (fd < 0) {
		hog_bad(h, -errno);
		return NULL;
	}
	klen = snprintf(key, sizeof(key), "%smissing%u", h->prefix,
			atomic_fetch_add(&h->next_id, 1));
	while (!atomic_load(&h->stop)) {
		for (i = 0; i < HOG_BATCH; i++)
			op_init(&ops[i], KVBENCH_OP_GET, key, klen, buf,
				sizeof(buf));
		ret = kvb_batch(fd, ops, HOG_BATCH, 0);
		t = now_ns(CLOCK_MONOTONIC);
		if (!ret && ops[HOG_BATCH - 1].result != -ENOENT)
			ret = ops[HOG_BATCH - 1].result;
		if (ret)
			hog_bad(h, ret);
		i = atomic_fetch_add(&h->answers, 1);
		if (i < HOG_ANSWERS)
			h->answered[i] = t;
	}
	close(fd);
	return NULL;
}

static int cmp_ll(const void *a, const void *b)
{
	const long long *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* The most answers in @answered[0..@n) (sorted) within one wait of @v. */
static unsigned int answers_in_a_wait(const struct victim *v,
				      const long long *answered, unsigned int n,
				      long long *when)
{
	unsigned int g, lo, hi, mid, first, most = 0;

	for (g = 0; g < v->ngaps; g++) {
		/* The first answer after the wait began, then those in it. */
		for (lo = 0, hi = n; lo < hi; ) {
			mid = lo + (hi - lo) / 2;
			if (answered[mid] <= v->gap_start[g])
				lo = mid + 1;
			else
				hi = mid;
		}
		for (first = lo; lo < n && answered[lo] < v->gap_end[g]; lo++)
			;
		if (lo - first > most) {
			most = lo - first;
			*when = v->gap_end[g] - v->gap_start[g];
		}
	}
	return most;
}

/* What the scheduler counted for a thread of ours. */
struct schedstat {
	unsigned long long run_ns;	/* on its CPU (CONFIG_SCHED_INFO) */
	unsigned long long wait_ns;	/* runnable, waiting for it (same) */
	unsigned long long nivcsw;	/* times it was taken off its CPU */
};

/* 0 or -errno; the times stay 0 without CONFIG_SCHED_INFO. */
static int thread_schedstat(pid_t tid, struct schedstat *st)
{
	char path[64], buf[8192], *p;
	int ret;

	memset(st, 0, sizeof(*st));
	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
	if (!sysfs_read(path, buf, sizeof(buf)) &&
	    sscanf(buf, "%llu %llu", &st->run_ns, &st->wait_ns) != 2)
		return -EPROTO;
	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	ret = sysfs_read(path, buf, sizeof(buf));
	if (ret)
		return ret;
	p = strstr(buf, "\nnonvoluntary_ctxt_switches:");
	if (!p || sscanf(p, "\nnonvoluntary_ctxt_switches: %llu",
			 &st->nivcsw) != 1)
		return -EPROTO;
	return 0;
}

TEST_F_TIMEOUT(kvbench, owner_yields_under_load, 120)
{
	struct hog h = { .prefix = self->keys.prefix };
	pthread_t callers[HOG_CALLERS], victim_thread;
	unsigned int i, n, most, answers, nthreads = 0;
	unsigned long long turns, run, wait;
	long long t0, ms, most_wait = 0;
	struct schedstat st0, st1;
	cpu_set_t all, one;
	int owner_cpu, owners, ret;
	struct victim *v;

	if (strcmp(variant->backend, "kthread") &&
	    strcmp(variant->backend, "kthread-percpu"))
		SKIP(return, "%s has no owner thread", variant->backend);
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(all), &all));
	if (!two_cpus(&all, &h.cpu, &owner_cpu))
		SKIP(return, "needs two CPUs");

	/* Two long buckets; the owners are created anew with them. */
	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("hash_bits"), 1));
	ASSERT_EQ(0, switch_backend(variant->backend));
	use_bulk(&self->keys, HOG_KEYS);
	ASSERT_EQ(0, bulk_batch(self->fd, self->keys.prefix, KVBENCH_OP_SET,
				0, HOG_KEYS));
	v = calloc(1, sizeof(*v));
	h.answered = calloc(HOG_ANSWERS, sizeof(*h.answered));
	ASSERT_NE(NULL, v);
	ASSERT_NE(NULL, h.answered);

	/* The owners and the victim on one CPU, the callers and we on the other. */
	cpu_only(&one, owner_cpu);
	owners = owners_affinity(&one);
	ASSERT_LT(0, owners) TH_LOG("binding the owner threads: %s",
				    owners ? strerror(-owners) : "none found");
	cpu_only(&one, h.cpu);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	ASSERT_EQ(0, victim_start(v, &victim_thread, owner_cpu));

	ASSERT_EQ(0, thread_schedstat(v->tid, &st0));
	for (i = 0; i < HOG_CALLERS; i++) {
		if (pthread_create(&callers[i], NULL, hog_caller_fn, &h))
			break;
		nthreads++;
	}
	EXPECT_EQ((unsigned int)HOG_CALLERS, nthreads);
	t0 = now_ns(CLOCK_MONOTONIC);
	do {
		usleep(100000);
		ms = (now_ns(CLOCK_MONOTONIC) - t0) / 1000000;
	} while (ms < HOG_MAX_MS &&
		 (ms < HOG_MS || atomic_load(&h.answers) < HOG_ENOUGH));
	EXPECT_EQ(0, thread_schedstat(v->tid, &st1));
	answers = atomic_load(&h.answers);
	atomic_store(&h.stop, true);
	for (i = 0; i < nthreads; i++)
		pthread_join(callers[i], NULL);
	victim_stop(v, victim_thread);

	EXPECT_EQ(0, sched_setaffinity(0, sizeof(all), &all));
	EXPECT_EQ(owners, owners_affinity(&all));

	n = atomic_load(&h.answers);
	if (n > HOG_ANSWERS)
		n = HOG_ANSWERS;
	qsort(h.answered, n, sizeof(*h.answered), cmp_ll);
	most = answers_in_a_wait(v, h.answered, n, &most_wait);
	TH_LOG("%s: %d owner(s) answered %u BATCHes of %u GETs from %u callers in %lld ms",
	       variant->backend, owners, atomic_load(&h.answers), HOG_BATCH,
	       nthreads, ms);
	TH_LOG("the victim ran %lld ms, waited %u times, longest %lld ms",
	       v->cpu / 1000000, v->ngaps, v->max_gap / 1000000);
	TH_LOG("most BATCHes answered in one wait: %u, in %lld ms", most,
	       most_wait / 1000000);
	turns = st1.nivcsw - st0.nivcsw;
	run = st1.run_ns - st0.run_ns;
	wait = st1.wait_ns - st0.wait_ns;
	TH_LOG("in the load the victim waited %llu times (%llu ms; ran %llu ms)",
	       turns, wait / 1000000, run / 1000000);
	TH_LOG("%u BATCHes answered, %.1f per wait of the victim", answers,
	       (double)answers / (turns ? turns : 1));
	free(h.answered);
	free(v);
	EXPECT_EQ(0UL, atomic_load(&h.bad))
		TH_LOG("%lu BATCHes failed, first with %s", atomic_load(&h.bad),
		       strerror(-atomic_load(&h.first_bad)));
	/* Enough load that the check below can fail. */
	EXPECT_LE(HOG_ENOUGH, atomic_load(&h.answers));
	/*
	 * A pass answers one BATCH per caller; per wait of the victim, a
	 * couple of passes at most.
	 */
	EXPECT_GE(2ULL * nthreads * (turns ? turns : 1), (unsigned long long)answers)
		TH_LOG("the owners answered %u BATCHes while the victim waited %llu times",
		       answers, turns);

	ret = bulk_batch(self->fd, self->keys.prefix, KVBENCH_OP_DEL, 0,
			 HOG_KEYS);
	EXPECT_EQ(0, ret);
	if (!ret)
		self->keys.nbulk = 0;	/* nothing left for the teardown */
}

/*
 * A heartbeat beside owners that always have work: an owner never keeps a
 * task of the normal policy off its CPU for more than a few milliseconds
 * (the budget is in Documentation/design.rst, "kthread"). The heartbeat is
 * a normal task that never sleeps: it reads CLOCK_MONOTONIC in a loop and
 * keeps the largest gap between two reads (a victim, above). Callers bound
 * to every CPU issue GETs as fast as they can: a single GET of a key that
 * exists, then a BATCH of GETs of one missing key, one message that walks
 * a whole bucket 64 times (two buckets per owner, hash_bits 1). The
 * buckets are long enough that the walks outweigh what the callers spend
 * on a request, on the debug kernel too, so the queues never run dry.
 *
 * The owners are bound to the heartbeat's CPU, as when kernel threads are
 * kept to housekeeping CPUs, with one caller; HEARTBEAT_CALLERS on each
 * other CPU keep their queues full. (Spread one per CPU, the owners would
 * starve the very callers that feed them, and go idle.) An owner that does
 * not give its CPU up keeps the heartbeat waiting for as long as the load
 * lasts, or, at SCHED_FIFO, until RT throttling lets it run (50 ms of each
 * second).
 *
 * Only the owners' CPU has a heartbeat. Under QEMU TCG a vCPU that never
 * idles is taken off its host core for tens of milliseconds at a time when
 * there are more vCPUs than cores: with a heartbeat on every CPU, the
 * owners' one waited up to 220 ms with working owners, and the callers
 * that keep an owner busy were starved enough that one that never yielded
 * went unnoticed. The bound allows for TCG, far above the budget:
 * KVBENCH_HEARTBEAT_MAX_MS, default HEARTBEAT_MAX_MS. A busy host can
 * still take the vCPU away for longer (411 ms, once, with three guests
 * on 2 cores): a gap above the bound gets a second round, and the test
 * fails when that one has one too. make check reports the lines
 * "heartbeat: <backend>: largest gap ...".
 */
#define HEARTBEAT_MS		2000	/* the load lasts this long */
#define HEARTBEAT_MAX_MS	400
#define HEARTBEAT_CALLERS	8	/* per CPU but the owners' (one) */
#define HEARTBEAT_BATCH		64
#define HEARTBEAT_KEYS		4096	/* per owner, in its 2 buckets */
#define HEARTBEAT_ROUNDS	2	/* the second only after a long gap */

struct beat_caller {
	struct hog *h;		/* ->prefix, ->stop, the failures */
	unsigned int nkeys;	/* bulk keys 0..nkeys-1 exist */
	unsigned int batch;	/* GETs of a missing key per BATCH */
	unsigned int seed;
	unsigned long long ioctls;	/* written back when it stops */
	pthread_t thread;
};

static void *beat_caller_fn(void *arg)
{
	struct beat_caller *c = arg;
	struct kvbench_op ops[KVBENCH_BATCH_MAX];
	char key[KVBENCH_KEY_MAX + 1];
	unsigned long long ioctls = 0;
	unsigned char val[16];
	unsigned int i, klen;
	__u32 len;
	int fd, ret;

	fd = open(KVB_DEV, O_RDWR);
	if (fd < 0) {
		hog_bad(c->h, -errno);
		return NULL;
	}
	while (!atomic_load(&c->h->stop)) {
		klen = bulk_key(c->h->prefix, rand_r(&c->seed) % c->nkeys, key);
		len = sizeof(val);
		ret = kvb_get(fd, key, klen, val, &len);
		if (!ret && len != 8)
			ret = -EBADMSG;
		if (ret)
			hog_bad(c->h, ret);

		/* A bulk key past the last one: missing. */
		klen = bulk_key(c->h->prefix,
				c->nkeys + rand_r(&c->seed) % c->nkeys, key);
		for (i = 0; i < c->batch; i++)
			op_init(&ops[i], KVBENCH_OP_GET, key, klen, val,
				sizeof(val));
		ret = kvb_batch(fd, ops, c->batch, 0);
		if (!ret && ops[c->batch - 1].result != -ENOENT)
			ret = ops[c->batch - 1].result;
		if (ret)
			hog_bad(c->h, ret);
		ioctls += 2;
	}
	close(fd);
	c->ioctls = ioctls;
	return NULL;
}

/* Start a caller bound to @cpu; 0 or -errno. */
static int beat_caller_start(struct beat_caller *c, int cpu)
{
	return thread_on(&c->thread, cpu, 0, beat_caller_fn, c);
}

/* KVBENCH_HEARTBEAT_MAX_MS, else HEARTBEAT_MAX_MS; -1 if it is no number. */
static long heartbeat_max_ms(void)
{
	const char *env = getenv("KVBENCH_HEARTBEAT_MAX_MS");
	char *end;
	long ms;

	if (!env || !*env)
		return HEARTBEAT_MAX_MS;
	errno = 0;
	ms = strtol(env, &end, 10);
	return errno || *end || ms <= 0 ? -1 : ms;
}

/*
 * One line "# heartbeat: <backend>: ..." on stdout, flushed: the test runs
 * in a child that leaves with _exit().
 */
static void __printf(2, 3) beat_report(const char *backend, const char *fmt, ...)
{
	va_list ap;

	printf("# heartbeat: %s: ", backend);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/*
 * The heartbeat beside owners under a load: @keys keys per owner in its
 * two buckets (hash_bits 1), callers sending BATCHes of @batch GETs of a
 * missing key. @fill_bits: fill the map at that hash_bits, then rebuild
 * the owners with two buckets (adopting an entry is O(1), a SET at
 * hash_bits 1 walks a bucket); 0: fill it at hash_bits 1. The load lasts
 * @ms.
 */
struct beat_load {
	unsigned int keys;
	unsigned int batch;
	unsigned int fill_bits;
	unsigned int ms;	/* how long the load lasts */
	unsigned int own;	/* callers on the owners' CPU */
	unsigned int others;	/* callers on each other CPU */
};

static void run_heartbeat(struct __test_metadata *_metadata, int fd,
			  struct test_keys *keys, const char *backend,
			  const struct beat_load *load)
{
	unsigned int i, n, nkeys, ncpus, ncallers = 0, round;
	struct hog h;
	int cpu, owner_cpu = -1, owners;
	struct beat_caller *callers;
	unsigned long long ioctls = 0;
	pthread_t beat_thread;
	cpu_set_t all, one;
	char mean[32] = "?";
	struct victim *beat;
	long long t0;
	long max_ms;

	max_ms = heartbeat_max_ms();
	ASSERT_LT(0, max_ms) TH_LOG("KVBENCH_HEARTBEAT_MAX_MS=%s: not a number of ms",
				    getenv("KVBENCH_HEARTBEAT_MAX_MS"));
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(all), &all));
	ncpus = CPU_COUNT(&all);
	if (ncpus < 2)
		SKIP(return, "needs two CPUs");
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &all))
			owner_cpu = cpu;	/* the last one */

	/* Two long buckets per owner; the owners are created anew with them. */
	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("hash_bits"),
				     load->fill_bits ? load->fill_bits : 1));
	ASSERT_EQ(0, switch_backend(backend));
	owners = owners_affinity(NULL);
	/* A combining map has no owner thread: its callers run the table. */
	if (!strcmp(backend, "combining")) {
		ASSERT_EQ(0, owners);
	} else {
		ASSERT_LT(0, owners) TH_LOG("counting the owner threads: %s",
					    owners ? strerror(-owners) : "none found");
	}
	nkeys = load->keys * (owners ? owners : 1);
	use_bulk(keys, nkeys);
	ASSERT_EQ(0, bulk_batch(fd, keys->prefix, KVBENCH_OP_SET,
				0, nkeys));
	if (load->fill_bits) {
		ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("hash_bits"), 1));
		ASSERT_EQ(0, switch_backend(backend));
	}
	n = (ncpus - 1) * load->others + load->own;
	beat = calloc(1, sizeof(*beat));
	callers = calloc(n, sizeof(*callers));
	ASSERT_NE(NULL, beat);
	ASSERT_NE(NULL, callers);

	/*
	 * A second round when the first saw a gap above the bound: the host
	 * may have taken the vCPU away (see above), which an owner that
	 * keeps its CPU would not leave to chance twice.
	 */
	for (round = 1; round <= HEARTBEAT_ROUNDS; round++) {
		memset(&h, 0, sizeof(h));
		h.prefix = keys->prefix;
		memset(callers, 0, n * sizeof(*callers));
		ncallers = 0;
		ioctls = 0;
		cpu_only(&one, owner_cpu);
		EXPECT_EQ(owners, owners_affinity(&one));
		/* The queue statistics of the load alone. */
		EXPECT_EQ(0, sysfs_write(KVB_ATTR("reset"), "1"));

		/*
		 * The heartbeat first: on a CPU that a broken owner holds it would
		 * wait long for its first turn, unmeasured. Its gaps count from
		 * before the load to after it.
		 */
		ASSERT_EQ(0, victim_start(beat, &beat_thread, owner_cpu));
		for (cpu = 0; cpu < CPU_SETSIZE && ncallers < n; cpu++) {
			if (!CPU_ISSET(cpu, &all))
				continue;
			for (i = 0; i < (cpu == owner_cpu ? load->own : load->others); i++) {
				callers[ncallers].h = &h;
				callers[ncallers].nkeys = nkeys;
				callers[ncallers].batch = load->batch;
				callers[ncallers].seed = ncallers + 1;
				if (beat_caller_start(&callers[ncallers], cpu))
					break;
				ncallers++;
			}
		}
		EXPECT_EQ(n, ncallers);
		t0 = now_ns(CLOCK_MONOTONIC);
		while (now_ns(CLOCK_MONOTONIC) - t0 < load->ms * 1000000LL)
			usleep(100000);
		EXPECT_EQ(0, sysfs_read(owners ? KVB_ATTR("drain_mean") :
					KVB_ATTR("combine_mean"),
					mean, sizeof(mean)));

		/*
		 * The load stops first: a heartbeat kept waiting by an owner would
		 * not see its own stop for as long as the load went on.
		 */
		atomic_store(&h.stop, true);
		for (i = 0; i < ncallers; i++) {
			pthread_join(callers[i].thread, NULL);
			ioctls += callers[i].ioctls;
		}
		victim_stop(beat, beat_thread);
		EXPECT_EQ(owners, owners_affinity(&all));

		beat_report(backend,
			    "largest gap %.1f ms on CPU %d (limit %ld ms), %u CPUs, %llu requests%s",
			    beat->max_gap / 1e6, owner_cpu, max_ms, ncpus, ioctls,
			    round > 1 ? " (second round)" : "");
		beat_report(backend,
			    "%d owner(s) and %u caller(s) on CPU %d, %u on the others, %llu GETs, %s %s a pass",
			    owners, load->own, owner_cpu, ncallers - load->own,
			    ioctls / 2 * (1 + load->batch), mean,
			    owners ? "messages" : "requests");
		beat_report(backend,
			    "the heartbeat ran %lld%% of %lld ms, waited %u times >= 1 ms",
			    beat->wall ? beat->cpu * 100 / beat->wall : 0,
			    beat->wall / 1000000, beat->ngaps);

		EXPECT_EQ(0UL, atomic_load(&h.bad))
			TH_LOG("%lu requests failed, first with %s", atomic_load(&h.bad),
			       strerror(-atomic_load(&h.first_bad)));
		EXPECT_LT(0ULL, ioctls);
		if (beat->max_gap <= max_ms * 1000000LL)
			break;
	}
	EXPECT_GE(max_ms * 1000000LL, beat->max_gap)
		TH_LOG("a normal task waited %lld ms for CPU %d, the owners', %d rounds in a row",
		       beat->max_gap / 1000000, owner_cpu, HEARTBEAT_ROUNDS);
	free(callers);
	free(beat);
	/* A DEL at hash_bits 1 walks a bucket: short chains again first. */
	if (load->fill_bits) {
		EXPECT_EQ(0, sysfs_write_u64(KVB_PARAM("hash_bits"),
					     load->fill_bits));
		EXPECT_EQ(0, switch_backend(backend));
	}
	if (!bulk_batch(fd, keys->prefix, KVBENCH_OP_DEL, 0, nkeys))
		keys->nbulk = 0;	/* nothing left for the teardown */
}

TEST_F_TIMEOUT(kvbench, owner_heartbeat, 60)
{
	const struct beat_load load = {
		.keys = HEARTBEAT_KEYS, .batch = HEARTBEAT_BATCH,
		.ms = HEARTBEAT_MS, .own = 1, .others = HEARTBEAT_CALLERS,
	};

	if (strcmp(variant->backend, "kthread") &&
	    strcmp(variant->backend, "kthread-percpu") &&
	    strcmp(variant->backend, "combining"))
		SKIP(return, "%s has no owner thread", variant->backend);
	run_heartbeat(_metadata, self->fd, &self->keys, variant->backend, &load);
}

/*
 * The same with passes far longer than an owner may keep its CPU: one
 * caller on another CPU sends BATCHes of KVBENCH_BATCH_MAX GETs of a
 * missing key, each of which walks a bucket of HEARTBEAT_LONG_KEYS / 2
 * entries: one message, one pass, up to seconds under TCG. An owner that
 * offered its CPU only between passes kept the heartbeat waiting for it
 * (421-1,520 ms on stock 6.12); one that offered it every 64 requests,
 * 0.4-1.2 s (with eight callers per CPU); it offers it after every
 * request (11 and 15 ms). The map is filled at hash_bits
 * HEARTBEAT_LONG_BITS (a SET at hash_bits 1 walks a bucket), then rebuilt
 * with two buckets per owner.
 */
#define HEARTBEAT_LONG_KEYS	65536	/* per owner, in its 2 buckets */
#define HEARTBEAT_LONG_BITS	12	/* the fill's hash_bits */
#define HEARTBEAT_LONG_MS	1500

TEST_F_TIMEOUT(kvbench, owner_heartbeat_long_pass, 300)
{
	const struct beat_load load = {
		.keys = HEARTBEAT_LONG_KEYS, .batch = KVBENCH_BATCH_MAX,
		.fill_bits = HEARTBEAT_LONG_BITS, .ms = HEARTBEAT_LONG_MS,
		.own = 0, .others = 1,
	};
	/* The combiner is the caller: on the heartbeat's CPU. */
	const struct beat_load comb = {
		.keys = HEARTBEAT_LONG_KEYS, .batch = KVBENCH_BATCH_MAX,
		.fill_bits = HEARTBEAT_LONG_BITS, .ms = HEARTBEAT_LONG_MS,
		.own = 1, .others = 0,
	};

	if (!strcmp(variant->backend, "combining")) {
		run_heartbeat(_metadata, self->fd, &self->keys,
			      variant->backend, &comb);
		return;
	}
	if (strcmp(variant->backend, "kthread") &&
	    strcmp(variant->backend, "kthread-percpu"))
		SKIP(return, "%s has no owner thread", variant->backend);
	run_heartbeat(_metadata, self->fd, &self->keys, variant->backend, &load);
}

/*
 * combining: a caller alone takes the free role for each call and runs
 * its own requests only (combine_mean is the size of its BATCHes, nothing
 * is handed on, nobody sleeps). Callers that all send full BATCHes make
 * each pass end at KVBENCH_COMB_PASS requests with messages left, whose
 * oldest caller gets the role (handoffs); with kthread_spin_us=0 a caller
 * that finds the role taken sleeps at once (sleeps). Every answer stays
 * right meanwhile.
 */
#define COMB_ALONE_CALLS	50
#define COMB_ALONE_BATCH	10
#define COMB_CALLERS		4U
#define COMB_LOAD_MS		5000	/* at most: until both counters move */

static int comb_counters(unsigned long long *handoffs, unsigned long long *sleeps)
{
	return sysfs_read_u64(KVB_ATTR("handoffs"), handoffs) ?:
	       sysfs_read_u64(KVB_ATTR("sleeps"), sleeps);
}

TEST_F_TIMEOUT(kvbench, combining_stats, 60)
{
	unsigned long long handoffs, sleeps, spin_us, ioctls = 0;
	struct beat_caller callers[COMB_CALLERS];
	struct kvbench_op ops[COMB_ALONE_BATCH];
	char key[KVBENCH_KEY_MAX + 1], mean[32];
	const unsigned int nkeys = 64;
	unsigned char val[16];
	unsigned int i, klen;
	struct hog h;
	long long t0;

	if (strcmp(variant->backend, "combining"))
		SKIP(return, "%s does not combine", variant->backend);
	use_bulk(&self->keys, nkeys);
	ASSERT_EQ(0, bulk_batch(self->fd, self->keys.prefix, KVBENCH_OP_SET,
				0, nkeys));

	/* Alone. */
	ASSERT_EQ(0, sysfs_write(KVB_ATTR("reset"), "1"));
	klen = bulk_key(self->keys.prefix, 0, key);
	for (i = 0; i < COMB_ALONE_BATCH; i++)
		op_init(&ops[i], KVBENCH_OP_GET, key, klen, val, sizeof(val));
	for (i = 0; i < COMB_ALONE_CALLS; i++)
		ASSERT_EQ(0, kvb_batch(self->fd, ops, COMB_ALONE_BATCH, 0));
	EXPECT_EQ(0, ops[COMB_ALONE_BATCH - 1].result);
	ASSERT_EQ(0, sysfs_read(KVB_ATTR("combine_mean"), mean, sizeof(mean)));
	EXPECT_STREQ("10.00", mean);
	ASSERT_EQ(0, comb_counters(&handoffs, &sleeps));
	EXPECT_EQ(0ULL, handoffs);
	EXPECT_EQ(0ULL, sleeps);

	/* Together, full BATCHes, no spinning. */
	ASSERT_EQ(0, sysfs_read_u64(KVB_PARAM("kthread_spin_us"), &spin_us));
	ASSERT_EQ(0, sysfs_write(KVB_PARAM("kthread_spin_us"), "0"));
	memset(&h, 0, sizeof(h));
	h.prefix = self->keys.prefix;
	memset(callers, 0, sizeof(callers));
	for (i = 0; i < COMB_CALLERS; i++) {
		callers[i] = (struct beat_caller){ .h = &h, .nkeys = nkeys,
			.batch = KVBENCH_BATCH_MAX, .seed = i + 1 };
		if (pthread_create(&callers[i].thread, NULL, beat_caller_fn,
				   &callers[i]))
			break;
	}
	EXPECT_EQ(COMB_CALLERS, i);
	t0 = now_ns(CLOCK_MONOTONIC);
	do {
		usleep(100000);
		if (comb_counters(&handoffs, &sleeps))
			break;
	} while ((!handoffs || !sleeps) &&
		 now_ns(CLOCK_MONOTONIC) - t0 < COMB_LOAD_MS * 1000000LL);
	atomic_store(&h.stop, true);
	while (i--) {
		pthread_join(callers[i].thread, NULL);
		ioctls += callers[i].ioctls;
	}
	EXPECT_EQ(0, sysfs_write_u64(KVB_PARAM("kthread_spin_us"), spin_us));
	EXPECT_EQ(0UL, atomic_load(&h.bad))
		TH_LOG("%lu requests failed, first with %s", atomic_load(&h.bad),
		       strerror(-atomic_load(&h.first_bad)));
	ASSERT_EQ(0, comb_counters(&handoffs, &sleeps));
	EXPECT_LT(0ULL, handoffs) TH_LOG("%llu ioctls, no handoff", ioctls);
	EXPECT_LT(0ULL, sleeps) TH_LOG("%llu ioctls, no sleep", ioctls);
	/* Each handoff a caller combining for others, who made an ioctl. */
	EXPECT_GE(ioctls, handoffs);
}

/* ------------------------------------------ a fatal signal, queue full */

/*
 * EINTR: a caller that waits for room in a full owner queue gives up on a
 * fatal signal, and neither the op it waited for nor any later op of its
 * call runs. The owners are held off their CPU by a SCHED_FIFO spinner
 * (RT throttling and the fair server off meanwhile), three fillers take the
 * two slots of the queue and the request line of their CPU (kthread-percpu;
 * on kthread the third waits for room), and another process runs a BATCH, MGET, MSET or
 * MDEL of three ops on the same key (so on the same, full, queue), is
 * SIGKILLed once it found the queue full (the queue_full counter moved),
 * and leaves its results in memory it shares with us: the only way to see
 * an EINTR, as the caller never returns to user space. Single ops fail
 * the same way inside the same post.
 *
 * Holding the owners off is the test's doing, not the module's promise: a
 * call that finds room after all (the owners ran once more) runs, is
 * answered and says so ("not waiting for room"), and is tried again.
 */
#define INTR_OPS	3
#define INTR_RT_RUNTIME	"/proc/sys/kernel/sched_rt_runtime_us"

struct intr_spinner {
	atomic_bool stop;
	atomic_bool running;
};

static void *intr_spin_fn(void *arg)
{
	struct intr_spinner *s = arg;

	atomic_store(&s->running, true);
	while (!atomic_load(&s->stop))
		;
	return NULL;
}

struct intr_filler {
	int fd;
	const char *key;
	atomic_bool *stop;
	atomic_int tid;
	pthread_t thread;
};

/* GETs of the key until told to stop: one of them is always posted. */
static void *intr_fill_fn(void *arg)
{
	struct intr_filler *f = arg;
	unsigned char buf[16];
	__u32 len;

	atomic_store(&f->tid, gettid());
	while (!atomic_load(f->stop)) {
		len = sizeof(buf);
		kvb_get(f->fd, f->key, strlen(f->key), buf, &len);
	}
	return NULL;
}

/* The state letter of our thread @tid in /proc, '?' if unreadable. */
static char thread_state(int tid)
{
	char path[64], stat[512], *p;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	if (sysfs_read(path, stat, sizeof(stat)))
		return '?';
	p = strrchr(stat, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/*
 * Since 6.12 the "fair server" runs normal tasks for 50 ms of every second
 * even on a CPU that SCHED_FIFO keeps busy with RT throttling off: a normal
 * owner (the kthread backend's) would still answer. Set its runtime on
 * @cpu to @val, saving the old one in @old; 0 when the kernel has none.
 */
#define INTR_FAIR_SERVER "/sys/kernel/debug/sched/fair_server/cpu%d/runtime"

static int intr_fair_server(int cpu, char *old, size_t len, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), INTR_FAIR_SERVER, cpu);
	if (access("/sys/kernel/debug/sched", F_OK))
		mount("none", "/sys/kernel/debug", "debugfs", 0, NULL);
	if (access(path, F_OK))
		return 0;
	if (old && sysfs_read(path, old, len))
		return -1;
	return val ? sysfs_write(path, val) : 0;
}

#define INTR_FILLERS	3

/*
 * Whether every filler sleeps in the module (state D: posted, waiting for
 * an answer that cannot come, or for room) twice 50 ms apart.
 */
static bool intr_queue_full(struct intr_filler *f)
{
	int i, j, seen = 0;

	for (i = 0; i < 100 && seen < 2; i++) {
		usleep(50000);
		for (j = 0; j < INTR_FILLERS; j++)
			if (thread_state(atomic_load(&f[j].tid)) != 'D')
				break;
		seen = j == INTR_FILLERS ? seen + 1 : 0;
	}
	return seen == 2;
}

/*
 * Run @cmd with @arg in a child on @cpu, SIGKILL it once it found the
 * queue full; NULL, or a reason it did not go that way (then @spin is
 * stopped, so that the owners answer whatever was posted).
 */
static const char *intr_victim(int fd, unsigned long cmd, void *arg, int cpu,
			       struct intr_spinner *spin)
{
	unsigned long long full0, full = 0, gets0, gets;
	const char *why = NULL;
	cpu_set_t set;
	int i, status;
	pid_t pid;

	if (sysfs_read_u64(KVB_ATTR("queue_full"), &full0) ||
	    sysfs_read_u64(KVB_ATTR("gets"), &gets0))
		return "cannot read queue_full or gets";
	pid = fork();
	if (pid < 0)
		return "fork failed";
	if (!pid) {
		cpu_only(&set, cpu);
		sched_setaffinity(0, sizeof(set), &set);
		_exit(kvb_ioctl(fd, cmd, arg) ? 1 : 0);
	}
	for (i = 0; i < 500 && full <= full0; i++) {
		usleep(10000);
		if (sysfs_read_u64(KVB_ATTR("queue_full"), &full))
			break;
	}
	if (full <= full0)
		why = "the call never found the queue full";
	kill(pid, SIGKILL);
	for (i = 0; i < 200 && !waitpid(pid, &status, WNOHANG); i++)
		usleep(10000);
	if (i == 200) {
		/* It waits for an answer: let the owners give it. */
		atomic_store(&spin->stop, true);
		waitpid(pid, &status, 0);
		return "the call was not waiting for room";
	}
	if (!why && !(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL))
		why = "the call returned before its SIGKILL";
	/*
	 * The hold holds only while no owner runs: one that did answered the
	 * fillers, and may have given the call room, an answer and results
	 * before the SIGKILL landed. Any GET answered meanwhile says so, once
	 * the fillers it woke have run.
	 */
	usleep(50000);
	if (!why && (sysfs_read_u64(KVB_ATTR("gets"), &gets) || gets != gets0))
		why = "an owner ran during the hold";
	return why;
}

struct intr_shared {
	struct kvbench_op ops[INTR_OPS];
	struct multi m;
};

/*
 * Hold the owners off @owner_cpu and fill the 2-slot queue of @key's owner,
 * and the request line of @cpu, with GETs from fillers on @cpu; NULL, or
 * why that did not work, with nothing left running.
 */
struct intr_hold {
	struct intr_spinner spin;
	pthread_t spinner;
	bool spinning;
	atomic_bool fill_stop;
	struct intr_filler fill[INTR_FILLERS];
	unsigned int nfill;
};

static void intr_release(struct intr_hold *h)
{
	unsigned int i;

	if (h->spinning) {
		atomic_store(&h->spin.stop, true);
		pthread_join(h->spinner, NULL);
		h->spinning = false;
	}
	atomic_store(&h->fill_stop, true);
	for (i = 0; i < h->nfill; i++)
		pthread_join(h->fill[i].thread, NULL);
	h->nfill = 0;
}

static const char *intr_hold(struct intr_hold *h, int fd, const char *key,
			     int cpu, int owner_cpu)
{
	memset(h, 0, sizeof(*h));
	if (thread_on(&h->spinner, owner_cpu, 99, intr_spin_fn, &h->spin))
		return "cannot start a SCHED_FIFO thread";
	h->spinning = true;
	while (!atomic_load(&h->spin.running))
		usleep(1000);
	usleep(50000);	/* the owners' passes end: off their CPU */

	for (h->nfill = 0; h->nfill < INTR_FILLERS; h->nfill++) {
		h->fill[h->nfill] = (struct intr_filler){
			.fd = fd, .key = key, .stop = &h->fill_stop,
		};
		if (thread_on(&h->fill[h->nfill].thread, cpu, 0, intr_fill_fn,
			      &h->fill[h->nfill]))
			break;
	}
	if (h->nfill == INTR_FILLERS && intr_queue_full(h->fill))
		return NULL;
	intr_release(h);
	return "the fillers did not fill the queue";
}

#define INTR_TRIES	3

TEST_F_TIMEOUT(kvbench, owner_queue_full_eintr, 120)
{
	static const unsigned long cmds[] = {
		KVBENCH_IOC_BATCH, KVBENCH_IOC_MGET, KVBENCH_IOC_MSET,
		KVBENCH_IOC_MDEL,
	};
	char rt_runtime[32] = "", fair[32] = "";
	char k[KVBENCH_KEY_MAX + 1];
	struct kvbench_batch batch = { .count = INTR_OPS };
	struct intr_shared *sh;
	unsigned int i, c, try;
	struct intr_hold hold;
	unsigned char buf[16];
	int owner_cpu, cpu;
	cpu_set_t all, one;
	const char *why;
	void *arg;
	__u32 len;

	if (strcmp(variant->backend, "kthread") &&
	    strcmp(variant->backend, "kthread-percpu"))
		SKIP(return, "%s has no owner thread", variant->backend);
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(all), &all));
	if (!two_cpus(&all, &cpu, &owner_cpu))
		SKIP(return, "needs two CPUs");
	ASSERT_EQ(0, sysfs_read(INTR_RT_RUNTIME, rt_runtime, sizeof(rt_runtime)));
	ASSERT_EQ(0, intr_fair_server(owner_cpu, fair, sizeof(fair), NULL));

	/* A 2-slot queue; every owner on owner_cpu, everyone else on cpu. */
	ASSERT_EQ(0, sysfs_write(KVB_PARAM("queue_len"), "2"));
	ASSERT_EQ(0, switch_backend(variant->backend));
	cpu_only(&one, owner_cpu);
	ASSERT_LT(0, owners_affinity(&one));
	/*
	 * And at SCHED_FIFO (the kthread-percpu owners are already): the
	 * fair server, which only a kernel with sched debugfs lets us turn
	 * off, runs a normal owner 50 ms a second even beside a SCHED_FIFO
	 * spinner, and the owner would answer while held.
	 */
	ASSERT_LT(0, owners_sched(SCHED_FIFO, 1));
	cpu_only(&one, cpu);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	mkkey(&self->keys, k, "k");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	batch.ops = uptr(sh->ops);

	/* Until restored below, nothing but the owners runs there. */
	if (sysfs_write(INTR_RT_RUNTIME, "-1") ||
	    intr_fair_server(owner_cpu, NULL, 0, "0")) {
		EXPECT_TRUE(false) TH_LOG("cannot turn RT throttling off");
		goto out;
	}

	for (c = 0; c < ARRAY_SIZE(cmds); c++) {
		/*
		 * A try fails when a victim found room after all (the
		 * owners ran once more): its call ran, and we try again.
		 */
		for (try = 0; try < INTR_TRIES; try++) {
			EXPECT_EQ(0, kvb_set(self->fd, k, strlen(k), "v", 1));
			if (cmds[c] == KVBENCH_IOC_BATCH) {
				for (i = 0; i < INTR_OPS; i++)
					op_init(&sh->ops[i], KVBENCH_OP_GET, k,
						strlen(k), buf, sizeof(buf));
				arg = &batch;
			} else {
				/* MSET overwrites the key, MDEL removes it. */
				multi_clear(&sh->m);
				for (i = 0; i < INTR_OPS; i++)
					multi_add_str(&sh->m, k,
						      cmds[c] == KVBENCH_IOC_MSET ?
						      "w" : NULL);
				multi_prep(&sh->m, cmds[c], 64);
				arg = &sh->m.arg;
			}
			why = intr_hold(&hold, self->fd, k, cpu, owner_cpu);
			if (!why)
				why = intr_victim(self->fd, cmds[c], arg, cpu,
						  &hold.spin);
			intr_release(&hold);
			if (!why)
				break;
			TH_LOG("%s, try %u: %s", cmds[c] == KVBENCH_IOC_BATCH ?
			       "BATCH" : multi_name(cmds[c]), try + 1, why);
		}
		if (try == INTR_TRIES) {
			EXPECT_TRUE(false) TH_LOG("no try held the queue full");
			continue;
		}
		for (i = 0; i < INTR_OPS; i++) {
			if (cmds[c] == KVBENCH_IOC_BATCH) {
				EXPECT_EQ(-EINTR, sh->ops[i].result)
					TH_LOG("BATCH op %u", i);
				continue;
			}
			EXPECT_EQ(-EINTR, sh->m.results[i])
				TH_LOG("%s op %u", multi_name(cmds[c]), i);
			if (cmds[c] == KVBENCH_IOC_MGET)
				EXPECT_EQ(0U, sh->m.value_lens[i])
					TH_LOG("MGET op %u", i);
		}
		/* Nothing of the interrupted call ran: the key kept its value. */
		len = sizeof(buf);
		EXPECT_EQ(0, kvb_get(self->fd, k, strlen(k), buf, &len));
		EXPECT_EQ(1U, len);
		EXPECT_EQ('v', buf[0]);
	}

out:
	/* In this order: the kernel refuses the other (EBUSY). */
	if (fair[0])
		EXPECT_EQ(0, intr_fair_server(owner_cpu, NULL, 0, fair));
	EXPECT_EQ(0, sysfs_write(INTR_RT_RUNTIME, rt_runtime));
	/* The kthread backend's owner is a normal task again. */
	if (!strcmp(variant->backend, "kthread"))
		EXPECT_LT(0, owners_sched(SCHED_OTHER, 0));
	munmap(sh, sizeof(*sh));
}

/*
 * The owner threads a backend runs, as the owners file says: none for the
 * lock, RCU and combining backends, one for kthread, the owners parameter
 * for kthread-percpu (this suite's variant asks for 2); and every shard
 * answers: keys that hash all over are stored and read back.
 */
TEST_F(kvbench, owner_threads)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	char key[KVBENCH_KEY_MAX + 1], val[32];
	unsigned long long attr;
	unsigned int i, klen;
	int owners, want = 0;

	ASSERT_LT(0, cpus);
	if (!strcmp(variant->backend, "kthread"))
		want = 1;
	else if (!strcmp(variant->backend, "kthread-percpu"))
		want = VARIANT_OWNERS;
	owners = owners_affinity(NULL);
	ASSERT_LE(0, owners) TH_LOG("reading /proc: %s", strerror(-owners));
	EXPECT_EQ(want, owners) TH_LOG("%s with %ld CPUs online", variant->backend, cpus);
	ASSERT_EQ(0, sysfs_read_u64(KVB_ATTR("owners"), &attr));
	EXPECT_EQ((unsigned long long)want, attr);
	TH_LOG("%s: %d owner threads, %ld CPUs online", variant->backend, owners, cpus);

	use_bulk(&self->keys, 256);
	for (i = 0; i < 256; i++) {
		klen = bulk_key(self->keys.prefix, i, key);
		snprintf(val, sizeof(val), "v%u", i);
		ASSERT_EQ(0, kvb_set(self->fd, key, klen, val, strlen(val)));
	}
	for (i = 0; i < 256; i++) {
		klen = bulk_key(self->keys.prefix, i, key);
		snprintf(val, sizeof(val), "v%u", i);
		EXPECT_EQ(0, get_check(self->fd, key, klen, val, strlen(val)))
			TH_LOG("key %u", i);
	}
}

/*
 * owners: how many owner threads kthread-percpu starts, read when a map
 * is created. 0 means one per 8 online CPUs; with at least as many owners
 * as online CPUs they run at SCHED_FIFO, with fewer as normal tasks. Out
 * of range (over 1024) or not a number: EINVAL, and the map is untouched.
 */
static int owner_policy(pid_t pid, const void *arg)
{
	const int *want = arg;
	int policy = sched_getscheduler(pid);

	if (policy < 0)
		return -1;
	if (policy != *want) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

TEST_F(kvbench, owners_param)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	static const unsigned int asks[] = { 0, 1, 3 };
	char key[KVBENCH_KEY_MAX + 1];
	unsigned long long attr;
	unsigned int i, want;
	int policy, n;

	if (strcmp(variant->backend, "kthread-percpu"))
		SKIP(return, "only kthread-percpu has several owners");
	ASSERT_LT(0, cpus);
	ASSERT_EQ(0, set_str(self->fd, mkkey(&self->keys, key, "k"), "v"));
	for (i = 0; i < ARRAY_SIZE(asks); i++) {
		want = asks[i] ? asks[i] : (cpus + 7) / 8;
		ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("owners"), asks[i]));
		ASSERT_EQ(0, switch_backend(variant->backend));
		ASSERT_EQ(0, sysfs_read_u64(KVB_ATTR("owners"), &attr));
		EXPECT_EQ(want, attr) TH_LOG("owners=%u, %ld CPUs", asks[i], cpus);
		policy = want >= cpus ? SCHED_FIFO : SCHED_OTHER;
		n = owners_each(owner_policy, &policy);
		EXPECT_EQ((int)want, n)
			TH_LOG("owners=%u: %s", asks[i],
			       n < 0 ? strerror(-n) : "threads");
		/* A map of its own kind: the entries came along. */
		EXPECT_EQ(0, get_check_str(self->fd, key, "v"));
	}
	EXPECT_EQ(-EINVAL, sysfs_write(KVB_PARAM("owners"), "1025"));
	EXPECT_EQ(-EINVAL, sysfs_write(KVB_PARAM("owners"), "two"));
	ASSERT_EQ(0, sysfs_read_u64(KVB_PARAM("owners"), &attr));
	EXPECT_EQ(3ULL, attr);
}

/* The CPUs a thread may run on, as "0-1"-style bits in @set. */
static int owner_getaffinity(pid_t pid, const void *arg)
{
	return sched_getaffinity(pid, sizeof(cpu_set_t), (cpu_set_t *)arg);
}

/* Every owner may run on exactly @want's CPUs: how many, or -errno. */
static int owners_allowed(const cpu_set_t *want)
{
	cpu_set_t got;
	int n;

	CPU_ZERO(&got);
	n = owners_each(owner_getaffinity, &got);
	if (n > 0 && !CPU_EQUAL(&got, want))
		return -EPROTO;
	return n;
}

#define CPU_ONLINE_FMT	"/sys/devices/system/cpu/cpu%d/online"

/* kthreadd, whose CPUs every kernel thread it makes gets at first. */
#define KVB_KTHREADD_PID	2

/*
 * owner_cpus places every owner thread, live ones at once and those of
 * maps created later; empty lets them run where any kernel thread may (the
 * housekeeping CPUs, kthreadd's: not those of nohz_full=, which a boot
 * with nohz_full=1 tells apart from every CPU). A list the kernel cannot
 * parse, a CPU it does not have, or a list of offline CPUs only: EINVAL,
 * and the placement is unchanged. An owner whose CPUs all go offline moves
 * elsewhere and keeps answering.
 */
TEST_F_TIMEOUT(kvbench, owner_cpus, 60)
{
	char path[64], key[KVBENCH_KEY_MAX + 1], list[16], buf[64];
	cpu_set_t all, hk, one;
	int a, b, n;

	if (strcmp(variant->backend, "kthread") &&
	    strcmp(variant->backend, "kthread-percpu"))
		SKIP(return, "%s has no owner thread", variant->backend);
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(all), &all));
	ASSERT_EQ(0, sched_getaffinity(KVB_KTHREADD_PID, sizeof(hk), &hk));
	if (!two_cpus(&all, &a, &b))
		SKIP(return, "needs two CPUs");
	mkkey(&self->keys, key, "k");
	ASSERT_EQ(0, kvb_set(self->fd, key, strlen(key), "v", 1));
	/* owner_cpus is empty (the fixture's): the kernel threads' CPUs. */
	n = owners_allowed(&hk);
	EXPECT_LT(0, n) TH_LOG("owners of an empty list: %s", strerror(-n));

	snprintf(list, sizeof(list), "%d", b);
	ASSERT_EQ(0, sysfs_write(KVB_PARAM("owner_cpus"), list));
	ASSERT_EQ(0, sysfs_read(KVB_PARAM("owner_cpus"), buf, sizeof(buf)));
	EXPECT_STREQ(list, buf);
	cpu_only(&one, b);
	n = owners_allowed(&one);
	EXPECT_LT(0, n) TH_LOG("live owners: %s", strerror(-n));
	/* A map created now. */
	ASSERT_EQ(0, switch_backend("rwlock"));
	ASSERT_EQ(0, switch_backend(variant->backend));
	n = owners_allowed(&one);
	EXPECT_LT(0, n) TH_LOG("new owners: %s", strerror(-n));
	EXPECT_EQ(0, get_check_str(self->fd, key, "v"));

	EXPECT_EQ(-EINVAL, sysfs_write(KVB_PARAM("owner_cpus"), "x"));
	EXPECT_EQ(-EINVAL, sysfs_write(KVB_PARAM("owner_cpus"), "99999"));
	ASSERT_EQ(0, sysfs_read(KVB_PARAM("owner_cpus"), buf, sizeof(buf)));
	EXPECT_STREQ(list, buf);

	/* CPU b offline: the list is refused, the owners move and answer. */
	snprintf(path, sizeof(path), CPU_ONLINE_FMT, b);
	if (!access(path, W_OK) && !sysfs_write(path, "0")) {
		EXPECT_EQ(-EINVAL, sysfs_write(KVB_PARAM("owner_cpus"), list));
		EXPECT_EQ(0, get_check_str(self->fd, key, "v"));
		EXPECT_EQ(0, kvb_set(self->fd, key, strlen(key), "w", 1));
		ASSERT_EQ(0, sysfs_write(path, "1"));
		EXPECT_EQ(0, get_check_str(self->fd, key, "w"));
	} else {
		TH_LOG("CPU %d cannot go offline: that part not run", b);
	}

	/* An empty line: sysfs passes no empty write on. */
	ASSERT_EQ(0, sysfs_write(KVB_PARAM("owner_cpus"), "\n"));
	ASSERT_EQ(0, sysfs_read(KVB_PARAM("owner_cpus"), buf, sizeof(buf)));
	EXPECT_STREQ("", buf);
	n = owners_allowed(&hk);
	EXPECT_LT(0, n) TH_LOG("owners anywhere: %s", strerror(-n));
}

/* Add a thread's utime + stime (clock ticks) to *@arg. */
static int owner_ticks(pid_t pid, const void *arg)
{
	unsigned long long *sum = (unsigned long long *)arg;
	unsigned long long ut, st;
	char path[64], stat[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (sysfs_read(path, stat, sizeof(stat)))
		return -1;
	/* After "pid (comm)": fields 3..13, then utime and stime. */
	p = strrchr(stat, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &ut, &st) != 2) {
		errno = EPROTO;
		return -1;
	}
	*sum += ut + st;
	return 0;
}

#define IDLE_CALLS	1000
#define IDLE_MS		500

/*
 * Owners poll for work only right after work: while the map is idle they
 * sleep and cost no CPU. After a burst of GETs from a caller on another
 * CPU than the owners (so they poll between requests: poll_us moves),
 * the owners use less than a clock tick in IDLE_MS, and poll_us stays.
 */
TEST_F_TIMEOUT(kvbench, owners_idle, 60)
{
	unsigned long long poll0, poll1, poll2, t1 = 0, t2 = 0;
	char key[KVBENCH_KEY_MAX + 1], buf[8];
	cpu_set_t all, one;
	int a, b, i;
	__u32 len;

	if (strcmp(variant->backend, "kthread") &&
	    strcmp(variant->backend, "kthread-percpu"))
		SKIP(return, "%s has no owner thread", variant->backend);
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(all), &all));
	if (!two_cpus(&all, &a, &b))
		SKIP(return, "needs two CPUs");
	cpu_only(&one, b);
	ASSERT_LT(0, owners_affinity(&one));
	cpu_only(&one, a);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	mkkey(&self->keys, key, "k");
	ASSERT_EQ(0, kvb_set(self->fd, key, strlen(key), "v", 1));
	ASSERT_EQ(0, sysfs_read_u64(KVB_ATTR("poll_us"), &poll0));
	for (i = 0; i < IDLE_CALLS; i++) {
		len = sizeof(buf);
		ASSERT_EQ(0, kvb_get(self->fd, key, strlen(key), buf, &len));
	}
	usleep(100 * 1000);
	ASSERT_EQ(0, sysfs_read_u64(KVB_ATTR("poll_us"), &poll1));
	ASSERT_LT(0, owners_each(owner_ticks, &t1));
	usleep(IDLE_MS * 1000);
	ASSERT_EQ(0, sysfs_read_u64(KVB_ATTR("poll_us"), &poll2));
	ASSERT_LT(0, owners_each(owner_ticks, &t2));
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(all), &all));
	ASSERT_LT(0, owners_affinity(&all));
	TH_LOG("poll_us %llu after %d GETs, then %llu idle; %llu ticks idle",
	       poll1 - poll0, IDLE_CALLS, poll2 - poll1, t2 - t1);
	EXPECT_LT(poll0, poll1);
	EXPECT_GT(1000ULL, poll2 - poll1);
	EXPECT_GE(1ULL, t2 - t1);
}

/*
 * How a request reaches its owner. kthread's callers queue every message,
 * so the queue is seen holding one (queue_hwm >= 1). kthread-percpu's
 * callers hand theirs over on their CPU's request line: a caller alone on
 * its CPU finds its line free every time, and nothing enters the queue
 * (queue_hwm stays 0), single ops or BATCH runs alike, while the owners
 * answer every one (drain_mean moves off 0).
 */
#define LINE_CALLS	1000

TEST_F(kvbench, owner_lines)
{
	char key[KVBENCH_KEY_MAX + 1], buf[8], mean[32];
	bool lines = !strcmp(variant->backend, "kthread-percpu");
	unsigned long long hwm;
	struct kvbench_op ops[4];
	cpu_set_t all, one;
	__u32 len;
	int i;

	if (strcmp(variant->backend, "kthread") && !lines)
		SKIP(return, "%s has no owner thread", variant->backend);
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(all), &all));
	cpu_only(&one, sched_getcpu());
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	mkkey(&self->keys, key, "k");
	ASSERT_EQ(0, kvb_set(self->fd, key, strlen(key), "v", 1));
	for (i = 0; i < 4; i++)
		op_init(&ops[i], KVBENCH_OP_GET, key, strlen(key), buf,
			sizeof(buf));
	ASSERT_EQ(0, sysfs_write(KVB_ATTR("reset"), "1"));
	for (i = 0; i < LINE_CALLS; i++) {
		len = sizeof(buf);
		ASSERT_EQ(0, kvb_get(self->fd, key, strlen(key), buf, &len));
		if (!(i % 10))
			ASSERT_EQ(0, kvb_batch(self->fd, ops, 4, 0));
	}
	ASSERT_EQ(0, sysfs_read_u64(KVB_ATTR("queue_hwm"), &hwm));
	ASSERT_EQ(0, sysfs_read(KVB_ATTR("drain_mean"), mean, sizeof(mean)));
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(all), &all));
	TH_LOG("%s: queue_hwm %llu, drain_mean %s", variant->backend, hwm,
	       mean);
	EXPECT_NE(0, strncmp(mean, "0.00", 4));
	/* kthread-percpu: nothing queued; kthread: every request. */
	EXPECT_EQ(!lines, hwm > 0);
}

/*
 * kthread_spin_us=0: nobody spins (issue 45, item 7). Set before the
 * owners start, a dozen GETs from a caller on another CPU than the owners
 * (so the owners run out of work after each) leave poll_us where it was:
 * an owner out of work goes to sleep at once. Before the fix an owner
 * still spun KVBENCH_SPIN_CLOCK turns and two clock reads each time, and
 * poll_us grew by 100-1000 us. A change of the parameter reaches running
 * owners at their next wait for work: back at 20, poll_us moves again;
 * at 0 once more, it stays, though the owners' spins had grown meanwhile.
 */
#define NOSPIN_GETS	12

static int nospin_gets(struct __test_metadata *_metadata, int fd,
		       const char *key, unsigned long long *poll)
{
	unsigned long long p0, p1;
	char buf[8];
	__u32 len;
	int i;

	if (sysfs_read_u64(KVB_ATTR("poll_us"), &p0))
		return -1;
	for (i = 0; i < NOSPIN_GETS; i++) {
		len = sizeof(buf);
		EXPECT_EQ(0, kvb_get(fd, key, strlen(key), buf, &len));
		/* Each GET finds the owners asleep. */
		usleep(2000);
	}
	if (sysfs_read_u64(KVB_ATTR("poll_us"), &p1))
		return -1;
	*poll = p1 - p0;
	return 0;
}

TEST_F_TIMEOUT(kvbench, owners_never_spin, 60)
{
	unsigned long long spin_us, still, spun, again;
	char key[KVBENCH_KEY_MAX + 1];
	cpu_set_t all, one;
	int a, b;

	if (strcmp(variant->backend, "kthread") &&
	    strcmp(variant->backend, "kthread-percpu"))
		SKIP(return, "%s has no owner thread", variant->backend);
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(all), &all));
	if (!two_cpus(&all, &a, &b))
		SKIP(return, "needs two CPUs");
	ASSERT_EQ(0, sysfs_read_u64(KVB_PARAM("kthread_spin_us"), &spin_us));
	ASSERT_EQ(0, sysfs_write(KVB_PARAM("kthread_spin_us"), "0"));
	/* New owners, started with 0. */
	if (switch_backend(variant->backend)) {
		sysfs_write_u64(KVB_PARAM("kthread_spin_us"), spin_us);
		ASSERT_TRUE(false) TH_LOG("rebuilding %s", variant->backend);
	}
	cpu_only(&one, b);
	ASSERT_LT(0, owners_affinity(&one));
	cpu_only(&one, a);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	mkkey(&self->keys, key, "nospin");
	ASSERT_EQ(0, kvb_set(self->fd, key, strlen(key), "v", 1));

	EXPECT_EQ(0, nospin_gets(_metadata, self->fd, key, &still));
	EXPECT_EQ(0, sysfs_write(KVB_PARAM("kthread_spin_us"), "20"));
	EXPECT_EQ(0, nospin_gets(_metadata, self->fd, key, &spun));
	EXPECT_EQ(0, sysfs_write(KVB_PARAM("kthread_spin_us"), "0"));
	EXPECT_EQ(0, nospin_gets(_metadata, self->fd, key, &again));

	EXPECT_EQ(0, sysfs_write_u64(KVB_PARAM("kthread_spin_us"), spin_us));
	EXPECT_EQ(0, sched_setaffinity(0, sizeof(all), &all));
	EXPECT_LT(0, owners_affinity(&all));
	TH_LOG("%s: poll_us after %d GETs: %llu at kthread_spin_us=0, %llu at 20, %llu at 0 again",
	       variant->backend, NOSPIN_GETS, still, spun, again);
	EXPECT_EQ(0ULL, still);
	EXPECT_LT(0ULL, spun);
	EXPECT_EQ(0ULL, again);
}

/*
 * A switch drains the old map with a scheduling point every few hundred
 * entries (issue 11, item 5). It moves every entry under the switch's
 * write lock, in the task that writes the backend file: with hundreds of
 * thousands of entries that takes a while, and a drain without a
 * scheduling point keeps a victim bound to the same CPU waiting for all
 * of it. With them, the scheduler preempts the switching task for the
 * victim every tick or so. The measure is the switching task's CPU time
 * per involuntary context switch (plus one), which the host's stalls do
 * not shorten; the best of a few switches, as a stall makes one longer.
 *
 * The map holds as many entries as we SET in a few seconds, up to
 * DRAIN_ENTRIES: on a debug kernel a SET costs twenty times what it does
 * on a stock one, a drain only a few times.
 * The rhashtable backend's drain is the kernel's
 * rhashtable_free_and_destroy(), not ours. The others drain their tables
 * with kvbench_table_drain(), rwlock and rcu one table, kthread and
 * kthread-percpu through kvbench_owner_drain(): rwlock and kthread-percpu
 * run it, as each costs a debug kernel 13 s.
 */
#define DRAIN_ENTRIES	300000
#define DRAIN_FILL_MS	5000
#define DRAIN_CHUNK	4096
#define DRAIN_BITS	16
#define DRAIN_SWITCHES	3
#define DRAIN_STRETCH_MS 12	/* 3 ticks at HZ=250 */

TEST_F_TIMEOUT(kvbench, switch_drain_reschedules, 120)
{
	long long t0, took, cpu_took, stretch, best = -1;
	unsigned int n, end;
	const char *fill = "rcu";
	pthread_t victim_thread;
	struct kvb_stats s0, s1;
	cpu_set_t all, one;
	struct victim *v;
	int cpu, other, r;
	long nivcsw;

	if (!strcmp(variant->backend, "rhashtable"))
		SKIP(return, "the kernel's rhashtable drains it");
	if (!strcmp(variant->backend, "rcu") ||
	    !strcmp(variant->backend, "kthread"))
		SKIP(return, "drained as rwlock's or kthread-percpu's: they run it");
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(all), &all));
	if (!two_cpus(&all, &other, &cpu))
		SKIP(return, "needs two CPUs");
	v = calloc(1, sizeof(*v));
	ASSERT_NE(NULL, v);

	/*
	 * Fill and empty the map through a backend of fast BATCHes (that of
	 * kthread-percpu runs one message per run of keys on one shard),
	 * with buckets enough that a SET walks short chains.
	 */
	ASSERT_EQ(0, sysfs_write_u64(KVB_PARAM("hash_bits"), DRAIN_BITS));
	if (switch_backend(fill) == -EINVAL)
		fill = variant->backend;
	ASSERT_EQ(0, switch_backend(fill));
	ASSERT_EQ(0, stats_read(&s0));
	t0 = now_ns(CLOCK_MONOTONIC);
	for (n = 0; n < DRAIN_ENTRIES; n = end) {
		if (now_ns(CLOCK_MONOTONIC) - t0 >= DRAIN_FILL_MS * 1000000LL)
			break;
		end = n + DRAIN_CHUNK < DRAIN_ENTRIES ? n + DRAIN_CHUNK :
							DRAIN_ENTRIES;
		/* For the teardown, should we fail before we deleted them. */
		use_bulk(&self->keys, end);
		ASSERT_EQ(0, bulk_batch(self->fd, self->keys.prefix,
					KVBENCH_OP_SET, n, end));
	}
	ASSERT_EQ(0, switch_backend(variant->backend));

	/*
	 * We switch on the victim's CPU, to the same backend with another
	 * hash_bits, which rebuilds the map.
	 */
	cpu_only(&one, cpu);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	for (r = 0; r < DRAIN_SWITCHES; r++) {
		EXPECT_EQ(0, sysfs_write_u64(KVB_PARAM("hash_bits"),
					     DRAIN_BITS + 1 - r % 2));
		ASSERT_EQ(0, victim_start(v, &victim_thread, cpu));
		usleep(20000);
		t0 = now_ns(CLOCK_MONOTONIC);
		cpu_took = now_ns(CLOCK_THREAD_CPUTIME_ID);
		nivcsw = thread_nivcsw();
		EXPECT_EQ(0, switch_backend(variant->backend));
		nivcsw = thread_nivcsw() - nivcsw;
		cpu_took = now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu_took;
		took = now_ns(CLOCK_MONOTONIC) - t0;
		victim_stop(v, victim_thread);
		stretch = cpu_took / (nivcsw + 1);
		TH_LOG("%s, %u entries: switched in %lld ms, %lld of CPU, preempted %ld times",
		       variant->backend, n, took / 1000000,
		       cpu_took / 1000000, nivcsw);
		TH_LOG("%lld ms at a stretch; the victim ran %lld of %lld ms, waited %lld at most",
		       stretch / 1000000, v->cpu / 1000000,
		       v->wall / 1000000, v->max_gap / 1000000);
		if (best < 0 || stretch < best)
			best = stretch;
	}
	EXPECT_EQ(0, sched_setaffinity(0, sizeof(all), &all));

	ASSERT_EQ(0, stats_read(&s1));
	EXPECT_EQ(s0.v[ST_ENTRIES] + n, s1.v[ST_ENTRIES]);
	EXPECT_EQ(0, switch_backend(fill));
	EXPECT_EQ(0, bulk_batch(self->fd, self->keys.prefix, KVBENCH_OP_DEL,
				0, n));
	ASSERT_EQ(0, stats_read(&s1));
	EXPECT_EQ(s0.v[ST_ENTRIES], s1.v[ST_ENTRIES]);
	if (s0.v[ST_ENTRIES] == s1.v[ST_ENTRIES])
		self->keys.nbulk = 0;	/* nothing left for the teardown */
	free(v);

	EXPECT_GE(DRAIN_STRETCH_MS * 1000000LL, best)
		TH_LOG("the switch ran %lld ms at a stretch, on average",
		       best / 1000000);
}

/* --------------------------------------------------------------- unload */

TEST_F(kvbench, unload_refused_while_open)
{
	int ret, err;

	ret = syscall(SYS_delete_module, "kvbench", O_NONBLOCK);
	err = errno;
	if (ret && err == EPERM)
		SKIP(return, "no CAP_SYS_MODULE");
	ASSERT_EQ(-1, ret) TH_LOG("kvbench was unloaded with %s open", KVB_DEV);
	EXPECT_TRUE(err == EWOULDBLOCK || err == EAGAIN)
		TH_LOG("delete_module: %s", strerror(err));
	/* The open file still works. */
	EXPECT_EQ(0, kvb_ioctl(self->fd, KVBENCH_IOC_NOP, NULL));
}

TEST_HARNESS_MAIN
