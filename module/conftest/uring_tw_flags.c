// SPDX-License-Identifier: GPL-2.0
/* The task work callback of a command gets the issue_flags. */
#include "uring.h"

static void kvbench_conftest_cb(struct io_uring_cmd *cmd,
				unsigned int issue_flags)
{
}

void kvbench_conftest(struct io_uring_cmd *cmd);
void kvbench_conftest(struct io_uring_cmd *cmd)
{
	io_uring_cmd_complete_in_task(cmd, kvbench_conftest_cb);
}
