// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench bench: the plan. Which cases a target has (its row says which
 * of --mix, --batch, --multi and --fd it varies; threads vary fastest),
 * the case at an index, and what the cases cost in wall time: for
 * --dry-run, the progress lines and --budget, which this fits the plan
 * to.
 */
#include <stdio.h>

#include "kvbench.h"

/* What a target's cases vary: its row says which of --mix, --batch, --fd. */
static int nmixes_of(const struct kvb_params *p, const struct kvb_target *t)
{
	return t->ops->flags & KVB_T_MIXES ? p->nmixes : 1;
}

/*
 * Calls of one op or a BATCH (--batch), then packed calls (--multi); with
 * --multi alone, a target that makes packed calls makes only those.
 */
static int nbatches_of(const struct kvb_params *p, const struct kvb_target *t)
{
	if (p->multi_only && t->ops->flags & KVB_T_MULTI)
		return 0;
	return t->ops->flags & KVB_T_BATCHES ? p->batches.n : 1;
}

static int ncalls_of(const struct kvb_params *p, const struct kvb_target *t)
{
	return nbatches_of(p, t) +
	       (t->ops->flags & KVB_T_MULTI ? p->multis.n : 0);
}

static int nfdmodes_of(const struct kvb_params *p, const struct kvb_target *t)
{
	return t->ops->flags & KVB_T_FD ? p->fdmodes.n : 1;
}

int kvb_cases_of(const struct kvb_params *p, const struct kvb_target *t)
{
	return p->threads.n * nfdmodes_of(p, t) * ncalls_of(p, t) *
	       nmixes_of(p, t);
}

void kvb_case_at(const struct kvb_params *p, const struct kvb_target *t,
		 int i, struct kvb_case *c)
{
	int nf = nfdmodes_of(p, t), nb = nbatches_of(p, t), nc = ncalls_of(p, t);
	int per_mix = p->threads.n * nf * nc;
	int call = i / p->threads.n / nf % nc;

	c->threads = p->threads.v[i % p->threads.n];
	c->fdmode = t->ops->flags & KVB_T_FD ?
		    p->fdmodes.v[i / p->threads.n % nf] : KVB_FD_NONE;
	c->multi = call >= nb;
	if (c->multi)
		c->batch = p->multis.v[call - nb];
	else
		c->batch = t->ops->flags & KVB_T_BATCHES ? p->batches.v[call] : 1;
	c->mix = &p->mixes[i / per_mix];
}

int kvb_count_cases(const struct kvb_params *p)
{
	int i, n = 0;

	for (i = 0; i < p->ntargets; i++)
		n += kvb_cases_of(p, &p->targets[i]);
	return n;
}

/*
 * What a case costs in wall time, for the plan and the budget: its runs'
 * warm-up and timed parts, and what surrounds them (threads created, pinned
 * and joined, fds opened, the map pre-filled), as measured under QEMU TCG,
 * the slowest place this runs. Elsewhere it errs on the long side.
 */
#define KVB_RUN_FIXED_S		0.05	/* per run */
#define KVB_RUN_THREAD_S	0.002	/* per run and thread */
#define KVB_FILL_KEY_S		0.00001	/* per key pre-filled */
#define KVB_TARGET_S		0.1	/* per kept map: switch or create, first fill */
#define KVB_SETTLE_S		0.01	/* per run: the write to settle */

/*
 * A map kept across runs: made (a backend switched) and filled once;
 * shuffled, once per run.
 */
static int keeps_map(const struct kvb_target *t)
{
	return (t->ops->flags & KVB_T_MIXES) && !(t->ops->flags & KVB_T_RUN_MAP);
}

double kvb_case_seconds(const struct kvb_params *p,
			const struct kvb_target *t,
			const struct kvb_case *c, unsigned int repeat)
{
	double run = p->warmup + (p->ops ? 0 : p->duration) + KVB_RUN_FIXED_S +
		     c->threads * KVB_RUN_THREAD_S;
	double fill = p->keys * KVB_FILL_KEY_S;

	/* the baselines build their map per run; DEL empties the others' */
	if ((t->ops->flags & KVB_T_RUN_MAP) ||
	    ((t->ops->flags & KVB_T_MIXES) && c->mix->del))
		run += fill;
	if (!p->no_settle)
		run += KVB_SETTLE_S;
	/* --after: a run of that mix before each */
	if (p->nafter && (t->ops->flags & KVB_T_MIXES))
		run *= 2;
	/* shuffled, each run begins its target: a switch, a fill */
	if (p->order == KVB_ORDER_SHUFFLED && keeps_map(t))
		run += KVB_TARGET_S + fill;
	return repeat * run;
}

double kvb_target_seconds(const struct kvb_params *p,
			  const struct kvb_target *t, unsigned int repeat)
{
	double s = keeps_map(t) && p->order == KVB_ORDER_SEQUENTIAL ?
		   KVB_TARGET_S + p->keys * KVB_FILL_KEY_S : 0;
	struct kvb_case c;
	int i;

	for (i = 0; i < kvb_cases_of(p, t); i++) {
		kvb_case_at(p, t, i, &c);
		s += kvb_case_seconds(p, t, &c, repeat);
	}
	return s;
}

double kvb_plan_seconds(const struct kvb_params *p, unsigned int repeat)
{
	double s = 0;
	int i;

	for (i = 0; i < p->ntargets; i++)
		s += kvb_target_seconds(p, &p->targets[i], repeat);
	return s;
}

/*
 * Fit the plan to --budget by running each case fewer times (the repeats
 * matter least); what still does not fit is skipped when its turn comes
 * (run_target()). Says what it cut.
 */
void kvb_fit_budget(struct kvb_params *p, FILE *note)
{
	unsigned int r = p->repeat;
	double want = kvb_plan_seconds(p, p->repeat);

	if (p->budget <= 0 || want <= p->budget)
		return;
	while (r > 1 && kvb_plan_seconds(p, r) > p->budget)
		r--;
	if (r < p->repeat && note && p->order == KVB_ORDER_SHUFFLED)
		fprintf(note,
			"kvbench: budget %.0f s: %u rounds (runs per case) would take about %.0f s; %u round%s instead\n",
			p->budget, p->repeat, want, r, r == 1 ? "" : "s");
	else if (r < p->repeat && note)
		fprintf(note,
			"kvbench: budget %.0f s: %u runs per case would take about %.0f s; %u run%s per case instead\n",
			p->budget, p->repeat, want, r, r == 1 ? "" : "s");
	p->repeat = r;
	if (kvb_plan_seconds(p, r) > p->budget && note)
		fprintf(note,
			"kvbench: budget %.0f s: the plan needs about %.0f s even so; the cases that do not fit are skipped%s\n",
			p->budget, kvb_plan_seconds(p, r),
			p->order == KVB_ORDER_SHUFFLED ?
			" (one round: those its order puts last)" : "");
}
