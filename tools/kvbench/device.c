// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench: opening /dev/kvbench, and saying what to do when that fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "kvbench.h"

/* Explain a failed open, with how to load the module when it is absent. */
void kvb_device_hint(const char *path, int err)
{
	fprintf(stderr, "kvbench: %s: %s\n", path, strerror(err));
	if (err == ENOENT || err == ENODEV || err == ENXIO)
		fprintf(stderr,
			"kvbench: is the module loaded? Load it with 'insmod module/kvbench.ko' (from the source tree) or 'modprobe kvbench'\n");
	else if (err == EACCES || err == EPERM)
		fprintf(stderr,
			"kvbench: %s is root-only; run as root or add a udev rule for your group\n",
			path);
}

int kvb_open_device(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	int err = errno;

	if (fd < 0) {
		kvb_device_hint(path, err);
		errno = err;	/* for the caller's list of skipped cases */
	}
	return fd;
}
