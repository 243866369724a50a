// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench merge: the reports of one suite, each run in its own boot (or
 * module load), pooled into one report. The variance between boots is
 * larger than within one (a backend's ops/s moves with where the kernel,
 * the module and the map landed), so `make bench` runs its rounds in
 * several boots and a verdict's test must see runs of every boot: pooled,
 * a case's runs are the runs of all its boots (Kalibera and Jones, repeat
 * at the level where the variance lives).
 *
 * A case (the same target, mix, threads, batch, fd and io) takes the runs
 * of every report that has it, in the reports' order; its rounds are
 * numbered on (the second report's round 0 follows the first's last) and
 * "boots" says which report each run came from. What the runs make is
 * computed again from them (median, its interval, spread, noisy), the
 * latency from the reports' histograms added up, the counts added, the
 * means weighted by what they are means of; the verdict comes from the
 * pooled report as `kvbench report` reads it. The reports must be of one
 * suite: the same tool, commit, module, kernel, command line and
 * parameters, but for the seed, the rounds and the budget.
 *
 * --max-steal PCT leaves out a run during which the host took PCT% or
 * more of the vCPUs' time, as the VM runner measured it from outside
 * (host-steal.txt beside the report, tools/vm/host-steal: a line per run,
 * "12.5% kvbench: [round R/N, I/M] LABEL OPS ops/s"): that run measured
 * the host, not the guest. Each one left out is listed in its case's
 * "dropped_runs", never silently.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <libgen.h>

#include "kvbench.h"

static const char merge_help[] =
	"Usage: kvbench merge [-o OUT] REPORT.json REPORT.json...\n"
	"\n"
	"Pool the 'bench --json' reports of one suite, each run in its own boot\n"
	"(make bench runs its rounds in BENCH_BOOTS boots and merges them), into\n"
	"one report: each case's runs from every report, rounds numbered on,\n"
	"\"boots\" naming each run's report; the figures and the verdict computed\n"
	"again from the pooled runs and histograms.\n"
	"\n"
	"  -o, --output FILE  write the report to FILE (default: standard output)\n"
	"      --max-steal PCT  leave out each run during which the host took PCT%\n"
	"                     or more of the vCPUs' time (host-steal.txt beside the\n"
	"                     report, as make bench writes it; listed in the case's\n"
	"                     \"dropped_runs\")\n"
	"  -h, --help         show this help\n"
	"\n"
	"The reports must agree on the tool, commit, module, kernel, its command\n"
	"line, the CPUs and every bench parameter but the seed, rounds and budget.\n"
	"Exit status: 0, 1 when a report cannot be read or pooled, 2 usage.\n";

/* What identifies a case in a report: two results with these are one. */
static const char * const case_id[] = {
	"backend", "kind", "mix", "workload", "dist", "theta", "threads",
	"batch", "multi", "fd", "io", "qd", "sqpoll", "hash_bits",
};

/* What every report must say alike, in "provenance" and in "params". */
static const char * const same_prov[] = {
	"tool_version", "git_describe", "module_version", "cpu_model", "nproc",
	"accel", "kernel_cmdline", "preempt", "hz", "module_srcversion",
	"module_parameters",
};

static const char * const params_free[] = {
	"seed", "seed_given", "repeat", "budget_s", "clock_read_ns",
};

/* A run the host disturbed: round, case label, the host's share. */
struct msteal {
	unsigned int round;
	char label[160];
	double pct;
};

struct mreport {
	const char *name;
	struct kvb_rmodel m;	/* read and checked; m.root is changed */
	unsigned int rounds;	/* params.repeat */
	struct msteal *steal;	/* --max-steal: the runs at or over it */
	int nsteal;
	int steal_read;		/* host-steal.txt was there */
	int dropped;		/* runs left out */
};

static struct jnode *member(struct jnode *obj, const char *key)
{
	return (struct jnode *)kvb_json_member(obj, key);
}

/* A member's value as text ("" when absent), for comparing and keys. */
static char *text_of(const struct jnode *n)
{
	char *t = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&t, &len);

	if (!f)
		return NULL;
	if (n)
		kvb_json_write(f, n, 0);
	if (fclose(f)) {
		free(t);
		return NULL;
	}
	return t;
}

/* Whether obj a and b say alike for key (absent in both is alike). */
static int same_member(const struct jnode *a, const struct jnode *b,
		       const char *key)
{
	char *x = text_of(kvb_json_member(a, key));
	char *y = text_of(kvb_json_member(b, key));
	int same = x && y && !strcmp(x, y);

	free(x);
	free(y);
	return same;
}

static int in_list(const char *s, const char * const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, list[i]))
			return 1;
	return 0;
}

/* Whether report b may be pooled with a; else why not, in err. */
static int compatible(const struct mreport *a, const struct mreport *b,
		      char *err, size_t errlen)
{
	static const char * const top[] = { "schema", "kernel", "machine", "cpus" };
	const struct jnode *pa = kvb_json_member(&a->m.root, "params");
	const struct jnode *pb = kvb_json_member(&b->m.root, "params");
	const char *what = NULL, *key = NULL;
	size_t i;
	int k;

	for (i = 0; i < ARRAY_SIZE(top) && !what; i++)
		if (!same_member(&a->m.root, &b->m.root, top[i]))
			what = "", key = top[i];
	for (i = 0; i < ARRAY_SIZE(same_prov) && !what; i++)
		if (!same_member(kvb_json_member(&a->m.root, "provenance"),
				 kvb_json_member(&b->m.root, "provenance"), same_prov[i]))
			what = "provenance.", key = same_prov[i];
	for (k = 0; pa && pb && k < pa->nkids + pb->nkids && !what; k++) {
		const char *name = k < pa->nkids ? pa->kids[k].key :
				   pb->kids[k - pa->nkids].key;

		if (!in_list(name, params_free, ARRAY_SIZE(params_free)) &&
		    !same_member(pa, pb, name))
			what = "params.", key = name;
	}
	if (!what && (!pa || !pb))
		what = "", key = "params";
	if (!what)
		return 0;
	snprintf(err, errlen, "%s differs from %s's in %s%s: not runs of one suite",
		 b->name, a->name, what, key);
	return -1;
}

static char *case_key(const struct jnode *x)
{
	char *t = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&t, &len);

	if (!f)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(case_id); i++) {
		const struct jnode *n = kvb_json_member(x, case_id[i]);

		if (n)
			kvb_json_write(f, n, 0);
		fputc('|', f);
	}
	if (fclose(f)) {
		free(t);
		return NULL;
	}
	return t;
}

/*
 * n becomes the number v rounded to prec decimals as the bench writer
 * gives it (prec -1: as it is); null when v is not finite.
 */
static void set_num(struct jnode *n, double v, int prec)
{
	char *key;

	if (!n)
		return;
	if (prec >= 0 && isfinite(v))
		v = round(v * pow(10, prec)) / pow(10, prec);
	key = n->key;
	n->key = NULL;
	kvb_json_free(n);
	n->key = key;
	n->type = isfinite(v) ? J_NUM : J_NULL;
	n->num = isfinite(v) ? v : 0;
}

static double num_of(const struct jnode *obj, const char *key)
{
	const struct jnode *n = kvb_json_get(obj, key, J_NUM);

	return n ? n->num : NAN;
}

/* n's value becomes what text says (a value the tool's writer made). */
static int set_text(struct jnode *n, const char *text, char *err, size_t errlen)
{
	struct jnode v;
	char *key;

	if (!text || kvb_json_parse(text, &v, err, errlen))
		return -1;
	key = n->key;
	n->key = NULL;
	kvb_json_free(n);
	*n = v;
	n->key = key;
	return 0;
}

/* Append a member key (null) to obj; NULL when out of memory. */
static struct jnode *add_member(struct jnode *obj, const char *key)
{
	struct jnode *k = realloc(obj->kids, (obj->nkids + 1) * sizeof(*k));

	if (!k)
		return NULL;
	obj->kids = k;
	k = &obj->kids[obj->nkids];
	memset(k, 0, sizeof(*k));
	k->key = strdup(key);
	if (!k->key)
		return NULL;
	obj->nkids++;
	return k;
}

/* The numbers of array n, appended to *v (*nv of them so far). */
static int push_nums(const struct jnode *n, double add, double **v, int *nv)
{
	double *w;
	int i;

	if (!n || n->type != J_ARR)
		return 0;
	w = realloc(*v, (*nv + n->nkids + 1) * sizeof(*w));
	if (!w)
		return -1;
	*v = w;
	for (i = 0; i < n->nkids; i++)
		w[(*nv)++] = n->kids[i].num + add;
	return 0;
}

static char *nums_text(const double *v, int n, int prec)
{
	char *t = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&t, &len);
	int i;

	if (!f)
		return NULL;
	fputc('[', f);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%.*f", i ? ", " : "", prec, v[i]);
	fputc(']', f);
	if (fclose(f)) {
		free(t);
		return NULL;
	}
	return t;
}

/*
 * --max-steal: report k's host-steal.txt, the runs at or over max; none
 * when there is no such file (steal_read 0, said in "boots").
 */
static int read_steal(struct mreport *r, double max, char *err, size_t errlen)
{
	char *dir = strdup(r->name), path[4096], line[512];
	FILE *f;

	if (!dir)
		goto oom;
	snprintf(path, sizeof(path), "%s/host-steal.txt", dirname(dir));
	free(dir);
	f = fopen(path, "r");
	if (!f)
		return 0;
	r->steal_read = 1;
	while (fgets(line, sizeof(line), f)) {
		unsigned int round;
		double pct;
		char *label, *end;
		int at = 0;

		/* "12.5% kvbench: [round R/N, I/M] LABEL OPS ops/s" */
		if (sscanf(line, "%lf%% kvbench: [round %u/%*u, %*u/%*u] %n", &pct, &round,
			   &at) < 2 || !at || pct < max || !round)
			continue;
		label = line + at;
		end = strstr(label, " ops/s");
		if (!end)
			continue;
		/* the run's ops/s before " ops/s", the label before that */
		while (end > label && end[-1] != ' ')
			end--;
		if (end > label)
			end--;
		*end = 0;
		if (r->nsteal % 16 == 0) {
			struct msteal *m = realloc(r->steal, (r->nsteal + 16) * sizeof(*m));

			if (!m) {
				fclose(f);
				goto oom;
			}
			r->steal = m;
		}
		r->steal[r->nsteal].round = round - 1;
		r->steal[r->nsteal].pct = pct;
		snprintf(r->steal[r->nsteal].label, sizeof(r->steal[0].label), "%s", label);
		r->nsteal++;
	}
	fclose(f);
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

/* A case's label as the bench prints it in its progress lines. */
static void case_label(const struct jnode *x, char *buf, size_t len)
{
	const struct jnode *fd = kvb_json_get(x, "fd", J_STR);
	const struct jnode *multi = kvb_json_get(x, "multi", J_BOOL);
	const struct jnode *mix = kvb_json_get(kvb_json_member(x, "mix"), "name", J_STR);
	const struct jnode *backend = kvb_json_get(x, "backend", J_STR);
	const struct jnode *th = kvb_json_get(x, "threads", J_NUM);
	const struct jnode *b = kvb_json_get(x, "batch", J_NUM);

	snprintf(buf, len, "%s %s threads=%.0f %s=%.0f%s%s", backend ? backend->str : "",
		 mix ? mix->str : "", th ? th->num : 0, multi && multi->num ? "multi" : "batch",
		 b ? b->num : 0, fd ? " fd=" : "", fd ? fd->str : "");
}

/* The host's share of run @round of case @label in report r, or NAN. */
static double disturbed(const struct mreport *r, unsigned int round, const char *label)
{
	int i;

	for (i = 0; i < r->nsteal; i++)
		if (r->steal[i].round == round && !strcmp(r->steal[i].label, label))
			return r->steal[i].pct;
	return NAN;
}

/* One case pooled from the reports that have it. */
struct mcase {
	struct jnode *x[KVB_MERGE_MAX];	/* the case in report k, or NULL */
	unsigned int off[KVB_MERGE_MAX];	/* report k's first round */
};

/* How a figure of several reports becomes the pooled report's. */
enum pool { P_SUM, P_MAX, P_BY_REQ, P_BY_SECS };

static const struct {
	const char *name;
	enum pool how;
} bstat_rules[] = {
	{ "queue_full", P_SUM }, { "requests", P_SUM }, { "sleeps", P_SUM },
	{ "handoffs", P_SUM }, { "poll_us", P_SUM },
	{ "queue_hwm", P_MAX }, { "owners", P_MAX },
	/* means per owner pass or combining round: weighted by requests */
	{ "drain_mean", P_BY_REQ }, { "combine_mean", P_BY_REQ },
	/* CPUs' worth of polling over the case's window: by its seconds */
	{ "poll_cpus", P_BY_SECS },
};

/*
 * The backend's statistics over the pooled runs, by bstat_rules; reset
 * holds when it held in every report, wakeups_per_req is the pooled
 * sleeps over the pooled requests; null when a report has none.
 */
static void pool_bstats(struct jnode *dst, const struct mcase *c, int nr)
{
	struct jnode *b = member(dst, "backend_stats");
	size_t i;
	int k;

	if (!b || b->type != J_OBJ)
		return;
	for (k = 0; k < nr; k++)
		if (c->x[k] && !kvb_json_get(c->x[k], "backend_stats", J_OBJ)) {
			set_num(b, NAN, -1);
			return;
		}
	for (i = 0; i < ARRAY_SIZE(bstat_rules); i++) {
		const char *f = bstat_rules[i].name;
		enum pool how = bstat_rules[i].how;
		double acc = 0, wsum = 0;

		if (!kvb_json_get(b, f, J_NUM))
			continue;
		for (k = 0; k < nr; k++) {
			const struct jnode *s = kvb_json_member(c->x[k], "backend_stats");
			double v = num_of(s, f), w = 1;

			if (!c->x[k] || !isfinite(v))
				continue;
			if (how == P_BY_REQ)
				w = num_of(s, "requests");
			else if (how == P_BY_SECS)
				w = num_of(c->x[k], "seconds");
			if (how == P_MAX) {
				acc = fmax(acc, v);
			} else if (isfinite(w)) {
				acc += v * w;
				wsum += w;
			}
		}
		if (how == P_BY_REQ || how == P_BY_SECS)
			acc = wsum > 0 ? acc / wsum : NAN;
		set_num(member(b, f), acc, how == P_BY_REQ ? 2 : how == P_BY_SECS ? 4 : 0);
	}
	for (k = 0; k < nr; k++) {
		const struct jnode *r = kvb_json_get(kvb_json_member(c->x[k], "backend_stats"),
						     "reset", J_BOOL);

		if (c->x[k] && r && !r->num && member(b, "reset"))
			member(b, "reset")->num = 0;
	}
	if (kvb_json_get(b, "wakeups_per_req", J_NUM))
		set_num(member(b, "wakeups_per_req"),
			num_of(b, "requests") > 0 ?
			num_of(b, "sleeps") / num_of(b, "requests") : NAN, 4);
}

/*
 * "counters": each per-op figure weighted by the ops it was counted over,
 * running_pct likewise; null unless every report counted the same events
 * (the same "unavailable").
 */
static void pool_counters(struct jnode *dst, const struct mcase *c, int nr)
{
	static const char * const parts[] = { "per_op", "running_pct" };
	struct jnode *ct = member(dst, "counters");
	double all = 0;
	size_t p;
	int i, k;

	if (!ct || ct->type != J_OBJ)
		return;
	for (k = 0; k < nr; k++) {
		if (!c->x[k])
			continue;
		if (!kvb_json_get(c->x[k], "counters", J_OBJ) ||
		    !same_member(ct, kvb_json_member(c->x[k], "counters"), "unavailable")) {
			set_num(ct, NAN, -1);
			return;
		}
		all += num_of(kvb_json_member(c->x[k], "counters"), "ops");
	}
	for (p = 0; p < ARRAY_SIZE(parts); p++) {
		struct jnode *o = member(ct, parts[p]);

		for (i = 0; o && i < o->nkids; i++) {
			double acc = 0, ops = 0;
			int unknown = 0;

			for (k = 0; k < nr; k++) {
				const struct jnode *ck = kvb_json_member(c->x[k], "counters");
				double v = num_of(kvb_json_member(ck, parts[p]), o->kids[i].key);
				double w = num_of(ck, "ops");

				if (!c->x[k])
					continue;
				if (!isfinite(v) || !isfinite(w)) {
					unknown = 1;
					continue;
				}
				acc += v * w;
				ops += w;
			}
			set_num(&o->kids[i], unknown || !(ops > 0) ? NAN : acc / ops, p ? 2 : -1);
		}
	}
	set_num(member(ct, "ops"), all, 0);
}

/* The pooled runs' figures, as the bench writer gives a case's. */
/*
 * --max-steal: the runs of the pool (n of them) the host disturbed taken
 * out, each listed in "dropped_runs" (null without --max-steal).
 */
static int drop_disturbed(struct jnode *dst, const struct mcase *c, struct mreport *rp,
			  double max_steal, double *ops, double *rounds, double *boots,
			  int *n, char *err, size_t errlen)
{
	char label[160], *t = NULL;
	size_t len = 0;
	FILE *f;
	int i, kept = 0, nd = 0, ret;

	if (!member(dst, "dropped_runs") && !add_member(dst, "dropped_runs"))
		goto oom;
	if (isnan(max_steal))
		return set_text(member(dst, "dropped_runs"), "null", err, errlen);
	f = open_memstream(&t, &len);
	if (!f)
		goto oom;
	fputc('[', f);
	for (i = 0; i < *n; i++) {
		int k = (int)boots[i];
		double pct;

		case_label(c->x[k], label, sizeof(label));
		pct = disturbed(&rp[k], (unsigned int)rounds[i] - c->off[k], label);
		if (isnan(pct)) {
			ops[kept] = ops[i];
			rounds[kept] = rounds[i];
			boots[kept++] = boots[i];
			continue;
		}
		rp[k].dropped++;
		fprintf(f, "%s{ \"boot\": %d, \"round\": %.0f, \"ops_per_sec\": %.1f,",
			nd++ ? ", " : "", k, rounds[i], ops[i]);
		fprintf(f, " \"host_steal_pct\": %.1f }", pct);
	}
	fputc(']', f);
	if (fclose(f)) {
		free(t);
		goto oom;
	}
	*n = kept;
	ret = set_text(member(dst, "dropped_runs"), t, err, errlen);
	free(t);
	return ret;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

static int pool_runs(struct jnode *dst, const struct mcase *c, int nr, struct mreport *rp,
		     double noisy_pct, double max_steal, char *err, size_t errlen)
{
	struct kvb_summary sum;
	double *ops = NULL, *rounds = NULL, *boots = NULL, med, threads;
	int n = 0, nrd = 0, nb = 0, k, j, ret = -1;
	char *t = NULL;

	for (k = 0; k < nr; k++) {
		const struct jnode *r;

		if (!c->x[k])
			continue;
		r = kvb_json_get(c->x[k], "ops_per_sec_runs", J_ARR);
		if (push_nums(r, 0, &ops, &n) ||
		    push_nums(kvb_json_get(c->x[k], "rounds", J_ARR), c->off[k],
			      &rounds, &nrd))
			goto oom;
		boots = realloc(boots, (nb + (r ? r->nkids : 0) + 1) * sizeof(*boots));
		if (!boots)
			goto oom;
		for (j = 0; r && j < r->nkids; j++)
			boots[nb++] = k;
	}
	if (nrd != n) {
		snprintf(err, errlen, "a report without \"rounds\" (before kvbench-bench/4)");
		goto out;
	}
	if (drop_disturbed(dst, c, rp, max_steal, ops, rounds, boots, &n, err, errlen))
		goto out;
	med = kvb_median(ops, n);
	kvb_summarize(ops, n, &sum);
	threads = num_of(dst, "threads");
	set_num(member(dst, "runs"), n, 0);
	set_num(member(dst, "ops_per_sec"), med, 1);
	t = nums_text(ops, n, 1);
	if (set_text(member(dst, "ops_per_sec_runs"), t, err, errlen))
		goto out;
	free(t);
	t = nums_text(rounds, n, 0);
	if (set_text(member(dst, "rounds"), t, err, errlen))
		goto out;
	free(t);
	t = nums_text(boots, n, 0);
	if (!member(dst, "boots") && !add_member(dst, "boots"))
		goto oom;
	if (set_text(member(dst, "boots"), t, err, errlen))
		goto out;
	{
		struct jnode *s = member(dst, "ops_per_sec_stats");

		set_num(member(s, "mean"), sum.mean, 1);
		set_num(member(s, "median"), sum.median, 1);
		set_num(member(s, "stddev"), sum.stddev, 1);
		set_num(member(s, "mean_ci95_low"), sum.ci_lo, 1);
		set_num(member(s, "mean_ci95_high"), sum.ci_hi, 1);
		set_num(member(s, "median_ci_low"), sum.med_lo, 1);
		set_num(member(s, "median_ci_high"), sum.med_hi, 1);
		set_num(member(s, "median_ci_level"), sum.med_level, 6);
	}
	set_num(member(dst, "spread_pct"), kvb_spread_pct(ops, n), 2);
	member(dst, "noisy")->num = n > 1 && kvb_spread_pct(ops, n) > noisy_pct;
	set_num(member(dst, "ns_per_op"), med > 0 ? 1e9 / med : NAN, 2);
	set_num(member(dst, "lat_per_op_ns"), med > 0 ? threads * 1e9 / med : NAN, 2);
	ret = 0;
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	free(t);
	free(ops);
	free(rounds);
	free(boots);
	return ret;
}

/* A copy of tree n (through its text: the writer's numbers read back). */
static int copy_of(const struct jnode *n, struct jnode *out, char *err,
		   size_t errlen)
{
	char *t = text_of(n);
	int ret;

	if (!t) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	ret = kvb_json_parse(t, out, err, errlen);
	free(t);
	return ret;
}

/* The pooled histogram's "latency_ns" and "latency_hist". */
static int pool_latency(struct jnode *dst, const struct mcase *c, int nr,
			char *err, size_t errlen)
{
	struct kvb_hist *all = malloc(sizeof(*all)), *one = malloc(sizeof(*one));
	char *lat = NULL, *hist = NULL;
	size_t ll = 0, hl = 0;
	FILE *fl = NULL, *fh = NULL;
	int k, ret = -1;

	if (!all || !one)
		goto oom;
	kvb_hist_init(all);
	for (k = 0; k < nr; k++) {
		int got;

		if (!c->x[k])
			continue;
		got = kvb_rcase_hist(c->x[k], one, err, errlen);
		if (got < 0)
			goto out;
		if (!got && num_of(kvb_json_member(c->x[k], "latency_ns"), "samples") > 0) {
			snprintf(err, errlen,
				 "its latency has no \"latency_hist\" to pool (a report of an older kvbench)");
			goto out;
		}
		kvb_hist_merge(all, one);
	}
	fl = open_memstream(&lat, &ll);
	fh = open_memstream(&hist, &hl);
	if (!fl || !fh)
		goto oom;
	kvb_json_latency(fl, all);
	kvb_json_hist(fh, all);
	k = fclose(fl) | fclose(fh);
	fl = NULL;
	fh = NULL;
	if (k)
		goto oom;
	if (set_text(member(dst, "latency_ns"), lat, err, errlen))
		goto out;
	if (member(dst, "latency_hist") &&
	    set_text(member(dst, "latency_hist"), hist, err, errlen))
		goto out;
	ret = 0;
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	if (fl)
		fclose(fl);
	if (fh)
		fclose(fh);
	free(lat);
	free(hist);
	free(all);
	free(one);
	return ret;
}

/*
 * One case of the pooled report, into *out: the first report's result
 * with every figure computed again from the runs of all of them.
 */
static int pool_case(struct jnode *out, const struct mcase *c, int nr, struct mreport *rp,
		     double noisy_pct, double max_steal, char *err, size_t errlen)
{
	static const char * const sums[] = { "ops", "misses", "errors", "seconds" };
	static const char * const fair[] = { "min", "max", "min_max_ratio" };
	double acc[ARRAY_SIZE(sums)] = { 0 }, vcsw = 0, v[KVB_MERGE_MAX];
	struct jnode d;
	size_t i;
	int k, first = 0, nv;

	while (!c->x[first])
		first++;
	if (copy_of(c->x[first], &d, err, errlen))
		return -1;
	if (pool_runs(&d, c, nr, rp, noisy_pct, max_steal, err, errlen) ||
	    pool_latency(&d, c, nr, err, errlen))
		goto fail;
	for (k = 0; k < nr; k++) {
		if (!c->x[k])
			continue;
		for (i = 0; i < ARRAY_SIZE(sums); i++)
			acc[i] += num_of(c->x[k], sums[i]);
		vcsw += num_of(c->x[k], "vcsw_per_op") * num_of(c->x[k], "ops");
		if (kvb_json_get(c->x[k], "interrupted", J_BOOL) &&
		    kvb_json_member(c->x[k], "interrupted")->num)
			member(&d, "interrupted")->num = 1;
	}
	for (i = 0; i < ARRAY_SIZE(sums); i++)
		set_num(member(&d, sums[i]), acc[i], i == 3 ? 6 : 0);
	set_num(member(&d, "vcsw_per_op"), acc[0] > 0 ? vcsw / acc[0] : NAN, 4);
	/* fairness: the median over the reports of each one's (its runs') */
	for (i = 0; i < ARRAY_SIZE(fair); i++) {
		for (k = 0, nv = 0; k < nr; k++) {
			double f = num_of(kvb_json_member(c->x[k], "per_thread_ops_per_sec"),
					  fair[i]);

			if (c->x[k] && isfinite(f))
				v[nv++] = f;
		}
		set_num(member(member(&d, "per_thread_ops_per_sec"), fair[i]),
			nv ? kvb_median(v, nv) : NAN, i == 2 ? 4 : 1);
	}
	pool_bstats(&d, c, nr);
	pool_counters(&d, c, nr);
	kvb_json_free(out);
	*out = d;
	return 0;
fail:
	kvb_json_free(&d);
	return -1;
}

static unsigned int uint_of(const struct jnode *obj, const char *key)
{
	double v = num_of(obj, key);

	return v >= 0 && v < 4e9 ? (unsigned int)v : 0;
}

static const char *str_or(const struct jnode *obj, const char *key)
{
	const struct jnode *n = kvb_json_get(obj, key, J_STR);

	return n ? n->str : "";
}

/*
 * cost_vs_nop and tput_vs_rwlock of the pooled cases, by the bench's own
 * rule (kvb_compute_ratios()) over what the cases say of themselves.
 */
static int pool_ratios(struct jnode *res)
{
	struct kvb_result *r = calloc(res->nkids + 1, sizeof(*r));
	int i, w;

	if (!r)
		return -1;
	for (i = 0; i < res->nkids; i++) {
		const struct jnode *x = &res->kids[i], *mix = kvb_json_member(x, "mix");
		const char *fd = str_or(x, "fd"), *io = str_or(x, "io");
		struct kvb_result *y = &r[i];

		snprintf(y->target, sizeof(y->target), "%s", str_or(x, "backend"));
		y->kind = KVB_KERNEL;
		for (w = KVB_NOP; w <= KVB_PEER; w++)
			if (!strcmp(str_or(x, "kind"), kvb_kind_name(w)))
				y->kind = w;
		y->threads = uint_of(x, "threads");
		y->batch = uint_of(x, "batch");
		y->multi = kvb_json_get(x, "multi", J_BOOL) &&
			   kvb_json_member(x, "multi")->num;
		y->fdmode = !*fd ? KVB_FD_NONE : !strcmp(fd, kvb_fd_name(KVB_FD_SHARED)) ?
			    KVB_FD_SHARED : KVB_FD_PER_THREAD;
		y->io = !*io ? KVB_IO_NONE : !strcmp(io, kvb_io_name(KVB_IO_URING)) ?
			KVB_IO_URING : KVB_IO_IOCTL;
		y->qd = uint_of(x, "qd");
		y->sqpoll = kvb_json_get(x, "sqpoll", J_BOOL) &&
			    kvb_json_member(x, "sqpoll")->num;
		y->mix = (struct kvb_mix){
			.get = uint_of(mix, "get"), .set = uint_of(mix, "set"),
			.del = uint_of(mix, "del"), .ins = uint_of(mix, "insert"),
			.rmw = uint_of(mix, "rmw"),
		};
		for (w = 0; w < kvb_nworkloads; w++)
			if (!strcmp(str_or(x, "workload"), kvb_workloads[w].name))
				y->mix.wl = &kvb_workloads[w];
		y->ns_per_op = num_of(x, "ns_per_op");
		y->ops_per_sec = num_of(x, "ops_per_sec");
	}
	kvb_compute_ratios(r, res->nkids);
	for (i = 0; i < res->nkids; i++) {
		set_num(member(&res->kids[i], "cost_vs_nop"), r[i].cost_vs_nop, 4);
		set_num(member(&res->kids[i], "tput_vs_rwlock"), r[i].tput_vs_rwlock, 4);
	}
	free(r);
	return 0;
}

struct mlist {
	char *key;
	struct mcase c;
};

/* Every report's cases, pooled into the first report's "results". */
static int pool_results(struct mreport *rp, int nr, double max_steal, char *err,
			size_t errlen)
{
	struct jnode *res0 = member(&rp[0].m.root, "results"), *nk = NULL;
	double noisy_pct = num_of(kvb_json_member(&rp[0].m.root, "params"), "noisy_pct");
	struct mlist *l = NULL;
	unsigned int off = 0;
	int n = 0, cap = 0, i, k, j, ret = -1;

	for (k = 0; k < nr; k++) {
		const struct jnode *res = kvb_json_get(&rp[k].m.root, "results", J_ARR);

		for (i = 0; res && i < res->nkids; i++) {
			char *key = case_key(&res->kids[i]);

			if (!key)
				goto oom;
			for (j = 0; j < n && strcmp(l[j].key, key); j++)
				;
			if (j < n && l[j].c.x[k]) {
				snprintf(err, errlen,
					 "%s: results[%d]: a second result of one case",
					 rp[k].name, i);
				free(key);
				goto out;
			}
			if (j == n) {
				if (n == cap) {
					struct mlist *m;

					cap = cap * 2 + 16;
					m = realloc(l, cap * sizeof(*m));

					if (!m) {
						free(key);
						goto oom;
					}
					l = m;
				}
				memset(&l[n], 0, sizeof(l[n]));
				l[n++].key = key;
			} else {
				free(key);
			}
			l[j].c.x[k] = (struct jnode *)&res->kids[i];
			l[j].c.off[k] = off;
		}
		off += rp[k].rounds;
	}
	nk = calloc(n + 1, sizeof(*nk));
	if (!nk)
		goto oom;
	for (j = 0; j < n; j++) {
		if (pool_case(&nk[j], &l[j].c, nr, rp, noisy_pct, max_steal, err, errlen)) {
			char *what = strdup(err);

			for (k = 0; !l[j].c.x[k]; k++)
				;
			snprintf(err, errlen, "%s: %s %s threads=%u: %s", rp[k].name,
				 str_or(l[j].c.x[k], "backend"),
				 str_or(kvb_json_member(l[j].c.x[k], "mix"), "name"),
				 uint_of(l[j].c.x[k], "threads"), what ? what : "out of memory");
			free(what);
			goto out;
		}
	}
	for (i = 0; i < res0->nkids; i++)
		kvb_json_free(&res0->kids[i]);
	free(res0->kids);
	res0->kids = nk;
	res0->nkids = n;
	nk = NULL;
	ret = pool_ratios(res0);
	if (ret)
		goto oom;
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	for (j = 0; nk && j < n; j++)
		kvb_json_free(&nk[j]);
	free(nk);
	for (j = 0; j < n; j++)
		free(l[j].key);
	free(l);
	return ret;
}

/* Drop obj's member key, if it has one. */
static void drop_member(struct jnode *obj, const char *key)
{
	int i;

	for (i = 0; i < obj->nkids; i++) {
		if (strcmp(obj->kids[i].key, key))
			continue;
		kvb_json_free(&obj->kids[i]);
		memmove(&obj->kids[i], &obj->kids[i + 1],
			(obj->nkids - i - 1) * sizeof(*obj->kids));
		obj->nkids--;
		return;
	}
}

/*
 * The pooled report's header: interrupted when one was, complete when all
 * were, what did not run in each, the host at its busiest before a boot,
 * the rounds added up, and "boots": what each report was.
 */
static int pool_top(struct mreport *rp, int nr, double max_steal, char *err, size_t errlen)
{
	struct jnode *root = &rp[0].m.root;
	struct jnode *prov = member(root, "provenance");
	double skipped = 0, busy = NAN, steal = NAN;
	char *boots = NULL, *notrun = NULL;
	size_t bl = 0, nl = 0;
	FILE *fb = open_memstream(&boots, &bl), *fn = open_memstream(&notrun, &nl);
	int k, i, interrupted = 0, complete = 1, host_busy = 0, nn = 0, ret = -1;
	unsigned int rounds = 0;

	if (!fb || !fn)
		goto oom;
	fputc('[', fb);
	fputc('[', fn);
	for (k = 0; k < nr; k++) {
		const struct jnode *r = &rp[k].m.root, *pv = kvb_json_member(r, "provenance");
		const struct jnode *nrun = kvb_json_get(r, "not_run", J_ARR), *b;

		rounds += rp[k].rounds;
		interrupted |= rp[k].m.interrupted;
		b = kvb_json_get(r, "complete", J_BOOL);
		complete &= b && b->num;
		skipped += fmax(num_of(r, "skipped_cases"), 0);
		busy = fmax(busy, num_of(pv, "cpu_busy_pct_before"));
		steal = fmax(steal, num_of(pv, "cpu_steal_pct_before"));
		b = kvb_json_get(pv, "host_busy", J_BOOL);
		host_busy |= b && b->num;
		for (i = 0; nrun && i < nrun->nkids; i++) {
			fputs(nn++ ? ",\n    " : "\n    ", fn);
			kvb_json_write(fn, &nrun->kids[i], 4);
		}
		fprintf(fb, "%s\n    { \"report\": ", k ? "," : "");
		kvb_json_str(fb, rp[k].name);
		fprintf(fb, ", \"date\": ");
		kvb_json_str(fb, str_or(r, "date"));
		fprintf(fb, ", \"seed\": ");
		kvb_json_double(fb, num_of(kvb_json_member(r, "params"), "seed"));
		fprintf(fb, ", \"rounds\": %u, \"results\": %d, \"interrupted\": %s,\n",
			rp[k].rounds, rp[k].m.n, rp[k].m.interrupted ? "true" : "false");
		fprintf(fb, "      \"cpu_busy_pct_before\": ");
		kvb_json_double(fb, num_of(pv, "cpu_busy_pct_before"));
		fprintf(fb, ", \"cpu_steal_pct_before\": ");
		kvb_json_double(fb, num_of(pv, "cpu_steal_pct_before"));
		if (!isnan(max_steal))
			fprintf(fb, ",\n      \"host_steal_read\": %s, \"dropped_runs\": %d",
				rp[k].steal_read ? "true" : "false", rp[k].dropped);
		fputs(" }", fb);
		if (k && kvb_json_get(r, "trace_stall", J_OBJ) &&
		    !kvb_json_get(root, "trace_stall", J_OBJ) &&
		    copy_of(kvb_json_member(r, "trace_stall"), member(root, "trace_stall"),
			    err, errlen))
			goto out;
	}
	fputs("\n  ]", fb);
	fputs(nn ? "\n  ]" : "]", fn);
	k = fclose(fb) | fclose(fn);
	fb = NULL;
	fn = NULL;
	if (k)
		goto oom;
	member(root, "interrupted")->num = interrupted;
	member(root, "complete")->num = complete && !interrupted;
	set_num(member(root, "skipped_cases"), skipped, 0);
	if (set_text(member(root, "not_run"), notrun, err, errlen))
		goto out;
	set_num(member(member(root, "params"), "repeat"), rounds, 0);
	set_num(member(prov, "cpu_busy_pct_before"), busy, 1);
	set_num(member(prov, "cpu_steal_pct_before"), steal, 1);
	if (kvb_json_get(prov, "host_busy", J_BOOL))
		member(prov, "host_busy")->num = host_busy;
	drop_member(root, "verdict");
	if (!member(root, "boots") && !add_member(root, "boots"))
		goto oom;
	if (set_text(member(root, "boots"), boots, err, errlen))
		goto out;
	if (!member(root, "max_steal_pct") && !add_member(root, "max_steal_pct"))
		goto oom;
	set_num(member(root, "max_steal_pct"), max_steal, 1);
	ret = 0;
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	if (fb)
		fclose(fb);
	if (fn)
		fclose(fn);
	free(boots);
	free(notrun);
	return ret;
}

/* The pooled report, its verdict computed from it as read back. */
static int write_pooled(FILE *f, const struct jnode *root, char *err,
			size_t errlen)
{
	struct kvb_rmodel m;
	struct kvb_vgroup *g = NULL;
	char *text = text_of(root);
	size_t len;
	int ng;

	if (!text) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (kvb_rmodel_parse(text, &m, err, errlen)) {
		free(text);
		return -1;
	}
	ng = kvb_rmodel_verdict(&m, KVB_VERDICT_ALPHA, m.margin, &g);
	/* the tree's text ends in "\n}": the verdict goes before it */
	len = strlen(text);
	fprintf(f, "%.*s,\n  \"verdict\": ", (int)(len > 2 ? len - 2 : 0), text);
	if (ng >= 0)
		kvb_verdict_json(f, g, ng, NULL, 2);
	else
		fputs("null", f);
	fputs("\n}\n", f);
	kvb_verdict_free(g, ng);
	kvb_rmodel_free(&m);
	free(text);
	return 0;
}

int kvb_merge_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "max-steal", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct mreport *rp = NULL;
	const char *out = NULL;
	char err[512] = "";
	FILE *f = stdout;
	double max_steal = NAN;
	int c, k, nr, ret = KVB_EXIT_FAIL;
	char *end;

	opterr = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 's':
			max_steal = strtod(optarg, &end);
			if (end == optarg || *end || !(max_steal > 0 && max_steal <= 100))
				return kvb_usage("merge", NULL,
						 "--max-steal: a share of the vCPUs' time in %, above 0, at most 100");
			break;
		case 'h':
			fputs(merge_help, stdout);
			return KVB_EXIT_OK;
		default:
			return kvb_usage("merge", NULL, NULL);
		}
	}
	nr = argc - optind;
	if (nr < 1)
		return kvb_usage("merge", NULL,
				 "takes the reports to pool: kvbench merge -o OUT A.json B.json ...");
	if (nr > KVB_MERGE_MAX) {
		snprintf(err, sizeof(err), "%d reports: at most %d", nr, KVB_MERGE_MAX);
		return kvb_usage("merge", NULL, err);
	}
	rp = calloc(nr, sizeof(*rp));
	if (!rp) {
		fprintf(stderr, "kvbench merge: out of memory\n");
		return KVB_EXIT_FAIL;
	}
	for (k = 0; k < nr; k++) {
		char *text;

		rp[k].name = argv[optind + k];
		text = kvb_slurp(rp[k].name, err, sizeof(err));
		if (!text || kvb_rmodel_parse(text, &rp[k].m, err, sizeof(err))) {
			free(text);
			fprintf(stderr, "kvbench merge: %s: %s\n", rp[k].name, err);
			goto out;
		}
		free(text);
		rp[k].rounds = rp[k].m.repeat;
		if (!rp[k].rounds) {
			fprintf(stderr, "kvbench merge: %s: its params say no \"repeat\"\n",
				rp[k].name);
			goto out;
		}
		if (k && compatible(&rp[0], &rp[k], err, sizeof(err))) {
			fprintf(stderr, "kvbench merge: %s\n", err);
			goto out;
		}
		if (!isnan(max_steal) && read_steal(&rp[k], max_steal, err, sizeof(err))) {
			fprintf(stderr, "kvbench merge: %s: %s\n", rp[k].name, err);
			goto out;
		}
	}
	if (pool_results(rp, nr, max_steal, err, sizeof(err)) ||
	    pool_top(rp, nr, max_steal, err, sizeof(err))) {
		fprintf(stderr, "kvbench merge: %s\n", err);
		goto out;
	}
	if (out) {
		f = fopen(out, "w");
		if (!f) {
			fprintf(stderr, "kvbench merge: %s: %s\n", out, strerror(errno));
			goto out;
		}
	}
	if (write_pooled(f, &rp[0].m.root, err, sizeof(err))) {
		fprintf(stderr, "kvbench merge: the pooled report: %s\n", err);
		if (out)
			fclose(f);
		goto out;
	}
	if (fflush(f) || ferror(f) || (out && fclose(f))) {
		fprintf(stderr, "kvbench merge: %s: write error: %s\n", out ? out : "stdout",
			strerror(errno));
		goto out;
	}
	ret = KVB_EXIT_OK;
out:
	for (k = 0; rp && k < nr; k++) {
		kvb_rmodel_free(&rp[k].m);
		free(rp[k].steal);
	}
	free(rp);
	return ret;
}
