/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * kvbench - a key-value map behind interchangeable concurrency backends,
 * served through the misc device /dev/kvbench.
 *
 * This header is the whole user ABI. It is shared, unmodified, by the
 * module, the selftests and the tools. See
 * Documentation/userspace-api/kvbench.rst for the semantics of every field
 * and every error code.
 */
#ifndef _UAPI_LINUX_KVBENCH_H
#define _UAPI_LINUX_KVBENCH_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* Free in Documentation/userspace-api/ioctl/ioctl-number.rst. */
#define KVBENCH_IOC_MAGIC	0xBB

#define KVBENCH_KEY_MAX		250
#define KVBENCH_BATCH_MAX	256

/**
 * struct kvbench_kv - one key and its value
 * @key:	in: user pointer to the key bytes (any bytes, NUL included)
 * @value:	in: user pointer to the value (SET) or the buffer (GET)
 * @key_len:	in: 1..KVBENCH_KEY_MAX
 * @value_len:	SET in: length, 0 allowed; GET in: buffer size,
 *		out: value length
 * @flags:	in: must be 0
 * @reserved:	must be 0
 */
struct kvbench_kv {
	__u64 key;
	__u64 value;
	__u32 key_len;
	__u32 value_len;
	__u32 flags;
	__u32 reserved;
};

enum {
	KVBENCH_OP_GET = 1,
	KVBENCH_OP_SET = 2,
	KVBENCH_OP_DEL = 3,
};

/**
 * struct kvbench_op - one operation of a batch
 * @kv:		the key and value, as for the single-op ioctls
 * @op:		in: KVBENCH_OP_*
 * @result:	out: 0 or a negative errno
 */
struct kvbench_op {
	struct kvbench_kv kv;
	__u32 op;
	__s32 result;
};

/**
 * struct kvbench_batch - an array of operations run in order
 * @ops:	in: user pointer to struct kvbench_op[count]
 * @count:	in: 1..KVBENCH_BATCH_MAX
 * @flags:	in: must be 0
 */
struct kvbench_batch {
	__u64 ops;
	__u32 count;
	__u32 flags;
};

/**
 * struct kvbench_multi - one kind of op on many keys, packed (MGET/MSET/MDEL)
 * @keys:	in: user pointer to the keys, back to back: key i starts where
 *		key i - 1 ends
 * @key_lens:	in: user pointer to __u32[count], each 1..KVBENCH_KEY_MAX
 * @values:	MSET in: user pointer to the values, back to back;
 *		MGET out: user pointer to @values_size bytes, where the values
 *		found are stored back to back, in array order; MDEL: 0
 * @value_lens:	MSET in: user pointer to __u32[count], the values' lengths;
 *		MGET out: user pointer to __u32[count]: the value's length
 *		where the result is 0 or -ERANGE, else 0; MDEL: 0
 * @results:	out: user pointer to __s32[count]: 0 or a negative errno
 * @count:	in: 1..KVBENCH_BATCH_MAX
 * @values_size: MSET in: bytes readable at @values, at least the sum of
 *		the value lengths; MGET in: bytes writable at @values; MDEL: 0
 * @flags:	in: must be 0
 * @reserved:	must be 0
 */
struct kvbench_multi {
	__u64 keys;
	__u64 key_lens;
	__u64 values;
	__u64 value_lens;
	__u64 results;
	__u32 count;
	__u32 values_size;
	__u32 flags;
	__u32 reserved;
};

/**
 * struct kvbench_uring_cmd - the command area of an io_uring SQE
 * @kv:		GET, SET, DEL in: user pointer to a struct kvbench_kv, used
 *		exactly as the ioctl of the same name uses its argument;
 *		NOP: 0
 * @flags:	in: must be 0
 * @reserved:	must be 0
 *
 * An IORING_OP_URING_CMD on /dev/kvbench carries a KVBENCH_URING_* in
 * sqe->cmd_op and this struct at the start of the SQE's command area
 * (sqe->cmd): it fits a 64-byte SQE; with IORING_SETUP_SQE128 the rest of
 * the area is ignored. The CQE's res is 0 or a negative errno; a GET also
 * writes value_len back to the struct kvbench_kv as the ioctl does, and
 * with IORING_SETUP_CQE32 the CQE's big_cqe[0] holds the value's length
 * where res is 0 or -ERANGE.
 */
struct kvbench_uring_cmd {
	__u64 kv;
	__u32 flags;
	__u32 reserved;
};

/* sqe->cmd_op of an IORING_OP_URING_CMD */
enum {
	KVBENCH_URING_NOP = 0,
	KVBENCH_URING_GET = KVBENCH_OP_GET,
	KVBENCH_URING_SET = KVBENCH_OP_SET,
	KVBENCH_URING_DEL = KVBENCH_OP_DEL,
};

/* Does nothing: the syscall floor. */
#define KVBENCH_IOC_NOP		_IO(KVBENCH_IOC_MAGIC, 0x00)
#define KVBENCH_IOC_GET		_IOWR(KVBENCH_IOC_MAGIC, 0x01, struct kvbench_kv)
#define KVBENCH_IOC_SET		_IOW(KVBENCH_IOC_MAGIC, 0x02, struct kvbench_kv)
#define KVBENCH_IOC_DEL		_IOW(KVBENCH_IOC_MAGIC, 0x03, struct kvbench_kv)
#define KVBENCH_IOC_BATCH	_IOWR(KVBENCH_IOC_MAGIC, 0x04, struct kvbench_batch)
#define KVBENCH_IOC_MGET	_IOW(KVBENCH_IOC_MAGIC, 0x05, struct kvbench_multi)
#define KVBENCH_IOC_MSET	_IOW(KVBENCH_IOC_MAGIC, 0x06, struct kvbench_multi)
#define KVBENCH_IOC_MDEL	_IOW(KVBENCH_IOC_MAGIC, 0x07, struct kvbench_multi)

#endif /* _UAPI_LINUX_KVBENCH_H */
