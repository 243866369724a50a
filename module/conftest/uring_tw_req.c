// SPDX-License-Identifier: GPL-2.0
/*
 * The task work callback of a command gets the request and a token that
 * says whether the task work is being canceled, not the command and
 * issue_flags (7.2 and later).
 */
#include "uring.h"

static void kvbench_conftest_cb(struct io_tw_req tw_req, io_tw_token_t tw)
{
	struct io_uring_cmd *cmd = io_uring_cmd_from_tw(tw_req);

	io_uring_cmd_done(cmd, tw.cancel ? -ECANCELED : 0,
			  IO_URING_CMD_TASK_WORK_ISSUE_FLAGS);
}

void kvbench_conftest(struct io_uring_cmd *cmd);
void kvbench_conftest(struct io_uring_cmd *cmd)
{
	io_uring_cmd_complete_in_task(cmd, kvbench_conftest_cb);
}
