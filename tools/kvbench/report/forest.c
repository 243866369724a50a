// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench plot --forest: the verdict's figure. Per workload group that
 * `kvbench report` shows by default, a forest plot: each target's ops/s as
 * a ratio to the fastest's (the Hodges-Lehmann estimate, a point) with its
 * 95% interval (a bar), on a log axis with a line at 1 and dashed lines at
 * 1 +- the margin; the colour is the mark (fastest, tied, slower,
 * inconclusive, cannot tell), a "!" after the name a noisy case. The
 * numbers are kvb_rmodel_verdict()'s, the report's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kvbench.h"

/* Okabe and Ito's colours, by mark (KVB_V_*) */
static const char * const mark_colour[] = {
	[KVB_V_FASTEST] = "0x009E73", [KVB_V_TIED] = "0x0072B2",
	[KVB_V_DIFFERENT] = "0x000000", [KVB_V_CANNOT] = "0x999999",
	[KVB_V_INCONCLUSIVE] = "0xE69F00",
};

static const char * const mark_word[] = {
	[KVB_V_FASTEST] = "fastest", [KVB_V_TIED] = "tied",
	[KVB_V_DIFFERENT] = "slower", [KVB_V_CANNOT] = "cannot tell",
	[KVB_V_INCONCLUSIVE] = "inconclusive",
};

/* One group's data block: y, ratio, low, high, colour; its y labels */
/*
 * Both figures' first lines: the terminal (1000 wide, height pixels
 * high), the output file, and a multiplot of panels one above the other
 * under title.
 */
static void figure_head(FILE *g, enum kvb_plot_fmt fmt, const char *file, int height,
			int panels, const char *title)
{
	fprintf(g, "set terminal %s size 1000,%d font ',10' noenhanced\nset output ",
		kvb_plot_term(fmt), height);
	kvb_gnuplot_str(g, file);
	fprintf(g, "\nset multiplot layout %d,1 title ", panels);
	kvb_gnuplot_str(g, title);
}

static void group_data(FILE *g, const struct kvb_vgroup *x, int k)
{
	int i;

	fprintf(g, "$F%d << EOD\n", k);
	for (i = 0; i < x->n; i++) {
		const struct kvb_vtarget *t = &x->t[i];
		double r = t->mark == KVB_V_FASTEST ? 1 : t->hl.ratio;
		double lo = isfinite(t->hl.lo) ? t->hl.lo : r;
		double hi = isfinite(t->hl.hi) ? t->hl.hi : r;

		fprintf(g, "%d %.6g %.6g %.6g %s\n", i, r, lo, hi, mark_colour[t->mark]);
	}
	fprintf(g, "EOD\n");
}

static void group_panel(FILE *g, const struct kvb_vgroup *x, int k, double lo, double hi)
{
	char label[192], name[96];
	int i;

	kvb_verdict_label(label, sizeof(label), &x->key);
	fprintf(g, "set title ");
	kvb_gnuplot_str(g, label);
	fprintf(g, "\nset yrange [%d.5:-0.5]\nset ytics (", x->n - 1);
	for (i = 0; i < x->n; i++) {
		const struct kvb_vtarget *t = &x->t[i];

		snprintf(name, sizeof(name), "%s%s (%s)", t->c->target, t->c->noisy ? "!" : "",
			 mark_word[t->mark]);
		fprintf(g, "%s", i ? ", " : "");
		kvb_gnuplot_str(g, name);
		fprintf(g, " %d", i);
	}
	fprintf(g, ")\nset xrange [%.4g:%.4g]\nunset arrow\n", lo, hi);
	fprintf(g, "set arrow from 1, graph 0 to 1, graph 1 nohead lc rgb '0x555555'\n");
	fprintf(g, "set arrow from %.4g, graph 0 to %.4g, graph 1 nohead dt 2 lc rgb '0x0072B2'\n",
		1 - x->margin, 1 - x->margin);
	fprintf(g, "set arrow from %.4g, graph 0 to %.4g, graph 1 nohead dt 2 lc rgb '0x0072B2'\n",
		1 + x->margin, 1 + x->margin);
	fprintf(g, "plot $F%d using 2:1:3:4:5 with xerrorbars pt 7 ps 1.2 %s\n", k,
		"lc rgb variable notitle");
}

/*
 * The forest plot of m into file (its format from the name); 0, or -1
 * with a message in err.
 */
int kvb_forest_script(FILE *g, const char *file, const struct kvb_rmodel *m,
		      char *err, size_t errlen)
{
	struct kvb_vgroup *x = NULL;
	char why[512];
	int fmt = kvb_plot_format(file, err, errlen), ng, i, k, *sel = NULL, shown = 0, rows = 0;
	double lo = 1, hi = 1;

	if (fmt < 0)
		return -1;
	ng = kvb_rmodel_verdict(m, KVB_VERDICT_ALPHA, m->margin, &x);
	sel = calloc(ng > 0 ? ng : 1, sizeof(*sel));
	if (ng < 0 || !sel) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	kvb_report_select(m, x, ng, 0, 0, sel, why, sizeof(why));
	for (i = 0; i < ng; i++) {
		if (!sel[i] || x[i].n < 2) {
			sel[i] = 0;
			continue;
		}
		shown++;
		rows += x[i].n;
		for (k = 0; k < x[i].n; k++) {
			const struct kvb_hl *h = &x[i].t[k].hl;

			lo = fmin(lo, isfinite(h->lo) ? h->lo : h->ratio);
			hi = fmax(hi, isfinite(h->hi) ? h->hi : h->ratio);
		}
	}
	if (!shown) {
		snprintf(err, errlen, "no workload group of two targets or more to draw (%s)", why);
		goto fail;
	}
	for (i = 0, k = 0; i < ng; i++)
		if (sel[i])
			group_data(g, &x[i], k++);
	snprintf(why, sizeof(why),
		 "ratio to the fastest (Hodges-Lehmann, 95%% CI; marks Holm-corrected, slower beyond and tied within ±%g%%); %s, accel %s, %d CPUs; !: noisy (%d of %d)",
		 m->margin * 100, m->kernel, m->accel, m->cpus, m->noisy, m->nv);
	figure_head(g, fmt, file, 120 + 40 * rows + 60 * shown, shown, why);
	fprintf(g, "\nset logscale x\nset grid xtics\nset xlabel 'ratio to the fastest (log)'\n");
	for (i = 0, k = 0; i < ng; i++)
		if (sel[i])
			group_panel(g, &x[i], k++, lo / 1.1, hi * 1.1);
	fprintf(g, "unset multiplot\n");
	free(sel);
	kvb_verdict_free(x, ng);
	return 0;
fail:
	free(sel);
	kvb_verdict_free(x, ng);
	return -1;
}

/*
 * kvbench plot --ops: the secondary figure. Per group the forest shows,
 * each target's absolute ops/s (the median, a point; the slowest to the
 * fastest run, a bar) on a log axis, the in-process baselines (which the
 * verdict leaves out beside kernel targets: they make no system call)
 * included, hollow and marked "in-process"; the rows by median.
 */
struct ops_row {
	const struct kvb_vcase *c;
	double median, lo, hi;
	int mark;		/* KVB_V_*, -1: a baseline the verdict left out */
};

static int cmp_row(const void *a, const void *b)
{
	const struct ops_row *x = a, *y = b;

	return (x->median < y->median) - (x->median > y->median);
}

static int is_user(enum kvb_kind k)
{
	return k == KVB_USER_RWLOCK || k == KVB_USER_OWNER;
}

/* The rows of group x: its targets, then the baselines of its key; NULL */
static struct ops_row *ops_rows(const struct kvb_rmodel *m, const struct kvb_vgroup *x,
				int *n)
{
	struct ops_row *r = calloc(x->n + m->nv, sizeof(*r));
	int i, j, k = 0;

	if (!r)
		return NULL;
	for (i = 0; i < x->n; i++)
		r[k++] = (struct ops_row){ .c = x->t[i].c, .mark = x->t[i].mark };
	for (i = 0; i < m->nv; i++) {
		const struct kvb_vcase *c = &m->vc[i];

		if (!is_user(c->kind) || !c->n || !kvb_vkey_equal(&c->key, &x->key))
			continue;
		for (j = 0; j < k && strcmp(r[j].c->target, c->target); j++)
			;
		if (j == k)
			r[k++] = (struct ops_row){ .c = c, .mark = -1 };
	}
	for (i = 0; i < k; i++) {
		r[i].median = kvb_median(r[i].c->runs, r[i].c->n);
		r[i].lo = r[i].c->runs[0];
		r[i].hi = r[i].lo;
		for (j = 1; j < (int)r[i].c->n; j++) {
			r[i].lo = fmin(r[i].lo, r[i].c->runs[j]);
			r[i].hi = fmax(r[i].hi, r[i].c->runs[j]);
		}
	}
	qsort(r, k, sizeof(*r), cmp_row);
	*n = k;
	return r;
}

/* One group's data block: y, median, slowest, fastest run, point type, colour */
static void ops_data(FILE *g, const struct ops_row *r, int n, int k)
{
	int i;

	fprintf(g, "$O%d << EOD\n", k);
	for (i = 0; i < n; i++)
		fprintf(g, "%d %.6g %.6g %.6g %d %s\n", i, r[i].median, r[i].lo, r[i].hi,
			r[i].mark < 0 ? 6 : 7,
			r[i].mark < 0 ? "0x56B4E9" : mark_colour[r[i].mark]);
	fprintf(g, "EOD\n");
}

/* One group's panel, the rows by median: the runs' range, then the median */
static void ops_panel(FILE *g, const struct kvb_vgroup *x, const struct ops_row *r, int n,
		      int k, double lo, double hi)
{
	char label[192], name[96];
	int i;

	kvb_verdict_label(label, sizeof(label), &x->key);
	fprintf(g, "set title ");
	kvb_gnuplot_str(g, label);
	fprintf(g, "\nset yrange [%d.5:-0.5]\nset ytics (", n - 1);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s%s (%s)", r[i].c->target, r[i].c->noisy ? "!" : "",
			 r[i].mark < 0 ? "in-process" : mark_word[r[i].mark]);
		fprintf(g, "%s", i ? ", " : "");
		kvb_gnuplot_str(g, name);
		fprintf(g, " %d", i);
	}
	fprintf(g, ")\nset xrange [%.6g:%.6g]\n", lo, hi);
	fprintf(g, "plot $O%d using 2:1:3:4:6 with xerrorbars pt 7 ps 0 %s, \\\n", k,
		"lc rgb variable notitle");
	fprintf(g, "     $O%d using 2:1:5:6 with points pt variable ps 1.4 %s\n", k,
		"lc rgb variable notitle");
}

/* Tics at 1, 2 and 5 of each decade from lo to hi: "20k", "500k", "1M" */
static void ops_tics(FILE *g, double lo, double hi)
{
	static const char * const sfx[] = { "", "k", "M", "G" };
	double d;
	int i, first = 1;

	fprintf(g, "set xtics (");
	for (d = pow(10, floor(log10(lo))); d <= hi && d < 1e13; d *= 10) {
		for (i = 1; i <= 5; i += i == 1 ? 1 : 3) {
			double v = d * i;
			int e = (int)floor(log10(v * 1.000001) / 3);

			if (v < lo || v > hi)
				continue;
			e = e < 0 ? 0 : e > 3 ? 3 : e;
			fprintf(g, "%s\"%g%s\" %g", first ? "" : ", ", v / pow(1000, e), sfx[e], v);
			first = 0;
		}
	}
	fprintf(g, ")\n");
}

/* The ops/s figure of m into file; 0, or -1 with a message in err. */
int kvb_ops_script(FILE *g, const char *file, const struct kvb_rmodel *m,
		   char *err, size_t errlen)
{
	struct kvb_vgroup *x = NULL;
	struct ops_row **rows = NULL;
	char why[512];
	int fmt = kvb_plot_format(file, err, errlen), ng, i, j, *sel = NULL, *nr = NULL;
	int shown = 0, total = 0, ret = -1;
	double lo = INFINITY, hi = 0;

	if (fmt < 0)
		return -1;
	ng = kvb_rmodel_verdict(m, KVB_VERDICT_ALPHA, m->margin, &x);
	sel = calloc(ng > 0 ? ng : 1, sizeof(*sel));
	nr = calloc(ng > 0 ? ng : 1, sizeof(*nr));
	rows = calloc(ng > 0 ? ng : 1, sizeof(*rows));
	if (ng < 0 || !sel || !nr || !rows) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	kvb_report_select(m, x, ng, 0, 0, sel, why, sizeof(why));
	for (i = 0; i < ng; i++) {
		if (!sel[i])
			continue;
		rows[i] = ops_rows(m, &x[i], &nr[i]);
		if (!rows[i]) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		shown++;
		total += nr[i];
		for (j = 0; j < nr[i]; j++) {
			lo = fmin(lo, rows[i][j].lo);
			hi = fmax(hi, rows[i][j].hi);
		}
	}
	if (!shown) {
		snprintf(err, errlen, "no workload group to draw (%s)", why);
		goto out;
	}
	for (i = 0, j = 0; i < ng; i++)
		if (sel[i])
			ops_data(g, rows[i], nr[i], j++);
	snprintf(why, sizeof(why),
		 "ops/s, median and the slowest to the fastest run; %s, accel %s, %d CPUs; !: noisy (%d of %d)",
		 m->kernel, m->accel, m->cpus, m->noisy, m->nv);
	figure_head(g, fmt, file, 120 + 40 * total + 60 * shown, shown, why);
	fprintf(g, "\nset logscale x\nset grid xtics\n");
	ops_tics(g, lo / 1.25, hi * 1.25);
	fprintf(g, "set xlabel '%s'\n",
		"ops/s over all threads (log; in-process: no system call, not in the verdict)");
	for (i = 0, j = 0; i < ng; i++)
		if (sel[i])
			ops_panel(g, &x[i], rows[i], nr[i], j++, lo / 1.25, hi * 1.25);
	fprintf(g, "unset multiplot\n");
	ret = 0;
out:
	for (i = 0; rows && i < ng; i++)
		free(rows[i]);
	free(rows);
	free(nr);
	free(sel);
	kvb_verdict_free(x, ng);
	return ret;
}
