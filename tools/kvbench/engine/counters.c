// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench bench --counters: what each operation cost in instructions,
 * cycles, cache misses (user and kernel apart) and context switches, from
 * perf_event_open(2), as perf stat counts them.
 *
 * Each worker thread opens its own events (pid 0, any CPU, disabled, not
 * inherited) before the start barrier, enables them all with one prctl()
 * just before its timed window begins and disables them just after it
 * ends, reads and closes them: nothing is added to the loop between, and
 * the engine calls the same three functions whatever the target. The
 * counts of every thread and run of a case are added up and divided by the
 * operations the same windows counted.
 *
 * The events are opened one by one, not as a group: a group is scheduled
 * on the PMU all or nothing, and seven events exceed what a virtual PMU
 * offers; as perf stat, each event that had a counter for part of the
 * window only is scaled by time enabled / time running, and the share it
 * ran is reported. An event that cannot be counted is never a zero: it is
 * null, with why (no PMU, perf_event_paranoid, never scheduled).
 *
 * What the counts are not: the work other threads do for the workers (the
 * user-owner thread, the module's owner and combiner kthreads, an SQPOLL
 * thread, io-wq workers) is theirs, not the workers'.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include "kvbench.h"

static const struct kvb_ctr_def {
	const char *name;	/* the JSON's key */
	const char *col;	/* the table's column */
	__u32 type;
	__u64 config;
	int user, kernel;	/* what it counts */
} defs[KVB_CTR_NEV] = {
	[KVB_CTR_INSTR_U] = { "instructions_user", "instr:u", PERF_TYPE_HARDWARE,
			      PERF_COUNT_HW_INSTRUCTIONS, 1, 0 },
	[KVB_CTR_INSTR_K] = { "instructions_kernel", "instr:k", PERF_TYPE_HARDWARE,
			      PERF_COUNT_HW_INSTRUCTIONS, 0, 1 },
	[KVB_CTR_CYC_U] = { "cycles_user", "cycles:u", PERF_TYPE_HARDWARE,
			    PERF_COUNT_HW_CPU_CYCLES, 1, 0 },
	[KVB_CTR_CYC_K] = { "cycles_kernel", "cycles:k", PERF_TYPE_HARDWARE,
			    PERF_COUNT_HW_CPU_CYCLES, 0, 1 },
	[KVB_CTR_CMISS_U] = { "cache_misses_user", "c-miss:u", PERF_TYPE_HARDWARE,
			      PERF_COUNT_HW_CACHE_MISSES, 1, 0 },
	[KVB_CTR_CMISS_K] = { "cache_misses_kernel", "c-miss:k", PERF_TYPE_HARDWARE,
			      PERF_COUNT_HW_CACHE_MISSES, 0, 1 },
	/* a switch happens in the kernel: counting it needs the kernel side */
	[KVB_CTR_CSW] = { "context_switches", "csw", PERF_TYPE_SOFTWARE,
			  PERF_COUNT_SW_CONTEXT_SWITCHES, 1, 1 },
};

const char *kvb_ctr_name(int ev)
{
	return defs[ev].name;
}

const char *kvb_ctr_col(int ev)
{
	return defs[ev].col;
}

/* The event of a JSON key, or -1. */
int kvb_ctr_by_name(const char *name)
{
	int i;

	for (i = 0; i < KVB_CTR_NEV; i++)
		if (!strcmp(defs[i].name, name))
			return i;
	return -1;
}

static int sys_open(struct perf_event_attr *attr)
{
	return syscall(SYS_perf_event_open, attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static int sys_enable(int on)
{
	return prctl(on ? PR_TASK_PERF_EVENTS_ENABLE : PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0);
}

static int sys_paranoid(void)
{
	char buf[32];

	if (kvb_read_line("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf)))
		return KVB_CTR_NO_PARANOID;
	return atoi(buf);
}

static const struct kvb_ctr_sys real_sys = {
	.open = sys_open,
	.enable = sys_enable,
	.read = read,
	.close = close,
	.paranoid = sys_paranoid,
};

const struct kvb_ctr_sys *kvb_ctr_sys = &real_sys;

void kvb_ctr_open(struct kvb_ctr_thread *t, int on)
{
	const struct kvb_ctr_sys *s = kvb_ctr_sys;
	int i;

	memset(t, 0, sizeof(*t));
	t->asked = on;
	for (i = 0; i < KVB_CTR_NEV; i++) {
		struct perf_event_attr a;

		t->fd[i] = -1;
		if (!on)
			continue;
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = defs[i].type;
		a.config = defs[i].config;
		a.disabled = 1;
		a.exclude_user = !defs[i].user;
		a.exclude_kernel = !defs[i].kernel;
		a.exclude_hv = 1;
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				PERF_FORMAT_TOTAL_TIME_RUNNING;
		t->fd[i] = s->open(&a);
		if (t->fd[i] < 0) {
			t->err[i] = errno > 0 ? errno : EINVAL;
			if (t->err[i] == EACCES || t->err[i] == EPERM)
				t->paranoid = s->paranoid();
			t->fd[i] = -1;
		} else {
			t->nopen++;
		}
	}
}

void kvb_ctr_start(struct kvb_ctr_thread *t)
{
	if (t->nopen)
		kvb_ctr_sys->enable(1);
}

void kvb_ctr_stop(struct kvb_ctr_thread *t)
{
	const struct kvb_ctr_sys *s = kvb_ctr_sys;
	int i;

	if (!t->nopen)
		return;
	s->enable(0);
	for (i = 0; i < KVB_CTR_NEV; i++) {
		__u64 v[3];

		if (t->fd[i] < 0)
			continue;
		if (s->read(t->fd[i], v, sizeof(v)) != (ssize_t)sizeof(v)) {
			t->err[i] = errno > 0 ? errno : EIO;
			t->read_failed |= 1u << i;
		} else {
			t->val[i] = v[0];
			t->ena[i] = v[1];
			t->run[i] = v[2];
		}
		s->close(t->fd[i]);
		t->fd[i] = -1;
	}
	t->nopen = 0;
}

/*
 * Event i of one more thread or run into a: the first reason it could
 * not be counted wins, and then the event stays out (a sum without some
 * threads would be a wrong figure, not a small one).
 */
static void acc_add(struct kvb_ctr_acc *a, int i, int err, int paranoid,
		    double count, double ena, double run)
{
	if (a->err[i])
		return;
	if (err) {
		a->err[i] = err;
		a->paranoid = paranoid;
		return;
	}
	a->count[i] += count;
	a->ena[i] += ena;
	a->run[i] += run;
}

void kvb_ctr_add(struct kvb_ctr_acc *a, const struct kvb_ctr_thread *t,
		 unsigned long long ops)
{
	int i;

	if (!t->asked)
		return;
	a->on = 1;
	a->ops += ops;
	for (i = 0; i < KVB_CTR_NEV; i++) {
		int err = t->err[i];
		double count = t->val[i];

		if (t->read_failed & (1u << i))
			err = KVB_CTR_EREAD;
		/* enabled but never on a counter: nothing to scale */
		if (!err && t->ena[i] && !t->run[i])
			err = KVB_CTR_EUNSCHED;
		if (!err && t->run[i] < t->ena[i])
			count = (double)t->val[i] * t->ena[i] / t->run[i];
		acc_add(a, i, err, t->paranoid, count, t->ena[i], t->run[i]);
	}
}

void kvb_ctr_merge(struct kvb_ctr_acc *a, const struct kvb_ctr_acc *b)
{
	int i;

	if (!b->on)
		return;
	a->on = 1;
	a->ops += b->ops;
	for (i = 0; i < KVB_CTR_NEV; i++)
		acc_add(a, i, b->err[i], b->paranoid, b->count[i], b->ena[i], b->run[i]);
}

/* Why event ev could not be counted: err is an errno or KVB_CTR_E*. */
void kvb_ctr_why(char *buf, size_t len, int ev, int err, int paranoid)
{
	char p[48];

	if (paranoid == KVB_CTR_NO_PARANOID)
		snprintf(p, sizeof(p), "perf_event_paranoid (unreadable)");
	else
		snprintf(p, sizeof(p), "perf_event_paranoid=%d", paranoid);
	switch (err) {
	case KVB_CTR_EUNSCHED:
		snprintf(buf, len,
			 "never had a counter in the window: the PMU's were taken (NMI watchdog, another perf user)");
		break;
	case KVB_CTR_EREAD:
		snprintf(buf, len, "its count could not be read back");
		break;
	case ENOENT:
	case ENODEV:
		if (defs[ev].type == PERF_TYPE_HARDWARE)
			snprintf(buf, len,
				 "no hardware PMU here (%s): TCG, or a VM without a virtual PMU",
				 err == ENOENT ? "ENOENT" : "ENODEV");
		else
			snprintf(buf, len, "this kernel does not count it (%s)",
				 err == ENOENT ? "ENOENT" : "ENODEV");
		break;
	case EOPNOTSUPP:
		snprintf(buf, len,
			 "the PMU cannot count it apart for %s (EOPNOTSUPP)",
			 defs[ev].kernel ? "the kernel" : "user space");
		break;
	case EACCES:
	case EPERM:
		if (defs[ev].kernel)
			snprintf(buf, len,
				 "%s forbids counting the kernel without CAP_PERFMON (%s)",
				 p, err == EACCES ? "EACCES" : "EPERM");
		else
			snprintf(buf, len,
				 "%s, or a security policy, forbids perf_event_open (%s)",
				 p, err == EACCES ? "EACCES" : "EPERM");
		break;
	case ENOSYS:
		snprintf(buf, len, "the kernel has no perf events (ENOSYS)");
		break;
	case EMFILE:
	case ENFILE:
		snprintf(buf, len, "out of file descriptors (%s)",
			 err == EMFILE ? "EMFILE" : "ENFILE");
		break;
	default:
		snprintf(buf, len, "perf_event_open: %s", strerror(err));
		break;
	}
}

void kvb_ctr_finish(const struct kvb_ctr_acc *a, struct kvb_ctr_case *c)
{
	int i;

	memset(c, 0, sizeof(*c));
	c->on = a->on;
	c->ops = a->ops;
	for (i = 0; i < KVB_CTR_NEV; i++) {
		c->per_op[i] = NAN;
		c->running_pct[i] = NAN;
		if (!a->on)
			continue;
		if (a->err[i]) {
			kvb_ctr_why(c->why[i], sizeof(c->why[i]), i, a->err[i], a->paranoid);
			continue;
		}
		if (!a->ops) {
			/* a figure per op needs ops: said, not a null without why */
			snprintf(c->why[i], sizeof(c->why[i]), "no operation was counted");
			continue;
		}
		c->per_op[i] = a->count[i] / a->ops;
		if (a->ena[i] > 0)
			c->running_pct[i] = 100.0 * a->run[i] / a->ena[i];
	}
}

/* The table: one row per case with counters, then why the others are not. */
static void cnt_cell(FILE *f, double v, int w)
{
	if (!isfinite(v))
		fprintf(f, " %*s", w, "-");
	else if (v == 0)
		fprintf(f, " %*s", w, "0");
	else if (v < 0.01)
		fprintf(f, " %*.2e", w, v);
	else if (v >= 100)
		fprintf(f, " %*.0f", w, v);
	else if (v >= 1)
		fprintf(f, " %*.2f", w, v);
	else
		fprintf(f, " %*.4f", w, v);
}

static double ratio(double a, double b)
{
	return isfinite(a) && isfinite(b) && b > 0 ? a / b : NAN;
}

/*
 * Under the table, why an event has no figure: each reason once, with
 * the events (in the table's order) it stands for.
 */
static void ctr_reasons(FILE *f, const struct kvb_ctr_row *rows, int n, const int *order)
{
	int i, j, k;

	for (j = 0; j < KVB_CTR_NEV; j++) {
		const char *why = NULL;
		int seen = 0;

		for (i = 0; i < n && !why; i++)
			if (rows[i].c->on && rows[i].c->why[order[j]][0])
				why = rows[i].c->why[order[j]];
		if (!why)
			continue;
		/* said already, with an earlier event? */
		for (k = 0; k < j && !seen; k++)
			for (i = 0; i < n && !seen; i++)
				seen = rows[i].c->on && !strcmp(rows[i].c->why[order[k]], why);
		if (seen)
			continue;
		fprintf(f, "-:");
		for (k = j; k < KVB_CTR_NEV; k++) {
			for (i = 0; i < n; i++)
				if (rows[i].c->on && !strcmp(rows[i].c->why[order[k]], why))
					break;
			if (i < n)
				fprintf(f, " %s", defs[order[k]].col);
		}
		fprintf(f, ": %s\n", why);
	}
}

void kvb_ctr_table(FILE *f, const struct kvb_ctr_row *rows, int n)
{
	static const int order[KVB_CTR_NEV] = {
		KVB_CTR_INSTR_U, KVB_CTR_INSTR_K, KVB_CTR_CYC_U, KVB_CTR_CYC_K,
		KVB_CTR_CMISS_U, KVB_CTR_CMISS_K, KVB_CTR_CSW,
	};
	int i, j, lw = 4, shown = 0, scaled = 0;

	for (i = 0; i < n; i++) {
		if (!rows[i].c->on)
			continue;
		shown++;
		if ((int)strlen(rows[i].label) > lw)
			lw = strlen(rows[i].label);
	}
	if (!shown)
		return;
	fprintf(f,
		"\ncounters per op (perf_event_open on each worker thread over its timed window;\n"
		":u user, :k kernel; ipc = instructions / cycles, user and kernel together):\n");
	fprintf(f, "%-*s", lw, "case");
	for (j = 0; j < KVB_CTR_NEV; j++)
		fprintf(f, " %9s", defs[order[j]].col);
	fprintf(f, " %5s\n", "ipc");
	for (i = 0; i < n; i++) {
		const struct kvb_ctr_case *c = rows[i].c;
		double ins, cyc, low = 100;

		if (!c->on)
			continue;
		fprintf(f, "%-*s", lw, rows[i].label);
		for (j = 0; j < KVB_CTR_NEV; j++) {
			cnt_cell(f, c->per_op[order[j]], 9);
			if (c->running_pct[order[j]] < low)
				low = c->running_pct[order[j]];
		}
		ins = c->per_op[KVB_CTR_INSTR_U] + c->per_op[KVB_CTR_INSTR_K];
		cyc = c->per_op[KVB_CTR_CYC_U] + c->per_op[KVB_CTR_CYC_K];
		if (isfinite(ratio(ins, cyc)))
			fprintf(f, " %5.2f", ratio(ins, cyc));
		else
			fprintf(f, " %5s", "-");
		if (low < 99.5) {
			fprintf(f, "  (scaled: %.0f%%)", low);
			scaled++;
		}
		fputc('\n', f);
	}
	if (scaled)
		fprintf(f,
			"(scaled: r%%) = an event had a counter for r%% of the window only (the PMU's counters\n"
			"were shared): its count is scaled by time enabled / time running, as perf stat does.\n");
	ctr_reasons(f, rows, n, order);
	fprintf(f,
		"Counts are the worker threads' own: work other threads do for them (owner threads,\n"
		"kthreads, an SQPOLL thread, io-wq) is not in them. Figures of one run of a busy\n"
		"machine; instructions per op are the steadiest of them (see results.rst).\n");
}

/* A case as its counters' row names it: "rcu 90:10 t2 b1 per-thread" */
static void row_label(char *buf, size_t len, const char *target, const char *mix,
		      unsigned int threads, unsigned int batch, int multi, const char *fd)
{
	char call[16];

	kvb_call_name(batch, multi, call, sizeof(call));
	snprintf(buf, len, "%s %s t%u b%s %s", target, mix, threads, call, fd);
}

void kvb_ctr_results_table(FILE *f, const struct kvb_result *r, int n)
{
	struct kvb_ctr_row *rows = calloc(n + 1, sizeof(*rows));
	char (*labels)[160] = calloc(n + 1, sizeof(*labels));
	int i;

	if (!rows || !labels) {
		free(rows);
		free(labels);
		return;
	}
	for (i = 0; i < n; i++) {
		char m[32];

		if (r[i].kind == KVB_NOP)
			snprintf(m, sizeof(m), "-");
		else
			kvb_mix_name(&r[i].mix, m, sizeof(m));
		row_label(labels[i], sizeof(labels[i]), r[i].target, m, r[i].threads,
			  r[i].batch, r[i].multi, kvb_fd_name(r[i].fdmode));
		rows[i].label = labels[i];
		rows[i].c = &r[i].ctr;
	}
	kvb_ctr_table(f, rows, n);
	free(rows);
	free(labels);
}

void kvb_ctr_rmodel_table(FILE *f, const struct kvb_rmodel *m)
{
	struct kvb_ctr_row *rows = calloc(m->n + 1, sizeof(*rows));
	char (*labels)[160] = calloc(m->n + 1, sizeof(*labels));
	int i;

	if (!rows || !labels) {
		free(rows);
		free(labels);
		return;
	}
	for (i = 0; i < m->n; i++) {
		const struct kvb_rcase *c = &m->c[i];

		row_label(labels[i], sizeof(labels[i]), c->target,
			  c->v.kind == KVB_NOP ? "-" : c->mix, c->threads, c->batch,
			  c->multi, c->fd);
		rows[i].label = labels[i];
		rows[i].c = &c->ctr;
	}
	kvb_ctr_table(f, rows, m->n);
	free(rows);
	free(labels);
}
