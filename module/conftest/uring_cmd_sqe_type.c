// SPDX-License-Identifier: GPL-2.0
/* io_uring_sqe_cmd() takes the type of the command area (7.2 and later). */
#include "uring.h"

struct kvbench_conftest_area {
	__u64 a;
	__u32 b;
	__u32 c;
};

const void *kvbench_conftest(const struct io_uring_cmd *cmd);
const void *kvbench_conftest(const struct io_uring_cmd *cmd)
{
	return io_uring_sqe_cmd(cmd->sqe, struct kvbench_conftest_area);
}
