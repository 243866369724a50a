// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring_cmd_done() posts no second result: io_uring_cmd_done32() does,
 * in a 32-byte CQE (7.2 and later).
 */
#include "uring.h"

void kvbench_conftest(struct io_uring_cmd *cmd);
void kvbench_conftest(struct io_uring_cmd *cmd)
{
	io_uring_cmd_done(cmd, 0, 0);
	io_uring_cmd_done32(cmd, 0, 0, 0);
}
