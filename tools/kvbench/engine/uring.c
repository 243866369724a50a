// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench: nop and the kernel backends through io_uring (--io uring), the
 * rows kvb_nop_uring_ops and kvb_kernel_uring_ops. Each command is an
 * IORING_OP_URING_CMD on /dev/kvbench with a KVBENCH_URING_* in
 * sqe->cmd_op and a struct kvbench_uring_cmd at the start of sqe->cmd
 * (module/uapi/linux/kvbench.h). Debian 12's liburing (2.3) has no
 * io_uring_prep_uring_cmd(): the SQEs are filled here.
 *
 * Every thread has a ring of its own (the main thread too, for the
 * pre-fill and the probe, one command at a time) and keeps the target's qd
 * commands in flight: per operation it reaps one CQE (once all qd are in
 * flight) and queues one SQE. Each slot of the queue has its own struct
 * kvbench_kv and value buffer, which the kernel may use until its CQE.
 * SQEs are submitted kvb_uring_submit_batch() at a time, and whenever the
 * thread must wait for a CQE. With --sqpoll each ring has a kernel SQ
 * thread that picks the SQEs up, polling while it has work and for
 * KVB_SQ_IDLE_MS after: a CPU busy per ring, besides the worker's own.
 * Each ring registers the device's fd (IOSQE_FIXED_FILE), so that a
 * command takes no reference on the file, where the kernel allows it.
 */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <liburing.h>
#include <linux/kvbench.h>

#include "kvbench.h"

/* An SQ thread sleeps after this long without SQEs. */
#define KVB_SQ_IDLE_MS	50

/* The command area: 16 bytes at offset 48 of a 64-byte SQE. */
static_assert(offsetof(struct io_uring_sqe, cmd) == 48, "sqe->cmd at 48");
static_assert(sizeof(struct kvbench_uring_cmd) == 16, "a 16-byte command");

struct uslot {
	struct kvbench_kv kv;	/* read and written by the kernel until the CQE */
	int op;			/* KVBENCH_OP_*, as the engine counts it */
	__u64 queued_ns;	/* 0: not timed */
	char *val;		/* value_size bytes: SET source, GET buffer */
};

/* A thread's ring and its queue of qd slots. */
struct uthread {
	struct io_uring ring;
	int fd;			/* sqe->fd: the registered index or the fd */
	unsigned char sqe_flags; /* IOSQE_FIXED_FILE when registered */
	unsigned int qd;
	unsigned int batch;	/* SQEs per submission */
	unsigned int inflight;	/* queued and not reaped, submitted or not */
	unsigned int pending;	/* queued and not submitted */
	unsigned int nfree;
	unsigned int *free;	/* the free slots' numbers */
	struct uslot *slots;
	char *vals;
};

/*
 * Without SQPOLL a submission is a syscall: a quarter of the depth at a
 * time, so that at least three quarters of it are in the kernel. With
 * SQPOLL a submission is a store the SQ thread sees: one at a time.
 */
unsigned int kvb_uring_submit_batch(unsigned int qd, int sqpoll)
{
	return sqpoll || qd < 4 ? 1 : qd / 4;
}

static __u64 ptr(const void *p)
{
	return (__u64)(unsigned long)p;
}

static void uthread_free(struct uthread *u)
{
	if (!u)
		return;
	io_uring_queue_exit(&u->ring);
	/*
	 * Commands that never completed (a ring that failed) may still be
	 * written by the kernel: their buffers are left, not freed.
	 */
	if (!u->inflight) {
		free(u->slots);
		free(u->vals);
	}
	free(u->free);
	free(u);
}

/*
 * A ring of at least qd entries and qd slots for commands on fd: 0, or a
 * negative errno.
 */
static int uthread_new(int fd, unsigned int qd, int sqpoll,
		       unsigned int vsize, struct uthread **out)
{
	struct io_uring_params prm;
	struct uthread *u = calloc(1, sizeof(*u));
	unsigned int i;
	int ret;

	*out = NULL;
	if (!u)
		return -ENOMEM;
	u->qd = qd;
	u->batch = kvb_uring_submit_batch(qd, sqpoll);
	u->slots = calloc(qd, sizeof(*u->slots));
	u->free = calloc(qd, sizeof(*u->free));
	u->vals = malloc((size_t)qd * (vsize + 1));
	ret = -ENOMEM;
	if (!u->slots || !u->free || !u->vals)
		goto out_free;
	/* Every value the benchmark sets is value_size bytes of 'v'. */
	memset(u->vals, 'v', (size_t)qd * (vsize + 1));
	for (i = 0; i < qd; i++) {
		u->slots[i].val = u->vals + (size_t)i * (vsize + 1);
		u->free[i] = qd - 1 - i;
	}
	u->nfree = qd;
	memset(&prm, 0, sizeof(prm));
	if (sqpoll) {
		prm.flags = IORING_SETUP_SQPOLL;
		prm.sq_thread_idle = KVB_SQ_IDLE_MS;
	}
	/* SQPOLL: room for qd SQEs besides those the SQ thread still holds */
	ret = io_uring_queue_init_params(sqpoll ? 2 * qd : qd, &u->ring, &prm);
	if (ret < 0)
		goto out_free;
	u->fd = fd;
	if (!io_uring_register_files(&u->ring, &fd, 1)) {
		u->fd = 0;
		u->sqe_flags = IOSQE_FIXED_FILE;
	}
	*out = u;
	return 0;
out_free:
	free(u->slots);
	free(u->free);
	free(u->vals);
	free(u);
	return ret;
}

/*
 * Queue one command in a free slot: the key, and val (vlen bytes) as the
 * value or the GET's buffer. A NOP carries no struct kvbench_kv.
 */
static int queue_cmd(struct uthread *u, unsigned int cmd_op, int op,
		     const char *key, unsigned int klen, char *val,
		     unsigned int vlen, int timed)
{
	struct kvbench_uring_cmd cmd = { 0 };
	struct io_uring_sqe *sqe;
	struct uslot *s;
	unsigned int i;

	if (!u->nfree)
		return -EBUSY;
	sqe = io_uring_get_sqe(&u->ring);
	/*
	 * An SQ thread posts the CQEs of a batch before it moves the SQ
	 * head past it: the SQ can look full just after a CQE was reaped.
	 */
	if (!sqe && io_uring_sqring_wait(&u->ring) >= 0)
		sqe = io_uring_get_sqe(&u->ring);
	if (!sqe)
		return -EBUSY;
	i = u->free[--u->nfree];
	s = &u->slots[i];
	s->kv = (struct kvbench_kv){
		.key = ptr(key),
		.value = ptr(val ? val : s->val),
		.key_len = klen,
		.value_len = vlen,
	};
	s->op = op;
	s->queued_ns = timed ? kvb_now_ns() : 0;
	if (cmd_op != KVBENCH_URING_NOP)
		cmd.kv = ptr(&s->kv);
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = u->fd;
	sqe->flags = u->sqe_flags;
	sqe->cmd_op = cmd_op;
	sqe->user_data = i;
	memcpy((char *)sqe + offsetof(struct io_uring_sqe, cmd), &cmd, sizeof(cmd));
	u->inflight++;
	u->pending++;
	return 0;
}

/* Submit what is queued, and wait for wait_nr CQEs. */
static int submit(struct uthread *u, unsigned int wait_nr)
{
	int ret = io_uring_submit_and_wait(&u->ring, wait_nr);

	if (ret >= 0)
		u->pending = 0;
	return ret;
}

/*
 * One CQE, waiting for it when none is there (after submitting what is
 * queued): 0 with *done filled, or the negative errno of the wait.
 */
static int reap(struct uthread *u, struct kvb_done *done)
{
	struct io_uring_cqe *cqe;
	struct uslot *s;
	int ret;

	while (io_uring_peek_cqe(&u->ring, &cqe)) {
		ret = submit(u, 1);
		if (ret < 0 && ret != -EINTR)
			return ret;
	}
	s = &u->slots[cqe->user_data];
	done->op = s->op;
	done->result = cqe->res;
	done->queued_ns = s->queued_ns;
	u->free[u->nfree++] = cqe->user_data;
	u->inflight--;
	io_uring_cqe_seen(&u->ring, cqe);
	return 0;
}

/* ->queue: reap one CQE once all qd are in flight, then queue one SQE. */
static int queue_op(struct kvb_ctx *c, unsigned int cmd_op, int op,
		    const char *key, int timed, struct kvb_done *done)
{
	struct uthread *u = c->priv;
	int got = 0, ret;

	if (u->inflight == u->qd) {
		ret = reap(u, done);
		if (ret) {
			/* the ring fails: so does this operation, not queued */
			*done = (struct kvb_done){ .op = op, .result = ret };
			return 1;
		}
		got = 1;
	}
	/* After a reap a slot and an SQE are free: this fails only before. */
	ret = queue_cmd(u, cmd_op, op, key, c->klen, NULL,
			c->b->p->value_size, timed);
	if (ret && !got) {
		*done = (struct kvb_done){ .op = op, .result = ret };
		return 1;
	}
	/* On a failure the SQEs stay queued: the next wait submits them. */
	if (u->pending >= u->batch)
		submit(u, 0);
	return got;
}

/* ->op: one command, waited for (the pre-fill and the probe). */
static int sync_op(struct kvb_ctx *c, unsigned int cmd_op, int op,
		   const char *key, char *val, unsigned int *vlen)
{
	struct uthread *u = c->priv;
	struct kvb_done d;
	unsigned int len = vlen ? *vlen : 0, i;
	int ret;

	if (u->inflight || !u->nfree)
		return -EBUSY;
	i = u->free[u->nfree - 1];	/* the slot queue_cmd() takes */
	ret = queue_cmd(u, cmd_op, op, key, c->klen, val, len, 0);
	if (!ret)
		ret = reap(u, &d);
	if (ret)
		return ret;
	if (vlen && op == KVBENCH_OP_GET && cmd_op != KVBENCH_URING_NOP)
		*vlen = u->slots[i].kv.value_len;
	return d.result;
}

static int uring_thread_init(struct kvb_ctx *c, enum kvb_fd fdmode)
{
	const struct kvb_target *t = c->t;
	struct uthread *u;
	int err = kvb_dev_thread_init(c, fdmode);

	if (err)
		return err;
	err = uthread_new(c->fd, t->qd, t->sqpoll, c->b->p->value_size, &u);
	if (err == -ENOMEM)
		return err;
	if (err) {
		fprintf(stderr, "kvbench: %s: io_uring_queue_init(%u%s): %s\n",
			t->name, t->qd, t->sqpoll ? ", SQPOLL" : "", strerror(-err));
		return -1;
	}
	c->priv = u;
	return 0;
}

/* Wait for every command in flight, then close the ring and the fd. */
static void uring_thread_fini(struct kvb_ctx *c)
{
	struct uthread *u = c->priv;
	struct kvb_done d;

	while (u && u->inflight && !reap(u, &d))
		;
	uthread_free(u);
	c->priv = NULL;
	kvb_dev_thread_fini(c);
}

/*
 * Does io_uring reach the device, with SQPOLL or without? One NOP through
 * a ring of one entry on b->fd, once per run of the tool; when it cannot,
 * say so once: every uring target is then left out (1), not failed,
 * unless the NOP failed in another way (-1).
 */
static int uring_usable(struct kvb_bench *b, const struct kvb_target *t)
{
	int sq = !!t->sqpoll, ret;
	char *why = b->uring_why[sq];
	size_t len = sizeof(b->uring_why[sq]);
	struct uthread *u;
	struct kvb_done d = { 0 };

	if (sq && !b->uring_ok[0]) {
		struct kvb_target plain = *t;

		plain.sqpoll = 0;
		uring_usable(b, &plain);
	}
	if (b->uring_ok[sq])
		goto out;
	if (sq && b->uring_ok[0] < 0) {
		/* said for the targets without SQPOLL */
		b->uring_ok[1] = b->uring_ok[0];
		snprintf(why, len, "%s", b->uring_why[0]);
		goto out;
	}
	ret = uthread_new(b->fd, 1, sq, 0, &u);
	if (!ret) {
		ret = queue_cmd(u, KVBENCH_URING_NOP, KVBENCH_OP_GET, NULL, 0,
				NULL, 0, 0);
		if (!ret)
			ret = reap(u, &d);
		uthread_free(u);
		if (!ret)
			ret = d.result;
		b->uring_ok[sq] = ret ? -2 : 1;
		if (ret == -EOPNOTSUPP || ret == -EINVAL)
			b->uring_ok[sq] = -1;
		snprintf(why, len, "no io_uring commands: IORING_OP_URING_CMD NOP on %s: %s%s",
			 b->p->device, strerror(-ret),
			 ret == -EOPNOTSUPP ? " (the module has no io_uring support)" : "");
	} else if (ret == -ENOMEM) {
		b->uring_ok[sq] = -2;
		snprintf(why, len, "out of memory");
	} else {
		b->uring_ok[sq] = -1;
		if (sq && (ret == -EPERM || ret == -EINVAL))
			snprintf(why, len, "SQPOLL refused: io_uring_setup: %s%s",
				 strerror(-ret),
				 ret == -EPERM ? " (needs privileges here)" : "");
		else
			snprintf(why, len, "no io_uring: io_uring_setup: %s%s",
				 strerror(-ret),
				 ret == -ENOSYS ? " (the kernel has no io_uring)" :
				 ret == -EPERM ? " (sysctl kernel.io_uring_disabled?)" : "");
	}
	if (b->uring_ok[sq] < 0)
		fprintf(stderr, "kvbench: io_uring: %s; the %s targets are %s\n", why,
			sq ? "uring SQPOLL" : "uring",
			b->uring_ok[sq] == -1 ? "skipped" : "failed");
out:
	if (b->uring_ok[sq] > 0)
		return 0;
	snprintf(b->why, sizeof(b->why), "%s", why);
	return b->uring_ok[sq] == -1 ? 1 : -1;
}

static int nop_uring_begin(struct kvb_bench *b, struct kvb_target *t)
{
	return kvb_dev_begin(b, t) ? -1 : uring_usable(b, t);
}

static int kernel_uring_begin(struct kvb_bench *b, struct kvb_target *t)
{
	return kvb_kernel_begin(b, t) ? -1 : uring_usable(b, t);
}

static int nop_uring_op(struct kvb_ctx *c, int op, const char *key, char *val,
			unsigned int *vlen)
{
	return sync_op(c, KVBENCH_URING_NOP, op, key, val, vlen);
}

static int kernel_uring_op(struct kvb_ctx *c, int op, const char *key,
			   char *val, unsigned int *vlen)
{
	return sync_op(c, op, op, key, val, vlen);
}

static int nop_uring_queue(struct kvb_ctx *c, int op, const char *key,
			   int timed, struct kvb_done *done)
{
	return queue_op(c, KVBENCH_URING_NOP, op, key, timed, done);
}

static int kernel_uring_queue(struct kvb_ctx *c, int op, const char *key,
			      int timed, struct kvb_done *done)
{
	return queue_op(c, op, op, key, timed, done);
}

/* One NOP, or one GET of the first key, through the ring: before a case. */
static int nop_uring_probe(struct kvb_ctx *c, unsigned int batch, int multi,
			   char *val)
{
	(void)batch;
	(void)multi;
	return nop_uring_op(c, KVBENCH_OP_GET, NULL, val, NULL);
}

static int kernel_uring_probe(struct kvb_ctx *c, unsigned int batch,
			      int multi, char *val)
{
	unsigned int vlen = c->b->p->value_size;
	int res;

	(void)batch;
	(void)multi;
	res = kernel_uring_op(c, KVBENCH_OP_GET, c->b->keys, val, &vlen);
	return res == -ENOENT ? 0 : res;
}

const struct kvb_target_ops kvb_nop_uring_ops = {
	.kind = KVB_NOP,
	.group = "baselines",
	.flags = KVB_T_FD | KVB_T_DEVICE,
	.begin = nop_uring_begin,
	.thread_init = uring_thread_init,
	.thread_fini = uring_thread_fini,
	.op = nop_uring_op,
	.probe = nop_uring_probe,
	.queue = nop_uring_queue,
};

const struct kvb_target_ops kvb_kernel_uring_ops = {
	.kind = KVB_KERNEL,
	.group = "kernel",
	.flags = KVB_T_MIXES | KVB_T_FD | KVB_T_DEVICE | KVB_T_BSTATS,
	.begin = kernel_uring_begin,
	.thread_init = uring_thread_init,
	.thread_fini = uring_thread_fini,
	.op = kernel_uring_op,
	.probe = kernel_uring_probe,
	.queue = kernel_uring_queue,
};
