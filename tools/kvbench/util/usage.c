// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench: the one way every command says a usage error.
 */
#include "kvbench.h"

/*
 * "kvbench CMD: OPT: MSG" on stderr (no "OPT: " when opt is NULL, no line
 * at all when msg is NULL: getopt_long() said it), then where the help is.
 * cmd NULL is the top level. Returns KVB_EXIT_USAGE, for the caller's
 * return.
 */
int kvb_usage(const char *cmd, const char *opt, const char *msg)
{
	if (msg)
		fprintf(stderr, "kvbench%s%s: %s%s%s\n", cmd ? " " : "", cmd ? cmd : "",
			opt ? opt : "", opt ? ": " : "", msg);
	fprintf(stderr, "Try 'kvbench%s%s --help' for more information.\n",
		cmd ? " " : "", cmd ? cmd : "");
	return KVB_EXIT_USAGE;
}
