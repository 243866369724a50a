// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench: the run's table for people and its CSV for scripts. The JSON
 * report is benchjson.c's, the chart plot.c's.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "kvbench.h"

/* A target without an fd is set beside the per-thread fd rows. */
static enum kvb_fd fd_like(enum kvb_fd fd)
{
	return fd == KVB_FD_NONE ? KVB_FD_PER_THREAD : fd;
}

static const struct kvb_result *find(const struct kvb_result *r, int n,
				     const char *target,
				     const struct kvb_result *like, int match_mix)
{
	int i;

	for (i = 0; i < n; i++) {
		if (strcmp(r[i].target, target) || r[i].threads != like->threads ||
		    fd_like(r[i].fdmode) != fd_like(like->fdmode))
			continue;
		if (match_mix && (r[i].batch != like->batch || r[i].multi != like->multi ||
				  memcmp(&r[i].mix, &like->mix, sizeof(like->mix))))
			continue;
		return &r[i];
	}
	return NULL;
}

/*
 * cost_vs_nop: ns/op over the ns/op of nop at the same threads and fd mode,
 * through the same io (uring, qd and SQPOLL too). tput_vs_rwlock: ops/s
 * over the ops/s of the rwlock backend through ioctls in the same case
 * (mix, threads, batch or multi, fd mode).
 */
void kvb_compute_ratios(struct kvb_result *r, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		char floor[KVB_NAME_MAX];
		const struct kvb_result *nop, *rw;

		/* the floor of the same io: nop/uring-qd16 for rcu/uring-qd16 */
		kvb_target_name(floor, sizeof(floor), "nop", r[i].io, r[i].qd, r[i].sqpoll);
		nop = find(r, n, floor, &r[i], 0);
		rw = find(r, n, "rwlock", &r[i], 1);

		r[i].cost_vs_nop = NAN;
		r[i].tput_vs_rwlock = NAN;
		if (nop && nop->ns_per_op > 0)
			r[i].cost_vs_nop = r[i].ns_per_op / nop->ns_per_op;
		if (rw && rw->ops_per_sec > 0 && r[i].kind != KVB_NOP)
			r[i].tput_vs_rwlock = r[i].ops_per_sec / rw->ops_per_sec;
	}
}

/*
 * The hash chain backends' table size (2^hash_bits buckets) the kernel
 * cases ran at, and why; nothing before one ran, or with a module without
 * the parameter.
 */
static void header_hash_bits(FILE *f, const struct kvb_params *p,
			     const struct kvb_result *r, int n)
{
	unsigned int lo = 0, hi = 0;
	int i, fit = 0;

	for (i = 0; i < n; i++) {
		if (!r[i].hash_bits)
			continue;
		fit = r[i].hash_bits_fit;
		if (!lo || r[i].hash_bits < lo)
			lo = r[i].hash_bits;
		if (r[i].hash_bits > hi)
			hi = r[i].hash_bits;
	}
	if (!lo)
		return;
	if (lo != hi)
		fprintf(f,
			"hash_bits: %u to %u (it changed during the run: per case in the JSON)\n",
			lo, hi);
	else if (p->keep_hash_bits)
		fprintf(f, "hash_bits: %u (the module's, --keep-hash-bits)\n", lo);
	else if (fit)
		fprintf(f,
			"hash_bits: %u (sized for %lu keys; --keep-hash-bits keeps the module's)\n",
			lo, p->keys);
	else
		fprintf(f, "hash_bits: %u (the module's: it could not be set for %lu keys)\n",
			lo, p->keys);
}

static const char *or_dash(const char *s)
{
	return s[0] ? s : "-";
}

/*
 * The host, as the provenance has it: what a reviewer needs to judge the
 * figures, and a warning when the host was busy before the run.
 */
static void header_host(FILE *f, const struct kvb_prov *pv)
{
	const struct kvb_host *h = &pv->host;
	int i;

	fprintf(f, "host: accel %s, preempt %s", pv->accel, or_dash(h->preempt));
	if (h->preempt_src[0])
		fprintf(f, " (%s)", h->preempt_src);
	if (h->hz > 0)
		fprintf(f, ", HZ %d", h->hz);
	else
		fprintf(f, ", HZ -");
	fprintf(f, ", governor %s, SMT %s", or_dash(h->governor),
		h->smt_active < 0 ? "-" : h->smt_active ? "on" : "off");
	if (h->smt_control[0])
		fprintf(f, " (%s)", h->smt_control);
	if (h->nnodes > 0) {
		fprintf(f, ", NUMA %d node%s:", h->nnodes, h->nnodes == 1 ? "" : "s");
		for (i = 0; i < h->nnodes; i++)
			fprintf(f, " %d=%s", h->node_id[i], h->node_cpus[i]);
	}
	fprintf(f, "\nload: ");
	if (isfinite(h->load_before[0]))
		fprintf(f, "%.2f %.2f %.2f before", h->load_before[0],
			h->load_before[1], h->load_before[2]);
	else
		fprintf(f, "- before");
	if (isfinite(h->load_after[0]))
		fprintf(f, ", %.2f %.2f %.2f after", h->load_after[0],
			h->load_after[1], h->load_after[2]);
	fprintf(f, " (1, 5, 15 min); module srcversion %s\n", or_dash(h->srcversion));
	fprintf(f, "cmdline: %s\n", or_dash(h->cmdline));
	if (h->busy)
		fprintf(f,
			"host_busy: the CPUs were %.0f%% busy in the %d ms before the run (%d%% or more):\n"
			"  other work competed for the CPUs; the figures may be low and noisy\n",
			h->busy_pct, KVB_BUSY_WINDOW_MS, KVB_BUSY_PCT);
}

static void header(FILE *f, const struct kvb_params *p,
		   const struct kvb_result *r, int n)
{
	struct utsname u;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	fprintf(f, "kernel: %s %s\n", u.release, u.machine);
	fprintf(f, "cpus: %d, pinned: %s\n", p->ncpus, p->pin ? "yes" : "no");
	fprintf(f, "keys: %lu x %u B, values: %u B, dist: ", p->keys, p->key_size,
		p->value_size);
	if (p->workloads)
		fprintf(f, "the workload's (mix column; --workload in the docs)\n");
	else if (p->dist == KVB_ZIPF)
		fprintf(f, "zipf theta=%.2f\n", p->theta);
	else
		fprintf(f, "uniform\n");
	fprintf(f, "timing: %.2f s warm-up, ", p->warmup);
	if (p->ops)
		fprintf(f, "%llu ops/thread", p->ops);
	else
		fprintf(f, "%.2f s measured", p->duration);
	fprintf(f, ", %u run%s per case%s, ", p->repeat,
		p->repeat == 1 ? "" : "s", p->repeat > 1 ? " (median)" : "");
	if (p->sample_every)
		fprintf(f, "1 op in %u timed (a clock read: %.0f ns)\n",
			p->sample_every, p->clock_ns);
	else
		fprintf(f, "latency not sampled\n");
	fprintf(f, "seed: %llu (--seed %llu replays the key sequences%s), %s, kvbench %s%s%s\n",
		(unsigned long long)p->seed, (unsigned long long)p->seed,
		p->order == KVB_ORDER_SHUFFLED ? " and the order of the runs" : "",
		p->order == KVB_ORDER_SHUFFLED ? "runs in shuffled rounds" :
		"runs case by case (--order sequential)", kvb_version,
		kvb_git_describe[0] ? " git " : "", kvb_git_describe);
	if (p->prov)
		header_host(f, p->prov);
	header_hash_bits(f, p, r, n);
}

static void cell(FILE *f, double v, int width, int prec)
{
	if (isfinite(v))
		fprintf(f, " %*.*f", width, prec, v);
	else
		fprintf(f, " %*s", width, "-");
}

/*
 * The median's interval as the table shows it: half its width in % of the
 * median, and '~' when it is the min..max of fewer than 6 runs (below 95%).
 */
static void ci_cell(FILE *f, const struct kvb_result *x)
{
	const struct kvb_summary *s = &x->sum;
	char buf[16];

	if (x->runs < 2 || !isfinite(s->med_lo) || !(s->median > 0)) {
		fprintf(f, " %7s", "-");
		return;
	}
	snprintf(buf, sizeof(buf), "%.1f%%%s",
		 (s->med_hi - s->med_lo) / 2 / s->median * 100,
		 s->med_level < 0.95 ? "~" : "");
	fprintf(f, " %7s", buf);
}

/*
 * A latency percentile: "-" when nothing was timed, "n<1k" when fewer
 * samples were timed than it needs (kvb_pct_min_samples()), never a number
 * it cannot stand behind.
 */
static void pct_cell(FILE *f, const struct kvb_result *x, double v, double pct)
{
	unsigned long long need = kvb_pct_min_samples(pct);
	char buf[32];

	if (isfinite(v)) {
		fprintf(f, " %8.0f", v);
		return;
	}
	if (!x->samples)
		snprintf(buf, sizeof(buf), "-");
	else if (need >= 1000 && !(need % 1000))
		snprintf(buf, sizeof(buf), "n<%lluk", need / 1000);
	else
		snprintf(buf, sizeof(buf), "n<%llu", need);
	fprintf(f, " %8s", buf);
}

/* The widest of a title and a column's cells, so every row lines up. */
static int col_width(const char *title, const struct kvb_result *r, int n,
		     int mix)
{
	int w = strlen(title), i;

	for (i = 0; i < n; i++) {
		char m[32];
		int len;

		if (mix) {
			if (r[i].kind == KVB_NOP)
				snprintf(m, sizeof(m), "-");
			else
				kvb_mix_name(&r[i].mix, m, sizeof(m));
			len = strlen(m);
		} else {
			len = strlen(r[i].target);
		}
		if (len > w)
			w = len;
	}
	return w;
}

/* The largest thread count of the plan above the CPUs used, or 0. */
int kvb_oversubscribed(const struct kvb_params *p)
{
	unsigned int max = 0;
	int i;

	for (i = 0; i < p->threads.n; i++)
		if (p->threads.v[i] > max)
			max = p->threads.v[i];
	return p->ncpus > 0 && max > (unsigned int)p->ncpus ? (int)max : 0;
}

static void footnotes(FILE *f, const struct kvb_params *p,
		      const struct kvb_result *r, int n,
		      const struct kvb_outcome *o)
{
	int i, over = 0;

	for (i = 0; p && i < n; i++)
		over += p->ncpus > 0 && r[i].threads > (unsigned int)p->ncpus;
	if (over)
		fprintf(f,
			"\n* %d case%s ran more threads than the %d CPU%s used: threads shared CPUs, so\n"
			"  their ns/op and latencies include waiting for a CPU, not only the operation.\n",
			over, over == 1 ? "" : "s", p->ncpus, p->ncpus == 1 ? "" : "s");
	for (i = 0; i < n && r[i].io != KVB_IO_URING; i++)
		;
	if (i < n)
		fprintf(f,
			"\nbackend/uring-qdN: through io_uring (IORING_OP_URING_CMD), N commands in flight\n"
			"per thread, SQEs submitted N/4 at a time (1 below qd 4); -sqpoll: one at a time to a\n"
			"kernel SQ thread per ring, which keeps a CPU busy besides the thread's own. Its p50..p99.9\n"
			"are per command, from queued to reaped (they include the wait behind the N - 1 others).\n");
	if (o && o->stall) {
		char line[512];

		kvb_stall_line(o->stall, line, sizeof(line));
		fprintf(f, "\n%s\n", line);
	}
	if (!o || !o->nskips)
		return;
	fprintf(f, "\nskipped: %d case%s did not run\n", o->nskips,
		o->nskips == 1 ? "" : "s");
	for (i = 0; i < o->nskips; i++)
		fprintf(f, "  %-48s %s\n", o->skips[i].label, o->skips[i].why);
}

/*
 * Under the table, one line per workload group with more than one target:
 * the fastest, and how the others compare (kvbench report has the ratios).
 * The verdict is the report's (benchjson.c): the results as the JSON
 * report has them.
 */
static void verdict_lines(FILE *f, const struct kvb_params *p,
			  const struct kvb_result *r, int n,
			  const struct kvb_outcome *o)
{
	struct kvb_rmodel m;
	struct kvb_vgroup *g = NULL;
	char line[1024];
	int ng, i, shown = 0;

	if (kvb_rmodel_of_results(p, r, n, o, &m, line, sizeof(line))) {
		fprintf(f, "\nverdict: none (%s)\n", line);
		return;
	}
	ng = kvb_rmodel_verdict(&m, KVB_VERDICT_ALPHA, m.margin, &g);
	for (i = 0; i < ng; i++) {
		if (g[i].n < 2)
			continue;
		if (!shown++)
			fprintf(f,
				"\nverdict: the fastest by median ops/s in each workload, against the others'\n"
				"runs (Mann-Whitney, Holm's correction within a workload, p <= %.2g; tied: the\n"
				"interval inside ±%g%%; 'kvbench report --all' on the JSON shows the ratios):\n",
				KVB_VERDICT_ALPHA, m.margin * 100);
		kvb_verdict_line(line, sizeof(line), &g[i]);
		kvb_wrap(f, "  ", line, 4, KVB_MAIL_COLS);
	}
	kvb_verdict_free(g, ng);
	kvb_rmodel_free(&m);
}

void kvb_print_table(FILE *f, const struct kvb_params *p,
		     const struct kvb_result *r, int n,
		     const struct kvb_outcome *o)
{
	int tw = col_width("backend", r, n, 0), mw = col_width("mix", r, n, 1);
	int i;

	if (p)
		header(f, p, r, n);
	fprintf(f, "\n%-*s %-*s %5s %5s %-10s %12s %7s %9s %9s %8s %8s %8s %8s %8s %11s %8s %6s\n",
		tw, "backend", mw, "mix", "thr", "batch", "fd", "ops/s", "ci", "ns/op", "lat/op",
		"spread", "p50", "p99", "p99.9", "cost/nop", "tput/rwlock", "wake/req", "poll");
	for (i = 0; i < n; i++) {
		int over = p && p->ncpus > 0 && r[i].threads > (unsigned int)p->ncpus;
		char m[32], call[16];

		if (r[i].kind == KVB_NOP)
			snprintf(m, sizeof(m), "-");
		else
			kvb_mix_name(&r[i].mix, m, sizeof(m));
		kvb_call_name(r[i].batch, r[i].multi, call, sizeof(call));
		fprintf(f, "%-*s %-*s %4u%s %5s %-10s %12.0f", tw, r[i].target,
			mw, m, r[i].threads, over ? "*" : " ", call,
			kvb_fd_name(r[i].fdmode), r[i].ops_per_sec);
		ci_cell(f, &r[i]);
		cell(f, r[i].ns_per_op, 9, 1);
		cell(f, r[i].lat_per_op, 9, 1);
		if (r[i].runs > 1)
			fprintf(f, " %6.1f%%%c", r[i].spread_pct, r[i].noisy ? '!' : ' ');
		else
			fprintf(f, " %7s ", "-");
		pct_cell(f, &r[i], r[i].p50, 50);
		pct_cell(f, &r[i], r[i].p99, 99);
		pct_cell(f, &r[i], r[i].p999, 99.9);
		cell(f, r[i].cost_vs_nop, 8, 2);
		cell(f, r[i].tput_vs_rwlock, 11, 2);
		cell(f, kvb_wakeups_per_req(&r[i].bstats), 8, 3);
		cell(f, kvb_poll_cpus(&r[i].bstats, r[i].bstats.window_s), 6, 3);
		if (r[i].threads > 1 && r[i].thr_max > 0 && r[i].thr_ratio < KVB_STARVED)
			fprintf(f, "  (starved: %.2f)", r[i].thr_ratio);
		if (r[i].errors)
			fprintf(f, "  (%llu errors)", r[i].errors);
		if (r[i].interrupted)
			fprintf(f, "  (interrupted)");
		fputc('\n', f);
	}
	if (!n)
		fprintf(f, "(no results)\n");
	fprintf(f,
		"\nns/op = 1e9 / ops/s, wall time per operation over all threads (Go's ns/op);\n"
		"lat/op = threads x 1e9 / ops/s and p50..p99.9 (ns) are per operation of one thread;\n"
		"ci = half the width of the median's 95%% confidence interval (order statistics), in %% of\n"
		"the median; ~: 2 to 5 runs have none, it is their min..max (93.75%% sure with 5, 87.5%% with 4);\n"
		"p50..p99.9 from a histogram of every timed op, at most 0.78%% above the exact value;\n"
		"n<1k: too few timed ops for it (n x (1 - p) >= 10: 20 for p50, 1k for p99, 10k for p99.9);\n"
		"(starved: r) = the slowest thread's ops/s was r times the fastest's, below 0.5 (median of runs);\n"
		"spread = (max-min)/median, ! = noisy: spread above %.0f%%;\n"
		"cost/nop = ns/op / nop ns/op at the same threads;\n"
		"tput/rwlock = ops/s / rwlock ops/s in the same case; batch = operations per call\n"
		"(1: single ioctls; M64: packed MGET/MSET/MDEL calls of 64 keys, --multi);\n"
		"wake/req = wake-ups per request, from the module's own counters: the times a caller\n"
		"slept for its answer (sysfs sleeps) over the requests it ran (gets + sets + dels);\n"
		"poll = CPUs' worth of time the owner threads spent polling for work over the case\n"
		"(sysfs poll_us over the case's wall time); 0 for backends without owners.\n",
		p ? p->noisy_pct : KVB_NOISY_PCT);
	kvb_ctr_results_table(f, r, n);
	footnotes(f, p, r, n, o);
	verdict_lines(f, p, r, n, o);
}

static void cnum(FILE *f, double v, int prec)
{
	fputc(',', f);
	if (isfinite(v))
		fprintf(f, "%.*f", prec, v);
}

static const char * const csv_cols[] = {
	"backend", "kind", "mix", "get", "set", "del", "threads", "batch", "fd",
	"runs", "ops_per_sec", "ns_per_op", "lat_per_op_ns", "spread_pct",
	"p50_ns", "p99_ns", "p999_ns", "samples", "ops", "misses", "errors",
	"cost_vs_nop", "tput_vs_rwlock", "ops_per_sec_mean", "ops_per_sec_stddev",
	"ops_per_sec_ci95_low", "ops_per_sec_ci95_high", "noisy", "multi",
	"io", "qd", "sqpoll", "wakeups_per_req", "combine_mean", "poll_cpus",
	"owners", "lat_min_ns", "lat_mean_ns", "lat_max_ns", "p90_ns", "p9999_ns",
	"ops_per_sec_median_ci_low", "ops_per_sec_median_ci_high",
	"ops_per_sec_median_ci_level", "thread_ops_per_sec_min",
	"thread_ops_per_sec_max", "thread_min_max_ratio",
};

void kvb_print_csv(FILE *f, const struct kvb_result *r, int n)
{
	int i;

	for (i = 0; i < (int)ARRAY_SIZE(csv_cols); i++)
		fprintf(f, "%s%s", i ? "," : "", csv_cols[i]);
	fputc('\n', f);
	for (i = 0; i < n; i++) {
		const struct kvb_result *x = &r[i];
		char m[32];

		if (x->kind == KVB_NOP)
			snprintf(m, sizeof(m), "nop");
		else
			kvb_mix_name(&x->mix, m, sizeof(m));
		fprintf(f, "%s,%s,%s,%u,%u,%u,%u,%u,%s,%u", x->target,
			kvb_kind_name(x->kind), m, x->mix.get, x->mix.set,
			x->mix.del, x->threads, x->batch,
			x->fdmode == KVB_FD_NONE ? "" : kvb_fd_name(x->fdmode), x->runs);
		cnum(f, x->ops_per_sec, 1);
		cnum(f, x->ns_per_op, 2);
		cnum(f, x->lat_per_op, 2);
		cnum(f, x->spread_pct, 2);
		cnum(f, x->p50, 0);
		cnum(f, x->p99, 0);
		cnum(f, x->p999, 0);
		fprintf(f, ",%llu,%llu,%llu,%llu", x->samples, x->ops, x->misses,
			x->errors);
		cnum(f, x->cost_vs_nop, 4);
		cnum(f, x->tput_vs_rwlock, 4);
		cnum(f, x->sum.mean, 1);
		cnum(f, x->sum.stddev, 1);
		cnum(f, x->sum.ci_lo, 1);
		cnum(f, x->sum.ci_hi, 1);
		fprintf(f, ",%d,%d,%s,", x->noisy, !!x->multi,
			x->io == KVB_IO_NONE ? "" : kvb_io_name(x->io));
		if (x->io == KVB_IO_URING)
			fprintf(f, "%u", x->qd);
		fprintf(f, ",%d", !!x->sqpoll);
		cnum(f, kvb_wakeups_per_req(&x->bstats), 4);
		cnum(f, x->bstats.valid && x->bstats.has_sleeps ?
		     x->bstats.combine_mean : NAN, 2);
		cnum(f, kvb_poll_cpus(&x->bstats, x->bstats.window_s), 4);
		fputc(',', f);
		if (x->bstats.valid && x->bstats.has_poll)
			fprintf(f, "%llu", x->bstats.owners);
		cnum(f, x->samples ? x->lat.min : NAN, 0);
		cnum(f, x->samples ? x->lat.mean : NAN, 1);
		cnum(f, x->samples ? x->lat.max : NAN, 0);
		cnum(f, x->samples ? x->lat.pct[1] : NAN, 0);
		cnum(f, x->samples ? x->lat.pct[4] : NAN, 0);
		cnum(f, x->sum.med_lo, 1);
		cnum(f, x->sum.med_hi, 1);
		cnum(f, x->sum.med_level, 6);
		cnum(f, x->thr_min, 1);
		cnum(f, x->thr_max, 1);
		cnum(f, x->thr_ratio, 4);
		fputc('\n', f);
	}
}
