/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kvbench selftests share: the module's paths, reading and writing
 * its sysfs files, the backends (the module's list, read at run time; the
 * list the fixtures' variants are made from is kvbench_backends.h), the
 * start of a suite outside the harness, clocks, a hash and a random number
 * generator, the owner threads, and tracefs.
 *
 * Functions return 0 or a negative errno unless they say otherwise.
 */
#ifndef KVBENCH_HELPERS_H
#define KVBENCH_HELPERS_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <linux/kvbench.h>

#include "kselftest.h"
#include "kvbench_backends.h"

#define KVB_DEV			"/dev/kvbench"
#define KVB_MODULE		"/sys/module/kvbench"
#define KVB_PARAM(name)		KVB_MODULE "/parameters/" name
#define KVB_ATTR(name)		"/sys/class/misc/kvbench/" name

/* Fixed per-entry overhead counted in the "bytes" statistic. */
#define KVB_ENTRY_OVERHEAD	64
/* An address in the kernel half on x86_64: never readable by the user. */
#define KVB_KERNEL_PTR		0xffffffff81000000ULL

/* ---------------------------------------------------------------- sysfs */

/* Read @path into @buf, without its trailing newline. */
static inline int sysfs_read(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

/* Write @val to the open attribute @fd in one write(). */
static inline int sysfs_write_fd(int fd, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;

	n = write(fd, val, len);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

static inline int sysfs_write(const char *path, const char *val)
{
	int fd, ret;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	ret = sysfs_write_fd(fd, val);
	close(fd);
	return ret;
}

/* Write @val to the file @file of the directory @dir. */
static inline int sysfs_write_at(const char *dir, const char *file,
				 const char *val)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return sysfs_write(path, val);
}

static inline int sysfs_read_u64(const char *path, unsigned long long *val)
{
	char buf[64], *end;
	int ret;

	ret = sysfs_read(path, buf, sizeof(buf));
	if (ret)
		return ret;
	errno = 0;
	*val = strtoull(buf, &end, 10);
	if (errno || end == buf || *end)
		return -EINVAL;
	return 0;
}

/* The number in @path, or -1 when it cannot be read. */
static inline long long sysfs_read_ll(const char *path)
{
	char buf[64];

	if (sysfs_read(path, buf, sizeof(buf)))
		return -1;
	return strtoll(buf, NULL, 10);
}

static inline int sysfs_write_u64(const char *path, unsigned long long val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", val);
	return sysfs_write(path, buf);
}

/*
 * The whole file @path, NUL-terminated, in a malloc()ed buffer that starts
 * at @size bytes and grows as needed, or NULL.
 */
static inline char *read_all(const char *path, size_t size)
{
	char *buf = malloc(size), *p;
	size_t len = 0;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0 || !buf) {
		if (fd >= 0)
			close(fd);
		free(buf);
		return NULL;
	}
	for (;;) {
		if (size - len < 4096) {
			p = realloc(buf, size * 2);
			if (!p)
				break;
			buf = p;
			size *= 2;
		}
		n = read(fd, buf + len, size - len - 1);
		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* -------------------------------------------------------------- ioctls */

static inline void kv_init(struct kvbench_kv *kv, const void *key,
			   size_t key_len, const void *value, size_t value_len)
{
	memset(kv, 0, sizeof(*kv));
	kv->key = (__u64)(unsigned long)key;
	kv->value = (__u64)(unsigned long)value;
	kv->key_len = key_len;
	kv->value_len = value_len;
}

/* The same for a key that is a string. */
static inline void kv_str(struct kvbench_kv *kv, const char *key,
			  const void *value, size_t value_len)
{
	kv_init(kv, key, strlen(key), value, value_len);
}

/* ------------------------------------------------------------- backends */

/* The module's backends, from its backends file. */
#define KVB_LIST_MAX		32

struct kvb_list {
	unsigned int n;
	const char *name[KVB_LIST_MAX];
	char buf[512];
};

/*
 * Read the module's list of backends into @l: -ENODATA when it is empty,
 * -E2BIG when it has more than KVB_LIST_MAX names.
 */
static inline int kvb_backends_read(struct kvb_list *l)
{
	char *name, *save = NULL;
	int ret;

	l->n = 0;
	ret = sysfs_read(KVB_ATTR("backends"), l->buf, sizeof(l->buf));
	if (ret)
		return ret;
	for (name = strtok_r(l->buf, " ", &save); name;
	     name = strtok_r(NULL, " ", &save)) {
		if (l->n == KVB_LIST_MAX)
			return -E2BIG;
		l->name[l->n++] = name;
	}
	return l->n ? 0 : -ENODATA;
}

static inline int switch_backend(const char *name)
{
	return sysfs_write(KVB_ATTR("backend"), name);
}

/*
 * The start of a suite that runs without the harness (kvbench_stress,
 * kvbench_fuzz), after ksft_print_header(): root, /dev/kvbench open, the
 * backend in use saved in @orig for the end to switch back to, and the
 * module's backends in @l. Skips the suite (exit 4) when it cannot run.
 * Returns the open file.
 */
static inline int kvb_suite_start(char *orig, size_t size, struct kvb_list *l)
{
	int fd;

	if (geteuid())
		ksft_exit_skip("must be run as root\n");
	fd = open(KVB_DEV, O_RDWR);
	if (fd < 0)
		ksft_exit_skip("cannot open " KVB_DEV ": %s\n", strerror(errno));
	if (sysfs_read(KVB_ATTR("backend"), orig, size))
		ksft_exit_skip("no " KVB_ATTR("backend") "\n");
	if (kvb_backends_read(l))
		ksft_exit_skip("no list of backends in " KVB_ATTR("backends") "\n");
	return fd;
}

/* Whether the module limits neither the entries nor the bytes. */
static inline bool kvb_unlimited(void)
{
	return !sysfs_read_ll(KVB_PARAM("max_entries")) &&
	       !sysfs_read_ll(KVB_PARAM("max_bytes"));
}

/* --------------------------------------------------------------- owners */

#define KVB_OWNER_COMM		"kvbench-owner"

/* The pids of the owner threads ("kvbench-owner", "kvbench-owner/N"). */
static inline unsigned int kvb_owner_pids(pid_t *pids, unsigned int max)
{
	char path[300], comm[32];
	unsigned int n = 0;
	struct dirent *de;
	DIR *dir;

	dir = opendir("/proc");
	if (!dir)
		return 0;
	while (n < max && (de = readdir(dir))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		if (sysfs_read(path, comm, sizeof(comm)))
			continue;
		if (!strncmp(comm, KVB_OWNER_COMM, strlen(KVB_OWNER_COMM)))
			pids[n++] = atoi(de->d_name);
	}
	closedir(dir);
	return n;
}

/* ------------------------------------------------- time, hash, random */

static inline long long now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* CLOCK_MONOTONIC in seconds and in milliseconds. */
static inline double mono_s(void)
{
	return now_ns(CLOCK_MONOTONIC) / 1e9;
}

static inline long long mono_ms(void)
{
	return now_ns(CLOCK_MONOTONIC) / 1000000;
}

/* A whole file's tests skipped, with why, when why is not NULL. */
static inline void kvb_skip_all_if(const char *why)
{
	if (why) {
		ksft_print_header();
		ksft_exit_skip("%s\n", why);
	}
}

#define FNV1A_OFFSET		0xcbf29ce484222325ULL

/* FNV-1a over @len bytes of @data, from @h (FNV1A_OFFSET to start). */
static inline __u64 fnv1a(const void *data, size_t len, __u64 h)
{
	const unsigned char *p = data;

	while (len--) {
		h ^= *p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/*
 * FNV-1a of a stamped value of @len bytes: a header of @hdr bytes (at most
 * 64) with its 64-bit checksum at @csum_off counted as 0, then the rest.
 * The stress and torn-read tests stamp their values so.
 */
static inline __u64 fnv1a_stamped(const void *v, size_t len, size_t hdr, size_t csum_off)
{
	unsigned char h[64];

	memcpy(h, v, hdr);
	memset(h + csum_off, 0, sizeof(__u64));
	return fnv1a((const unsigned char *)v + hdr, len - hdr, fnv1a(h, hdr, FNV1A_OFFSET));
}

/* splitmix64: the next number of the sequence in *@state; any seed is good. */
static inline __u64 splitmix64(__u64 *state)
{
	__u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* -------------------------------------------------------------- tracefs */

/*
 * Find tracefs (the directory in @dir); mount it on /sys/kernel/tracing
 * when it is nowhere, and say so in *@mounted. Returns NULL, or why the
 * tests that need it skip.
 */
static inline const char *tracefs_find(char *dir, size_t size, bool *mounted)
{
	static const char * const dirs[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char path[256];
	size_t i;

	*mounted = false;
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/instances", dirs[i]);
		if (!access(path, F_OK)) {
			snprintf(dir, size, "%s", dirs[i]);
			return NULL;
		}
	}
	if (mount("nodev", dirs[0], "tracefs", 0, NULL))
		return "no tracefs (CONFIG_TRACING?)";
	*mounted = true;
	snprintf(dir, size, "%s", dirs[0]);
	return NULL;
}

#endif /* KVBENCH_HELPERS_H */
