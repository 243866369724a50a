// SPDX-License-Identifier: GPL-2.0
/* 6.5 and later: struct io_uring_cmd lives in <linux/io_uring/cmd.h>. */
#include <linux/io_uring/cmd.h>
