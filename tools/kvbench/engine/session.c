// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench bench: the session, one invocation's plan run case by case
 * (--order sequential: each target's cases in turn) or round by round
 * (--order shuffled: every case once per round), within --budget, with
 * the targets that cannot run here left out and those that fail listed,
 * and the progress on stderr. What the runs measured is in s->res; the
 * caller writes the reports (s->on_case).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kvbench.h"

/* Overwrite the progress line only on a real terminal, not a serial log. */
int kvb_interactive(void)
{
	const char *term = getenv("TERM");

	return isatty(2) && term && *term && strcmp(term, "dumb");
}

/*
 * A case's progress line, where it is in the plan ("3/10", "round 1/5,
 * 2/10"): "..." before it runs (on a terminal only, then overwritten),
 * and its ops/s after.
 */
static void progress(const struct kvb_params *p, const char *where,
		     const char *label, const double *ops)
{
	if (p->quiet)
		return;
	if (!ops) {
		if (kvb_interactive())
			fprintf(stderr, "kvbench: [%s] %s ...", where, label);
		return;
	}
	fprintf(stderr, "%skvbench: [%s] %s %.0f ops/s\n",
		kvb_interactive() ? "\r\033[K" : "", where, label, *ops);
}

static void case_label(const struct kvb_target *t, const struct kvb_case *c,
		       char *buf, size_t len)
{
	char m[32];

	kvb_mix_name(c->mix, m, sizeof(m));
	snprintf(buf, len, "%s %s threads=%u %s=%u%s%s", t->name,
		 t->ops->flags & KVB_T_MIXES ? m : "nop", c->threads,
		 c->multi ? "multi" : "batch", c->batch,
		 c->fdmode == KVB_FD_NONE ? "" : " fd=",
		 c->fdmode == KVB_FD_NONE ? "" : kvb_fd_name(c->fdmode));
}

/* Remember a case that did not run, for the end of the table. */
static void add_skip(struct kvb_session *s, const char *label, const char *why)
{
	struct kvb_skip *k;

	if (!s->skips || s->nskips >= s->total)
		return;
	k = &s->skips[s->nskips++];
	snprintf(k->label, sizeof(k->label), "%s", label);
	snprintf(k->why, sizeof(k->why), "%s", why);
}

/* Every case of a target this machine cannot run: left out, not failed. */
static void list_unavailable(struct kvb_session *s, const struct kvb_target *t,
			     const char *why)
{
	int ncase = kvb_cases_of(s->p, t), i;
	struct kvb_case c;
	char label[160];

	for (i = 0; i < ncase; i++) {
		kvb_case_at(s->p, t, i, &c);
		case_label(t, &c, label, sizeof(label));
		add_skip(s, label, why);
	}
	s->unavailable += ncase;
}

/* A case the budget left out; the first is named at the end. */
static void budget_skip(struct kvb_session *s, const char *label)
{
	char why[64];

	if (!s->skipped++)
		snprintf(s->first_skipped, sizeof(s->first_skipped), "%s", label);
	snprintf(why, sizeof(why), "the --budget of %g s ran out", s->p->budget);
	add_skip(s, label, why);
}

/*
 * Before a case, or a run of it: the backend's statistics; returns the
 * hash_bits the kernel target's map was built at (0 for the others).
 */
static unsigned int case_begin(const struct kvb_params *p,
			       const struct kvb_target *t,
			       struct kvb_bstats *before)
{
	if (t->ops->flags & KVB_T_BSTATS)
		kvb_bstats_begin(p->sysfs, before);
	/* the size its map was built at, for the report */
	return t->ops->kind == KVB_KERNEL ? kvb_module_hash_bits(p->sys_module) : 0;
}

/* The hash_bits a case ran at, and whether it is the size --keys asks for. */
static void case_hash_bits(const struct kvb_params *p, struct kvb_result *r,
			   unsigned int hash_bits)
{
	r->hash_bits = hash_bits;
	r->hash_bits_fit = hash_bits == kvb_hash_bits_for(p->keys);
}

/* Does a case of this cost still fit the budget? Once not, none does. */
static int within_budget(struct kvb_session *s, double cost)
{
	const struct kvb_params *p = s->p;

	if (p->budget <= 0 || s->skipped)
		return !s->skipped;
	return (kvb_now_ns() - s->t0) / 1e9 + cost <= p->budget;
}

/*
 * All cases of one target. skip: count them as failed, run none, and list
 * them as skipped for the reason why.
 */
static void run_target(struct kvb_session *s, const struct kvb_target *t,
		       int skip, const char *why)
{
	const struct kvb_params *p = s->p;
	int ncase = kvb_cases_of(p, t), i, rc;

	for (i = 0; i < ncase && !atomic_load(&kvb_interrupted); i++) {
		struct kvb_result *r = &s->res[s->nres];
		int idx = s->nres + s->failed + s->skipped + s->unavailable + 1;
		char where[32];
		struct kvb_bstats before;
		unsigned int hash_bits;
		struct kvb_case c;
		char label[160];

		kvb_case_at(p, t, i, &c);
		case_label(t, &c, label, sizeof(label));
		if (!within_budget(s, kvb_case_seconds(p, t, &c, p->repeat))) {
			budget_skip(s, label);
			continue;
		}
		if (skip) {
			s->failed++;
			add_skip(s, label, why);
			continue;
		}
		snprintf(where, sizeof(where), "%d/%d", idx, s->total);
		progress(p, where, label, NULL);
		hash_bits = case_begin(p, t, &before);
		rc = kvb_run_case(s->b, t, c.mix, c.threads, c.batch, c.multi,
				  c.fdmode, r);
		if (!rc && (t->ops->flags & KVB_T_BSTATS))
			kvb_bstats_end(p->sysfs, &before, &r->bstats);
		if (!rc)
			case_hash_bits(p, r, hash_bits);
		if (rc) {
			if (!p->quiet && kvb_interactive())
				fputc('\n', stderr);
			s->failed++;
			/* The target is unusable: count its other cases as failed. */
			if (rc == -2) {
				skip = 1;
				why = "the target cannot run here (said on stderr)";
			}
			add_skip(s, label, rc == -2 ? why : "the case failed (said on stderr)");
			continue;
		}
		progress(p, where, label, &r->ops_per_sec);
		if (r->errors)
			s->failed++;
		s->nres++;
		s->on_case(s);
	}
}

/* A case of a shuffled run: its place in the plan, and how it fares. */
struct kvb_slot {
	int target;		/* index in the targets of run_rounds() */
	struct kvb_case c;
	char label[160];
	int dead;		/* failed, skipped or left out: no more runs */
	struct kvb_case_acc acc;
};

/*
 * The backend's statistics of a case, over its runs: the counts added up,
 * the high-water mark the highest, the means weighted by the requests.
 */
static void bstats_add(struct kvb_bstats *sum, const struct kvb_bstats *run,
		       int first)
{
	double n0 = sum->requests, n1 = run->requests;

	if (first) {
		*sum = *run;
		return;
	}
	if (!sum->valid || !run->valid) {
		sum->valid = 0;
		return;
	}
	sum->drain_mean = n0 + n1 > 0 ?
			  (sum->drain_mean * n0 + run->drain_mean * n1) / (n0 + n1) : NAN;
	sum->combine_mean = n0 + n1 > 0 ?
			    (sum->combine_mean * n0 + run->combine_mean * n1) / (n0 + n1) : NAN;
	sum->reset &= run->reset;
	if (run->queue_hwm > sum->queue_hwm)
		sum->queue_hwm = run->queue_hwm;
	sum->queue_full += run->queue_full;
	sum->requests += run->requests;
	sum->has_sleeps &= run->has_sleeps;
	sum->sleeps += run->sleeps;
	sum->handoffs += run->handoffs;
	sum->has_poll &= run->has_poll;
	sum->poll_us += run->poll_us;
	sum->owners = run->owners;
	sum->window_s += run->window_s;
}

/* No more runs of target ti's cases: each without a run failed for why. */
static void fail_target(struct kvb_session *s, struct kvb_slot *sl, int ti,
			const char *why)
{
	int i;

	for (i = 0; i < s->total; i++) {
		if (sl[i].target != ti || sl[i].dead)
			continue;
		sl[i].dead = 1;
		s->failed++;
		if (!s->res[i].runs)
			add_skip(s, sl[i].label, why);
	}
}

/*
 * Begin target t for a run: its fd closed, its ->begin again (a kernel
 * backend switched to, the map refilled by the run). Returns 0, or 1 when
 * it cannot run (its cases listed, and failed or left out).
 */
static int begin_run(struct kvb_session *s, struct kvb_slot *sl,
		     struct kvb_target *t, int ti)
{
	int rc;

	kvb_close_fd(s->b);
	if (!t->ops->begin)
		return 0;
	snprintf(s->b->why, sizeof(s->b->why), "said on stderr");
	rc = t->ops->begin(s->b, t);
	if (rc > 0) {
		int i;

		/* Not on this machine (said): left out, not failed. */
		list_unavailable(s, t, s->b->why);
		for (i = 0; i < s->total; i++)
			if (sl[i].target == ti)
				sl[i].dead = 1;
		return 1;
	}
	if (rc < 0) {
		fail_target(s, sl, ti, s->b->why);
		return 1;
	}
	return 0;
}

/*
 * The slots of a shuffled run, one a case in the plan's order, each with
 * its result begun; the device's fail when it is missing.
 */
static void slots_init(struct kvb_session *s, struct kvb_target *tg,
		       struct kvb_slot *sl)
{
	const struct kvb_params *p = s->p;
	int ti, k, i = 0;

	for (ti = 0; ti < p->ntargets; ti++) {
		tg[ti] = p->targets[ti];
		for (k = 0; k < kvb_cases_of(p, &tg[ti]); k++, i++) {
			struct kvb_slot *x = &sl[i];

			x->target = ti;
			kvb_case_at(p, &tg[ti], k, &x->c);
			case_label(&tg[ti], &x->c, x->label, sizeof(x->label));
			if (kvb_case_init(p, &tg[ti], x->c.mix, x->c.threads, x->c.batch,
					  x->c.multi, x->c.fdmode, &s->res[i], &x->acc)) {
				x->dead = 1;
				s->failed++;
				add_skip(s, x->label, "out of memory");
			}
		}
	}
	for (ti = 0; ti < p->ntargets; ti++)
		if (s->nodev && (tg[ti].ops->flags & KVB_T_DEVICE))
			fail_target(s, sl, ti, s->nodev_why);
}

/* One run of slot idx in round r, the k-th of the round's order. */
static void run_slot(struct kvb_session *s, struct kvb_slot *sl,
		     struct kvb_target *tg, int idx, unsigned int r, int k)
{
	const struct kvb_params *p = s->p;
	struct kvb_slot *x = &sl[idx];
	struct kvb_result *res = &s->res[idx];
	struct kvb_target *t = &tg[x->target];
	struct kvb_bstats before, after;
	unsigned int hash_bits;
	char where[48];
	int rc;

	if (x->dead)
		return;
	if (!r && !within_budget(s, kvb_case_seconds(p, t, &x->c, 1))) {
		budget_skip(s, x->label);
		x->dead = 1;
		return;
	}
	if (begin_run(s, sl, t, x->target))
		return;
	snprintf(where, sizeof(where), "round %u/%u, %d/%d", r + 1, p->repeat, k + 1,
		 s->total);
	progress(p, where, x->label, NULL);
	hash_bits = case_begin(p, t, &before);
	rc = kvb_case_run(s->b, t, x->c.mix, r, res, &x->acc);
	if (rc == 1)
		return;
	if (rc) {
		if (!p->quiet && kvb_interactive())
			fputc('\n', stderr);
		if (rc == -2) {
			fail_target(s, sl, x->target,
				    "the target cannot run here (said on stderr)");
			return;
		}
		x->dead = 1;
		s->failed++;
		if (!res->runs)
			add_skip(s, x->label, "the case failed (said on stderr)");
		return;
	}
	if (t->ops->flags & KVB_T_BSTATS) {
		kvb_bstats_end(p->sysfs, &before, &after);
		bstats_add(&res->bstats, &after, res->runs == 1);
	}
	case_hash_bits(p, res, hash_bits);
	kvb_case_summarize(p, res, &x->acc);
	progress(p, where, x->label, &res->run_ops[res->runs - 1]);
	s->nres += res->runs == 1;
	s->on_case(s);
}

/*
 * --order shuffled: p->repeat rounds, each running every case of the plan
 * once, in kvb_round_order()'s order for (seed, round), so that a case's
 * runs are spread over the whole run and the host's drift over minutes
 * lands in every case's spread alike instead of in one case's figures.
 * Rounds begin only while a whole one fits the budget: a cut leaves every
 * case with the same number of runs. Without a budget for one round, the
 * first skips the cases that do not fit, as its order comes to them.
 */
static void run_rounds(struct kvb_session *s)
{
	const struct kvb_params *p = s->p;
	int n = s->total, i, k;
	struct kvb_target *tg = calloc(p->ntargets ? p->ntargets : 1, sizeof(*tg));
	struct kvb_slot *sl = calloc(n ? n : 1, sizeof(*sl));
	unsigned int *order = calloc(n ? n : 1, sizeof(*order));
	double round_s = kvb_plan_seconds(p, 1);
	unsigned int r;

	if (!tg || !sl || !order) {
		fprintf(stderr, "kvbench: out of memory\n");
		s->failed += n;
		goto out;
	}
	slots_init(s, tg, sl);
	for (r = 0; r < p->repeat && !atomic_load(&kvb_interrupted); r++) {
		if (r && p->budget > 0 &&
		    (kvb_now_ns() - s->t0) / 1e9 + round_s > p->budget) {
			s->rounds_cut = p->repeat - r;
			break;
		}
		kvb_round_order(p->seed, r, order, n);
		for (k = 0; k < n && !atomic_load(&kvb_interrupted); k++)
			run_slot(s, sl, tg, order[k], r, k);
		if (k == n)
			s->rounds_done = r + 1;
	}
	kvb_close_fd(s->b);
	for (i = 0; i < n; i++) {
		if (!s->res[i].runs)
			continue;
		kvb_case_errors(&tg[sl[i].target], &s->res[i], &sl[i].acc);
		s->failed += !!s->res[i].errors;
	}
out:
	for (i = 0; sl && i < n; i++)
		kvb_case_acc_free(&sl[i].acc);
	free(order);
	free(sl);
	free(tg);
}

/*
 * The cases of the plan in its order, target by target (--order
 * sequential): each target begun once, then its cases.
 */
static void run_targets(struct kvb_session *s)
{
	const struct kvb_params *p = s->p;
	int ti;

	for (ti = 0; ti < p->ntargets && !atomic_load(&kvb_interrupted); ti++) {
		struct kvb_target t = p->targets[ti];
		int skip = s->nodev && (t.ops->flags & KVB_T_DEVICE);
		const char *why = s->nodev_why;

		kvb_close_fd(s->b);
		if (t.ops->begin && !skip && within_budget(s, 0)) {
			int rc;

			snprintf(s->b->why, sizeof(s->b->why), "said on stderr");
			rc = t.ops->begin(s->b, &t);
			/* Not on this machine (said): left out, not failed. */
			if (rc > 0) {
				list_unavailable(s, &t, s->b->why);
				continue;
			}
			if (rc < 0) {
				skip = 1;
				why = s->b->why;
			}
		}
		run_target(s, &t, skip, why);
	}
}

/*
 * A session for the plan of p: room for every case's result, its skips
 * and (shuffled) the view; the engine's state. 0, or -1 (said).
 */
int kvb_session_init(struct kvb_session *s, struct kvb_params *p)
{
	memset(s, 0, sizeof(*s));
	s->p = p;
	s->total = kvb_count_cases(p);
	s->shuffled = p->order == KVB_ORDER_SHUFFLED;
	s->res = calloc(s->total ? s->total : 1, sizeof(*s->res));
	s->skips = calloc(s->total ? s->total : 1, sizeof(*s->skips));
	if (s->shuffled)
		s->view = calloc(s->total ? s->total : 1, sizeof(*s->view));
	s->b = kvb_bench_new(p);
	if (!s->res || !s->skips || !s->b || (s->shuffled && !s->view)) {
		fprintf(stderr, "kvbench: out of memory\n");
		return -1;
	}
	s->b->settled = &p->settled;
	return 0;
}

void kvb_session_free(struct kvb_session *s)
{
	int i;

	/* shuffled, every slot has its arrays; zeroed slots free nothing */
	for (i = 0; s->res && i < s->total; i++)
		kvb_result_free(&s->res[i]);
	free(s->view == s->res ? NULL : s->view);
	free(s->res);
	free(s->skips);
	kvb_bench_free(s->b);
}

/*
 * Can the device be opened? When not, its targets fail (s->nodev_why
 * says why, once) and the others still run. 0, or -1 when every target
 * needs it.
 */
int kvb_session_device(struct kvb_session *s)
{
	const struct kvb_params *p = s->p;
	int ti;

	for (ti = 0; ti < p->ntargets; ti++) {
		if (p->targets[ti].ops->flags & KVB_T_DEVICE) {
			int fd = kvb_open_device(p->device);

			s->nodev = fd < 0;
			if (s->nodev)
				snprintf(s->nodev_why, sizeof(s->nodev_why), "%s: %s%s",
					 p->device, strerror(errno),
					 errno == ENOENT ? " (module not loaded?)" : "");
			if (fd >= 0)
				close(fd);
			break;
		}
	}
	for (ti = 0; ti < p->ntargets && s->nodev; ti++)
		if (!(p->targets[ti].ops->flags & KVB_T_DEVICE))
			break;
	return s->nodev && ti == p->ntargets ? -1 : 0;
}

/*
 * Run the plan: in rounds (--order shuffled) or target by target; then
 * the last target's fd closed and the module's backend and hash_bits put
 * back. s->on_case(s) after every run that added to the results.
 */
void kvb_session_run(struct kvb_session *s)
{
	s->t0 = kvb_now_ns();
	if (s->shuffled)
		run_rounds(s);
	else
		run_targets(s);
	kvb_close_fd(s->b);
	kvb_restore_backend(s->b);
}
