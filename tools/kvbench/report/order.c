// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench: does the case before a run move its figure? With --after A,B
 * the runs of round r come after an untimed run of after[r % 2] (A, B, A,
 * B, ...: interleaved, so the host's drift lands on both alike). Each
 * case's runs after B are set against its runs after A with the verdict's
 * estimator (kvb_hl_ratio(): Hodges-Lehmann ratio, Moses' interval,
 * two-sided Mann-Whitney p) and marked as the verdict marks: a significant
 * difference, tied (the interval inside 1 +- margin), or inconclusive.
 * `kvbench bench` prints it at the end of such a run, `kvbench report`
 * from the JSON's rounds; Documentation/results.rst quotes one.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvbench.h"

/*
 * The runs of c that came after mix k of nafter (round % nafter == k)
 * into out (room for c->n); their number.
 */
static unsigned int runs_after(const struct kvb_ocase *c, unsigned int nafter,
			       unsigned int k, double *out)
{
	unsigned int i, n = 0;

	for (i = 0; i < c->n; i++)
		if (c->rounds[i] % nafter == k)
			out[n++] = c->runs[i];
	return n;
}

/* c's label, as the table names a case: "rcu get t=1 b=1" */
void kvb_ocase_label(struct kvb_ocase *c, const char *target, const char *mix,
		     unsigned int threads, unsigned int batch)
{
	snprintf(c->label, sizeof(c->label), "%.40s %.31s t=%u b=%u", target, mix,
		 threads, batch);
}

int kvb_order_case(const struct kvb_ocase *c, unsigned int nafter,
		   unsigned int k, double alpha, struct kvb_hl *h)
{
	double *x = malloc(2 * (c->n ? c->n : 1) * sizeof(*x));
	unsigned int nx, ny;
	int ret;

	memset(h, 0, sizeof(*h));
	h->ratio = NAN;
	h->lo = NAN;
	h->hi = NAN;
	h->p = NAN;
	if (!x)
		return -1;
	nx = runs_after(c, nafter, k, x);
	ny = runs_after(c, nafter, 0, x + c->n);
	ret = kvb_hl_ratio(x, nx, x + c->n, ny, alpha, h);
	free(x);
	return ret;
}

static void after_name(char *buf, size_t len, const char *names, unsigned int k)
{
	const char *p = names;
	size_t n;

	while (k-- && p)
		p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
	if (!p) {
		snprintf(buf, len, "?");
		return;
	}
	n = strcspn(p, ",");
	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), p);
}

void kvb_order_effect(FILE *f, const struct kvb_ocase *c, int n,
		      const char *names, unsigned int nafter, double alpha,
		      double margin)
{
	struct kvb_hl *hs = calloc(n > 0 ? n : 1, sizeof(*hs));
	/* each case's p, then its adjusted p */
	double *p = calloc(2 * (n > 0 ? n : 1), sizeof(*p)), *adj = p + (n > 0 ? n : 1);
	unsigned int k, shown = 0, diff = 0, tied = 0;
	char a0[32], ak[32];
	int i, m;

	if (nafter < 2 || n <= 0 || !hs || !p)
		goto out;
	after_name(a0, sizeof(a0), names, 0);
	for (k = 1; k < nafter; k++) {
		after_name(ak, sizeof(ak), names, k);
		fprintf(f, "\nthe case before a run: each case's runs after %s set against %s\n"
			"runs after %s (interleaved round by round; ratio of ops/s,\n"
			"Hodges-Lehmann, %g%% interval, two-sided Mann-Whitney p, Holm's\n"
			"over the table's tests; tied: inside +-%g%%)\n",
			ak, "its", a0, 100 * (1 - alpha), 100 * margin);
		for (i = 0, m = 0; i < n; i++) {
			if (kvb_order_case(&c[i], nafter, k, alpha, &hs[i]) ||
			    !isfinite(hs[i].ratio))
				hs[i].ratio = NAN;
			else if (hs[i].can_tell)
				m++;
		}
		/*
		 * the tests: the cases whose runs can tell, in one table, with
		 * Holm's step-down over them (the verdict's kvb_holm())
		 */
		for (i = 0; i < n; i++)
			p[i] = hs[i].can_tell ? hs[i].p : NAN;
		kvb_holm(p, n, adj);
		for (i = 0; i < n; i++) {
			struct kvb_hl h = hs[i];
			const char *mark;

			if (!isfinite(h.ratio))
				continue;
			shown++;
			h.significant = h.can_tell && adj[i] <= alpha;
			if (!h.can_tell) {
				mark = "too few runs to tell";
			} else if (h.significant) {
				mark = h.ratio < 1 ? "SLOWER after " : "FASTER after ";
				diff++;
			} else if (h.lo >= 1 - margin && h.hi <= 1 + margin) {
				mark = "tied";
				tied++;
			} else {
				mark = "inconclusive";
			}
			if (h.can_tell) {
				fprintf(f, "  %-34s %+6.1f%%  [%.3f, %.3f]  p %.3f",
					c[i].label, 100 * (h.ratio - 1), h.lo, h.hi, h.p);
				fprintf(f, " (Holm %.3f)  %s%s\n", adj[i], mark,
					h.significant ? ak : "");
			} else {
				fprintf(f, "  %-34s %+6.1f%%  too few runs to tell\n",
					c[i].label, 100 * (h.ratio - 1));
			}
		}
		fprintf(f, "  %u case%s: %u significantly different (Holm's p <= %g over %d %s),\n"
			"  %u tied, %u neither\n",
			shown, shown == 1 ? "" : "s", diff, alpha, m, m == 1 ? "test" : "tests",
			tied, shown - diff - tied);
		shown = 0;
		diff = 0;
		tied = 0;
	}
out:
	free(hs);
	free(p);
}

/* The same from a report's model: its results with their rounds. */
void kvb_order_effect_model(FILE *f, const struct kvb_rmodel *m, double alpha,
			    double margin)
{
	unsigned int nafter = m->after[0] ? 1 : 0;
	struct kvb_ocase *c;
	const char *p;
	int i, n = 0;

	for (p = m->after; *p; p++)
		nafter += *p == ',';
	if (nafter < 2 || m->n <= 0)
		return;
	c = calloc(m->n, sizeof(*c));
	if (!c)
		return;
	for (i = 0; i < m->n; i++) {
		const struct kvb_rcase *r = &m->c[i];

		if (!r->rounds || !r->nruns || r->v.kind == KVB_NOP)
			continue;
		kvb_ocase_label(&c[n], r->target, r->workload[0] ? r->workload : r->mix,
				r->threads, r->batch);
		c[n].runs = r->runs;
		c[n].rounds = r->rounds;
		c[n++].n = r->nruns;
	}
	kvb_order_effect(f, c, n, m->after, nafter, alpha, margin);
	free(c);
}
