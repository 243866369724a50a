// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench: the figure, drawn by gnuplot from a JSON report. `kvbench plot`
 * reads the report from a file; `bench --plot` renders its own report to
 * JSON first and reads that, so both draw the same figure from the same
 * data: every run's ops/s, the latency percentiles and the provenance.
 *
 * One column of panels per workload (mix), and rows:
 *  (a) ops/s against threads, a line per backend, whiskers from the
 *      slowest to the fastest run, hollow points where there were more
 *      threads than CPUs (the nop floor dashed grey);
 *  (b) the same over rwlock's ops/s, so that ratios read directly;
 *  (c) latency p50 and p99 per backend, at the highest thread count that
 *      had a CPU per thread;
 * for the calls a user makes: single operations, ioctl, an fd per thread.
 * Other call shapes the report has (BATCH, packed calls, io_uring, a
 * shared fd) follow as rows of (a): up to PLOT_MAX_EXTRA, or PLOT_MAX_ROWS
 * when a report of one workload lets the panels wrap into a grid. A header
 * holds the title, the provenance (kernel, accelerator, CPUs, commit,
 * date), the setup and the one legend.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kvbench.h"

#define PANEL_W		460
#define ROW_OPS_H	330	/* (a) and the other call shapes */
#define ROW_RATIO_H	290	/* (b) */
#define ROW_LAT_H	350	/* (c): room for the backends' names */
#define HEAD_H		106	/* title, provenance, setup, rows */
#define KEY_ROW_H	22	/* a row of the legend */
#define FOOT_H		26
/* rows of other call shapes: with several workloads, with one */
#define PLOT_MAX_EXTRA	3
#define PLOT_MAX_ROWS	6
#define PLOT_NAME	40

/*
 * Series colours: Okabe and Ito's colour-blind-safe set, then two of Paul
 * Tol's; rwlock, the reference of (b), is black, nop grey. Point shapes
 * tell the series apart where colours repeat; hollow is the same shape
 * less one (gnuplot's pt 7 filled circle, 6 hollow).
 */
static const char * const colors[] = {
	"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
	"#882255", "#999933",
};

static const int shapes[] = { 7, 5, 13, 15, 11 };

#define RWLOCK_COLOR	"#000000"
#define NOP_COLOR	"#8C8C8C"
#define SHADE_COLOR	"#EEEEEE"

/* How a case called the map: a row of the figure per shape. */
struct shape {
	unsigned int batch;	/* operations per call; 1: single ops */
	int multi;		/* packed MGET/MSET/MDEL, not BATCH */
	int uring;		/* io_uring; 0: ioctl, or no device */
	unsigned int qd;
	int sqpoll;
	int shared;		/* one fd for every thread */
};

/* One result of the report, as the figure needs it. */
struct pcase {
	int series;		/* index in plot.series */
	int panel;		/* index in plot.panels; -1: the floor */
	struct shape sh;
	unsigned int threads;
	double ops, lo, hi;	/* median, slowest and fastest run, ops/s */
	double p50, p99;	/* ns; NAN when the report has none */
};

struct series {
	char name[PLOT_NAME];	/* the backend, without its io: "rcu" */
	int floor;		/* nop: dashed grey, in every panel */
	int dashed;		/* a userspace baseline or a peer */
	int device;		/* called through the device (its "io" is not null) */
	const char *color;
	int pt;			/* filled point type; hollow is pt - 1 */
};

struct plot {
	struct pcase *c;
	int n;
	struct series *series;
	int nseries;
	char (*panels)[PLOT_NAME];	/* columns: workloads, as they come */
	int npanel;
	int floor_only;		/* nothing but nop: one panel, for it */
	struct shape *rows;	/* rows[0] the main shape, then the others */
	int nrow, nextra;	/* shapes; rows of other shapes drawn */
	unsigned int *threads;	/* ascending */
	int nthr;
	int cpus;		/* the report's: threads above it share CPUs */
	int base;		/* the series (b) divides by; -1: no (b) */
	int lat;		/* any latency in the main shape: (c) */
	unsigned int *lat_thr;	/* per panel: the threads of (c) */
	double ymin, ymax;	/* ops/s, every row of (a) */
	double rmin, rmax;	/* ratios, (b) */
	double lmin, lmax;	/* latency, ns, (c) */
	int runs;		/* most runs of a case */
	char title[200];
	char prov[400];
	char setup[300];
	char rowsline[300];
	char foot[300];
};

/* A name safe in a datablock line and a title: no quotes, no blanks. */
static void clean(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; i + 1 < len && src[i]; i++) {
		char c = src[i];

		dst[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || strchr("_.:+-()/", c) ? c : '_';
	}
	dst[i] = 0;
}

static double jnum(const struct jnode *o, const char *key, double def)
{
	const struct jnode *v = kvb_json_get(o, key, J_NUM);

	return v ? v->num : def;
}

static const char *jstr(const struct jnode *o, const char *key, const char *def)
{
	const struct jnode *v = kvb_json_get(o, key, J_STR);

	return v ? v->str : def;
}

static int jbool(const struct jnode *o, const char *key)
{
	const struct jnode *v = kvb_json_get(o, key, J_BOOL);

	return v && v->num;
}

static int same_shape(const struct shape *a, const struct shape *b)
{
	return a->batch == b->batch && a->multi == b->multi && a->uring == b->uring &&
	       a->qd == b->qd && a->sqpoll == b->sqpoll && a->shared == b->shared;
}

/* Does case x belong in row r? The floor has no batch: it is in each. */
static int in_row(const struct plot *pl, const struct pcase *x, int r)
{
	const struct shape *s = &pl->rows[r];

	if (pl->series[x->series].floor)
		return x->sh.uring == s->uring && x->sh.qd == s->qd &&
		       x->sh.sqpoll == s->sqpoll && x->sh.shared == s->shared;
	return same_shape(&x->sh, s);
}

static void shape_name(const struct shape *s, char *buf, size_t len)
{
	size_t n;

	if (s->multi)
		n = snprintf(buf, len, "MGET/MSET/MDEL(%u)", s->batch);
	else if (s->batch > 1)
		n = snprintf(buf, len, "BATCH(%u)", s->batch);
	else
		n = snprintf(buf, len, "single ops");
	if (s->uring && n < len)
		n += snprintf(buf + n, len - n, " via io_uring qd%u%s", s->qd,
			      s->sqpoll ? " SQPOLL" : "");
	if (s->shared && n < len)
		snprintf(buf + n, len - n, ", one shared fd");
}

static void mix_name(const char *mix, char *buf, size_t len)
{
	const char *c = strchr(mix, ':');

	if (!strcmp(mix, "nop"))
		snprintf(buf, len, "nop, the ioctl floor");
	else if (!strcmp(mix, "get") || !strcmp(mix, "set") || !strcmp(mix, "del"))
		snprintf(buf, len, "%s only", mix);
	else if (c && strchr(c + 1, ':'))
		snprintf(buf, len, "%s GET:SET:DEL", mix);
	else if (c)
		snprintf(buf, len, "%s GET:SET", mix);
	else
		snprintf(buf, len, "%s", mix);
}

/*
 * A workload's mix, whose name is the workload's: its operations, "95% GET,
 * 5% insert" (the shares of the JSON's mix object, in percent); "" when
 * the object has none.
 */
static void wl_mix(const struct jnode *mix, char *buf, size_t len)
{
	static const char * const ops[][2] = {
		{ "get", "GET" }, { "set", "SET" }, { "del", "DEL" },
		{ "insert", "insert" }, { "rmw", "read-modify-write" },
	};
	double w[ARRAY_SIZE(ops)], sum = 0;
	size_t i, n = 0;

	buf[0] = 0;
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		w[i] = jnum(mix, ops[i][0], 0);
		sum += w[i] > 0 ? w[i] : 0;
	}
	for (i = 0; i < ARRAY_SIZE(ops) && sum > 0 && n < len; i++)
		if (w[i] > 0)
			n += snprintf(buf + n, len - n, "%s%.0f%% %s", n ? ", " : "",
				      100 * w[i] / sum, ops[i][1]);
}

/* A panel's title: "50:50 GET:SET", or a workload's "A (50% GET, 50% SET)". */
static void panel_name(const char *key, char *buf, size_t len)
{
	const char *mix = strchr(key, ' ');
	char m[PLOT_NAME + 16];

	mix_name(mix ? mix + 1 : key, m, sizeof(m));
	if (mix)
		snprintf(buf, len, "%.*s (%s)", (int)(mix - key), key, m);
	else
		snprintf(buf, len, "%s", m);
}

static int add_name(char (*v)[PLOT_NAME], int *n, const char *s)
{
	int i;

	for (i = 0; i < *n; i++)
		if (!strcmp(v[i], s))
			return i;
	snprintf(v[*n], PLOT_NAME, "%s", s);
	return (*n)++;
}

static int add_series(struct plot *pl, const char *backend, const char *kind)
{
	char name[PLOT_NAME];
	struct series *s;
	int i;

	/* "rcu/uring-qd16" is rcu: the io is the row's */
	clean(name, sizeof(name), backend);
	name[strcspn(name, "/")] = 0;
	for (i = 0; i < pl->nseries; i++)
		if (!strcmp(pl->series[i].name, name))
			return i;
	s = &pl->series[pl->nseries];
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->floor = !strcmp(kind, "floor") || !strcmp(name, "nop");
	s->dashed = s->floor || !strcmp(kind, "userspace") || !strcmp(kind, "peer");
	return pl->nseries++;
}

static void add_thread(struct plot *pl, unsigned int t)
{
	int i, j;

	for (i = 0; i < pl->nthr && pl->threads[i] < t; i++)
		;
	if (i < pl->nthr && pl->threads[i] == t)
		return;
	for (j = pl->nthr; j > i; j--)
		pl->threads[j] = pl->threads[j - 1];
	pl->threads[i] = t;
	pl->nthr++;
}

/* One result into pl->c[pl->n]; 0, or 1 when it has nothing to draw. */
static int load_case(struct plot *pl, const struct jnode *r, char (*names)[PLOT_NAME],
		     int *nnames)
{
	const struct jnode *runs = kvb_json_get(r, "ops_per_sec_runs", J_ARR);
	const struct jnode *lat = kvb_json_get(r, "latency_ns", J_OBJ);
	const struct jnode *mix = kvb_json_get(r, "mix", J_OBJ);
	const char *backend = jstr(r, "backend", NULL);
	const char *workload = jstr(r, "workload", NULL);
	const char *kind = jstr(r, "kind", "");
	const char *fd = jstr(r, "fd", "");
	double threads = jnum(r, "threads", 0);
	struct pcase *x = &pl->c[pl->n];
	char m[PLOT_NAME / 2], w[PLOT_NAME / 2], ops[PLOT_NAME / 2], key[PLOT_NAME];
	int i;

	memset(x, 0, sizeof(*x));
	x->ops = jnum(r, "ops_per_sec", NAN);
	if (!backend || !(x->ops > 0) || !(threads >= 1) || threads > KVB_MAX_THREADS)
		return 1;
	x->threads = threads;
	x->series = add_series(pl, backend, kind);
	x->sh.batch = jnum(r, "batch", 1);
	x->sh.multi = jbool(r, "multi");
	x->sh.uring = !strcmp(jstr(r, "io", ""), "uring");
	x->sh.qd = x->sh.uring ? jnum(r, "qd", 0) : 0;
	x->sh.sqpoll = x->sh.uring && jbool(r, "sqpoll");
	x->sh.shared = !strcmp(fd, "shared");
	pl->series[x->series].device |= !!jstr(r, "io", NULL);
	x->lo = x->ops;
	x->hi = x->ops;
	for (i = 0; runs && i < runs->nkids; i++) {
		if (runs->kids[i].type != J_NUM)
			continue;
		x->lo = fmin(x->lo, runs->kids[i].num);
		x->hi = fmax(x->hi, runs->kids[i].num);
	}
	if (runs && runs->nkids > pl->runs)
		pl->runs = runs->nkids;
	/* a percentile the report could not give (null) is not drawn */
	x->p50 = jnum(lat, "p50", NAN);
	x->p99 = jnum(lat, "p99", NAN);
	x->panel = -1;
	if (!pl->series[x->series].floor) {
		/*
		 * a workload's panel: its name, a blank, its operations (the
		 * name has no blanks: clean())
		 */
		clean(m, sizeof(m), jstr(mix, "name", "?"));
		if (workload) {
			clean(w, sizeof(w), workload);
			wl_mix(mix, ops, sizeof(ops));
			if (ops[0])
				memcpy(m, ops, sizeof(m));
			snprintf(key, sizeof(key), "%s %s", w, m);
		} else {
			snprintf(key, sizeof(key), "%s", m);
		}
		x->panel = add_name(names, nnames, key);
	}
	add_thread(pl, x->threads);
	pl->n++;
	return 0;
}

/* The main shape first (single ops, ioctl, fd per thread), then as they come. */
static void find_rows(struct plot *pl)
{
	static const struct shape main_shape = { .batch = 1 };
	int i, j, max;

	for (i = 0; i < pl->n && !pl->nrow; i++)
		if (same_shape(&pl->c[i].sh, &main_shape) &&
		    (pl->floor_only || !pl->series[pl->c[i].series].floor))
			pl->rows[pl->nrow++] = main_shape;
	for (i = 0; i < pl->n; i++) {
		if (!pl->floor_only && pl->series[pl->c[i].series].floor)
			continue;
		for (j = 0; j < pl->nrow; j++)
			if (same_shape(&pl->rows[j], &pl->c[i].sh))
				break;
		if (j == pl->nrow)
			pl->rows[pl->nrow++] = pl->c[i].sh;
	}
	max = pl->npanel > 1 ? PLOT_MAX_EXTRA : PLOT_MAX_ROWS;
	pl->nextra = pl->nrow - 1 < max ? pl->nrow - 1 : max;
}

/* The case of series s in panel m of row r at t threads, or NULL. */
static const struct pcase *point(const struct plot *pl, int r, int m, int s,
				 unsigned int t)
{
	int i;

	for (i = 0; i < pl->n; i++) {
		const struct pcase *x = &pl->c[i];

		if (x->series == s && x->threads == t && in_row(pl, x, r) &&
		    (x->panel == m || x->panel < 0))
			return x;
	}
	return NULL;
}

static int series_in(const struct plot *pl, int r, int m, int s)
{
	int t;

	for (t = 0; t < pl->nthr; t++)
		if (point(pl, r, m, s, pl->threads[t]))
			return 1;
	return 0;
}

/* Any case of a real backend in this panel? (The floor alone is not one.) */
static int panel_used(const struct plot *pl, int r, int m)
{
	int i;

	for (i = 0; i < pl->n; i++)
		if (pl->c[i].panel == m && in_row(pl, &pl->c[i], r))
			return 1;
	return pl->floor_only;
}

static void style_series(struct plot *pl)
{
	int i, k = 0;

	for (i = 0; i < pl->nseries; i++) {
		struct series *s = &pl->series[i];

		s->pt = 7;
		if (s->floor) {
			s->color = NOP_COLOR;
		} else if (!strcmp(s->name, "rwlock")) {
			s->color = RWLOCK_COLOR;
		} else {
			s->color = colors[k % ARRAY_SIZE(colors)];
			s->pt = shapes[k % ARRAY_SIZE(shapes)];
			k++;
		}
	}
}

/* The series (b) divides by: rwlock, else the userspace one, else none. */
static int find_base(const struct plot *pl)
{
	static const char * const names[] = { "rwlock", "user-rwlock" };
	size_t k;
	int i, j;

	for (k = 0; k < ARRAY_SIZE(names); k++)
		for (i = 0; i < pl->nseries; i++)
			for (j = 0; j < pl->n; j++)
				if (pl->c[j].series == i && !strcmp(pl->series[i].name, names[k]) &&
				    in_row(pl, &pl->c[j], 0))
					return i;
	return -1;
}

static double ratio(const struct plot *pl, const struct pcase *x, int m)
{
	const struct pcase *b = point(pl, 0, m, pl->base, x->threads);

	return b ? x->ops / b->ops : NAN;
}

/* The ranges every panel of a row shares, and (c)'s thread counts. */
static void ranges(struct plot *pl)
{
	int i, r, m;

	pl->ymin = INFINITY;
	pl->ymax = 0;
	pl->rmin = INFINITY;
	pl->rmax = 0;
	pl->lmin = INFINITY;
	pl->lmax = 0;
	for (m = 0; m < pl->npanel; m++) {
		unsigned int best = 0, low = 0;

		for (i = 0; i < pl->n; i++) {
			const struct pcase *x = &pl->c[i];

			if ((x->panel != m && x->panel >= 0) || !in_row(pl, x, 0) || !(x->p50 > 0))
				continue;
			if (x->threads <= (unsigned int)pl->cpus && x->threads > best)
				best = x->threads;
			if (!low || x->threads < low)
				low = x->threads;
		}
		/* every count oversubscribed: the least, marked as such */
		pl->lat_thr[m] = best ? best : low;
		pl->lat |= !!pl->lat_thr[m];
	}
	for (i = 0; i < pl->n; i++) {
		const struct pcase *x = &pl->c[i];

		for (r = 0; r <= pl->nextra; r++) {
			if (!in_row(pl, x, r))
				continue;
			pl->ymin = fmin(pl->ymin, x->lo);
			pl->ymax = fmax(pl->ymax, x->hi);
		}
		if (!in_row(pl, x, 0))
			continue;
		for (m = 0; m < pl->npanel; m++) {
			double q = pl->base >= 0 ? ratio(pl, x, m) : NAN;

			if (x->panel >= 0 && x->panel != m)
				continue;
			if (q > 0) {
				pl->rmin = fmin(pl->rmin, q);
				pl->rmax = fmax(pl->rmax, q);
			}
			if (x->threads != pl->lat_thr[m])
				continue;
			if (x->p50 > 0)
				pl->lmin = fmin(pl->lmin, x->p50);
			if (x->p99 > 0)
				pl->lmax = fmax(pl->lmax, x->p99);
			if (x->p50 > 0)
				pl->lmax = fmax(pl->lmax, x->p50);
		}
	}
	if (!(pl->rmax > 0))
		pl->base = -1;
	if (!(pl->lmax > 0))
		pl->lat = 0;
	else if (!isfinite(pl->lmin))
		pl->lmin = pl->lmax;
}

static void fmt_date(const char *iso, char *buf, size_t len)
{
	/* 2026-12-06T15:49:39Z -> 2026-12-06 15:49 UTC */
	if (strlen(iso) >= 16 && iso[10] == 'T')
		snprintf(buf, len, "%.10s %.5s UTC", iso, iso + 11);
	else
		snprintf(buf, len, "%s", iso);
}

/* Title, provenance and setup, from the report's top level. */
static void captions(struct plot *pl, const struct jnode *root)
{
	const struct jnode *pv = kvb_json_get(root, "provenance", J_OBJ);
	const struct jnode *pa = kvb_json_get(root, "params", J_OBJ);
	const char *dist = jstr(pa, "dist", NULL);
	double dur = jnum(pa, "duration_s", NAN), nops = jnum(pa, "ops_per_thread", NAN);
	char date[64], rep[128], what[96];
	size_t n;

	pl->cpus = jnum(root, "cpus", jnum(pv, "nproc", 0));
	snprintf(pl->title, sizeof(pl->title), "kvbench: throughput and latency per backend%s",
		 jbool(root, "interrupted") ? " (interrupted run: the cases it finished)" :
		 kvb_json_get(root, "complete", J_BOOL) && !jbool(root, "complete") ?
		 " (a report written while the run went on)" : "");
	fmt_date(jstr(root, "date", "date unknown"), date, sizeof(date));
	n = snprintf(pl->prov, sizeof(pl->prov), "kernel %s %s  |  accelerator %s  |  ",
		     jstr(root, "kernel", "unknown"), jstr(root, "machine", ""),
		     jstr(pv, "accel", "unknown"));
	if (pl->cpus > 0)
		n += snprintf(pl->prov + n, sizeof(pl->prov) - n, "%d CPU%s", pl->cpus,
			      pl->cpus == 1 ? "" : "s");
	else
		n += snprintf(pl->prov + n, sizeof(pl->prov) - n, "CPUs unknown");
	if (n < sizeof(pl->prov))
		n += snprintf(pl->prov + n, sizeof(pl->prov) - n, " (%s)  |  commit %s  |  %s",
			      jstr(pv, "cpu_model", "model unknown"),
			      jstr(pv, "git_describe", "unknown"), date);
	n = 0;
	if (pa)
		n = snprintf(pl->setup, sizeof(pl->setup),
			     "%.0f keys of %.0f B, values of %.0f B, %s keys",
			     jnum(pa, "keys", 0), jnum(pa, "key_size", 0),
			     jnum(pa, "value_size", 0),
			     /* with -W each workload has its own (its panel's title) */
			     kvb_json_get(pa, "workloads", J_ARR) ? "each workload's" :
			     dist ? dist : "uniform");
	if (dist && !strcmp(dist, "zipf") && !kvb_json_get(pa, "workloads", J_ARR) &&
	    n < sizeof(pl->setup))
		n += snprintf(pl->setup + n, sizeof(pl->setup) - n, " (theta %.2f)",
			      jnum(pa, "theta", 0));
	if (dur > 0)
		snprintf(what, sizeof(what), "of %g s", dur);
	else if (nops > 0)
		snprintf(what, sizeof(what), "of %.0f ops per thread", nops);
	else
		what[0] = 0;
	snprintf(rep, sizeof(rep), "%d run%s %s", pl->runs, pl->runs == 1 ? "" : "s", what);
	if (n < sizeof(pl->setup))
		snprintf(pl->setup + n, sizeof(pl->setup) - n,
			 "%s%s per point%s; ops/s over all threads", n ? "; " : "", rep,
			 pl->runs > 1 ? ", whiskers from the slowest to the fastest run" : "");
}

/* The host the report was measured on, after the setup: busy, steal, noisy */
static void host_caption(struct plot *pl, const struct kvb_rmodel *rm)
{
	size_t n = strlen(pl->setup);
	char busy[32] = "busy unknown", steal[32] = "steal unknown";

	if (isfinite(rm->busy_pct))
		snprintf(busy, sizeof(busy), "%.0f%% busy", rm->busy_pct);
	if (isfinite(rm->steal_pct))
		snprintf(steal, sizeof(steal), "%.0f%% stolen", rm->steal_pct);
	if (n < sizeof(pl->setup))
		snprintf(pl->setup + n, sizeof(pl->setup) - n,
			 "  |  host %s (%s)%s; %d of %d cases noisy", busy, steal,
			 rm->host_busy > 0 ? ", BUSY" : "", rm->noisy, rm->nv);
}

static void free_plot(struct plot *pl)
{
	free(pl->c);
	free(pl->series);
	free(pl->panels);
	free(pl->rows);
	free(pl->threads);
	free(pl->lat_thr);
}

/* Which rows show what: the caption's last line. */
static void rows_line(struct plot *pl)
{
	const struct shape *s = &pl->rows[0];
	/* the last letter of the main shape's rows */
	char last = 'a' + (pl->base >= 0) + pl->lat, name[96];
	int i, device = 0;
	size_t n;

	shape_name(s, name, sizeof(name));
	if (last > 'a')
		n = snprintf(pl->rowsline, sizeof(pl->rowsline), "(a) to (%c): ", last);
	else
		n = snprintf(pl->rowsline, sizeof(pl->rowsline), "(a): ");
	for (i = 0; i < pl->nseries; i++)
		device |= pl->series[i].device && !pl->series[i].floor;
	/* what the device's targets went through; the others make their own calls */
	if (n < sizeof(pl->rowsline))
		n += snprintf(pl->rowsline + n, sizeof(pl->rowsline) - n, "%s%s%s%s", name,
			      device && !s->uring ? ", through ioctl" : "",
			      device && !s->shared ? " with an fd per thread" : "",
			      device ? " for the device's targets" : "");
	if (pl->nextra)
		shape_name(&pl->rows[1], name, sizeof(name));
	if (pl->nextra == 1 && n < sizeof(pl->rowsline))
		snprintf(pl->rowsline + n, sizeof(pl->rowsline) - n, "; (%c): %s", last + 1, name);
	else if (pl->nextra && n < sizeof(pl->rowsline))
		snprintf(pl->rowsline + n, sizeof(pl->rowsline) - n,
			 "; (%c) to (%c): other call shapes, named above them", last + 1,
			 last + pl->nextra);
}

/*
 * The figure's data from a report read by the report model (benchjson.c:
 * its schema check, its cases); 0, or -1 with a message in err.
 */
static int load(struct plot *pl, const struct kvb_rmodel *rm, char *err, size_t errlen)
{
	const struct jnode *root = &rm->root;
	int i, k, dropped;

	memset(pl, 0, sizeof(*pl));
	k = rm->n ? rm->n : 1;
	pl->c = calloc(k, sizeof(*pl->c));
	pl->series = calloc(k, sizeof(*pl->series));
	pl->panels = calloc(k, sizeof(*pl->panels));
	pl->rows = calloc(k, sizeof(*pl->rows));
	pl->threads = calloc(k, sizeof(*pl->threads));
	pl->lat_thr = calloc(k, sizeof(*pl->lat_thr));
	if (!pl->c || !pl->series || !pl->panels || !pl->rows || !pl->threads || !pl->lat_thr) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (i = 0; i < rm->n; i++)
		load_case(pl, rm->c[i].node, pl->panels, &pl->npanel);
	if (!pl->n) {
		snprintf(err, errlen, "no results to draw");
		return -1;
	}
	/* only the floor was measured: one panel, for it */
	if (!pl->npanel) {
		snprintf(pl->panels[0], PLOT_NAME, "nop");
		pl->npanel = 1;
		pl->floor_only = 1;
	}
	find_rows(pl);
	style_series(pl);
	captions(pl, root);
	host_caption(pl, rm);
	pl->base = find_base(pl);
	ranges(pl);
	rows_line(pl);
	dropped = pl->nrow - 1 - pl->nextra;
	if (dropped > 0) {
		char s[96];
		size_t n = snprintf(pl->foot, sizeof(pl->foot),
				    "Not drawn (%d more call shape%s): ",
				    dropped, dropped == 1 ? "" : "s");

		for (i = 1 + pl->nextra; i < pl->nrow && n < sizeof(pl->foot); i++) {
			shape_name(&pl->rows[i], s, sizeof(s));
			n += snprintf(pl->foot + n, sizeof(pl->foot) - n, "%s%s",
				      i > 1 + pl->nextra ? "; " : "", s);
		}
	}
	return 0;
}

static int oversub(const struct plot *pl, unsigned int t)
{
	return pl->cpus > 0 && t > (unsigned int)pl->cpus;
}

/* Series apart a little along x (log2), so that their whiskers do not hide each other. */
static double dodge(const struct plot *pl, int s, unsigned int t)
{
	double step = fmin(0.035, 0.3 / pl->nseries);

	return t * pow(2, (s - (pl->nseries - 1) / 2.0) * step);
}

/*
 * The data, as gnuplot datablocks. $A<r>_<m>: row r, panel m, a data set
 * (index) per series present: x, threads, ops/s, slowest, fastest,
 * oversubscribed. $R<m>: the same over the base, x, ratio,
 * oversubscribed. $L<m>: (c), a line per series: position, name, p50 and
 * p99 in seconds, colour.
 */
static void datablocks(FILE *g, const struct plot *pl)
{
	int r, m, s, t, k;

	for (r = 0; r <= pl->nextra; r++) {
		for (m = 0; m < pl->npanel; m++) {
			fprintf(g, "$A%d_%d << EOD\n", r, m);
			for (s = 0; s < pl->nseries; s++) {
				if (!series_in(pl, r, m, s))
					continue;
				fprintf(g, "# %s\n", pl->series[s].name);
				for (t = 0; t < pl->nthr; t++) {
					const struct pcase *x = point(pl, r, m, s, pl->threads[t]);

					if (x)
						fprintf(g, "%.5f %u %.6g %.6g %.6g %d\n",
							dodge(pl, s, x->threads), x->threads,
							x->ops, x->lo, x->hi,
							oversub(pl, x->threads));
				}
				fprintf(g, "\n\n");
			}
			fprintf(g, "EOD\n");
		}
	}
	for (m = 0; pl->base >= 0 && m < pl->npanel; m++) {
		fprintf(g, "$R%d << EOD\n", m);
		for (s = 0; s < pl->nseries; s++) {
			if (!series_in(pl, 0, m, s))
				continue;
			fprintf(g, "# %s / %s\n", pl->series[s].name, pl->series[pl->base].name);
			for (t = 0; t < pl->nthr; t++) {
				const struct pcase *x = point(pl, 0, m, s, pl->threads[t]);
				double q = x ? ratio(pl, x, m) : NAN;

				if (q > 0)
					fprintf(g, "%.5f %.6g %d\n", dodge(pl, s, x->threads), q,
						oversub(pl, x->threads));
			}
			fprintf(g, "\n\n");
		}
		fprintf(g, "EOD\n");
	}
	for (m = 0; pl->lat && m < pl->npanel; m++) {
		fprintf(g, "$L%d << EOD\n", m);
		for (s = 0, k = 0; s < pl->nseries; s++) {
			const struct pcase *x = point(pl, 0, m, s, pl->lat_thr[m]);

			if (!x || !(x->p50 > 0 || x->p99 > 0))
				continue;
			/* a missing percentile: NaN, which gnuplot leaves out */
			fprintf(g, "%d \"%s\" %.6g %.6g 0x%s\n", k++, pl->series[s].name,
				x->p50 > 0 ? x->p50 / 1e9 : NAN,
				x->p99 > 0 ? x->p99 / 1e9 : NAN, pl->series[s].color + 1);
		}
		fprintf(g, "EOD\n");
	}
}

/*
 * A tic's label: v with an SI prefix and unit, "1.5M", "200k", "2µs";
 * gnuplot's own %c format rounds 1.5M to 2M.
 */
static void si(char *buf, size_t len, double v, const char *unit)
{
	static const struct {
		double f;
		const char *p;
	} pre[] = {
		{ 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" }, { 1, "" },
		{ 0.001, "m" }, { 0.000001, "\xc2\xb5" }, { 0.000000001, "n" },
	};
	size_t i;

	for (i = 0; i + 1 < ARRAY_SIZE(pre) && v < pre[i].f * 0.9999; i++)
		;
	snprintf(buf, len, "%g%s%s", v / pre[i].f, pre[i].p, unit);
}

/* One tic of a list: the first opens it; unit NULL: labelled as is. */
static void tic(FILE *g, int *first, double v, const char *unit)
{
	char l[32];

	if (unit)
		si(l, sizeof(l), v, unit);
	else
		snprintf(l, sizeof(l), "%g", v);
	fprintf(g, "%s'%s' %g", *first ? "(" : ", ", l, v);
	*first = 0;
}

/*
 * Tics at 1, 2 and 5 of each decade in [lo, hi]; at 1 and 3 over more
 * than 2.5 decades, at 1 over more than 4, so that they stay apart; more
 * within a decade or so, so that there are a few.
 */
static void tics_125(FILE *g, double lo, double hi, const char *unit)
{
	static const double s125[] = { 1, 2, 5 }, s13[] = { 1, 3 };
	static const double fine[] = { 1, 1.5, 2, 3, 5, 7 };
	double d, decades = log10(hi / lo);
	const double *steps = decades > 2.5 ? s13 : decades > 1.2 ? s125 : fine;
	size_t i, n = decades > 4 ? 1 : decades > 2.5 ? 2 : decades > 1.2 ? 3 : 6;
	int first = 1;

	fprintf(g, "set ytics nomirror ");
	for (d = pow(10, floor(log10(lo))); d <= hi; d *= 10)
		for (i = 0; i < n; i++)
			if (d * steps[i] >= lo && d * steps[i] <= hi)
				tic(g, &first, d * steps[i], unit);
	fprintf(g, "%s\n", first ? "autofreq" : ")");
}

/*
 * Ratio tics: powers of two (every other one over more than 8 octaves),
 * and between them when the range is narrow; over 3 decades, 1 2 5.
 */
static void tics_ratio(FILE *g, double lo, double hi)
{
	static const double mid[] = { 0.375, 0.75, 1.5, 3, 6 };
	static const double near1[] = { 0.8, 0.9, 1.1, 1.25 };
	int e, first = 1, every = hi / lo > 256 ? 2 : 1;
	size_t i;

	if (hi / lo > 1000) {
		tics_125(g, lo, hi, NULL);
		return;
	}
	fprintf(g, "set ytics nomirror ");
	for (e = -20; e <= 20; e++)
		if (!(e % every) && ldexp(1, e) >= lo && ldexp(1, e) <= hi)
			tic(g, &first, ldexp(1, e), NULL);
	for (i = 0; hi / lo < 8 && i < ARRAY_SIZE(mid); i++)
		if (mid[i] >= lo && mid[i] <= hi)
			tic(g, &first, mid[i], NULL);
	for (i = 0; hi / lo < 2.5 && i < ARRAY_SIZE(near1); i++)
		if (near1[i] >= lo && near1[i] <= hi)
			tic(g, &first, near1[i], NULL);
	fprintf(g, "%s\n", first ? "autofreq" : ")");
}

static void xaxis_threads(FILE *g, const struct plot *pl)
{
	unsigned int lo = pl->threads[0], hi = pl->threads[pl->nthr - 1];
	double pad = pl->nthr == 1 ? 1.6 : 1.35;
	int t;

	fprintf(g, "unset logscale\nset logscale x 2\nset logscale y\n");
	fprintf(g, "set xrange [%g:%g]\nset xtics nomirror (", lo / pad, hi * pad);
	for (t = 0; t < pl->nthr; t++)
		fprintf(g, "%s'%u' %u", t ? ", " : "", pl->threads[t], pl->threads[t]);
	fprintf(g, ") norotate\nset xlabel 'threads' offset 0,0.5\n");
}

/* A grey band over the thread counts above the CPUs. */
static void shade_oversub(FILE *g, const struct plot *pl)
{
	int t;

	for (t = 0; t < pl->nthr && !oversub(pl, pl->threads[t]); t++)
		;
	if (t == pl->nthr)
		return;
	/* from halfway (on the log axis) between the last count that fits and the next */
	fprintf(g, "set object 1 rect from %g, graph 0 to graph 1, graph 1 behind",
		t ? sqrt((double)pl->threads[t - 1] * pl->threads[t]) : pl->threads[0] / 1.35);
	fprintf(g, " fc rgb '%s' fs solid 1.0 noborder\n", SHADE_COLOR);
}

static void no_shade(FILE *g)
{
	fprintf(g, "unset object 1\n");
}

static void place(FILE *g, double x, double y, double w, double h)
{
	fprintf(g, "set origin %f,%f\nset size %f,%f\n", x, y, w, h);
}

/* Between the clauses of a plot command: one a line. */
#define SEP	", \\\n  "

/* The line of a series, and its points or whiskers (pt: their shape). */
static void line_of(FILE *g, const struct series *S)
{
	fprintf(g, " with lines lw %s dt %d", S->floor ? "1.5" : "2", S->dashed ? 2 : 1);
	fprintf(g, " lc rgb '%s' notitle", S->color);
}

static void points_of(FILE *g, const char *with, int pt, const char *color)
{
	fprintf(g, " with %s pt %d ps 0.9 lw 1.2", with, pt);
	fprintf(g, " lc rgb '%s' notitle", color);
}

/* A panel of (a): lines, whiskers, hollow points above the CPUs. */
static void plot_ops(FILE *g, const struct plot *pl, int r, int m)
{
	int s, idx = 0, first = 1;

	fprintf(g, "plot ");
	for (s = 0; s < pl->nseries; s++) {
		const struct series *S = &pl->series[s];

		if (!series_in(pl, r, m, s))
			continue;
		fprintf(g, "%s$A%d_%d index %d using 1:3", first ? "" : SEP, r, m, idx);
		line_of(g, S);
		/* whiskers: y from the slowest to the fastest run; $6: oversubscribed */
		fprintf(g, SEP "$A%d_%d index %d using 1:($6 > 0 ? NaN : $3):4:5", r, m, idx);
		points_of(g, "yerrorbars", S->pt, S->color);
		fprintf(g, SEP "$A%d_%d index %d using 1:($6 > 0 ? $3 : NaN):4:5", r, m, idx);
		points_of(g, "yerrorbars", S->pt - 1, S->color);
		idx++;
		first = 0;
	}
	if (first)
		fprintf(g, "NaN notitle");
	fputc('\n', g);
}

static void plot_ratio(FILE *g, const struct plot *pl, int m)
{
	int s, idx = 0;

	/* the base itself: the line at 1 */
	fprintf(g, "plot 1 with lines lw 1 lc rgb '#000000' notitle");
	for (s = 0; s < pl->nseries; s++) {
		const struct series *S = &pl->series[s];

		if (!series_in(pl, 0, m, s))
			continue;
		fprintf(g, SEP "$R%d index %d using 1:2", m, idx);
		line_of(g, S);
		fprintf(g, SEP "$R%d index %d using 1:($3 > 0 ? NaN : $2)", m, idx);
		points_of(g, "points", S->pt, S->color);
		fprintf(g, SEP "$R%d index %d using 1:($3 > 0 ? $2 : NaN)", m, idx);
		points_of(g, "points", S->pt - 1, S->color);
		idx++;
	}
	fputc('\n', g);
}

/* (c): a stick from p50 (dot) to p99 (triangle) per backend. */
static void plot_latency(FILE *g, int m)
{
	fprintf(g, "plot $L%d using 1:3:(0):($4 - $3):5 with vectors nohead lw 2", m);
	fprintf(g, " lc rgb variable notitle" SEP);
	fprintf(g, "$L%d using 1:3:5:xtic(2) with points pt 7 ps 1.3", m);
	fprintf(g, " lc rgb variable notitle" SEP);
	fprintf(g, "$L%d using 1:4:5 with points pt 9 ps 1.4 lc rgb variable notitle\n", m);
}

/*
 * The legend's rows in w pixels, and the blank entries after the series
 * that put the notes (whiskers, p50, ...) in a column of their own.
 */
static int key_layout(const struct plot *pl, int w, int notes, int *pad)
{
	/* gnuplot makes every column as wide as the longest entry */
	int i, r, cols, len = strlen("threads > 1024 CPUs (shaded)"), n = pl->nseries;

	for (i = 0; i < n; i++)
		if ((int)strlen(pl->series[i].name) + 14 > len)
			len = strlen(pl->series[i].name) + 14;
	cols = (w - 40) / (len * 7 + 60);
	*pad = 0;
	if (cols < 2 || !notes)
		return (n + notes + (cols < 1 ? 1 : cols) - 1) / (cols < 1 ? 1 : cols);
	for (r = 1; (n + r - 1) / r + (notes + r - 1) / r > cols; r++)
		;
	*pad = (n + r - 1) / r * r - n;
	return r;
}

static int any_oversub(const struct plot *pl)
{
	return pl->nthr && oversub(pl, pl->threads[pl->nthr - 1]);
}

/* The header: title, provenance and setup, then the one legend below them. */
static void draw_head(FILE *g, const struct plot *pl, int h, int keyh, int rows, int pad)
{
	int i;

	place(g, 0, 1 - (double)(HEAD_H + keyh) / h, 1, (double)(HEAD_H + keyh) / h);
	fprintf(g, "unset border\nunset xtics\nunset ytics\nunset title\n");
	fprintf(g, "unset xlabel\nunset ylabel\n");
	fprintf(g, "unset logscale\nunset grid\nset xrange [0:1]\nset yrange [0:1]\n");
	/* the key's columns are limited by the plot's width: all of it */
	fprintf(g, "set lmargin 0\nset rmargin 0\nset tmargin 0\nset bmargin 0\n");
	fprintf(g, "set label 11 ");
	kvb_gnuplot_str(g, pl->title);
	fprintf(g, " at screen 0.5, screen %f center font ',15'\n", 1 - 22.0 / h);
	fprintf(g, "set label 12 ");
	kvb_gnuplot_str(g, pl->prov);
	fprintf(g, " at screen 0.5, screen %f center font ',10.5'\n", 1 - 50.0 / h);
	fprintf(g, "set label 13 ");
	kvb_gnuplot_str(g, pl->setup);
	fprintf(g, " at screen 0.5, screen %f center font ',9.5' tc rgb '#444444'\n",
		1 - 70.0 / h);
	fprintf(g, "set label 15 ");
	kvb_gnuplot_str(g, pl->rowsline);
	fprintf(g, " at screen 0.5, screen %f center font ',9.5' tc rgb '#444444'\n",
		1 - 87.0 / h);
	if (pl->foot[0]) {
		fprintf(g, "set label 14 ");
		kvb_gnuplot_str(g, pl->foot);
		fprintf(g, " at screen 0.01, screen %f left font ',9' tc rgb '#444444'\n",
			(FOOT_H / 2.0) / h);
	}
	fprintf(g, "set key at screen 0.5, screen %f center top vertical maxrows %d",
		1 - (double)HEAD_H / h, rows);
	fprintf(g, " reverse Left width 1 samplen 2.5 spacing 1.1 font ',10'\n");
	fprintf(g, "plot ");
	for (i = 0; i < pl->nseries; i++) {
		const struct series *S = &pl->series[i];
		char t[PLOT_NAME + 16];

		snprintf(t, sizeof(t), "%s%s", S->name, S->floor ? " (ioctl floor)" : "");
		fprintf(g, "%sNaN with linespoints lw 2 dt %d pt %d ps 0.9", i ? SEP : "",
			S->dashed ? 2 : 1, S->pt);
		fprintf(g, " lc rgb '%s' title '%s'", S->color, t);
	}
	for (i = 0; i < pad; i++)
		fprintf(g, SEP "NaN with points ps 0 lc rgb '#ffffff' title ' '");
	/* a point off the axes: gnuplot draws an errorbar's key only for data */
	if (pl->runs > 1)
		fprintf(g, SEP "$K using 1:1:1:1 with yerrorbars pt 7 ps 0.9 lw 1.2 %s",
			"lc rgb '#000000' title 'runs: slowest..fastest'");
	if (any_oversub(pl))
		fprintf(g, SEP "NaN with points pt 6 ps 0.9 lc rgb '#000000' %s%d%s",
			"title 'threads > ", pl->cpus, " CPUs (shaded)'");
	if (pl->lat) {
		fprintf(g, SEP "NaN with points pt 7 ps 1.1 lc rgb '#000000' title 'p50 latency'");
		fprintf(g, SEP "NaN with points pt 9 ps 1.2 lc rgb '#000000' title 'p99 latency'");
	}
	fprintf(g, "\nunset label\nunset key\n");
}

/* The axes every panel shares. */
static void panel_style(FILE *g)
{
	fprintf(g, "set lmargin 11\nset rmargin 3\nset tmargin 2.5\nset bmargin 3.5\n");
	fprintf(g, "set border 3\nset tics nomirror out scale 0.6\nunset key\n");
	fprintf(g, "set grid xtics ytics back lc rgb '#e4e4e4' lw 1\nset bars 0.6\n");
}

static void panel_title(FILE *g, char letter, const char *panel, const char *what)
{
	char name[2 * PLOT_NAME + 16], t[200];

	panel_name(panel, name, sizeof(name));
	snprintf(t, sizeof(t), "(%c) %s: %s", letter, name, what);
	fprintf(g, "set title ");
	kvb_gnuplot_str(g, t);
	fprintf(g, " font ',11'\n");
}

static void y_label(FILE *g, int m, const char *what)
{
	fprintf(g, "set ylabel ");
	kvb_gnuplot_str(g, m ? "" : what);
	fprintf(g, " offset -0.5,0\n");
}

/*
 * Where the panels go. A kind of panel is (a), (b), (c) or a row of
 * another call shape. With several workloads each kind is a row of the
 * grid, a column per workload; with one, the kinds flow into a grid of
 * up to three columns, so that a report of one workload is not a tower.
 */
enum { K_OPS, K_RATIO, K_LAT };

struct kind {
	int what;		/* K_* */
	int r;			/* K_OPS: the row of pl->rows */
	int h;			/* pixels */
	char letter;
};

struct grid {
	struct kind k[3 + PLOT_MAX_ROWS];
	int nk;
	int cols;		/* panels across */
	int w, h;		/* the figure, pixels */
	int top;		/* pixels from the bottom to the top of the grid */
	int gh[3 + PLOT_MAX_ROWS];	/* the grid rows' heights */
};

static int grid_row(const struct plot *pl, const struct grid *gr, int k)
{
	return pl->npanel > 1 ? k : k / gr->cols;
}

/* Panel m of kind k: origin and size, as fractions of the figure. */
static void cell(FILE *g, const struct plot *pl, const struct grid *gr, int k, int m)
{
	int col = pl->npanel > 1 ? m : k % gr->cols, row = grid_row(pl, gr, k), i, y = gr->top;

	for (i = 0; i <= row; i++)
		y -= gr->gh[i];
	/* wrapped, the panels of a grid row are as tall as its tallest */
	place(g, (double)col / gr->cols, (double)y / gr->h, 1.0 / gr->cols,
	      (double)gr->gh[row] / gr->h);
}

static void kind_ops(FILE *g, const struct plot *pl, const struct grid *gr, int k)
{
	int r = gr->k[k].r, m;
	char what[160], s[96];

	xaxis_threads(g, pl);
	fprintf(g, "set yrange [%g:%g]\n", pl->ymin / 1.25, pl->ymax * 1.25);
	tics_125(g, pl->ymin / 1.25, pl->ymax * 1.25, "");
	shade_oversub(g, pl);
	shape_name(&pl->rows[r], s, sizeof(s));
	snprintf(what, sizeof(what), "ops/s%s%s", r ? ", " : "", r ? s : "");
	for (m = 0; m < pl->npanel; m++) {
		if (!panel_used(pl, r, m))
			continue;
		cell(g, pl, gr, k, m);
		panel_title(g, gr->k[k].letter, pl->panels[m], what);
		y_label(g, m, "ops/s, all threads");
		plot_ops(g, pl, r, m);
	}
	no_shade(g);
}

static void kind_ratio(FILE *g, const struct plot *pl, const struct grid *gr, int k)
{
	double lo = pl->rmin / 1.3, hi = pl->rmax * 1.3;
	char what[160], yl[96];
	int m;

	xaxis_threads(g, pl);
	fprintf(g, "set yrange [%g:%g]\n", lo, hi);
	tics_ratio(g, lo, hi);
	shade_oversub(g, pl);
	snprintf(what, sizeof(what), "ops/s relative to %s", pl->series[pl->base].name);
	snprintf(yl, sizeof(yl), "%s = 1", pl->series[pl->base].name);
	for (m = 0; m < pl->npanel; m++) {
		if (!panel_used(pl, 0, m))
			continue;
		cell(g, pl, gr, k, m);
		panel_title(g, gr->k[k].letter, pl->panels[m], what);
		y_label(g, m, yl);
		plot_ratio(g, pl, m);
	}
	no_shade(g);
}

static void kind_latency(FILE *g, const struct plot *pl, const struct grid *gr, int k)
{
	/* seconds: the tics then read ns, µs and ms */
	double lo = pl->lmin / 1.6 / 1e9, hi = pl->lmax * 1.6 / 1e9;
	char what[96];
	int m, s, n;

	fprintf(g, "unset logscale\nset logscale y\nunset xlabel\n");
	fprintf(g, "set yrange [%g:%g]\n", lo, hi);
	tics_125(g, lo, hi, "s");
	fprintf(g, "set xtics nomirror rotate by 30 right\nset grid noxtics ytics\n");
	fprintf(g, "set bmargin 6\n");
	for (m = 0; m < pl->npanel; m++) {
		if (!panel_used(pl, 0, m) || !pl->lat_thr[m])
			continue;
		for (s = 0, n = 0; s < pl->nseries; s++) {
			const struct pcase *x = point(pl, 0, m, s, pl->lat_thr[m]);

			n += x && (x->p50 > 0 || x->p99 > 0);
		}
		fprintf(g, "set xrange [-0.6:%f]\n", n - 0.4);
		snprintf(what, sizeof(what), "latency at %u thread%s%s",
			 pl->lat_thr[m], pl->lat_thr[m] == 1 ? "" : "s",
			 oversub(pl, pl->lat_thr[m]) ? " (oversubscribed)" : "");
		cell(g, pl, gr, k, m);
		panel_title(g, gr->k[k].letter, pl->panels[m], what);
		y_label(g, m, "latency per op");
		plot_latency(g, m);
	}
	fprintf(g, "set bmargin 3.5\nset xtics norotate\nset grid xtics ytics\n");
}

static void add_kind(struct grid *gr, int what, int r, int h)
{
	struct kind *k = &gr->k[gr->nk];

	k->what = what;
	k->r = r;
	k->h = h;
	k->letter = 'a' + gr->nk++;
}

/* The figure's size: as wide as its panels and its provenance line. */
static void grid_layout(const struct plot *pl, struct grid *gr, int keyrows, int *keyh)
{
	int r, k, w;

	memset(gr, 0, sizeof(*gr));
	add_kind(gr, K_OPS, 0, ROW_OPS_H);
	if (pl->base >= 0)
		add_kind(gr, K_RATIO, 0, ROW_RATIO_H);
	if (pl->lat)
		add_kind(gr, K_LAT, 0, ROW_LAT_H);
	for (r = 1; r <= pl->nextra; r++)
		add_kind(gr, K_OPS, r, ROW_OPS_H);
	gr->cols = pl->npanel > 1 ? pl->npanel : gr->nk < 3 ? gr->nk : 3;
	for (k = 0; k < gr->nk; k++) {
		int row = grid_row(pl, gr, k);

		if (gr->k[k].h > gr->gh[row])
			gr->gh[row] = gr->k[k].h;
	}
	gr->w = PANEL_W * gr->cols;
	/* about 7.4 pixels a character at 10.5 points */
	w = 7.4 * strlen(pl->prov) + 60;
	if (gr->w < w)
		gr->w = w;
	if (gr->w < 900)
		gr->w = 900;
	*keyh = KEY_ROW_H * keyrows + 10;
	gr->top = 0;
	for (k = 0; k <= grid_row(pl, gr, gr->nk - 1); k++)
		gr->top += gr->gh[k];
	if (pl->foot[0])
		gr->top += FOOT_H;
	gr->h = gr->top + HEAD_H + *keyh;
}

static void script(FILE *g, const struct plot *pl, const char *file, enum kvb_plot_fmt fmt)
{
	int rows, pad, keyh, k, notes = (pl->runs > 1) + any_oversub(pl) + 2 * pl->lat;
	struct grid gr;

	grid_layout(pl, &gr, 1, &keyh);
	rows = key_layout(pl, gr.w, notes, &pad);
	grid_layout(pl, &gr, rows, &keyh);
	fprintf(g, "set terminal %s size %d,%d font ',10' noenhanced", kvb_plot_term(fmt),
		gr.w, gr.h);
	if (fmt == KVB_PLOT_SVG)
		fprintf(g, " dynamic background '#ffffff'");
	else if (fmt == KVB_PLOT_PNG)
		fprintf(g, " background '#ffffff'");
	fprintf(g, "\nset output ");
	kvb_gnuplot_str(g, file);
	fprintf(g, "\nset encoding utf8\n");
	datablocks(g, pl);
	fprintf(g, "$K << EOD\n-1\nEOD\nset multiplot\n");
	draw_head(g, pl, gr.h, keyh, rows, pad);
	panel_style(g);
	for (k = 0; k < gr.nk; k++) {
		if (gr.k[k].what == K_OPS)
			kind_ops(g, pl, &gr, k);
		else if (gr.k[k].what == K_RATIO)
			kind_ratio(g, pl, &gr, k);
		else
			kind_latency(g, pl, &gr, k);
	}
	fprintf(g, "unset multiplot\n");
}

/* The figure for a loaded report into file; 0, or -1 with a message in err. */
int kvb_plot_script(FILE *g, const char *file, const struct kvb_rmodel *report,
		    char *err, size_t errlen)
{
	int fmt = kvb_plot_format(file, err, errlen);
	struct plot pl;
	int rc;

	if (fmt < 0)
		return -1;
	rc = load(&pl, report, err, errlen);
	if (!rc)
		script(g, &pl, file, fmt);
	free_plot(&pl);
	return rc;
}

/*
 * Draw the report in json (its text) into file. what names the report in
 * messages. 0, or -1 after a message on stderr.
 */
/* forest: 0 the run's figure, 1 the forest plot, 2 the ops/s one */
static int plot_json(const char *file, const char *json, const char *what, int forest)
{
	char err[512], *text = NULL;
	struct kvb_rmodel root;
	size_t len = 0;
	FILE *g, *out;
	int rc = -1;

	if (kvb_rmodel_parse(json, &root, err, sizeof(err))) {
		fprintf(stderr, "kvbench: %s: %s\n", what, err);
		return -1;
	}
	g = open_memstream(&text, &len);
	if (!g) {
		fprintf(stderr, "kvbench: plot: %s\n", strerror(errno));
		goto out;
	}
	/* the script first, so that a figure that cannot be drawn starts nothing */
	rc = forest == 2 ? kvb_ops_script(g, file, &root, err, sizeof(err)) :
	     forest ? kvb_forest_script(g, file, &root, err, sizeof(err)) :
		      kvb_plot_script(g, file, &root, err, sizeof(err));
	if (fclose(g) && !rc) {
		snprintf(err, sizeof(err), "%s", strerror(errno));
		rc = -1;
	}
	if (rc) {
		fprintf(stderr, "kvbench: %s: %s\n", what, err);
		goto out;
	}
	/* a file gnuplot cannot open: its "set output" fails, and it drew to stdout */
	out = fopen(file, "w");
	if (!out || fclose(out)) {
		fprintf(stderr, "kvbench: %s: cannot write the figure: %s\n", file,
			strerror(errno));
		rc = -1;
		goto out;
	}
	rc = kvb_run_gnuplot(text, len, err, sizeof(err));
	if (rc)
		fprintf(stderr, "kvbench: %s: %s\n", file, err);
out:
	free(text);
	kvb_rmodel_free(&root);
	return rc;
}

int kvb_plot_json(const char *file, const char *json, const char *what)
{
	return plot_json(file, json, what, 0);
}

static const char plot_help[] =
	"Usage: kvbench plot [OPTIONS] REPORT.json OUT.png|OUT.svg|OUT.jpg\n"
	"\n"
	"Draw a 'kvbench bench' JSON report (bench --json FILE, or -f json) with\n"
	"gnuplot, one column per workload:\n"
	"  (a) ops/s against threads, a line per backend; whiskers from the slowest\n"
	"      to the fastest run; hollow points: more threads than CPUs\n"
	"  (b) the same relative to rwlock (rwlock = 1)\n"
	"  (c) p50 and p99 latency per backend, at the most threads with a CPU each\n"
	"for single ops through ioctl, an fd per thread; other call shapes in the\n"
	"report (BATCH, io_uring, a shared fd) follow as rows of (a). The title\n"
	"names the kernel, accelerator, CPUs, commit and date of the report, the\n"
	"setup line the host's busy share and steal and the noisy cases.\n"
	"The format follows OUT's extension: .png, .svg, .jpg or .jpeg.\n"
	"\n"
	"With --forest, the verdict's figure instead: per workload group that\n"
	"'kvbench report' shows by default, each target's ratio to the fastest\n"
	"with its 95% interval (log axis, lines at 1 and 1 +- the run's margin),\n"
	"coloured by its mark (fastest, tied, slower, inconclusive, cannot tell);\n"
	"'!' after a name: noisy runs. With --ops, its companion: for the same\n"
	"groups each target's ops/s (the median, and the slowest to the fastest\n"
	"run; log axis), the in-process baselines included (hollow: no system\n"
	"call, not in the verdict).\n"
	"\n"
	"Options:\n"
	"      --forest  the verdict's forest plot\n"
	"      --ops     the verdict's ops/s figure, baselines included\n"
	"  -h, --help    show this help\n"
	"\n"
	"Exit status: 0 drawn, 1 the report cannot be read or drawn, 2 on usage\n"
	"errors (an unknown extension, a format this gnuplot cannot write).\n";

/* kvbench plot REPORT.json OUT */
int kvb_plot_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "forest", no_argument, NULL, 'f' },
		{ "ops", no_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 }
	};
	const char *in, *out;
	char err[512], *text;
	int c, rc, forest = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		if (c == 'f' || c == 'p') {
			if (forest && forest != (c == 'f' ? 1 : 2))
				return kvb_usage("plot", NULL,
						 "--forest and --ops: one figure at a time");
			forest = c == 'f' ? 1 : 2;
			continue;
		}
		if (c != 'h')
			return kvb_usage("plot", NULL, NULL);
		fputs(plot_help, stdout);
		return KVB_EXIT_OK;
	}
	if (argc - optind != 2)
		return kvb_usage("plot", NULL,
				 "takes 2 arguments: REPORT.json OUT.png|OUT.svg|OUT.jpg");
	in = argv[optind];
	out = argv[optind + 1];
	if (kvb_plot_check(out, err, sizeof(err)))
		return kvb_usage("plot", NULL, err);
	text = kvb_slurp(in, err, sizeof(err));
	if (!text) {
		fprintf(stderr, "kvbench: %s: %s\n", in, err);
		return KVB_EXIT_FAIL;
	}
	if (text[strspn(text, " \t\r\n")] != '{') {
		fprintf(stderr, "kvbench: %s: not a JSON report; %s\n", in,
			"kvbench plot reads 'bench --json' reports (a CSV has neither the runs nor the provenance the figure shows)");
		free(text);
		return KVB_EXIT_FAIL;
	}
	rc = plot_json(out, text, in, forest);
	free(text);
	return rc ? KVB_EXIT_FAIL : KVB_EXIT_OK;
}
