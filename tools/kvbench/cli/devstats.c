// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench stats: the device's sysfs statistics in one report, grouped and
 * labelled (like redis INFO); --watch N reprints it every N seconds with
 * per-second rates for the counters. Every readable file of the directory
 * is shown: those this tool does not know under "other", as they are.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "kvbench.h"

enum { GAUGE, COUNTER, TEXT };

/*
 * A load factor above this is an overfull table (Documentation/kvbench.rst,
 * "A table's size"): GETs walk chains the table was not sized for.
 */
#define KVB_LOAD_WARN	2.0

/* The files Documentation/ABI/testing/sysfs-class-misc-kvbench describes. */
static const struct {
	const char *group;
	const char *name;
	int type;
	const char *what;
} known[] = {
	{ "backend", "backend", TEXT, "the backend serving the map" },
	{ "backend", "backends", TEXT, "every backend the module offers" },
	{ "map", "entries", GAUGE, "keys in the map" },
	{ "map", "bytes", GAUGE, "bytes charged to max_bytes (key + value + 64 per entry)" },
	{ "map", "load_factor", GAUGE, "keys per hash bucket" },
	{ "map", "longest_chain", GAUGE, "longest hash chain the table has had" },
	{ "operations", "gets", COUNTER, "GETs (hits + misses)" },
	{ "operations", "hits", COUNTER, "GETs that found their key" },
	{ "operations", "misses", COUNTER, "GETs that did not (ENOENT)" },
	{ "operations", "sets", COUNTER, "SETs, whatever their result" },
	{ "operations", "dels", COUNTER, "DELs, found or not" },
	{ "operations", "batches", COUNTER, "BATCH ioctls (their ops are counted above)" },
	{ "owner queues", "queue_hwm", GAUGE, "most messages ever waiting in an owner's queue" },
	{ "owner queues", "drain_mean", GAUGE, "messages answered per drain pass, mean" },
	{ "owner queues", "queue_full", COUNTER, "times a caller waited for room in a queue" },
	{ "waits", "sleeps", COUNTER, "times a caller slept for its answer (one wake-up each)" },
	{ "owners", "owners", GAUGE, "owner threads the backend runs" },
	{ "owners", "poll_us", COUNTER, "microseconds the owners spun for work, summed over them" },
	{ "combining", "combine_mean", GAUGE, "requests a combiner ran per pass, mean" },
	{ "combining", "handoffs", COUNTER, "times a full pass handed the combiner role on" },
	{ "controls", "reset", TEXT, "write 1 to zero the counters" },
};

static const char * const groups[] = {
	"backend", "map", "operations", "owners", "owner queues", "waits",
	"combining", "controls", "device", "other",
};

static int known_index(const char *name)
{
	int i;

	for (i = 0; i < (int)ARRAY_SIZE(known); i++)
		if (!strcmp(known[i].name, name))
			return i;
	return -1;
}

static const char *group_of(const char *name)
{
	int k = known_index(name);

	if (k >= 0)
		return known[k].group;
	if (!strcmp(name, "dev") || !strcmp(name, "uevent"))
		return "device";
	return "other";
}

void kvb_sysfs_free(struct kvb_sysfs_snap *s)
{
	free(s->files);
	s->files = NULL;
	s->n = 0;
}

/* One file's contents, newlines turned into spaces; -errno on failure. */
static int read_value(int dirfd, const char *name, char *buf, size_t len)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	size_t i;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	for (i = 0; i < (size_t)n; i++)
		if (buf[i] == '\n' || buf[i] == '\t')
			buf[i] = ' ';
	return 0;
}

/*
 * Read every regular file of dir (not subdirectories or links). A file
 * without read permission is kept as write-only; one that cannot be read
 * keeps its error as the value.
 */
int kvb_sysfs_read(const char *dir, struct kvb_sysfs_snap *s, char *err,
		   size_t errlen)
{
	struct dirent **names = NULL;
	int dirfd, n, i;

	memset(s, 0, sizeof(*s));
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	n = scandirat(dirfd, ".", &names, NULL, alphasort);
	if (n < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		close(dirfd);
		return -1;
	}
	s->files = calloc(n ? n : 1, sizeof(*s->files));
	for (i = 0; i < n; i++) {
		struct kvb_sysfs_file *f;
		struct stat st;
		int r;

		if (!s->files || fstatat(dirfd, names[i]->d_name, &st,
					 AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode) ||
		    strlen(names[i]->d_name) >= sizeof(f->name)) {
			free(names[i]);
			continue;
		}
		f = &s->files[s->n++];
		memcpy(f->name, names[i]->d_name, strlen(names[i]->d_name) + 1);
		free(names[i]);
		if (!(st.st_mode & 0444)) {
			f->writeonly = 1;
			continue;
		}
		r = read_value(dirfd, f->name, f->value, sizeof(f->value));
		if (r == -EACCES || r == -EPERM)
			f->writeonly = 1;
		else if (r)
			snprintf(f->value, sizeof(f->value), "(%s)", strerror(-r));
	}
	free(names);
	close(dirfd);
	if (!s->files) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	s->time = kvb_now_ns() / 1e9;
	return 0;
}

static const struct kvb_sysfs_file *find_file(const struct kvb_sysfs_snap *s,
					      const char *name)
{
	int i;

	for (i = 0; s && i < s->n; i++)
		if (!strcmp(s->files[i].name, name))
			return &s->files[i];
	return NULL;
}

static int number(const char *s, double *v)
{
	char *end;

	if (!*s)
		return 0;
	errno = 0;
	*v = strtod(s, &end);
	return !errno && !*end && isfinite(*v);
}

/* The per-second rate of a counter since prev, in buf; "" when none. */
static void rate(const struct kvb_sysfs_file *f, const struct kvb_sysfs_snap *cur,
		 const struct kvb_sysfs_snap *prev, char *buf, size_t len)
{
	const struct kvb_sysfs_file *p = find_file(prev, f->name);
	double a, b, dt = prev ? cur->time - prev->time : 0;

	buf[0] = 0;
	if (!p || dt <= 0 || !number(p->value, &a) || !number(f->value, &b))
		return;
	if (b < a)
		snprintf(buf, len, "(reset)");
	else
		snprintf(buf, len, "%.1f/s", (b - a) / dt);
}

/* One line: name, value, rate (with --watch), meaning; no trailing blanks. */
static void line(FILE *out, const char *name, const char *value,
		 const char *rate, int rates, const char *what)
{
	char buf[512];
	int n;

	n = snprintf(buf, sizeof(buf), "%-13s %13s", name, value);
	if (rates && n < (int)sizeof(buf))
		n += snprintf(buf + n, sizeof(buf) - n, " %12s", rate);
	if (what && *what && n < (int)sizeof(buf))
		n += snprintf(buf + n, sizeof(buf) - n, "  %s", what);
	if (n >= (int)sizeof(buf))
		n = sizeof(buf) - 1;
	while (n > 0 && buf[n - 1] == ' ')
		buf[--n] = 0;
	fprintf(out, "%s\n", buf);
}

static void print_file(FILE *out, const struct kvb_sysfs_file *f,
		       const struct kvb_sysfs_snap *cur,
		       const struct kvb_sysfs_snap *prev)
{
	int k = known_index(f->name);
	char r[32] = "";

	if (f->writeonly) {
		line(out, f->name, "-", "", !!prev,
		     k >= 0 ? known[k].what : "write-only");
		return;
	}
	if (k >= 0 && known[k].type == COUNTER)
		rate(f, cur, prev, r, sizeof(r));
	line(out, f->name, f->value, r, !!prev, k >= 0 ? known[k].what : "");
}

/*
 * The report: one group after another, the files this tool knows in the
 * order of the ABI document, the others by name; each line the file's
 * name, its value, the rate (counters, when prev is given) and its meaning.
 */
void kvb_sysfs_print(FILE *out, const char *dir, const struct kvb_sysfs_snap *cur,
		     const struct kvb_sysfs_snap *prev)
{
	const struct kvb_sysfs_file *gets = find_file(cur, "gets");
	const struct kvb_sysfs_file *hits = find_file(cur, "hits");
	const struct kvb_sysfs_file *load = find_file(cur, "load_factor");
	double g_v, h_v, l_v;
	int g, i, k;

	fprintf(out, "# kvbench stats: %s\n", dir);
	for (g = 0; g < (int)ARRAY_SIZE(groups); g++) {
		int first = 1;

		for (k = 0; k <= (int)ARRAY_SIZE(known); k++) {
			for (i = 0; i < cur->n; i++) {
				const struct kvb_sysfs_file *f = &cur->files[i];

				if (strcmp(group_of(f->name), groups[g]))
					continue;
				/* known files in the table's order, then the rest */
				if (k < (int)ARRAY_SIZE(known) ? strcmp(f->name, known[k].name) :
				    known_index(f->name) >= 0)
					continue;
				if (first)
					fprintf(out, "\n[%s]\n", groups[g]);
				first = 0;
				print_file(out, f, cur, prev);
			}
		}
		if (!strcmp(groups[g], "map") && load &&
		    number(load->value, &l_v) && l_v > KVB_LOAD_WARN) {
			char v[32];

			snprintf(v, sizeof(v), "%.2f", l_v);
			line(out, "warning", v, "", !!prev,
			     "keys per bucket: the table is overfull; raise hash_bits or use rhashtable");
		}
		if (!strcmp(groups[g], "operations") && gets && hits &&
		    number(gets->value, &g_v) && number(hits->value, &h_v) && g_v > 0) {
			char v[32];

			snprintf(v, sizeof(v), "%.1f%%", 100 * h_v / g_v);
			line(out, "hit rate", v, "", !!prev, "hits / gets");
		}
	}
	if (!cur->n)
		fprintf(out, "(no files)\n");
}

static atomic_bool stop;

static void on_stop(int sig)
{
	(void)sig;
	atomic_store(&stop, 1);
}

static const char stats_help[] =
	"Usage: kvbench stats [OPTIONS]\n"
	"\n"
	"Prints the device's sysfs statistics, grouped and labelled: the backend,\n"
	"the map, the operation counters, the owner threads and their queues, and\n"
	"any other file.\n"
	"\n"
	"      --sysfs DIR       the device's sysfs directory\n"
	"                        (default " KVB_DEFAULT_SYSFS ")\n"
	"      --watch SEC       reprint every SEC seconds (1, 500ms, 2s), with\n"
	"                        per-second rates of the counters; Ctrl-C stops\n"
	"      --count K         with --watch: stop after K reports\n"
	"  -h, --help            show this help\n"
	"\n"
	"Exit status: 0 (also after Ctrl-C ends --watch), 1 when the directory\n"
	"cannot be read (module not loaded?), 2 on usage errors.\n";

/* Sleep sec seconds or until Ctrl-C. */
static void pause_for(double sec)
{
	struct timespec ts = { (time_t)sec, (long)((sec - floor(sec)) * 1e9) };

	while (!atomic_load(&stop) && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * The statistics once, or every watch seconds (count times, 0: until
 * Ctrl-C) with the counters' rates since the report before.
 */
static int stats_loop(const char *dir, double watch, unsigned long long count)
{
	struct kvb_sysfs_snap prev = { 0 }, cur;
	unsigned long long done = 0;
	char err[512];

	for (;;) {
		if (kvb_sysfs_read(dir, &cur, err, sizeof(err))) {
			fprintf(stderr, "kvbench stats: %s\n", err);
			if (access(dir, F_OK))
				fprintf(stderr,
					"kvbench: is the module loaded? Load it with 'insmod module/kvbench.ko' (from the source tree) or 'modprobe kvbench'\n");
			kvb_sysfs_free(&prev);
			return KVB_EXIT_FAIL;
		}
		if (watch) {
			time_t now = time(NULL);
			struct tm tm;
			char when[32] = "";

			if (gmtime_r(&now, &tm))
				strftime(when, sizeof(when), "%H:%M:%S UTC", &tm);
			printf("%s# %s, every %g s%s\n", done ? "\n" : "", when, watch,
			       done ? ", rates since the last report" : "");
		}
		kvb_sysfs_print(stdout, dir, &cur, done ? &prev : NULL);
		fflush(stdout);
		kvb_sysfs_free(&prev);
		prev = cur;
		done++;
		if (!watch || (count && done >= count) || atomic_load(&stop))
			break;
		pause_for(watch);
		if (atomic_load(&stop))
			break;
	}
	kvb_sysfs_free(&prev);
	if (ferror(stdout)) {
		fprintf(stderr, "kvbench stats: write error\n");
		return KVB_EXIT_FAIL;
	}
	return KVB_EXIT_OK;
}

int kvb_stats_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sysfs", required_argument, NULL, 'S' },
		{ "watch", required_argument, NULL, 'W' },
		{ "count", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *dir = KVB_DEFAULT_SYSFS;
	unsigned long long count = 0;
	double watch = 0;
	struct sigaction sa;
	char err[512];
	int c;

	argv[0] = "kvbench stats";
	opterr = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'S':
			dir = optarg;
			break;
		case 'W':
			if (kvb_parse_seconds(optarg, &watch, err, sizeof(err)))
				return kvb_usage("stats", "--watch", err);
			if (watch < 0.01)
				return kvb_usage("stats", "--watch", "must be at least 10ms");
			break;
		case 'C':
			if (kvb_parse_count(optarg, 1, 1ULL << 40, &count, err, sizeof(err)))
				return kvb_usage("stats", "--count", err);
			break;
		case 'h':
			fputs(stats_help, stdout);
			return KVB_EXIT_OK;
		default:
			return kvb_usage("stats", NULL, NULL);
		}
	}
	if (optind < argc)
		return kvb_usage("stats", NULL, "unexpected arguments (stats takes options only)");
	if (count && !watch)
		return kvb_usage("stats", "--count", "only with --watch");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	return stats_loop(dir, watch, count);
}
