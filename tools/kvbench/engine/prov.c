// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench: what produced a report. The tool's version and git describe
 * (from the Makefile, which reads the top-level VERSION file), the
 * module's version and parameters (/sys/module/kvbench), the command
 * line, the CPU and the accelerator; and the kernel backend's own
 * statistics around each case (/sys/class/misc/kvbench).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/utsname.h>

#include "kvbench.h"

#ifndef KVB_VERSION
#error "KVB_VERSION is set by the Makefile from the top-level VERSION file"
#endif
#ifndef KVB_GIT
#define KVB_GIT ""
#endif

const char kvb_version[] = KVB_VERSION;
const char kvb_git_describe[] = KVB_GIT;

void kvb_print_version(FILE *f)
{
	fprintf(f, "kvbench %s", kvb_version);
	if (kvb_git_describe[0])
		fprintf(f, " (git %s)", kvb_git_describe);
	fputc('\n', f);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/*
 * Every file of dir (a module's parameters/), name and first line, sorted
 * by name. Returns how many, or -errno when dir cannot be read.
 */
int kvb_module_params(struct kvb_prov *pv, const char *dir)
{
	char *names[KVB_PROV_MAX_PARAMS], path[512];
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0, i;

	pv->nparams = 0;
	if (!d) {
		pv->nparams = -1;
		return -errno;
	}
	while ((de = readdir(d)) && n < KVB_PROV_MAX_PARAMS) {
		if (de->d_name[0] == '.')
			continue;
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_name);
	for (i = 0; i < n; i++) {
		int k = pv->nparams;

		snprintf(pv->param_name[k], sizeof(pv->param_name[k]), "%s", names[i]);
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (!kvb_read_line(path, pv->param_value[k], sizeof(pv->param_value[k])))
			pv->nparams++;
		free(names[i]);
	}
	return pv->nparams;
}

/* /proc/self/cmdline: the whole command line, global options included. */
static void read_cmdline(struct kvb_prov *pv, int argc, char **argv)
{
	size_t cap = 4096, len = 0, i;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC), n = 0;
	char *buf = malloc(cap);
	ssize_t got;

	while (fd >= 0 && buf) {
		if (len == cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		got = read(fd, buf + len, cap - len);
		if (got <= 0)
			break;
		len += got;
	}
	if (fd >= 0)
		close(fd);
	if (!buf || !len || buf[len - 1]) {
		/* No procfs: the arguments we were given. */
		free(buf);
		buf = NULL;
		for (i = 0, len = 0; i < (size_t)argc; i++)
			len += strlen(argv[i]) + 1;
		buf = malloc(len ? len : 1);
		if (!buf)
			return;
		for (i = 0, len = 0; i < (size_t)argc; i++) {
			size_t n = strlen(argv[i]) + 1;

			memcpy(buf + len, argv[i], n);
			len += n;
		}
	}
	for (i = 0; i < len; i++)
		n += !buf[i];
	pv->argv = calloc(n ? n : 1, sizeof(*pv->argv));
	if (!pv->argv) {
		free(buf);
		return;
	}
	pv->cmdbuf = buf;
	for (i = 0; i < len; i += strlen(buf + i) + 1)
		pv->argv[pv->argc++] = buf + i;
}

static void cpu_model(char *buf, size_t len)
{
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "re");

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon += 1 + strspn(colon + 1, " \t");
		colon[strcspn(colon, "\n")] = 0;
		snprintf(buf, len, "%s", colon);
		break;
	}
	fclose(f);
}

/* root + rel: the live file for root "", a fixture's under a test's root */
static const char *at(char *buf, size_t len, const char *root, const char *rel)
{
	snprintf(buf, len, "%s%s", root, rel);
	return buf;
}

static void unknown_load(double load[3])
{
	int i;

	for (i = 0; i < 3; i++)
		load[i] = NAN;
}

/* /proc/loadavg's three averages; 0, or -1 (load NAN) when unreadable. */
int kvb_read_loadavg(const char *root, double load[3])
{
	char path[512], line[128];

	unknown_load(load);
	if (kvb_read_line(at(path, sizeof(path), root, "/proc/loadavg"), line,
			  sizeof(line)) ||
	    sscanf(line, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3) {
		unknown_load(load);
		return -1;
	}
	return 0;
}

/*
 * The value of NAME= in a kernel config file (CONFIG_HZ=250 gives "250"),
 * "y" for a CONFIG_X=y; "" when absent or commented out ("is not set").
 */
static void config_value(const char *config, const char *name, char *buf,
			 size_t len)
{
	size_t n = strlen(name);
	char line[256];
	FILE *f = fopen(config, "re");

	buf[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, name, n) || line[n] != '=')
			continue;
		line[strcspn(line, "\n")] = 0;
		snprintf(buf, len, "%s", line + n + 1);
		break;
	}
	fclose(f);
}

/* A config's preemption model, by its CONFIG_PREEMPT* choice; "" if none. */
static const char *config_preempt(const char *config)
{
	static const struct {
		const char *option, *model;
	} models[] = {
		{ "CONFIG_PREEMPT_RT", "rt" },
		{ "CONFIG_PREEMPT_LAZY", "lazy" },
		{ "CONFIG_PREEMPT", "full" },
		{ "CONFIG_PREEMPT_VOLUNTARY", "voluntary" },
		{ "CONFIG_PREEMPT_NONE", "none" },
	};
	char v[16];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(models); i++) {
		config_value(config, models[i].option, v, sizeof(v));
		if (!strcmp(v, "y"))
			return models[i].model;
	}
	return "";
}

/* "preempt=full" among the words of a kernel command line; "" if not. */
static void cmdline_word(const char *cmdline, const char *key, char *buf,
			 size_t len)
{
	size_t n = strlen(key);
	const char *w = cmdline;

	buf[0] = 0;
	while (*w) {
		size_t wl = strcspn(w, " \t");

		if (wl > n && !strncmp(w, key, n))
			snprintf(buf, len, "%.*s", (int)(wl - n), w + n);
		w += wl;
		w += strspn(w, " \t");
	}
}

static int has_word(const char *s, const char *word)
{
	size_t n = strlen(word);
	const char *w = s;

	while (*w) {
		size_t wl = strcspn(w, " \t");

		if (wl == n && !strncmp(w, word, n))
			return 1;
		w += wl;
		w += strspn(w, " \t");
	}
	return 0;
}

/*
 * The preemption model, from the best source there is: debugfs names the
 * model in force, "none voluntary (full)" (root, debugfs mounted); else
 * uname -v names the kind of kernel (PREEMPT_RT, PREEMPT_DYNAMIC, PREEMPT),
 * and for a dynamic one the mode is the command line's preempt= or the
 * config's default; else the config alone.
 */
static void host_preempt(struct kvb_host *h, const char *root,
			 const char *uversion, const char *config)
{
	char path[512], line[128], word[sizeof(h->preempt)], *l, *r;
	const char *m;

	if (!kvb_read_line(at(path, sizeof(path), root, "/sys/kernel/debug/sched/preempt"),
			   line, sizeof(line))) {
		l = strchr(line, '(');
		r = l ? strchr(l, ')') : NULL;
		if (l && r) {
			snprintf(h->preempt, sizeof(h->preempt), "%.*s",
				 (int)(r - l - 1), l + 1);
			snprintf(h->preempt_src, sizeof(h->preempt_src),
				 "/sys/kernel/debug/sched/preempt");
			return;
		}
	}
	if (has_word(uversion, "PREEMPT_RT")) {
		snprintf(h->preempt, sizeof(h->preempt), "rt");
		snprintf(h->preempt_src, sizeof(h->preempt_src), "uname -v");
		return;
	}
	if (has_word(uversion, "PREEMPT_DYNAMIC")) {
		cmdline_word(h->cmdline, "preempt=", word, sizeof(word));
		m = config_preempt(config);
		if (word[0]) {
			snprintf(h->preempt, sizeof(h->preempt), "%s", word);
			snprintf(h->preempt_src, sizeof(h->preempt_src),
				 "uname -v, /proc/cmdline preempt=");
		} else if (*m) {
			snprintf(h->preempt, sizeof(h->preempt), "%s", m);
			snprintf(h->preempt_src, sizeof(h->preempt_src),
				 "uname -v, %s", config + strlen(root));
		} else {
			snprintf(h->preempt, sizeof(h->preempt), "dynamic");
			snprintf(h->preempt_src, sizeof(h->preempt_src), "uname -v");
		}
		return;
	}
	if (has_word(uversion, "PREEMPT")) {
		snprintf(h->preempt, sizeof(h->preempt), "full");
		snprintf(h->preempt_src, sizeof(h->preempt_src), "uname -v");
		return;
	}
	m = config_preempt(config);
	if (*m) {
		snprintf(h->preempt, sizeof(h->preempt), "%s", m);
		snprintf(h->preempt_src, sizeof(h->preempt_src), "%s",
			 config + strlen(root));
	}
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* /sys/devices/system/node/nodeN/cpulist, by N; -1 without the directory. */
static void host_numa(struct kvb_host *h, const char *root)
{
	char path[600], dir[512];
	int ids[KVB_PROV_MAX_NODES], n = 0, i;
	struct dirent *de;
	DIR *d = opendir(at(dir, sizeof(dir), root, "/sys/devices/system/node"));

	h->nnodes = -1;
	if (!d)
		return;
	while ((de = readdir(d)) && n < KVB_PROV_MAX_NODES) {
		char *end;
		long id;

		if (strncmp(de->d_name, "node", 4) || !de->d_name[4])
			continue;
		id = strtol(de->d_name + 4, &end, 10);
		if (!*end && id >= 0 && id < 1 << 16)
			ids[n++] = id;
	}
	closedir(d);
	qsort(ids, n, sizeof(*ids), cmp_int);
	h->nnodes = 0;
	for (i = 0; i < n; i++) {
		int k = h->nnodes;

		snprintf(path, sizeof(path), "%s/node%d/cpulist", dir, ids[i]);
		if (kvb_read_line(path, h->node_cpus[k], sizeof(h->node_cpus[k])))
			continue;
		h->node_id[k] = ids[i];
		h->nnodes++;
	}
}

/*
 * The busy share of all CPUs, in percent, between two first lines of
 * /proc/stat ("cpu  user nice system idle iowait irq softirq steal ...",
 * a first): everything but idle and iowait, over user to steal (guest time
 * is in user already). NAN when a line does not parse or no time passed.
 * *steal (when not NULL): the share of it the hypervisor stole, or NAN.
 */
double kvb_stat_busy_pct(const char *a, const char *b, double *steal)
{
	unsigned long long x[8], y[8], all = 0, idle = 0;
	int i;

	if (steal)
		*steal = NAN;
	if (sscanf(a, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &x[0], &x[1], &x[2],
		   &x[3], &x[4], &x[5], &x[6], &x[7]) != 8 ||
	    sscanf(b, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &y[0], &y[1], &y[2],
		   &y[3], &y[4], &y[5], &y[6], &y[7]) != 8)
		return NAN;
	for (i = 0; i < 8; i++) {
		if (y[i] < x[i])
			return NAN;
		all += y[i] - x[i];
	}
	idle = (y[3] - x[3]) + (y[4] - x[4]);
	if (steal)
		*steal = all ? 100.0 * (y[7] - x[7]) / all : NAN;
	return all ? 100.0 * (all - idle) / all : NAN;
}

/*
 * How busy the CPUs are now, and the share stolen: /proc/stat twice, a
 * window apart (live only).
 */
static double busy_now(const char *root, double *steal)
{
	char path[512], a[256], b[256];
	struct timespec ts = { 0, KVB_BUSY_WINDOW_MS * 1000000L };

	*steal = NAN;
	at(path, sizeof(path), root, "/proc/stat");
	if (kvb_read_line(path, a, sizeof(a)))
		return NAN;
	/* a fixture tree is not a clock: its two reads are one file */
	if (!root[0])
		nanosleep(&ts, NULL);
	if (kvb_read_line(path, b, sizeof(b)))
		return NAN;
	return kvb_stat_busy_pct(a, b, steal);
}

/*
 * Everything but the load after the run: the kernel's command line,
 * preemption model and HZ, cpu0's frequency governor, SMT, the NUMA nodes
 * and the load before the run. u: uname's; release and version name the
 * config file and the kind of kernel.
 */
void kvb_host_collect(struct kvb_host *h, const char *root,
		      const struct utsname *u, long nproc)
{
	char path[512], config[512], v[32];

	memset(h, 0, sizeof(*h));
	h->smt_active = -1;
	kvb_read_line(at(path, sizeof(path), root, "/proc/cmdline"), h->cmdline,
		      sizeof(h->cmdline));
	snprintf(config, sizeof(config), "%s/boot/config-%s", root, u->release);
	host_preempt(h, root, u->version, config);
	config_value(config, "CONFIG_HZ", v, sizeof(v));
	h->hz = atoi(v);
	kvb_read_line(at(path, sizeof(path), root,
			 "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
		      h->governor, sizeof(h->governor));
	if (!kvb_read_line(at(path, sizeof(path), root, "/sys/devices/system/cpu/smt/active"),
			   v, sizeof(v)) && (!strcmp(v, "0") || !strcmp(v, "1")))
		h->smt_active = v[0] == '1';
	kvb_read_line(at(path, sizeof(path), root, "/sys/devices/system/cpu/smt/control"),
		      h->smt_control, sizeof(h->smt_control));
	host_numa(h, root);
	kvb_read_loadavg(root, h->load_before);
	unknown_load(h->load_after);
	(void)nproc;
	h->busy_pct = busy_now(root, &h->steal_pct);
	h->busy = h->busy_pct >= KVB_BUSY_PCT;
}

/*
 * Without $KVBENCH_ACCEL: an x86 CPU without the hypervisor flag runs on
 * the machine itself ("native"); one with it is a guest of an accelerator
 * the tool cannot tell, as is any CPU without x86's flags ("unknown").
 */
const char *kvb_detect_accel(const char *root)
{
	char path[512], line[4096];
	const char *accel = "unknown";
	FILE *f = fopen(at(path, sizeof(path), root, "/proc/cpuinfo"), "re");

	if (!f)
		return accel;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "flags", 5) || !colon)
			continue;
		colon[strcspn(colon, "\n")] = 0;
		accel = has_word(colon + 1, "hypervisor") ? "unknown" : "native";
		break;
	}
	fclose(f);
	return accel;
}

/* After the run: the load average then. */
void kvb_prov_after(struct kvb_prov *pv)
{
	kvb_read_loadavg("", pv->host.load_after);
}

void kvb_prov_collect(struct kvb_prov *pv, const char *sys_module,
		      int argc, char **argv)
{
	const char *accel = getenv("KVBENCH_ACCEL");
	char path[512];
	struct utsname u;

	memset(pv, 0, sizeof(*pv));
	pv->tool_version = kvb_version;
	pv->tool_git = kvb_git_describe;
	snprintf(path, sizeof(path), "%s/version", sys_module);
	kvb_read_line(path, pv->module_version, sizeof(pv->module_version));
	snprintf(path, sizeof(path), "%s/parameters", sys_module);
	kvb_module_params(pv, path);
	read_cmdline(pv, argc, argv);
	cpu_model(pv->cpu_model, sizeof(pv->cpu_model));
	pv->nproc = sysconf(_SC_NPROCESSORS_ONLN);
	if (uname(&u))
		memset(&u, 0, sizeof(u));
	kvb_host_collect(&pv->host, "", &u, pv->nproc);
	snprintf(path, sizeof(path), "%s/srcversion", sys_module);
	kvb_read_line(path, pv->host.srcversion, sizeof(pv->host.srcversion));
	snprintf(pv->accel, sizeof(pv->accel), "%s",
		 accel && *accel ? accel : kvb_detect_accel(""));
	snprintf(pv->host.accel_src, sizeof(pv->host.accel_src), "%s",
		 accel && *accel ? "KVBENCH_ACCEL" : "cpuinfo");
}

void kvb_prov_free(struct kvb_prov *pv)
{
	free(pv->argv);
	free(pv->cmdbuf);
	pv->argv = NULL;
	pv->cmdbuf = NULL;
	pv->argc = 0;
}

static int read_ull(const char *sysfs, const char *name, unsigned long long *v)
{
	char path[512], buf[64], *end;

	snprintf(path, sizeof(path), "%s/%s", sysfs, name);
	if (kvb_read_line(path, buf, sizeof(buf)))
		return -1;
	errno = 0;
	*v = strtoull(buf, &end, 10);
	return errno || end == buf || *end ? -1 : 0;
}

static int read_double(const char *sysfs, const char *name, double *v)
{
	char path[512], buf[64], *end;

	snprintf(path, sizeof(path), "%s/%s", sysfs, name);
	if (kvb_read_line(path, buf, sizeof(buf)))
		return -1;
	*v = strtod(buf, &end);
	return end == buf || *end ? -1 : 0;
}

/*
 * The counters a case takes deltas of: its own after a reset, and still
 * right when the reset is refused (queue_full) or when the module is one
 * without the file (sleeps, handoffs: has_sleeps 0; poll_us and the
 * owners gauge: has_poll 0).
 */
static int read_counters(const char *sysfs, struct kvb_bstats *b)
{
	unsigned long long gets, sets, dels;

	if (read_ull(sysfs, "queue_full", &b->queue_full) ||
	    read_ull(sysfs, "gets", &gets) || read_ull(sysfs, "sets", &sets) ||
	    read_ull(sysfs, "dels", &dels))
		return -1;
	b->requests = gets + sets + dels;
	b->has_sleeps = !read_ull(sysfs, "sleeps", &b->sleeps) &&
			!read_ull(sysfs, "handoffs", &b->handoffs);
	b->has_poll = !read_ull(sysfs, "poll_us", &b->poll_us) &&
		      !read_ull(sysfs, "owners", &b->owners);
	return 0;
}

static unsigned long long delta(unsigned long long now,
				unsigned long long then)
{
	return now >= then ? now - then : now;
}

/*
 * Before a kernel case: zero the device's statistics (the map is left
 * alone) so that queue_hwm, drain_mean and combine_mean are the case's
 * own; keep the counters for deltas in case the reset is refused.
 */
void kvb_bstats_begin(const char *sysfs, struct kvb_bstats *before)
{
	char path[512];
	int fd;

	memset(before, 0, sizeof(*before));
	before->drain_mean = NAN;
	before->combine_mean = NAN;
	snprintf(path, sizeof(path), "%s/reset", sysfs);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		before->reset = write(fd, "1", 1) == 1;
		close(fd);
	}
	before->valid = !read_counters(sysfs, before);
	before->window_s = kvb_now_ns() / 1e9;
}

/* After it: the values, or the delta for a counter not reset. */
void kvb_bstats_end(const char *sysfs, const struct kvb_bstats *before,
		    struct kvb_bstats *out)
{
	memset(out, 0, sizeof(*out));
	out->drain_mean = NAN;
	out->combine_mean = NAN;
	if (!before->valid || read_counters(sysfs, out) ||
	    read_ull(sysfs, "queue_hwm", &out->queue_hwm) ||
	    read_double(sysfs, "drain_mean", &out->drain_mean)) {
		memset(out, 0, sizeof(*out));
		out->drain_mean = NAN;
		out->combine_mean = NAN;
		return;
	}
	out->valid = 1;
	out->reset = before->reset;
	out->window_s = kvb_now_ns() / 1e9 - before->window_s;
	out->queue_full = delta(out->queue_full, before->queue_full);
	out->requests = delta(out->requests, before->requests);
	out->has_sleeps = out->has_sleeps && before->has_sleeps;
	out->sleeps = out->has_sleeps ? delta(out->sleeps, before->sleeps) : 0;
	out->handoffs = out->has_sleeps ?
			delta(out->handoffs, before->handoffs) : 0;
	out->has_poll = out->has_poll && before->has_poll;
	out->poll_us = out->has_poll ? delta(out->poll_us, before->poll_us) : 0;
	if (!out->has_poll)
		out->owners = 0;
	if (!out->has_sleeps || read_double(sysfs, "combine_mean",
					    &out->combine_mean))
		out->combine_mean = NAN;
	if (!out->reset) {
		out->drain_mean = NAN;
		out->combine_mean = NAN;
	}
}

/*
 * Wake-ups a request cost: the times a caller slept for its answer (and
 * was woken for it) over the requests the module ran; NAN when unknown.
 */
double kvb_wakeups_per_req(const struct kvb_bstats *b)
{
	if (!b->valid || !b->has_sleeps || !b->requests)
		return NAN;
	return (double)b->sleeps / b->requests;
}

/*
 * The owner threads' polling over seconds of wall time (for a case, its
 * bstats' window_s): how many CPUs' worth of time they spun for work,
 * 0.45 for 450 ms a second; 0 for a backend without owners, NAN when
 * unknown.
 */
double kvb_poll_cpus(const struct kvb_bstats *b, double seconds)
{
	if (!b->valid || !b->has_poll || !(seconds > 0))
		return NAN;
	return b->poll_us / 1e6 / seconds;
}
