// SPDX-License-Identifier: GPL-2.0
/* The task work callback is told when the task cannot run it. */
#include "uring.h"

unsigned int kvbench_conftest(void);
unsigned int kvbench_conftest(void)
{
	return IO_URING_F_TASK_DEAD;
}
