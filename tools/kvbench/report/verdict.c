// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench: the verdict. Which target is the fastest for a workload, and by
 * how much the others trail it, with an interval and a test that do not
 * assume the runs are normal (ops/s of repeated runs are skewed: a busy host
 * makes a run slower, never faster).
 *
 * A workload group is the cases of one report that share the mix (or the
 * workload), the key distribution, threads, batch (or multi), fd mode and
 * io. In each group the target with the highest median ops/s is the
 * fastest; every other one is set against it by
 *
 *   - the Hodges-Lehmann estimate of the ratio other/fastest: the median of
 *     the n * m ratios of a run of one to a run of the other (on the log
 *     scale, so the two middle ratios of an even count meet at their
 *     geometric mean);
 *   - Moses' distribution-free confidence interval for that ratio: the k-th
 *     smallest and the k-th largest of the same n * m ratios, k = c + 1,
 *     where c is the largest U with 2 P(U <= c) <= alpha under the exact
 *     Mann-Whitney null distribution (5 runs against 5 at 0.05: c = 2, the
 *     3rd smallest and 3rd largest of 25);
 *   - the Mann-Whitney p of the same pairs: 2 P(U <= min(a, b)), a the pairs
 *     with the other at most the fastest, b those with it at least: a tie
 *     counts on both sides, against a difference.
 *
 * Counted that way the test and the interval are one: p <= alpha exactly
 * when the interval leaves 1.0 out (a <= c: the (c+1)-th smallest ratio is
 * above 1; b <= c: the (c+1)-th largest is below 1). Without ties p is the
 * usual exact two-sided Mann-Whitney p (kvb_mwu()'s).
 *
 * A group of k + 1 targets makes k tests against its fastest: their p are
 * corrected for that by Holm's step-down method (kvb_holm()), which keeps
 * the chance of one false "slower" mark or more in the group at alpha. A
 * target's interval is its own 95% one, uncorrected: after the correction
 * an interval may leave 1 out with no "slower" mark.
 *
 * The margin (5% by default, --margin) is the smallest difference that
 * counts, on both sides: a three-way decision with a region of practical
 * equivalence (the interval against 1 +- margin). The marks: "slower" where
 * a difference beyond the margin is shown (the Holm p <= alpha and the
 * whole interval below 1 - margin: a minimum-effect test); "tied" only where
 * an equivalence is shown, the whole interval inside 1 +- margin (two
 * one-sided tests at alpha / 2 each, TOST, per pair, not corrected);
 * "inconclusive" where the runs show neither (among them a difference that
 * is significant but not shown to pass the margin: "-4.1% [-7.9%, -1.2%],
 * not beyond -5%"); "cannot tell" where they are too few for any p to reach
 * alpha. The verdict names as the fastest the target of the highest median
 * and those tied with it, no other.
 *
 * Why a minimum effect and not any significant difference: two make bench
 * runs of one commit on one host move a target's median by a few percent
 * against another's (Documentation/results.rst, "Does the verdict hold on
 * the next run?"), more than one run's runs can show; a mark for a
 * difference under the margin did not hold on the next run.
 *
 * The cases come from the report model (benchjson.c): `kvbench bench`
 * and `kvbench report` judge the same shape, by kvb_verdict().
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kvbench.h"

/* Exact U distribution up to this many runs in all: C(50, 25) < 2^53. */
#define KVB_U_EXACT_MAX	50

/*
 * P(U <= u) for n runs against m under the null: the count of U = j is the
 * coefficient of q^j of the Gaussian binomial [n + m choose n]_q, built as
 * the product over i of (1 - q^(m+i)) / (1 - q^i); every count is an
 * integer below C(n + m, n), exact in a double up to 50 runs in all. Beyond,
 * the normal approximation with a continuity correction.
 */
double kvb_mwu_cdf(unsigned int n, unsigned int m, double u)
{
	unsigned int nm = n * m, i, j, top;
	double *a, below = 0, all = 0;

	if (!n || !m)
		return 1;
	if (u < 0)
		return 0;
	if (u >= nm)
		return 1;
	if (n + m > KVB_U_EXACT_MAX) {
		double sd = sqrt(nm * (n + m + 1.0) / 12);

		return 0.5 * erfc(-(floor(u) + 0.5 - nm / 2.0) / sd / sqrt(2));
	}
	/* the product is of degree nm + n before its last division */
	a = calloc(nm + n + 1, sizeof(*a));
	if (!a)
		return NAN;
	a[0] = 1;
	for (i = 1, top = 0; i <= n; i++) {
		/* times (1 - q^(m+i)), from the top down */
		for (j = top + m + i; j >= m + i; j--)
			a[j] -= a[j - (m + i)];
		/* over (1 - q^i): a running sum with stride i; it divides exactly */
		top = i * m;
		for (j = i; j <= top; j++)
			a[j] += a[j - i];
		for (j = top + 1; j <= top + i; j++)
			a[j] = 0;
	}
	for (j = 0; j <= nm; j++) {
		all += a[j];
		if (j <= u)
			below += a[j];
	}
	free(a);
	return below / all;
}

/*
 * The largest U with 2 P(U <= c) <= alpha: the two-sided critical value
 * (reject when U <= c or U >= nm - c); -1 when no U is that unlikely, so
 * that no difference can be significant with these runs.
 */
int kvb_mwu_crit(unsigned int n, unsigned int m, double alpha)
{
	int c = -1;

	while (c + 1 < (int)(n * m) / 2 + 1 && 2 * kvb_mwu_cdf(n, m, c + 1) <= alpha)
		c++;
	return c;
}

/* Runs per target that can show a difference at alpha, the same on both sides. */
unsigned int kvb_verdict_needs(double alpha)
{
	unsigned int r;

	for (r = 2; r < 100 && kvb_mwu_crit(r, r, alpha) < 0; r++)
		;
	return r;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Holm's step-down adjustment of n p-values (NAN ones are no test: they
 * stay NAN and do not count): with the m tests by ascending p, the i-th
 * (from 0) is adjusted to the largest (m - j) p(j) for j <= i, at most 1.
 * A p adjusted to at most alpha is significant with the chance of one
 * false rejection or more among the m kept at alpha.
 */
void kvb_holm(const double *p, int n, double *adj)
{
	int i, j, m = 0, *o;
	double run = 0;

	for (i = 0; i < n; i++) {
		adj[i] = p[i];
		m += !isnan(p[i]);
	}
	o = malloc((m ? m : 1) * sizeof(*o));
	if (!o) {
		/* Bonferroni: never below Holm's adjustment */
		for (i = 0; i < n; i++)
			adj[i] = isnan(p[i]) ? NAN : fmin(1, m * p[i]);
		return;
	}
	for (i = 0, j = 0; i < n; i++)
		if (!isnan(p[i]))
			o[j++] = i;
	/* by ascending p; insertion: a group has a few targets */
	for (i = 1; i < m; i++) {
		int x = o[i];

		for (j = i; j > 0 && p[o[j - 1]] > p[x]; j--)
			o[j] = o[j - 1];
		o[j] = x;
	}
	for (i = 0; i < m; i++) {
		run = fmax(run, fmin(1, (m - i) * p[o[i]]));
		adj[o[i]] = run;
	}
	free(o);
}

/*
 * x (n runs) against y (m runs): the Hodges-Lehmann ratio x/y, Moses'
 * interval and the p (above). -1 when a sample is empty or a run is not
 * positive. With too few runs for any p to reach alpha, h->can_tell is 0,
 * the interval NAN; the estimate and p are still given.
 */
int kvb_hl_ratio(const double *x, unsigned int n, const double *y,
		 unsigned int m, double alpha, struct kvb_hl *h)
{
	unsigned int nm = n * m, i, j, le = 0, ge = 0;
	double *r;

	memset(h, 0, sizeof(*h));
	h->alpha = alpha;
	h->ratio = NAN;
	h->lo = NAN;
	h->hi = NAN;
	h->p = NAN;
	if (!n || !m)
		return -1;
	r = malloc(nm * sizeof(*r));
	if (!r)
		return -1;
	for (i = 0; i < n; i++) {
		for (j = 0; j < m; j++) {
			if (!(x[i] > 0) || !(y[j] > 0)) {
				free(r);
				return -1;
			}
			r[i * m + j] = x[i] / y[j];
			le += x[i] <= y[j];
			ge += x[i] >= y[j];
		}
	}
	qsort(r, nm, sizeof(*r), cmp_double);
	h->ratio = nm % 2 ? r[nm / 2] : sqrt(r[nm / 2 - 1] * r[nm / 2]);
	h->p = 2 * kvb_mwu_cdf(n, m, le < ge ? le : ge);
	if (h->p > 1)
		h->p = 1;
	h->crit = kvb_mwu_crit(n, m, alpha);
	h->can_tell = h->crit >= 0;
	if (h->can_tell) {
		h->lo = r[h->crit];
		h->hi = r[nm - 1 - h->crit];
		h->significant = h->p <= alpha;
	}
	free(r);
	return 0;
}

/* Two cases of one workload group */
int kvb_vkey_equal(const struct kvb_vkey *a, const struct kvb_vkey *b)
{
	return !strcmp(a->mix, b->mix) && a->workload == b->workload &&
	       !strcmp(a->dist, b->dist) && a->threads == b->threads &&
	       a->batch == b->batch && a->multi == b->multi && a->fd == b->fd &&
	       a->io == b->io && a->qd == b->qd && a->sqpoll == b->sqpoll;
}

/* The distribution as the key has it: "uniform", "zipf:0.99", "latest" */
void kvb_verdict_dist(char *buf, size_t len, const char *dist, double theta)
{
	if (!strcmp(dist, "zipf") && isfinite(theta))
		snprintf(buf, len, "zipf:%.2f", theta);
	else
		snprintf(buf, len, "%s", dist);
}

/*
 * A target without an fd is set beside the per-thread rows, one without
 * the device beside the ioctl rows, as kvb_compute_ratios() does: the
 * userspace baselines and bpf-htab join rwlock's group.
 */
void kvb_vkey_normalize(struct kvb_vkey *k)
{
	if (k->fd == KVB_FD_NONE)
		k->fd = KVB_FD_PER_THREAD;
	if (k->io == KVB_IO_NONE)
		k->io = KVB_IO_IOCTL;
	if (k->io != KVB_IO_URING) {
		k->qd = 0;
		k->sqpoll = 0;
	}
}

static int cmp_target(const void *a, const void *b)
{
	const struct kvb_vtarget *x = a, *y = b;

	return (x->median < y->median) - (x->median > y->median);
}

/* The others by the ratio the table shows, the highest first */
static int cmp_ratio(const void *a, const void *b)
{
	const struct kvb_vtarget *x = a, *y = b;

	if (x->hl.ratio != y->hl.ratio)
		return (x->hl.ratio < y->hl.ratio) - (x->hl.ratio > y->hl.ratio);
	return (x->median < y->median) - (x->median > y->median);
}

/* Equivalence shown: the whole interval inside 1 +- margin. */
static int within(const struct kvb_hl *h, double margin)
{
	return isfinite(h->lo) && isfinite(h->hi) && h->lo >= 1 - margin &&
	       h->hi <= 1 + margin;
}

/*
 * A difference shown beyond the margin: the whole interval below 1 - margin
 * (a minimum-effect test; the ratio is the other over the fastest, at most
 * about 1).
 */
static int beyond(const struct kvb_hl *h, double margin)
{
	return isfinite(h->hi) && h->hi < 1 - margin;
}

/*
 * One group: the fastest (highest median) first, each other one set
 * against it, then the others by their ratio to it.
 */
static int judge(struct kvb_vgroup *g, double alpha, double margin)
{
	struct kvb_vtarget *f;
	double *p, *adj;
	int i, m = 0;

	qsort(g->t, g->n, sizeof(*g->t), cmp_target);
	f = &g->t[0];
	f->mark = KVB_V_FASTEST;
	f->hl.ratio = 1;
	f->hl.lo = NAN;
	f->hl.hi = NAN;
	f->hl.p = NAN;
	f->p_floor = NAN;
	f->p_holm = NAN;
	f->margin = margin;
	g->ntied = 1;
	g->floor_min = NAN;
	g->holm_first = NAN;
	p = calloc(g->n, sizeof(*p));
	adj = calloc(g->n, sizeof(*adj));
	if (!p || !adj)
		goto fail;
	p[0] = NAN;
	for (i = 1; i < g->n; i++) {
		struct kvb_vtarget *t = &g->t[i];

		t->margin = margin;
		if (kvb_hl_ratio(t->c->runs, t->c->n, f->c->runs, f->c->n, alpha, &t->hl))
			goto fail;
		/* the smallest p these runs can give: every run on one side */
		t->p_floor = fmin(1, 2 * kvb_mwu_cdf(t->c->n, f->c->n, 0));
		/* the tests made: those whose runs can tell */
		p[i] = t->hl.can_tell ? t->hl.p : NAN;
		if (t->hl.can_tell) {
			m++;
			if (!(t->p_floor >= g->floor_min))
				g->floor_min = t->p_floor;
		}
	}
	kvb_holm(p, g->n, adj);
	if (m) {
		g->holm_first = alpha / m;
		g->holm_binds = g->floor_min > g->holm_first * 1.000001;
	}
	for (i = 1; i < g->n; i++) {
		struct kvb_vtarget *t = &g->t[i];

		t->p_holm = adj[i];
		if (!t->hl.can_tell) {
			t->mark = KVB_V_CANNOT;
			g->ncannot++;
		} else if (t->p_holm <= alpha && beyond(&t->hl, margin)) {
			t->mark = KVB_V_DIFFERENT;
			g->ncompared++;
		} else if (within(&t->hl, margin)) {
			t->mark = KVB_V_TIED;
			g->ntied++;
			g->ncompared++;
		} else {
			t->mark = KVB_V_INCONCLUSIVE;
			g->ninconclusive++;
			g->ncompared++;
		}
	}
	if (g->n > 2)
		qsort(g->t + 1, g->n - 1, sizeof(*g->t), cmp_ratio);
	free(p);
	free(adj);
	return 0;
fail:
	free(p);
	free(adj);
	return -1;
}

static int is_baseline(enum kvb_kind k)
{
	return k == KVB_USER_RWLOCK || k == KVB_USER_OWNER;
}

/*
 * The question is which design to put behind a system call: an in-process
 * map pays none and would top every group. So the userspace baselines are
 * candidates only in a group without a target that goes into the kernel
 * (a run of the baselines alone, on a host without the module).
 */
static void drop_baselines(struct kvb_vgroup *g)
{
	int i, n = 0;

	for (i = 0; i < g->n && is_baseline(g->t[i].c->kind); i++)
		;
	if (i == g->n)
		return;
	for (i = 0; i < g->n; i++)
		if (!is_baseline(g->t[i].c->kind))
			g->t[n++] = g->t[i];
	g->n = n;
}

/*
 * Group the cases and judge each group; the groups in the order their
 * first case comes. A target repeated in a group counts once (the first).
 * Returns the number of groups, -1 on a bad run (not positive) or no memory.
 */
int kvb_verdict(const struct kvb_vcase *c, int n, double alpha, double margin,
		struct kvb_vgroup **out)
{
	struct kvb_vgroup *g = NULL;
	int ng = 0, i, j, k;

	*out = NULL;
	for (i = 0; i < n; i++) {
		struct kvb_vgroup *x;

		if (!c[i].n)
			continue;
		for (j = 0; j < ng && !kvb_vkey_equal(&g[j].key, &c[i].key); j++)
			;
		if (j == ng) {
			x = realloc(g, (ng + 1) * sizeof(*g));
			if (!x)
				goto fail;
			g = x;
			memset(&g[ng], 0, sizeof(*g));
			g[ng].key = c[i].key;
			g[ng].alpha = alpha;
			g[ng].margin = margin;
			ng++;
		}
		x = &g[j];
		for (k = 0; k < x->n && strcmp(x->t[k].c->target, c[i].target); k++)
			;
		if (k < x->n)
			continue;
		if (!x->t) {
			x->t = calloc(n, sizeof(*x->t));
			if (!x->t)
				goto fail;
		}
		x->t[x->n].c = &c[i];
		x->t[x->n].median = kvb_median(c[i].runs, c[i].n);
		x->n++;
	}
	for (j = 0; j < ng; j++) {
		drop_baselines(&g[j]);
		if (judge(&g[j], alpha, margin))
			goto fail;
	}
	*out = g;
	return ng;
fail:
	kvb_verdict_free(g, ng);
	return -1;
}

void kvb_verdict_free(struct kvb_vgroup *g, int n)
{
	int i;

	for (i = 0; g && i < n; i++)
		free(g[i].t);
	free(g);
}

/* "ycsb-b, zipf:0.99, 2 threads, batch 1" (+ ", shared fd", ", uring qd16") */
void kvb_verdict_label(char *buf, size_t len, const struct kvb_vkey *k)
{
	char call[16];
	size_t n;

	kvb_call_name(k->batch, k->multi, call, sizeof(call));
	n = snprintf(buf, len, "%s", k->mix);
	if (strcmp(k->dist, "uniform") && n < len)
		n += snprintf(buf + n, len - n, ", %s", k->dist);
	if (n < len)
		n += snprintf(buf + n, len - n, ", %u thread%s, %s %s", k->threads,
			      k->threads == 1 ? "" : "s", k->multi ? "multi" : "batch",
			      k->multi ? call + 1 : call);
	if (k->fd == KVB_FD_SHARED && n < len)
		n += snprintf(buf + n, len - n, ", shared fd");
	if (k->io == KVB_IO_URING && n < len)
		snprintf(buf + n, len - n, ", uring qd%u%s", k->qd, k->sqpoll ? " sqpoll" : "");
}

/* digits after the point: 1.5x, 33x */
#define XPREC(x)	((x) < 9.95 ? 1 : 0)

/*
 * A ratio as a signed change, with the digits it needs: +0.16%, -3.2%,
 * -17%; a bound that is above 1 never reads as 0 or below.
 */
static void pct(char *buf, size_t len, double r)
{
	double d = (r - 1) * 100;

	snprintf(buf, len, "%+.*f%%", fabs(d) < 1 ? 2 : fabs(d) < 99.5 ? 1 : 0, d);
}

/* "-30% [-49%, -23%]": the estimate and its interval as changes */
static void pct_ci(char *buf, size_t len, const struct kvb_hl *h)
{
	char e[16], lo[16], hi[16];

	pct(e, sizeof(e), h->ratio);
	pct(lo, sizeof(lo), h->lo);
	pct(hi, sizeof(hi), h->hi);
	snprintf(buf, len, "%s [%s, %s]", e, lo, hi);
}

/*
 * Why an interval that leaves 1 out has no "slower" mark: ", Holm p
 * 0.063" (the correction took its p above alpha) or ", not beyond -5%"
 * (a difference smaller than the margin may be all there is); else "".
 */
static const char *holm_note(char *buf, size_t len, const struct kvb_vtarget *t)
{
	buf[0] = 0;
	if (t->hl.significant && t->p_holm > t->hl.alpha)
		snprintf(buf, len, ", Holm p %.3f", t->p_holm);
	else if (t->hl.significant && t->margin > 0)
		snprintf(buf, len, ", not beyond -%g%%", t->margin * 100);
	return buf;
}

/*
 * The mark as text: "fastest"; "-30% [-49%, -23%]" (significantly
 * slower; below half of the fastest as a factor, "33x slower [26x, 37x]");
 * "tied: -0.50% [-2.1%, +1.3%], within ±5%"; "inconclusive: -16% [-25%,
 * +0.20%]"; "cannot tell: 3 runs, needs 4".
 */
void kvb_verdict_mark(char *buf, size_t len, const struct kvb_vtarget *t,
		      unsigned int fastest_runs)
{
	char ci[64], hn[32];

	switch (t->mark) {
	case KVB_V_FASTEST:
		snprintf(buf, len, "fastest");
		break;
	case KVB_V_TIED:
		pct_ci(ci, sizeof(ci), &t->hl);
		snprintf(buf, len, "tied: %s, within ±%g%%", ci, t->margin * 100);
		break;
	case KVB_V_INCONCLUSIVE:
		pct_ci(ci, sizeof(ci), &t->hl);
		snprintf(buf, len, "inconclusive: %s%s", ci, holm_note(hn, sizeof(hn), t));
		break;
	case KVB_V_DIFFERENT:
		if (t->hl.ratio >= 0.5)
			pct_ci(buf, len, &t->hl);
		else
			snprintf(buf, len, "%.*fx slower [%.*fx, %.*fx]",
				 XPREC(1 / t->hl.ratio), 1 / t->hl.ratio,
				 XPREC(1 / t->hl.hi), 1 / t->hl.hi,
				 XPREC(1 / t->hl.lo), 1 / t->hl.lo);
		break;
	default:
		if (t->c->n == fastest_runs)
			snprintf(buf, len, "cannot tell: %u run%s, needs %u", t->c->n,
				 t->c->n == 1 ? "" : "s", kvb_verdict_needs(t->hl.alpha));
		else
			snprintf(buf, len, "cannot tell: %u+%u runs, needs %u each",
				 t->c->n, fastest_runs, kvb_verdict_needs(t->hl.alpha));
		break;
	}
}

/* "a", "a and b", "a, b and c": the targets of g with this mark */
static size_t names(char *buf, size_t len, const struct kvb_vgroup *g, int mark)
{
	size_t n = 0;
	int i, seen = 0, total = 0;

	for (i = 0; i < g->n; i++)
		total += g->t[i].mark == mark;
	buf[0] = 0;
	for (i = 0; i < g->n && n < len; i++) {
		if (g->t[i].mark != mark)
			continue;
		seen++;
		n += snprintf(buf + n, len - n, "%s%s", seen == 1 ? "" :
			      seen == total ? " and " : ", ", g->t[i].c->target);
	}
	return n < len ? n : len - 1;
}

/* The first target below the fastest from i on with this mark, or g->n */
static int first_with(const struct kvb_vgroup *g, int i, int mark)
{
	while (i < g->n && g->t[i].mark != mark)
		i++;
	return i;
}

/*
 * One line: "ycsb-b, 2 threads, batch 1: rcu; rwlock is tied with it
 * (within ±5%); the next, rhashtable: -30% [-49%, -23%], and 2 more
 * significantly slower; inconclusive (neither slower nor within ±5%):
 * combining". The line names as the fastest the target of the highest
 * median and those shown tied with it; when nothing is shown against it,
 * only that it has the highest median. "The next" is the row under them,
 * the closest target not tied (rows by ratio), whatever its mark: when it
 * is inconclusive, "the next, rwlock: inconclusive (...), -16% [-25%,
 * +0.16%]; the closest significantly slower, rhashtable: ...".
 */
void kvb_verdict_line(char *buf, size_t len, const struct kvb_vgroup *g)
{
	const struct kvb_vtarget *f = &g->t[0];
	char who[512], mark[96], hn[32];
	size_t n;
	int i, next, next_inc, ndiff = g->n - g->ntied - g->ncannot - g->ninconclusive;

	kvb_verdict_label(buf, len, &g->key);
	n = strlen(buf);
	if (g->n == 1) {
		snprintf(buf + n, len - n, ": %s (the only target)", f->c->target);
		return;
	}
	if (g->ntied == 1 && !ndiff)
		n += snprintf(buf + n, len - n, ": %s has the highest median", f->c->target);
	else
		n += snprintf(buf + n, len - n, ": %s", f->c->target);
	if (g->ntied > 1 && n < len) {
		names(who, sizeof(who), g, KVB_V_TIED);
		n += snprintf(buf + n, len - n, "; %s %s tied with it (within ±%g%%)",
			      who, g->ntied > 2 ? "are" : "is", g->margin * 100);
	}
	/* the closest judged target not tied: slower or inconclusive */
	for (next = 1; next < g->n && g->t[next].mark != KVB_V_DIFFERENT &&
	     g->t[next].mark != KVB_V_INCONCLUSIVE; next++)
		;
	next_inc = next < g->n && g->t[next].mark == KVB_V_INCONCLUSIVE;
	if (next_inc && n < len) {
		pct_ci(mark, sizeof(mark), &g->t[next].hl);
		n += snprintf(buf + n, len - n,
			      "; the next, %s: inconclusive (neither slower nor within ±%g%%), %s%s",
			      g->t[next].c->target, g->margin * 100, mark,
			      holm_note(hn, sizeof(hn), &g->t[next]));
	}
	i = first_with(g, 1, KVB_V_DIFFERENT);
	if (i < g->n && n < len) {
		kvb_verdict_mark(mark, sizeof(mark), &g->t[i], f->c->n);
		if (i != next)
			n += snprintf(buf + n, len - n,
				      "; the closest significantly slower, %s: %s",
				      g->t[i].c->target, mark);
		else
			n += snprintf(buf + n, len - n, "; %s%s: %s", ndiff > 1 ? "the next, " : "",
				      g->t[i].c->target, mark);
		if (ndiff > 1 && n < len)
			n += snprintf(buf + n, len - n, ", and %d more%s", ndiff - 1,
				      i == next ? " significantly slower" : "");
	}
	if (g->ninconclusive > next_inc && n < len) {
		if (next_inc) {
			/* the others, without the next named above */
			size_t k = 0;
			int seen = 0, total = g->ninconclusive - 1;

			for (i = next + 1; i < g->n && k < sizeof(who); i++) {
				if (g->t[i].mark != KVB_V_INCONCLUSIVE)
					continue;
				seen++;
				k += snprintf(who + k, sizeof(who) - k, "%s%s", seen == 1 ? "" :
					      seen == total ? " and " : ", ", g->t[i].c->target);
			}
			n += snprintf(buf + n, len - n, "; also inconclusive: %s", who);
		} else {
			names(who, sizeof(who), g, KVB_V_INCONCLUSIVE);
			n += snprintf(buf + n, len - n,
				      "; inconclusive (neither slower nor within ±%g%%): %s",
				      g->margin * 100, who);
		}
	}
	if (g->ncannot && n < len) {
		names(who, sizeof(who), g, KVB_V_CANNOT);
		i = first_with(g, 1, KVB_V_CANNOT);
		kvb_verdict_mark(mark, sizeof(mark), &g->t[i], f->c->n);
		n += snprintf(buf + n, len - n, "; %s: %s", who, mark);
	}
	if (g->holm_binds && n < len)
		snprintf(buf + n, len - n,
			 "; none can be marked slower: %d comparisons (Holm) need a p of %.2g, below what these runs can give (%.2g): use -r %u",
			 g->ncompared, g->holm_first, g->floor_min,
			 kvb_verdict_needs(g->holm_first));
}

static const char * const mark_names[] = {
	[KVB_V_FASTEST] = "fastest", [KVB_V_TIED] = "tied",
	[KVB_V_DIFFERENT] = "different", [KVB_V_CANNOT] = "cannot tell",
	[KVB_V_INCONCLUSIVE] = "inconclusive",
};

/*
 * The groups as a JSON array (no newline after it), each line indented by
 * ind spaces: what "verdict" holds in a bench report and in `kvbench report
 * --json`. sel, when not NULL, says which groups to print.
 */
/*
 * A target of a group as JSON, its second and third lines indented by
 * ind; nfast: the runs of the group's fastest (kvb_verdict_mark()).
 */
static void json_target(FILE *f, const struct kvb_vtarget *t, unsigned int nfast, int ind)
{
	char buf[1024];

	fprintf(f, "{ \"target\": ");
	kvb_json_str(f, t->c->target);
	fprintf(f, ", \"kind\": \"%s\", \"runs\": %u, \"ops_per_sec\": ",
		kvb_kind_name(t->c->kind), t->c->n);
	kvb_json_num(f, t->median, 1);
	fprintf(f, ",\n%*s\"ratio\": ", ind, "");
	kvb_json_num(f, t->hl.ratio, 4);
	kvb_json_field(f, ", ", "ci_low", t->hl.lo, 4);
	kvb_json_field(f, ", ", "ci_high", t->hl.hi, 4);
	kvb_json_field(f, ", ", "p", t->hl.p, 4);
	kvb_json_field(f, ", ", "p_floor", t->p_floor, 4);
	kvb_json_field(f, ", ", "p_holm", t->p_holm, 4);
	fprintf(f, ",\n%*s\"noisy\": %s, \"mark\": \"%s\", \"text\": ", ind, "",
		t->c->noisy ? "true" : "false", mark_names[t->mark]);
	kvb_verdict_mark(buf, sizeof(buf), t, nfast);
	kvb_json_str(f, buf);
	fputs(" }", f);
}

void kvb_verdict_json(FILE *f, const struct kvb_vgroup *g, int n,
		      const int *sel, int ind)
{
	char buf[1024];
	int i, j, first = 1;

	fputc('[', f);
	for (i = 0; i < n; i++) {
		const struct kvb_vkey *k = &g[i].key;

		if (sel && !sel[i])
			continue;
		fprintf(f, "%s\n%*s{ \"group\": ", first ? "" : ",", ind + 2, "");
		first = 0;
		kvb_verdict_label(buf, sizeof(buf), k);
		kvb_json_str(f, buf);
		fprintf(f, ",\n%*s\"mix\": ", ind + 4, "");
		if (k->workload)
			fputs("null", f);
		else
			kvb_json_str(f, k->mix);
		fprintf(f, ", \"workload\": ");
		if (k->workload)
			kvb_json_str(f, k->mix);
		else
			fputs("null", f);
		fprintf(f, ", \"dist\": ");
		kvb_json_str(f, k->dist);
		fprintf(f, ", \"threads\": %u, \"batch\": %u, \"multi\": %s,\n", k->threads,
			k->batch, k->multi ? "true" : "false");
		fprintf(f, "%*s\"fd\": \"%s\", \"io\": \"%s\", \"qd\": ", ind + 4, "",
			kvb_fd_name(k->fd), kvb_io_name(k->io));
		if (k->io == KVB_IO_URING)
			fprintf(f, "%u", k->qd);
		else
			fputs("null", f);
		fprintf(f, ", \"sqpoll\": %s, \"alpha\": %.3g, \"margin\": %.3g,\n",
			k->sqpoll ? "true" : "false", g[i].alpha, g[i].margin);
		fprintf(f, "%*s\"correction\": \"holm\", \"min_effect\": true, ", ind + 4, "");
		fprintf(f, "\"comparisons\": %d, ", g[i].ncompared);
		fprintf(f, "\"holm_binds\": %s,\n", g[i].holm_binds ? "true" : "false");
		fprintf(f, "%*s\"fastest\": [", ind + 4, "");
		for (j = 0; j < g[i].n; j++) {
			if (g[i].t[j].mark != KVB_V_FASTEST && g[i].t[j].mark != KVB_V_TIED)
				continue;
			fputs(j ? ", " : "", f);
			kvb_json_str(f, g[i].t[j].c->target);
		}
		fprintf(f, "],\n%*s\"targets\": [", ind + 4, "");
		for (j = 0; j < g[i].n; j++) {
			fprintf(f, "%s\n%*s", j ? "," : "", ind + 6, "");
			json_target(f, &g[i].t[j], g[i].t[0].c->n, ind + 8);
		}
		fprintf(f, "\n%*s],\n%*s\"verdict\": ", ind + 4, "", ind + 4, "");
		kvb_verdict_line(buf, sizeof(buf), &g[i]);
		kvb_json_str(f, buf);
		fputs(" }", f);
	}
	if (!first)
		fprintf(f, "\n%*s", ind, "");
	fputc(']', f);
}

/* ops/s with an SI suffix: 1234567 -> "1.235M" */
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

/* A ratio or a bound with the digits that tell it from 1: 0.7531, 1.0016 */
static void ratio_str(char *buf, size_t len, double r)
{
	if (r >= 0.01)
		snprintf(buf, len, "%.4f", r);
	else
		snprintf(buf, len, "%.3g", r);
}

static const char * const mark_words[] = {
	[KVB_V_FASTEST] = "fastest", [KVB_V_TIED] = "tied",
	[KVB_V_DIFFERENT] = "slower", [KVB_V_CANNOT] = "cannot tell",
	[KVB_V_INCONCLUSIVE] = "inconclusive",
};

/*
 * The table of one group, and its verdict line; the rows by the ratio
 * shown. A "!" after the runs: the report marks them noisy; a "*" after p:
 * the smallest p these runs can give (more runs would give a smaller one);
 * Holm: p corrected for the group's tests. 80 columns with target names of
 * up to 14 characters.
 */
void kvb_verdict_table(FILE *f, const struct kvb_vgroup *g)
{
	char buf[1024], ops[32], ci[48], lo[16], hi[16], r[16], runs[16], p[16], ph[16];
	int tw = 6, i;

	for (i = 0; i < g->n; i++)
		if ((int)strlen(g->t[i].c->target) > tw)
			tw = strlen(g->t[i].c->target);
	kvb_verdict_label(buf, sizeof(buf), &g->key);
	fprintf(f, "%s\n  %-*s %-4s %8s %6s %-16s %-6s %-5s %s\n", buf, tw, "target", "runs",
		"ops/s", "ratio", "95% CI", "p", "Holm", "mark");
	for (i = 0; i < g->n; i++) {
		const struct kvb_vtarget *t = &g->t[i];

		si(ops, sizeof(ops), t->median);
		snprintf(runs, sizeof(runs), "%3u%s", t->c->n, t->c->noisy ? "!" : " ");
		fprintf(f, "  %-*s %-4s %8s", tw, t->c->target, runs, ops);
		if (t->mark == KVB_V_FASTEST) {
			fprintf(f, " %6s %-16s %-6s %-5s", "1", "-", "-", "-");
		} else {
			if (isfinite(t->hl.lo)) {
				ratio_str(lo, sizeof(lo), t->hl.lo);
				ratio_str(hi, sizeof(hi), t->hl.hi);
				snprintf(ci, sizeof(ci), "[%s, %s]", lo, hi);
			} else {
				snprintf(ci, sizeof(ci), "-");
			}
			ratio_str(r, sizeof(r), t->hl.ratio);
			snprintf(p, sizeof(p), "%.3f%s", t->hl.p,
				 kvb_verdict_at_floor(t) ? "*" : "");
			if (isnan(t->p_holm))
				snprintf(ph, sizeof(ph), "-");
			else
				snprintf(ph, sizeof(ph), "%.3f", t->p_holm);
			fprintf(f, " %6s %-16s %-6s %-5s", r, ci, p, ph);
		}
		fprintf(f, " %s\n", mark_words[t->mark]);
	}
	kvb_verdict_line(buf, sizeof(buf), g);
	kvb_wrap(f, "verdict: ", buf, 2, KVB_MAIL_COLS);
}

/* What the legend says of the groups shown: add group g. */
void kvb_verdict_tally(struct kvb_vtally *t, const struct kvb_vgroup *g)
{
	int i;

	if (!t->ngroups++) {
		t->pfloor = NAN;
		t->margin = g->margin;
	} else if (t->margin != g->margin) {
		t->margin = NAN;
	}
	t->ntests += g->ncompared;
	for (i = 1; i < g->n; i++) {
		const struct kvb_vtarget *x = &g->t[i];

		if (kvb_verdict_at_floor(x) && !(x->p_floor >= t->pfloor))
			t->pfloor = x->p_floor;
	}
	if (g->holm_binds && !t->nbinds++) {
		t->bind_tests = g->ncompared;
		t->bind_floor = g->floor_min;
		t->bind_first = g->holm_first;
		t->bind_runs = g->t[0].c->n;
		t->bind_needs = kvb_verdict_needs(g->holm_first);
	}
}

/*
 * What the columns mean, under the tables; t what the tables shown hold
 * (kvb_verdict_tally()). 80 columns.
 */
void kvb_verdict_legend(FILE *f, double alpha, const struct kvb_vtally *t)
{
	char m[48];

	if (isfinite(t->margin))
		snprintf(m, sizeof(m), "1 ±%g%%", t->margin * 100);
	else
		snprintf(m, sizeof(m), "1 ± margin");
	fprintf(f,
		"\nratio: ops/s of the target over the fastest's (highest median), the\n"
		"Hodges-Lehmann estimate (the median of the ratios of every pair of runs);\n"
		"95%% CI: Moses' distribution-free interval of that ratio; p: exact\n"
		"two-sided Mann-Whitney test over the runs (ties count against a\n"
		"difference); Holm: p corrected for the group's comparisons (Holm's\n"
		"step-down method); rows by ratio. The margin (--margin) is the smallest\n"
		"difference that counts. slower: Holm p <= %.3g and the whole CI below\n"
		"1 - margin. tied: equivalent, the whole CI inside %s (each\n"
		"pair's own CI, not corrected). inconclusive: neither. cannot tell: too\n"
		"few runs for any p to reach %.3g (3 against 3 can give no p below 0.1):\n"
		"use -r 5. The verdict names as the fastest the highest median and those\n"
		"tied with it, no other.\n"
		"!: noisy runs (their spread is above the run's noisy_pct).\n",
		alpha, m, alpha);
	if (isfinite(t->pfloor))
		fprintf(f,
			"*: p is the smallest these runs can give (here down to %.3g; 2/252 =\n"
			"   0.0079 for 5 runs against 5): more runs, a smaller p.\n",
			t->pfloor);
	if (t->ntests > 0)
		fprintf(f,
			"%d comparison%s in %d group%s, corrected by Holm's method within each\n"
			"group: the chance of one false 'slower' mark or more is at most %.3g in\n"
			"a group, at most %.2g over the %d.\n",
			t->ntests, t->ntests == 1 ? "" : "s", t->ngroups,
			t->ngroups == 1 ? "" : "s", alpha, fmin(1, t->ngroups * alpha),
			t->ngroups);
	if (t->nbinds)
		fprintf(f,
			"p floor: %u runs against %u cannot give a p below %.2g, and Holm's\n"
			"first step over %d comparisons needs %.2g: in %d group%s no target can\n"
			"be marked slower. Use -r %u.\n",
			t->bind_runs, t->bind_runs, t->bind_floor, t->bind_tests, t->bind_first,
			t->nbinds, t->nbinds == 1 ? "" : "s", t->bind_needs);
}

/* Columns of UTF-8 text: its code points ("±" is one column, two bytes) */
static int cols(const char *s, size_t n)
{
	int c = 0;
	size_t i;

	for (i = 0; i < n && s[i]; i++)
		c += ((unsigned char)s[i] & 0xc0) != 0x80;
	return c;
}

/*
 * Text for mail: first, then text, in lines of at most width columns; the
 * lines after the first begin with indent spaces. A line breaks only at a
 * space outside brackets and parentheses and not before a bracket, so
 * that "-30.1% [-49.4%, -22.9%]" stays whole; a word longer than the line
 * (a path) is not cut. Joined with single spaces, the lines give text back.
 */
void kvb_wrap(FILE *f, const char *first, const char *text, int indent, int width)
{
	const char *s = text, *brk = NULL;
	const char *line = s;
	int col = cols(first, strlen(first)), depth = 0;

	fputs(first, f);
	for (; *s; s++) {
		if (*s == '[' || *s == '(')
			depth++;
		else if ((*s == ']' || *s == ')') && depth > 0)
			depth--;
		else if (*s == ' ' && !depth && s[1] != '[')
			brk = s;
		if (((unsigned char)*s & 0xc0) != 0x80)
			col++;
		if (col <= width || !brk)
			continue;
		/* the line so far up to the last break, then on a new line */
		fwrite(line, 1, brk - line, f);
		fprintf(f, "\n%*s", indent, "");
		line = brk + 1;
		col = indent + cols(line, s + 1 - line);
		brk = NULL;
	}
	fputs(line, f);
	fputc('\n', f);
}

/* p is the smallest its run counts can give (the test can say no more) */
int kvb_verdict_at_floor(const struct kvb_vtarget *t)
{
	return t->mark != KVB_V_FASTEST && t->mark != KVB_V_CANNOT &&
	       t->hl.p <= t->p_floor * 1.000001;
}

/* --margin PCT: "5" or "5%", above 0 and at most 50; 0, or -1 with err */
int kvb_parse_margin(const char *s, double *margin, char *err, size_t errlen)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end != s && *end == '%')
		end++;
	if (end == s || *end || errno || !(v > 0 && v <= 50)) {
		snprintf(err, errlen, "'%s': a percentage above 0 and at most 50, such as 5", s);
		return -1;
	}
	*margin = v / 100;
	return 0;
}
