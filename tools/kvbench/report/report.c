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

struct rep_opts {
	int all;
	unsigned int threads;	/* 0: as many as the report's CPUs */
	int json;
	double margin;		/* tied: the interval inside 1 +- margin; 0: the run's */
};

/*
 * Which groups to show: with --all every one (at --threads N when given);
 * else batch 1, ioctl, per-thread fd at N threads, or at the highest
 * thread count not above the CPUs (the lowest when every one is above).
 * Returns the thread count chosen (0 for --all alone); why[] says it.
 */
unsigned int kvb_report_select(const struct kvb_rmodel *r, const struct kvb_vgroup *g,
			       int n, int all, unsigned int threads, int *sel, char *why,
			       size_t len)
{
	const struct rep_opts opts = { .all = all, .threads = threads }, *o = &opts;

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

/* The thread counts of the groups: "1, 2" */
static void thread_counts(char *buf, size_t len, const struct kvb_vgroup *g, int n)
{
	unsigned int seen[64];
	int i, j, k = 0;
	size_t at = 0;

	buf[0] = 0;
	for (i = 0; i < n && k < 64; i++) {
		for (j = 0; j < k && seen[j] != g[i].key.threads; j++)
			;
		if (j < k)
			continue;
		seen[k++] = g[i].key.threads;
		if (at < len)
			at += snprintf(buf + at, len - at, "%s%u", k > 1 ? ", " : "",
				       g[i].key.threads);
	}
}

/*
 * One report, parsed; -1 with a message in err (a report that cannot be
 * read, holds no result, or has no group to show), else the groups shown.
 */
/* One report's entry of report --json: the groups sel marks. */
static void report_json(FILE *f, const char *name, const struct kvb_rmodel *r,
			const struct rep_opts *o, const struct kvb_vgroup *g, int ng,
			const int *sel, const char *why, int first)
{
	fprintf(f, "%s\n    { \"file\": ", first ? "" : ",");
	kvb_json_str(f, name);
	fprintf(f, ", \"kernel\": ");
	kvb_json_str(f, r->kernel);
	fprintf(f, ", \"cpus\": %d, \"margin\": %.4g,\n      \"provenance\": ", r->cpus,
		o->margin > 0 ? o->margin : r->margin);
	kvb_rmodel_prov_json(f, r);
	fprintf(f, ",\n      \"shown\": ");
	kvb_json_str(f, why);
	fprintf(f, ",\n      \"verdict\": ");
	kvb_verdict_json(f, g, ng, sel, 6);
	fprintf(f, " }");
}

/*
 * One report's verdict as text, for mail (every line within
 * KVB_MAIL_COLS): its header, the groups sel marks (tallied into tl for
 * the legend), the order effect and the counters.
 */
static void report_table(FILE *f, const char *name, const struct kvb_rmodel *r,
			 const struct rep_opts *o, const struct kvb_vgroup *g, int ng,
			 const int *sel, const char *why, struct kvb_vtally *tl, int first)
{
	double margin = o->margin > 0 ? o->margin : r->margin;
	char line[1024];
	int i;

	snprintf(line, sizeof(line), "== %s: kernel %s, %d CPUs, %u run%s per case, %s", name,
		 r->kernel, r->cpus, r->repeat, r->repeat == 1 ? "" : "s", r->dist);
	if (!first)
		fputc('\n', f);
	kvb_wrap(f, "", line, 3, KVB_MAIL_COLS);
	kvb_rmodel_prov(f, r);
	fprintf(f, "margin: ±%g%%, slower beyond, tied within (%s)\n", margin * 100,
		o->margin > 0 ? "--margin" : r->margin_said ? "the run's, bench --margin" :
		"the default; the report does not say");
	kvb_wrap(f, "shown: ", why, 2, KVB_MAIL_COLS);
	for (i = 0; i < ng; i++) {
		if (!sel[i])
			continue;
		fputc('\n', f);
		kvb_verdict_table(f, &g[i]);
		kvb_verdict_tally(tl, &g[i]);
	}
	/* a run with --after over several mixes: what the case before did */
	kvb_order_effect_model(f, r, KVB_VERDICT_ALPHA, margin);
	kvb_ctr_rmodel_table(f, r);
}

static int report_one(FILE *f, const char *text, const char *name,
		      const struct rep_opts *o, struct kvb_vtally *tl, int first,
		      char *err, size_t errlen)
{
	struct kvb_vgroup *g = NULL;
	struct kvb_rmodel r;
	char why[256], thr[128];
	int ng, i, shown = 0, *sel = NULL;

	if (kvb_rmodel_parse(text, &r, err, errlen))
		return -1;
	if (!r.nv) {
		snprintf(err, errlen, "no result to judge (%d result%s: %s)", r.n,
			 r.n == 1 ? "" : "s",
			 r.n ? "the nop floor, cases with errors or without runs" :
			 r.interrupted ? "the run was interrupted before its first case" :
			 "an empty \"results\"");
		kvb_rmodel_free(&r);
		return -1;
	}
	ng = kvb_rmodel_verdict(&r, KVB_VERDICT_ALPHA, o->margin, &g);
	sel = calloc(ng > 0 ? ng : 1, sizeof(*sel));
	if (ng < 0 || !sel) {
		snprintf(err, errlen, "out of memory");
		shown = -1;
		goto out;
	}
	kvb_report_select(&r, g, ng, o->all, o->threads, sel, why, sizeof(why));
	for (i = 0; i < ng; i++)
		shown += sel[i];
	if (!shown) {
		thread_counts(thr, sizeof(thr), g, ng);
		int at = snprintf(err, errlen, "no workload group matches %s", why);

		if (at >= 0 && (size_t)at < errlen)
			snprintf(err + at, errlen - at, " (the report has %d, at %s thread%s%s)",
				 ng, thr, strchr(thr, ',') || strcmp(thr, "1") ? "s" : "",
				 o->all ? "" : "; --all shows every one");
		shown = -1;
		goto out;
	}
	if (o->json)
		report_json(f, name, &r, o, g, ng, sel, why, first);
	else
		report_table(f, name, &r, o, g, ng, sel, why, tl, first);
out:
	free(sel);
	kvb_verdict_free(g, ng);
	kvb_rmodel_free(&r);
	return shown;
}

static const char report_help[] =
	"Usage: kvbench report [OPTIONS] RUN.json [RUN2.json ...]\n"
	"\n"
	"The verdict of 'kvbench bench' JSON reports: per workload group (mix or\n"
	"workload, distribution, threads, batch, fd, io), the fastest target by\n"
	"median ops/s and each other one as a ratio to it (Hodges-Lehmann), with\n"
	"a 95% confidence interval and a Mann-Whitney p over the runs: 'slower'\n"
	"where a difference beyond the margin is shown (significant after Holm's\n"
	"correction for the group's comparisons, the interval below 1 - margin),\n"
	"'tied' only where the interval lies inside 1 +- the margin,\n"
	"'inconclusive' where neither is shown, 'cannot\n"
	"tell' where the runs are too few (use -r 5). By default only batch 1,\n"
	"ioctl, per-thread fd, at as many threads as the report's CPUs.\n"
	"\n"
	"      --all         every workload group\n"
	"      --threads N   the groups at N threads\n"
	"      --margin PCT  the smallest difference that counts: slower below,\n"
	"                    tied inside +-PCT% of the fastest\n"
	"                    (default: the run's, bench --margin; 5 if it has none)\n"
	"      --json        the verdict as JSON\n"
	"  -h, --help        this help\n"
	"\n"
	"Exit status: 0, 1 when a report cannot be read, holds no result or no\n"
	"group to show, 2 on usage errors.\n";

/* report's options into o: -1 to go on, else the exit status */
static int report_opts(int argc, char **argv, struct rep_opts *o)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "threads", required_argument, NULL, 't' },
		{ "margin", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	unsigned long long v;
	char err[256];
	int c;

	argv[0] = "kvbench report";
	opterr = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			o->all = 1;
			break;
		case 't':
			if (kvb_parse_count(optarg, 1, KVB_MAX_THREADS, &v, err, sizeof(err)))
				return kvb_usage("report", "--threads", err);
			o->threads = v;
			break;
		case 'm':
			if (kvb_parse_margin(optarg, &o->margin, err, sizeof(err)))
				return kvb_usage("report", "--margin", err);
			break;
		case 'j':
			o->json = 1;
			break;
		case 'h':
			fputs(report_help, stdout);
			return KVB_EXIT_OK;
		default:
			return kvb_usage("report", NULL, NULL);
		}
	}
	if (optind >= argc)
		return kvb_usage("report", NULL,
				 "takes one or more reports: kvbench report RUN.json");
	return -1;
}

/*
 * Each of the n files' verdict on stdout (with --json in one document),
 * then the legend; the exit status.
 */
static int report_files(char **files, int n, const struct rep_opts *o)
{
	struct kvb_vtally tl = { .pfloor = NAN };
	char err[256];
	int i, ret = KVB_EXIT_OK, first = 1;

	if (o->json) {
		printf("{ \"schema\": \"kvbench-verdict/1\", \"alpha\": %.3g, \"margin\": ",
		       KVB_VERDICT_ALPHA);
		/* without --margin each report's own, in its entry */
		if (o->margin > 0)
			printf("%.3g,", o->margin);
		else
			printf("null,");
		printf(" \"reports\": [");
	}
	for (i = 0; i < n; i++) {
		char *text = kvb_slurp(files[i], err, sizeof(err));

		if (!text ||
		    report_one(stdout, text, files[i], o, &tl, first, err, sizeof(err)) < 0) {
			fflush(stdout);
			fprintf(stderr, "kvbench report: %s: %s\n", files[i], err);
			ret = KVB_EXIT_FAIL;
		} else {
			first = 0;
		}
		free(text);
	}
	if (o->json)
		printf("%s] }\n", first ? "" : "\n  ");
	else if (!first)
		kvb_verdict_legend(stdout, KVB_VERDICT_ALPHA, &tl);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "kvbench report: write error: %s\n", strerror(errno));
		return KVB_EXIT_FAIL;
	}
	return ret;
}

int kvb_report_main(int argc, char **argv)
{
	struct rep_opts o = { .margin = 0 };
	int ret = report_opts(argc, argv, &o);

	if (ret >= 0)
		return ret;
	return report_files(argv + optind, argc - optind, &o);
}

/*
 * For the unit tests: one report given as text, as `kvbench report`
 * prints it (without the legend). Returns the groups shown, or -1.
 */
int kvb_report_text(FILE *f, const char *json, const char *name, int all,
		    unsigned int threads, int as_json, char *err, size_t errlen)
{
	struct rep_opts o = { .all = all, .threads = threads, .json = as_json };
	struct kvb_vtally tl = { .pfloor = NAN };

	return report_one(f, json, name, &o, &tl, 1, err, errlen);
}
