// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench: the report. A table for people, JSON and CSV for scripts, and a
 * gnuplot chart. The JSON schema is documented in README.md next to this
 * file; bump "schema" when a field changes meaning or goes away.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>

#include "kvbench.h"

#define KVB_SCHEMA	"kvbench-bench/3"

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
	int i;

	for (i = 0; i < n; i++) {
		if (!r[i].hash_bits)
			continue;
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
	else if (lo == kvb_hash_bits_for(p->keys))
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
	if (!o || !o->nskips)
		return;
	fprintf(f, "\nskipped: %d case%s did not run\n", o->nskips,
		o->nskips == 1 ? "" : "s");
	for (i = 0; i < o->nskips; i++)
		fprintf(f, "  %-48s %s\n", o->skips[i].label, o->skips[i].why);
}

/*
 * The verdict over the results (verdict.c): the map targets, not the nop
 * floor, nor a case with errors. Returns the number of groups (*g, and the
 * cases they point into, *cases: free both), or -1 (out of memory).
 */
static int verdict_of(const struct kvb_params *p, const struct kvb_result *r,
		      int n, struct kvb_vcase **cases, struct kvb_vgroup **g)
{
	struct kvb_vcase *c = calloc(n + 1, sizeof(*c));
	int i, nc = 0, ng;

	*cases = c;
	*g = NULL;
	if (!c)
		return -1;
	for (i = 0; i < n; i++) {
		const struct kvb_result *x = &r[i];
		struct kvb_vcase *v = &c[nc];

		if (x->kind == KVB_NOP || !x->runs || x->errors)
			continue;
		snprintf(v->target, sizeof(v->target), "%s", x->target);
		v->kind = x->kind;
		kvb_mix_name(&x->mix, v->key.mix, sizeof(v->key.mix));
		kvb_verdict_dist(v->key.dist, sizeof(v->key.dist),
				 p && p->dist == KVB_ZIPF ? "zipf" : "uniform", p ? p->theta : 0);
		v->key.threads = x->threads;
		v->key.batch = x->batch;
		v->key.multi = x->multi;
		v->key.fd = x->fdmode;
		v->key.io = x->io;
		v->key.qd = x->qd;
		v->key.sqpoll = x->sqpoll;
		kvb_vkey_normalize(&v->key);
		v->runs = x->run_ops;
		v->n = x->runs;
		nc++;
	}
	ng = kvb_verdict(c, nc, KVB_VERDICT_ALPHA, g);
	if (ng < 0) {
		free(c);
		*cases = NULL;
	}
	return ng;
}

/*
 * Under the table, one line per workload group with more than one target:
 * the fastest, and how the others compare (kvbench report has the ratios).
 */
static void verdict_lines(FILE *f, const struct kvb_params *p,
			  const struct kvb_result *r, int n)
{
	struct kvb_vcase *c;
	struct kvb_vgroup *g;
	char line[1024];
	int ng = verdict_of(p, r, n, &c, &g), i, shown = 0;

	for (i = 0; i < ng; i++) {
		if (g[i].n < 2)
			continue;
		if (!shown++)
			fprintf(f,
				"\nverdict: the fastest by median ops/s in each workload, against the others'\n"
				"runs (Mann-Whitney, p <= %.2g; 'kvbench report --all' on the JSON shows the ratios):\n",
				KVB_VERDICT_ALPHA);
		kvb_verdict_line(line, sizeof(line), &g[i]);
		fprintf(f, "  %s\n", line);
	}
	kvb_verdict_free(g, ng);
	free(c);
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
	footnotes(f, p, r, n, o);
	verdict_lines(f, p, r, n);
}

static void jstr(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* JSON has no NaN or infinity: those become null. */
static void jnum(FILE *f, double v, int prec)
{
	if (isfinite(v))
		fprintf(f, "%.*f", prec, v);
	else
		fputs("null", f);
}

/* A string, or null for "" (unknown). */
static void jstr_or_null(FILE *f, const char *s)
{
	if (s[0])
		kvb_json_str(f, s);
	else
		fputs("null", f);
}

static void jload(FILE *f, const double load[3])
{
	if (!isfinite(load[0])) {
		fputs("null", f);
		return;
	}
	fprintf(f, "[%.2f, %.2f, %.2f]", load[0], load[1], load[2]);
}

/* The host's part of the provenance (struct kvb_host), after "accel". */
static void print_host(FILE *f, const struct kvb_prov *pv)
{
	const struct kvb_host *h = &pv->host;
	int i;

	fprintf(f, ",\n    \"accel_source\": ");
	jstr_or_null(f, h->accel_src);
	fprintf(f, ",\n    \"kernel_cmdline\": ");
	jstr_or_null(f, h->cmdline);
	fprintf(f, ",\n    \"preempt\": ");
	jstr_or_null(f, h->preempt);
	fprintf(f, ",\n    \"preempt_source\": ");
	jstr_or_null(f, h->preempt_src);
	fprintf(f, ",\n    \"hz\": ");
	if (h->hz > 0)
		fprintf(f, "%d", h->hz);
	else
		fputs("null", f);
	fprintf(f, ",\n    \"cpufreq_governor\": ");
	jstr_or_null(f, h->governor);
	fprintf(f, ",\n    \"smt\": { \"active\": %s, \"control\": ",
		h->smt_active < 0 ? "null" : h->smt_active ? "true" : "false");
	jstr_or_null(f, h->smt_control);
	fprintf(f, " },\n    \"numa_nodes\": ");
	if (h->nnodes < 0) {
		fputs("null", f);
	} else {
		fputc('[', f);
		for (i = 0; i < h->nnodes; i++) {
			fprintf(f, "%s{ \"node\": %d, \"cpus\": ", i ? ", " : "",
				h->node_id[i]);
			kvb_json_str(f, h->node_cpus[i]);
			fputs(" }", f);
		}
		fputc(']', f);
	}
	fprintf(f, ",\n    \"loadavg_before\": ");
	jload(f, h->load_before);
	fprintf(f, ",\n    \"loadavg_after\": ");
	jload(f, h->load_after);
	fprintf(f, ",\n    \"cpu_busy_pct_before\": ");
	jnum(f, h->busy_pct, 1);
	fprintf(f, ",\n    \"host_busy\": %s,\n    \"module_srcversion\": ",
		h->busy ? "true" : "false");
	jstr_or_null(f, h->srcversion);
}

/* What produced the report (prov.c); null when it was not collected. */
static void print_provenance(FILE *f, const struct kvb_params *p)
{
	const struct kvb_prov *pv = p->prov;
	int i;

	fprintf(f, "  \"provenance\": ");
	if (!pv) {
		fprintf(f, "null,\n");
		return;
	}
	fprintf(f, "{\n    \"tool_version\": ");
	kvb_json_str(f, pv->tool_version);
	fprintf(f, ",\n    \"git_describe\": ");
	if (pv->tool_git[0])
		kvb_json_str(f, pv->tool_git);
	else
		fputs("null", f);
	fprintf(f, ",\n    \"module_version\": ");
	if (pv->module_version[0])
		kvb_json_str(f, pv->module_version);
	else
		fputs("null", f);
	fprintf(f, ",\n    \"command_line\": [");
	for (i = 0; i < pv->argc; i++) {
		fputs(i ? ", " : "", f);
		kvb_json_str(f, pv->argv[i]);
	}
	fprintf(f, "],\n    \"cpu_model\": ");
	kvb_json_str(f, pv->cpu_model);
	fprintf(f, ",\n    \"nproc\": %ld,\n    \"cpus_used\": [", pv->nproc);
	for (i = 0; i < p->ncpus && p->cpus; i++)
		fprintf(f, "%s%d", i ? ", " : "", p->cpus[i]);
	fprintf(f, "],\n    \"accel\": ");
	kvb_json_str(f, pv->accel);
	print_host(f, pv);
	fprintf(f, ",\n    \"module_parameters\": ");
	if (pv->nparams < 0) {
		fprintf(f, "null\n  },\n");
		return;
	}
	fputc('{', f);
	for (i = 0; i < pv->nparams; i++) {
		fprintf(f, "%s\n      ", i ? "," : "");
		kvb_json_str(f, pv->param_name[i]);
		fprintf(f, ": ");
		kvb_json_str(f, pv->param_value[i]);
	}
	fprintf(f, "%s}\n  },\n", pv->nparams ? "\n    " : "");
}

static void print_bstats(FILE *f, const struct kvb_bstats *b)
{
	if (!b->valid) {
		fputs("null", f);
		return;
	}
	fprintf(f, "{ \"reset\": %s, \"queue_hwm\": %llu, \"drain_mean\": ",
		b->reset ? "true" : "false", b->queue_hwm);
	jnum(f, b->drain_mean, 2);
	fprintf(f, ", \"queue_full\": %llu, \"requests\": %llu",
		b->queue_full, b->requests);
	if (b->has_sleeps) {
		fprintf(f, ", \"sleeps\": %llu, \"wakeups_per_req\": ",
			b->sleeps);
		jnum(f, kvb_wakeups_per_req(b), 4);
		fprintf(f, ", \"handoffs\": %llu, \"combine_mean\": ",
			b->handoffs);
		jnum(f, b->combine_mean, 2);
	}
	if (b->has_poll) {
		fprintf(f, ", \"owners\": %llu, \"poll_us\": %llu, \"poll_cpus\": ",
			b->owners, b->poll_us);
		jnum(f, kvb_poll_cpus(b, b->window_s), 4);
	}
	fputs(" }", f);
}

/* "io", and for io_uring its queue depth, SQPOLL and submission batch */
static void print_io(FILE *f, const struct kvb_result *x)
{
	int uring = x->io == KVB_IO_URING;

	fputs("      \"io\": ", f);
	if (x->io == KVB_IO_NONE)
		fputs("null", f);
	else
		fprintf(f, "\"%s\"", kvb_io_name(x->io));
	fprintf(f, ",\n      \"qd\": ");
	if (uring)
		fprintf(f, "%u", x->qd);
	else
		fputs("null", f);
	fprintf(f, ",\n      \"sqpoll\": %s,\n      \"submit_batch\": ",
		x->sqpoll ? "true" : "false");
	if (uring)
		fprintf(f, "%u,\n", kvb_uring_submit_batch(x->qd, x->sqpoll));
	else
		fputs("null,\n", f);
}

/*
 * "latency_ns": exact samples, min, mean, max; each percentile of
 * kvb_lat_pcts[] from the histogram, null and named in "insufficient" when
 * there are too few samples for it; the old p50, p99, p99_9 under the same
 * rule, for readers of /2.
 */
static void print_latency(FILE *f, const struct kvb_result *x)
{
	const struct kvb_lat *l = &x->lat;
	int i, k = 0, any = x->samples > 0;

	fprintf(f, "{\n        \"samples\": %llu, \"min\": ", x->samples);
	jnum(f, any ? l->min : NAN, 0);
	fprintf(f, ", \"mean\": ");
	jnum(f, any ? l->mean : NAN, 1);
	fprintf(f, ", \"max\": ");
	jnum(f, any ? l->max : NAN, 0);
	fprintf(f, ",\n        \"percentiles\": { ");
	for (i = 0; i < KVB_NPCT; i++) {
		fprintf(f, "%s\"%s\": ", i ? ", " : "", kvb_lat_pct_names[i]);
		jnum(f, any ? l->pct[i] : NAN, 0);
	}
	fprintf(f, " },\n        \"insufficient\": [");
	for (i = 0; i < KVB_NPCT; i++) {
		if (any && isfinite(l->pct[i]))
			continue;
		fprintf(f, "%s\"%s\"", k++ ? ", " : "", kvb_lat_pct_names[i]);
	}
	fprintf(f, "], \"precision\": %.7f,\n        \"p50\": ", KVB_HIST_PRECISION);
	jnum(f, x->p50, 0);
	fprintf(f, ", \"p99\": ");
	jnum(f, x->p99, 0);
	fprintf(f, ", \"p99_9\": ");
	jnum(f, x->p999, 0);
	fputs(" }", f);
}

/*
 * params.workloads: the --workload presets of the run, each with its
 * whole definition (null without --workload: the cases are --mix's).
 */
static void print_workloads(FILE *f, const struct kvb_params *p)
{
	int i;

	fprintf(f, ",\n    \"workloads\": ");
	if (!p->workloads) {
		fputs("null", f);
		return;
	}
	fputc('[', f);
	for (i = 0; i < p->nmixes; i++) {
		const struct kvb_workload *w = p->mixes[i].wl;

		fprintf(f, "%s\n      { \"name\": ", i ? "," : "");
		jstr(f, w->name);
		fprintf(f, ", \"what\": ");
		jstr(f, w->what);
		fprintf(f,
			", \"read\": %u, \"update\": %u, \"insert\": %u, \"rmw\": %u, \"dist\": \"%s\", \"theta\": ",
			w->mix.get, w->mix.set, w->mix.ins, w->mix.rmw, kvb_dist_name(w->dist));
		jnum(f, w->theta, 3);
		fputs(" }", f);
	}
	fputs("\n    ]", f);
}

void kvb_print_json(FILE *f, const struct kvb_params *p,
		    const struct kvb_result *r, int n,
		    const struct kvb_outcome *o)
{
	struct utsname u;
	char date[32] = "";
	time_t now = time(NULL);
	struct tm tm;
	struct kvb_vcase *vc;
	struct kvb_vgroup *g;
	int i, ng;
	unsigned int j;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	if (gmtime_r(&now, &tm))
		strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(f, "{\n  \"schema\": \"%s\",\n  \"date\": \"%s\",\n  \"kernel\": ",
		KVB_SCHEMA, date);
	jstr(f, u.release);
	fprintf(f, ",\n  \"machine\": ");
	jstr(f, u.machine);
	fprintf(f, ",\n  \"cpus\": %d,\n  \"interrupted\": %s,\n", p->ncpus,
		o->interrupted ? "true" : "false");
	/* an interrupted run's report holds only part of the plan */
	fprintf(f, "  \"complete\": %s,\n  \"skipped_cases\": %d,\n",
		o->complete && !o->interrupted ? "true" : "false", o->skipped);
	fprintf(f, "  \"not_run\": [");
	for (i = 0; i < o->nskips; i++) {
		fprintf(f, "%s\n    { \"case\": ", i ? "," : "");
		jstr(f, o->skips[i].label);
		fprintf(f, ", \"why\": ");
		jstr(f, o->skips[i].why);
		fprintf(f, " }");
	}
	fprintf(f, "%s],\n", o->nskips ? "\n  " : "");
	print_provenance(f, p);
	fprintf(f, "  \"params\": {\n    \"device\": ");
	jstr(f, p->device);
	fprintf(f, ",\n    \"keys\": %lu,\n    \"key_size\": %u,\n    \"value_size\": %u,\n",
		p->keys, p->key_size, p->value_size);
	fprintf(f, "    \"dist\": \"%s\",\n    \"theta\": ",
		kvb_dist_name(p->dist));
	jnum(f, p->theta, 3);
	print_workloads(f, p);
	fprintf(f, ",\n    \"warmup_s\": ");
	jnum(f, p->warmup, 3);
	fprintf(f, ",\n    \"duration_s\": ");
	jnum(f, p->ops ? NAN : p->duration, 3);
	fprintf(f, ",\n    \"ops_per_thread\": ");
	if (p->ops)
		fprintf(f, "%llu", p->ops);
	else
		fputs("null", f);
	fprintf(f, ",\n    \"repeat\": %u,\n    \"pin\": %s,\n    \"sample_every\": %u,\n",
		p->repeat, p->pin ? "true" : "false", p->sample_every);
	fprintf(f, "    \"budget_s\": ");
	jnum(f, p->budget > 0 ? p->budget : NAN, 0);
	fprintf(f, ",\n    \"clock_read_ns\": ");
	jnum(f, p->clock_ns, 1);
	fprintf(f, ",\n    \"seed\": %llu,\n    \"seed_given\": %s,\n",
		(unsigned long long)p->seed, p->seed_given ? "true" : "false");
	/* issue 44: how the runs were ordered, and whether each was settled */
	fprintf(f, "    \"order\": \"%s\",\n    \"settle\": %s,\n    \"after\": ",
		p->order == KVB_ORDER_SHUFFLED ? "shuffled" : "sequential",
		p->settled ? "true" : "false");
	if (p->after_given) {
		char am[32];

		kvb_mix_name(&p->after, am, sizeof(am));
		jstr(f, am);
	} else {
		fputs("null", f);
	}
	fprintf(f, ",\n    \"noisy_pct\": ");
	jnum(f, p->noisy_pct, 1);
	fprintf(f, "\n  },\n");
	fprintf(f, "  \"results\": [");
	for (i = 0; i < n; i++) {
		const struct kvb_result *x = &r[i];
		char m[32];

		kvb_mix_name(&x->mix, m, sizeof(m));
		fprintf(f, "%s\n    {\n      \"backend\": ", i ? "," : "");
		jstr(f, x->target);
		fprintf(f, ",\n      \"kind\": \"%s\",\n", kvb_kind_name(x->kind));
		fprintf(f, "      \"mix\": { \"name\": ");
		jstr(f, x->kind == KVB_NOP ? "nop" : m);
		fprintf(f,
			", \"get\": %u, \"set\": %u, \"del\": %u, \"insert\": %u, \"rmw\": %u },\n",
			x->mix.get, x->mix.set, x->mix.del, x->mix.ins, x->mix.rmw);
		fputs("      \"workload\": ", f);
		if (x->mix.wl)
			jstr(f, x->mix.wl->name);
		else
			fputs("null", f);
		fprintf(f, ",\n      \"dist\": \"%s\",\n      \"theta\": ",
			kvb_dist_name(x->dist));
		jnum(f, x->dist == KVB_UNIFORM ? 0 : x->theta, 3);
		fputs(",\n", f);
		fprintf(f, "      \"threads\": %u,\n      \"batch\": %u,\n", x->threads,
			x->batch);
		fprintf(f, "      \"multi\": %s,\n      \"fd\": ",
			x->multi ? "true" : "false");
		if (x->fdmode == KVB_FD_NONE)
			fputs("null,\n", f);
		else
			fprintf(f, "\"%s\",\n", kvb_fd_name(x->fdmode));
		print_io(f, x);
		fputs("      \"hash_bits\": ", f);
		if (x->hash_bits)
			fprintf(f, "%u,\n", x->hash_bits);
		else
			fputs("null,\n", f);
		fprintf(f, "      \"runs\": %u,\n      \"ops_per_sec\": ", x->runs);
		jnum(f, x->ops_per_sec, 1);
		fprintf(f, ",\n      \"ops_per_sec_runs\": [");
		for (j = 0; j < x->runs; j++) {
			fputs(j ? ", " : "", f);
			jnum(f, x->run_ops[j], 1);
		}
		/* the round of each run, from 0, in the order of the runs */
		fprintf(f, "],\n      \"rounds\": [");
		for (j = 0; j < x->runs; j++)
			fprintf(f, "%s%u", j ? ", " : "", x->run_round ? x->run_round[j] : j);
		fprintf(f, "],\n      \"ops_per_sec_stats\": { \"mean\": ");
		jnum(f, x->sum.mean, 1);
		fprintf(f, ", \"median\": ");
		jnum(f, x->sum.median, 1);
		fprintf(f, ", \"stddev\": ");
		jnum(f, x->sum.stddev, 1);
		fprintf(f, ",\n        \"mean_ci95_low\": ");
		jnum(f, x->sum.ci_lo, 1);
		fprintf(f, ", \"mean_ci95_high\": ");
		jnum(f, x->sum.ci_hi, 1);
		fprintf(f, ",\n        \"median_ci_low\": ");
		jnum(f, x->sum.med_lo, 1);
		fprintf(f, ", \"median_ci_high\": ");
		jnum(f, x->sum.med_hi, 1);
		fprintf(f, ", \"median_ci_level\": ");
		jnum(f, x->sum.med_level, 6);
		fprintf(f, " },\n      \"per_thread_ops_per_sec\": { \"min\": ");
		jnum(f, x->thr_min, 1);
		fprintf(f, ", \"max\": ");
		jnum(f, x->thr_max, 1);
		fprintf(f, ", \"min_max_ratio\": ");
		jnum(f, x->thr_ratio, 4);
		fprintf(f, " },\n      \"spread_pct\": ");
		jnum(f, x->spread_pct, 2);
		fprintf(f, ",\n      \"noisy\": %s,\n      \"ns_per_op\": ",
			x->noisy ? "true" : "false");
		jnum(f, x->ns_per_op, 2);
		fprintf(f, ",\n      \"lat_per_op_ns\": ");
		jnum(f, x->lat_per_op, 2);
		fprintf(f,
			",\n      \"ops\": %llu,\n      \"misses\": %llu,\n      \"errors\": %llu,\n",
			x->ops, x->misses, x->errors);
		fprintf(f, "      \"seconds\": ");
		jnum(f, x->seconds, 6);
		fprintf(f, ",\n      \"latency_ns\": ");
		print_latency(f, x);
		fprintf(f, ",\n      \"vcsw_per_op\": ");
		jnum(f, x->ops ? (double)x->vcsw / x->ops : NAN, 4);
		fprintf(f, ",\n      \"cost_vs_nop\": ");
		jnum(f, x->cost_vs_nop, 4);
		fprintf(f, ",\n      \"tput_vs_rwlock\": ");
		jnum(f, x->tput_vs_rwlock, 4);
		fprintf(f, ",\n      \"backend_stats\": ");
		print_bstats(f, &x->bstats);
		fprintf(f, ",\n      \"interrupted\": %s\n    }",
			x->interrupted ? "true" : "false");
	}
	fprintf(f, "%s],\n  \"verdict\": ", n ? "\n  " : "");
	ng = verdict_of(p, r, n, &vc, &g);
	kvb_verdict_json(f, g, ng > 0 ? ng : 0, NULL, 2);
	kvb_verdict_free(g, ng);
	free(vc);
	fputs("\n}\n", f);
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
