// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench: parsing of the bench options. Every parser returns 0, or -1 with
 * a message (without the option name) in err.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kvbench.h"

/* "90:10", "50:25:25", or the names get, set, del. */
int kvb_parse_mix(const char *s, struct kvb_mix *mix, char *err, size_t errlen)
{
	unsigned long w[3] = { 0, 0, 0 };
	const char *p = s;
	int i;

	if (!strcmp(s, "get") || !strcmp(s, "ro") || !strcmp(s, "read")) {
		*mix = (struct kvb_mix){ .get = 100, .set = 0, .del = 0 };
		return 0;
	}
	if (!strcmp(s, "set") || !strcmp(s, "wo") || !strcmp(s, "write")) {
		*mix = (struct kvb_mix){ .get = 0, .set = 100, .del = 0 };
		return 0;
	}
	if (!strcmp(s, "del")) {
		*mix = (struct kvb_mix){ .get = 0, .set = 0, .del = 100 };
		return 0;
	}
	for (i = 0; i < 3; i++) {
		char *end;

		if (*p < '0' || *p > '9')
			goto bad;
		errno = 0;
		w[i] = strtoul(p, &end, 10);
		if (errno || w[i] > 1000000)
			goto bad;
		p = end;
		if (!*p)
			break;
		if (*p != ':' || i == 2)
			goto bad;
		p++;
	}
	if (i == 0)
		goto bad;
	if (!w[0] && !w[1] && !w[2])
		return kvb_fail(err, errlen, "'%s' has no operations (all weights are 0)", s);
	*mix = (struct kvb_mix){ .get = w[0], .set = w[1], .del = w[2] };
	return 0;
bad:
	return kvb_fail(err, errlen,
			"'%s' is not GET:SET[:DEL] weights (like 90:10) or get/set/del", s);
}

/* What a list of mixes or workloads has parsed so far. */
struct mix_list {
	struct kvb_mix *m;
	int n;
};

static int add_mix(const char *item, void *arg, char *err, size_t errlen)
{
	struct mix_list *l = arg;
	struct kvb_mix *nm = realloc(l->m, (l->n + 1) * sizeof(*nm));

	if (!nm)
		return kvb_fail(err, errlen, "out of memory");
	l->m = nm;
	if (kvb_parse_mix(item, &l->m[l->n], err, errlen))
		return -1;
	l->n++;
	return 0;
}

int kvb_parse_mixes(const char *s, struct kvb_mix **mixes, int *n,
		    char *err, size_t errlen)
{
	struct mix_list l = { NULL, 0 };

	if (kvb_each_item(s, add_mix, &l, err, errlen)) {
		free(l.m);
		return -1;
	}
	*mixes = l.m;
	*n = l.n;
	return 0;
}

/* "uniform", "zipf" (theta 0.99) or "zipf:THETA" */
int kvb_parse_dist(const char *s, enum kvb_dist *dist, double *theta,
		   char *err, size_t errlen)
{
	char *end;
	double t;

	if (!strcmp(s, "uniform")) {
		*dist = KVB_UNIFORM;
		*theta = 0;
		return 0;
	}
	if (!strcmp(s, "zipf")) {
		*dist = KVB_ZIPF;
		*theta = 0.99;
		return 0;
	}
	if (strncmp(s, "zipf:", 5))
		return kvb_fail(err, errlen, "'%s' is not uniform, zipf or zipf:THETA", s);
	errno = 0;
	t = strtod(s + 5, &end);
	if (errno || end == s + 5 || *end || !isfinite(t) || t < 0 || t > 10)
		return kvb_fail(err, errlen, "'%s': THETA must be a number in 0..10", s);
	*dist = KVB_ZIPF;
	*theta = t;
	return 0;
}

/* A preset by name or alias, or "ycsb" (all of ycsb-*): each once. */
static int add_workload(const char *item, void *arg, char *err, size_t errlen)
{
	struct mix_list *l = arg;
	int ycsb = !strcmp(item, "ycsb"), found = 0, i, j;
	char known[256];

	for (i = 0; i < kvb_nworkloads; i++) {
		const struct kvb_workload *w = &kvb_workloads[i];

		if (!(ycsb ? !strncmp(w->name, "ycsb-", 5) :
		      !strcmp(item, w->name) || (w->alias && !strcmp(item, w->alias))))
			continue;
		found = 1;
		for (j = 0; j < l->n && l->m[j].wl != w; j++)
			;
		if (j < l->n)
			continue;
		l->m[l->n] = w->mix;
		l->m[l->n++].wl = w;
	}
	if (found)
		return 0;
	kvb_workload_list(known, sizeof(known));
	return kvb_fail(err, errlen,
			"'%s' is not a workload (known: %s; ycsb: all of ycsb-*)",
			item, known);
}

/*
 * Comma-separated presets, by name or alias ("a,b,c", "ycsb-d,seed"): one
 * mix each, in the order given, each once. "ycsb" is a, b, c, d and f.
 */
int kvb_parse_workloads(const char *s, struct kvb_mix **mixes, int *n,
			char *err, size_t errlen)
{
	struct mix_list l = { calloc(kvb_nworkloads, sizeof(*l.m)), 0 };

	if (!l.m)
		return kvb_fail(err, errlen, "out of memory");
	if (kvb_each_item(s, add_workload, &l, err, errlen)) {
		free(l.m);
		return -1;
	}
	*mixes = l.m;
	*n = l.n;
	return 0;
}

/* "ioctl", "uring", "ioctl,uring" or "both" */
int kvb_parse_io(const char *s, unsigned int *ios, char *err, size_t errlen)
{
	if (!strcmp(s, "ioctl"))
		*ios = 1U << KVB_IO_IOCTL;
	else if (!strcmp(s, "uring"))
		*ios = 1U << KVB_IO_URING;
	else if (!strcmp(s, "both") || !strcmp(s, "ioctl,uring"))
		*ios = 1U << KVB_IO_IOCTL | 1U << KVB_IO_URING;
	else
		return kvb_fail(err, errlen, "'%s' is not ioctl, uring or both", s);
	return 0;
}

/*
 * The names of the table's rows that are kernel backends (kernel 1) or
 * not (0), each followed by sep: "nop, bpf-htab, user-rwlock, user-owner, ".
 */
static size_t row_names(char *buf, size_t len, int kernel, const char *sep)
{
	size_t at = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < kvb_ntarget_table && at < len; i++) {
		const struct kvb_target_row *row = &kvb_target_table[i];
		int is_kernel = row->ops == &kvb_kernel_ops;

		if (is_kernel == kernel)
			at += snprintf(buf + at, len - at, "%s%s", row->name, sep);
	}
	return at < len ? at : len;
}

/* "nop, rwlock, ..., all, kernel, baselines, peers, current" */
static void known_list(char *buf, size_t len)
{
	size_t at = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < kvb_ntarget_table && at < len; i++)
		at += snprintf(buf + at, len - at, "%s, ", kvb_target_table[i].name);
	for (i = 0; i < kvb_ntarget_groups && at < len; i++)
		at += snprintf(buf + at, len - at, "%s, ", kvb_target_groups[i]);
	if (at < len)
		snprintf(buf + at, len - at, "current");
}

static int valid_name(const char *s)
{
	size_t len = strlen(s);

	if (!len || len >= KVB_BASE_MAX)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || *s == '-'))
			return 0;
	return 1;
}

/* What a -b list has parsed so far. */
struct target_list {
	struct kvb_target *t;
	int n;
};

/* By name: a known target's row, or a kernel backend's; each once. */
static int add_target(struct target_list *l, const char *name, char *err,
		      size_t errlen)
{
	struct kvb_target *nt;
	int i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->t[i].name, name))
			return 0;
	nt = realloc(l->t, (l->n + 1) * sizeof(*nt));
	if (!nt)
		return kvb_fail(err, errlen, "out of memory");
	l->t = nt;
	if (kvb_target_by_name(name, &nt[l->n]))
		return kvb_fail(err, errlen, "out of memory");
	l->n++;
	return 0;
}

/* One -b item: a target, a group of them, or a kernel backend's name. */
static int add_targets(const char *item, void *arg, char *err, size_t errlen)
{
	int all = !strcmp(item, "all"), found = 0, i;
	char known[256];

	for (i = 0; i < kvb_ntarget_table; i++) {
		const struct kvb_target_row *row = &kvb_target_table[i];

		if (all || !strcmp(item, row->name) || !strcmp(item, row->ops->group)) {
			if (add_target(arg, row->name, err, errlen))
				return -1;
			found = 1;
		}
	}
	if (found)
		return 0;
	if (valid_name(item))
		return add_target(arg, item, err, errlen);
	known_list(known, sizeof(known));
	return kvb_fail(err, errlen, "'%s' is not a backend name (known: %s)",
			item, known);
}

/*
 * Comma-separated targets. "all" is every known one, "kernel" the kernel
 * backends, "baselines" nop + the userspace maps, "peers" bpf-htab (a
 * row's group), "current" whatever backend the module runs now (not
 * switched). Any other lower-case name is taken as a kernel backend the
 * module may know.
 */
int kvb_parse_targets(const char *s, struct kvb_target **targets, int *n,
		      char *err, size_t errlen)
{
	struct target_list l = { NULL, 0 };

	if (kvb_each_item(s, add_targets, &l, err, errlen)) {
		free(l.t);
		return -1;
	}
	*targets = l.t;
	*n = l.n;
	return 0;
}

/*
 * Edits from a to b, a swap of two neighbours counting one (optimal string
 * alignment): "rwlcok" is 1 from "rwlock". Names are short (< KVB_BASE_MAX).
 */
static unsigned int name_distance(const char *a, const char *b)
{
	unsigned int d[KVB_BASE_MAX + 1][KVB_BASE_MAX + 1];
	size_t la = strlen(a), lb = strlen(b), i, j;

	if (la > KVB_BASE_MAX || lb > KVB_BASE_MAX)
		return KVB_BASE_MAX;
	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			unsigned int v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[la][lb];
}

/* Is name a word of the space-separated list? */
static int in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *w = list;

	while (*w) {
		size_t wl = strcspn(w, " ");

		if (wl == n && !strncmp(w, name, n))
			return 1;
		w += wl;
		w += strspn(w, " ");
	}
	return 0;
}

/* The word of list (or of the tool's targets and groups) nearest to name. */
static void nearest(const char *list, const char *name, char *best, size_t len)
{
	unsigned int bd = 3, dist;
	char word[KVB_BASE_MAX];
	const char *w = list;
	int i;

	best[0] = 0;
	while (*w) {
		size_t wl = strcspn(w, " ");

		snprintf(word, sizeof(word), "%.*s", (int)wl, w);
		dist = name_distance(name, word);
		if (dist < bd) {
			bd = dist;
			snprintf(best, len, "%s", word);
		}
		w += wl;
		w += strspn(w, " ");
	}
	for (i = 0; i < kvb_ntarget_table; i++) {
		dist = name_distance(name, kvb_target_table[i].name);
		if (kvb_target_table[i].ops != &kvb_kernel_ops && dist < bd) {
			bd = dist;
			snprintf(best, len, "%s", kvb_target_table[i].name);
		}
	}
}

/* A -b word that is no kernel backend: a group, current, another target. */
static int not_a_backend(const char *name)
{
	int i;

	if (!strcmp(name, "current"))
		return 1;
	for (i = 0; i < kvb_ntarget_groups; i++)
		if (!strcmp(name, kvb_target_groups[i]))
			return 1;
	for (i = 0; i < kvb_ntarget_table; i++)
		if (!strcmp(name, kvb_target_table[i].name))
			return kvb_target_table[i].ops != &kvb_kernel_ops;
	return 0;
}

/* What kvb_check_backends() checks each name against. */
struct offer {
	char offered[512];	/* the backends, space-separated */
	int from_module;	/* offered[] is the module's sysfs backends */
};

static int check_backend(const char *item, void *arg, char *err, size_t errlen)
{
	const struct offer *o = arg;
	char dym[KVB_BASE_MAX + 32], others[256], best[KVB_BASE_MAX];
	size_t at;

	if (not_a_backend(item) || in_list(o->offered, item))
		return 0;
	nearest(o->offered, item, best, sizeof(best));
	dym[0] = 0;
	if (best[0])
		snprintf(dym, sizeof(dym), " (did you mean '%s'?)", best);
	at = row_names(others, sizeof(others), 0, " ");
	snprintf(others + at, sizeof(others) - at, "current");
	return kvb_fail(err, errlen,
			"'%s': no such backend%s; %s %s; other targets: %s; groups: all kernel baselines peers",
			item, dym,
			o->from_module ? "the module offers" :
			"the module is not loaded (or has no backends file); the tool knows",
			o->offered, others);
}

/*
 * The kernel backends the -b list names, against what the module offers:
 * its sysfs file backends (one line of names) when it is loaded, else the
 * tool's own list. So that a misspelt name fails at once, naming what
 * there is, and not when its turn comes in the run. Only the names given:
 * a group ("kernel", "all") stands for the tool's backends, and one the
 * module lacks fails in the run as before. 0, or -1 with the message in
 * err.
 */
int kvb_check_backends(const char *list, const char *sysfs, char *err,
		       size_t errlen)
{
	char path[512];
	struct offer o;
	size_t at;

	snprintf(path, sizeof(path), "%s/backends", sysfs);
	o.from_module = !kvb_read_line(path, o.offered, sizeof(o.offered)) &&
			o.offered[0];
	if (!o.from_module) {
		at = row_names(o.offered, sizeof(o.offered), 1, " ");
		o.offered[at ? at - 1 : 0] = 0;
	}
	return kvb_each_item(list, check_backend, &o, err, errlen);
}

int kvb_parse_fdmodes(const char *s, struct kvb_ulist *out,
		      char *err, size_t errlen)
{
	unsigned int *v = NULL;

	if (!strcmp(s, "per-thread") || !strcmp(s, "shared")) {
		v = malloc(sizeof(*v));
		if (v)
			v[0] = strcmp(s, "shared") ? KVB_FD_PER_THREAD : KVB_FD_SHARED;
		out->n = 1;
	} else if (!strcmp(s, "both") || !strcmp(s, "per-thread,shared")) {
		v = malloc(2 * sizeof(*v));
		if (v) {
			v[0] = KVB_FD_PER_THREAD;
			v[1] = KVB_FD_SHARED;
		}
		out->n = 2;
	} else {
		return kvb_fail(err, errlen, "'%s' is not per-thread, shared or both", s);
	}
	if (!v)
		return kvb_fail(err, errlen, "out of memory");
	out->v = v;
	return 0;
}

/* --order: "shuffled" or "sequential" */
int kvb_parse_order(const char *s, enum kvb_order *order, char *err, size_t errlen)
{
	if (!strcmp(s, "shuffled")) {
		*order = KVB_ORDER_SHUFFLED;
	} else if (!strcmp(s, "sequential")) {
		*order = KVB_ORDER_SEQUENTIAL;
	} else {
		snprintf(err, errlen, "'%s': must be shuffled or sequential", s);
		return -1;
	}
	return 0;
}
