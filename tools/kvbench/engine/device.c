// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench: opening /dev/kvbench, and saying what to do when that fails;
 * the targets that run on it: nop (KVBENCH_IOC_NOP, the ioctl floor) and
 * the kernel backends (GET/SET/DEL, BATCH and the packed MGET/MSET/MDEL
 * ioctls, the backend switched through sysfs).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/kvbench.h>

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

/* sysfs: read and switch the module's backend. */
int kvb_read_backend(const char *sysfs, char *buf, size_t len)
{
	char path[512];
	FILE *f;
	char *nl;

	snprintf(path, sizeof(path), "%s/backend", sysfs);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, len, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = 0;
	return 0;
}

/* why: what went wrong, for the list of skipped cases (NULL: not wanted). */
int kvb_switch_backend(const char *sysfs, const char *name, char *why,
		       size_t whylen)
{
	char path[512], now[KVB_NAME_MAX];
	int fd, err = 0;
	size_t len = strlen(name);

	snprintf(path, sizeof(path), "%s/backend", sysfs);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, name, len) != (ssize_t)len)
		err = errno;
	if (fd >= 0)
		close(fd);
	if (err) {
		fprintf(stderr, "kvbench: cannot switch the backend to '%s' (%s): %s\n",
			name, path, strerror(err));
		if (why)
			snprintf(why, whylen, "cannot switch the backend: %s%s",
				 strerror(err),
				 err == EINVAL ? " (unknown to the module?)" : "");
		return -1;
	}
	if (kvb_read_backend(sysfs, now, sizeof(now)) || strcmp(now, name)) {
		fprintf(stderr, "kvbench: wrote '%s' to %s but it reads back '%s'\n",
			name, path, now);
		if (why)
			snprintf(why, whylen, "the backend did not switch (it reads '%s')",
				 now);
		return -1;
	}
	return 0;
}

/* The module parameter hash_bits takes 1..20 (kvbench_main.c). */
#define KVB_HASH_BITS_MIN	1
#define KVB_HASH_BITS_MAX	20

/* The smallest hash_bits b with 2^b >= keys, within what the module takes. */
unsigned int kvb_hash_bits_for(unsigned long keys)
{
	unsigned int b = KVB_HASH_BITS_MIN;

	while (b < KVB_HASH_BITS_MAX && (1UL << b) < keys)
		b++;
	return b;
}

/* The module's hash_bits now; 0 when it has no such parameter (or none). */
unsigned int kvb_module_hash_bits(const char *sys_module)
{
	char path[512], buf[32], *end;
	unsigned long v;

	snprintf(path, sizeof(path), "%s/parameters/hash_bits", sys_module);
	if (kvb_read_line(path, buf, sizeof(buf)))
		return 0;
	errno = 0;
	v = strtoul(buf, &end, 10);
	if (errno || end == buf || *end || v < KVB_HASH_BITS_MIN || v > KVB_HASH_BITS_MAX)
		return 0;
	return v;
}

static int write_hash_bits(const char *sys_module, unsigned int bits)
{
	char path[512], buf[16];
	int fd, err = 0, len = snprintf(buf, sizeof(buf), "%u", bits);

	snprintf(path, sizeof(path), "%s/parameters/hash_bits", sys_module);
	errno = 0;
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0 || write(fd, buf, len) != len)
		err = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
	return -err;
}

/*
 * Size the hash chain backends' tables for the keys the run loads: they
 * have 2^hash_bits buckets, fixed when a map is built, so GET at 1,000,000
 * keys in the default 4,096 buckets walks chains of 244 keys and measures
 * them rather than the backend. Once, before the first kernel target's
 * switch (which then builds its map at this size); not with
 * --keep-hash-bits, nor with a module without the parameter.
 * kvb_restore_backend() puts the module's value back. Returns 1 when it
 * changed the parameter, else 0.
 */
int kvb_size_hash_bits(struct kvb_bench *b)
{
	const struct kvb_params *p = b->p;
	unsigned int cur, want = kvb_hash_bits_for(p->keys);
	int err;

	if (b->hash_bits_sized || p->keep_hash_bits)
		return 0;
	b->hash_bits_sized = 1;
	cur = kvb_module_hash_bits(p->sys_module);
	if (!cur || cur == want)
		return 0;
	err = write_hash_bits(p->sys_module, want);
	if (err) {
		fprintf(stderr,
			"kvbench: cannot set hash_bits to %u for %lu keys (%s/parameters/hash_bits): %s; it stays %u\n",
			want, p->keys, p->sys_module, strerror(-err), cur);
		return 0;
	}
	b->orig_hash_bits = cur;
	if (!p->quiet)
		fprintf(stderr,
			"kvbench: hash_bits %u -> %u for %lu keys, until the end (--keep-hash-bits keeps %u)\n",
			cur, want, p->keys, cur);
	return 1;
}

/*
 * Put back the module's hash_bits, then the backend it had before the
 * first switch: that switch rebuilds the map at the user's size.
 */
void kvb_restore_backend(struct kvb_bench *b)
{
	const struct kvb_params *p = b->p;
	int err;

	if (b->orig_hash_bits) {
		err = write_hash_bits(p->sys_module, b->orig_hash_bits);
		if (err)
			fprintf(stderr,
				"kvbench: cannot put hash_bits back to %u (%s/parameters/hash_bits): %s\n",
				b->orig_hash_bits, p->sys_module, strerror(-err));
		b->orig_hash_bits = 0;
	}
	if (b->orig_backend[0])
		kvb_switch_backend(p->sysfs, b->orig_backend, NULL, 0);
}

static __u64 ptr(const void *p)
{
	return (__u64)(unsigned long)p;
}

/* nop: the device, and nothing else. */
int kvb_dev_begin(struct kvb_bench *b, struct kvb_target *t)
{
	(void)t;
	b->fd = kvb_open_device(b->p->device);
	return b->fd < 0 ? -1 : 0;
}

/*
 * A kernel backend: switched to through sysfs ("current": the one loaded,
 * not switched, but rebuilt in place when kvb_size_hash_bits() changed
 * hash_bits), then the device opened. The switch happens while no fd of
 * ours is open.
 */
int kvb_kernel_begin(struct kvb_bench *b, struct kvb_target *t)
{
	const struct kvb_params *p = b->p;
	char cur[KVB_BASE_MAX];

	if (!strcmp(t->base, "current")) {
		if (kvb_read_backend(p->sysfs, cur, sizeof(cur))) {
			snprintf(cur, sizeof(cur), "kernel");
		} else if (kvb_size_hash_bits(b)) {
			/* its own name: the map is built again at that size */
			if (!b->orig_backend[0])
				snprintf(b->orig_backend, sizeof(b->orig_backend), "%s", cur);
			if (kvb_switch_backend(p->sysfs, cur, b->why, sizeof(b->why)))
				return -1;
		}
		kvb_target_rename(t, cur);
	} else {
		if (!b->orig_backend[0] &&
		    kvb_read_backend(p->sysfs, b->orig_backend, sizeof(b->orig_backend)))
			b->orig_backend[0] = 0;
		kvb_size_hash_bits(b);
		if (kvb_switch_backend(p->sysfs, t->base, b->why, sizeof(b->why)))
			return -1;
	}
	return kvb_dev_begin(b, t);
}

/* Per-thread fds are opened here; shared means the main one. */
int kvb_dev_thread_init(struct kvb_ctx *c, enum kvb_fd fdmode)
{
	const struct kvb_params *p = c->b->p;

	if (fdmode != KVB_FD_PER_THREAD) {
		c->fd = c->b->fd;
		return 0;
	}
	c->fd = open(p->device, O_RDWR | O_CLOEXEC);
	if (c->fd < 0) {
		kvb_device_hint(p->device, errno);
		return -1;
	}
	return 0;
}

/* A kernel backend thread's arrays for the packed calls, made at the first. */
struct kmulti {
	char *keys;		/* KVBENCH_BATCH_MAX keys, back to back */
	char *vals;		/* KVBENCH_BATCH_MAX values: MSET's, MGET's room */
	__u32 klens[KVBENCH_BATCH_MAX];
	__u32 vlens[KVBENCH_BATCH_MAX];		/* MSET: value_size each */
	__u32 vlens_out[KVBENCH_BATCH_MAX];	/* MGET */
	__s32 results[KVBENCH_BATCH_MAX];
};

void kvb_dev_thread_fini(struct kvb_ctx *c)
{
	struct kmulti *m = c->priv;

	if (c->fd >= 0 && c->fd != c->b->fd)
		close(c->fd);
	c->fd = -1;
	if (m) {
		free(m->keys);
		free(m->vals);
		free(m);
		c->priv = NULL;
	}
}

static int nop_op(struct kvb_ctx *c, int op, const char *key, char *val,
		  unsigned int *vlen)
{
	(void)op;
	(void)key;
	(void)val;
	(void)vlen;
	return ioctl(c->fd, KVBENCH_IOC_NOP) ? -errno : 0;
}

static int nop_probe(struct kvb_ctx *c, unsigned int batch, int multi,
		     char *val)
{
	(void)batch;
	(void)multi;
	return nop_op(c, 0, NULL, val, NULL);
}

static int kernel_op(struct kvb_ctx *c, int op, const char *key, char *val,
		     unsigned int *vlen)
{
	static const unsigned long cmd[] = {
		[KVBENCH_OP_GET] = KVBENCH_IOC_GET,
		[KVBENCH_OP_SET] = KVBENCH_IOC_SET,
		[KVBENCH_OP_DEL] = KVBENCH_IOC_DEL,
	};
	struct kvbench_kv kv = {
		.key = ptr(key),
		.value = ptr(val),
		.key_len = c->klen,
		.value_len = *vlen,
	};

	return ioctl(c->fd, cmd[op], &kv) ? -errno : 0;
}

/* One KVBENCH_IOC_BATCH; when the call itself fails, every op has failed. */
static void kernel_batch(struct kvb_ctx *c, struct kvbench_op *ops,
			 unsigned int n)
{
	struct kvbench_batch bt = { .ops = ptr(ops), .count = n };
	unsigned int i;

	if (!ioctl(c->fd, KVBENCH_IOC_BATCH, &bt))
		return;
	for (i = 0; i < n; i++)
		ops[i].result = -errno;
}

static struct kmulti *kmulti_get(struct kvb_ctx *c)
{
	const struct kvb_params *p = c->b->p;
	struct kmulti *m = c->priv;
	unsigned int i;

	if (m)
		return m;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->keys = malloc((size_t)KVBENCH_BATCH_MAX * p->key_size);
	m->vals = malloc((size_t)KVBENCH_BATCH_MAX * p->value_size + 1);
	if (!m->keys || !m->vals) {
		free(m->keys);
		free(m->vals);
		free(m);
		return NULL;
	}
	/* Every value the benchmark sets is value_size bytes of 'v'. */
	memset(m->vals, 'v', (size_t)KVBENCH_BATCH_MAX * p->value_size + 1);
	for (i = 0; i < KVBENCH_BATCH_MAX; i++) {
		m->klens[i] = c->klen;
		m->vlens[i] = p->value_size;
	}
	c->priv = m;
	return m;
}

/*
 * One KVBENCH_IOC_MGET, MSET or MDEL of the n keys of ops (all of the
 * kind of ops[0]); when the call itself fails, every op has failed.
 */
static void kernel_multi(struct kvb_ctx *c, struct kvbench_op *ops,
			 unsigned int n)
{
	static const unsigned long cmd[] = {
		[KVBENCH_OP_GET] = KVBENCH_IOC_MGET,
		[KVBENCH_OP_SET] = KVBENCH_IOC_MSET,
		[KVBENCH_OP_DEL] = KVBENCH_IOC_MDEL,
	};
	unsigned int vsize = c->b->p->value_size, i;
	struct kmulti *m = kmulti_get(c);
	struct kvbench_multi a = { .count = n };
	int op = ops[0].op, err = ENOMEM;

	if (m) {
		for (i = 0; i < n; i++)
			memcpy(m->keys + (size_t)i * c->klen,
			       (const char *)(unsigned long)ops[i].kv.key, c->klen);
		a.keys = ptr(m->keys);
		a.key_lens = ptr(m->klens);
		a.results = ptr(m->results);
		if (op != KVBENCH_OP_DEL) {
			a.values = ptr(m->vals);
			a.value_lens = ptr(op == KVBENCH_OP_SET ? m->vlens : m->vlens_out);
			a.values_size = n * vsize;
		}
		if (!ioctl(c->fd, cmd[op], &a)) {
			for (i = 0; i < n; i++)
				ops[i].result = m->results[i];
			return;
		}
		err = errno;
	}
	for (i = 0; i < n; i++)
		ops[i].result = -err;
}

/*
 * One GET (through BATCH when batching, MGET for packed calls) so a
 * missing ioctl fails early.
 */
static int kernel_probe(struct kvb_ctx *c, unsigned int batch, int multi,
			char *val)
{
	const struct kvb_params *p = c->b->p;
	unsigned int vlen = p->value_size;
	int res;

	if (multi) {
		struct kvbench_op o = {
			.kv = { .key = ptr(c->b->keys), .key_len = p->key_size },
			.op = KVBENCH_OP_GET,
		};

		kernel_multi(c, &o, 1);
		res = o.result;
	} else if (batch == 1) {
		res = kernel_op(c, KVBENCH_OP_GET, c->b->keys, val, &vlen);
	} else {
		struct kvbench_op o = {
			.kv = {
				.key = ptr(c->b->keys),
				.value = ptr(val),
				.key_len = p->key_size,
				.value_len = p->value_size,
			},
			.op = KVBENCH_OP_GET,
		};

		kernel_batch(c, &o, 1);
		res = o.result;
	}
	return res == -ENOENT ? 0 : res;
}

const struct kvb_target_ops kvb_nop_ops = {
	.kind = KVB_NOP,
	.group = "baselines",
	.flags = KVB_T_FD | KVB_T_DEVICE,
	.begin = kvb_dev_begin,
	.thread_init = kvb_dev_thread_init,
	.thread_fini = kvb_dev_thread_fini,
	.op = nop_op,
	.probe = nop_probe,
};

const struct kvb_target_ops kvb_kernel_ops = {
	.kind = KVB_KERNEL,
	.group = "kernel",
	.flags = KVB_T_MIXES | KVB_T_BATCHES | KVB_T_MULTI | KVB_T_FD |
		 KVB_T_DEVICE | KVB_T_BSTATS,
	.begin = kvb_kernel_begin,
	.thread_init = kvb_dev_thread_init,
	.thread_fini = kvb_dev_thread_fini,
	.op = kernel_op,
	.batch = kernel_batch,
	.multi = kernel_multi,
	.probe = kernel_probe,
};
