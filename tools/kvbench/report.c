// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench report RUN.json [RUN2.json ...]: the verdict of bench reports.
 *
 * Per workload group (verdict.c), a short table (target, median ops/s,
 * ratio to the fastest with its interval, p, a mark) and one line that
 * says which target to use. By default only the groups a user acts on:
 * batch 1, ioctl, per-thread fd, at the highest thread count that is not
 * above the report's CPUs ("as many threads as CPUs"); --all shows every
 * group, --threads N another thread count. The reports are read by json.c.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kvbench.h"

struct rep {
	struct kvb_vcase *c;
	int n;
	double **runs;		/* each case's runs (c[i].runs points here) */
	int cpus;		/* 0: the report does not say */
	unsigned int repeat;
	char kernel[96];
	char dist[32];
};

static void rep_free(struct rep *r)
{
	int i;

	for (i = 0; i < r->n; i++)
		free(r->runs[i]);
	free(r->runs);
	free(r->c);
	memset(r, 0, sizeof(*r));
}

static int whole(const struct jnode *n, unsigned int *v)
{
	if (!n || n->num < 0 || n->num > 1e9 || n->num != floor(n->num))
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

/*
 * Result i into c (its runs into *runs); 1 when it is not a candidate (the
 * nop floor, no runs, errors), -1 with a message in err.
 */
static int load_case(const struct jnode *x, int i, const char *dist,
		     struct kvb_vcase *c, double **runs, char *err, size_t errlen)
{
	const struct jnode *name = kvb_json_get(x, "backend", J_STR);
	const struct jnode *mix = kvb_json_get(kvb_json_get(x, "mix", J_OBJ), "name", J_STR);
	const struct jnode *wl = kvb_json_get(x, "workload", J_STR);
	const struct jnode *cdist = kvb_json_get(x, "dist", J_STR);
	const struct jnode *fd = kvb_json_get(x, "fd", J_STR);
	const struct jnode *io = kvb_json_get(x, "io", J_STR);
	const struct jnode *r = kvb_json_get(x, "ops_per_sec_runs", J_ARR);
	const struct jnode *multi = kvb_json_get(x, "multi", J_BOOL);
	const struct jnode *sqpoll = kvb_json_get(x, "sqpoll", J_BOOL);
	const struct jnode *errors = kvb_json_get(x, "errors", J_NUM);
	struct kvb_vkey *k = &c->key;
	int j;

	memset(c, 0, sizeof(*c));
	*runs = NULL;
	if (!name || !mix || whole(kvb_json_get(x, "threads", J_NUM), &k->threads) ||
	    whole(kvb_json_get(x, "batch", J_NUM), &k->batch) || !r ||
	    (!fd && !kvb_json_get(x, "fd", J_NULL)) || kind_of(x, name->str, &c->kind)) {
		snprintf(err, errlen,
			 "results[%d]: needs backend, kind, mix.name, threads, batch, fd and ops_per_sec_runs",
			 i);
		return -1;
	}
	if (c->kind == KVB_NOP || !r->nkids || (errors && errors->num > 0))
		return 1;
	snprintf(c->target, sizeof(c->target), "%s", name->str);
	k->workload = !!wl;
	snprintf(k->mix, sizeof(k->mix), "%s", wl ? wl->str : mix->str);
	snprintf(k->dist, sizeof(k->dist), "%s", cdist ? cdist->str : dist);
	k->multi = multi && multi->num;
	k->fd = !fd ? KVB_FD_NONE : strcmp(fd->str, "shared") ? KVB_FD_PER_THREAD :
		KVB_FD_SHARED;
	k->io = io && !strcmp(io->str, "uring") ? KVB_IO_URING : KVB_IO_IOCTL;
	if (k->io == KVB_IO_URING && whole(kvb_json_get(x, "qd", J_NUM), &k->qd)) {
		snprintf(err, errlen, "results[%d]: io uring without a qd", i);
		return -1;
	}
	k->sqpoll = sqpoll && sqpoll->num;
	kvb_vkey_normalize(k);
	*runs = calloc(r->nkids, sizeof(**runs));
	if (!*runs) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (j = 0; j < r->nkids; j++) {
		if (r->kids[j].type != J_NUM || !(r->kids[j].num > 0)) {
			snprintf(err, errlen,
				 "results[%d].ops_per_sec_runs[%d]: not a positive number", i, j);
			free(*runs);
			*runs = NULL;
			return -1;
		}
		(*runs)[j] = r->kids[j].num;
	}
	c->runs = *runs;
	c->n = r->nkids;
	return 0;
}

static int load_tree(const struct jnode *root, struct rep *r, char *err,
		     size_t errlen)
{
	const struct jnode *schema = kvb_json_get(root, "schema", J_STR);
	const struct jnode *res = kvb_json_get(root, "results", J_ARR);
	const struct jnode *params = kvb_json_get(root, "params", J_OBJ);
	const struct jnode *dist = kvb_json_get(params, "dist", J_STR);
	const struct jnode *theta = kvb_json_get(params, "theta", J_NUM);
	const struct jnode *kernel = kvb_json_get(root, "kernel", J_STR);
	const struct jnode *cpus = kvb_json_get(root, "cpus", J_NUM);
	int i, ret;

	if (!schema || strncmp(schema->str, "kvbench-bench/", 14)) {
		snprintf(err, errlen,
			 "not a kvbench bench report (no \"schema\": \"kvbench-bench/N\")");
		return -1;
	}
	if (strcmp(schema->str + 14, "1") && strcmp(schema->str + 14, "2") &&
	    strcmp(schema->str + 14, "3")) {
		snprintf(err, errlen, "schema %s: this kvbench reads kvbench-bench/1, /2 and /3",
			 schema->str);
		return -1;
	}
	if (!res) {
		snprintf(err, errlen, "no \"results\" array");
		return -1;
	}
	/* with workloads (-W) each case has its own: the groups' labels say it */
	if (kvb_json_get(params, "workloads", J_ARR))
		snprintf(r->dist, sizeof(r->dist), "the workloads' own keys");
	else
		kvb_verdict_dist(r->dist, sizeof(r->dist), dist ? dist->str : "uniform",
				 theta ? theta->num : NAN);
	snprintf(r->kernel, sizeof(r->kernel), "%s", kernel ? kernel->str : "?");
	r->cpus = cpus && cpus->num >= 1 && cpus->num < 1e6 ? (int)cpus->num : 0;
	whole(kvb_json_get(params, "repeat", J_NUM), &r->repeat);
	r->c = calloc(res->nkids + 1, sizeof(*r->c));
	r->runs = calloc(res->nkids + 1, sizeof(*r->runs));
	if (!r->c || !r->runs) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (i = 0; i < res->nkids; i++) {
		ret = load_case(&res->kids[i], i, r->dist, &r->c[r->n], &r->runs[r->n],
				err, errlen);
		if (ret < 0)
			return -1;
		if (!ret)
			r->n++;
	}
	return 0;
}

struct rep_opts {
	int all;
	unsigned int threads;	/* 0: as many as the report's CPUs */
	int json;
};

/*
 * Which groups to show: with --all every one (at --threads N when given);
 * else batch 1, ioctl, per-thread fd at N threads, or at the highest
 * thread count not above the CPUs (the lowest when every one is above).
 * Returns the thread count chosen (0 for --all alone); why[] says it.
 */
static unsigned int choose(const struct rep *r, const struct kvb_vgroup *g, int n,
			   const struct rep_opts *o, int *sel, char *why, size_t len)
{
	unsigned int thr = o->threads, lo = 0;
	int i;

	if (!thr && !o->all) {
		for (i = 0; i < n; i++) {
			unsigned int t = g[i].key.threads;

			if (!lo || t < lo)
				lo = t;
			if ((!r->cpus || t <= (unsigned int)r->cpus) && t > thr)
				thr = t;
		}
		if (!thr)
			thr = lo;
	}
	for (i = 0; i < n; i++) {
		const struct kvb_vkey *k = &g[i].key;

		sel[i] = (!thr || k->threads == thr) &&
			 (o->all || (k->batch == 1 && !k->multi && k->io == KVB_IO_IOCTL &&
				     k->fd == KVB_FD_PER_THREAD));
	}
	if (o->all && !thr)
		snprintf(why, len, "every workload group");
	else if (o->all)
		snprintf(why, len, "every workload group at %u thread%s", thr, thr == 1 ? "" : "s");
	else if (o->threads)
		snprintf(why, len,
			 "batch 1, ioctl, per-thread fd, %u thread%s (--all: every group)",
			 thr, thr == 1 ? "" : "s");
	else
		snprintf(why, len,
			 "batch 1, ioctl, per-thread fd, %u thread%s: as many as the report's %d CPUs or fewer (--all: every group)",
			 thr, thr == 1 ? "" : "s", r->cpus);
	return thr;
}

/* One report, parsed; -1 with a message in err, else the groups shown. */
static int report_one(FILE *f, const char *text, const char *name,
		      const struct rep_opts *o, int first, char *err, size_t errlen)
{
	struct kvb_vgroup *g = NULL;
	struct jnode root;
	struct rep r = { 0 };
	char why[256];
	int ng, i, shown = 0, *sel = NULL;

	if (kvb_json_parse(text, &root, err, errlen))
		return -1;
	if (load_tree(&root, &r, err, errlen)) {
		kvb_json_free(&root);
		rep_free(&r);
		return -1;
	}
	kvb_json_free(&root);
	ng = kvb_verdict(r.c, r.n, KVB_VERDICT_ALPHA, &g);
	sel = calloc(ng > 0 ? ng : 1, sizeof(*sel));
	if (ng < 0 || !sel) {
		snprintf(err, errlen, "out of memory");
		shown = -1;
		goto out;
	}
	choose(&r, g, ng, o, sel, why, sizeof(why));
	for (i = 0; i < ng; i++)
		shown += sel[i];
	if (o->json) {
		fprintf(f, "%s\n    { \"file\": ", first ? "" : ",");
		kvb_json_str(f, name);
		fprintf(f, ", \"kernel\": ");
		kvb_json_str(f, r.kernel);
		fprintf(f, ", \"cpus\": %d,\n      \"shown\": ", r.cpus);
		kvb_json_str(f, why);
		fprintf(f, ",\n      \"verdict\": ");
		kvb_verdict_json(f, g, ng, sel, 6);
		fprintf(f, " }");
		goto out;
	}
	fprintf(f, "%s== %s: kernel %s, %d CPUs, %u run%s per case, %s\n", first ? "" : "\n",
		name, r.kernel, r.cpus, r.repeat, r.repeat == 1 ? "" : "s", r.dist);
	fprintf(f, "shown: %s\n", why);
	if (!shown)
		fprintf(f, "(no workload group matches; the report has %d: try --all)\n", ng);
	for (i = 0; i < ng; i++) {
		if (!sel[i])
			continue;
		fputc('\n', f);
		kvb_verdict_table(f, &g[i]);
	}
out:
	free(sel);
	kvb_verdict_free(g, ng);
	rep_free(&r);
	return shown;
}

static const char report_help[] =
	"Usage: kvbench report [OPTIONS] RUN.json [RUN2.json ...]\n"
	"\n"
	"The verdict of 'kvbench bench' JSON reports: per workload group (mix or\n"
	"workload, distribution, threads, batch, fd, io), the fastest target by\n"
	"median ops/s and each other one as a ratio to it, with a 95% confidence\n"
	"interval and a Mann-Whitney p over the runs: 'tied' where the runs show\n"
	"no significant difference, 'cannot tell' where they are too few (use -r 5).\n"
	"By default only batch 1, ioctl, per-thread fd, at as many threads as the\n"
	"report's CPUs.\n"
	"\n"
	"      --all        every workload group\n"
	"      --threads N  the groups at N threads\n"
	"      --json       the verdict as JSON\n"
	"  -h, --help       this help\n"
	"\n"
	"Exit status: 0, 1 when a report cannot be read, 2 on usage errors.\n";

static int report_usage(const char *msg)
{
	fprintf(stderr, "kvbench report: %s\n", msg);
	fprintf(stderr, "Try 'kvbench report --help' for more information.\n");
	return KVB_EXIT_USAGE;
}

int kvb_report_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "threads", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct rep_opts o = { 0 };
	unsigned long long v;
	char err[256];
	int c, i, ret = KVB_EXIT_OK, first = 1;

	argv[0] = "kvbench report";
	opterr = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			o.all = 1;
			break;
		case 't':
			if (kvb_parse_count(optarg, 1, KVB_MAX_THREADS, &v, err, sizeof(err))) {
				char msg[300];

				snprintf(msg, sizeof(msg), "--threads: %s", err);
				return report_usage(msg);
			}
			o.threads = v;
			break;
		case 'j':
			o.json = 1;
			break;
		case 'h':
			fputs(report_help, stdout);
			return KVB_EXIT_OK;
		default:
			fprintf(stderr, "Try 'kvbench report --help' for more information.\n");
			return KVB_EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return report_usage("takes one or more reports: kvbench report RUN.json");
	if (o.json)
		printf("{ \"schema\": \"kvbench-verdict/1\", \"alpha\": %.3g, \"reports\": [",
		       KVB_VERDICT_ALPHA);
	for (i = optind; i < argc; i++) {
		char *text = kvb_slurp(argv[i], err, sizeof(err));

		if (!text || report_one(stdout, text, argv[i], &o, first, err, sizeof(err)) < 0) {
			fflush(stdout);
			fprintf(stderr, "kvbench report: %s: %s\n", argv[i], err);
			ret = KVB_EXIT_FAIL;
		} else {
			first = 0;
		}
		free(text);
	}
	if (o.json)
		printf("%s] }\n", first ? "" : "\n  ");
	else if (!first)
		kvb_verdict_legend(stdout, KVB_VERDICT_ALPHA);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "kvbench report: write error: %s\n", strerror(errno));
		return KVB_EXIT_FAIL;
	}
	return ret;
}

/*
 * For the unit tests: one report given as text, as `kvbench report`
 * prints it (without the legend). Returns the groups shown, or -1.
 */
int kvb_report_text(FILE *f, const char *json, const char *name, int all,
		    unsigned int threads, int as_json, char *err, size_t errlen)
{
	struct rep_opts o = { .all = all, .threads = threads, .json = as_json };

	return report_one(f, json, name, &o, 1, err, errlen);
}
