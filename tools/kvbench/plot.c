// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench: the chart, drawn by gnuplot as small multiples a person reads at
 * a glance. One panel per mix (columns) and per batch size (rows), all on
 * the same logarithmic ops/s axis. With up to two thread counts (a 2-CPU
 * machine) each panel is a bar chart, one group of bars per target, one bar
 * per thread count; with more, a line per target against threads. The nop
 * floor has no mix: it is drawn in every panel, as a reference. One legend,
 * above the panels.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "kvbench.h"

#define PANEL_W		440
#define PANEL_H		330
#define TITLE_H		40
#define LEGEND_H	36

/* Series colours, from a colour-blind-safe set; nop is grey. */
static const char * const colors[] = {
	"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
	"#000000", "#F0E442", "#8C564B", "#7F3C8D", "#11A579", "#3969AC",
};

#define NOP_COLOR	"#888888"
/* Bars: one shade per thread count, light to dark. */
static const char * const bar_colors[] = { "#9ECAE1", "#2171B5" };

struct plot {
	const struct kvb_result *r;
	int n;
	char (*mixes)[32];	/* panel columns, in order of appearance */
	int nmix;
	unsigned int *batches;	/* panel rows, ascending */
	int nbatch;
	char (*series)[KVB_NAME_MAX + 16];	/* target (+ " shared-fd") */
	int nseries;
	unsigned int *threads;	/* ascending */
	int nthr;
	int bars;		/* at most two thread counts: bar charts */
	double ymin, ymax;	/* shared by every panel */
};

/* A name that is safe inside gnuplot quotes and data lines. */
static void clean(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; i + 1 < len && src[i]; i++) {
		char c = src[i];

		dst[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || strchr("_.:+-() ", c) ? c : '_';
	}
	dst[i] = 0;
}

static void series_name(const struct kvb_result *x, char *buf, size_t len)
{
	char t[KVB_NAME_MAX];

	clean(t, sizeof(t), x->target);
	snprintf(buf, len, "%s%s", t, x->fdmode == KVB_FD_SHARED ? " shared-fd" : "");
}

static int find_str(char (*v)[32], int n, const char *s)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return i;
	return -1;
}

static int find_series(const struct plot *pl, const char *s)
{
	int i;

	for (i = 0; i < pl->nseries; i++)
		if (!strcmp(pl->series[i], s))
			return i;
	return -1;
}

static void add_sorted(unsigned int *v, int *n, unsigned int x)
{
	int i, j;

	for (i = 0; i < *n && v[i] < x; i++)
		;
	if (i < *n && v[i] == x)
		return;
	for (j = *n; j > i; j--)
		v[j] = v[j - 1];
	v[i] = x;
	(*n)++;
}

/* A panel row per call shape: batch size, packed calls after BATCHes. */
#define PANEL_MULTI	0x10000U

static unsigned int panel_call(const struct kvb_result *x)
{
	return x->batch | (x->multi ? PANEL_MULTI : 0);
}

static void result_mix(const struct kvb_result *x, char *buf, size_t len)
{
	char m[32];

	kvb_mix_name(&x->mix, m, sizeof(m));
	clean(buf, len, m);
}

static int layout(struct plot *pl, const struct kvb_result *r, int n)
{
	int i, k = n ? n : 1;

	memset(pl, 0, sizeof(*pl));
	pl->r = r;
	pl->n = n;
	pl->mixes = calloc(k, sizeof(*pl->mixes));
	pl->batches = calloc(k, sizeof(*pl->batches));
	pl->series = calloc(k, sizeof(*pl->series));
	pl->threads = calloc(k, sizeof(*pl->threads));
	if (!pl->mixes || !pl->batches || !pl->series || !pl->threads)
		return -1;
	pl->ymin = INFINITY;
	pl->ymax = 0;
	for (i = 0; i < n; i++) {
		const struct kvb_result *x = &r[i];
		char s[KVB_NAME_MAX + 16], mix[32];

		if (!(x->ops_per_sec > 0) || !isfinite(x->ops_per_sec))
			continue;
		series_name(x, s, sizeof(s));
		if (find_series(pl, s) < 0)
			snprintf(pl->series[pl->nseries++], sizeof(*pl->series), "%s", s);
		add_sorted(pl->threads, &pl->nthr, x->threads);
		pl->ymin = fmin(pl->ymin, x->ops_per_sec);
		pl->ymax = fmax(pl->ymax, x->ops_per_sec);
		if (x->kind == KVB_NOP)
			continue;
		result_mix(x, mix, sizeof(mix));
		if (find_str(pl->mixes, pl->nmix, mix) < 0)
			memcpy(pl->mixes[pl->nmix++], mix, sizeof(mix));
		add_sorted(pl->batches, &pl->nbatch, panel_call(x));
	}
	if (!pl->nseries)
		return 1;
	/* Only the floor was measured: one panel for it. */
	if (!pl->nmix) {
		snprintf(pl->mixes[0], sizeof(*pl->mixes), "nop");
		pl->nmix = 1;
		pl->batches[0] = 1;
		pl->nbatch = 1;
	}
	pl->bars = pl->nthr <= 2;
	/* at least a third of a decade below the lowest bar, so it shows */
	pl->ymin = pow(10, floor(log10(pl->ymin) - 0.3));
	pl->ymax = pow(10, ceil(log10(pl->ymax * 1.05)));
	return 0;
}

static void free_layout(struct plot *pl)
{
	free(pl->mixes);
	free(pl->batches);
	free(pl->series);
	free(pl->threads);
}

/* Does result x belong in the panel of mix m and batch b? */
static int in_panel(const struct plot *pl, const struct kvb_result *x,
		    int m, int b)
{
	char s[32];

	if (!(x->ops_per_sec > 0) || !isfinite(x->ops_per_sec))
		return 0;
	if (x->kind == KVB_NOP)
		return 1;	/* the floor, in every panel */
	result_mix(x, s, sizeof(s));
	return !strcmp(s, pl->mixes[m]) && panel_call(x) == pl->batches[b];
}

static int panel_has_data(const struct plot *pl, int m, int b)
{
	int i;

	for (i = 0; i < pl->n; i++)
		if (pl->r[i].kind != KVB_NOP && in_panel(pl, &pl->r[i], m, b))
			return 1;
	return !strcmp(pl->mixes[m], "nop");
}

static const struct kvb_result *point(const struct plot *pl, int m, int b,
				      const char *series, unsigned int threads)
{
	int i;

	for (i = 0; i < pl->n; i++) {
		const struct kvb_result *x = &pl->r[i];
		char s[KVB_NAME_MAX + 16];

		if (x->threads != threads || !in_panel(pl, x, m, b))
			continue;
		series_name(x, s, sizeof(s));
		if (!strcmp(s, series))
			return x;
	}
	return NULL;
}

static const char *series_color(const struct plot *pl, int s)
{
	int i, k = 0;

	if (!strncmp(pl->series[s], "nop", 3) &&
	    (!pl->series[s][3] || pl->series[s][3] == ' '))
		return NOP_COLOR;
	for (i = 0; i < s; i++)
		if (strncmp(pl->series[i], "nop", 3))
			k++;
	return colors[k % ARRAY_SIZE(colors)];
}

/*
 * One series of one panel. Bars: a row, the name then ops/s per thread
 * count ("-" where missing). Lines: a data set (index) of threads, ops/s.
 */
static void series_data(FILE *g, const struct plot *pl, int m, int b, int s)
{
	const char *name = pl->series[s];
	int t;

	if (pl->bars)
		fprintf(g, "\"%s%s\"", name, strcmp(name, "nop") ? "" : " (floor)");
	else
		fprintf(g, "# %d %s\n", s, name);
	for (t = 0; t < pl->nthr; t++) {
		const struct kvb_result *x = point(pl, m, b, name, pl->threads[t]);

		if (pl->bars && x)
			fprintf(g, " %.1f", x->ops_per_sec);
		else if (pl->bars)
			fprintf(g, " -");
		else if (x)
			fprintf(g, "%u %.1f\n", x->threads, x->ops_per_sec);
	}
	fprintf(g, pl->bars ? "\n" : "\n\n");
}

/* The data of every panel, as gnuplot datablocks $P<m>_<b>. */
static void datablocks(FILE *g, const struct plot *pl)
{
	int m, b, s, t;

	for (b = 0; b < pl->nbatch; b++) {
		for (m = 0; m < pl->nmix; m++) {
			fprintf(g, "$P%d_%d << EOD\n", m, b);
			for (s = 0; s < pl->nseries; s++) {
				int any = 0;

				for (t = 0; t < pl->nthr; t++)
					any |= !!point(pl, m, b, pl->series[s], pl->threads[t]);
				if (!any)
					continue;
				series_data(g, pl, m, b, s);
			}
			fprintf(g, "EOD\n");
		}
	}
}

static void panel_title(const struct plot *pl, int m, int b, char *buf, size_t len)
{
	const char *mix = pl->mixes[m];
	const char *what = "GET:SET";
	char batch[32];

	if (pl->batches[b] & PANEL_MULTI)
		snprintf(batch, sizeof(batch), "MGET/MSET/MDEL(%u)",
			 pl->batches[b] & ~PANEL_MULTI);
	else if (pl->batches[b] > 1)
		snprintf(batch, sizeof(batch), "BATCH(%u)", pl->batches[b]);
	else
		snprintf(batch, sizeof(batch), "single ops");
	if (!strcmp(mix, "nop")) {
		snprintf(buf, len, "nop: the ioctl floor");
		return;
	}
	if (!strcmp(mix, "get") || !strcmp(mix, "set") || !strcmp(mix, "del"))
		what = "only";
	else if (!strchr(mix, ':'))	/* a --workload: ycsb-a, seed */
		what = "workload";
	else if (strchr(strchr(mix, ':') + 1, ':'))
		what = "GET:SET:DEL";
	snprintf(buf, len, "%s %s, %s", mix, what, batch);
}

/* The series of one panel in line mode, by index in its datablock. */
static void plot_lines(FILE *g, const struct plot *pl, int m, int b)
{
	int s, t, idx = 0, first = 1;

	fprintf(g, "plot ");
	for (s = 0; s < pl->nseries; s++) {
		int any = 0, shared = !!strstr(pl->series[s], "shared-fd");

		for (t = 0; t < pl->nthr; t++)
			any |= !!point(pl, m, b, pl->series[s], pl->threads[t]);
		if (!any)
			continue;
		fprintf(g, "%s$P%d_%d index %d using 1:2 ", first ? "" : ", ", m, b, idx++);
		fprintf(g, "with linespoints lw 2 pt 7 ps 0.8 dt %d lc rgb '%s' notitle",
			shared ? 2 : 1, series_color(pl, s));
		first = 0;
	}
	if (first)
		fprintf(g, "NaN notitle");
	fputc('\n', g);
}

static void plot_bars(FILE *g, const struct plot *pl, int m, int b)
{
	int t;

	fprintf(g, "plot ");
	for (t = 0; t < pl->nthr; t++)
		fprintf(g, "%s$P%d_%d using %d%s lc rgb '%s' notitle",
			t ? ", " : "", m, b, t + 2, t ? "" : ":xtic(1)",
			bar_colors[t % ARRAY_SIZE(bar_colors)]);
	fputc('\n', g);
}

/* The one legend, in a strip above the panels. */
static void legend(FILE *g, const struct plot *pl, double y, double h,
		   int per_row)
{
	int i;

	fprintf(g, "set origin 0,%f\nset size 1,%f\n", y, h);
	fprintf(g, "unset border\nunset xtics\nunset ytics\n");
	fprintf(g, "unset title\nunset xlabel\nunset ylabel\n");
	fprintf(g, "unset logscale\nset xrange [0:1]\nset yrange [0:1]\nset style data lines\n");
	/* "center" twice: horizontally and vertically, at that point */
	fprintf(g, "set key at screen 0.5,%f center", y + h / 2);
	fprintf(g, " center horizontal maxcols %d reverse Left width 2 samplen 3 font ',11'\n",
		per_row);
	fprintf(g, "plot ");
	if (pl->bars) {
		for (i = 0; i < pl->nthr; i++)
			fprintf(g, "%sNaN with boxes fill solid lc rgb '%s' title '%u thread%s'",
				i ? ", " : "", bar_colors[i % ARRAY_SIZE(bar_colors)],
				pl->threads[i], pl->threads[i] == 1 ? "" : "s");
	} else {
		for (i = 0; i < pl->nseries; i++)
			fprintf(g, "%sNaN with linespoints lw 2 pt 7 dt %d lc rgb '%s' title '%s'",
				i ? ", " : "", strstr(pl->series[i], "shared-fd") ? 2 : 1,
				series_color(pl, i), pl->series[i]);
	}
	fputc('\n', g);
}

/* How many legend entries fit in a row of w pixels, and how many rows. */
static int legend_rows(const struct plot *pl, int w, int *per_row)
{
	int i, len = 10, n = pl->bars ? pl->nthr : pl->nseries;

	for (i = 0; !pl->bars && i < pl->nseries; i++)
		if ((int)strlen(pl->series[i]) > len)
			len = strlen(pl->series[i]);
	*per_row = (w - 40) / (len * 8 + 70);
	if (*per_row < 1)
		*per_row = 1;
	if (*per_row > n)
		*per_row = n;
	return (n + *per_row - 1) / *per_row;
}

static void script(FILE *g, const struct plot *pl, const char *file, int svg)
{
	int w = PANEL_W * pl->nmix, h, m, b, t, per_row, lh;
	double top, ph, pw;

	if (w < 760)	/* room for the title */
		w = 760;
	lh = LEGEND_H + 20 * (legend_rows(pl, w, &per_row) - 1);
	h = TITLE_H + lh + PANEL_H * pl->nbatch;
	top = (double)(TITLE_H + lh) / h;
	ph = (double)PANEL_H / h;
	pw = 1.0 / pl->nmix;
	fprintf(g, "set terminal %s size %d,%d font ',10'%s\n",
		svg ? "svg" : "pngcairo", w, h, svg ? " dynamic" : "");
	fprintf(g, "set output '%s'\n", file);
	fprintf(g, "set datafile missing '-'\nset encoding utf8\n");
	datablocks(g, pl);
	fprintf(g, "set multiplot title 'kvbench: throughput, ops/s over all threads");
	fprintf(g, " (log scale, higher is better)' font ',13'\n");
	fprintf(g, "set lmargin 9\nset rmargin 2\nset tmargin 2\nset bmargin %d\n",
		pl->bars ? 6 : 5);
	fprintf(g, "set logscale y\nset yrange [%g:%g]\nset format y '%%.0s%%c'\n",
		pl->ymin, pl->ymax);
	fprintf(g, "set mytics 10\nset grid ytics mytics back lc rgb '#dddddd'\n");
	fprintf(g, "set border 3\nset tics nomirror\nunset key\n");
	if (pl->bars) {
		fprintf(g, "set style data histograms\nset style histogram clustered gap 1\n");
		fprintf(g, "set style fill solid 0.9 noborder\n");
		fprintf(g, "set xtics rotate by 30 right scale 0\n");
	} else {
		fprintf(g, "set logscale x 2\nset xrange [%g:%g]\nset xtics (",
			pl->threads[0] / 1.2, pl->threads[pl->nthr - 1] * 1.2);
		for (t = 0; t < pl->nthr; t++)
			fprintf(g, "%s'%u' %u", t ? ", " : "", pl->threads[t], pl->threads[t]);
		fprintf(g, ")\nset xlabel 'threads'\n");
	}
	for (b = 0; b < pl->nbatch; b++) {
		for (m = 0; m < pl->nmix; m++) {
			char title[96];

			if (!panel_has_data(pl, m, b))
				continue;
			panel_title(pl, m, b, title, sizeof(title));
			fprintf(g, "set origin %f,%f\nset size %f,%f\n", m * pw,
				1 - top - (b + 1) * ph, pw, ph);
			fprintf(g, "set title '%s'\nset ylabel %s\n", title,
				m ? "''" : "'ops/s'");
			if (pl->bars)
				plot_bars(g, pl, m, b);
			else
				plot_lines(g, pl, m, b);
		}
	}
	legend(g, pl, 1 - top, (double)lh / h, per_row);
	fprintf(g, "unset multiplot\n");
}

/*
 * The gnuplot script that draws r into file (.png or .svg). Returns 0, or
 * -1 with a message when there is nothing to draw or no memory.
 */
int kvb_plot_script(FILE *g, const char *file, const struct kvb_result *r,
		    int n)
{
	const char *dot = strrchr(file, '.');
	struct plot pl;
	int rc;

	if (strchr(file, '\'') || strchr(file, '\n')) {
		fprintf(stderr, "kvbench: --plot: unusable file name\n");
		return -1;
	}
	rc = layout(&pl, r, n);
	if (rc)
		fprintf(stderr, "kvbench: --plot: %s\n",
			rc < 0 ? "out of memory" : "no results to plot");
	else
		script(g, &pl, file, dot && !strcmp(dot, ".svg"));
	free_layout(&pl);
	return rc ? -1 : 0;
}

int kvb_plot(const char *file, const struct kvb_result *r, int n)
{
	struct sigaction ign, old;
	char *text = NULL;
	size_t len = 0;
	int status;
	FILE *g = open_memstream(&text, &len);

	/* the script first, so that a plot that cannot be drawn starts nothing */
	if (!g || kvb_plot_script(g, file, r, n)) {
		if (g)
			fclose(g);
		free(text);
		return -1;
	}
	fclose(g);
	g = popen("gnuplot", "w");
	if (!g) {
		fprintf(stderr, "kvbench: --plot: cannot run gnuplot: %s\n", strerror(errno));
		free(text);
		return -1;
	}
	/* a gnuplot that is missing or dies must not kill us with SIGPIPE */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, &old);
	fwrite(text, 1, len, g);
	free(text);
	status = pclose(g);
	sigaction(SIGPIPE, &old, NULL);
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "kvbench: --plot: gnuplot failed%s\n",
			WIFEXITED(status) && WEXITSTATUS(status) == 127 ?
			" (not installed? apt-get install gnuplot-nox)" : "");
		return -1;
	}
	return 0;
}
