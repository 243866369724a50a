// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench: bpf-htab, a peer target. The kernel's own key-value map, a BPF
 * hash map (BPF_MAP_TYPE_HASH, preallocated: no BPF_F_NO_PREALLOC), driven
 * from userspace through the raw bpf(2) syscall: no libbpf, no BPF program.
 * Same keys, key size, value size and key distribution as the kernel
 * backends; max_entries is the key count, and the map is filled before
 * timing. GET is BPF_MAP_LOOKUP_ELEM, SET BPF_MAP_UPDATE_ELEM (BPF_ANY),
 * DEL BPF_MAP_DELETE_ELEM.
 *
 * A batch of N operations is issued with as few bpf(2) calls as BPF
 * allows: each run of consecutive SETs is one BPF_MAP_UPDATE_BATCH, each
 * run of consecutive DELs one BPF_MAP_DELETE_BATCH, and each GET one
 * BPF_MAP_LOOKUP_ELEM, because BPF has no batch lookup by key
 * (BPF_MAP_LOOKUP_BATCH walks the map, it does not look up given keys).
 *
 * One map fd serves every thread: there is no per-thread or shared fd
 * mode. Creating the map needs root or CAP_BPF (Debian disables
 * unprivileged BPF); without them the target is skipped with a message.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/kvbench.h>

#include "kvbench.h"

static __u64 ptr(const void *p)
{
	return (__u64)(unsigned long)p;
}

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr)) < 0 ? -errno : 0;
}

static int htab_begin(struct kvb_bench *b, struct kvb_target *t)
{
	const struct kvb_params *p = b->p;
	union bpf_attr attr;
	int fd;

	if (!p->value_size) {
		fprintf(stderr,
			"kvbench: %s: skipped: a BPF hash map needs values of 1 byte or more\n",
			t->name);
		snprintf(b->why, sizeof(b->why), "BPF map values need 1 byte or more");
		return 1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_HASH;
	attr.key_size = p->key_size;
	attr.value_size = p->value_size;
	attr.max_entries = p->keys;
	snprintf(attr.map_name, sizeof(attr.map_name), "kvbench");
	fd = syscall(__NR_bpf, BPF_MAP_CREATE, &attr, sizeof(attr));
	if (fd < 0 && errno == ENOSYS) {
		fprintf(stderr,
			"kvbench: %s: skipped: this kernel has no bpf(2) (CONFIG_BPF_SYSCALL)\n",
			t->name);
		snprintf(b->why, sizeof(b->why), "the kernel has no bpf(2)");
		return 1;
	}
	if (fd < 0 && (errno == EPERM || errno == EACCES)) {
		fprintf(stderr,
			"kvbench: %s: skipped: cannot create a BPF hash map (%s); it needs root or CAP_BPF\n",
			t->name, strerror(errno));
		snprintf(b->why, sizeof(b->why), "a BPF map needs root or CAP_BPF (%s)",
			 strerror(errno));
		return 1;
	}
	if (fd < 0) {
		fprintf(stderr,
			"kvbench: %s: cannot create a BPF hash map of %lu x (%u + %u) B: %s\n",
			t->name, p->keys, p->key_size, p->value_size, strerror(errno));
		return -1;
	}
	b->fd = fd;
	return 0;
}

/* The keys and values of one UPDATE_BATCH or DELETE_BATCH, side by side. */
struct htab_thread {
	char *keys;	/* KVBENCH_BATCH_MAX * key_size */
	char *vals;	/* KVBENCH_BATCH_MAX * value_size */
};

static int htab_thread_init(struct kvb_ctx *c, enum kvb_fd fdmode)
{
	const struct kvb_params *p = c->b->p;
	struct htab_thread *h = calloc(1, sizeof(*h));

	(void)fdmode;
	c->fd = c->b->fd;
	if (!h)
		return -ENOMEM;
	c->priv = h;
	h->keys = malloc((size_t)KVBENCH_BATCH_MAX * p->key_size);
	h->vals = malloc((size_t)KVBENCH_BATCH_MAX * p->value_size);
	return h->keys && h->vals ? 0 : -ENOMEM;
}

static void htab_thread_fini(struct kvb_ctx *c)
{
	struct htab_thread *h = c->priv;

	if (h) {
		free(h->keys);
		free(h->vals);
		free(h);
	}
	c->priv = NULL;
	c->fd = -1;
}

static int htab_op(struct kvb_ctx *c, int op, const char *key, char *val,
		   unsigned int *vlen)
{
	union bpf_attr attr;

	(void)vlen;
	memset(&attr, 0, sizeof(attr));
	attr.map_fd = c->fd;
	attr.key = ptr(key);
	switch (op) {
	case KVBENCH_OP_GET:
		attr.value = ptr(val);
		return sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr);
	case KVBENCH_OP_SET:
		attr.value = ptr(val);
		attr.flags = BPF_ANY;
		return sys_bpf(BPF_MAP_UPDATE_ELEM, &attr);
	case KVBENCH_OP_DEL:
		return sys_bpf(BPF_MAP_DELETE_ELEM, &attr);
	default:
		return -EINVAL;
	}
}

/*
 * ops[0..n-1], all SETs or all DELs, as one UPDATE_BATCH or DELETE_BATCH.
 * The kernel stops at the first element that fails and says in
 * batch.count how many it did: that element gets the errno (a DEL of a
 * missing key: -ENOENT, a miss) and the rest go in another call.
 */
static void htab_batch_run(struct kvb_ctx *c, struct kvbench_op *ops,
			   unsigned int n)
{
	const struct kvb_params *p = c->b->p;
	struct htab_thread *h = c->priv;
	int set = ops[0].op == KVBENCH_OP_SET;
	unsigned int i, done = 0;

	for (i = 0; i < n; i++) {
		memcpy(h->keys + (size_t)i * p->key_size,
		       (const void *)(unsigned long)ops[i].kv.key, p->key_size);
		if (set)
			memcpy(h->vals + (size_t)i * p->value_size,
			       (const void *)(unsigned long)ops[i].kv.value,
			       p->value_size);
		ops[i].result = 0;
	}
	while (done < n) {
		union bpf_attr attr;
		int res;

		memset(&attr, 0, sizeof(attr));
		attr.batch.map_fd = c->fd;
		attr.batch.keys = ptr(h->keys + (size_t)done * p->key_size);
		attr.batch.count = n - done;
		if (set) {
			attr.batch.values = ptr(h->vals + (size_t)done * p->value_size);
			attr.batch.elem_flags = BPF_ANY;
		}
		res = sys_bpf(set ? BPF_MAP_UPDATE_BATCH : BPF_MAP_DELETE_BATCH, &attr);
		if (!res)
			return;
		if (attr.batch.count >= n - done)
			attr.batch.count = 0;	/* did not say: blame the first */
		done += attr.batch.count;
		ops[done++].result = res;
	}
}

/* Runs of SETs and of DELs go in batches; GETs one by one. */
static void htab_batch(struct kvb_ctx *c, struct kvbench_op *ops,
		       unsigned int n)
{
	unsigned int i = 0, j;

	while (i < n) {
		if (ops[i].op == KVBENCH_OP_GET) {
			unsigned int vlen = ops[i].kv.value_len;

			ops[i].result = htab_op(c, KVBENCH_OP_GET,
						(const char *)(unsigned long)ops[i].kv.key,
						(char *)(unsigned long)ops[i].kv.value,
						&vlen);
			i++;
			continue;
		}
		for (j = i + 1; j < n && ops[j].op == ops[i].op; j++)
			;
		htab_batch_run(c, ops + i, j - i);
		i = j;
	}
}

/* Batched SETs need BPF_MAP_UPDATE_BATCH (Linux 5.6): try one. */
static int htab_probe(struct kvb_ctx *c, unsigned int batch, int multi,
		      char *val)
{
	struct kvbench_op o = {
		.kv = {
			.key = ptr(c->b->keys),
			.value = ptr(val),
			.key_len = c->klen,
			.value_len = c->b->p->value_size,
		},
		.op = batch > 1 ? KVBENCH_OP_SET : KVBENCH_OP_GET,
	};

	(void)multi;	/* no KVB_T_MULTI: never asked */

	if (batch > 1)
		htab_batch_run(c, &o, 1);
	else
		htab_batch(c, &o, 1);
	return o.result == -ENOENT ? 0 : o.result;
}

const struct kvb_target_ops kvb_bpf_htab_ops = {
	.kind = KVB_PEER,
	.group = "peers",
	.flags = KVB_T_MIXES | KVB_T_BATCHES,
	.begin = htab_begin,
	.thread_init = htab_thread_init,
	.thread_fini = htab_thread_fini,
	.op = htab_op,
	.batch = htab_batch,
	.probe = htab_probe,
};
