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

static int do_set(int fd, const char *key, const char *val)
{
	struct kvbench_kv kv = {
		.key = (__u64)(unsigned long)key,
		.value = (__u64)(unsigned long)val,
		.key_len = strlen(key),
		.value_len = strlen(val),
	};

	if (ioctl(fd, KVBENCH_IOC_SET, &kv)) {
		op_fail("set", key, errno);
		return KVB_EXIT_FAIL;
	}
	return KVB_EXIT_OK;
}

/* Start small; on ERANGE the module tells us the size it needs. */
static int do_get(int fd, const char *key, size_t bufsize)
{
	struct kvbench_kv kv = {
		.key = (__u64)(unsigned long)key,
		.key_len = strlen(key),
	};
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

static int do_del(int fd, const char *key)
{
	struct kvbench_kv kv = {
		.key = (__u64)(unsigned long)key,
		.key_len = strlen(key),
	};

	if (ioctl(fd, KVBENCH_IOC_DEL, &kv)) {
		op_fail("del", key, errno);
		return KVB_EXIT_FAIL;
	}
	return KVB_EXIT_OK;
}

static int do_nop(int fd)
{
	if (ioctl(fd, KVBENCH_IOC_NOP)) {
		fprintf(stderr, "kvbench: nop: %s\n", op_error(errno));
		return KVB_EXIT_FAIL;
	}
	return KVB_EXIT_OK;
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "kvbench: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'kvbench --help' for more information.\n");
	return KVB_EXIT_USAGE;
}

static const struct {
	const char *name;
	int nargs;
	const char *args;
	const char *what;
} commands[] = {
	{ "set", 2, "KEY VALUE", "Store VALUE under KEY" },
	{ "get", 1, "KEY", "Print the value of KEY and a newline" },
	{ "del", 1, "KEY", "Delete KEY" },
	{ "nop", 0, "", "Issue KVBENCH_IOC_NOP (checks the device answers)" },
};

/* kvbench get --help: the command's own usage, on stdout. */
static void command_help(int i)
{
	printf("Usage: kvbench [-d DEVICE] %s%s%s\n\n%s.\n", commands[i].name,
	       commands[i].nargs ? " [--] " : "", commands[i].args, commands[i].what);
	if (commands[i].nargs)
		printf("Keys are 1..%d bytes; one that starts with '-' goes after '--'\n"
		       "(kvbench %s -- -k%s).\n",
		       KVBENCH_KEY_MAX, commands[i].name, commands[i].nargs > 1 ? " VALUE" : "");
	printf("The global options (-d, --buffer-size): 'kvbench --help'.\n");
}

/*
 * The arguments of set, get, del and nop, before a "--": -h or --help
 * anywhere asks for the command's usage (1), never names a key; another
 * option where the key goes is a mistake (-1, said). A value may start
 * with '-' (kvbench set t -5).
 */
static int command_opts(int i, int argc, char **argv)
{
	int j;

	for (j = 0; j < argc && strcmp(argv[j], "--"); j++)
		if (!strcmp(argv[j], "-h") || !strcmp(argv[j], "--help"))
			return 1;
	if (argc && argv[0][0] == '-' && argv[0][1] && strcmp(argv[0], "--")) {
		fprintf(stderr,
			"kvbench: %s: unknown option '%s' (a key that starts with '-' goes after '--': kvbench %s -- %s)\n",
			commands[i].name, argv[0], commands[i].name, argv[0]);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "buffer-size", required_argument, NULL, 'B' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char *device = getenv("KVBENCH_DEVICE");
	unsigned long long bufsize = 4096;
	const char *cmd;
	char err[256];
	int c, i, fd, ret;

	if (!device || !*device)
		device = KVB_DEFAULT_DEVICE;
	/*
	 * getopt says what is wrong ("option '--device' requires an
	 * argument"), under the name the user knows.
	 */
	argv[0] = "kvbench";
	opterr = 1;
	while ((c = getopt_long(argc, argv, "+d:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			device = optarg;
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
				return usage_error("--buffer-size: %s", err);
			break;
		default:
			fprintf(stderr, "Try 'kvbench --help' for more information.\n");
			return KVB_EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return usage_error("%s", "missing command");
	cmd = argv[optind++];
	if (!strcmp(cmd, "help"))  {
		fputs(help_text, stdout);
		return KVB_EXIT_OK;
	}
	if (!strcmp(cmd, "stats"))
		return kvb_stats_main(argc - optind + 1, argv + optind - 1);
	if (!strcmp(cmd, "version")) {
		if (optind < argc)
			return usage_error("%s", "version takes no arguments");
		kvb_print_version(stdout);
		return KVB_EXIT_OK;
	}
	if (!strcmp(cmd, "report"))
		return kvb_report_main(argc - optind + 1, argv + optind - 1);
	if (!strcmp(cmd, "compare"))
		return kvb_compare_main(argc - optind + 1, argv + optind - 1);
	if (!strcmp(cmd, "bench"))
		return kvb_bench_main(argc - optind + 1, argv + optind - 1, device);
	if (!strcmp(cmd, "plot"))
		return kvb_plot_main(argc - optind + 1, argv + optind - 1);

	for (i = 0; i < (int)ARRAY_SIZE(commands); i++)
		if (!strcmp(cmd, commands[i].name))
			break;
	if (i == (int)ARRAY_SIZE(commands))
		return usage_error("unknown command '%s'", cmd);
	ret = command_opts(i, argc - optind, argv + optind);
	if (ret > 0) {
		command_help(i);
		return KVB_EXIT_OK;
	}
	if (ret < 0)
		return KVB_EXIT_USAGE;
	if (optind < argc && !strcmp(argv[optind], "--"))
		optind++;
	if (argc - optind != commands[i].nargs) {
		fprintf(stderr, "kvbench: %s takes %d argument%s: kvbench %s %s\n",
			cmd, commands[i].nargs, commands[i].nargs == 1 ? "" : "s",
			cmd, commands[i].args);
		return KVB_EXIT_USAGE;
	}
	if (commands[i].nargs && check_key(cmd, argv[optind]))
		return KVB_EXIT_USAGE;

	fd = kvb_open_device(device);
	if (fd < 0)
		return KVB_EXIT_FAIL;
	switch (cmd[0]) {
	case 's':
		ret = do_set(fd, argv[optind], argv[optind + 1]);
		break;
	case 'g':
		ret = do_get(fd, argv[optind], bufsize);
		break;
	case 'd':
		ret = do_del(fd, argv[optind]);
		break;
	default:
		ret = do_nop(fd);
		break;
	}
	close(fd);
	return ret;
}
