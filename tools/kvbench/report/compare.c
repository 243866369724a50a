// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench compare OLD.json NEW.json: did a change make something faster?
 * kvbench compare RUN.json --base rwlock: how do the backends of one run
 * compare with one of them?
 *
 * Like Go's benchstat: one row per case found on both sides (matched by
 * target, mix, threads, batch (or multi) and fd mode), the change of the
 * median throughput and per-thread latency, and a Mann-Whitney U test over
 * the runs of the case: "~" when the difference is not significant at
 * --alpha; then a geometric-mean row, the one-number summary of a table.
 *
 * A comparison is only worth something when the two sides ran the same
 * benchmark on the same machine: two reports that differ in their settings,
 * workload, kernel, CPU, accelerator or module parameters are refused (exit
 * 2, each difference listed) unless --force, which still lists them.
 *
 * The reports are read by the report model (benchjson.c), its one schema
 * check and case reader.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kvbench.h"

/* One case of a report, and the ops/s of each of its runs. */
struct cmp_case {
	char target[KVB_NAME_MAX];
	char mix[64];		/* the mix's name, and the result's workload if any */
	unsigned int threads, batch;
	int multi;		/* "multi": true (packed calls); absent: false */
	char fd[16];
	const double *runs;	/* into the report model */
	unsigned int n;
	int matched;
	const struct jnode *node;	/* the result, in the report's tree */
};

struct cmp_report {
	const char *path;
	struct kvb_rmodel m;	/* the report as read (benchjson.c) */
	struct cmp_case *c;
	int n;
	int dups;	/* cases seen twice: the first one counts */
};

/* Two cases compared: old (or the base) and new (or the target). */
struct cmp_pair {
	const struct cmp_case *o, *n;
	double mo, mn;		/* median ops/s */
	double ratio;		/* mn / mo */
	double d_tput, d_lat;	/* % change of the medians */
	double p, u, min_p;
	int significant;
	int group;		/* --base: the target's group; else 0 */
};

/* A geometric mean over the pairs of one group. */
struct cmp_geo {
	char target[KVB_NAME_MAX];	/* --base: the group's target */
	int rows;
	double old_ops, new_ops;	/* geometric means of the medians */
	double old_lat, new_lat;	/* and of their lat/op */
	double ratio;			/* of new/old, = new_ops / old_ops */
};

/* One field that differs (or could not be compared) between the reports. */
#define CMP_MAX_DIFF	48
struct cmp_diff {
	char field[256];
	char a[96], b[96];
	int cases;		/* a field of the cases: in how many; else 0 */
};

struct cmp_diffs {
	struct cmp_diff d[CMP_MAX_DIFF];	/* differences: refuse */
	int n, more;
	struct cmp_diff note[CMP_MAX_DIFF];	/* absent on one side: say so */
	int nnote, morenote;
	int hb_absent;		/* cases with hash_bits on one side only */
	int incomplete[2];	/* "complete": false (an interrupted run) */
};

static int same_case(const struct cmp_case *a, const struct cmp_case *b)
{
	return !strcmp(a->target, b->target) && !strcmp(a->mix, b->mix) &&
	       a->threads == b->threads && a->batch == b->batch &&
	       a->multi == b->multi && !strcmp(a->fd, b->fd);
}

static void report_free(struct cmp_report *r)
{
	free(r->c);
	r->c = NULL;
	r->n = 0;
	kvb_rmodel_free(&r->m);
}

/* obj's member key of any type, or NULL (a short name: compare reads many) */
static const struct jnode *member(const struct jnode *obj, const char *key)
{
	return kvb_json_member(obj, key);
}

/*
 * A report from text, through the report model (its schema check and
 * case reader): every case with runs, the first of two alike. 0, or -1
 * with a message in err.
 */
static int load_report_text(const char *text, struct cmp_report *r,
			    char *err, size_t errlen)
{
	int i, j;

	if (kvb_rmodel_parse(text, &r->m, err, errlen))
		return -1;
	r->c = calloc(r->m.n + 1, sizeof(*r->c));
	if (!r->c) {
		snprintf(err, errlen, "out of memory");
		report_free(r);
		return -1;
	}
	for (i = 0; i < r->m.n; i++) {
		const struct kvb_rcase *x = &r->m.c[i];
		struct cmp_case *c = &r->c[r->n];

		memset(c, 0, sizeof(*c));
		snprintf(c->target, sizeof(c->target), "%s", x->target);
		/* a workload preset is part of what the case ran, beside its mix */
		if (x->workload[0])
			snprintf(c->mix, sizeof(c->mix), "%s/%s", x->workload, x->mix);
		else
			snprintf(c->mix, sizeof(c->mix), "%s", x->mix);
		c->threads = x->threads;
		c->batch = x->batch;
		c->multi = x->multi;
		snprintf(c->fd, sizeof(c->fd), "%s", x->fd);
		c->runs = x->runs;
		c->n = x->nruns;
		c->node = x->node;
		for (j = 0; j < r->n && !same_case(&r->c[j], c); j++)
			;
		if (j < r->n || !c->n) {
			r->dups += j < r->n;
			continue;
		}
		r->n++;
	}
	return 0;
}

static int load_report(const char *path, struct cmp_report *r)
{
	char err[256], *text = kvb_slurp(path, err, sizeof(err));
	int ret = -1;

	memset(r, 0, sizeof(*r));
	r->path = path;
	if (text)
		ret = load_report_text(text, r, err, sizeof(err));
	free(text);
	if (ret)
		fprintf(stderr, "kvbench compare: %s: %s\n", path, err);
	return ret;
}

/*
 * The differences between two reports.
 */

static int jequal(const struct jnode *a, const struct jnode *b)
{
	int i;

	if (a->type != b->type)
		return 0;
	switch (a->type) {
	case J_NULL:
		return 1;
	case J_BOOL:
	case J_NUM:
		return a->num == b->num;
	case J_STR:
		return !strcmp(a->str, b->str);
	default:
		if (a->nkids != b->nkids)
			return 0;
		for (i = 0; i < a->nkids; i++)
			if ((a->type == J_OBJ && strcmp(a->kids[i].key, b->kids[i].key)) ||
			    !jequal(&a->kids[i], &b->kids[i]))
				return 0;
		return 1;
	}
}

/* A value, short, for a person: 1000000, 0.99, zipf, ycsb-a,ycsb-b, a=1 b=2 */
static size_t jfmt(char *buf, size_t len, const struct jnode *n)
{
	size_t k = 0;
	int i;

	if (!len)
		return 0;
	buf[0] = 0;
	if (!n)
		return snprintf(buf, len, "absent");
	switch (n->type) {
	case J_NULL:
		return snprintf(buf, len, "null");
	case J_BOOL:
		return snprintf(buf, len, "%s", n->num ? "true" : "false");
	case J_NUM:
		if (n->num == floor(n->num) && fabs(n->num) < 1e15)
			return snprintf(buf, len, "%.0f", n->num);
		return snprintf(buf, len, "%.6g", n->num);
	case J_STR:
		/* an empty string shows as one, not as nothing */
		return snprintf(buf, len, n->str[0] ? "%s" : "\"\"", n->str);
	default:
		/* a named object (a workload preset) by its name */
		if (n->type == J_OBJ && kvb_json_get(n, "name", J_STR))
			return snprintf(buf, len, "%s", kvb_json_get(n, "name", J_STR)->str);
		/* other objects as key=value, arrays as a,b */
		for (i = 0; i < n->nkids && k + 1 < len; i++) {
			const struct jnode *x = &n->kids[i];

			if (k)
				k += snprintf(buf + k, len - k, "%s", x->key ? " " : ",");
			if (x->key && k + 1 < len)
				k += snprintf(buf + k, len - k, "%s=", x->key);
			if (k + 1 < len)
				k += jfmt(buf + k, len - k, x);
		}
		return k < len ? k : len - 1;
	}
}

static void add_diff(struct cmp_diff *d, int *n, int *more, const char *field,
		     const struct jnode *a, const struct jnode *b)
{
	if (*n == CMP_MAX_DIFF) {
		(*more)++;
		return;
	}
	snprintf(d[*n].field, sizeof(d[*n].field), "%s", field);
	jfmt(d[*n].a, sizeof(d[*n].a), a);
	jfmt(d[*n].b, sizeof(d[*n].b), b);
	(*n)++;
}

/* A field of the matched cases: one line per pair of values, with a count. */
static void add_case_diff(struct cmp_diffs *d, const char *field, const struct jnode *a,
			  const struct jnode *b)
{
	char va[96], vb[96];
	int i;

	jfmt(va, sizeof(va), a);
	jfmt(vb, sizeof(vb), b);
	for (i = 0; i < d->n; i++) {
		if (d->d[i].cases && !strcmp(d->d[i].field, field) && !strcmp(d->d[i].a, va) &&
		    !strcmp(d->d[i].b, vb)) {
			d->d[i].cases++;
			return;
		}
	}
	i = d->n;
	add_diff(d->d, &d->n, &d->more, field, a, b);
	if (d->n > i)
		d->d[i].cases = 1;
}

/*
 * One field: a difference when both sides have it and the values differ.
 * Absent on one side (an older schema, or a module without that parameter)
 * means "unknown", not "different": it is a note, unless absent_differs
 * says that absence has a meaning of its own (no workload preset). Absent
 * and null both mean "none", so they are the same.
 */
static void diff_field(struct cmp_diffs *d, const char *field, const struct jnode *a,
		       const struct jnode *b, int absent_differs)
{
	const struct jnode *there = a ? a : b;

	if (!a && !b)
		return;
	if (a && b) {
		if (!jequal(a, b))
			add_diff(d->d, &d->n, &d->more, field, a, b);
		return;
	}
	if (there->type == J_NULL)
		return;
	if (absent_differs)
		add_diff(d->d, &d->n, &d->more, field, a, b);
	else
		add_diff(d->note, &d->nnote, &d->morenote, field, a, b);
}

/* The settings that change what a case measures; seed, repeat, budget do not. */
static const char * const cmp_params[] = {
	"keys", "key_size", "value_size", "dist", "theta", "duration_s", "warmup_s",
	"ops_per_thread", "sample_every", "pin",
};

static void diff_module_params(struct cmp_diffs *d, const struct jnode *a,
			       const struct jnode *b)
{
	char field[128];
	int side, i;

	if (a && a->type != J_OBJ)
		a = NULL;
	if (b && b->type != J_OBJ)
		b = NULL;
	if (!a || !b) {
		/* no module (the userspace targets), or an older report: unknown */
		if (a || b)
			add_diff(d->note, &d->nnote, &d->morenote,
				 "provenance.module_parameters", a, b);
		return;
	}
	for (side = 0; side < 2; side++) {
		const struct jnode *x = side ? b : a, *y = side ? a : b;

		for (i = 0; i < x->nkids; i++) {
			const char *key = x->kids[i].key;

			/* kvbench switches the backend itself, case by case */
			if (!strcmp(key, "backend"))
				continue;
			/* in both: seen from the first side */
			if (side && member(y, key))
				continue;
			snprintf(field, sizeof(field), "provenance.module_parameters.%s", key);
			if (side)
				diff_field(d, field, NULL, &x->kids[i], 0);
			else
				diff_field(d, field, &x->kids[i], member(y, key), 0);
		}
	}
}

static void case_name(char *buf, size_t len, const struct cmp_case *c)
{
	snprintf(buf, len, "%s %s threads=%u %s=%u fd=%s", c->target, c->mix,
		 c->threads, c->multi ? "multi" : "batch", c->batch, c->fd);
}

/*
 * The mixes of one name: member by member, so that a newer schema's extra
 * operations ("insert": 0, "rmw": 0) are not a difference from an older
 * report, which had none of them (absent means 0 here).
 */
static void diff_mix(struct cmp_diffs *d, const char *name, const struct jnode *a,
		     const struct jnode *b)
{
	char field[256];
	int side, i;

	if (!a || !b)
		return;
	for (side = 0; side < 2; side++) {
		const struct jnode *x = side ? b : a, *y = side ? a : b;

		for (i = 0; i < x->nkids; i++) {
			const struct jnode *k = &x->kids[i], *other = member(y, k->key);

			if (!strcmp(k->key, "name") || (side && other))
				continue;
			if (!other && k->type == J_NUM && !k->num)
				continue;
			if (other && jequal(k, other))
				continue;
			snprintf(field, sizeof(field), "mix %s: %s", name, k->key);
			add_diff(d->d, &d->n, &d->more, field, side ? other : k, side ? k : other);
		}
	}
}

/* The differences between reports o and n, whose cases are paired in p. */
/* A workload preset of the array by its name, or NULL */
static const struct jnode *workload_named(const struct jnode *arr, const char *name)
{
	int i;

	for (i = 0; i < arr->nkids; i++) {
		const struct jnode *w = kvb_json_get(&arr->kids[i], "name", J_STR);

		if (w && !strcmp(w->str, name))
			return &arr->kids[i];
	}
	return NULL;
}

/*
 * params.workloads: preset by preset and field by field, so that the one
 * that differs is named with its values ("params.workloads[ycsb-b].theta:
 * 0.99 vs 0.5"), not the list of names on both sides.
 */
static void diff_workloads(struct cmp_diffs *d, const struct jnode *a, const struct jnode *b)
{
	char field[256];
	int side, i, j;

	if (!a || !b || a->type != J_ARR || b->type != J_ARR) {
		diff_field(d, "params.workloads", a, b, 1);
		return;
	}
	for (side = 0; side < 2; side++) {
		const struct jnode *x = side ? b : a, *y = side ? a : b;

		for (i = 0; i < x->nkids; i++) {
			const struct jnode *name = kvb_json_get(&x->kids[i], "name", J_STR);
			const struct jnode *other = name ? workload_named(y, name->str) : NULL;

			if (!name || !other) {
				snprintf(field, sizeof(field), "params.workloads[%s]",
					 name ? name->str : "?");
				add_diff(d->d, &d->n, &d->more, field, side ? NULL : &x->kids[i],
					 side ? &x->kids[i] : NULL);
				continue;
			}
			if (side)
				continue;
			for (j = 0; j < x->kids[i].nkids; j++) {
				const struct jnode *k = &x->kids[i].kids[j];

				snprintf(field, sizeof(field), "params.workloads[%s].%s", name->str,
					 k->key);
				diff_field(d, field, k, member(other, k->key), 1);
			}
			for (j = 0; j < other->nkids; j++) {
				const struct jnode *k = &other->kids[j];

				if (member(&x->kids[i], k->key))
					continue;
				snprintf(field, sizeof(field), "params.workloads[%s].%s", name->str,
					 k->key);
				diff_field(d, field, NULL, k, 1);
			}
		}
	}
}

static void diff_reports(struct cmp_diffs *d, const struct cmp_report *o,
			 const struct cmp_report *n, const struct cmp_pair *p, int np)
{
	const struct jnode *po = member(&o->m.root, "params"), *pn = member(&n->m.root, "params");
	const struct jnode *vo = member(&o->m.root, "provenance");
	const struct jnode *vn = member(&n->m.root, "provenance");
	char field[256];
	unsigned int i;
	int j, k;

	for (i = 0; i < ARRAY_SIZE(cmp_params); i++) {
		snprintf(field, sizeof(field), "params.%s", cmp_params[i]);
		diff_field(d, field, member(po, cmp_params[i]), member(pn, cmp_params[i]), 0);
	}
	/* no preset is a workload too: the plain mixes of -m */
	diff_field(d, "params.workload", member(po, "workload"), member(pn, "workload"), 1);
	diff_workloads(d, member(po, "workloads"), member(pn, "workloads"));
	diff_field(d, "kernel", member(&o->m.root, "kernel"), member(&n->m.root, "kernel"), 0);
	diff_field(d, "machine", member(&o->m.root, "machine"), member(&n->m.root, "machine"), 0);
	diff_field(d, "provenance.cpu_model", member(vo, "cpu_model"), member(vn, "cpu_model"), 0);
	diff_field(d, "cpus", member(&o->m.root, "cpus"), member(&n->m.root, "cpus"), 0);
	diff_field(d, "provenance.nproc", member(vo, "nproc"), member(vn, "nproc"), 0);
	diff_field(d, "provenance.accel", member(vo, "accel"), member(vn, "accel"), 0);
	/* the kernel's build and boot: a release says neither */
	diff_field(d, "provenance.preempt", member(vo, "preempt"), member(vn, "preempt"), 0);
	diff_field(d, "provenance.hz", member(vo, "hz"), member(vn, "hz"), 0);
	diff_field(d, "provenance.kernel_cmdline", member(vo, "kernel_cmdline"),
		   member(vn, "kernel_cmdline"), 0);
	diff_module_params(d, member(vo, "module_parameters"), member(vn, "module_parameters"));
	/* a mix of the same name must be the same mix: once per name */
	for (j = 0; j < np; j++) {
		for (k = 0; k < j && strcmp(p[k].o->mix, p[j].o->mix); k++)
			;
		if (k == j)
			diff_mix(d, p[j].o->mix, member(p[j].o->node, "mix"),
				 member(p[j].n->node, "mix"));
	}
	for (j = 0; j < np; j++) {
		const struct jnode *a = member(p[j].o->node, "hash_bits");
		const struct jnode *b = member(p[j].n->node, "hash_bits");

		/* the table size the case ran with (in the reports since 0.1) */
		if (a && b && a->type == J_NUM && b->type == J_NUM && a->num != b->num)
			add_case_diff(d, "hash_bits (per case)", a, b);
		else if ((a && a->type == J_NUM) != (b && b->type == J_NUM) && (!a || !b))
			d->hb_absent++;
		/*
		 * A case's own distribution (a workload preset's), or the
		 * run's where the report has none per case.
		 */
		if (!member(p[j].o->node, "dist") && !member(p[j].n->node, "dist"))
			continue;
		a = member(p[j].o->node, "dist") ?: member(po, "dist");
		b = member(p[j].n->node, "dist") ?: member(pn, "dist");
		if (a && b && !jequal(a, b))
			add_case_diff(d, "dist (per case)", a, b);
		a = member(p[j].o->node, "theta") ?: member(po, "theta");
		b = member(p[j].n->node, "theta") ?: member(pn, "theta");
		if (a && b && !jequal(a, b))
			add_case_diff(d, "theta (per case)", a, b);
	}
	for (j = 0; j < 2; j++) {
		const struct jnode *c = member(j ? &n->m.root : &o->m.root, "complete");

		d->incomplete[j] = c && c->type == J_BOOL && !c->num;
	}
}

static void print_diffs(FILE *f, const char *indent, const struct cmp_diff *d, int n,
			int more)
{
	int i;

	for (i = 0; i < n; i++) {
		fprintf(f, "%s%s: %s vs %s", indent, d[i].field, d[i].a, d[i].b);
		if (d[i].cases == 1)
			fputs(" (1 case)", f);
		else if (d[i].cases)
			fprintf(f, " (%d cases)", d[i].cases);
		fputc('\n', f);
	}
	if (more)
		fprintf(f, "%s(and %d more)\n", indent, more);
}

/*
 * Units: one per column, from the column's largest value, so that a column
 * reads down without a change of suffix.
 */
struct cmp_unit {
	double scale;
	const char *sfx;
	int dec;
};

static void pick_unit(struct cmp_unit *u, double lo, double hi, int time)
{
	static const char * const ops[] = { "", "k", "M", "G" };
	static const char * const ns[] = { "ns", "us", "ms", "s" };
	int i, d1, d2;

	for (i = 0, u->scale = 1; i < 3 && hi >= u->scale * 1e3; i++)
		u->scale *= 1e3;
	u->sfx = time ? ns[i] : ops[i];
	if (!(hi > 0) || !(lo > 0)) {
		u->dec = 1;
		return;
	}
	/* four digits for the largest value, two for the smallest */
	d1 = 3 - (int)floor(log10(hi / u->scale));
	d2 = 1 - (int)floor(log10(lo / u->scale));
	u->dec = d1 > d2 ? d1 : d2;
	if (u->dec < 1)
		u->dec = 1;
	if (u->dec > 6)
		u->dec = 6;
}

static void fmt_unit(char *buf, size_t len, const struct cmp_unit *u, double v)
{
	snprintf(buf, len, "%.*f%s", u->dec, v / u->scale, u->sfx);
}

/*
 * "   1.235M ±2.1%  ": the median and half the width of the median's own
 * interval (order statistics; "~" after it: fewer than 6 runs, min..max,
 * below 95%), in 18 columns, the medians aligned whether or not an
 * interval follows.
 */
static void center(char *buf, size_t len, const struct cmp_unit *u,
		   const struct cmp_case *c)
{
	struct kvb_summary s;
	char m[32], ci[16] = "";

	kvb_summarize(c->runs, c->n, &s);
	fmt_unit(m, sizeof(m), u, s.median);
	if (isfinite(s.med_lo) && s.median > 0)
		snprintf(ci, sizeof(ci), "±%.1f%%%s",
			 (s.med_hi - s.med_lo) / 2 / s.median * 100,
			 s.med_level < 0.95 ? "~" : "");
	/* "±" is two bytes and one column */
	snprintf(buf, len, "%10s %-*s", m, 7 + !!ci[0], ci);
}

/* The comparison of one case; -1 when it cannot be computed. */
static int compare_case(struct cmp_pair *row, double alpha)
{
	const struct cmp_case *o = row->o, *n = row->n;
	struct kvb_hl hl;

	row->mo = kvb_median(o->runs, o->n);
	row->mn = kvb_median(n->runs, n->n);
	/*
	 * The change: the Hodges-Lehmann estimate of new/old (the median of
	 * the ratios of every pair of runs), the estimator of kvbench report;
	 * lat/op is threads x 1e9 / ops/s, its ratios the reciprocals.
	 */
	if (kvb_hl_ratio(n->runs, n->n, o->runs, o->n, alpha, &hl))
		return -1;
	row->ratio = hl.ratio;
	row->d_tput = (hl.ratio - 1) * 100;
	row->d_lat = (1 / hl.ratio - 1) * 100;
	if (kvb_mwu(o->runs, o->n, n->runs, n->n, &row->u, &row->p))
		return -1;
	row->min_p = kvb_mwu_min_p(o->n, n->n);
	row->significant = row->p <= alpha;
	return 0;
}

/* The geometric means of the pairs of group g. */
static void geomean(const struct cmp_pair *p, int np, int g, struct cmp_geo *geo)
{
	double so = 0, sn = 0, lo = 0, ln = 0;
	int i;

	geo->rows = 0;
	for (i = 0; i < np; i++) {
		if (p[i].group != g)
			continue;
		if (!geo->rows)
			snprintf(geo->target, sizeof(geo->target), "%s", p[i].n->target);
		so += log(p[i].mo);
		sn += log(p[i].mn);
		lo += log(p[i].o->threads * 1e9 / p[i].mo);
		ln += log(p[i].o->threads * 1e9 / p[i].mn);
		geo->rows++;
	}
	if (!geo->rows)
		return;
	geo->old_ops = exp(so / geo->rows);
	geo->new_ops = exp(sn / geo->rows);
	geo->old_lat = exp(lo / geo->rows);
	geo->new_lat = exp(ln / geo->rows);
	/* exp(mean(log(new/old))), computed in one step so a ratio of 4 is 4 */
	geo->ratio = exp((sn - so) / geo->rows);
}

/*
 * The runs' note: with fewer runs than the exact test needs, no row can be
 * significant at alpha, whatever the numbers. Said once, for the worst pair,
 * with the number of runs (on both sides) that gets below alpha with one run
 * to spare (so that not only a perfect separation counts).
 */
struct cmp_runs_note {
	int any;
	unsigned int no, nn, need;
};

static void runs_note(const struct cmp_pair *p, int np, double alpha,
		      struct cmp_runs_note *rn)
{
	double worst = 0;
	int i;

	memset(rn, 0, sizeof(*rn));
	for (i = 0; i < np; i++) {
		if (p[i].min_p > alpha && p[i].min_p > worst) {
			worst = p[i].min_p;
			rn->no = p[i].o->n;
			rn->nn = p[i].n->n;
			rn->any = 1;
		}
	}
	for (rn->need = 2; rn->need < 64 && kvb_mwu_min_p(rn->need, rn->need) > alpha;
	     rn->need++)
		;
	rn->need++;
}

struct cmp_ctx {
	const struct kvb_cmp_opts *opt;
	const char *old_path, *new_path;	/* --base: the report, and NULL */
	struct cmp_pair *p;
	int np, ngroups;
	int tw, mw;		/* the widths of the target and mix columns */
	struct cmp_diffs *diffs;
	const struct cmp_report *only[2];	/* the cases matched with nothing */
	struct kvb_agree *ag;	/* two reports: do their verdicts agree */
};

static void print_row(FILE *f, const struct cmp_ctx *x, const struct cmp_pair *r,
		      const struct cmp_unit *u)
{
	char a[48], b[48], call[16], delta[32];
	const struct cmp_case *o = r->o;

	center(a, sizeof(a), &u[0], o);
	center(b, sizeof(b), &u[1], r->n);
	kvb_call_name(o->batch, o->multi, call, sizeof(call));
	/* the target's fd: none ("-") for one that has no device fd */
	fprintf(f, "%-*s %-*s %4u %5s %-10s %s %s", x->tw, r->n->target, x->mw, o->mix,
		o->threads, call, r->n->fd, a, b);
	snprintf(delta, sizeof(delta), r->significant ? "%+.2f%%" : "~", r->d_tput);
	fprintf(f, " %10s", delta);
	fmt_unit(a, sizeof(a), &u[2], o->threads * 1e9 / r->mo);
	fmt_unit(b, sizeof(b), &u[3], o->threads * 1e9 / r->mn);
	snprintf(delta, sizeof(delta), r->significant ? "%+.2f%%" : "~", r->d_lat);
	fprintf(f, " %13s %13s %10s", a, b, delta);
	snprintf(a, sizeof(a), "%u+%u", o->n, r->n->n);
	fprintf(f, " %6.3f %5s\n", r->p, a);
}

/* The geometric-mean row: always a delta, as benchstat (no test of its own). */
static void print_geo(FILE *f, const struct cmp_ctx *x, const struct cmp_geo *g,
		      const struct cmp_unit *u)
{
	char a[48], b[48], rows[32];

	fmt_unit(a, sizeof(a), &u[0], g->old_ops);
	fmt_unit(b, sizeof(b), &u[1], g->new_ops);
	snprintf(rows, sizeof(rows), "(%d case%s)", g->rows, g->rows == 1 ? "" : "s");
	fprintf(f, "%-*s %-*s %10s %-7s %10s %-7s %+9.2f%%", x->tw, "geomean", x->mw + 22,
		rows, a, "", b, "", (g->ratio - 1) * 100);
	fmt_unit(a, sizeof(a), &u[2], g->old_lat);
	fmt_unit(b, sizeof(b), &u[3], g->new_lat);
	/* lat/op is threads x 1e9 / ops/s: its ratio is 1 / ratio */
	fprintf(f, " %13s %13s %+9.2f%%\n", a, b, (1 / g->ratio - 1) * 100);
}

/*
 * The columns' widths (in x), and the units of ops/s and lat/op (u[]):
 * old and new share theirs, so that they read side by side.
 */
static void table_units(struct cmp_ctx *x, struct cmp_unit u[4])
{
	double lohi[4][2] = { { INFINITY, 0 }, { INFINITY, 0 }, { INFINITY, 0 }, { INFINITY, 0 } };
	int i, j;

	x->tw = 16;
	x->mw = 8;
	for (i = 0; i < x->np; i++) {
		const struct cmp_pair *r = &x->p[i];
		double v[4] = { r->mo, r->mn, r->o->threads * 1e9 / r->mo,
				r->o->threads * 1e9 / r->mn };

		x->tw = fmax(x->tw, strlen(r->n->target));
		x->mw = fmax(x->mw, strlen(r->o->mix));
		for (j = 0; j < 4; j++) {
			lohi[j][0] = fmin(lohi[j][0], v[j]);
			lohi[j][1] = fmax(lohi[j][1], v[j]);
		}
	}
	for (j = 0; j < 4; j += 2) {
		pick_unit(&u[j], fmin(lohi[j][0], lohi[j + 1][0]),
			  fmax(lohi[j][1], lohi[j + 1][1]), j >= 2);
		u[j + 1] = u[j];
	}
}

/* Below the table: the legend, too few runs, what differs, what was not compared. */
static void table_notes(FILE *f, const struct cmp_ctx *x, const char *lo, const char *ln)
{
	struct cmp_runs_note rn;
	int i;

	fprintf(f,
		"\nMann-Whitney U test over the runs' ops/s, two-sided, exact up to 20 runs in all;\n"
		"~: no significant difference (p > alpha %.3g). delta: the Hodges-Lehmann estimate\n"
		"of the change (the median of the ratios of every pair of runs, as kvbench report);\n"
		"±: half the median's 95%% interval (order statistics), in %% of the median;\n"
		"±n%%~: under 6 runs no interval reaches 95%%; it is their min..max.\n"
		"lat/op is threads x 1e9 / ops/s of each run, so it has the same p.\n"
		"geomean: of the medians of the cases above it; its delta is the change of\n"
		"the geometric mean of the ratios %s/%s, shown whatever their p.\n",
		x->opt->alpha, ln, lo);
	runs_note(x->p, x->np, x->opt->alpha, &rn);
	if (rn.any)
		fprintf(f,
			"note: runs %u vs %u: the test cannot reach p <= %.3g (smallest p %.3f); use -r %u or more\n",
			rn.no, rn.nn, x->opt->alpha, kvb_mwu_min_p(rn.no, rn.nn), rn.need);
	if (x->diffs->n) {
		fprintf(f, "differences (--force):\n");
		print_diffs(f, "  ", x->diffs->d, x->diffs->n, x->diffs->more);
	}
	if (x->diffs->nnote) {
		fprintf(f, "not compared (absent in one report):\n");
		print_diffs(f, "  ", x->diffs->note, x->diffs->nnote, x->diffs->morenote);
	}
	if (x->diffs->hb_absent)
		fprintf(f, "not compared: hash_bits of %d cases (absent in one report)\n",
			x->diffs->hb_absent);
	for (i = 0; i < 2; i++)
		if (x->diffs->incomplete[i])
			fprintf(f, "note: %s is from an interrupted run (\"complete\": false)\n",
				i ? x->new_path : x->old_path);
}

static void print_table(FILE *f, struct cmp_ctx *x, const struct cmp_geo *geo)
{
	const char *lo = x->new_path ? "old" : "base", *ln = x->new_path ? "new" : "target";
	struct cmp_unit u[4];
	char h[4][24];
	int i, g;

	table_units(x, u);
	if (x->new_path)
		fprintf(f, "kvbench compare: old %s, new %s\n", x->old_path, x->new_path);
	else
		fprintf(f, "kvbench compare: %s, every backend against %s\n", x->old_path,
			x->opt->base);
	if (x->diffs->n)
		fprintf(f,
			"FORCED: the reports differ in %d field%s (listed on stderr and at the end); the deltas include them\n",
			x->diffs->n + x->diffs->more, x->diffs->n + x->diffs->more == 1 ? "" : "s");
	snprintf(h[0], sizeof(h[0]), "%s ops/s", lo);
	snprintf(h[1], sizeof(h[1]), "%s ops/s", ln);
	snprintf(h[2], sizeof(h[2]), "%s lat/op", lo);
	snprintf(h[3], sizeof(h[3]), "%s lat/op", ln);
	fprintf(f, "%-*s %-*s %4s %5s %-10s %18s %18s %10s %13s %13s %10s %6s %5s\n",
		x->tw, "target", x->mw, "mix", "thr", "batch", "fd", h[0], h[1], "delta", h[2],
		h[3], "delta", "p", "n");
	for (g = 0; g < x->ngroups; g++) {
		for (i = 0; i < x->np; i++)
			if (x->p[i].group == g)
				print_row(f, x, &x->p[i], u);
		/* as benchstat: a mean of one is the row itself */
		if (geo[g].rows > 1)
			print_geo(f, x, &geo[g], u);
	}
	if (!x->np)
		fprintf(f, x->new_path ? "(no case is in both reports)\n" :
			"(no target has a case of the same shape as the base's)\n");
	table_notes(f, x, lo, ln);
}

static void json_diffs(FILE *f, const char *name, const struct cmp_diff *d, int n)
{
	int i;

	fprintf(f, "  \"%s\": [", name);
	for (i = 0; i < n; i++) {
		fprintf(f, "%s\n    { \"field\": ", i ? "," : "");
		kvb_json_str(f, d[i].field);
		fputs(", \"old\": ", f);
		kvb_json_str(f, d[i].a);
		fputs(", \"new\": ", f);
		kvb_json_str(f, d[i].b);
		if (d[i].cases)
			fprintf(f, ", \"cases\": %d", d[i].cases);
		fputs(" }", f);
	}
	fprintf(f, "%s],\n", n ? "\n  " : "");
}

static void json_geo(FILE *f, const struct cmp_geo *g)
{
	fprintf(f, "{ \"rows\": %d", g->rows);
	kvb_json_field(f, ", ", "old_ops_per_sec", g->rows ? g->old_ops : NAN, 1);
	kvb_json_field(f, ", ", "new_ops_per_sec", g->rows ? g->new_ops : NAN, 1);
	kvb_json_field(f, ", ", "old_lat_per_op_ns", g->rows ? g->old_lat : NAN, 2);
	kvb_json_field(f, ", ", "new_lat_per_op_ns", g->rows ? g->new_lat : NAN, 2);
	kvb_json_field(f, ", ", "ratio", g->rows ? g->ratio : NAN, KVB_JSON_SIG(10));
	fputs(" }", f);
}

static void json_only(FILE *f, const struct cmp_report *r)
{
	char name[160];
	int i, k = 0;

	fputs("[", f);
	for (i = 0; r && i < r->n; i++) {
		if (r->c[i].matched)
			continue;
		case_name(name, sizeof(name), &r->c[i]);
		fputs(k++ ? ", " : "", f);
		kvb_json_str(f, name);
	}
	fputs("]", f);
}

/* "rows": a row per case found on both sides */
static void json_rows(FILE *f, const struct cmp_ctx *x)
{
	int i;

	fputs("  \"rows\": [", f);
	for (i = 0; i < x->np; i++) {
		const struct cmp_pair *r = &x->p[i];

		fprintf(f, "%s\n    { \"backend\": ", i ? "," : "");
		kvb_json_str(f, r->n->target);
		fputs(", \"base\": ", f);
		if (x->new_path)
			fputs("null", f);
		else
			kvb_json_str(f, r->o->target);
		fputs(", \"mix\": ", f);
		kvb_json_str(f, r->o->mix);
		fprintf(f, ", \"threads\": %u, \"batch\": %u, \"multi\": %s, \"fd\": ",
			r->o->threads, r->o->batch, r->o->multi ? "true" : "false");
		if (strcmp(r->n->fd, "-"))
			kvb_json_str(f, r->n->fd);
		else
			fputs("null", f);
		kvb_json_field(f, ",\n      ", "old_median", r->mo, 1);
		kvb_json_field(f, ", ", "new_median", r->mn, 1);
		kvb_json_field(f, ", ", "ratio", r->ratio, KVB_JSON_SIG(10));
		fprintf(f, ", \"old_runs\": %u, \"new_runs\": %u, \"p\": ", r->o->n, r->n->n);
		kvb_json_num(f, r->p, KVB_JSON_SIG(6));
		kvb_json_field(f, ", ", "min_p", r->min_p, KVB_JSON_SIG(6));
		fprintf(f, ", \"significant\": %s }", r->significant ? "true" : "false");
	}
	fprintf(f, "%s],\n", x->np ? "\n  " : "");
}

/* "geomean": two reports' one; "geomean_by_backend": --base's, one per target */
static void json_geomeans(FILE *f, const struct cmp_ctx *x, const struct cmp_geo *geo)
{
	int i, g;

	fputs("  \"geomean\": ", f);
	if (x->new_path && geo[0].rows)
		json_geo(f, &geo[0]);
	else
		fputs("null", f);
	fputs(",\n  \"geomean_by_backend\": [", f);
	for (g = 0, i = 0; !x->new_path && g < x->ngroups; g++) {
		if (!geo[g].rows)
			continue;
		fprintf(f, "%s\n    { \"backend\": ", i++ ? "," : "");
		kvb_json_str(f, geo[g].target);
		fputs(", \"geomean\": ", f);
		json_geo(f, &geo[g]);
		fputs(" }", f);
	}
	fprintf(f, "%s],\n", i ? "\n  " : "");
}

static void print_json(FILE *f, const struct cmp_ctx *x, const struct cmp_geo *geo)
{
	struct cmp_runs_note rn;

	/* "ratio": the Hodges-Lehmann estimate, kvbench report's */
	fputs("{\n  \"schema\": \"kvbench-compare/1\",\n  \"estimator\": \"hodges-lehmann\",\n", f);
	if (x->new_path) {
		fputs("  \"old\": ", f);
		kvb_json_str(f, x->old_path);
		fputs(",\n  \"new\": ", f);
		kvb_json_str(f, x->new_path);
		fputs(",\n  \"base\": null,\n", f);
	} else {
		fputs("  \"old\": ", f);
		kvb_json_str(f, x->old_path);
		fputs(",\n  \"new\": null,\n  \"base\": ", f);
		kvb_json_str(f, x->opt->base);
		fputs(",\n", f);
	}
	fprintf(f, "  \"alpha\": %g,\n  \"forced\": %s,\n", x->opt->alpha,
		x->diffs->n ? "true" : "false");
	json_diffs(f, "differences", x->diffs->d, x->diffs->n);
	json_diffs(f, "not_compared", x->diffs->note, x->diffs->nnote);
	json_rows(f, x);
	json_geomeans(f, x, geo);
	runs_note(x->p, x->np, x->opt->alpha, &rn);
	fputs("  \"runs_note\": ", f);
	if (rn.any) {
		char note[160];

		snprintf(note, sizeof(note),
			 "runs %u vs %u: the test cannot reach p <= %g; use -r %u or more",
			 rn.no, rn.nn, x->opt->alpha, rn.need);
		kvb_json_str(f, note);
	} else {
		fputs("null", f);
	}
	fputs(",\n  \"only_in_old\": ", f);
	json_only(f, x->only[0]);
	fputs(",\n  \"only_in_new\": ", f);
	json_only(f, x->only[1]);
	fputs(",\n  \"provenance_old\": ", f);
	kvb_rmodel_prov_json(f, &x->only[x->new_path ? 0 : 1]->m);
	fputs(",\n  \"provenance_new\": ", f);
	if (x->new_path)
		kvb_rmodel_prov_json(f, &x->only[1]->m);
	else
		fputs("null", f);
	fputs(",\n  \"agreement\": ", f);
	if (x->ag)
		kvb_agree_json(f, x->ag);
	else
		fputs("null", f);
	fputs("\n}\n", f);
}

/* The cases matched with nothing, and repeated cases. */
static void print_only(FILE *f, const struct cmp_ctx *x)
{
	char name[160];
	int side, i;

	for (side = 0; side < 2; side++) {
		const struct cmp_report *r = x->only[side];

		for (i = 0; r && i < r->n; i++) {
			if (r->c[i].matched)
				continue;
			case_name(name, sizeof(name), &r->c[i]);
			if (x->new_path)
				fprintf(f, "only in %s: %s\n", r->path, name);
			else
				fprintf(f, "no %s case for: %s\n", x->opt->base, name);
		}
		if (r && r->dups && (side || x->new_path))
			fprintf(f, "%s: %d repeated cases ignored (the first one counts)\n",
				r->path, r->dups);
	}
}

/* Print the comparison x (pairs ready, not yet computed); the row count or -1. */
/* Where each report was measured: accel, the host's load, the noisy count */
static void print_hosts(FILE *f, const struct cmp_ctx *x)
{
	int i;

	/* --base: the one report is only[1] */
	for (i = x->new_path ? 0 : 1; i < 2; i++) {
		fprintf(f, "%s%s ", i && x->new_path ? "" : "\n", i ? x->new_path ?: x->old_path :
			x->old_path);
		kvb_rmodel_prov(f, &x->only[i]->m);
	}
}

static int finish(FILE *f, struct cmp_ctx *x)
{
	struct cmp_geo *geo = calloc(x->ngroups ? x->ngroups : 1, sizeof(*geo));
	int i;

	if (!geo)
		return -1;
	for (i = 0; i < x->np; i++) {
		if (compare_case(&x->p[i], x->opt->alpha)) {
			free(geo);
			return -1;
		}
	}
	for (i = 0; i < x->ngroups; i++)
		geomean(x->p, x->np, i, &geo[i]);
	/* two reports of one suite: their verdicts, group by group */
	if (x->new_path) {
		x->ag = calloc(1, sizeof(*x->ag));
		/* no --margin: each verdict at its report's own margin */
		if (!x->ag || kvb_agreement(&x->only[0]->m, &x->only[1]->m, x->opt->alpha,
					    x->opt->margin, x->ag)) {
			free(x->ag);
			free(geo);
			return -1;
		}
	}
	if (x->opt->json) {
		print_json(f, x, geo);
	} else {
		print_table(f, x, geo);
		print_only(f, x);
		print_hosts(f, x);
		if (x->ag)
			kvb_agree_print(f, x->ag, x->old_path, x->new_path);
	}
	free(x->ag);
	free(geo);
	return x->np;
}

/* OLD against NEW: the row count, -1 on error, KVB_CMP_REFUSED. */
static int compare_reports(FILE *f, FILE *ferr, struct cmp_report *o, struct cmp_report *n,
			   const struct kvb_cmp_opts *opt)
{
	struct cmp_ctx x = { .opt = opt, .old_path = o->path, .new_path = n->path,
			     .ngroups = 1, .only = { o, n } };
	int i, j, ret = -1;

	x.p = calloc(o->n ? o->n : 1, sizeof(*x.p));
	x.diffs = calloc(1, sizeof(*x.diffs));
	if (!x.p || !x.diffs)
		goto out;
	for (i = 0; i < o->n; i++) {
		for (j = 0; j < n->n && !same_case(&o->c[i], &n->c[j]); j++)
			;
		if (j == n->n)
			continue;
		o->c[i].matched = 1;
		n->c[j].matched = 1;
		x.p[x.np].o = &o->c[i];
		x.p[x.np++].n = &n->c[j];
	}
	diff_reports(x.diffs, o, n, x.p, x.np);
	if (x.diffs->n && !opt->force) {
		fprintf(ferr,
			"kvbench compare: %s and %s were not run the same way; not comparing them:\n",
			o->path, n->path);
		print_diffs(ferr, "  ", x.diffs->d, x.diffs->n, x.diffs->more);
		fprintf(ferr,
			"kvbench compare: --force compares them anyway (the deltas then include these differences)\n");
		ret = KVB_CMP_REFUSED;
		goto out;
	}
	if (x.diffs->n) {
		fprintf(ferr,
			"WARNING: kvbench compare --force: %s and %s were not run the same way:\n",
			o->path, n->path);
		print_diffs(ferr, "WARNING:   ", x.diffs->d, x.diffs->n, x.diffs->more);
		fprintf(ferr,
			"WARNING: the deltas below include these differences, not only your change\n");
	}
	ret = finish(f, &x);
out:
	free(x.p);
	free(x.diffs);
	return ret;
}

static int find_case(const struct cmp_report *r, const struct cmp_case *key)
{
	int j;

	for (j = 0; j < r->n; j++)
		if (same_case(&r->c[j], key))
			return j;
	return -1;
}

/*
 * RUN --base B: every target T of the report against B's case of the same
 * shape. An io variant keeps its suffix: rcu/uring-qd16 is compared with
 * rwlock/uring-qd16, so the row shows the backend, not the way of calling
 * it. One group (and one geomean row) per target.
 */
static int compare_base(FILE *f, struct cmp_report *r, const struct kvb_cmp_opts *opt,
			char *err, size_t errlen)
{
	struct cmp_ctx x = { .opt = opt, .old_path = r->path, .only = { NULL, r } };
	size_t blen = strlen(opt->base);
	int i, j, k, have_base = 0, ret = -1;

	for (i = 0; i < r->n; i++) {
		/* the base's own cases: rwlock, rwlock/uring-qd16 */
		if (!strncmp(r->c[i].target, opt->base, blen) &&
		    (!r->c[i].target[blen] || r->c[i].target[blen] == '/')) {
			r->c[i].matched = 1;
			have_base = 1;
		}
	}
	if (!have_base) {
		snprintf(err, errlen, "no target %s in the report", opt->base);
		return -1;
	}
	x.p = calloc(r->n, sizeof(*x.p));
	x.diffs = calloc(1, sizeof(*x.diffs));
	if (!x.p || !x.diffs) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (i = 0; i < r->n; i++) {
		struct cmp_case *t = &r->c[i], key;
		const char *io = strchr(t->target, '/');
		size_t iolen = io ? strlen(io) : 0;

		if (t->matched)
			continue;
		/* the group: the first pair of this target sets it */
		for (k = 0; k < x.np && strcmp(x.p[k].n->target, t->target); k++)
			;
		if (blen + iolen >= sizeof(key.target))
			continue;
		key = *t;
		memcpy(key.target, opt->base, blen);
		memcpy(key.target + blen, io ? io : "", iolen + 1);
		j = find_case(r, &key);
		/*
		 * A target without a device fd (the userspace ones, bpf-htab)
		 * against the base's default per-thread fd, and the other way
		 * round: the fd mode is not a difference between them.
		 */
		if (j < 0) {
			snprintf(key.fd, sizeof(key.fd), "%s",
				 strcmp(t->fd, "-") ? "-" : "per-thread");
			j = find_case(r, &key);
		}
		if (j < 0)
			continue;
		t->matched = 1;
		x.p[x.np].o = &r->c[j];
		x.p[x.np].n = t;
		x.p[x.np].group = k < x.np ? x.p[k].group : x.ngroups++;
		x.np++;
	}
	ret = finish(f, &x);
	if (ret < 0)
		snprintf(err, errlen, "out of memory");
out:
	free(x.p);
	free(x.diffs);
	return ret;
}

static const char compare_help[] =
	"Usage: kvbench compare [OPTION]... OLD.json NEW.json\n"
	"       kvbench compare [OPTION]... --base BACKEND RUN.json\n"
	"\n"
	"Compares two 'kvbench bench' JSON reports, like Go's benchstat: one row\n"
	"per case found in both (same target, mix, threads, batch, multi, fd),\n"
	"the change of the median ops/s and lat/op, and a Mann-Whitney U test\n"
	"over the runs (two-sided, exact for small samples): '~' when p > alpha;\n"
	"then a geomean row (the geometric mean of the ratios new/old).\n"
	"With 3 runs against 3 the smallest possible p is 0.1: use -r 5 or more.\n"
	"Cases in only one report are listed at the end.\n"
	"\n"
	"Reports that differ in their settings (keys, key and value size, dist,\n"
	"theta, duration, warm-up, ops per thread, sampling, pinning, hash_bits),\n"
	"workload or mixes, kernel, architecture, CPU model, CPU count,\n"
	"accelerator or module parameters are not compared: each difference is\n"
	"listed (FIELD: OLD vs NEW) and the exit status is 2. The seed, repeats\n"
	"and budget may differ. A field an older report lacks is not compared.\n"
	"\n"
	"      --alpha A      significance level, 0 < A < 1 (default 0.05)\n"
	"      --base NAME    one report: every other backend against NAME, case by\n"
	"                     case (rcu/uring-qd16 against NAME/uring-qd16), with a\n"
	"                     geomean row per target\n"
	"      --force        compare reports that differ anyway, after a WARNING\n"
	"      --margin PCT   the verdicts' agreement: slower beyond, tied within\n"
	"                     +-PCT% (default: each report's own, its bench\n"
	"                     --margin; 5 if none)\n"
	"      --json         JSON instead of the table (schema kvbench-compare/1)\n"
	"  -o, --output FILE  write the table or the JSON to FILE (default stdout)\n"
	"  -h, --help         this help\n"
	"\n"
	"Exit status: 0; 1 when a report cannot be read or no case is in both;\n"
	"2 on usage errors and when the reports differ (without --force).\n";

/* Compare the loaded reports (n NULL: --base) into f. */
static int compare_loaded(FILE *f, FILE *ferr, struct cmp_report *o, struct cmp_report *n,
			  const struct kvb_cmp_opts *opt, char *err, size_t errlen)
{
	int ret;

	if (!n)
		return compare_base(f, o, opt, err, errlen);
	ret = compare_reports(f, ferr, o, n, opt);
	if (ret == -1)
		snprintf(err, errlen, "out of memory");
	return ret;
}

/* Write the output to path (NULL: stdout); 0 or -1 with a message. */
static int put_output(const char *path, const char *buf, size_t len)
{
	FILE *f = path ? fopen(path, "w") : stdout;

	if (!f) {
		fprintf(stderr, "kvbench compare: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fwrite(buf, 1, len, f);
	if (fflush(f) || ferror(f) || (path && fclose(f))) {
		fprintf(stderr, "kvbench compare: %s: write error: %s\n",
			path ? path : "stdout", strerror(errno));
		return -1;
	}
	return 0;
}

static const char base_usage[] =
	"--base: a backend's name, such as rwlock (io variants are matched by their suffix)";
static const char two_reports[] =
	"takes 2 reports: kvbench compare OLD.json NEW.json";
static const char base_one[] =
	"--base takes 1 report: kvbench compare --base rwlock RUN.json";

/* The options into *opt and *out: 0, or the exit status (usage, --help). */
static int compare_opts(int argc, char **argv, struct kvb_cmp_opts *opt,
			const char **out)
{
	static const struct option opts[] = {
		{ "alpha", required_argument, NULL, 'a' },
		{ "margin", required_argument, NULL, 'm' },
		{ "base", required_argument, NULL, 'B' },
		{ "force", no_argument, NULL, 'F' },
		{ "json", no_argument, NULL, 'J' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char *end, err[256];
	int c;

	/* getopt's own messages: "option '--alpha' requires an argument" */
	argv[0] = "kvbench compare";
	opterr = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			errno = 0;
			opt->alpha = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(opt->alpha > 0 && opt->alpha < 1))
				return kvb_usage("compare", "--alpha",
						 "must be a number between 0 and 1");
			break;
		case 'm':
			if (kvb_parse_margin(optarg, &opt->margin, err, sizeof(err)))
				return kvb_usage("compare", "--margin", err);
			break;
		case 'B':
			if (!*optarg || strchr(optarg, '/') || strlen(optarg) >= KVB_BASE_MAX)
				return kvb_usage("compare", NULL, base_usage);
			opt->base = optarg;
			break;
		case 'F':
			opt->force = 1;
			break;
		case 'J':
			opt->json = 1;
			break;
		case 'o':
			*out = optarg;
			break;
		case 'h':
			fputs(compare_help, stdout);
			return KVB_EXIT_OK;
		default:
			return kvb_usage("compare", NULL, NULL);
		}
	}
	if (argc - optind != (opt->base ? 1 : 2))
		return kvb_usage("compare", NULL, opt->base ? base_one : two_reports);
	return -1;
}

int kvb_compare_main(int argc, char **argv)
{
	struct kvb_cmp_opts opt = { .alpha = 0.05 };
	struct cmp_report o, n;
	const char *out = NULL;
	char *buf = NULL, err[256] = "";
	size_t len = 0;
	FILE *mem;
	int rows;

	rows = compare_opts(argc, argv, &opt, &out);
	if (rows >= 0)
		return rows;
	if (load_report(argv[optind], &o))
		return KVB_EXIT_FAIL;
	if (!opt.base && load_report(argv[optind + 1], &n)) {
		report_free(&o);
		return KVB_EXIT_FAIL;
	}
	/* into memory first: a refused comparison leaves no output file */
	mem = open_memstream(&buf, &len);
	if (!mem) {
		rows = -1;
		snprintf(err, sizeof(err), "out of memory");
	} else {
		rows = compare_loaded(mem, stderr, &o, opt.base ? NULL : &n, &opt, err,
				      sizeof(err));
		fclose(mem);
	}
	report_free(&o);
	if (!opt.base)
		report_free(&n);
	if (rows == -1)
		fprintf(stderr, "kvbench compare: %s: %s\n", argv[optind], err);
	if (rows >= 0 && put_output(out, buf, len))
		rows = -1;
	free(buf);
	if (rows == KVB_CMP_REFUSED)
		return KVB_EXIT_USAGE;
	return rows > 0 ? KVB_EXIT_OK : KVB_EXIT_FAIL;
}

/*
 * For the unit tests: compare two reports given as text (new_json NULL:
 * o->base within old_json). The row count; -1 with a message in err;
 * KVB_CMP_REFUSED with the differences on ferr.
 */
int kvb_compare_text(FILE *f, FILE *ferr, const char *old_json,
		     const char *new_json, const struct kvb_cmp_opts *opt,
		     char *err, size_t errlen)
{
	struct cmp_report o = { .path = "old" }, n = { .path = "new" };
	int rows;

	if (load_report_text(old_json, &o, err, errlen))
		return -1;
	if (new_json && load_report_text(new_json, &n, err, errlen)) {
		report_free(&o);
		return -1;
	}
	if (!new_json && !opt->base) {
		snprintf(err, errlen, "one report needs a base backend");
		report_free(&o);
		return -1;
	}
	if (!new_json)
		o.path = "run";
	rows = compare_loaded(f, ferr, &o, new_json ? &n : NULL, opt, err, errlen);
	report_free(&o);
	if (new_json)
		report_free(&n);
	return rows;
}
