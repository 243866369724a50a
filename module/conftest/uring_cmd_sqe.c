// SPDX-License-Identifier: GPL-2.0
/* The command area is io_uring_sqe_cmd(cmd->sqe), not cmd->cmd. */
#include "uring.h"

const void *kvbench_conftest(const struct io_uring_cmd *cmd);
const void *kvbench_conftest(const struct io_uring_cmd *cmd)
{
	return io_uring_sqe_cmd(cmd->sqe);
}
