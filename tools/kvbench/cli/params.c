// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench: parsing of the bench options. Every parser returns 0, or -1 with
 * a message (without the option name) in err.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kvbench.h"

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* A decimal number, or "max" meaning max_value. */
static int parse_one(const char *s, const char *end, unsigned int max_value,
		     unsigned long *out)
{
	unsigned long v = 0;
	const char *c;

	if (end - s == 3 && !strncmp(s, "max", 3)) {
		*out = max_value;
		return 0;
	}
	if (s == end)
		return -1;
	for (c = s; c < end; c++) {
		if (*c < '0' || *c > '9')
			return -1;
		/* saturated: a number too large is out of range, as -r says */
		if (v <= 1000000000UL)
			v = v * 10 + (*c - '0');
	}
	*out = v;
	return 0;
}

/* "pow2": 1, 2, 4, ... below max_value, then max_value (at least 1). */
static int append_pow2(struct kvb_ulist *l, unsigned int lo, unsigned int hi,
		       unsigned int max_value, char *err, size_t errlen)
{
	unsigned long v;
	unsigned int *nv;

	if (!max_value)
		max_value = 1;
	if (lo > 1 || max_value > hi) {
		free(l->v);
		return fail(err, errlen, "'pow2' (1..%u) is outside %u..%u",
			    max_value, lo, hi);
	}
	/* 32 powers of two at most, plus max_value */
	if (l->n + 33 > 4096) {
		free(l->v);
		return fail(err, errlen, "list too long");
	}
	nv = realloc(l->v, (l->n + 33) * sizeof(*nv));
	if (!nv) {
		free(l->v);
		return fail(err, errlen, "out of memory");
	}
	l->v = nv;
	for (v = 1; v < max_value; v *= 2)
		l->v[l->n++] = v;
	l->v[l->n++] = max_value;
	return 0;
}

/*
 * "1,2,4", "1-8", "max", "1-max", "1,4-6": a list of numbers in lo..hi.
 * max_value is what "max" stands for; "pow2" is 1, 2, 4, ... below it, then
 * max_value itself (1,2,4,6 for 6).
 */
int kvb_parse_ulist(const char *s, unsigned int lo, unsigned int hi,
		    unsigned int max_value, struct kvb_ulist *out,
		    char *err, size_t errlen)
{
	struct kvb_ulist l = { NULL, 0 };
	const char *p = s;

	if (!*s)
		return fail(err, errlen, "empty list");
	for (;;) {
		const char *comma = strchr(p, ',');
		const char *end = comma ? comma : p + strlen(p);
		const char *dash = memchr(p, '-', end - p);
		unsigned long a, b, v;
		unsigned int *nv;

		if (end - p == 4 && !strncmp(p, "pow2", 4)) {
			if (append_pow2(&l, lo, hi, max_value, err, errlen))
				return -1;
			if (!comma)
				break;
			p = comma + 1;
			continue;
		}
		if (dash) {
			if (parse_one(p, dash, max_value, &a) ||
			    parse_one(dash + 1, end, max_value, &b))
				goto bad;
		} else {
			if (parse_one(p, end, max_value, &a))
				goto bad;
			b = a;
		}
		if (a > b) {
			free(l.v);
			return fail(err, errlen, "'%.*s': a range runs from low to high (%lu-%lu)",
				    (int)(end - p), p, b, a);
		}
		if (a < lo || b > hi) {
			free(l.v);
			return fail(err, errlen, "'%.*s' is outside %u..%u",
				    (int)(end - p), p, lo, hi);
		}
		if (l.n + (b - a + 1) > 4096) {
			free(l.v);
			return fail(err, errlen, "list too long");
		}
		nv = realloc(l.v, (l.n + (b - a + 1)) * sizeof(*nv));
		if (!nv) {
			free(l.v);
			return fail(err, errlen, "out of memory");
		}
		l.v = nv;
		for (v = a; v <= b; v++)
			l.v[l.n++] = v;
		if (!comma)
			break;
		p = comma + 1;
	}
	*out = l;
	return 0;
bad:
	free(l.v);
	return fail(err, errlen,
		    "'%s' is not a list of numbers or ranges (like 1,2,4 or 1-8 or max)",
		    s);
}

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
		return fail(err, errlen, "'%s' has no operations (all weights are 0)", s);
	*mix = (struct kvb_mix){ .get = w[0], .set = w[1], .del = w[2] };
	return 0;
bad:
	return fail(err, errlen,
		    "'%s' is not GET:SET[:DEL] weights (like 90:10) or get/set/del", s);
}

int kvb_parse_mixes(const char *s, struct kvb_mix **mixes, int *n,
		    char *err, size_t errlen)
{
	char *copy = strdup(s), *tok, *save = NULL;
	struct kvb_mix *m = NULL, *nm;
	int cnt = 0;

	if (!copy)
		return fail(err, errlen, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		nm = realloc(m, (cnt + 1) * sizeof(*m));
		if (!nm) {
			fail(err, errlen, "out of memory");
			goto out_free;
		}
		m = nm;
		if (kvb_parse_mix(tok, &m[cnt], err, errlen))
			goto out_free;
		cnt++;
	}
	if (!cnt) {
		fail(err, errlen, "empty list");
		goto out_free;
	}
	free(copy);
	*mixes = m;
	*n = cnt;
	return 0;
out_free:
	free(m);
	free(copy);
	return -1;
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
		return fail(err, errlen, "'%s' is not uniform, zipf or zipf:THETA", s);
	errno = 0;
	t = strtod(s + 5, &end);
	if (errno || end == s + 5 || *end || !isfinite(t) || t < 0 || t > 10)
		return fail(err, errlen, "'%s': THETA must be a number in 0..10", s);
	*dist = KVB_ZIPF;
	*theta = t;
	return 0;
}

/*
 * The --workload presets. YCSB's core workloads (workloads/workloada..f in
 * its repository, CoreWorkload's defaults: zipfian constant 0.99) that a
 * map can run: E (short scans) cannot, a hash map has no order. The
 * weights are YCSB's proportions, in percent: read (GET), update (SET of
 * a key), insert (SET of a new newest key), read-modify-write.
 */
const struct kvb_workload kvb_workloads[] = {
	{ "ycsb-a", "a", "update heavy: a session store recording recent actions",
	  { .get = 50, .set = 50 }, KVB_SCRAMBLED, 0.99, 0 },
	{ "ycsb-b", "b", "read mostly: photo tagging (reading tags, adding one now and then)",
	  { .get = 95, .set = 5 }, KVB_SCRAMBLED, 0.99, 0 },
	{ "ycsb-c", "c", "read only: a user profile cache",
	  { .get = 100 }, KVB_SCRAMBLED, 0.99, 0 },
	{ "ycsb-d", "d", "read latest: user status updates (people read the newest)",
	  { .get = 95, .ins = 5 }, KVB_LATEST, 0.99, 0 },
	{ "ycsb-f", "f", "read-modify-write: a user database (read a record, change it, write it)",
	  { .get = 50, .rmw = 50 }, KVB_SCRAMBLED, 0.99, 0 },
	{ "seed", NULL, "the seed experiment: GET only, uniform keys, a thread per CPU",
	  { .get = 100 }, KVB_UNIFORM, 0, 1 },
};

const int kvb_nworkloads = ARRAY_SIZE(kvb_workloads);

/* "ycsb-a (a), ycsb-b (b), ..., seed" */
static void workload_list(char *buf, size_t len)
{
	size_t at = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < kvb_nworkloads && at < len; i++) {
		const struct kvb_workload *w = &kvb_workloads[i];

		at += snprintf(buf + at, len - at, "%s%s%s%s%s", i ? ", " : "",
			       w->name, w->alias ? " (" : "", w->alias ? w->alias : "",
			       w->alias ? ")" : "");
	}
}

/*
 * Comma-separated presets, by name or alias ("a,b,c", "ycsb-d,seed"): one
 * mix each, in the order given, each once. "ycsb" is a, b, c, d and f.
 */
int kvb_parse_workloads(const char *s, struct kvb_mix **mixes, int *n,
			char *err, size_t errlen)
{
	char *copy = strdup(s), *tok, *save = NULL;
	struct kvb_mix *m = calloc(kvb_nworkloads, sizeof(*m));
	int cnt = 0, i, j;

	if (!copy || !m) {
		fail(err, errlen, "out of memory");
		goto out_free;
	}
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int ycsb = !strcmp(tok, "ycsb"), found = 0;

		for (i = 0; i < kvb_nworkloads; i++) {
			const struct kvb_workload *w = &kvb_workloads[i];

			if (!(ycsb ? !strncmp(w->name, "ycsb-", 5) :
			      !strcmp(tok, w->name) || (w->alias && !strcmp(tok, w->alias))))
				continue;
			found = 1;
			for (j = 0; j < cnt && m[j].wl != w; j++)
				;
			if (j < cnt)
				continue;
			m[cnt] = w->mix;
			m[cnt++].wl = w;
		}
		if (!found) {
			char known[256];

			workload_list(known, sizeof(known));
			fail(err, errlen, "'%s' is not a workload (known: %s; ycsb: all of ycsb-*)",
			     tok, known);
			goto out_free;
		}
	}
	if (!cnt) {
		fail(err, errlen, "empty list");
		goto out_free;
	}
	free(copy);
	*mixes = m;
	*n = cnt;
	return 0;
out_free:
	free(m);
	free(copy);
	return -1;
}

/* A preset by its name (not an alias: the reports name it so), or NULL */
const struct kvb_workload *kvb_workload_by_name(const char *name)
{
	int i;

	for (i = 0; i < kvb_nworkloads; i++)
		if (!strcmp(name, kvb_workloads[i].name))
			return &kvb_workloads[i];
	return NULL;
}

const char *kvb_dist_name(enum kvb_dist dist)
{
	switch (dist) {
	case KVB_ZIPF:
		return "zipf";
	case KVB_LATEST:
		return "latest";
	case KVB_SCRAMBLED:
		return "scrambled-zipf";
	default:
		return "uniform";
	}
}

/*
 * A duration: a number of seconds, or a number with one of the units us,
 * ms, s or m (minutes): "2", "1.5s", "500ms", "10m". Nothing else: "2h",
 * "1M" or "5sec" is an error, not a guess.
 */
int kvb_parse_seconds(const char *s, double *sec, char *err, size_t errlen)
{
	static const struct {
		const char *unit;
		double mul;
	} units[] = {
		{ "", 1 }, { "us", 0.000001 }, { "ms", 0.001 }, { "s", 1 }, { "m", 60 },
	};
	char *end;
	double v;
	size_t i;

	if ((*s < '0' || *s > '9') && *s != '.')
		goto bad;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		goto bad;
	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (!strcmp(end, units[i].unit))
			break;
	if (i == ARRAY_SIZE(units))
		return fail(err, errlen,
			    "'%s' is not a duration: a number of seconds, or with one of the units us, ms, s, m (minutes), like 500ms, 1.5s or 10m",
			    s);
	v *= units[i].mul;
	if (v > 86400)
		return fail(err, errlen, "'%s' is more than a day", s);
	*sec = v;
	return 0;
bad:
	return fail(err, errlen, "'%s' is not a duration (like 2, 500ms, 1.5s or 10m)", s);
}

/*
 * A decimal count with an optional suffix: k, M, G are SI (x1000, x10^6,
 * x10^9), Ki, Mi, Gi binary (x1024, x2^20, x2^30): "64", "4Ki", "1M". Any
 * other suffix ("1m", "4K", "2kb") is an error: "m" could be mega or
 * mebi, and is minutes in a duration.
 */
int kvb_parse_count(const char *s, unsigned long long lo, unsigned long long hi,
		    unsigned long long *out, char *err, size_t errlen)
{
	static const struct {
		const char *suffix;
		unsigned long long mul;
	} suffixes[] = {
		{ "", 1 },
		{ "k", 1000ULL }, { "M", 1000000ULL }, { "G", 1000000000ULL },
		{ "Ki", 1ULL << 10 }, { "Mi", 1ULL << 20 }, { "Gi", 1ULL << 30 },
	};
	unsigned long long v, mul;
	char *end;
	size_t i;

	if (*s < '0' || *s > '9')
		goto bad;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		goto bad;
	for (i = 0; i < ARRAY_SIZE(suffixes); i++)
		if (!strcmp(end, suffixes[i].suffix))
			break;
	if (i == ARRAY_SIZE(suffixes))
		return fail(err, errlen,
			    "'%s' has an unknown suffix '%s': use k, M, G (x1000) or Ki, Mi, Gi (x1024)",
			    s, end);
	mul = suffixes[i].mul;
	if (v > hi / mul || v * mul < lo || v * mul > hi)
		return fail(err, errlen, "'%s' is outside %llu..%llu", s, lo, hi);
	*out = v * mul;
	return 0;
bad:
	return fail(err, errlen, "'%s' is not a number (like 64, 4Ki or 1M)", s);
}

/*
 * The target table: every target -b knows by name, in the order "all"
 * runs them. Any other lower-case name may be a kernel backend the module
 * offers (kvb_check_backends() says whether).
 */
static const struct {
	const char *name;
	const struct kvb_target_ops *ops;
} known_targets[] = {
	{ "nop", &kvb_nop_ops },
	{ "rwlock", &kvb_kernel_ops },
	{ "rcu", &kvb_kernel_ops },
	{ "kthread", &kvb_kernel_ops },
	{ "kthread-percpu", &kvb_kernel_ops },
	{ "rhashtable", &kvb_kernel_ops },
	{ "combining", &kvb_kernel_ops },
	{ "bpf-htab", &kvb_bpf_htab_ops },
	{ "user-rwlock", &kvb_urw_ops },
	{ "user-owner", &kvb_owner_ops },
};

static const char * const target_groups[] = { "all", "kernel", "baselines", "peers" };

/* By name: a known target's row, or a kernel backend's. */
static int add_target(struct kvb_target **t, int *n, const char *name)
{
	struct kvb_target *nt;
	int i;

	for (i = 0; i < *n; i++)
		if (!strcmp((*t)[i].name, name))
			return 0;
	nt = realloc(*t, (*n + 1) * sizeof(**t));
	if (!nt)
		return -1;
	*t = nt;
	if (kvb_target_by_name(name, &nt[*n]))
		return -1;
	(*n)++;
	return 0;
}

/* A known target, or a kernel backend of that name: 0; -1: bad name. */
int kvb_target_by_name(const char *name, struct kvb_target *t)
{
	const struct kvb_target_ops *ops = &kvb_kernel_ops;
	int i;

	for (i = 0; i < (int)ARRAY_SIZE(known_targets); i++)
		if (!strcmp(name, known_targets[i].name))
			ops = known_targets[i].ops;
	if (strlen(name) >= sizeof(t->base))
		return -1;
	memset(t, 0, sizeof(*t));
	t->kind = ops->kind;
	t->ops = ops;
	t->io = ops->flags & KVB_T_DEVICE ? KVB_IO_IOCTL : KVB_IO_NONE;
	kvb_target_rename(t, name);
	return 0;
}

/*
 * "rcu" through ioctls; "rcu/uring-qd16" through io_uring, 16 commands in
 * flight per thread; "rcu/uring-qd16-sqpoll" with a kernel SQ thread.
 */
void kvb_target_name(char *buf, size_t len, const char *base, enum kvb_io io,
		     unsigned int qd, int sqpoll)
{
	if (io != KVB_IO_URING)
		snprintf(buf, len, "%s", base);
	else
		snprintf(buf, len, "%s/uring-qd%u%s", base, qd, sqpoll ? "-sqpoll" : "");
}

/* A new backend name (current -> rcu), the io kept. */
void kvb_target_rename(struct kvb_target *t, const char *base)
{
	snprintf(t->base, sizeof(t->base), "%s", base);
	kvb_target_name(t->name, sizeof(t->name), t->base, t->io, t->qd, t->sqpoll);
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
		return fail(err, errlen, "'%s' is not ioctl, uring or both", s);
	return 0;
}

/*
 * The targets as --io, --qd and --sqpoll make them: each target that has
 * the device (and so a ->uring row) once through ioctls (--io ioctl) and
 * once per queue depth through io_uring (--io uring), side by side; the
 * others once, as they are.
 */
int kvb_expand_io(struct kvb_target **targets, int *n, unsigned int ios,
		  const struct kvb_ulist *qds, int sqpoll, char *err,
		  size_t errlen)
{
	int per = qds->n + 1, i, j, cnt = 0, any = 0;
	struct kvb_target *t = calloc((size_t)*n * per, sizeof(*t));

	if (!t)
		return fail(err, errlen, "out of memory");
	for (i = 0; i < *n; i++) {
		const struct kvb_target *x = &(*targets)[i];

		if (!x->ops->uring || (ios & 1U << KVB_IO_IOCTL))
			t[cnt++] = *x;
		if (!x->ops->uring || !(ios & 1U << KVB_IO_URING))
			continue;
		any = 1;
		for (j = 0; j < qds->n; j++) {
			struct kvb_target *u = &t[cnt++];

			*u = *x;
			u->ops = x->ops->uring;
			u->kind = u->ops->kind;
			u->io = KVB_IO_URING;
			u->qd = qds->v[j];
			u->sqpoll = sqpoll;
			kvb_target_rename(u, x->base);
		}
	}
	if ((ios & 1U << KVB_IO_URING) && !any) {
		free(t);
		return fail(err, errlen,
			    "no target runs on the device (nop or a kernel backend), so none can use io_uring");
	}
	free(*targets);
	*targets = t;
	*n = cnt;
	return 0;
}

/* "-" for a target without the device (the JSON says null). */
const char *kvb_io_name(enum kvb_io io)
{
	switch (io) {
	case KVB_IO_IOCTL:
		return "ioctl";
	case KVB_IO_URING:
		return "uring";
	default:
		return "-";
	}
}

/* "known: nop, rwlock, ..., all, kernel, baselines, peers, current" */
static void known_list(char *buf, size_t len)
{
	size_t at = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < (int)ARRAY_SIZE(known_targets) && at < len; i++)
		at += snprintf(buf + at, len - at, "%s, ", known_targets[i].name);
	for (i = 0; i < (int)ARRAY_SIZE(target_groups) && at < len; i++)
		at += snprintf(buf + at, len - at, "%s, ", target_groups[i]);
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
	char *copy = strdup(s), *tok, *save = NULL;
	struct kvb_target *t = NULL;
	int cnt = 0, i, r = 0;

	if (!copy)
		return fail(err, errlen, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok && !r;
	     tok = strtok_r(NULL, ",", &save)) {
		int all = !strcmp(tok, "all");
		int found = 0;

		for (i = 0; i < (int)ARRAY_SIZE(known_targets); i++) {
			const char *name = known_targets[i].name;
			const struct kvb_target_ops *ops = known_targets[i].ops;

			if (all || !strcmp(tok, name) || !strcmp(tok, ops->group)) {
				r |= add_target(&t, &cnt, name);
				found = 1;
			}
		}
		if (found)
			continue;
		if (!valid_name(tok)) {
			char known[256];

			known_list(known, sizeof(known));
			fail(err, errlen, "'%s' is not a backend name (known: %s)",
			     tok, known);
			goto out_free;
		}
		r |= add_target(&t, &cnt, tok);
	}
	if (r) {
		fail(err, errlen, "out of memory");
		goto out_free;
	}
	if (!cnt) {
		fail(err, errlen, "empty list");
		goto out_free;
	}
	free(copy);
	*targets = t;
	*n = cnt;
	return 0;
out_free:
	free(t);
	free(copy);
	return -1;
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
	for (i = 0; i < (int)ARRAY_SIZE(known_targets); i++) {
		dist = name_distance(name, known_targets[i].name);
		if (known_targets[i].ops != &kvb_kernel_ops && dist < bd) {
			bd = dist;
			snprintf(best, len, "%s", known_targets[i].name);
		}
	}
}

/* A -b word that is no kernel backend: a group, current, another target. */
static int not_a_backend(const char *name)
{
	int i;

	if (!strcmp(name, "current"))
		return 1;
	for (i = 0; i < (int)ARRAY_SIZE(target_groups); i++)
		if (!strcmp(name, target_groups[i]))
			return 1;
	for (i = 0; i < (int)ARRAY_SIZE(known_targets); i++)
		if (!strcmp(name, known_targets[i].name))
			return known_targets[i].ops != &kvb_kernel_ops;
	return 0;
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
	char path[512], offered[512], dym[KVB_BASE_MAX + 32], others[256];
	char *copy = strdup(list), *tok, *save = NULL;
	int from_module, j, ret = 0;
	size_t at = 0;

	if (!copy)
		return fail(err, errlen, "out of memory");
	snprintf(path, sizeof(path), "%s/backends", sysfs);
	from_module = !kvb_read_line(path, offered, sizeof(offered)) && offered[0];
	if (!from_module) {
		offered[0] = 0;
		for (j = 0; j < (int)ARRAY_SIZE(known_targets); j++)
			if (known_targets[j].ops == &kvb_kernel_ops && at < sizeof(offered))
				at += snprintf(offered + at, sizeof(offered) - at, "%s%s",
					       at ? " " : "", known_targets[j].name);
	}
	for (tok = strtok_r(copy, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		char best[KVB_BASE_MAX];

		if (not_a_backend(tok) || in_list(offered, tok))
			continue;
		nearest(offered, tok, best, sizeof(best));
		dym[0] = 0;
		if (best[0])
			snprintf(dym, sizeof(dym), " (did you mean '%s'?)", best);
		for (j = 0, at = 0; j < (int)ARRAY_SIZE(known_targets); j++)
			if (known_targets[j].ops != &kvb_kernel_ops && at < sizeof(others))
				at += snprintf(others + at, sizeof(others) - at, "%s ",
					       known_targets[j].name);
		if (at < sizeof(others))
			snprintf(others + at, sizeof(others) - at, "current");
		ret = fail(err, errlen,
			   "'%s': no such backend%s; %s %s; other targets: %s; groups: all kernel baselines peers",
			   tok, dym,
			   from_module ? "the module offers" :
			   "the module is not loaded (or has no backends file); the tool knows",
			   offered, others);
	}
	free(copy);
	return ret;
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
		return fail(err, errlen, "'%s' is not per-thread, shared or both", s);
	}
	if (!v)
		return fail(err, errlen, "out of memory");
	out->v = v;
	return 0;
}

void kvb_mix_name(const struct kvb_mix *mix, char *buf, size_t len)
{
	if (mix->wl)
		snprintf(buf, len, "%s", mix->wl->name);
	else if (mix->get && !mix->set && !mix->del)
		snprintf(buf, len, "get");
	else if (!mix->get && mix->set && !mix->del)
		snprintf(buf, len, "set");
	else if (!mix->get && !mix->set && mix->del)
		snprintf(buf, len, "del");
	else if (!mix->del)
		snprintf(buf, len, "%u:%u", mix->get, mix->set);
	else
		snprintf(buf, len, "%u:%u:%u", mix->get, mix->set, mix->del);
}

/*
 * The table's batch column and the case labels: "64" for a BATCH of 64
 * (1: single ops), "M64" for packed MGET/MSET/MDEL calls of 64 keys.
 */
void kvb_call_name(unsigned int batch, int multi, char *buf, size_t len)
{
	snprintf(buf, len, "%s%u", multi ? "M" : "", batch);
}

/* "-": a target that has no fd of the device (the JSON says null). */
const char *kvb_fd_name(enum kvb_fd fd)
{
	switch (fd) {
	case KVB_FD_SHARED:
		return "shared";
	case KVB_FD_NONE:
		return "-";
	default:
		return "per-thread";
	}
}

const char *kvb_kind_name(enum kvb_kind kind)
{
	switch (kind) {
	case KVB_NOP:
		return "floor";
	case KVB_KERNEL:
		return "kernel";
	case KVB_PEER:
		return "peer";
	default:
		return "userspace";
	}
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
