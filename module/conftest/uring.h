/* SPDX-License-Identifier: GPL-2.0 */
/* The io_uring command header of this tree (see module/Kbuild). */
#ifdef KVBENCH_HAVE_IO_URING_CMD_H
#include <linux/io_uring/cmd.h>
#else
#include <linux/io_uring.h>
#endif
