// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench io_uring commands: IORING_OP_URING_CMD on /dev/kvbench
 * (Documentation/userspace-api/kvbench.rst, "io_uring commands").
 *
 * A GET, SET or DEL takes the path of its ioctl: kvbench_prepare_kv() when
 * the command is issued, in the submitter's context (it reads the user's
 * struct kvbench_kv, key and value), with the request's state on the
 * stack as an ioctl's; then kvbench_run_async(), the core's run step, in
 * which the backend in use decides how the request runs; then
 * kvbench_complete(), which writes a GET's value to user memory, again in
 * the submitter's context:
 *
 * - a backend without a thread of its own runs the request in the call
 *   (KVBENCH_RAN): the command completes when it is issued, from the
 *   stack (kvbench_uring_kv());
 * - a backend with a thread has it queued (KVBENCH_QUEUED), after the
 *   core had kvbench_uring_keep() move the state to the heap, and the
 *   command returns -EIOCBQUEUED. The backend's answer
 *   (kvbench_uring_answered(), in its thread, which must not touch user
 *   memory) asks io_uring to run kvbench_uring_task_work() in the
 *   submitter's task, which completes it.
 *
 * Nothing here asks which backend is in use: the core decides under its
 * switch_sem, so a switch between the prepare and the run only changes
 * where the request runs (a prepared request belongs to no backend).
 *
 * Everything a queued command holds between the two (the request, its
 * key, a small GET value, the backend's message) is in one struct
 * kvbench_uring, allocated per queued command; io_uring's pdu holds a
 * pointer to it. A large GET value is pinned by a reference on its item
 * (kvbench_get_fill()), so it can be copied out after a switch has moved
 * the map.
 *
 * A command is never handed back to io_uring to be issued again
 * (-EAGAIN), and never waits for room in a full owner queue: the owner
 * parks it and queues it itself as room comes (kvbench_owner_submit()),
 * so a blocked command holds no thread. Where it would wait for a switch
 * to end and the issue must not block, a worker of our own waits instead
 * (kvbench_uring_work()), for as long as the switch. io_uring's retry
 * would not do:
 * 6.12 issues the command again from its worker with cmd->sqe still
 * pointing into the SQ ring, whose slot the application may have filled
 * with another command by then (fixed upstream by "io_uring/uring_cmd:
 * switch sqe to async_data on EAGAIN").
 *
 * A command is never canceled once queued: the owner answers every message
 * it took or parked. When the submitting task is exiting (or its ring is
 * being torn down), the completion touches no user memory: a GET
 * completes with -ECANCELED, a SET or DEL with its result.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#ifdef KVBENCH_HAVE_IO_URING_CMD_H
#include <linux/io_uring/cmd.h>
#else
#include <linux/io_uring.h>
#endif
/* Before 7.2, struct io_kiocb and its ring: to see a teardown begin. */
#include <linux/io_uring_types.h>
#include <linux/percpu-refcount.h>

#include "kvbench.h"

/*
 * What the kernel tree offers, as module/Kbuild's compile tests found it:
 * where the command area is, and how a completion posts its second result.
 */
static const struct kvbench_uring_cmd *
kvbench_uring_area(const struct io_uring_cmd *cmd)
{
#if defined(KVBENCH_HAVE_URING_CMD_SQE_TYPE)
	return io_uring_sqe_cmd(cmd->sqe, struct kvbench_uring_cmd);
#elif defined(KVBENCH_HAVE_URING_CMD_SQE)
	return io_uring_sqe_cmd(cmd->sqe);
#else
	return (const struct kvbench_uring_cmd *)cmd->cmd;
#endif
}

/*
 * Post the CQE: @ret, and @res2 where the ring's CQEs have room for it.
 * Up to 6.x io_uring_cmd_done() puts @res2 in big_cqe[0] itself, on a
 * CQE32 ring only. From 7.2 on it takes no @res2, and
 * io_uring_cmd_done32() posts a 32-byte CQE whatever the ring, so @cqe32
 * (IO_URING_F_CQE32 when the command was issued: a CQE32 ring, or a ring
 * of mixed CQEs) chooses: the CQE a command got before, on every ring.
 */
static void kvbench_uring_done(struct io_uring_cmd *cmd, int ret, u32 res2,
			       bool cqe32, unsigned int issue_flags)
{
#if defined(KVBENCH_HAVE_URING_DONE32)
	if (cqe32)
		io_uring_cmd_done32(cmd, ret, res2, issue_flags);
	else
		io_uring_cmd_done(cmd, ret, issue_flags);
#elif defined(KVBENCH_HAVE_URING_DONE_FLAGS)
	io_uring_cmd_done(cmd, ret, res2, issue_flags);
#else
	io_uring_cmd_done(cmd, ret, res2);
#endif
}

/*
 * Must the completion of @cmd leave user memory alone? Where the task that
 * runs it is exiting, or is a kworker running io_uring's fallback, or the
 * ring is being torn down (its last close came before the answer): the ABI
 * promises that nothing is written then.
 *
 * From 7.2 on the task-work token's cancel says all three (io_uring's
 * io_should_terminate_tw()), and the task work asks nothing else. Before,
 * io_uring says it only with IO_URING_F_TASK_DEAD (6.12; of the ring only
 * since a stable update: 6.12.118's io_uring/io_uring.h:473 has it) or not
 * at all (6.1), and the module looks itself, as io_uring does: no API says
 * so, so it reads io_uring's own structures, which the headers of the tree
 * it is built for describe.
 */
#ifndef KVBENCH_HAVE_URING_TW_REQ
static bool kvbench_uring_task_dead(struct io_uring_cmd *cmd,
				    unsigned int issue_flags)
{
#ifdef KVBENCH_HAVE_URING_TASK_DEAD
	if (issue_flags & IO_URING_F_TASK_DEAD)
		return true;
#endif
	/*
	 * The ring's refs are killed when its teardown begins, and the ring
	 * lives on until its last request, this one, has completed.
	 */
	return (current->flags & (PF_EXITING | PF_KTHREAD)) ||
	       percpu_ref_is_dying(&cmd_to_io_kiocb(cmd)->ctx->refs);
}
#endif

/**
 * struct kvbench_uring - one GET, SET or DEL in flight
 * @cmd:	its io_uring command
 * @work:	queues @async where that waits (kvbench_uring_work())
 * @async:	carries @req to the backend (owner backends)
 * @req:	the request
 * @kv:		the user's struct kvbench_kv, copied in at issue
 * @ukv:	where it came from: a GET's value_len goes back there
 * @cqe32:	the ring takes 32-byte CQEs (see kvbench_uring_done())
 * @key:	the key, copied in at issue
 * @val:	a queued GET's value when small (min(value_len,
 *		KVBENCH_GET_INLINE) bytes); the issue's own copy, on its
 *		stack, has a buffer beside it instead
 *
 * On the issue's stack from the prepare; on the heap, copied by
 * kvbench_uring_keep(), once the command is queued (@work and @async's
 * message are used there only).
 */
struct kvbench_uring {
	struct io_uring_cmd *cmd;
	struct work_struct work;
	struct kvbench_async async;
	struct kvbench_req req;
	struct kvbench_kv kv;
	struct kvbench_kv __user *ukv;
	bool cqe32;
	u8 key[KVBENCH_KEY_MAX];
	u8 val[] __aligned(8);
};

/* io_uring's per-command space holds a pointer to ours. */
static struct kvbench_uring **kvbench_uring_pdu(struct io_uring_cmd *cmd)
{
	BUILD_BUG_ON(sizeof(struct kvbench_uring *) > sizeof(cmd->pdu));
	return (struct kvbench_uring **)cmd->pdu;
}

/*
 * Finish @req, which ran, prepared from @kv (copied in from @ukv): count
 * it, copy a GET's outcome out unless @dead, and say what the CQE gets:
 * the result, and in @res2 a GET's value length. Runs in the submitter's
 * context (or, @dead, where it cannot touch user memory).
 */
static int kvbench_uring_end(struct kvbench_req *req, struct kvbench_kv *kv,
			     struct kvbench_kv __user *ukv, bool dead,
			     u32 *res2)
{
	u32 size = kv->value_len;
	int ret;

	/* big_cqe[0] is 0 unless a GET found a value: every path says so. */
	*res2 = 0;
	kvbench_count_one(req);
	if (dead && req->op == KVBENCH_OP_GET) {
		kvbench_release(req);
		return -ECANCELED;
	}
	/* Copies nothing unless a GET found its value. */
	ret = kvbench_complete_kv(req, kv);
	/* As the ioctl: a buffer of exactly the value's size says so. */
	if (kv->value_len != size && put_user(kv->value_len, &ukv->value_len))
		ret = -EFAULT;
	if (req->op == KVBENCH_OP_GET && (!ret || ret == -ERANGE))
		*res2 = kv->value_len;
	return ret;
}

/* kvbench_uring_end() for a queued command, which then frees its state. */
static void kvbench_uring_finish(struct kvbench_uring *u, bool dead,
				 unsigned int issue_flags)
{
	struct io_uring_cmd *cmd = u->cmd;
	bool cqe32 = u->cqe32;
	u32 res2;
	int ret;

	ret = kvbench_uring_end(&u->req, &u->kv, u->ukv, dead, &res2);
	kfree(u);
	kvbench_uring_done(cmd, ret, res2, cqe32, issue_flags);
}

/*
 * io_uring runs this in the submitting task once the owner answered. From
 * 7.2 on it gets the request, whose command io_uring_cmd_from_tw() finds,
 * and a token whose cancel says that the task cannot run it (it is exiting,
 * or a kworker runs io_uring's fallback, or the ring is going away); its
 * completion takes IO_URING_CMD_TASK_WORK_ISSUE_FLAGS, as ublk's and
 * NVMe's do.
 */
#if defined(KVBENCH_HAVE_URING_TW_REQ)
static void kvbench_uring_task_work(struct io_tw_req tw_req, io_tw_token_t tw)
{
	struct io_uring_cmd *cmd = io_uring_cmd_from_tw(tw_req);
	struct kvbench_uring *u = *kvbench_uring_pdu(cmd);

	kvbench_uring_finish(u, tw.cancel, IO_URING_CMD_TASK_WORK_ISSUE_FLAGS);
}
#else
#ifdef KVBENCH_HAVE_URING_TW_FLAGS
static void kvbench_uring_task_work(struct io_uring_cmd *cmd,
				    unsigned int issue_flags)
#else
static void kvbench_uring_task_work(struct io_uring_cmd *cmd)
#endif
{
#ifndef KVBENCH_HAVE_URING_TW_FLAGS
	unsigned int issue_flags = 0;
#endif
	struct kvbench_uring *u = *kvbench_uring_pdu(cmd);

	kvbench_uring_finish(u, kvbench_uring_task_dead(cmd, issue_flags),
			     issue_flags);
}
#endif

/* The owner answered, in its thread: no user memory here. */
static void kvbench_uring_answered(struct kvbench_async *a)
{
	struct kvbench_uring *u = container_of(a, struct kvbench_uring, async);

	io_uring_cmd_complete_in_task(u->cmd, kvbench_uring_task_work);
}

/*
 * Commands issued during a switch, where they must not wait for it: one
 * work item each, which waits for the switch to end.
 */
static struct workqueue_struct *kvbench_uring_wq;

/*
 * Queue a command that met a switch, once the switch has ended. It is then
 * answered as any queued command, or, when the switch brought a backend
 * without a thread, ran here; either way it completes in the submitter's
 * task.
 */
static void kvbench_uring_work(struct work_struct *work)
{
	struct kvbench_uring *u = container_of(work, struct kvbench_uring, work);
	struct kvbench_async *a = &u->async;
	int ret = kvbench_run_async(&a, NULL, false);

	if (ret == KVBENCH_QUEUED)
		return;
	/* Not run: refused by the backend's ->submit (none refuses today). */
	if (ret != KVBENCH_RAN)
		u->req.result = ret;
	io_uring_cmd_complete_in_task(u->cmd, kvbench_uring_task_work);
}

int kvbench_uring_init(void)
{
	kvbench_uring_wq = alloc_workqueue("kvbench_uring", WQ_UNBOUND, 0);
	return kvbench_uring_wq ? 0 : -ENOMEM;
}

/* Every command has completed (no file is open): wait for the workers. */
void kvbench_uring_exit(void)
{
	destroy_workqueue(kvbench_uring_wq);
}

/*
 * kvbench_run_async()'s keep: the issue's state, on its stack, copied where it
 * outlives the issue, for a backend that queues the command, and made the
 * command's. What a prepared request holds is copied: the request, its
 * key and where it came from; a GET's value room is empty until it runs.
 */
static struct kvbench_async *kvbench_uring_keep(struct kvbench_async *a)
{
	struct kvbench_uring *s = container_of(a, struct kvbench_uring, async);
	const struct kvbench_req *req = &s->req;
	struct kvbench_uring *u;
	size_t val = 0;

	if (req->op == KVBENCH_OP_GET)
		val = min_t(u32, s->kv.value_len, KVBENCH_GET_INLINE);
	u = kmalloc(struct_size(u, val, val), GFP_KERNEL_ACCOUNT);
	if (!u)
		return NULL;
	u->cmd = s->cmd;
	u->kv = s->kv;
	u->ukv = s->ukv;
	u->cqe32 = s->cqe32;
	u->req = *req;
	/* A SET's key is in its item; a GET's or DEL's was on the stack. */
	if (req->op != KVBENCH_OP_SET) {
		memcpy(u->key, req->key.data, req->key.len);
		u->req.key.data = u->key;
	}
	if (req->op == KVBENCH_OP_GET)
		u->req.get.buf = u->val;
	u->async.msg.head = &u->req;
	u->async.done = a->done;
	*kvbench_uring_pdu(u->cmd) = u;
	return &u->async;
}

/*
 * A GET, SET or DEL: prepared here, with its state on the stack as an
 * ioctl's, then run by the core, which runs it now or queues it to the
 * backend's thread (kvbench_run_async()); the backend in use decides, not
 * this file. One that ran completes here; a queued one, moved to the heap
 * by kvbench_uring_keep(), completes in kvbench_uring_task_work().
 */
static int kvbench_uring_kv(struct io_uring_cmd *cmd, u32 op, u64 ukv,
			    unsigned int issue_flags)
{
	/* Not zeroed, as in the ioctl: only what the path writes is read. */
	u8 valbuf[KVBENCH_GET_INLINE] __uninitialized;
	struct kvbench_uring s __uninitialized;
	struct kvbench_async *a = &s.async;
	struct kvbench_uring *u;
	u32 res2;
	int ret;

	/* A fixed size: no hardened-usercopy walk. */
	if (copy_from_user(&s.kv, u64_to_user_ptr(ukv), sizeof(s.kv)))
		return -EFAULT;
	ret = kvbench_prepare_kv(&s.req, op, &s.kv, s.key, valbuf);
	if (ret)
		return ret;
	s.cmd = cmd;
	s.ukv = u64_to_user_ptr(ukv);
	s.cqe32 = issue_flags & IO_URING_F_CQE32;
	a->msg.head = &s.req;
	a->done = kvbench_uring_answered;
	ret = kvbench_run_async(&a, kvbench_uring_keep,
				issue_flags & IO_URING_F_NONBLOCK);
	/* @s, or the copy of it that kvbench_uring_keep() made. */
	u = container_of(a, struct kvbench_uring, async);
	if (ret == KVBENCH_RAN) {
		/* Complete it now, with the value's length in res2. */
		ret = kvbench_uring_end(&u->req, &u->kv, u->ukv, false, &res2);
		if (u != &s)
			kfree(u);
		kvbench_uring_done(cmd, ret, res2, s.cqe32, issue_flags);
		return -EIOCBQUEUED;
	}
	/* @u belongs to the owner, then to kvbench_uring_task_work(). */
	if (ret == KVBENCH_QUEUED)
		return -EIOCBQUEUED;
	/* Not run (nowait): a switch is under way; a worker waits for it. */
	if (ret == -EAGAIN) {
		a = kvbench_uring_keep(a);
		if (a) {
			u = container_of(a, struct kvbench_uring, async);
			INIT_WORK(&u->work, kvbench_uring_work);
			queue_work(kvbench_uring_wq, &u->work);
			return -EIOCBQUEUED;
		}
		ret = -ENOMEM;
	}
	/*
	 * Not run: no memory to keep it, or refused by the backend's
	 * ->submit (none refuses today). Counted nowhere.
	 */
	u->req.result = ret;
	kvbench_release(&u->req);
	if (u != &s)
		kfree(u);
	return ret;
}

/**
 * kvbench_uring_cmd() - the ->uring_cmd of /dev/kvbench
 * @cmd:	the command
 * @issue_flags: IO_URING_F_*
 *
 * Return: 0 or a negative errno when the command completes now without a
 * second result; -EIOCBQUEUED when it completed already or will later
 * (through io_uring_cmd_done()). Never -EAGAIN (see the top of the file).
 */
int kvbench_uring_cmd(struct io_uring_cmd *cmd, unsigned int issue_flags)
{
	const struct kvbench_uring_cmd *area = kvbench_uring_area(cmd);
	u32 op = cmd->cmd_op;
	u32 flags, reserved;
	u64 kv;

	if (op != KVBENCH_URING_NOP && op != KVBENCH_URING_GET &&
	    op != KVBENCH_URING_SET && op != KVBENCH_URING_DEL)
		return -ENOTTY;
	if (cmd->flags & IORING_URING_CMD_FIXED)
		return -EINVAL;
	/* The SQE may be in memory the user shares: read each field once. */
	kv = READ_ONCE(area->kv);
	flags = READ_ONCE(area->flags);
	reserved = READ_ONCE(area->reserved);
	if (flags || reserved)
		return -EINVAL;
	if (op == KVBENCH_URING_NOP)
		return kv ? -EINVAL : 0;
	return kvbench_uring_kv(cmd, op, kv, issue_flags);
}
