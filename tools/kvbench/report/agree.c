// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench: do two reports of one suite give the same verdict? For each
 * workload group found in both (verdict.c's groups, from the report model),
 * the verdicts agree when they name the same fastest targets (the fastest
 * and those tied with it). A contradiction is a group whose fastest target
 * in one report is marked significantly slower than the other's fastest in
 * the other report. Beside it, per target found in both, whether the mark
 * is the same: significantly slower, or not. `kvbench compare A B` prints
 * both; Documentation/results.rst quotes them for two runs of one commit.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kvbench.h"

static const struct kvb_vtarget *find(const struct kvb_vgroup *g, const char *target)
{
	int i;

	for (i = 0; i < g->n; i++)
		if (!strcmp(g->t[i].c->target, target))
			return &g->t[i];
	return NULL;
}

static int named_fastest(const struct kvb_vtarget *t)
{
	return t->mark == KVB_V_FASTEST || t->mark == KVB_V_TIED;
}

/* The same targets named fastest in a and b */
static int same_fastest(const struct kvb_vgroup *a, const struct kvb_vgroup *b)
{
	const struct kvb_vtarget *x;
	int i;

	for (i = 0; i < a->n; i++) {
		x = find(b, a->t[i].c->target);
		if (named_fastest(&a->t[i]) != (x && named_fastest(x)))
			return 0;
	}
	for (i = 0; i < b->n; i++)
		if (named_fastest(&b->t[i]) && !find(a, b->t[i].c->target))
			return 0;
	return 1;
}

/* b's fastest, as a marks it: a contradiction when a marks it slower */
static void contradiction(struct kvb_agree *ag, int side, const struct kvb_vgroup *a,
			  const struct kvb_vgroup *b)
{
	const struct kvb_vtarget *t = find(a, b->t[0].c->target);
	struct kvb_contra *c;

	if (!t || t->mark != KVB_V_DIFFERENT)
		return;
	ag->ncontra++;
	if (ag->n >= KVB_AGREE_MAX)
		return;
	c = &ag->c[ag->n++];
	c->side = side;
	kvb_verdict_label(c->group, sizeof(c->group), &a->key);
	snprintf(c->fastest, sizeof(c->fastest), "%s", b->t[0].c->target);
	snprintf(c->against, sizeof(c->against), "%s", a->t[0].c->target);
	kvb_verdict_mark(c->mark, sizeof(c->mark), t, a->t[0].c->n);
}

/*
 * The agreement of a and b (their verdicts at alpha and margin; margin 0:
 * each at its report's own, the one `kvbench report` takes) into ag; 0, or
 * -1 when a verdict cannot be computed.
 */
int kvb_agreement(const struct kvb_rmodel *a, const struct kvb_rmodel *b, double alpha,
		  double margin, struct kvb_agree *ag)
{
	struct kvb_vgroup *ga = NULL, *gb = NULL;
	int na, nb, i, j, k, ret = -1;

	memset(ag, 0, sizeof(*ag));
	ag->margin[0] = margin > 0 ? margin : a->margin;
	ag->margin[1] = margin > 0 ? margin : b->margin;
	na = kvb_rmodel_verdict(a, alpha, margin, &ga);
	nb = kvb_rmodel_verdict(b, alpha, margin, &gb);
	if (na < 0 || nb < 0)
		goto out;
	for (i = 0; i < na; i++) {
		for (j = 0; j < nb && !kvb_vkey_equal(&ga[i].key, &gb[j].key); j++)
			;
		/* a group of one target has no verdict to agree on */
		if (j == nb || ga[i].n < 2 || gb[j].n < 2)
			continue;
		ag->groups++;
		ag->agree += same_fastest(&ga[i], &gb[j]);
		contradiction(ag, 0, &ga[i], &gb[j]);
		contradiction(ag, 1, &gb[j], &ga[i]);
		for (k = 0; k < ga[i].n; k++) {
			const struct kvb_vtarget *y = find(&gb[j], ga[i].t[k].c->target);

			if (!y)
				continue;
			ag->targets++;
			ag->same_mark += (ga[i].t[k].mark == KVB_V_DIFFERENT) ==
					 (y->mark == KVB_V_DIFFERENT);
		}
	}
	ret = 0;
out:
	kvb_verdict_free(ga, na);
	kvb_verdict_free(gb, nb);
	return ret;
}

/* The agreement as compare's table shows it, below the rows. */
void kvb_agree_print(FILE *f, const struct kvb_agree *ag, const char *old, const char *new)
{
	int i;

	if (!ag->groups) {
		fprintf(f, "\nverdicts: no group of two targets or more is in both reports\n");
		return;
	}
	fprintf(f,
		"\nverdicts: %d of %d workload groups agree (the same fastest, and the same tied with it);\n"
		"%d of %d targets have the same mark in both (significantly slower, or not): %.0f%%\n",
		ag->agree, ag->groups, ag->same_mark, ag->targets,
		ag->targets ? 100.0 * ag->same_mark / ag->targets : 0);
	if (ag->margin[0] != ag->margin[1])
		fprintf(f,
			"tie margins differ: ±%g%% in %s, ±%g%% in %s (each report's own; --margin sets one)\n",
			ag->margin[0] * 100, old, ag->margin[1] * 100, new);
	if (ag->ncontra)
		fprintf(f, "%d contradiction%s %s:\n", ag->ncontra, ag->ncontra == 1 ? "" : "s",
			"(a group's fastest in one report marked significantly slower in the other)");
	else
		fprintf(f, "0 contradictions %s\n",
			"(no group's fastest in one report is significantly slower in the other)");
	for (i = 0; i < ag->n; i++) {
		const struct kvb_contra *c = &ag->c[i];

		fprintf(f, "  %s: %s's fastest, %s, is %s against %s in %s\n", c->group,
			c->side ? old : new, c->fastest, c->mark, c->against, c->side ? new : old);
	}
	if (ag->ncontra > ag->n)
		fprintf(f, "  ... and %d more\n", ag->ncontra - ag->n);
}

/* The same as JSON: "agreement": {...} (no newline after it) */
void kvb_agree_json(FILE *f, const struct kvb_agree *ag)
{
	int i;

	fprintf(f, "{ \"groups\": %d, \"agree\": %d, \"targets\": %d, \"same_mark\": %d,\n",
		ag->groups, ag->agree, ag->targets, ag->same_mark);
	fprintf(f, "    \"margin_old\": %.4g, \"margin_new\": %.4g,\n", ag->margin[0],
		ag->margin[1]);
	fprintf(f, "    \"contradictions\": %d, \"listed\": [", ag->ncontra);
	for (i = 0; i < ag->n; i++) {
		const struct kvb_contra *c = &ag->c[i];

		fprintf(f, "%s\n      { \"group\": ", i ? "," : "");
		kvb_json_str(f, c->group);
		fprintf(f, ", \"fastest_in\": \"%s\", \"fastest\": ", c->side ? "old" : "new");
		kvb_json_str(f, c->fastest);
		fprintf(f, ", \"marked_in\": \"%s\", \"against\": ", c->side ? "new" : "old");
		kvb_json_str(f, c->against);
		fprintf(f, ", \"mark\": ");
		kvb_json_str(f, c->mark);
		fputs(" }", f);
	}
	fprintf(f, "%s] }", ag->n ? "\n    " : "");
}
