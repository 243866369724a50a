// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench: the report model, "kvbench-bench/N". This file owns the bench
 * report's JSON: it writes it (kvb_print_json(), from a run's results) and
 * reads it back (kvb_rmodel_parse(): the one schema check and the one case
 * reader, which `kvbench report`, `compare` and `plot` go through). The
 * verdict a report carries is computed from the report as read back
 * (kvb_rmodel_verdict()), the shape `kvbench report` reads: the verdict in
 * bench.json and the one `kvbench report bench.json` prints are the same
 * computation over the same numbers.
 *
 * The schema is documented in README.md next to this file; bump
 * KVB_SCHEMA_VERSION when a field changes meaning or goes away (the reader
 * keeps reading every older version).
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>

#include "kvbench.h"

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
	kvb_json_field(f, ",\n    ", "cpu_busy_pct_before", h->busy_pct, 1);
	kvb_json_field(f, ",\n    ", "cpu_steal_pct_before", h->steal_pct, 1);
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
	kvb_json_num(f, b->drain_mean, 2);
	fprintf(f, ", \"queue_full\": %llu, \"requests\": %llu",
		b->queue_full, b->requests);
	if (b->has_sleeps) {
		fprintf(f, ", \"sleeps\": %llu, \"wakeups_per_req\": ",
			b->sleeps);
		kvb_json_num(f, kvb_wakeups_per_req(b), 4);
		fprintf(f, ", \"handoffs\": %llu, \"combine_mean\": ",
			b->handoffs);
		kvb_json_num(f, b->combine_mean, 2);
	}
	if (b->has_poll) {
		fprintf(f, ", \"owners\": %llu, \"poll_us\": %llu, \"poll_cpus\": ",
			b->owners, b->poll_us);
		kvb_json_num(f, kvb_poll_cpus(b, b->window_s), 4);
	}
	fputs(" }", f);
}

/*
 * "counters" (--counters, counters.c): per op, each event null exactly
 * when "unavailable" says why; null without --counters.
 */
static void print_counters(FILE *f, const struct kvb_ctr_case *c)
{
	int i, k = 0;

	if (!c->on) {
		fputs("null", f);
		return;
	}
	fprintf(f, "{\n        \"ops\": %llu,\n        \"per_op\": {", c->ops);
	for (i = 0; i < KVB_CTR_NEV; i++) {
		fprintf(f, "%s\"%s\": ", i ? ", " : " ", kvb_ctr_name(i));
		/* significant digits: 25 switches in 3.7M ops is no 0.0000 */
		kvb_json_num(f, c->why[i][0] ? NAN : c->per_op[i], KVB_JSON_SIG(6));
	}
	fprintf(f, " },\n        \"running_pct\": {");
	for (i = 0; i < KVB_CTR_NEV; i++) {
		fprintf(f, "%s\"%s\": ", i ? ", " : " ", kvb_ctr_name(i));
		kvb_json_num(f, c->why[i][0] ? NAN : c->running_pct[i], 2);
	}
	fprintf(f, " },\n        \"unavailable\": {");
	for (i = 0; i < KVB_CTR_NEV; i++) {
		if (!c->why[i][0])
			continue;
		fprintf(f, "%s\n          \"%s\": ", k++ ? "," : "", kvb_ctr_name(i));
		kvb_json_str(f, c->why[i]);
	}
	fprintf(f, "%s}\n      }", k ? "\n        " : " ");
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
	kvb_json_num(f, any ? l->min : NAN, 0);
	fprintf(f, ", \"mean\": ");
	kvb_json_num(f, any ? l->mean : NAN, 1);
	fprintf(f, ", \"max\": ");
	kvb_json_num(f, any ? l->max : NAN, 0);
	fprintf(f, ",\n        \"percentiles\": { ");
	for (i = 0; i < KVB_NPCT; i++) {
		fprintf(f, "%s\"%s\": ", i ? ", " : "", kvb_lat_pct_names[i]);
		kvb_json_num(f, any ? l->pct[i] : NAN, 0);
	}
	fprintf(f, " },\n        \"insufficient\": [");
	for (i = 0; i < KVB_NPCT; i++) {
		if (any && isfinite(l->pct[i]))
			continue;
		fprintf(f, "%s\"%s\"", k++ ? ", " : "", kvb_lat_pct_names[i]);
	}
	fprintf(f, "], \"precision\": %.7f,\n        \"p50\": ", KVB_HIST_PRECISION);
	kvb_json_num(f, x->p50, 0);
	fprintf(f, ", \"p99\": ");
	kvb_json_num(f, x->p99, 0);
	fprintf(f, ", \"p99_9\": ");
	kvb_json_num(f, x->p999, 0);
	fputs(" }", f);
}

/*
 * "latency_hist": the case's histogram (util/hist.c's layout), from which
 * kvbench merge pools the latency of several reports exactly: the count,
 * sum, min and max, and each bucket that is not empty as [index, count];
 * null without samples.
 */
void kvb_json_hist(FILE *f, const struct kvb_hist *h)
{
	unsigned int i, k = 0;

	if (!h || !h->count) {
		fputs("null", f);
		return;
	}
	fprintf(f, "{ \"sub_bits\": %d, \"count\": %llu, \"sum\": %llu,",
		KVB_HIST_SUB_BITS, (unsigned long long)h->count,
		(unsigned long long)h->sum);
	fprintf(f, " \"min\": %llu, \"max\": %llu,\n        \"buckets\": [",
		(unsigned long long)h->min, (unsigned long long)h->max);
	for (i = 0; i < KVB_HIST_BUCKETS; i++) {
		if (!h->counts[i])
			continue;
		fputs(!k ? "" : k % 8 ? ", " : ",\n          ", f);
		fprintf(f, "[%u, %llu]", i, (unsigned long long)h->counts[i]);
		k++;
	}
	fputs("] }", f);
}

/* "latency_ns" of a histogram (kvbench merge's pooled one). */
void kvb_json_latency(FILE *f, const struct kvb_hist *h)
{
	struct kvb_result x = { .samples = h->count };

	kvb_hist_summary(h, &x.lat);
	x.p50 = x.lat.pct[0];
	x.p99 = x.lat.pct[2];
	x.p999 = x.lat.pct[3];
	print_latency(f, &x);
}

/*
 * params.workloads: the --workload presets of the run, each with its
 * whole definition (null without --workload: the cases are --mix's).
 */
static void print_workloads(FILE *f, const void *obj)
{
	const struct kvb_params *p = obj;
	int i;

	if (!p->workloads) {
		fputs("null", f);
		return;
	}
	fputc('[', f);
	for (i = 0; i < p->nmixes; i++) {
		const struct kvb_workload *w = p->mixes[i].wl;

		fprintf(f, "%s\n      { \"name\": ", i ? "," : "");
		kvb_json_str(f, w->name);
		fprintf(f, ", \"what\": ");
		kvb_json_str(f, w->what);
		fprintf(f,
			", \"read\": %u, \"update\": %u, \"insert\": %u, \"rmw\": %u, \"dist\": \"%s\", \"theta\": ",
			w->mix.get, w->mix.set, w->mix.ins, w->mix.rmw, kvb_dist_name(w->dist));
		kvb_json_num(f, w->theta, 3);
		fputs(" }", f);
	}
	fputs("\n    ]", f);
}

/*
 * --trace-stall: null without it; else the threshold, whether the trace
 * was on to freeze (armed), and, once it fired, the operation that did.
 */
static void print_stall(FILE *f, const struct kvb_stall *s)
{
	int fired = s && s->what[0];

	fputs("  \"trace_stall\": ", f);
	if (!s) {
		fputs("null,\n", f);
		return;
	}
	fprintf(f, "{ \"threshold_us\": %llu, \"dir\": ", s->us);
	kvb_json_str(f, s->dir);
	fprintf(f, ", \"armed\": %s, \"fired\": %s",
		s->off_at_start ? "false" : "true", fired ? "true" : "false");
	if (fired) {
		fprintf(f, ",\n    \"op\": ");
		kvb_json_str(f, s->what);
		fprintf(f, ", \"latency_us\": ");
		kvb_json_num(f, s->ns / 1e3, 1);
		fprintf(f, ", \"at_s\": ");
		kvb_json_num(f, s->at_s, 3);
		fprintf(f, ", \"thread\": %u, \"tid\": %d, \"cpu\": %d,\n    \"case\": ",
			s->thread, s->tid, s->cpu);
		kvb_json_str(f, s->label);
		fprintf(f, ", \"marker_error\": ");
		if (s->marker_err)
			kvb_json_str(f, strerror(s->marker_err));
		else
			fputs("null", f);
		fprintf(f, ", \"tracing_off_error\": ");
		if (s->off_err)
			kvb_json_str(f, strerror(s->off_err));
		else
			fputs("null", f);
	}
	fputs(" },\n", f);
}

/*
 * The writer's tables: each object of the report (its head, "params", each
 * of "results") is a table of fields, a name and how to print its value,
 * walked by put_fields() in order. A new field is a line in its table.
 */
enum jf_how {
	JF_CHARS,	/* a char array at off, as a string */
	JF_STR,		/* str(obj): a string, or null for NULL */
	JF_DBL,		/* a double at off, prec as kvb_json_num() */
	JF_NUM,		/* num(obj), prec as kvb_json_num() */
	JF_INT,		/* an int at off */
	JF_UINT,	/* an unsigned int at off */
	JF_ULL,		/* an unsigned long long at off */
	JF_BOOL,	/* an int at off: true or false */
	JF_PUT,		/* put(f, obj) writes the value */
};

struct jfield {
	const char *name;
	enum jf_how how;
	size_t off;
	int prec;
	const char *(*str)(const void *obj);
	double (*num)(const void *obj);
	void (*put)(FILE *f, const void *obj);
};

#define JF(n, h, type, member) { .name = n, .how = h, .off = offsetof(type, member) }
#define JF_D(n, type, member, p) \
	{ .name = n, .how = JF_DBL, .off = offsetof(type, member), .prec = p }
#define JF_S(n, fn)	{ .name = n, .how = JF_STR, .str = fn }
#define JF_N(n, fn, p)	{ .name = n, .how = JF_NUM, .num = fn, .prec = p }
#define JF_P(n, fn)	{ .name = n, .how = JF_PUT, .put = fn }

/* The fields of obj, "name": value, a line each after indent, no last comma. */
static void put_fields(FILE *f, const void *obj, const struct jfield *t, size_t n,
		       const char *indent)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const void *v = (const char *)obj + t[i].off;
		const char *s;

		fprintf(f, "%s%s\"%s\": ", i ? ",\n" : "", indent, t[i].name);
		switch (t[i].how) {
		case JF_CHARS:
			kvb_json_str(f, v);
			break;
		case JF_STR:
			s = t[i].str(obj);
			if (s)
				kvb_json_str(f, s);
			else
				fputs("null", f);
			break;
		case JF_DBL:
			kvb_json_num(f, *(const double *)v, t[i].prec);
			break;
		case JF_NUM:
			kvb_json_num(f, t[i].num(obj), t[i].prec);
			break;
		case JF_INT:
			fprintf(f, "%d", *(const int *)v);
			break;
		case JF_UINT:
			fprintf(f, "%u", *(const unsigned int *)v);
			break;
		case JF_ULL:
			fprintf(f, "%llu", *(const unsigned long long *)v);
			break;
		case JF_BOOL:
			fputs(*(const int *)v ? "true" : "false", f);
			break;
		case JF_PUT:
			t[i].put(f, obj);
			break;
		}
	}
}

/* The report's head: what print_results() knows before "params". */
struct jhead {
	char schema[32];
	char date[32];
	struct utsname u;
	int cpus, interrupted, complete, skipped;
	const struct kvb_outcome *o;
};

/* "not_run": the cases of the plan that did not run, and why */
static void put_not_run(FILE *f, const void *obj)
{
	const struct kvb_outcome *o = ((const struct jhead *)obj)->o;
	int i;

	fputc('[', f);
	for (i = 0; i < o->nskips; i++) {
		fprintf(f, "%s\n    { \"case\": ", i ? "," : "");
		kvb_json_str(f, o->skips[i].label);
		fprintf(f, ", \"why\": ");
		kvb_json_str(f, o->skips[i].why);
		fprintf(f, " }");
	}
	fprintf(f, "%s]", o->nskips ? "\n  " : "");
}

static const struct jfield head_fields[] = {
	JF("schema", JF_CHARS, struct jhead, schema),
	JF("date", JF_CHARS, struct jhead, date),
	JF("kernel", JF_CHARS, struct jhead, u.release),
	JF("machine", JF_CHARS, struct jhead, u.machine),
	JF("cpus", JF_INT, struct jhead, cpus),
	JF("interrupted", JF_BOOL, struct jhead, interrupted),
	/* an interrupted run's report holds only part of the plan */
	JF("complete", JF_BOOL, struct jhead, complete),
	JF("skipped_cases", JF_INT, struct jhead, skipped),
	JF_P("not_run", put_not_run),
};

static void put_keys(FILE *f, const void *obj)
{
	fprintf(f, "%lu", ((const struct kvb_params *)obj)->keys);
}

static const char *params_device(const void *obj)
{
	return ((const struct kvb_params *)obj)->device;
}

static const char *params_dist(const void *obj)
{
	return kvb_dist_name(((const struct kvb_params *)obj)->dist);
}

static double params_duration(const void *obj)
{
	const struct kvb_params *p = obj;

	return p->ops ? NAN : p->duration;
}

static void put_ops_per_thread(FILE *f, const void *obj)
{
	const struct kvb_params *p = obj;

	if (p->ops)
		fprintf(f, "%llu", p->ops);
	else
		fputs("null", f);
}

static double params_budget(const void *obj)
{
	const struct kvb_params *p = obj;

	return p->budget > 0 ? p->budget : NAN;
}

static void put_seed(FILE *f, const void *obj)
{
	fprintf(f, "%llu", (unsigned long long)((const struct kvb_params *)obj)->seed);
}

static const char *params_order(const void *obj)
{
	const struct kvb_params *p = obj;

	return p->order == KVB_ORDER_SHUFFLED ? "shuffled" : "sequential";
}

/* "set" or, in turn round by round, "set,get"; null without --after */
static void put_after(FILE *f, const void *obj)
{
	const struct kvb_params *p = obj;
	char am[KVB_AFTER_MAX * 32];

	if (!p->nafter) {
		fputs("null", f);
		return;
	}
	kvb_mix_names(p->after, p->nafter, am, sizeof(am));
	kvb_json_str(f, am);
}

static const struct jfield params_fields[] = {
	JF_S("device", params_device),
	JF_P("keys", put_keys),
	JF("key_size", JF_UINT, struct kvb_params, key_size),
	JF("value_size", JF_UINT, struct kvb_params, value_size),
	JF_S("dist", params_dist),
	JF_D("theta", struct kvb_params, theta, 3),
	JF_P("workloads", print_workloads),
	JF_D("warmup_s", struct kvb_params, warmup, 3),
	JF_N("duration_s", params_duration, 3),
	JF_P("ops_per_thread", put_ops_per_thread),
	JF("repeat", JF_UINT, struct kvb_params, repeat),
	JF("pin", JF_BOOL, struct kvb_params, pin),
	JF("sample_every", JF_UINT, struct kvb_params, sample_every),
	JF_N("budget_s", params_budget, 0),
	JF_D("clock_read_ns", struct kvb_params, clock_ns, 1),
	JF_P("seed", put_seed),
	JF("seed_given", JF_BOOL, struct kvb_params, seed_given),
	/* how the runs were ordered, and whether each was settled */
	JF_S("order", params_order),
	JF("settle", JF_BOOL, struct kvb_params, settled),
	JF_P("after", put_after),
	JF_D("noisy_pct", struct kvb_params, noisy_pct, 1),
	/* the verdict's tie margin (--margin), which `kvbench report` takes */
	JF_D("margin", struct kvb_params, margin, KVB_JSON_SIG(4)),
};

static const char *result_kind(const void *obj)
{
	return kvb_kind_name(((const struct kvb_result *)obj)->kind);
}

static void put_mix(FILE *f, const void *obj)
{
	const struct kvb_result *x = obj;
	char m[32];

	kvb_mix_name(&x->mix, m, sizeof(m));
	fprintf(f, "{ \"name\": ");
	kvb_json_str(f, x->kind == KVB_NOP ? "nop" : m);
	fprintf(f, ", \"get\": %u, \"set\": %u, \"del\": %u, \"insert\": %u, \"rmw\": %u }",
		x->mix.get, x->mix.set, x->mix.del, x->mix.ins, x->mix.rmw);
}

static const char *result_workload(const void *obj)
{
	const struct kvb_result *x = obj;

	return x->mix.wl ? x->mix.wl->name : NULL;
}

static const char *result_dist(const void *obj)
{
	return kvb_dist_name(((const struct kvb_result *)obj)->dist);
}

static double result_theta(const void *obj)
{
	const struct kvb_result *x = obj;

	return x->dist == KVB_UNIFORM ? 0 : x->theta;
}

static const char *result_fd(const void *obj)
{
	const struct kvb_result *x = obj;

	return x->fdmode == KVB_FD_NONE ? NULL : kvb_fd_name(x->fdmode);
}

static const char *result_io(const void *obj)
{
	const struct kvb_result *x = obj;

	return x->io == KVB_IO_NONE ? NULL : kvb_io_name(x->io);
}

/* io_uring's queue depth and submission batch; null for another io */
static double result_qd(const void *obj)
{
	const struct kvb_result *x = obj;

	return x->io == KVB_IO_URING ? x->qd : NAN;
}

static double result_submit_batch(const void *obj)
{
	const struct kvb_result *x = obj;

	return x->io == KVB_IO_URING ? x->submit_batch : NAN;
}

static double result_hash_bits(const void *obj)
{
	const struct kvb_result *x = obj;

	return x->hash_bits ? x->hash_bits : NAN;
}

static void put_runs(FILE *f, const void *obj)
{
	const struct kvb_result *x = obj;
	unsigned int j;

	fputc('[', f);
	for (j = 0; j < x->runs; j++) {
		fputs(j ? ", " : "", f);
		kvb_json_num(f, x->run_ops[j], 1);
	}
	fputc(']', f);
}

/* The round of each run, from 0, in the order of the runs. */
static void put_rounds(FILE *f, const void *obj)
{
	const struct kvb_result *x = obj;
	unsigned int j;

	fputc('[', f);
	for (j = 0; j < x->runs; j++)
		fprintf(f, "%s%u", j ? ", " : "", x->run_round ? x->run_round[j] : j);
	fputc(']', f);
}

static void put_ops_stats(FILE *f, const void *obj)
{
	const struct kvb_summary *s = &((const struct kvb_result *)obj)->sum;

	kvb_json_field(f, "{ ", "mean", s->mean, 1);
	kvb_json_field(f, ", ", "median", s->median, 1);
	kvb_json_field(f, ", ", "stddev", s->stddev, 1);
	kvb_json_field(f, ",\n        ", "mean_ci95_low", s->ci_lo, 1);
	kvb_json_field(f, ", ", "mean_ci95_high", s->ci_hi, 1);
	kvb_json_field(f, ",\n        ", "median_ci_low", s->med_lo, 1);
	kvb_json_field(f, ", ", "median_ci_high", s->med_hi, 1);
	kvb_json_field(f, ", ", "median_ci_level", s->med_level, 6);
	fputs(" }", f);
}

static void put_per_thread(FILE *f, const void *obj)
{
	const struct kvb_result *x = obj;

	kvb_json_field(f, "{ ", "min", x->thr_min, 1);
	kvb_json_field(f, ", ", "max", x->thr_max, 1);
	kvb_json_field(f, ", ", "min_max_ratio", x->thr_ratio, 4);
	fputs(" }", f);
}

static void put_latency(FILE *f, const void *obj)
{
	print_latency(f, obj);
}

static void put_hist(FILE *f, const void *obj)
{
	kvb_json_hist(f, ((const struct kvb_result *)obj)->hist);
}

static double result_vcsw(const void *obj)
{
	const struct kvb_result *x = obj;

	return x->ops ? (double)x->vcsw / x->ops : NAN;
}

static void put_bstats(FILE *f, const void *obj)
{
	print_bstats(f, &((const struct kvb_result *)obj)->bstats);
}

static void put_counters(FILE *f, const void *obj)
{
	print_counters(f, &((const struct kvb_result *)obj)->ctr);
}

static const struct jfield result_fields[] = {
	JF("backend", JF_CHARS, struct kvb_result, target),
	JF_S("kind", result_kind),
	JF_P("mix", put_mix),
	JF_S("workload", result_workload),
	JF_S("dist", result_dist),
	JF_N("theta", result_theta, 3),
	JF("threads", JF_UINT, struct kvb_result, threads),
	JF("batch", JF_UINT, struct kvb_result, batch),
	JF("multi", JF_BOOL, struct kvb_result, multi),
	JF_S("fd", result_fd),
	/* "io", and for io_uring its queue depth, SQPOLL and submission batch */
	JF_S("io", result_io),
	JF_N("qd", result_qd, 0),
	JF("sqpoll", JF_BOOL, struct kvb_result, sqpoll),
	JF_N("submit_batch", result_submit_batch, 0),
	JF_N("hash_bits", result_hash_bits, 0),
	JF("runs", JF_UINT, struct kvb_result, runs),
	JF_D("ops_per_sec", struct kvb_result, ops_per_sec, 1),
	JF_P("ops_per_sec_runs", put_runs),
	JF_P("rounds", put_rounds),
	JF_P("ops_per_sec_stats", put_ops_stats),
	JF_P("per_thread_ops_per_sec", put_per_thread),
	JF_D("spread_pct", struct kvb_result, spread_pct, 2),
	JF("noisy", JF_BOOL, struct kvb_result, noisy),
	JF_D("ns_per_op", struct kvb_result, ns_per_op, 2),
	JF_D("lat_per_op_ns", struct kvb_result, lat_per_op, 2),
	JF("ops", JF_ULL, struct kvb_result, ops),
	JF("misses", JF_ULL, struct kvb_result, misses),
	JF("errors", JF_ULL, struct kvb_result, errors),
	JF_D("seconds", struct kvb_result, seconds, 6),
	JF_P("latency_ns", put_latency),
	JF_P("latency_hist", put_hist),
	JF_N("vcsw_per_op", result_vcsw, 4),
	JF_D("cost_vs_nop", struct kvb_result, cost_vs_nop, 4),
	JF_D("tput_vs_rwlock", struct kvb_result, tput_vs_rwlock, 4),
	JF_P("backend_stats", put_bstats),
	JF_P("counters", put_counters),
	JF("interrupted", JF_BOOL, struct kvb_result, interrupted),
};

/* The report up to its "results" array, closed, without "verdict" and "}". */
static void print_results(FILE *f, const struct kvb_params *p,
			  const struct kvb_result *r, int n,
			  const struct kvb_outcome *o)
{
	struct jhead h = {
		.cpus = p->ncpus, .interrupted = o->interrupted,
		.complete = o->complete && !o->interrupted, .skipped = o->skipped, .o = o,
	};
	time_t now = time(NULL);
	struct tm tm;
	int i;

	snprintf(h.schema, sizeof(h.schema), "kvbench-bench/%d", KVB_SCHEMA_VERSION);
	if (uname(&h.u))
		memset(&h.u, 0, sizeof(h.u));
	if (gmtime_r(&now, &tm))
		strftime(h.date, sizeof(h.date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fputs("{\n", f);
	put_fields(f, &h, head_fields, ARRAY_SIZE(head_fields), "  ");
	fputs(",\n", f);
	print_stall(f, o->stall);
	print_provenance(f, p);
	fputs("  \"params\": {\n", f);
	put_fields(f, p, params_fields, ARRAY_SIZE(params_fields), "    ");
	fputs("\n  },\n  \"results\": [", f);
	for (i = 0; i < n; i++) {
		fprintf(f, "%s\n    {\n", i ? "," : "");
		put_fields(f, &r[i], result_fields, ARRAY_SIZE(result_fields), "      ");
		fputs("\n    }", f);
	}
	fprintf(f, "%s]", n ? "\n  " : "");
}

/*
 * The reader. Every value is checked against its range: a number out of it
 * is an error that names the field, never a figure printed as if measured.
 */

static int whole(const struct jnode *n, double max, unsigned int *v)
{
	if (!n || n->num < 0 || n->num > max || n->num != floor(n->num))
		return -1;
	*v = n->num;
	return 0;
}

/* "kind" as the reports spell it; a /1 report without one: nop or kernel */
static int kind_of(const struct jnode *x, const char *backend, enum kvb_kind *k)
{
	const struct jnode *kind = kvb_json_get(x, "kind", J_STR);
	const char *s = kind ? kind->str : !strcmp(backend, "nop") ? "floor" : "kernel";

	if (!strcmp(s, "floor"))
		*k = KVB_NOP;
	else if (!strcmp(s, "kernel"))
		*k = KVB_KERNEL;
	else if (!strcmp(s, "peer"))
		*k = KVB_PEER;
	else if (!strcmp(s, "userspace"))
		*k = KVB_USER_RWLOCK;
	else
		return -1;
	return 0;
}

static const char *str_of(const struct jnode *obj, const char *key, const char *dflt)
{
	const struct jnode *s = kvb_json_get(obj, key, J_STR);

	return s ? s->str : dflt;
}

/* The runs of result i: each a finite ops/s in (0, KVB_MAX_OPS_PER_SEC]. */
static int load_runs(const struct jnode *r, int i, struct kvb_rcase *c,
		     char *err, size_t errlen)
{
	int j;

	c->runs = calloc(r->nkids ? r->nkids : 1, sizeof(*c->runs));
	if (!c->runs) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (j = 0; j < r->nkids; j++) {
		double v = r->kids[j].num;

		if (r->kids[j].type != J_NUM || !(v > 0)) {
			snprintf(err, errlen,
				 "results[%d].ops_per_sec_runs[%d]: not a positive number", i, j);
			return -1;
		}
		if (!(v <= KVB_MAX_OPS_PER_SEC)) {
			snprintf(err, errlen,
				 "results[%d].ops_per_sec_runs[%d]: %g ops/s is out of range (at most %g)",
				 i, j, v, KVB_MAX_OPS_PER_SEC);
			return -1;
		}
		c->runs[j] = v;
	}
	c->nruns = r->nkids;
	return 0;
}

/*
 * The round of each run, when the report says (/4): a whole number for
 * each run, or the runs' rounds are unknown (c->rounds NULL).
 */
static int load_rounds(const struct jnode *r, int i, struct kvb_rcase *c,
		       char *err, size_t errlen)
{
	int j;

	if (!r)
		return 0;
	if ((unsigned int)r->nkids != c->nruns) {
		snprintf(err, errlen, "results[%d].rounds: %d rounds for %u runs",
			 i, r->nkids, c->nruns);
		return -1;
	}
	c->rounds = calloc(r->nkids ? r->nkids : 1, sizeof(*c->rounds));
	if (!c->rounds) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (j = 0; j < r->nkids; j++) {
		if (r->kids[j].type != J_NUM || whole(&r->kids[j], 1e9, &c->rounds[j])) {
			snprintf(err, errlen, "results[%d].rounds[%d]: not a round", i, j);
			return -1;
		}
	}
	return 0;
}

/*
 * A result's "latency_hist" into *h: 1, 0 when it is null or absent (no
 * samples, or a report from before the field), -1 with a message in err
 * when it is not one this tool wrote (its layout, an index out of range,
 * counts that do not add up).
 */
int kvb_rcase_hist(const struct jnode *x, struct kvb_hist *h, char *err,
		   size_t errlen)
{
	const struct jnode *n = kvb_json_member(x, "latency_hist"), *b;
	const char *bad = NULL;
	unsigned long long total = 0;
	int i;

	kvb_hist_init(h);
	if (!n || n->type == J_NULL)
		return 0;
	b = kvb_json_get(n, "buckets", J_ARR);
	if (!b || !kvb_json_get(n, "sub_bits", J_NUM) ||
	    kvb_json_get(n, "sub_bits", J_NUM)->num != KVB_HIST_SUB_BITS) {
		snprintf(err, errlen, "latency_hist: not a histogram of %d sub-bucket bits",
			 KVB_HIST_SUB_BITS);
		return -1;
	}
	for (i = 0; i < b->nkids && !bad; i++) {
		const struct jnode *e = &b->kids[i];
		unsigned int idx, cnt;

		if (e->type != J_ARR || e->nkids != 2 ||
		    e->kids[0].type != J_NUM || e->kids[1].type != J_NUM ||
		    whole(&e->kids[0], KVB_HIST_BUCKETS - 1, &idx) ||
		    whole(&e->kids[1], 4e9, &cnt)) {
			bad = "a bucket is not [index, count]";
			continue;
		}
		h->counts[idx] += cnt;
		total += cnt;
	}
	if (!bad) {
		static const char * const f[] = { "count", "sum", "min", "max" };
		__u64 *v[] = { &h->count, &h->sum, &h->min, &h->max };

		for (i = 0; i < 4 && !bad; i++) {
			const struct jnode *m = kvb_json_get(n, f[i], J_NUM);

			if (!m || !(m->num >= 0) || m->num != floor(m->num))
				bad = "count, sum, min or max is not a whole number";
			else
				*v[i] = (__u64)m->num;
		}
	}
	if (!bad && (total != h->count || !total || h->min > h->max))
		bad = "its buckets do not add up to its count";
	if (bad) {
		snprintf(err, errlen, "latency_hist: %s", bad);
		return -1;
	}
	return 1;
}

/*
 * Result i's "counters" (null, or absent before --counters, is off): each
 * event a count per op, 0 or more, or null and named in "unavailable".
 */
static int load_counters(const struct jnode *x, int i, struct kvb_ctr_case *c,
			 char *err, size_t errlen)
{
	const struct jnode *per = kvb_json_get(x, "per_op", J_OBJ);
	const struct jnode *run = kvb_json_get(x, "running_pct", J_OBJ);
	const struct jnode *un = kvb_json_get(x, "unavailable", J_OBJ);
	const struct jnode *ops = kvb_json_get(x, "ops", J_NUM);
	int e;

	memset(c, 0, sizeof(*c));
	if (!x)
		return 0;
	if (!per || !ops || ops->num < 0 || ops->num != floor(ops->num)) {
		snprintf(err, errlen, "results[%d].counters: needs ops and per_op", i);
		return -1;
	}
	c->on = 1;
	c->ops = ops->num;
	for (e = 0; e < KVB_CTR_NEV; e++) {
		const struct jnode *v = kvb_json_get(per, kvb_ctr_name(e), J_NUM);
		const struct jnode *r = kvb_json_get(run, kvb_ctr_name(e), J_NUM);
		const struct jnode *why = kvb_json_get(un, kvb_ctr_name(e), J_STR);

		c->per_op[e] = NAN;
		c->running_pct[e] = NAN;
		if (why && !v) {
			snprintf(c->why[e], sizeof(c->why[e]), "%s", why->str);
			continue;
		}
		if (!v || why || !(v->num >= 0) || (r && !(r->num >= 0 && r->num <= 100))) {
			snprintf(err, errlen,
				 "results[%d].counters.%s: a count per op (0 or more) and its running_pct, or null and why in unavailable",
				 i, kvb_ctr_name(e));
			return -1;
		}
		c->per_op[e] = v->num;
		c->running_pct[e] = r ? r->num : NAN;
	}
	return 0;
}

/* Result i of the report into c; -1 with a message in err. */
static int load_case(const struct jnode *x, int i, const char *dist,
		     struct kvb_rcase *c, char *err, size_t errlen)
{
	const struct jnode *name = kvb_json_get(x, "backend", J_STR);
	const struct jnode *mix = kvb_json_get(kvb_json_get(x, "mix", J_OBJ), "name", J_STR);
	const struct jnode *wl = kvb_json_get(x, "workload", J_STR);
	const struct jnode *fd = kvb_json_get(x, "fd", J_STR);
	const struct jnode *io = kvb_json_get(x, "io", J_STR);
	const struct jnode *r = kvb_json_get(x, "ops_per_sec_runs", J_ARR);
	const struct jnode *multi = kvb_json_get(x, "multi", J_BOOL);
	const struct jnode *sqpoll = kvb_json_get(x, "sqpoll", J_BOOL);
	const struct jnode *errors = kvb_json_get(x, "errors", J_NUM);
	const struct jnode *noisy = kvb_json_get(x, "noisy", J_BOOL);
	const struct jnode *spread = kvb_json_get(x, "spread_pct", J_NUM);
	struct kvb_vkey *k = &c->v.key;

	memset(c, 0, sizeof(*c));
	c->node = x;
	c->spread_pct = NAN;
	/* a /1 report may lack the runs, batch and fd: none, 1, no fd */
	c->batch = 1;
	if (!name || !mix ||
	    whole(kvb_json_get(x, "threads", J_NUM), KVB_MAX_THREADS, &c->threads) ||
	    !c->threads || (kvb_json_get(x, "batch", J_NUM) &&
			    whole(kvb_json_get(x, "batch", J_NUM), 1e9, &c->batch)) ||
	    kind_of(x, name->str, &c->v.kind)) {
		snprintf(err, errlen,
			 "results[%d]: needs backend, kind, mix.name and threads (1 to %d)",
			 i, KVB_MAX_THREADS);
		return -1;
	}
	if (r && load_runs(r, i, c, err, errlen))
		return -1;
	if (r && load_rounds(kvb_json_get(x, "rounds", J_ARR), i, c, err, errlen))
		return -1;
	c->multi = multi && multi->num;
	c->noisy = noisy && noisy->num;
	c->v.noisy = c->noisy;
	if (spread)
		c->spread_pct = spread->num;
	c->errors = errors && errors->num > 0;
	snprintf(c->target, sizeof(c->target), "%s", name->str);
	snprintf(c->mix, sizeof(c->mix), "%s", mix->str);
	snprintf(c->workload, sizeof(c->workload), "%s", wl ? wl->str : "");
	snprintf(c->fd, sizeof(c->fd), "%s", fd ? fd->str : "-");

	/* the verdict's view of it (verdict.c) */
	snprintf(c->v.target, sizeof(c->v.target), "%s", name->str);
	k->workload = !!wl;
	snprintf(k->mix, sizeof(k->mix), "%s", wl ? wl->str : mix->str);
	snprintf(k->dist, sizeof(k->dist), "%s", str_of(x, "dist", dist));
	k->threads = c->threads;
	k->batch = c->batch;
	k->multi = c->multi;
	k->fd = !fd ? KVB_FD_NONE : strcmp(fd->str, "shared") ? KVB_FD_PER_THREAD :
		KVB_FD_SHARED;
	k->io = io && !strcmp(io->str, "uring") ? KVB_IO_URING : KVB_IO_IOCTL;
	if (k->io == KVB_IO_URING &&
	    whole(kvb_json_get(x, "qd", J_NUM), 1e6, &k->qd)) {
		snprintf(err, errlen, "results[%d]: io uring without a qd", i);
		return -1;
	}
	k->sqpoll = sqpoll && sqpoll->num;
	kvb_vkey_normalize(k);
	c->v.runs = c->runs;
	c->v.n = c->nruns;
	return load_counters(kvb_json_get(x, "counters", J_OBJ), i, &c->ctr, err, errlen);
}

/* The report's header: what it was measured on, and how. */
static int load_header(const struct jnode *root, struct kvb_rmodel *m,
		       char *err, size_t errlen)
{
	const struct jnode *params = kvb_json_get(root, "params", J_OBJ);
	const struct jnode *pv = kvb_json_get(root, "provenance", J_OBJ);
	const struct jnode *theta = kvb_json_get(params, "theta", J_NUM);
	const struct jnode *cpus = kvb_json_get(root, "cpus", J_NUM);
	const struct jnode *busy = kvb_json_get(pv, "cpu_busy_pct_before", J_NUM);
	const struct jnode *steal = kvb_json_get(pv, "cpu_steal_pct_before", J_NUM);
	const struct jnode *hbusy = kvb_json_get(pv, "host_busy", J_BOOL);
	const struct jnode *hz = kvb_json_get(pv, "hz", J_NUM);
	const struct jnode *seed = kvb_json_get(params, "seed", J_NUM);
	const struct jnode *margin = kvb_json_get(params, "margin", J_NUM);
	const struct jnode *max_steal = kvb_json_get(root, "max_steal_pct", J_NUM);

	/* kvbench merge --max-steal: runs the host disturbed were left out */
	m->max_steal = max_steal ? max_steal->num : NAN;
	/* with workloads (-W) each case has its own: the groups' labels say it */
	if (kvb_json_get(params, "workloads", J_ARR))
		snprintf(m->dist, sizeof(m->dist), "the workloads' own keys");
	else
		kvb_verdict_dist(m->dist, sizeof(m->dist), str_of(params, "dist", "uniform"),
				 theta ? theta->num : NAN);
	snprintf(m->kernel, sizeof(m->kernel), "%s", str_of(root, "kernel", "?"));
	if (cpus && (cpus->num < 0 || cpus->num > KVB_MAX_CPUS || cpus->num != floor(cpus->num))) {
		snprintf(err, errlen, "\"cpus\": %g is out of range (0, unknown, to %d)", cpus->num,
			 KVB_MAX_CPUS);
		return -1;
	}
	m->cpus = cpus ? (int)cpus->num : 0;
	if (kvb_json_get(params, "repeat", J_NUM) &&
	    whole(kvb_json_get(params, "repeat", J_NUM), 1e6, &m->repeat)) {
		snprintf(err, errlen, "\"params\".\"repeat\": not a whole number of runs");
		return -1;
	}
	snprintf(m->accel, sizeof(m->accel), "%s", str_of(pv, "accel", "unknown"));
	snprintf(m->preempt, sizeof(m->preempt), "%s", str_of(pv, "preempt", ""));
	snprintf(m->cmdline, sizeof(m->cmdline), "%s", str_of(pv, "kernel_cmdline", ""));
	snprintf(m->order, sizeof(m->order), "%s",
		 str_of(root, "order", str_of(params, "order", "")));
	snprintf(m->after, sizeof(m->after), "%s", str_of(params, "after", ""));
	m->busy_pct = busy && busy->num >= 0 && busy->num <= 100 ? busy->num : NAN;
	m->steal_pct = steal && steal->num >= 0 && steal->num <= 100 ? steal->num : NAN;
	m->host_busy = hbusy ? (int)hbusy->num : -1;
	m->hz = hz && hz->num > 0 && hz->num < 1e6 ? (int)hz->num : 0;
	m->seed = seed ? seed->num : NAN;
	/* a report without one was judged at the default (--margin came later) */
	m->margin = KVB_VERDICT_MARGIN;
	if (margin && !(margin->num > 0 && margin->num <= 0.5)) {
		snprintf(err, errlen,
			 "\"params\".\"margin\": %g is out of range (above 0, at most 0.5)",
			 margin->num);
		return -1;
	}
	if (margin) {
		m->margin = margin->num;
		m->margin_said = 1;
	}
	m->interrupted = kvb_json_get(root, "interrupted", J_BOOL) &&
			 kvb_json_get(root, "interrupted", J_BOOL)->num;
	return 0;
}

void kvb_rmodel_free(struct kvb_rmodel *m)
{
	int i;

	for (i = 0; i < m->n; i++) {
		free(m->c[i].runs);
		free(m->c[i].rounds);
	}
	free(m->c);
	free(m->vc);
	kvb_json_free(&m->root);
	memset(m, 0, sizeof(*m));
}

/* The cases of root's "results" into m; -1 with a message in err. */
static int load_results(const struct jnode *res, struct kvb_rmodel *m,
			char *err, size_t errlen)
{
	int i;

	m->c = calloc(res->nkids + 1, sizeof(*m->c));
	m->vc = calloc(res->nkids + 1, sizeof(*m->vc));
	if (!m->c || !m->vc) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (i = 0; i < res->nkids; i++) {
		struct kvb_rcase *c = &m->c[m->n];

		if (load_case(&res->kids[i], i, m->dist, c, err, errlen)) {
			free(c->runs);
			free(c->rounds);
			return -1;
		}
		m->n++;
		/* named by the readers (kvb_rmodel_notes()), not an error */
		m->over_runs += m->repeat && c->nruns > m->repeat;
		if (kvb_json_get(&res->kids[i], "dropped_runs", J_ARR))
			m->dropped += kvb_json_get(&res->kids[i], "dropped_runs", J_ARR)->nkids;
		if (c->v.kind == KVB_NOP || c->errors)
			continue;
		if (!c->nruns) {
			m->norun++;
			continue;
		}
		if (m->repeat && c->nruns < m->repeat)
			m->short_runs++;
		m->noisy += c->noisy;
		m->vc[m->nv++] = c->v;
	}
	return 0;
}

/*
 * Parse a kvbench-bench/N report (N 1 to KVB_SCHEMA_VERSION) from text
 * into m: 0, or -1 with a message in err (m is then empty).
 */
int kvb_rmodel_parse(const char *text, struct kvb_rmodel *m, char *err,
		     size_t errlen)
{
	const struct jnode *schema, *res;
	char *end;
	long v;

	memset(m, 0, sizeof(*m));
	if (kvb_json_parse(text, &m->root, err, errlen))
		return -1;
	schema = kvb_json_get(&m->root, "schema", J_STR);
	res = kvb_json_get(&m->root, "results", J_ARR);
	if (!schema || strncmp(schema->str, "kvbench-bench/", 14)) {
		snprintf(err, errlen,
			 "not a kvbench bench report (no \"schema\": \"kvbench-bench/N\")");
		goto fail;
	}
	v = strtol(schema->str + 14, &end, 10);
	if (*end || v < 1 || v > KVB_SCHEMA_VERSION || end == schema->str + 14) {
		snprintf(err, errlen, "schema %s: this kvbench reads kvbench-bench/1 to /%d",
			 schema->str, KVB_SCHEMA_VERSION);
		goto fail;
	}
	m->schema = v;
	if (!res) {
		snprintf(err, errlen, "no \"results\" array");
		goto fail;
	}
	if (load_header(&m->root, m, err, errlen) || load_results(res, m, err, errlen))
		goto fail;
	return 0;
fail:
	kvb_rmodel_free(m);
	return -1;
}

/*
 * The verdict over m's cases (verdict.c): the number of groups, or -1.
 * margin 0: the report's own (m->margin).
 */
int kvb_rmodel_verdict(const struct kvb_rmodel *m, double alpha, double margin,
		       struct kvb_vgroup **g)
{
	return kvb_verdict(m->vc, m->nv, alpha, margin > 0 ? margin : m->margin, g);
}

/*
 * Where the report was measured, in view: "host: accel tcg, CPUs 41.0%
 * busy before the run (3.1% stolen), not busy", "noisy: 44 of 56 cases",
 * then a note per count the reader keeps (cases without runs, a
 * run count the header contradicts).
 */
void kvb_rmodel_prov(FILE *f, const struct kvb_rmodel *m)
{
	fprintf(f, "host: accel %s, CPUs ", m->accel);
	if (isfinite(m->busy_pct))
		fprintf(f, "%.1f%% busy before the run", m->busy_pct);
	else
		fprintf(f, "busy: unknown");
	if (isfinite(m->steal_pct))
		fprintf(f, " (%.1f%% stolen)", m->steal_pct);
	else
		fprintf(f, " (steal unknown)");
	fprintf(f, ", %s\nnoisy: %d of %d case%s",
		m->host_busy < 0 ? "host_busy unknown" : m->host_busy ? "a BUSY host" :
		"not busy", m->noisy, m->nv, m->nv == 1 ? "" : "s");
	if (m->order[0])
		fprintf(f, "; order: %s", m->order);
	fputc('\n', f);
	if (m->norun)
		fprintf(f, "note: %d case%s without runs (not judged)\n", m->norun,
			m->norun == 1 ? "" : "s");
	if (m->over_runs)
		fprintf(f, "note: %d case%s more runs than the header's repeat (%u)\n",
			m->over_runs, m->over_runs == 1 ? " has" : "s have", m->repeat);
	if (m->short_runs)
		fprintf(f, "note: %d case%s fewer runs than the %u asked\n", m->short_runs,
			m->short_runs == 1 ? " has" : "s have", m->repeat);
	if (isfinite(m->max_steal))
		fprintf(f, "runs left out: %d, the host took %g%% or more of the vCPUs' time %s\n",
			m->dropped, m->max_steal,
			"in them\n  (kvbench merge --max-steal; each case's \"dropped_runs\")");
}

/* The same as a JSON object (no newline after it). */
void kvb_rmodel_prov_json(FILE *f, const struct kvb_rmodel *m)
{
	fprintf(f, "{ \"accel\": ");
	kvb_json_str(f, m->accel);
	kvb_json_field(f, ", ", "cpu_busy_pct_before", m->busy_pct, 1);
	kvb_json_field(f, ", ", "cpu_steal_pct_before", m->steal_pct, 1);
	fprintf(f, ", \"host_busy\": %s, \"noisy\": %d, \"cases\": %d,",
		m->host_busy < 0 ? "null" : m->host_busy ? "true" : "false", m->noisy, m->nv);
	fprintf(f, " \"without_runs\": %d, \"over_repeat\": %d, \"under_repeat\": %d }",
		m->norun, m->over_runs, m->short_runs);
}

/*
 * The results as the model reads them: written as the report would be,
 * read back. 0, or -1 with a message in err.
 */
int kvb_rmodel_of_results(const struct kvb_params *p, const struct kvb_result *r,
			  int n, const struct kvb_outcome *o, struct kvb_rmodel *m,
			  char *err, size_t errlen)
{
	static const struct kvb_outcome done = { .complete = 1 };
	struct kvb_params dflt;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int ret;

	memset(m, 0, sizeof(*m));
	if (!o)
		o = &done;
	/* results without their run's settings: repeat 0, not said */
	if (!p) {
		kvb_params_defaults(&dflt);
		dflt.repeat = 0;
		p = &dflt;
	}
	if (!f) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	print_results(f, p, r, n, o);
	fputs("\n}\n", f);
	if (fclose(f)) {
		free(text);
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	ret = kvb_rmodel_parse(text, m, err, errlen);
	free(text);
	return ret;
}

/*
 * The bench report: the results, then the verdict computed from them as
 * they read back (kvb_rmodel_of_results()): what `kvbench report` computes
 * from the file.
 */
void kvb_print_json(FILE *f, const struct kvb_params *p,
		    const struct kvb_result *r, int n,
		    const struct kvb_outcome *o)
{
	struct kvb_rmodel m;
	struct kvb_vgroup *g = NULL;
	char err[256];
	int ng = -1;

	print_results(f, p, r, n, o);
	fprintf(f, ",\n  \"verdict\": ");
	if (!kvb_rmodel_of_results(p, r, n, o, &m, err, sizeof(err))) {
		ng = kvb_rmodel_verdict(&m, KVB_VERDICT_ALPHA, m.margin, &g);
		if (ng >= 0)
			kvb_verdict_json(f, g, ng, NULL, 2);
		kvb_verdict_free(g, ng);
		kvb_rmodel_free(&m);
	} else {
		fprintf(stderr, "kvbench: the report's verdict: %s\n", err);
	}
	if (ng < 0)
		fputs("null", f);
	fputs("\n}\n", f);
}
