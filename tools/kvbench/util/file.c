// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench: reading files: one line (a sysfs or procfs value), or a whole
 * file (a JSON report).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kvbench.h"

/* The first line of a file, without its newline; -errno on failure. */
int kvb_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int err = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		err = ferror(f) ? -EIO : -ENODATA;
	fclose(f);
	if (err) {
		buf[0] = 0;
		return err;
	}
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* The whole file at path, NUL-terminated; NULL with a message in err. */
char *kvb_slurp(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	size_t cap = 65536, len = 0, got;
	char *buf = NULL, *nb;

	if (!f) {
		snprintf(err, errlen, "%s", strerror(errno));
		return NULL;
	}
	for (;;) {
		nb = realloc(buf, cap + 1);
		if (!nb) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		buf = nb;
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (len < cap)
			break;
		cap *= 2;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "read error");
		goto fail;
	}
	fclose(f);
	buf[len] = 0;
	if (strlen(buf) != len) {
		snprintf(err, errlen, "a NUL byte: not JSON");
		free(buf);
		return NULL;
	}
	return buf;
fail:
	free(buf);
	fclose(f);
	return NULL;
}
