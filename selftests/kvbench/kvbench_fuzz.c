// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz /dev/kvbench: random commands, random struct contents, lengths at
 * and around every limit, and pointers that are NULL, unmapped, read-only,
 * kernel addresses, misaligned, or straddle into an unmapped page.
 *
 * The fuzzer is the only user of its keys and it runs single-threaded, so it
 * keeps a model of what the map holds for them and predicts every outcome:
 * the set of errnos Documentation/userspace-api/kvbench.rst allows for the
 * input (ENOMEM is always allowed for SET, BATCH and the packed commands),
 * or the exact result when the input is valid. The packed MGET, MSET and
 * MDEL get the same treatment as BATCH, and MGET's values are checked
 * where the packing rule puts them, with nothing written past the last.
 * Anything else fails the run with the seed that reproduces it. One phase
 * per backend; after each, the map must equal the model, "entries" and
 * "bytes" must match it, and a round trip must work.
 *
 * One op in eleven is a burst of io_uring commands (IORING_OP_URING_CMD:
 * KVBENCH_URING_NOP, GET, SET, DEL and cmd_op values that are none of
 * them) on a ring that is plain, CQE32, SQE128 or both, now and then
 * replaced. A burst is one command or a few in flight at once, on keys of
 * their own (they run in no defined order); on the owner backends up to
 * three times an owner's queue (queue_len is URING_QUEUE_LEN while the
 * fuzzer runs), so that some wait for room. The command area's flags,
 * reserved and kv pointer are random, as is the struct kvbench_kv it
 * points to, and an SQE128's bytes past the struct. Each CQE's res is
 * checked by the ioctl's oracle (plus the errors of the command area, and
 * ENOMEM), and on a CQE32 ring big_cqe[0] too; every command must get
 * exactly one CQE, within URING_TIMEOUT_MS. Now and then the ring is
 * closed with a burst in flight, or (owner backends) a child submits one
 * and exits: once the module's reference count says io_uring let go of
 * them, each key must hold what it held before or what the command would
 * have made of it. Without io_uring, or with a module built without its
 * commands, the bursts are left out with a note.
 *
 * Environment:
 *   KVBENCH_FUZZ_OPS       ops in all (default 1000000; an op is an ioctl
 *                          or a burst of uring commands), split evenly
 *                          between the backends
 *   KVBENCH_FUZZ_SEED      seed (default: from the clock; always printed)
 *   KVBENCH_FUZZ_BACKENDS  comma-separated backends (default: every one
 *                          the module has)
 *
 * Output is KTAP: one line per backend, one for the kernel log.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/kvbench.h>

#include "kselftest.h"
#include "kvbench_helpers.h"
#include "kvbench_uring.h"

#ifndef fallthrough
#define fallthrough		__attribute__((__fallthrough__))
#endif

/* Where a GET writes value_len back into struct kvbench_kv. */
#define VLEN_OFF		offsetof(struct kvbench_kv, value_len)
#define VLEN_END		(VLEN_OFF + sizeof(__u32))

#define ARENA_SIZE		(4UL << 20)
/*
 * The inaccessible guard after each view of the arena. A packed call reads
 * or writes its values at offsets from one pointer: from a pointer that
 * straddles the arena's end, or points into the guard, op i's bytes start
 * up to 256 values (each at most max_value_len + 2 <= 1 MiB + 2 bytes) past
 * it. The guard covers all of that, so that every byte past what the model
 * calls readable is really unmapped, not some other mapping of ours.
 */
#define ARENA_GUARD		(257UL << 20)
#define NR_KEYS			48
#define DEFAULT_OPS		1000000UL
#define POISON_RESULT		0x7eadbeef

/* ------------------------------------------------------------ randomness */

static __u64 rng_state;

static __u64 rnd(void)
{
	return splitmix64(&rng_state);
}

static __u32 rnd_below(__u32 n)
{
	return n ? (__u32)(rnd() % n) : 0;
}

/* True one time in @n. */
static bool one_in(__u32 n)
{
	return rnd_below(n) == 0;
}

/* ------------------------------------------------------------ memory */

/*
 * The arena: one memfd mapped twice, read-write and read-only, each view
 * followed by an inaccessible guard (ARENA_GUARD). Objects are laid out in the
 * read-write view; the kernel may be given either view's address of them.
 */
static struct {
	unsigned char *rw;
	unsigned char *ro;
	size_t off;		/* bump allocator, reset per ioctl */
	bool tail_used;		/* the straddling slot at the very end */
	long page;
} arena;

/* Scratch for objects whose pointer is bad: their content is never read. */
static unsigned char junk[16384];

static int arena_map(unsigned char **view, int fd, int prot)
{
	void *p;

	p = mmap(NULL, ARENA_SIZE + ARENA_GUARD, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	if (mmap(p, ARENA_SIZE, prot, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED)
		return -1;
	*view = p;
	return 0;
}

static int arena_init(void)
{
	int fd;

	arena.page = sysconf(_SC_PAGESIZE);
	fd = memfd_create("kvbench_fuzz", 0);
	if (fd < 0 || ftruncate(fd, ARENA_SIZE))
		return -1;
	if (arena_map(&arena.rw, fd, PROT_READ | PROT_WRITE) ||
	    arena_map(&arena.ro, fd, PROT_READ))
		return -1;
	close(fd);
	return 0;
}

enum ptr_kind {
	P_NORMAL, P_RO, P_NULL, P_UNMAPPED, P_KERNEL, P_STRADDLE, P_NR,
};

static const char * const ptr_names[P_NR] = {
	"normal", "read-only", "NULL", "unmapped", "kernel", "straddle",
};

/*
 * A pointer handed to the kernel: @addr, how many bytes from it are
 * readable and writable, and where the fuzzer writes the object's bytes
 * (@w, @wcap bytes of it; @w is junk when the pointer is bad).
 */
struct uptr {
	__u64 addr;
	size_t rlen;
	size_t wlen;
	unsigned char *w;
	size_t wcap;
	enum ptr_kind kind;
};

static void arena_reset(void)
{
	arena.off = 0;
	arena.tail_used = false;
}

/* Place @size bytes in the arena, misaligned now and then. */
static bool arena_alloc(size_t size, size_t *off)
{
	size_t o = arena.off;

	if (one_in(4))
		o += 1 + rnd_below(7);
	else
		o = (o + 7) & ~7UL;
	/* Keep the last page free for straddlers. */
	if (o + size > ARENA_SIZE - arena.page)
		return false;
	*off = o;
	arena.off = o + size;
	return true;
}

/*
 * A pointer to an object of @size bytes; @bad_one_in: one time in that many
 * the pointer is something other than a normal read-write one.
 */
static struct uptr place(size_t size, __u32 bad_one_in)
{
	struct uptr p = { .kind = P_NORMAL };
	size_t off, k;

	if (bad_one_in && one_in(bad_one_in))
		p.kind = 1 + rnd_below(P_NR - 1);

	switch (p.kind) {
	case P_STRADDLE:
		if (arena.tail_used || size < 1)
			break;
		arena.tail_used = true;
		/* Ends exactly at the edge (fits) or 1..size-1 bytes short. */
		k = one_in(4) ? size : 1 + rnd_below(size - 1 ? size - 1 : 1);
		if (k > size)
			k = size;
		off = ARENA_SIZE - k;
		p.addr = (uintptr_t)(arena.rw + off);
		p.rlen = k;
		p.wlen = k;
		p.w = arena.rw + off;
		p.wcap = k;
		return p;
	case P_NULL:
		p.addr = 0;
		goto bad;
	case P_UNMAPPED:
		switch (rnd_below(3)) {
		case 0:	/* the guard page after the arena */
			p.addr = (uintptr_t)(arena.rw + ARENA_SIZE) +
				 rnd_below(arena.page);
			break;
		case 1:	/* below mmap_min_addr */
			p.addr = 1 + rnd_below(4095);
			break;
		default: /* just past the top of user space */
			p.addr = (1ULL << 47) + rnd_below(4096);
			break;
		}
		goto bad;
	case P_KERNEL:
		p.addr = one_in(2) ? 0xffffffff81000000ULL + rnd_below(1 << 20) :
				     0xffff888000000000ULL + rnd_below(1 << 20);
		goto bad;
	default:
		break;
	}

	if (!arena_alloc(size, &off)) {
		p.kind = P_NULL;
		p.addr = 0;
		goto bad;
	}
	p.w = arena.rw + off;
	p.wcap = size;
	p.rlen = ARENA_SIZE - off;
	if (p.kind == P_RO) {
		p.addr = (uintptr_t)(arena.ro + off);
		p.wlen = 0;
	} else {
		p.kind = P_NORMAL;
		p.addr = (uintptr_t)(arena.rw + off);
		p.wlen = ARENA_SIZE - off;
	}
	return p;
bad:
	p.rlen = 0;
	p.wlen = 0;
	p.w = junk;
	p.wcap = size < sizeof(junk) ? size : sizeof(junk);
	return p;
}

static bool readable(const struct uptr *p, __u64 len)
{
	return !len || len <= p->rlen;
}

static bool writable(const struct uptr *p, __u64 len)
{
	return !len || len <= p->wlen;
}

/* Copy @len bytes of @src into the object, as far as it is writable. */
static void put_bytes(const struct uptr *p, const void *src, size_t len)
{
	memcpy(p->w, src, len < p->wcap ? len : p->wcap);
}

/* ------------------------------------------------------------ the model */

struct key {
	unsigned char data[KVBENCH_KEY_MAX];
	__u32 len;
	bool present;
	__u32 vlen;
	unsigned char *val;	/* KVBENCH max_value_len bytes */
};

static struct key keys[NR_KEYS];
static __u32 max_value_len;
static unsigned char *vbuf;	/* scratch: a value being built */

static void keys_init(void)
{
	static const __u32 lens[] = { 1, 2, 3, 8, 16, 63, 64, 65, 249, 250 };
	int i;
	__u32 j;

	for (i = 0; i < NR_KEYS; i++) {
		struct key *k = &keys[i];

		/* Only keys[0] is 1 byte long; data[1] tells the others apart. */
		k->len = i < (int)ARRAY_SIZE(lens) ? lens[i] :
			 2 + rnd_below(KVBENCH_KEY_MAX - 1);
		/* 'z' first: never a key that nobody has (0xff first). */
		k->data[0] = 'z';
		for (j = 1; j < k->len; j++)
			k->data[j] = (unsigned char)rnd();
		if (k->len > 1)
			k->data[1] = (unsigned char)i;
		k->present = false;
	}
}

static int model_set(struct key *k, const unsigned char *val, __u32 len)
{
	unsigned char *p = realloc(k->val, len ? len : 1);

	if (!p)
		return -1;
	memcpy(p, val, len);
	k->val = p;
	k->vlen = len;
	k->present = true;
	return 0;
}

/* ------------------------------------------------------------ reporting */

static unsigned long long seed;
static unsigned long iter;
static const char *phase_name;
static int failures;

static __printf(1, 2) void fail(const char *fmt, ...)
{
	va_list ap;

	if (failures++ >= 5)
		return;
	printf("# FAIL %s, seed %#llx, op %lu: ", phase_name, seed, iter);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n# reproduce: KVBENCH_FUZZ_SEED=%#llx KVBENCH_FUZZ_BACKENDS=%s ./kvbench_fuzz\n",
	       seed, phase_name);
	fflush(stdout);
}

/* An allowed outcome set: 0 or -errno values. */
struct expect {
	int v[8];
	int n;
};

static void exp_add(struct expect *e, int v)
{
	int i;

	for (i = 0; i < e->n; i++)
		if (e->v[i] == v)
			return;
	if (e->n < (int)ARRAY_SIZE(e->v))
		e->v[e->n++] = v;
}

static bool exp_has(const struct expect *e, int v)
{
	int i;

	for (i = 0; i < e->n; i++)
		if (e->v[i] == v)
			return true;
	return false;
}

static const char *exp_str(const struct expect *e)
{
	static char buf[128];
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < e->n; i++)
		n += snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? "|" : "",
			      e->v[i] ? strerrorname_np(-e->v[i]) : "0");
	return buf;
}

static const char *res_str(int r)
{
	return r ? strerrorname_np(-r) ?: "?" : "0";
}

/* ------------------------------------------------------------ generators */

static __u32 gen_key_len(__u32 real)
{
	static const __u32 odd[] = {
		0, KVBENCH_KEY_MAX + 1, KVBENCH_KEY_MAX + 2, 256, 4096,
		0x80000000U, 0xffffffffU,
	};

	__u32 len;

	if (!one_in(10))
		return real;
	if (one_in(4)) {
		/*
		 * A valid length other than the key's own names another key
		 * (a prefix of it, or it and the bytes after it), which the
		 * model does not follow: only invalid ones stand for chance.
		 */
		len = (__u32)rnd();
		return len && len <= KVBENCH_KEY_MAX ? real : len;
	}
	return odd[rnd_below(ARRAY_SIZE(odd))];
}

/* A SET's value length or a GET's buffer size, often at a limit. */
static __u32 gen_value_len(__u32 near)
{
	__u32 m = max_value_len;

	switch (rnd_below(24)) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return 511;
	case 3:
		return 512;
	case 4:
		return 513;
	case 5:
		return m ? m - 1 : 0;
	case 6:
		return m;
	case 7:
		return m + 1;
	case 8:
		return m + 2;
	case 9:
		return one_in(2) ? 0xffffffffU : (__u32)rnd();
	case 10:
		return 1 + rnd_below(m ? m : 1);
	case 11:
		return near ? near - 1 : 0;
	case 12:
	case 13:
		return near;
	case 14:
		return near + 1;
	default:
		return rnd_below(64);
	}
}

static __u32 gen_flags(void)
{
	if (!one_in(24))
		return 0;
	return one_in(2) ? 1U << rnd_below(32) : (__u32)rnd();
}

/* One GET/SET/DEL request, laid out in the arena. */
struct kvreq {
	__u32 op;			/* KVBENCH_OP_*, or junk in a batch */
	struct kvbench_kv kv;
	struct key *k;			/* NULL: a key nobody has */
	struct uptr key, val;
	unsigned char *valsrc;		/* SET: the value as built */
};

/*
 * Keys of io_uring commands in flight together, which run in no defined
 * order: no other command of theirs may take the same key.
 */
static bool key_busy[NR_KEYS];

/* A random key of the model's, the next free one if it is busy. */
static struct key *pick_key(void)
{
	__u32 i = rnd_below(NR_KEYS), n;

	for (n = 0; n < NR_KEYS && key_busy[i]; n++)
		i = (i + 1) % NR_KEYS;
	return &keys[i];
}

static void gen_kv(struct kvreq *r, __u32 op, __u32 bad_one_in)
{
	unsigned char nokey[KVBENCH_KEY_MAX];
	__u32 real_len, near, i;
	const unsigned char *kdata;
	size_t vsize;

	memset(r, 0, sizeof(*r));
	r->op = op;
	if (op != KVBENCH_OP_SET && one_in(16)) {
		real_len = 1 + rnd_below(KVBENCH_KEY_MAX);
		nokey[0] = 0xff;
		for (i = 1; i < real_len; i++)
			nokey[i] = (unsigned char)rnd();
		kdata = nokey;
	} else {
		r->k = pick_key();
		real_len = r->k->len;
		kdata = r->k->data;
	}

	r->kv.key_len = gen_key_len(real_len);
	r->kv.flags = gen_flags();
	r->kv.reserved = gen_flags();

	/* The key: its real bytes, however long key_len claims it is. */
	r->key = place(real_len, bad_one_in);
	put_bytes(&r->key, kdata, real_len);
	r->kv.key = r->key.addr;

	near = r->k && r->k->present ? r->k->vlen : 0;
	r->kv.value_len = gen_value_len(near);
	/*
	 * Room for the whole object: a SET's value is read only when it is
	 * not too long, a GET's buffer gets at most the longest value.
	 */
	vsize = r->kv.value_len;
	if (vsize > max_value_len + 2UL)
		vsize = op == KVBENCH_OP_GET ? max_value_len + 2UL : 64;

	switch (op) {
	case KVBENCH_OP_SET:
		r->val = place(vsize, bad_one_in);
		/* A value unique enough to tell apart: random head, fill. */
		memset(vbuf, (int)rnd(), vsize);
		for (i = 0; i < vsize && i < 16; i++)
			vbuf[i] = (unsigned char)rnd();
		put_bytes(&r->val, vbuf, vsize);
		r->valsrc = vbuf;
		break;
	case KVBENCH_OP_GET:
		r->val = place(vsize, bad_one_in);
		/* Poison what the kernel may write. */
		memset(r->val.w, 0xa5, r->val.wcap);
		break;
	default:
		/* DEL ignores the value: any pointer will do. */
		r->val = place(8, 4);
		break;
	}
	r->kv.value = r->val.addr;
}

static const char *describe(const struct kvreq *r)
{
	static char buf[160];

	snprintf(buf, sizeof(buf),
		 "key %s(%u) value %s(%u) flags %#x reserved %#x",
		 ptr_names[r->key.kind], r->kv.key_len, ptr_names[r->val.kind],
		 r->kv.value_len, r->kv.flags, r->kv.reserved);
	return buf;
}

/*
 * The outcomes the documentation allows for @r. Returns true when the
 * input is valid, so the outcome follows from the model alone; @wb says
 * whether the kernel can write the GET's value_len back.
 */
static bool predict_kv(const struct kvreq *r, bool wb, struct expect *e)
{
	bool key_ok = r->kv.key_len && r->kv.key_len <= KVBENCH_KEY_MAX;
	const struct key *k = r->k;

	e->n = 0;
	if (r->kv.flags || r->kv.reserved || !key_ok)
		exp_add(e, -EINVAL);
	switch (r->op) {
	case KVBENCH_OP_SET:
		if (r->kv.value_len > max_value_len)
			exp_add(e, -E2BIG);
		else if (!readable(&r->val, r->kv.value_len))
			exp_add(e, -EFAULT);
		fallthrough;
	case KVBENCH_OP_GET:
	case KVBENCH_OP_DEL:
		if (key_ok && !readable(&r->key, r->kv.key_len))
			exp_add(e, -EFAULT);
		break;
	default:
		exp_add(e, -EINVAL);
		break;
	}
	if (e->n) {
		if (r->op == KVBENCH_OP_SET)
			exp_add(e, -ENOMEM);
		return false;
	}

	switch (r->op) {
	case KVBENCH_OP_GET:
		if (!k || !k->present)
			exp_add(e, -ENOENT);
		else if (k->vlen > r->kv.value_len)
			exp_add(e, wb ? -ERANGE : -EFAULT);
		else if (!writable(&r->val, k->vlen))
			exp_add(e, -EFAULT);
		/* value_len is written back only when it changes. */
		else if (!wb && k->vlen != r->kv.value_len)
			exp_add(e, -EFAULT);
		else
			exp_add(e, 0);
		break;
	case KVBENCH_OP_SET:
		exp_add(e, 0);
		exp_add(e, -ENOMEM);
		break;
	case KVBENCH_OP_DEL:
		exp_add(e, k && k->present ? 0 : -ENOENT);
		break;
	}
	return true;
}

/* Apply a valid request's outcome @res to the model. */
static void model_apply(struct kvreq *r, int res)
{
	if (res || !r->k)
		return;
	if (r->op == KVBENCH_OP_SET) {
		if (model_set(r->k, r->valsrc, r->kv.value_len))
			fail("out of memory in the model");
	} else if (r->op == KVBENCH_OP_DEL) {
		r->k->present = false;
	}
}

/* Check a GET's answer, when the fuzzer can see it. */
static void check_get(const struct kvreq *r, int res, const struct uptr *lenp,
		      const unsigned char *lenw)
{
	__u32 len;

	if (res != 0 && res != -ERANGE)
		return;
	if (lenp->wlen || r->kv.value_len == r->k->vlen) {
		memcpy(&len, lenw, sizeof(len));
		if (len != r->k->vlen)
			fail("GET %s: value_len %u, expected %u", res_str(res),
			     len, r->k->vlen);
	}
	if (!res && r->val.kind == P_NORMAL &&
	    memcmp(r->val.w, r->k->val, r->k->vlen))
		fail("GET: wrong value (%u bytes)", r->k->vlen);
}

static int do_ioctl(int fd, unsigned long cmd, __u64 arg)
{
	return ioctl(fd, cmd, (unsigned long)arg) ? -errno : 0;
}

static int kv_ioctl(int fd, unsigned long cmd, const void *key, __u32 klen,
		    void *val, __u32 *vlen)
{
	struct kvbench_kv kv = {
		.key = (uintptr_t)key, .value = (uintptr_t)val,
		.key_len = klen, .value_len = vlen ? *vlen : 0,
	};
	int ret = do_ioctl(fd, cmd, (uintptr_t)&kv);

	if (vlen)
		*vlen = kv.value_len;
	return ret;
}

static const unsigned long kv_cmds[] = {
	[KVBENCH_OP_GET] = KVBENCH_IOC_GET,
	[KVBENCH_OP_SET] = KVBENCH_IOC_SET,
	[KVBENCH_OP_DEL] = KVBENCH_IOC_DEL,
};

static const char * const op_names[] = {
	[KVBENCH_OP_GET] = "GET", [KVBENCH_OP_SET] = "SET",
	[KVBENCH_OP_DEL] = "DEL",
};

static void fuzz_kv(int fd, __u32 op)
{
	struct expect e;
	struct kvreq r;
	struct uptr arg;
	bool valid;
	int res;

	gen_kv(&r, op, 8);
	arg = place(sizeof(r.kv), 12);
	put_bytes(&arg, &r.kv, sizeof(r.kv));

	if (!readable(&arg, sizeof(r.kv))) {
		e.n = 0;
		exp_add(&e, -EFAULT);
		valid = false;
	} else {
		valid = predict_kv(&r, writable(&arg, VLEN_END), &e);
	}

	res = do_ioctl(fd, kv_cmds[op], arg.addr);
	if (!exp_has(&e, res)) {
		fail("%s arg %s %s: got %s, expected %s", op_names[op],
		     ptr_names[arg.kind], describe(&r), res_str(res),
		     exp_str(&e));
		return;
	}
	if (!valid)
		return;
	if (op == KVBENCH_OP_GET && r.k)
		check_get(&r, res, &arg, arg.w + VLEN_OFF);
	model_apply(&r, res);
}

static __u32 gen_count(void)
{
	switch (rnd_below(16)) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return KVBENCH_BATCH_MAX;
	case 3:
		return KVBENCH_BATCH_MAX + 1;
	case 4:
		return one_in(2) ? 0xffffffffU : (__u32)rnd();
	case 5:
		return 1 + rnd_below(KVBENCH_BATCH_MAX);
	case 6:
		return KVBENCH_BATCH_MAX - 1;
	default:
		return 1 + rnd_below(8);
	}
}

static __u32 gen_op(void)
{
	if (one_in(40))
		return one_in(2) ? rnd_below(6) : (__u32)rnd();
	return 1 + rnd_below(3);
}

static struct kvreq breqs[KVBENCH_BATCH_MAX];
static unsigned char *bvals[KVBENCH_BATCH_MAX];

static void fuzz_batch(int fd)
{
	struct kvbench_batch b = { .flags = gen_flags() };
	struct kvbench_op *ops;
	bool ops_ok, wb;
	struct uptr arg, uops;
	struct expect e;
	__u32 i, n;
	int res, r;

	b.count = gen_count();
	n = b.count <= KVBENCH_BATCH_MAX ? b.count : 0;
	uops = place((n ? n : 2) * sizeof(*ops), 16);
	ops = (struct kvbench_op *)junk;
	if (uops.wcap >= n * sizeof(*ops))
		ops = (struct kvbench_op *)uops.w;

	for (i = 0; i < n; i++) {
		struct kvbench_op o = { .op = gen_op(), .result = POISON_RESULT };
		__u32 kind = o.op >= 1 && o.op <= 3 ? o.op : 1 + rnd_below(3);

		gen_kv(&breqs[i], kind, 16);
		breqs[i].op = o.op;
		if (kind == KVBENCH_OP_SET) {
			/* The next op reuses vbuf: keep a copy. */
			memcpy(bvals[i], vbuf, breqs[i].kv.value_len <=
			       max_value_len + 2UL ? breqs[i].kv.value_len : 0);
			breqs[i].valsrc = bvals[i];
		}
		o.kv = breqs[i].kv;
		if (uops.kind == P_STRADDLE) {
			size_t at = i * sizeof(o);

			if (at < uops.wcap)
				memcpy(uops.w + at, &o, uops.wcap - at < sizeof(o) ?
				       uops.wcap - at : sizeof(o));
		} else {
			memcpy(&ops[i], &o, sizeof(o));
		}
	}
	b.ops = uops.addr;
	arg = place(sizeof(b), 12);
	put_bytes(&arg, &b, sizeof(b));

	e.n = 0;
	ops_ok = false;
	if (!readable(&arg, sizeof(b))) {
		exp_add(&e, -EFAULT);
	} else {
		if (b.flags || !n)
			exp_add(&e, -EINVAL);
		if (n && !readable(&uops, n * sizeof(*ops)))
			exp_add(&e, -EFAULT);
		if (e.n) {
			exp_add(&e, -ENOMEM);
		} else {
			ops_ok = true;
			exp_add(&e, writable(&uops, n * sizeof(*ops)) ? 0 : -EFAULT);
			exp_add(&e, -ENOMEM);
		}
	}

	res = do_ioctl(fd, KVBENCH_IOC_BATCH, arg.addr);
	if (!exp_has(&e, res)) {
		fail("BATCH arg %s ops %s count %u flags %#x: got %s, expected %s",
		     ptr_names[arg.kind], ptr_names[uops.kind], b.count,
		     b.flags, res_str(res), exp_str(&e));
		return;
	}
	if (!ops_ok || res == -ENOMEM)
		return;

	/* The ops ran in order: follow them in the model. */
	wb = writable(&uops, n * sizeof(*ops));
	for (i = 0; i < n; i++) {
		struct kvreq *q = &breqs[i];
		struct expect oe;
		bool valid = predict_kv(q, wb, &oe);

		r = oe.v[0];
		if (wb) {
			r = ops[i].result;
			if (!exp_has(&oe, r)) {
				fail("BATCH op %u/%u %#x %s: result %s, expected %s",
				     i, n, q->op, describe(q), res_str(r),
				     exp_str(&oe));
				return;
			}
			if (valid && q->op == KVBENCH_OP_GET && q->k)
				check_get(q, r, &uops,
					  (unsigned char *)&ops[i].kv.value_len);
		}
		if (valid)
			model_apply(q, r);
	}
}

/* ------------------------------------------------------------ packed */

/* One op of a packed call, as built: its key, and for MSET its value. */
struct mop {
	struct key *k;			/* NULL: a key nobody has */
	unsigned char data[KVBENCH_KEY_MAX];
	__u32 klen;			/* the real length, as built */
	__u32 vlen;			/* MSET: value_lens entry */
	__u64 voff;			/* MSET: where the value starts */
};

static struct mop mops[KVBENCH_BATCH_MAX];
/* The model's keys before a call whose outcome the fuzzer cannot see. */
static struct key msaved[NR_KEYS];

static const char *mname(unsigned long cmd)
{
	return cmd == KVBENCH_IOC_MGET ? "MGET" :
	       cmd == KVBENCH_IOC_MSET ? "MSET" : "MDEL";
}

/* Keys for a packed call: the model's, now and then one nobody has. */
static void gen_mop(struct mop *o, unsigned long cmd)
{
	__u32 i;

	memset(o, 0, sizeof(*o));
	if (cmd != KVBENCH_IOC_MSET && one_in(16)) {
		o->klen = 1 + rnd_below(KVBENCH_KEY_MAX);
		o->data[0] = 0xff;
		for (i = 1; i < o->klen; i++)
			o->data[i] = (unsigned char)rnd();
	} else {
		o->k = &keys[rnd_below(NR_KEYS)];
		o->klen = o->k->len;
		memcpy(o->data, o->k->data, o->klen);
	}
}

/*
 * After an MSET or MDEL whose results the fuzzer cannot read (the call
 * failed as a whole once its ops had run, or with ENOMEM, where the ABI
 * does not say whether they ran): each key it touched must hold what it
 * held before or what the ops predicted; the model takes what it holds.
 */
static void resync(int fd, unsigned int n, const char *what)
{
	unsigned int i;
	__u32 len;
	int ret;

	for (i = 0; i < n; i++) {
		struct key *k = mops[i].k;
		struct key *old;
		bool ok;

		if (!k)
			continue;
		old = &msaved[k - keys];
		len = max_value_len + 1;
		ret = kv_ioctl(fd, KVBENCH_IOC_GET, k->data, k->len, vbuf, &len);
		if (ret && ret != -ENOENT) {
			fail("%s: GET after it: %s", what, res_str(ret));
			return;
		}
		ok = ret ? !k->present || !old->present :
		     (k->present && len == k->vlen && !memcmp(vbuf, k->val, len)) ||
		     (old->present && len == old->vlen && !memcmp(vbuf, old->val, len));
		if (!ok) {
			fail("%s: key %td holds %s (%u bytes), neither before nor after",
			     what, k - keys, ret ? "nothing" : "a value", len);
			return;
		}
		if (ret)
			k->present = false;
		else if (model_set(k, vbuf, len))
			fail("out of memory in the model");
	}
}

static void msave(void)
{
	unsigned int i;

	for (i = 0; i < NR_KEYS; i++) {
		free(msaved[i].val);
		msaved[i] = keys[i];
		msaved[i].val = NULL;
		if (keys[i].present) {
			msaved[i].val = malloc(keys[i].vlen ? keys[i].vlen : 1);
			if (!msaved[i].val) {
				fail("out of memory in the model");
				return;
			}
			memcpy(msaved[i].val, keys[i].val, keys[i].vlen);
		}
	}
}

static void fuzz_multi(int fd, unsigned long cmd)
{
	struct kvbench_multi a = { .flags = gen_flags(), .reserved = gen_flags() };
	struct uptr arg, ukeys, uklens, uvlens, uvals, ures;
	__u64 ksum = 0, vsum = 0, present = 0, stored = 0;
	__u32 klens[KVBENCH_BATCH_MAX], vlens[KVBENCH_BATCH_MAX];
	bool lens_ok = true, valid = false, vlens_read, inval, unseen;
	struct expect e, oe;
	size_t vsize, off;
	__u32 i, n, j;
	int res, r;

	a.count = gen_count();
	n = a.count <= KVBENCH_BATCH_MAX ? a.count : 0;

	/* The keys, back to back, with their lengths (one spoiled now and then). */
	for (i = 0; i < n; i++) {
		gen_mop(&mops[i], cmd);
		klens[i] = mops[i].klen;
		ksum += klens[i];
	}
	if (n && one_in(20)) {
		j = rnd_below(n);
		klens[j] = gen_key_len(0);
		/* Only out of range: a wrong length in range moves the keys. */
		if (klens[j] && klens[j] <= KVBENCH_KEY_MAX)
			klens[j] = KVBENCH_KEY_MAX + 1;
	}
	for (i = 0; i < n; i++)
		lens_ok &= klens[i] && klens[i] <= KVBENCH_KEY_MAX;
	ukeys = place(ksum ? ksum : 1, 24);
	for (i = 0, off = 0; i < n; i++) {
		if (off < ukeys.wcap)
			memcpy(ukeys.w + off, mops[i].data,
			       ukeys.wcap - off < mops[i].klen ? ukeys.wcap - off :
			       mops[i].klen);
		off += mops[i].klen;
	}
	uklens = place((n ? n : 2) * sizeof(__u32), 24);
	put_bytes(&uklens, klens, n * sizeof(__u32));
	ures = place((n ? n : 2) * sizeof(__s32), 24);
	memset(ures.w, 0x5a, ures.wcap);
	a.keys = ukeys.addr;
	a.key_lens = uklens.addr;
	a.results = ures.addr;

	memset(&uvals, 0, sizeof(uvals));
	memset(&uvlens, 0, sizeof(uvlens));
	if (cmd == KVBENCH_IOC_MSET) {
		/* Lengths at the limits; one beyond all reason only last. */
		for (i = 0; i < n; i++) {
			struct key *k = mops[i].k;

			vlens[i] = gen_value_len(k->present ? k->vlen : 0);
			if (vlens[i] > max_value_len + 2UL && i + 1 < n)
				vlens[i] = max_value_len + 1 + rnd_below(2);
			mops[i].vlen = vlens[i];
			mops[i].voff = vsum;
			vsum += vlens[i];
		}
		vsize = vsum;
		if (n && vlens[n - 1] > max_value_len + 2UL)
			vsize -= vlens[n - 1];
		uvals = place(vsize ? vsize : 1, 24);
		for (i = 0; i < n; i++) {
			size_t l = vlens[i] <= max_value_len + 2UL ? vlens[i] : 0;

			memset(bvals[i], (int)rnd(), l);
			for (j = 0; j < l && j < 16; j++)
				bvals[i][j] = (unsigned char)rnd();
			if (mops[i].voff < uvals.wcap)
				memcpy(uvals.w + mops[i].voff, bvals[i],
				       uvals.wcap - mops[i].voff < l ?
				       uvals.wcap - mops[i].voff : l);
		}
		uvlens = place((n ? n : 2) * sizeof(__u32), 24);
		put_bytes(&uvlens, vlens, n * sizeof(__u32));
		switch (rnd_below(12)) {
		case 0:
			a.values_size = vsum ? vsum - 1 : 0;
			break;
		case 1:
			a.values_size = (__u32)rnd();
			break;
		case 2:
			a.values_size = vsum + rnd_below(100);
			break;
		default:
			a.values_size = vsum > 0xffffffffULL ? 0xffffffffU : vsum;
			break;
		}
		a.values = uvals.addr;
		a.value_lens = uvlens.addr;
	} else if (cmd == KVBENCH_IOC_MGET) {
		for (i = 0; i < n; i++)
			if (mops[i].k && mops[i].k->present)
				present += mops[i].k->vlen;
		switch (rnd_below(8)) {
		case 0:
			a.values_size = 0;
			break;
		case 1:
			a.values_size = (__u32)rnd();
			break;
		case 2:
		case 3:
			a.values_size = rnd_below(present + 1);
			break;
		default:
			a.values_size = present + rnd_below(16);
			break;
		}
		/* The kernel writes at most the values present: room for those. */
		vsize = a.values_size < present ? a.values_size : present;
		uvals = place(vsize ? vsize : 1, 24);
		memset(uvals.w, 0xa5, uvals.wcap);
		uvlens = place((n ? n : 2) * sizeof(__u32), 24);
		memset(uvlens.w, 0x5a, uvlens.wcap);
		a.values = uvals.addr;
		a.value_lens = uvlens.addr;
	} else if (one_in(24)) {
		/* MDEL takes no values. */
		switch (rnd_below(3)) {
		case 0:
			a.values = (uintptr_t)junk;
			break;
		case 1:
			a.value_lens = (uintptr_t)junk;
			break;
		default:
			a.values_size = 1 + rnd_below(100);
			break;
		}
	}
	arg = place(sizeof(a), 12);
	put_bytes(&arg, &a, sizeof(a));

	/* The whole call. */
	e.n = 0;
	if (!readable(&arg, sizeof(a))) {
		exp_add(&e, -EFAULT);
		goto call;
	}
	vlens_read = cmd != KVBENCH_IOC_MSET ||
		     (n && readable(&uvlens, n * sizeof(__u32)));
	inval = !n || a.flags || a.reserved;
	if (cmd == KVBENCH_IOC_MDEL && (a.values || a.value_lens || a.values_size))
		inval = true;
	if (n && readable(&uklens, n * sizeof(__u32)) && !lens_ok)
		inval = true;
	if (cmd == KVBENCH_IOC_MSET && vlens_read && vsum > a.values_size)
		inval = true;
	if (inval)
		exp_add(&e, -EINVAL);
	if (n && (!readable(&uklens, n * sizeof(__u32)) || !vlens_read ||
		  (lens_ok && !readable(&ukeys, ksum))))
		exp_add(&e, -EFAULT);
	if (e.n) {
		exp_add(&e, -ENOMEM);
		goto call;
	}
	valid = true;
	/* Valid: the ops run; then results and MGET's output are written. */
	for (i = 0; i < n && cmd == KVBENCH_IOC_MGET; i++) {
		struct key *k = mops[i].k;

		if (k && k->present && k->vlen <= a.values_size - stored)
			stored += k->vlen;
	}
	if (!writable(&ures, n * sizeof(__s32)) ||
	    (cmd == KVBENCH_IOC_MGET && (!writable(&uvlens, n * sizeof(__u32)) ||
					 !writable(&uvals, stored))))
		exp_add(&e, -EFAULT);
	else
		exp_add(&e, 0);
	exp_add(&e, -ENOMEM);
call:
	if (cmd != KVBENCH_IOC_MGET)
		msave();
	res = do_ioctl(fd, cmd, arg.addr);
	if (!exp_has(&e, res)) {
		char what[160];

		snprintf(what, sizeof(what),
			 "keys %s key_lens %s values %s value_lens %s results %s",
			 ptr_names[ukeys.kind], ptr_names[uklens.kind],
			 ptr_names[uvals.kind], ptr_names[uvlens.kind],
			 ptr_names[ures.kind]);
		fail("%s arg %s %s count %u values_size %u flags %#x reserved %#x: %s, not %s",
		     mname(cmd), ptr_names[arg.kind], what, a.count,
		     a.values_size, a.flags, a.reserved, res_str(res),
		     exp_str(&e));
		return;
	}
	/* A call refused as a whole ran nothing. */
	if (!valid)
		return;

	/* The ops ran in order: follow them in the model, check what shows. */
	unseen = res != 0;
	for (i = 0, stored = 0; i < n; i++) {
		struct mop *o = &mops[i];
		struct key *k = o->k;
		__u32 vl = 0;

		oe.n = 0;
		if (cmd == KVBENCH_IOC_MGET) {
			if (!k || !k->present) {
				exp_add(&oe, -ENOENT);
			} else if (k->vlen > a.values_size - stored) {
				exp_add(&oe, -ERANGE);
				vl = k->vlen;
			} else {
				exp_add(&oe, 0);
				vl = k->vlen;
			}
		} else if (cmd == KVBENCH_IOC_MSET) {
			if (o->vlen > max_value_len)
				exp_add(&oe, -E2BIG);
			/* An empty value reads nothing, wherever it is. */
			else if (o->vlen &&
				 !readable(&uvals, o->voff + o->vlen))
				exp_add(&oe, -EFAULT);
			else
				exp_add(&oe, 0);
			exp_add(&oe, -ENOMEM);
		} else {
			exp_add(&oe, k && k->present ? 0 : -ENOENT);
		}
		r = oe.v[0];
		if (!unseen) {
			memcpy(&r, ures.w + i * sizeof(r), sizeof(r));
			if (!exp_has(&oe, r)) {
				fail("%s op %u/%u: result %s, expected %s", mname(cmd),
				     i, n, res_str(r), exp_str(&oe));
				return;
			}
		}
		if (cmd == KVBENCH_IOC_MGET) {
			__u32 got;

			if (unseen)
				continue;
			memcpy(&got, uvlens.w + i * sizeof(got), sizeof(got));
			if (got != vl) {
				fail("MGET op %u/%u %s: value_lens %u, expected %u",
				     i, n, res_str(r), got, vl);
				return;
			}
			if (!r && uvals.kind == P_NORMAL &&
			    memcmp(uvals.w + stored, k->val, k->vlen)) {
				fail("MGET op %u/%u: wrong value (%u bytes at %llu)",
				     i, n, k->vlen, (unsigned long long)stored);
				return;
			}
			if (!r)
				stored += k->vlen;
		} else if (!r && cmd == KVBENCH_IOC_MSET) {
			if (model_set(k, bvals[i], o->vlen))
				fail("out of memory in the model");
		} else if (!r && k) {
			k->present = false;
		}
	}
	if (cmd == KVBENCH_IOC_MGET && !res && uvals.kind == P_NORMAL)
		for (off = stored; off < uvals.wcap; off++)
			if (uvals.w[off] != 0xa5) {
				fail("MGET: values[%zu] written past the last value (%llu bytes)",
				     off, (unsigned long long)stored);
				return;
			}
	if (unseen && cmd != KVBENCH_IOC_MGET)
		resync(fd, n, mname(cmd));
}

/* ------------------------------------------------------------ io_uring */

/*
 * The same GET, SET and DEL as io_uring commands (and NOP, and cmd_op
 * values that are none of them), a few in flight at once: one "op" of the
 * loop is one burst of commands, submitted together and reaped, each
 * checked against the oracle of its ioctl.
 */
#define URING_ENTRIES		16
#define URING_BURST_MAX		12	/* <= URING_ENTRIES */
#define URING_TIMEOUT_MS	30000	/* a CQE later than this is lost */
#define URING_QUEUE_LEN		4	/* owners' queues while fuzzing */

/* The ring setups taken in turn: plain, CQE32, SQE128, both. */
static const unsigned int uring_setups[] = {
	0, IORING_SETUP_CQE32, IORING_SETUP_SQE128,
	IORING_SETUP_CQE32 | IORING_SETUP_SQE128,
};

static struct {
	const char *off;	/* why uring commands are left out, or NULL */
	bool have[ARRAY_SIZE(uring_setups)];
	struct ring ring;	/* the phase's ring; fd < 0: none yet */
	__u64 seq;		/* bursts so far: user_data's high bits */
	unsigned long commands;	/* CQEs checked in this phase */
	unsigned long unseen;	/* commands left in flight (closed, exited) */
} ur = { .ring.fd = -1 };

static const char *ring_name(unsigned int flags)
{
	switch (flags & (IORING_SETUP_CQE32 | IORING_SETUP_SQE128)) {
	case IORING_SETUP_CQE32:
		return "CQE32";
	case IORING_SETUP_SQE128:
		return "SQE128";
	case IORING_SETUP_CQE32 | IORING_SETUP_SQE128:
		return "CQE32+SQE128";
	}
	return "plain";
}

/* Which ring setups this kernel has; none if it has no uring commands. */
static void uring_probe(void)
{
	struct ring r;
	unsigned int i;

	ur.off = uring_unavailable();
	if (ur.off)
		return;
	for (i = 0; i < ARRAY_SIZE(uring_setups); i++) {
		ur.have[i] = !ring_init(&r, URING_ENTRIES, uring_setups[i]);
		ring_exit(&r);
	}
	if (!ur.have[0])
		ur.off = "io_uring_setup failed for a plain ring";
}

/* A ring of a random setup this kernel has. */
static int uring_open(struct ring *r)
{
	unsigned int i = rnd_below(ARRAY_SIZE(uring_setups));

	if (!ur.have[i])
		i = 0;
	return ring_init(r, URING_ENTRIES, uring_setups[i]);
}

/* Whether the phase's backend queues its requests to owner threads. */
static bool owner_backend(void)
{
	int i = kvb_backend_index(phase_name);

	return i >= 0 && (kvb_backends[i].flags & KVB_OWNER);
}

/* One command of a burst, as built, and what its CQE may say. */
struct ucmd {
	__u32 op;			/* cmd_op */
	__u64 kv;			/* the command area */
	__u32 flags, reserved;
	struct uptr arg;		/* where kv points (GET, SET, DEL) */
	bool kv_op;			/* a GET, SET or DEL: breqs[i] */
	bool valid;			/* the outcome follows from the model */
	struct expect e;
};

static struct ucmd ucmds[URING_BURST_MAX];

static const char *ucmd_name(__u32 op)
{
	static char buf[24];

	if (op == KVBENCH_URING_NOP)
		return "NOP";
	if (op <= KVBENCH_URING_DEL)
		return op_names[op];
	snprintf(buf, sizeof(buf), "cmd_op %#x", op);
	return buf;
}

/* Build command @i of a burst: breqs[i] and ucmds[i], its oracle. */
static void gen_ucmd(unsigned int i)
{
	struct ucmd *c = &ucmds[i];
	struct kvreq *r = &breqs[i];
	__u32 x = rnd_below(100);

	memset(c, 0, sizeof(*c));
	if (x < 4)
		c->op = KVBENCH_URING_NOP;
	else if (x < 8)
		c->op = one_in(2) ? 4 + rnd_below(8) : (__u32)rnd();
	else if (x < 50)
		c->op = KVBENCH_URING_GET;
	else if (x < 80)
		c->op = KVBENCH_URING_SET;
	else
		c->op = KVBENCH_URING_DEL;
	if (x >= 4 && x < 8 && c->op <= KVBENCH_URING_DEL)
		c->op = 4;	/* (__u32)rnd() hit a known one */
	c->flags = gen_flags();
	c->reserved = gen_flags();

	if (c->op >= KVBENCH_URING_GET && c->op <= KVBENCH_URING_DEL) {
		c->kv_op = true;
		gen_kv(r, c->op, 8);
		if (r->op == KVBENCH_OP_SET) {
			/* The next command reuses vbuf: keep a copy. */
			memcpy(bvals[i], vbuf, r->kv.value_len <=
			       max_value_len + 2UL ? r->kv.value_len : 0);
			r->valsrc = bvals[i];
		}
		if (r->k)
			key_busy[r->k - keys] = true;
		c->arg = place(sizeof(r->kv), 12);
		put_bytes(&c->arg, &r->kv, sizeof(r->kv));
		c->kv = c->arg.addr;
	} else if (one_in(4)) {
		/* A NOP's kv must be 0; so must any unknown command's do nothing. */
		c->kv = one_in(2) ? (__u64)rnd() : place(sizeof(r->kv), 0).addr;
	}

	/* What the documentation allows, every error that applies. */
	c->e.n = 0;
	if (c->op > KVBENCH_URING_DEL) {
		exp_add(&c->e, -ENOTTY);
		if (c->flags || c->reserved)
			exp_add(&c->e, -EINVAL);
		return;
	}
	if (c->flags || c->reserved || (c->op == KVBENCH_URING_NOP && c->kv))
		exp_add(&c->e, -EINVAL);
	if (!c->kv_op) {
		if (!c->e.n)
			exp_add(&c->e, 0);
		return;
	}
	if (!readable(&c->arg, sizeof(r->kv))) {
		exp_add(&c->e, -EFAULT);
	} else {
		bool area_ok = !c->e.n;
		struct expect ke;
		int j;

		/* The ioctl's oracle; its outcomes only for a valid area. */
		c->valid = predict_kv(r, writable(&c->arg, VLEN_END), &ke);
		if (!c->valid || area_ok)
			for (j = 0; j < ke.n; j++)
				exp_add(&c->e, ke.v[j]);
		c->valid &= area_ok;
	}
	/* The command's own state may not be allocated. */
	exp_add(&c->e, -ENOMEM);
}

/* Queue the burst's @n commands on @r, tagged with @seq. */
static void queue_burst(struct ring *r, int fd, unsigned int n, __u64 seq)
{
	struct io_uring_sqe *sqe;
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		struct ucmd *c = &ucmds[i];

		sqe = ring_cmd(r, fd, c->op, c->kv, c->flags, c->reserved,
			       seq << 8 | i, 0, 0);
		/* Past the struct, an SQE128's command area is ignored. */
		if (r->flags & IORING_SETUP_SQE128)
			for (j = sizeof(struct kvbench_uring_cmd); j < 80; j++)
				sqe->cmd[j] = (__u8)rnd();
	}
}

static int submit_all(struct ring *r)
{
	int ret = 0;

	while (r->pending && !ret)
		ret = ring_submit(r, 0);
	return ret;
}

/*
 * Submit the burst on a device file of its own, closed at once: io_uring
 * holds it, and the module with it, until each command is freed (see
 * unseen_burst()). Return: 0, -errno of the open, or submit_all()'s.
 */
static int submit_burst_own_file(struct ring *r, unsigned int n, __u64 seq)
{
	int bfd = open(KVB_DEV, O_RDWR), ret;

	if (bfd < 0)
		return -errno;
	queue_burst(r, bfd, n, seq);
	ret = submit_all(r);
	close(bfd);
	return ret;
}

/*
 * The commands' outcomes are unseen (their ring was closed, or the task
 * that submitted them exited, with them in flight): once io_uring has let
 * go of them, each key must hold what it held before or what its command
 * predicted. They went out on a file of their own, closed since, which
 * each holds until io_uring frees it: the module's reference count is back
 * to @refcnt (taken before that file was opened) only once all of them
 * completed. (On the fuzzer's own file, that count would not move.)
 */
static void unseen_burst(int fd, unsigned int n, unsigned long long refcnt,
			 const char *what)
{
	unsigned long long now_cnt = wait_refcnt(refcnt);
	unsigned int i;

	ur.unseen += n;
	if (now_cnt > refcnt) {
		fail("%s: module reference count %llu, not back to %llu: commands never completed",
		     what, now_cnt, refcnt);
		return;
	}
	for (i = 0; i < n; i++) {
		struct kvreq *r = &breqs[i];

		mops[i].k = NULL;
		if (!ucmds[i].valid || r->op == KVBENCH_OP_GET)
			continue;
		mops[i].k = r->k;
		model_apply(r, ucmds[i].e.v[0]);
	}
	resync(fd, n, what);
}

/* A child submits the burst on a ring of its own and exits at once. */
static void fork_burst(int fd, unsigned int n, unsigned long long refcnt)
{
	int status;
	pid_t pid;

	msave();
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		fail("fork: %s", strerror(errno));
		return;
	}
	if (!pid) {
		struct ring r;

		if (ring_init(&r, URING_ENTRIES, ur.ring.flags))
			_exit(1);
		_exit(submit_burst_own_file(&r, n, 0) ? 2 : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fail("child with %u commands in flight: status %#x", n, status);
		return;
	}
	unseen_burst(fd, n, refcnt, "uring, child exited with commands in flight");
}

static void fuzz_uring(int fd)
{
	unsigned long long refcnt = 0;
	struct ring *r = &ur.ring;
	bool seen[URING_BURST_MAX] = { 0 };
	unsigned int i, n, got = 0, max;
	struct cqe cqe, cqes[URING_BURST_MAX];
	int ret;

	/* Now and then, another ring. */
	if (r->fd >= 0 && one_in(64))
		ring_exit(r);
	if (r->fd < 0) {
		ret = uring_open(r);
		if (ret) {
			fail("io_uring_setup: %s", res_str(ret));
			return;
		}
	}

	/* Mostly one; on owner backends, up to past an owner's queue. */
	max = owner_backend() ? URING_BURST_MAX : 4;
	n = one_in(2) ? 1 : 2 + rnd_below(max - 1);
	memset(key_busy, 0, sizeof(key_busy));
	for (i = 0; i < n; i++)
		gen_ucmd(i);
	ur.seq++;

	/* Now and then, the ring closed or the task gone before the CQEs. */
	if (one_in(owner_backend() ? 400 : 1000)) {
		/* No command in flight: this is the count to come back to. */
		if (sysfs_read_u64(KVB_MODULE "/refcnt", &refcnt)) {
			fail("cannot read " KVB_MODULE "/refcnt");
			return;
		}
		if (owner_backend() && one_in(2)) {
			fork_burst(fd, n, refcnt);
			return;
		}
		msave();
		ret = submit_burst_own_file(r, n, ur.seq);
		ring_exit(r);
		if (ret) {
			fail("uring submit: %s", res_str(ret));
			return;
		}
		unseen_burst(fd, n, refcnt, "uring, ring closed with commands in flight");
		return;
	}

	queue_burst(r, fd, n, ur.seq);
	ret = submit_all(r);
	/* Every command gets one CQE, within URING_TIMEOUT_MS. */
	while (!ret && got < n) {
		if (ring_peek(r, &cqe)) {
			ret = ring_enter(r, 1, URING_TIMEOUT_MS);
			continue;
		}
		i = cqe.user_data & 0xff;
		if (cqe.user_data >> 8 != ur.seq || i >= n || seen[i]) {
			fail("uring %s ring: CQE %#llx (res %d) of no command in flight",
			     ring_name(r->flags),
			     (unsigned long long)cqe.user_data, cqe.res);
			return;
		}
		seen[i] = true;
		cqes[i] = cqe;
		got++;
	}
	if (ret) {
		fail("uring %s ring: %u of %u CQEs never came (%s)",
		     ring_name(r->flags), n - got, n, res_str(ret));
		/* The ring is of no more use; the phase fails anyway. */
		ring_exit(r);
		return;
	}

	for (i = 0; i < n; i++) {
		struct ucmd *c = &ucmds[i];
		struct kvreq *q = &breqs[i];
		int res = cqes[i].res;
		__u64 big = 0;

		ur.commands++;
		if (!exp_has(&c->e, res)) {
			fail("uring %s %u/%u, %s ring: kv %s%s%s, area %#x %#x: got %s, want %s",
			     ucmd_name(c->op), i, n, ring_name(r->flags),
			     c->kv_op ? ptr_names[c->arg.kind] : c->kv ? "set" : "0",
			     c->kv_op ? " " : "", c->kv_op ? describe(q) : "",
			     c->flags, c->reserved, res_str(res), exp_str(&c->e));
			return;
		}
		/* big_cqe[0]: a GET's value length where res is 0 or ERANGE. */
		if (c->op == KVBENCH_URING_GET && q->k && (!res || res == -ERANGE))
			big = q->k->vlen;
		if ((r->flags & IORING_SETUP_CQE32) && cqes[i].extra != big) {
			fail("uring %s %s: big_cqe[0] %llu, expected %llu",
			     ucmd_name(c->op), res_str(res),
			     (unsigned long long)cqes[i].extra,
			     (unsigned long long)big);
			return;
		}
		if (!c->valid)
			continue;
		if (c->op == KVBENCH_URING_GET && q->k)
			check_get(q, res, &c->arg, c->arg.w + VLEN_OFF);
		model_apply(q, res);
	}
}

/* At the end of a phase: nothing more may come, then the ring goes. */
static void uring_phase_end(void)
{
	struct ring *r = &ur.ring;
	struct cqe cqe;

	if (r->fd < 0)
		return;
	ring_enter(r, 0, 0);
	if (!ring_peek(r, &cqe))
		fail("uring: a CQE (user_data %#llx, res %d) after every command had its own",
		     (unsigned long long)cqe.user_data, cqe.res);
	ring_exit(r);
}

/* Commands the VFS answers itself, before any driver sees them. */
static bool vfs_cmd(__u32 cmd)
{
	__u32 type = _IOC_TYPE(cmd);

	return type == 0x00 || type == 0x15 || type == 'T' || type == 'X' ||
	       type == 'f' || type == 0x94;
}

static bool kvbench_cmd(__u32 cmd)
{
	return cmd == KVBENCH_IOC_NOP || cmd == KVBENCH_IOC_GET ||
	       cmd == KVBENCH_IOC_SET || cmd == KVBENCH_IOC_DEL ||
	       cmd == KVBENCH_IOC_BATCH || cmd == KVBENCH_IOC_MGET ||
	       cmd == KVBENCH_IOC_MSET || cmd == KVBENCH_IOC_MDEL;
}

static void fuzz_bad_cmd(int fd)
{
	static const __u32 sizes[] = {
		0, 4, 8, 16, sizeof(struct kvbench_kv), sizeof(struct kvbench_op),
		sizeof(struct kvbench_batch), sizeof(struct kvbench_multi),
	};
	static const __u32 valid[] = {
		KVBENCH_IOC_GET, KVBENCH_IOC_SET, KVBENCH_IOC_DEL,
		KVBENCH_IOC_BATCH, KVBENCH_IOC_MGET, KVBENCH_IOC_MSET,
		KVBENCH_IOC_MDEL,
	};
	struct uptr arg;
	__u32 cmd;
	int res;

	do {
		switch (rnd_below(3)) {
		case 0:
			cmd = (__u32)rnd();
			break;
		case 1:	/* ours, with any number, size and direction */
			cmd = _IOC(rnd_below(4), KVBENCH_IOC_MAGIC, rnd_below(8),
				   one_in(2) ? sizes[rnd_below(ARRAY_SIZE(sizes))] :
					       rnd_below(1 << 14));
			break;
		default: /* a valid command with one field changed */
			cmd = valid[rnd_below(ARRAY_SIZE(valid))];
			cmd ^= 1U << rnd_below(32);
			break;
		}
	} while (kvbench_cmd(cmd) || vfs_cmd(cmd));

	arg = place(64, 4);
	memset(arg.w, 0, arg.wcap);
	res = do_ioctl(fd, cmd, arg.addr);
	if (res != -ENOTTY)
		fail("command %#x: got %s, expected ENOTTY", cmd, res_str(res));
}

static void fuzz_nop(int fd)
{
	struct uptr arg = place(64, 2);
	int res = do_ioctl(fd, KVBENCH_IOC_NOP, arg.addr);

	if (res)
		fail("NOP arg %s: got %s, expected 0", ptr_names[arg.kind],
		     res_str(res));
}

static void fuzz_one(int fd)
{
	/* One op in eleven is a burst of uring commands, when they run. */
	__u32 x = rnd_below(ur.off ? 100 : 110);

	arena_reset();
	if (x >= 100)
		fuzz_uring(fd);
	else if (x < 3)
		fuzz_nop(fd);
	else if (x < 10)
		fuzz_bad_cmd(fd);
	else if (x < 40)
		fuzz_kv(fd, KVBENCH_OP_GET);
	else if (x < 65)
		fuzz_kv(fd, KVBENCH_OP_SET);
	else if (x < 78)
		fuzz_kv(fd, KVBENCH_OP_DEL);
	else if (x < 88)
		fuzz_batch(fd);
	else if (x < 92)
		fuzz_multi(fd, KVBENCH_IOC_MGET);
	else if (x < 96)
		fuzz_multi(fd, KVBENCH_IOC_MSET);
	else
		fuzz_multi(fd, KVBENCH_IOC_MDEL);
}

/* ------------------------------------------------------------ checks */

/* Forget the fuzzer's keys, in the map and in the model. */
static int keys_clear(int fd)
{
	int i, ret;

	for (i = 0; i < NR_KEYS; i++) {
		ret = kv_ioctl(fd, KVBENCH_IOC_DEL, keys[i].data, keys[i].len,
			       NULL, NULL);
		if (ret && ret != -ENOENT)
			return ret;
		keys[i].present = false;
	}
	return 0;
}

/* The map must hold what the model says, and the counters must agree. */
static void check_model(int fd, long long entries0, long long bytes0)
{
	long long entries = entries0, bytes = bytes0, got;
	__u32 len;
	int i, ret;

	for (i = 0; i < NR_KEYS; i++) {
		struct key *k = &keys[i];

		len = max_value_len + 1;
		ret = kv_ioctl(fd, KVBENCH_IOC_GET, k->data, k->len, vbuf, &len);
		if (!k->present) {
			if (ret != -ENOENT)
				fail("final GET key %d: got %s, expected ENOENT",
				     i, res_str(ret));
			continue;
		}
		entries++;
		bytes += k->len + k->vlen + KVB_ENTRY_OVERHEAD;
		if (ret || len != k->vlen || memcmp(vbuf, k->val, len))
			fail("final GET key %d: got %s len %u, expected 0 len %u and its bytes",
			     i, res_str(ret), len, k->vlen);
	}
	got = sysfs_read_ll(KVB_ATTR("entries"));
	if (got != entries)
		fail("entries %lld, expected %lld", got, entries);
	got = sysfs_read_ll(KVB_ATTR("bytes"));
	if (got != bytes)
		fail("bytes %lld, expected %lld", got, bytes);
}

static void check_roundtrip(int fd)
{
	static const char key[] = "kvbench_fuzz/roundtrip";
	static const char val[] = "still works";
	char buf[64];
	__u32 len = sizeof(buf);
	int ret;

	ret = kv_ioctl(fd, KVBENCH_IOC_SET, key, sizeof(key), (void *)val,
		       (__u32[]){ sizeof(val) });
	if (ret) {
		fail("round trip SET: %s", res_str(ret));
		return;
	}
	ret = kv_ioctl(fd, KVBENCH_IOC_GET, key, sizeof(key), buf, &len);
	if (ret || len != sizeof(val) || memcmp(buf, val, len))
		fail("round trip GET: %s, len %u", res_str(ret), len);
	ret = kv_ioctl(fd, KVBENCH_IOC_DEL, key, sizeof(key), NULL, NULL);
	if (ret)
		fail("round trip DEL: %s", res_str(ret));
}

/* Lines the kernel logs from now on that mention kvbench: there must be none. */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

static int kmsg_count(int fd)
{
	char rec[8192];
	ssize_t n;
	int hits = 0;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records */
		if (n <= 0)
			break;
		rec[n] = '\0';
		if (strstr(rec, "kvbench")) {
			if (hits++ < 5)
				printf("# kernel: %s", strchr(rec, ';') ?: rec);
		}
	}
	return hits;
}

/* A phase's seed depends on its backend only, so it reproduces alone. */
static unsigned long long phase_seed(const char *backend)
{
	return seed ^ fnv1a(backend, strlen(backend), FNV1A_OFFSET);
}

static void run_phase(int fd, const char *backend, unsigned long nops,
		      unsigned long long pseed)
{
	long long entries0, bytes0;
	char cur[64];
	double t0, last;
	int ret;

	phase_name = backend;
	failures = 0;
	iter = 0;
	ur.commands = 0;
	ur.unseen = 0;
	rng_state = pseed;

	ret = sysfs_write(KVB_ATTR("backend"), backend);
	if (ret == -EINVAL) {
		ksft_test_result_skip("fuzz %s: backend not built\n", backend);
		return;
	}
	if (ret || sysfs_read(KVB_ATTR("backend"), cur, sizeof(cur)) ||
	    strcmp(cur, backend)) {
		ksft_test_result_fail("fuzz %s: cannot switch to it (%s)\n",
				      backend, res_str(ret));
		return;
	}

	keys_init();
	ret = keys_clear(fd);
	if (ret) {
		ksft_test_result_fail("fuzz %s: clearing keys: %s\n", backend,
				      res_str(ret));
		return;
	}
	entries0 = sysfs_read_ll(KVB_ATTR("entries"));
	bytes0 = sysfs_read_ll(KVB_ATTR("bytes"));

	t0 = mono_s();
	last = t0;
	for (iter = 0; iter < nops && !failures; iter++) {
		fuzz_one(fd);
		/* A line every 10 s: a long silence is what a hang looks like. */
		if (iter % 1024 == 0 && mono_s() - last >= 10.0) {
			last = mono_s();
			ksft_print_msg("fuzz %s: %lu of %lu ops\n", backend,
				       iter, nops);
		}
	}

	uring_phase_end();
	check_model(fd, entries0, bytes0);
	check_roundtrip(fd);
	ret = keys_clear(fd);
	if (ret)
		fail("clearing keys: %s", res_str(ret));

	ksft_test_result(!failures,
			 "fuzz %s: %lu ops (uring: %lu CQEs, %lu left in flight) in %.1f s\n",
			 backend, iter, ur.commands, ur.unseen, mono_s() - t0);
}

int main(void)
{
	unsigned long nops = DEFAULT_OPS;
	char orig[64], qlen[16] = "", *env, *list, *tok, *save = NULL;
	const char *backends[KVB_LIST_MAX];
	struct kvb_list all;
	int fd, kmsg, i, nb = 0, hits;

	env = getenv("KVBENCH_FUZZ_OPS");
	if (env)
		nops = strtoul(env, NULL, 0);
	env = getenv("KVBENCH_FUZZ_SEED");
	seed = env ? strtoull(env, NULL, 0) :
		     (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 32);

	ksft_print_header();
	ksft_print_msg("seed %#llx (KVBENCH_FUZZ_SEED), %lu ops (KVBENCH_FUZZ_OPS)\n",
		       seed, nops);

	fd = kvb_suite_start(orig, sizeof(orig), &all);
	max_value_len = sysfs_read_ll(KVB_PARAM("max_value_len"));
	if (!kvb_unlimited())
		ksft_exit_skip("max_entries or max_bytes is set: ENOSPC would be unpredictable\n");
	if (arena_init())
		ksft_exit_fail_msg("arena: %s\n", strerror(errno));
	vbuf = malloc(max_value_len + 4096);
	for (i = 0; i < KVBENCH_BATCH_MAX; i++)
		bvals[i] = malloc(max_value_len + 4096);
	if (!vbuf || !bvals[KVBENCH_BATCH_MAX - 1])
		ksft_exit_fail_msg("out of memory\n");

	/* The backends asked for, or every one the module has. */
	env = getenv("KVBENCH_FUZZ_BACKENDS");
	if (env) {
		list = strdup(env);
		for (tok = strtok_r(list, ",", &save);
		     tok && nb < KVB_LIST_MAX;
		     tok = strtok_r(NULL, ",", &save))
			backends[nb++] = tok;
	} else {
		for (nb = 0; nb < (int)all.n; nb++)
			backends[nb] = all.name[nb];
	}
	if (!nb)
		ksft_exit_skip("no backend to fuzz\n");

	uring_probe();
	if (ur.off) {
		ksft_print_msg("uring commands left out: %s\n", ur.off);
	} else if (sysfs_read(KVB_PARAM("queue_len"), qlen, sizeof(qlen)) ||
		   sysfs_write_u64(KVB_PARAM("queue_len"), URING_QUEUE_LEN)) {
		/* Owners' queues shorter than a burst: it must wait for room. */
		ksft_exit_fail_msg("cannot set " KVB_PARAM("queue_len") "\n");
	}

	ksft_set_plan(nb + 1);
	kmsg = kmsg_open();
	for (i = 0; i < nb; i++)
		run_phase(fd, backends[i], nops / nb + (i < (int)(nops % nb)),
			  phase_seed(backends[i]));

	if (kmsg < 0) {
		ksft_test_result_skip("fuzz: kernel log quiet (no /dev/kmsg)\n");
	} else {
		hits = kmsg_count(kmsg);
		ksft_test_result(!hits, "fuzz: kernel log quiet (%d kvbench lines)\n",
				 hits);
	}
	sysfs_write(KVB_ATTR("backend"), orig);
	if (qlen[0])
		sysfs_write(KVB_PARAM("queue_len"), qlen);
	close(fd);
	ksft_finished();
}
