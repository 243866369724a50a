// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench compare OLD.json NEW.json: did a change make something faster?
 *
 * Like Go's benchstat: one row per case found in both reports (matched by
 * target, mix, threads, batch (or multi) and fd mode), the change of the median
 * throughput and per-thread latency, and a Mann-Whitney U test over the
 * runs of the case: "~" when the difference is not significant at --alpha.
 *
 * The reports are read by json.c and then checked against the fields the
 * schema promises.
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
	char mix[32];
	unsigned int threads, batch;
	int multi;		/* "multi": true (packed calls); absent: false */
	char fd[16];
	double *runs;
	unsigned int n;
	int matched;
};

struct cmp_report {
	const char *path;
	struct cmp_case *c;
	int n;
	int dups;	/* cases seen twice: the first one counts */
};

static int same_case(const struct cmp_case *a, const struct cmp_case *b)
{
	return !strcmp(a->target, b->target) && !strcmp(a->mix, b->mix) &&
	       a->threads == b->threads && a->batch == b->batch &&
	       a->multi == b->multi && !strcmp(a->fd, b->fd);
}

static void report_free(struct cmp_report *r)
{
	int i;

	for (i = 0; i < r->n; i++)
		free(r->c[i].runs);
	free(r->c);
	r->c = NULL;
	r->n = 0;
}

static int whole(const struct jnode *n, unsigned int *v)
{
	if (!n || n->num < 0 || n->num > 1e9 || n->num != floor(n->num))
		return -1;
	*v = n->num;
	return 0;
}

/* Result i of the report into c; -1 with a message in err. */
static int load_case(const struct jnode *x, int i, struct cmp_case *c,
		     char *err, size_t errlen)
{
	const struct jnode *name = kvb_json_get(x, "backend", J_STR);
	const struct jnode *mix = kvb_json_get(kvb_json_get(x, "mix", J_OBJ), "name", J_STR);
	const struct jnode *fd = kvb_json_get(x, "fd", J_STR);
	const struct jnode *runs = kvb_json_get(x, "ops_per_sec_runs", J_ARR);
	const struct jnode *multi;
	int j;

	memset(c, 0, sizeof(*c));
	if (!name || !mix || whole(kvb_json_get(x, "threads", J_NUM), &c->threads) ||
	    whole(kvb_json_get(x, "batch", J_NUM), &c->batch) || !runs ||
	    (!fd && !kvb_json_get(x, "fd", J_NULL))) {
		snprintf(err, errlen,
			 "results[%d]: needs backend, mix.name, threads, batch, fd and ops_per_sec_runs",
			 i);
		return -1;
	}
	multi = kvb_json_get(x, "multi", J_BOOL);
	c->multi = multi && multi->num;
	snprintf(c->target, sizeof(c->target), "%s", name->str);
	snprintf(c->mix, sizeof(c->mix), "%s", mix->str);
	snprintf(c->fd, sizeof(c->fd), "%s", fd ? fd->str : "-");
	c->runs = calloc(runs->nkids ? runs->nkids : 1, sizeof(*c->runs));
	if (!c->runs) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (j = 0; j < runs->nkids; j++) {
		if (runs->kids[j].type != J_NUM || runs->kids[j].num <= 0) {
			snprintf(err, errlen,
				 "results[%d].ops_per_sec_runs[%d]: not a positive number", i, j);
			free(c->runs);
			c->runs = NULL;
			return -1;
		}
		c->runs[c->n++] = runs->kids[j].num;
	}
	return 0;
}

static int load_tree(const struct jnode *root, struct cmp_report *r,
		     char *err, size_t errlen)
{
	const struct jnode *schema = kvb_json_get(root, "schema", J_STR);
	const struct jnode *res = kvb_json_get(root, "results", J_ARR);
	int i, j;

	if (!schema || strncmp(schema->str, "kvbench-bench/", 14)) {
		snprintf(err, errlen,
			 "not a kvbench bench report (no \"schema\": \"kvbench-bench/N\")");
		return -1;
	}
	/* /3 changed no field compare reads (ops_per_sec_runs, the case's keys) */
	if (strcmp(schema->str, "kvbench-bench/1") && strcmp(schema->str, "kvbench-bench/2") &&
	    strcmp(schema->str, "kvbench-bench/3")) {
		snprintf(err, errlen, "schema %s: this kvbench reads kvbench-bench/1, /2 and /3",
			 schema->str);
		return -1;
	}
	if (!res) {
		snprintf(err, errlen, "no \"results\" array");
		return -1;
	}
	r->c = calloc(res->nkids ? res->nkids : 1, sizeof(*r->c));
	if (!r->c) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (i = 0; i < res->nkids; i++) {
		struct cmp_case *c = &r->c[r->n];

		if (load_case(&res->kids[i], i, c, err, errlen))
			return -1;
		for (j = 0; j < r->n && !same_case(&r->c[j], c); j++)
			;
		if (j < r->n || !c->n) {
			r->dups += j < r->n;
			free(c->runs);
			continue;
		}
		r->n++;
	}
	return 0;
}

/* Parse a report from text; 0, or -1 with a message in err. */
static int load_report_text(const char *text, struct cmp_report *r,
			    char *err, size_t errlen)
{
	struct jnode root;
	int ret;

	if (kvb_json_parse(text, &root, err, errlen))
		return -1;
	ret = load_tree(&root, r, err, errlen);
	kvb_json_free(&root);
	if (ret)
		report_free(r);
	return ret;
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

/* ops/s with an SI suffix: 1234567 -> "1.235M". */
static void si(char *buf, size_t len, double v)
{
	if (v >= 1e9)
		snprintf(buf, len, "%.3fG", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, len, "%.3fM", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, len, "%.3fk", v / 1e3);
	else
		snprintf(buf, len, "%.1f", v);
}

/* A time in ns, in a unit that keeps it short: "845.2ns", "12.34us". */
static void dur(char *buf, size_t len, double ns)
{
	if (ns < 1e4)
		snprintf(buf, len, "%.1fns", ns);
	else if (ns < 1e7)
		snprintf(buf, len, "%.2fus", ns / 1e3);
	else
		snprintf(buf, len, "%.2fms", ns / 1e6);
}

/* "1.235M ±2.1%": the median and the 95% CI half-width of the mean. */
static void center(char *buf, size_t len, const double *v, unsigned int n)
{
	struct kvb_summary s;
	char m[32];

	kvb_summarize(v, n, &s);
	si(m, sizeof(m), s.median);
	if (isfinite(s.ci_hi) && s.mean > 0)
		snprintf(buf, len, "%s ±%.1f%%", m, (s.ci_hi - s.mean) / s.mean * 100);
	else
		snprintf(buf, len, "%s", m);
}

static void lat_runs(const struct cmp_case *c, double *out)
{
	unsigned int i;

	for (i = 0; i < c->n; i++)
		out[i] = c->threads * 1e9 / c->runs[i];
}

static void case_name(char *buf, size_t len, const struct cmp_case *c)
{
	snprintf(buf, len, "%s %s threads=%u %s=%u fd=%s", c->target, c->mix,
		 c->threads, c->multi ? "multi" : "batch", c->batch, c->fd);
}

struct cmp_row {
	double d_tput, d_lat;	/* % change of the medians */
	double p, u, min_p;
	int significant;
};

/* The comparison of one case; -1 when it cannot be computed. */
static int compare_case(const struct cmp_case *o, const struct cmp_case *n,
			double alpha, struct cmp_row *row)
{
	double *lo = malloc(o->n * sizeof(*lo)), *ln = malloc(n->n * sizeof(*ln));
	double mo, mn;
	int ret = -1;

	if (!lo || !ln)
		goto out;
	mo = kvb_median(o->runs, o->n);
	mn = kvb_median(n->runs, n->n);
	row->d_tput = (mn - mo) / mo * 100;
	lat_runs(o, lo);
	lat_runs(n, ln);
	mo = kvb_median(lo, o->n);
	mn = kvb_median(ln, n->n);
	row->d_lat = (mn - mo) / mo * 100;
	if (kvb_mwu(o->runs, o->n, n->runs, n->n, &row->u, &row->p))
		goto out;
	row->min_p = kvb_mwu_min_p(o->n, n->n);
	row->significant = row->p <= alpha;
	ret = 0;
out:
	free(lo);
	free(ln);
	return ret;
}

static void print_delta(FILE *f, int width, double d, int significant)
{
	char buf[32];

	if (significant)
		snprintf(buf, sizeof(buf), "%+.2f%%", d);
	else
		snprintf(buf, sizeof(buf), "~");
	fprintf(f, " %*s", width, buf);
}

/* The table; returns the number of cases in both reports. */
static int compare_reports(FILE *f, struct cmp_report *o, struct cmp_report *n,
			   double alpha)
{
	char a[48], b[48], name[160], call[16];
	double worst_min_p = 0;
	unsigned int wo = 0, wn = 0;
	int i, j, rows = 0, only;

	fprintf(f, "kvbench compare: old %s, new %s\n", o->path, n->path);
	fprintf(f, "%-16s %-8s %4s %5s %-10s %16s %16s %9s %10s %10s %9s %6s %5s\n",
		"target", "mix", "thr", "batch", "fd", "old ops/s", "new ops/s", "delta",
		"old lat/op", "new lat/op", "delta", "p", "n");
	for (i = 0; i < o->n; i++) {
		struct cmp_case *x = &o->c[i];
		struct cmp_row row;
		double lo, ln;

		for (j = 0; j < n->n && !same_case(x, &n->c[j]); j++)
			;
		if (j == n->n)
			continue;
		x->matched = 1;
		n->c[j].matched = 1;
		if (compare_case(x, &n->c[j], alpha, &row)) {
			fprintf(stderr, "kvbench compare: out of memory\n");
			return -1;
		}
		rows++;
		center(a, sizeof(a), x->runs, x->n);
		center(b, sizeof(b), n->c[j].runs, n->c[j].n);
		kvb_call_name(x->batch, x->multi, call, sizeof(call));
		/* "±" is two bytes and one column */
		fprintf(f, "%-16s %-8s %4u %5s %-10s %*s %*s", x->target, x->mix,
			x->threads, call, x->fd, 16 + !!strstr(a, "±"), a,
			16 + !!strstr(b, "±"), b);
		print_delta(f, 9, row.d_tput, row.significant);
		lo = x->threads * 1e9 / kvb_median(x->runs, x->n);
		ln = x->threads * 1e9 / kvb_median(n->c[j].runs, n->c[j].n);
		dur(a, sizeof(a), lo);
		dur(b, sizeof(b), ln);
		fprintf(f, " %10s %10s", a, b);
		print_delta(f, 9, row.d_lat, row.significant);
		snprintf(a, sizeof(a), "%u+%u", x->n, n->c[j].n);
		fprintf(f, " %6.3f %5s\n", row.p, a);
		if (row.min_p > alpha && row.min_p > worst_min_p) {
			worst_min_p = row.min_p;
			wo = x->n;
			wn = n->c[j].n;
		}
	}
	if (!rows)
		fprintf(f, "(no case is in both reports)\n");
	fprintf(f,
		"\nMann-Whitney U test over the runs' ops/s, two-sided, exact up to 20 runs in all;\n"
		"~: no significant difference (p > alpha %.3g). delta: change of the median;\n"
		"±: half the 95%% confidence interval of the mean ops/s, in %% of the mean.\n"
		"lat/op is threads x 1e9 / ops/s of each run, so it has the same p.\n", alpha);
	if (worst_min_p > 0)
		fprintf(f,
			"note: with %u runs against %u the smallest possible p is %.3f, above alpha %.3g:\n"
			"such a case never shows as significant; run more repeats (-r 5 against -r 5: p >= %.3f)\n",
			wo, wn, worst_min_p, alpha, kvb_mwu_min_p(5, 5));
	for (only = 0; only < 2; only++) {
		struct cmp_report *r = only ? n : o;

		for (i = 0; i < r->n; i++) {
			if (r->c[i].matched)
				continue;
			case_name(name, sizeof(name), &r->c[i]);
			fprintf(f, "only in %s: %s\n", r->path, name);
		}
		if (r->dups)
			fprintf(f, "%s: %d repeated cases ignored (the first one counts)\n",
				r->path, r->dups);
	}
	return rows;
}

static const char compare_help[] =
	"Usage: kvbench compare [--alpha A] OLD.json NEW.json\n"
	"\n"
	"Compares two 'kvbench bench' JSON reports, like Go's benchstat: one row\n"
	"per case found in both (same target, mix, threads, batch, multi, fd),\n"
	"the change of the median ops/s and lat/op, and a Mann-Whitney U test\n"
	"over the runs (two-sided, exact for small samples): '~' when p > alpha.\n"
	"With 3 runs against 3 the smallest possible p is 0.1: use -r 5 or more.\n"
	"Cases in only one report are listed at the end.\n"
	"\n"
	"      --alpha A  significance level, 0 < A < 1 (default 0.05)\n"
	"  -h, --help     this help\n"
	"\n"
	"Exit status: 0, 1 when a report cannot be read or no case is in both,\n"
	"2 on usage errors.\n";

static int compare_usage(const char *msg)
{
	fprintf(stderr, "kvbench compare: %s\n", msg);
	fprintf(stderr, "Try 'kvbench compare --help' for more information.\n");
	return KVB_EXIT_USAGE;
}

int kvb_compare_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "alpha", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct cmp_report o, n;
	double alpha = 0.05;
	char *end;
	int c, rows;

	/* getopt's own messages: "option '--alpha' requires an argument" */
	argv[0] = "kvbench compare";
	opterr = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			errno = 0;
			alpha = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(alpha > 0 && alpha < 1))
				return compare_usage("--alpha: must be a number between 0 and 1");
			break;
		case 'h':
			fputs(compare_help, stdout);
			return KVB_EXIT_OK;
		default:
			fprintf(stderr, "Try 'kvbench compare --help' for more information.\n");
			return KVB_EXIT_USAGE;
		}
	}
	if (argc - optind != 2)
		return compare_usage("takes 2 reports: kvbench compare OLD.json NEW.json");
	if (load_report(argv[optind], &o))
		return KVB_EXIT_FAIL;
	if (load_report(argv[optind + 1], &n)) {
		report_free(&o);
		return KVB_EXIT_FAIL;
	}
	rows = compare_reports(stdout, &o, &n, alpha);
	report_free(&o);
	report_free(&n);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "kvbench compare: write error: %s\n", strerror(errno));
		return KVB_EXIT_FAIL;
	}
	return rows > 0 ? KVB_EXIT_OK : KVB_EXIT_FAIL;
}

/* For the unit tests: compare two reports given as text. */
int kvb_compare_text(FILE *f, const char *old_json, const char *new_json,
		     double alpha, char *err, size_t errlen)
{
	struct cmp_report o = { .path = "old" }, n = { .path = "new" };
	int rows;

	if (load_report_text(old_json, &o, err, errlen))
		return -1;
	if (load_report_text(new_json, &n, err, errlen)) {
		report_free(&o);
		return -1;
	}
	rows = compare_reports(f, &o, &n, alpha);
	report_free(&o);
	report_free(&n);
	return rows;
}
