/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sysfs helpers of the kvbench selftests: read and write one attribute or
 * module parameter. Each returns 0 or a negative errno.
 */
#ifndef KVBENCH_SYSFS_H
#define KVBENCH_SYSFS_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KVB_DEV			"/dev/kvbench"
#define KVB_MODULE		"/sys/module/kvbench"
#define KVB_PARAM(name)		KVB_MODULE "/parameters/" name
#define KVB_ATTR(name)		"/sys/class/misc/kvbench/" name

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

static inline int sysfs_write_u64(const char *path, unsigned long long val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", val);
	return sysfs_write(path, buf);
}

#endif /* KVBENCH_SYSFS_H */
