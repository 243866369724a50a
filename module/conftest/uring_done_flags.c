// SPDX-License-Identifier: GPL-2.0
/* io_uring_cmd_done() takes the issue_flags. */
#include "uring.h"

void kvbench_conftest(struct io_uring_cmd *cmd);
void kvbench_conftest(struct io_uring_cmd *cmd)
{
	io_uring_cmd_done(cmd, 0, 0, 0);
}
