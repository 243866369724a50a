// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench: command-line access to /dev/kvbench.
 *
 *   kvbench [-d DEVICE] set KEY VALUE | get KEY | del KEY | nop | bench ...
 *
 * Exit status: 0 success, 1 the operation failed, 2 usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/kvbench.h>

#include "kvbench.h"

static const char help_text[] =
	"Usage: kvbench [-d DEVICE] COMMAND [ARGS]\n"
	"\n"
	"Commands:\n"
	"  set KEY VALUE   store VALUE under KEY\n"
	"  get KEY         print the value of KEY and a newline\n"
	"  del KEY         delete KEY\n"
	"  nop             issue KVBENCH_IOC_NOP (checks the device answers)\n"
	"  bench [OPTS]    run the benchmark ('kvbench bench --help')\n"
	"  plot JSON OUT   draw a 'bench --json' report with gnuplot ('kvbench plot --help')\n"
	"  stats [OPTS]    the device's sysfs statistics ('kvbench stats --help')\n"
	"  compare OLD NEW compare two 'bench' JSON reports ('kvbench compare --help')\n"
	"  report RUN...   the fastest backend per workload ('kvbench report --help')\n"
	"  merge RUN...    pool the reports of one suite's boots ('kvbench merge --help')\n"
	"  version         print the tool's version (and git describe)\n"
	"Each command's own usage: kvbench COMMAND --help.\n"
	"\n"
	"Options:\n"
	"  -d, --device PATH   device to use (default " KVB_DEFAULT_DEVICE ",\n"
	"                      or $KVBENCH_DEVICE)\n"
	"      --buffer-size N first GET buffer in bytes (default 4096; grown\n"
	"                      on ERANGE; 4Ki = 4096, 4k = 4000)\n"
	"  -h, --help          show this help\n"
	"  -V, --version       print the tool's version\n"
	"\n"
	"Exit status: 0 on success, 1 if the operation failed, 2 on usage errors.\n"
	"The device is root-only unless a udev rule opens it to a group.\n";

static const char *op_error(int err)
{
	switch (err) {
	case ENOENT:
		return "no such key";
	case E2BIG:
		return "value too large (see the max_value_len parameter)";
	case ENOSPC:
		return "map full (see the max_entries and max_bytes parameters)";
	case ENOTTY:
		return "the device does not know this ioctl (wrong device or old module?)";
	default:
		return strerror(err);
	}
}

static void op_fail(const char *cmd, const char *key, int err)
{
	fprintf(stderr, "kvbench: %s '%s': %s\n", cmd, key, op_error(err));
}

static int check_key(const char *cmd, const char *key)
{
	size_t len = strlen(key);

	if (len < 1 || len > KVBENCH_KEY_MAX) {
		fprintf(stderr, "kvbench: %s: key must be 1..%d bytes, '%.20s%s' has %zu\n",
			cmd, KVBENCH_KEY_MAX, key, len > 20 ? "..." : "", len);
		return -1;
	}
	return 0;
}

/* The global options, for the commands that use them. */
struct globals {
	const char *device;
	size_t bufsize;		/* --buffer-size: get's first buffer */
};

/* One SET (val) or DEL (val NULL) of key; its failure said. */
static int kv_ioctl(int fd, unsigned long req, const char *cmd,
		    const char *key, const char *val)
{
	struct kvbench_kv kv = {
		.key = (__u64)(unsigned long)key,
		.value = (__u64)(unsigned long)val,
		.key_len = strlen(key),
		.value_len = val ? strlen(val) : 0,
	};

	if (ioctl(fd, req, &kv)) {
		op_fail(cmd, key, errno);
		return KVB_EXIT_FAIL;
	}
	return KVB_EXIT_OK;
}

static int do_set(int fd, char **args, const struct globals *g)
{
	(void)g;
	return kv_ioctl(fd, KVBENCH_IOC_SET, "set", args[0], args[1]);
}

/* Start small; on ERANGE the module tells us the size it needs. */
static int do_get(int fd, char **args, const struct globals *g)
{
	const char *key = args[0];
	struct kvbench_kv kv = {
		.key = (__u64)(unsigned long)key,
		.key_len = strlen(key),
	};
	size_t bufsize = g->bufsize;
	char *buf = NULL;
	int tries;

	for (tries = 0; tries < 8; tries++) {
		char *nb = realloc(buf, bufsize ? bufsize : 1);

		if (!nb) {
			free(buf);
			fprintf(stderr, "kvbench: get '%s': out of memory\n", key);
			return KVB_EXIT_FAIL;
		}
		buf = nb;
		kv.value = (__u64)(unsigned long)buf;
		kv.value_len = bufsize;
		if (!ioctl(fd, KVBENCH_IOC_GET, &kv)) {
			int ok = fwrite(buf, 1, kv.value_len, stdout) == kv.value_len &&
				 putchar('\n') != EOF && !fflush(stdout);

			free(buf);
			if (!ok) {
				fprintf(stderr, "kvbench: get '%s': write error: %s\n",
					key, strerror(errno));
				return KVB_EXIT_FAIL;
			}
			return KVB_EXIT_OK;
		}
		if (errno != ERANGE || kv.value_len <= bufsize)
			break;
		/* The value may grow again between the two calls: retry. */
		bufsize = kv.value_len;
	}
	op_fail("get", key, errno);
	free(buf);
	return KVB_EXIT_FAIL;
}

static int do_del(int fd, char **args, const struct globals *g)
{
	(void)g;
	return kv_ioctl(fd, KVBENCH_IOC_DEL, "del", args[0], NULL);
}

static int do_nop(int fd, char **args, const struct globals *g)
{
	(void)args;
	(void)g;
	if (ioctl(fd, KVBENCH_IOC_NOP)) {
		fprintf(stderr, "kvbench: nop: %s\n", op_error(errno));
		return KVB_EXIT_FAIL;
	}
	return KVB_EXIT_OK;
}

/*
 * The command table, as perf's: every command by name and how it runs:
 * main, a command that takes no global option, or run. argv[0] is the
 * command's name; the commands with options of their own parse the rest.
 * A key command (set, get, del, nop) names its arguments and what it
 * does, for its usage, and its operation on the device.
 */
struct command {
	const char *name;
	int (*run)(const struct command *c, int argc, char **argv,
		   const struct globals *g);
	int nargs;
	const char *args;
	const char *what;
	int (*op)(int fd, char **args, const struct globals *g);
	int (*main)(int argc, char **argv);	/* a command of its own options */
};

/* kvbench get --help: the command's own usage, on stdout. */
static void command_help(const struct command *c)
{
	printf("Usage: kvbench [-d DEVICE] %s%s%s\n\n%s.\n", c->name,
	       c->nargs ? " [--] " : "", c->args, c->what);
	if (c->nargs)
		printf("Keys are 1..%d bytes; one that starts with '-' goes after '--'\n"
		       "(kvbench %s -- -k%s).\n",
		       KVBENCH_KEY_MAX, c->name, c->nargs > 1 ? " VALUE" : "");
	printf("The global options (-d, --buffer-size): 'kvbench --help'.\n");
}

/*
 * The arguments of set, get, del and nop, before a "--": -h or --help
 * anywhere asks for the command's usage (1), never names a key; another
 * option where the key goes is a mistake (-1, said). A value may start
 * with '-' (kvbench set t -5).
 */
static int command_opts(const struct command *c, int argc, char **argv)
{
	int j;

	for (j = 0; j < argc && strcmp(argv[j], "--"); j++)
		if (!strcmp(argv[j], "-h") || !strcmp(argv[j], "--help"))
			return 1;
	if (argc && argv[0][0] == '-' && argv[0][1] && strcmp(argv[0], "--")) {
		fprintf(stderr,
			"kvbench: %s: unknown option '%s' (a key that starts with '-' goes after '--': kvbench %s -- %s)\n",
			c->name, argv[0], c->name, argv[0]);
		return -1;
	}
	return 0;
}

/* set, get, del, nop: the key checked, the device opened, the ioctl. */
static int run_key(const struct command *c, int argc, char **argv,
		   const struct globals *g)
{
	int ret = command_opts(c, argc - 1, argv + 1), fd;

	if (ret > 0) {
		command_help(c);
		return KVB_EXIT_OK;
	}
	if (ret < 0)
		return KVB_EXIT_USAGE;
	argc--;
	argv++;
	if (argc && !strcmp(argv[0], "--")) {
		argc--;
		argv++;
	}
	if (argc != c->nargs) {
		fprintf(stderr, "kvbench: %s takes %d argument%s: kvbench %s %s\n",
			c->name, c->nargs, c->nargs == 1 ? "" : "s", c->name, c->args);
		return KVB_EXIT_USAGE;
	}
	if (c->nargs && check_key(c->name, argv[0]))
		return KVB_EXIT_USAGE;
	fd = kvb_open_device(g->device);
	if (fd < 0)
		return KVB_EXIT_FAIL;
	ret = c->op(fd, argv, g);
	close(fd);
	return ret;
}

static int run_bench(const struct command *c, int argc, char **argv,
		     const struct globals *g)
{
	(void)c;
	return kvb_bench_main(argc, argv, g->device);
}

static int run_version(const struct command *c, int argc, char **argv,
		       const struct globals *g)
{
	(void)c;
	(void)argv;
	(void)g;
	if (argc > 1)
		return kvb_usage(NULL, NULL, "version takes no arguments");
	kvb_print_version(stdout);
	return KVB_EXIT_OK;
}

static int run_help(const struct command *c, int argc, char **argv,
		    const struct globals *g)
{
	(void)c;
	(void)argc;
	(void)argv;
	(void)g;
	fputs(help_text, stdout);
	return KVB_EXIT_OK;
}

static const struct command commands[] = {
	{ .name = "set", .run = run_key, .op = do_set, .nargs = 2, .args = "KEY VALUE",
	  .what = "Store VALUE under KEY" },
	{ .name = "get", .run = run_key, .op = do_get, .nargs = 1, .args = "KEY",
	  .what = "Print the value of KEY and a newline" },
	{ .name = "del", .run = run_key, .op = do_del, .nargs = 1, .args = "KEY",
	  .what = "Delete KEY" },
	{ .name = "nop", .run = run_key, .op = do_nop, .args = "",
	  .what = "Issue KVBENCH_IOC_NOP (checks the device answers)" },
	{ .name = "bench", .run = run_bench },
	{ .name = "plot", .main = kvb_plot_main },
	{ .name = "stats", .main = kvb_stats_main },
	{ .name = "compare", .main = kvb_compare_main },
	{ .name = "report", .main = kvb_report_main },
	{ .name = "merge", .main = kvb_merge_main },
	{ .name = "version", .run = run_version },
	{ .name = "help", .run = run_help },
};

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "buffer-size", required_argument, NULL, 'B' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct globals g = { getenv("KVBENCH_DEVICE"), 4096 };
	unsigned long long bufsize;
	char err[256], msg[300];
	const char *cmd;
	size_t i;
	int c;

	if (!g.device || !*g.device)
		g.device = KVB_DEFAULT_DEVICE;
	/*
	 * getopt says what is wrong ("option '--device' requires an
	 * argument"), under the name the user knows.
	 */
	argv[0] = "kvbench";
	opterr = 1;
	while ((c = getopt_long(argc, argv, "+d:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			g.device = optarg;
			break;
		case 'h':
			fputs(help_text, stdout);
			return KVB_EXIT_OK;
		case 'V':
			kvb_print_version(stdout);
			return KVB_EXIT_OK;
		case 'B':
			if (kvb_parse_count(optarg, 0, KVB_MAX_VALUE, &bufsize,
					    err, sizeof(err)))
				return kvb_usage(NULL, "--buffer-size", err);
			g.bufsize = bufsize;
			break;
		default:
			return kvb_usage(NULL, NULL, NULL);
		}
	}
	if (optind >= argc)
		return kvb_usage(NULL, NULL, "missing command");
	cmd = argv[optind];
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(cmd, commands[i].name))
			break;
	if (i == ARRAY_SIZE(commands)) {
		snprintf(msg, sizeof(msg), "unknown command '%s'", cmd);
		return kvb_usage(NULL, NULL, msg);
	}
	if (commands[i].main)
		return commands[i].main(argc - optind, argv + optind);
	return commands[i].run(&commands[i], argc - optind, argv + optind, &g);
}
