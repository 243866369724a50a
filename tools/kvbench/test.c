// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for kvbench(1): option parsing, statistics, the zipf
 * sampler, the userspace maps, the bench engine on the userspace baselines,
 * the target table, the bpf-htab target (as root, where BPF works), the
 * output formats and the command line (exit codes and messages).
 * No device is needed. Output is TAP.
 *
 * Usage: kvbench-test [PATH-TO-KVBENCH]
 *        kvbench-test --check-json FILE   (exit 0 when FILE is valid JSON
 *                                          from kvbench bench with results)
 */
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <linux/kvbench.h>

#include "kvbench.h"

/* Equal up to rounding: exact fractions computed in floating point. */
#define TINY	0.000000000001

static int test_num, test_fail, test_skip;
static const char *kvbench_bin;

static void slurp(const char *path, char *buf, size_t len);

static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	test_num++;
	if (!cond)
		test_fail++;
	printf("%sok %d - ", cond ? "" : "not ", test_num);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void skip(const char *why, const char *name)
{
	test_num++;
	test_skip++;
	printf("ok %d - %s # SKIP %s\n", test_num, name, why);
}

/* A small strict JSON checker: returns the end of one value, or NULL. */
static const char *ws(const char *s)
{
	while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')
		s++;
	return s;
}

static const char *jvalue(const char *s, int depth);

static const char *jstring(const char *s)
{
	if (*s++ != '"')
		return NULL;
	for (; *s != '"'; s++) {
		if ((unsigned char)*s < 0x20)
			return NULL;
		if (*s != '\\')
			continue;
		s++;
		if (*s == 'u') {
			int i;

			for (i = 1; i <= 4; i++)
				if (!strchr("0123456789abcdefABCDEF", s[i]) || !s[i])
					return NULL;
			s += 4;
		} else if (!*s || !strchr("\"\\/bfnrt", *s)) {
			return NULL;
		}
	}
	return s + 1;
}

static const char *jnumber(const char *s)
{
	const char *start;

	if (*s == '-')
		s++;
	if (*s == '0') {
		s++;
	} else if (*s >= '1' && *s <= '9') {
		while (*s >= '0' && *s <= '9')
			s++;
	} else {
		return NULL;
	}
	if (*s == '.') {
		start = ++s;
		while (*s >= '0' && *s <= '9')
			s++;
		if (s == start)
			return NULL;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		start = s;
		while (*s >= '0' && *s <= '9')
			s++;
		if (s == start)
			return NULL;
	}
	return s;
}

static const char *jcontainer(const char *s, int depth, char close, int object)
{
	s = ws(s + 1);
	if (*s == close)
		return s + 1;
	for (;;) {
		if (object) {
			s = jstring(s);
			if (!s)
				return NULL;
			s = ws(s);
			if (*s++ != ':')
				return NULL;
		}
		s = jvalue(ws(s), depth + 1);
		if (!s)
			return NULL;
		s = ws(s);
		if (*s == close)
			return s + 1;
		if (*s++ != ',')
			return NULL;
		s = ws(s);
	}
}

static const char *jvalue(const char *s, int depth)
{
	if (depth > 64)
		return NULL;
	switch (*s) {
	case '{':
		return jcontainer(s, depth, '}', 1);
	case '[':
		return jcontainer(s, depth, ']', 0);
	case '"':
		return jstring(s);
	case 't':
		return strncmp(s, "true", 4) ? NULL : s + 4;
	case 'f':
		return strncmp(s, "false", 5) ? NULL : s + 5;
	case 'n':
		return strncmp(s, "null", 4) ? NULL : s + 4;
	default:
		return jnumber(s);
	}
}

static int json_valid(const char *s)
{
	s = jvalue(ws(s), 0);
	return s && !*ws(s);
}

/* Run a shell command; return its exit status, output (stdout+stderr) in out. */
static int run(char *out, size_t len, const char *fmt, ...)
{
	char cmd[1024];
	size_t n = 0;
	va_list ap;
	FILE *f;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (n + 1 < len) {
		size_t r = fread(out + n, 1, len - 1 - n, f);

		if (!r)
			break;
		n += r;
	}
	out[n] = 0;
	while (fgetc(f) != EOF)
		;
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int has_python(void)
{
	char out[64];

	return run(out, sizeof(out), "python3 -c 'import json' 2>&1") == 0;
}

static void test_ulist(void)
{
	char err[256];
	struct kvb_ulist l;
	int r;

	r = kvb_parse_ulist("1,2,4", 1, 1024, 8, &l, err, sizeof(err));
	ok(!r && l.n == 3 && l.v[0] == 1 && l.v[1] == 2 && l.v[2] == 4,
	   "threads list 1,2,4");
	if (!r)
		free(l.v);
	r = kvb_parse_ulist("1-4", 1, 1024, 8, &l, err, sizeof(err));
	ok(!r && l.n == 4 && l.v[0] == 1 && l.v[3] == 4, "threads range 1-4");
	if (!r)
		free(l.v);
	r = kvb_parse_ulist("max", 1, 1024, 8, &l, err, sizeof(err));
	ok(!r && l.n == 1 && l.v[0] == 8, "threads max is the CPU count");
	if (!r)
		free(l.v);
	r = kvb_parse_ulist("1-max", 1, 1024, 3, &l, err, sizeof(err));
	ok(!r && l.n == 3 && l.v[2] == 3, "threads range 1-max");
	if (!r)
		free(l.v);
	r = kvb_parse_ulist("2,4-6,16", 1, 1024, 3, &l, err, sizeof(err));
	ok(!r && l.n == 5 && l.v[1] == 4 && l.v[3] == 6 && l.v[4] == 16,
	   "threads list with a range inside");
	if (!r)
		free(l.v);
	r = kvb_parse_ulist("pow2", 1, 1024, 6, &l, err, sizeof(err));
	ok(!r && l.n == 4 && l.v[0] == 1 && l.v[1] == 2 && l.v[2] == 4 && l.v[3] == 6,
	   "threads pow2 for 6 CPUs: 1,2,4,6");
	if (!r)
		free(l.v);
	r = kvb_parse_ulist("pow2", 1, 1024, 8, &l, err, sizeof(err));
	ok(!r && l.n == 4 && l.v[2] == 4 && l.v[3] == 8, "threads pow2 for 8 CPUs: 1,2,4,8");
	if (!r)
		free(l.v);
	r = kvb_parse_ulist("pow2", 1, 1024, 1, &l, err, sizeof(err));
	ok(!r && l.n == 1 && l.v[0] == 1, "threads pow2 for 1 CPU: 1");
	if (!r)
		free(l.v);
	ok(kvb_parse_ulist("pow2", 1, 1024, 2048, &l, err, sizeof(err)) &&
	   strstr(err, "1..1024"), "threads pow2 beyond the limit is refused");
	ok(kvb_parse_ulist("0", 1, 1024, 8, &l, err, sizeof(err)) &&
	   strstr(err, "1..1024"), "threads 0 is refused with the valid range");
	ok(kvb_parse_ulist("4-1", 1, 1024, 8, &l, err, sizeof(err)),
	   "backwards range refused");
	ok(kvb_parse_ulist("abc", 1, 1024, 8, &l, err, sizeof(err)) &&
	   strstr(err, "abc"), "garbage refused, message quotes it");
	ok(kvb_parse_ulist("1,,2", 1, 1024, 8, &l, err, sizeof(err)) &&
	   kvb_parse_ulist("", 1, 1024, 8, &l, err, sizeof(err)) &&
	   kvb_parse_ulist("1-", 1, 1024, 8, &l, err, sizeof(err)) &&
	   kvb_parse_ulist("2000", 1, 1024, 8, &l, err, sizeof(err)) &&
	   kvb_parse_ulist("99999999999", 1, 1024, 8, &l, err, sizeof(err)) &&
	   kvb_parse_ulist("-3", 1, 1024, 8, &l, err, sizeof(err)),
	   "empty items, open ranges, huge and negative numbers refused");
}

static void test_mix(void)
{
	struct kvb_mix m, *ms;
	char err[256], name[32];
	int n;

	ok(!kvb_parse_mix("90:10", &m, err, sizeof(err)) &&
	   m.get == 90 && m.set == 10 && m.del == 0, "mix 90:10");
	ok(!kvb_parse_mix("50:25:25", &m, err, sizeof(err)) &&
	   m.get == 50 && m.set == 25 && m.del == 25, "mix 50:25:25 with DEL");
	ok(!kvb_parse_mix("get", &m, err, sizeof(err)) && m.get && !m.set &&
	   !kvb_parse_mix("set", &m, err, sizeof(err)) && !m.get && m.set,
	   "mix names get and set");
	ok(kvb_parse_mix("0:0", &m, err, sizeof(err)) &&
	   kvb_parse_mix("a:b", &m, err, sizeof(err)) &&
	   kvb_parse_mix("1:2:3:4", &m, err, sizeof(err)) &&
	   kvb_parse_mix("90:", &m, err, sizeof(err)) &&
	   kvb_parse_mix(":10", &m, err, sizeof(err)) &&
	   kvb_parse_mix("-1:5", &m, err, sizeof(err)) &&
	   kvb_parse_mix("", &m, err, sizeof(err)),
	   "bad mixes refused");
	n = 0;
	ok(!kvb_parse_mixes("get,90:10,set", &ms, &n, err, sizeof(err)) &&
	   n == 3 && ms[1].get == 90, "mix list get,90:10,set");
	if (n) {
		char names[3 * 32];

		kvb_mix_names(ms, n, names, sizeof(names));
		ok(!strcmp(names, "get,90:10,set"), "the mixes in turn named get,90:10,set (%s)",
		   names);
		kvb_mix_names(ms + 2, 1, names, sizeof(names));
		ok(!strcmp(names, "set"), "one mix in turn named set (%s)", names);
		kvb_mix_names(ms, 3, names, 8);
		ok(!strcmp(names, "get,90:"), "the mixes' names cut to the buffer (%s)", names);
		free(ms);
	}
	m = (struct kvb_mix){ .get = 90, .set = 10, .del = 0 };
	kvb_mix_name(&m, name, sizeof(name));
	ok(!strcmp(name, "90:10"), "mix name 90:10");
	m = (struct kvb_mix){ .get = 0, .set = 5, .del = 0 };
	kvb_mix_name(&m, name, sizeof(name));
	ok(!strcmp(name, "set"), "mix name set");
}

static void test_dist_and_counts(void)
{
	enum kvb_dist d;
	double t, sec;
	unsigned long long v;
	char err[256];
	struct kvb_target *tg;
	struct kvb_ulist fl;
	int n;

	ok(!kvb_parse_dist("uniform", &d, &t, err, sizeof(err)) && d == KVB_UNIFORM,
	   "dist uniform");
	ok(!kvb_parse_dist("zipf", &d, &t, err, sizeof(err)) && d == KVB_ZIPF &&
	   fabs(t - 0.99) < 0.000000001, "dist zipf defaults to theta 0.99");
	ok(!kvb_parse_dist("zipf:0.5", &d, &t, err, sizeof(err)) && d == KVB_ZIPF &&
	   fabs(t - 0.5) < 0.000000001, "dist zipf:0.5");
	ok(kvb_parse_dist("zipf:", &d, &t, err, sizeof(err)) &&
	   kvb_parse_dist("zipf:-1", &d, &t, err, sizeof(err)) &&
	   kvb_parse_dist("zipf:x", &d, &t, err, sizeof(err)) &&
	   kvb_parse_dist("zipf:nan", &d, &t, err, sizeof(err)) &&
	   kvb_parse_dist("normal", &d, &t, err, sizeof(err)),
	   "bad distributions refused");
	ok(!kvb_parse_seconds("2", &sec, err, sizeof(err)) && sec == 2 &&
	   !kvb_parse_seconds("1.5s", &sec, err, sizeof(err)) && sec == 1.5 &&
	   !kvb_parse_seconds("500ms", &sec, err, sizeof(err)) && fabs(sec - 0.5) < 0.000000001,
	   "durations 2, 1.5s, 500ms");
	ok(kvb_parse_seconds("x", &sec, err, sizeof(err)) &&
	   kvb_parse_seconds("-1", &sec, err, sizeof(err)) &&
	   kvb_parse_seconds("1h", &sec, err, sizeof(err)),
	   "bad durations refused");
	ok(!kvb_parse_count("64", 0, 1 << 20, &v, err, sizeof(err)) && v == 64 &&
	   !kvb_parse_count("4Ki", 0, 1 << 20, &v, err, sizeof(err)) && v == 4096 &&
	   !kvb_parse_count("1Mi", 0, 1 << 20, &v, err, sizeof(err)) && v == 1 << 20,
	   "counts 64, 4Ki, 1Mi");
	ok(kvb_parse_count("k", 0, 100, &v, err, sizeof(err)) &&
	   kvb_parse_count("5x", 0, 100, &v, err, sizeof(err)) &&
	   kvb_parse_count("4kk", 0, 1 << 20, &v, err, sizeof(err)) &&
	   kvb_parse_count("101", 0, 100, &v, err, sizeof(err)) &&
	   kvb_parse_count("-1", 0, 100, &v, err, sizeof(err)),
	   "bad counts refused");
	ok(!kvb_parse_targets("all", &tg, &n, err, sizeof(err)) && n == 10 &&
	   tg[0].kind == KVB_NOP && tg[7].kind == KVB_PEER &&
	   !strcmp(tg[6].name, "combining") &&
	   !strcmp(tg[7].name, "bpf-htab") && tg[7].ops == &kvb_bpf_htab_ops &&
	   tg[9].kind == KVB_USER_OWNER && tg[9].ops == &kvb_owner_ops,
	   "backends all: nop, 6 kernel backends, bpf-htab, 2 userspace maps");
	if (!n)
		tg = NULL;
	free(tg);
	n = 0;
	ok(!kvb_parse_targets("nop,rwlock,nop,kernel", &tg, &n, err, sizeof(err)) &&
	   n == 7 && !strcmp(tg[2].name, "rcu"), "backends deduplicated, kernel expands");
	if (n)
		free(tg);
	n = 0;
	ok(!kvb_parse_targets("current,future_one", &tg, &n, err, sizeof(err)) &&
	   n == 2 && tg[1].kind == KVB_KERNEL, "unknown lower-case names are kernel backends");
	if (n)
		free(tg);
	ok(kvb_parse_targets("Bad!", &tg, &n, err, sizeof(err)) &&
	   strstr(err, "known:") && strstr(err, "bpf-htab") && strstr(err, "peers"),
	   "bad backend names refused with the known list");
	n = 0;
	ok(!kvb_parse_targets("peers", &tg, &n, err, sizeof(err)) && n == 1 &&
	   !strcmp(tg[0].name, "bpf-htab") && !strcmp(kvb_kind_name(tg[0].kind), "peer"),
	   "group peers is bpf-htab, of kind peer");
	if (n)
		free(tg);
	n = 0;
	ok(!kvb_parse_targets("baselines", &tg, &n, err, sizeof(err)) && n == 3 &&
	   !strcmp(tg[0].name, "nop") && tg[1].ops == &kvb_urw_ops &&
	   tg[2].ops == &kvb_owner_ops, "group baselines: nop and the userspace maps");
	if (n)
		free(tg);
	ok(!kvb_parse_fdmodes("shared", &fl, err, sizeof(err)) && fl.n == 1 &&
	   fl.v[0] == KVB_FD_SHARED, "fd shared");
	free(fl.v);
	ok(kvb_parse_fdmodes("global", &fl, err, sizeof(err)), "bad fd mode refused");
}

static void test_stats(void)
{
	unsigned int v[1000], one = 7;
	double d[] = { 5, 1, 3 }, e[] = { 4, 1, 3, 2 };
	size_t i;

	for (i = 0; i < 100; i++)
		v[i] = 100 - i;
	kvb_sort_u32(v, 100);
	ok(v[0] == 1 && v[99] == 100, "sort");
	ok(kvb_percentile(v, 100, 50) == 50 && kvb_percentile(v, 100, 99) == 99 &&
	   kvb_percentile(v, 100, 99.9) == 100 && kvb_percentile(v, 100, 100) == 100,
	   "nearest-rank percentiles of 1..100");
	for (i = 0; i < 1000; i++)
		v[i] = i + 1;
	ok(kvb_percentile(v, 1000, 99.9) == 999 && kvb_percentile(v, 1000, 50) == 500 &&
	   kvb_percentile(v, 1000, 99) == 990, "percentiles of 1..1000");
	ok(kvb_percentile(&one, 1, 50) == 7 && kvb_percentile(&one, 1, 99.9) == 7 &&
	   isnan(kvb_percentile(v, 0, 50)), "percentile of one sample, and of none");
	ok(kvb_median(d, 3) == 3 && kvb_median(e, 4) == 2.5 && isnan(kvb_median(d, 0)),
	   "median odd, even, empty");
	ok(fabs(kvb_spread_pct(d, 3) - 400.0 / 3) < 0.000000001 && kvb_spread_pct(&d[0], 1) == 0,
	   "spread (max-min)/median");
}

static void test_zipf(void)
{
	const unsigned long n = 1000, draws = 2000000;
	unsigned long *cnt = calloc(n, sizeof(*cnt)), i, bad = 0;
	struct kvb_zipf z;
	__u64 rng = 12345;
	double p0, p1, sum = 0, dmin = 1, dmax = 0;

	if (!cnt || kvb_zipf_init(&z, n, 0.99)) {
		ok(0, "zipf init");
		free(cnt);
		return;
	}
	for (i = 0; i < draws; i++) {
		unsigned long k = kvb_zipf_next(&z, &rng);

		if (k >= n)
			bad++;
		else
			cnt[k]++;
	}
	for (i = 0; i < n; i++)
		sum += kvb_zipf_pmf(n, 0.99, i);
	p0 = (double)cnt[0] / draws;
	p1 = (double)cnt[1] / draws;
	ok(!bad, "zipf draws stay in 0..n-1");
	ok(fabs(sum - 1) < 0.000000001, "zipf pmf sums to 1");
	ok(fabs(p0 / kvb_zipf_pmf(n, 0.99, 0) - 1) < 0.03 &&
	   fabs(p1 / kvb_zipf_pmf(n, 0.99, 1) - 1) < 0.03,
	   "zipf(0.99) ranks 0 and 1 within 3%% of the pmf (%.4f, %.4f)", p0, p1);
	ok(cnt[0] > cnt[1] && cnt[1] > cnt[3] && cnt[3] > cnt[30] && cnt[30] > cnt[900],
	   "zipf popularity falls with rank");
	kvb_zipf_free(&z);

	memset(cnt, 0, n * sizeof(*cnt));
	kvb_zipf_init(&z, 10, 0);
	for (i = 0; i < 1000000; i++)
		cnt[kvb_zipf_next(&z, &rng)]++;
	for (i = 0; i < 10; i++) {
		double f = cnt[i] / 1e6;

		dmin = f < dmin ? f : dmin;
		dmax = f > dmax ? f : dmax;
	}
	ok(dmin > 0.095 && dmax < 0.105, "zipf theta 0 is uniform");
	kvb_zipf_free(&z);
	for (i = 0, bad = 0; i < 100000; i++) {
		double x = kvb_rand_double(&rng);

		bad += x < 0 || x >= 1;
	}
	ok(!bad, "rand_double in [0, 1)");
	free(cnt);
}

struct owner_arg {
	struct kvb_owner *o;
	int id;
	int fails;
};

static void *owner_client(void *arg)
{
	struct owner_arg *a = arg;
	struct kvb_oreq r;
	char key[16], val[16], buf[16];
	int i;

	kvb_oreq_init(&r);
	for (i = 0; i < 500; i++) {
		unsigned int vl = snprintf(val, sizeof(val), "v%d-%d", a->id, i);
		unsigned int bl = sizeof(buf);

		snprintf(key, sizeof(key), "k%d", a->id);
		if (kvb_owner_call(a->o, &r, KVBENCH_OP_SET, key, strlen(key), val, &vl) ||
		    kvb_owner_call(a->o, &r, KVBENCH_OP_GET, key, strlen(key), buf, &bl) ||
		    bl != strlen(val) || memcmp(buf, val, bl))
			a->fails++;
	}
	kvb_oreq_destroy(&r);
	return NULL;
}

static void test_maps(void)
{
	struct kvb_umap *m = kvb_umap_new(4);
	struct kvb_urw u;
	struct kvb_owner o;
	struct owner_arg args[4];
	pthread_t th[4];
	char buf[8];
	unsigned int len = sizeof(buf), vl, spin;
	int i, fails = 0;

	ok(m && !kvb_umap_set(m, "a", 1, "hello", 5) &&
	   !kvb_umap_get(m, "a", 1, buf, &len) && len == 5 && !memcmp(buf, "hello", 5),
	   "umap set/get");
	len = 2;
	ok(kvb_umap_get(m, "a", 1, buf, &len) == -ERANGE && len == 5,
	   "umap get with a small buffer: -ERANGE and the needed length");
	len = sizeof(buf);
	ok(kvb_umap_get(m, "ab", 2, buf, &len) == -ENOENT &&
	   !kvb_umap_set(m, "a", 1, "", 0) && !kvb_umap_get(m, "a", 1, buf, &len) &&
	   len == 0, "umap keys differing in length, empty value overwrite");
	ok(!kvb_umap_del(m, "a", 1) && kvb_umap_del(m, "a", 1) == -ENOENT,
	   "umap del, then del of a missing key");
	for (i = 0; i < 100; i++) {
		char k[16];

		snprintf(k, sizeof(k), "%d", i);
		kvb_umap_set(m, k, strlen(k), k, strlen(k));
	}
	kvb_umap_free(m);

	vl = 3;
	len = sizeof(buf);
	ok(!kvb_urw_init(&u, 16) && !kvb_urw_op(&u, KVBENCH_OP_SET, "k", 1, "abc", &vl) &&
	   !kvb_urw_op(&u, KVBENCH_OP_GET, "k", 1, buf, &len) && len == 3 &&
	   !kvb_urw_op(&u, KVBENCH_OP_SET, "k", 1, "xy", &(unsigned int){ 2 }) &&
	   !kvb_urw_op(&u, KVBENCH_OP_DEL, "k", 1, NULL, &len) &&
	   kvb_urw_op(&u, KVBENCH_OP_GET, "k", 1, buf, &len) == -ENOENT,
	   "user-rwlock map set/get/overwrite/del");
	kvb_urw_destroy(&u);

	for (spin = 0; spin <= KVB_OWNER_SPIN; spin += KVB_OWNER_SPIN) {
		fails = 0;
		ok(!kvb_owner_start(&o, 16, 4, spin), "owner thread starts (spin %u)", spin);
		for (i = 0; i < 4; i++) {
			args[i] = (struct owner_arg){ &o, i, 0 };
			pthread_create(&th[i], NULL, owner_client, &args[i]);
		}
		for (i = 0; i < 4; i++) {
			pthread_join(th[i], NULL);
			fails += args[i].fails;
		}
		kvb_owner_stop(&o);
		ok(!fails, "user-owner (spin %u): 4 callers x 500 set+get answered correctly",
		   spin);
	}
}

static void test_engine(void)
{
	struct kvb_params p;
	struct kvb_target t[2];
	struct kvb_mix mix = { .get = 80, .set = 15, .del = 5 };
	struct kvb_result r;
	struct kvb_bench *b;
	int cpus[1] = { 0 }, i;

	kvb_params_defaults(&p);
	p.repeat = 1;	/* one run: these count what one run does */
	p.keys = 64;
	p.duration = 0.05;
	p.warmup = 0.01;
	p.repeat = 2;
	p.pin = 0;
	p.ncpus = 1;
	p.cpus = cpus;
	p.dist = KVB_ZIPF;
	p.theta = 0.99;
	b = kvb_bench_new(&p);
	ok(!!b && !kvb_target_by_name("user-rwlock", &t[0]) &&
	   !kvb_target_by_name("user-owner", &t[1]) && t[0].ops == &kvb_urw_ops &&
	   t[1].kind == KVB_USER_OWNER, "bench context, targets from the table");
	if (!b)
		return;
	for (i = 0; i < 2; i++) {
		int rc = kvb_run_case(b, &t[i], &mix, 2, 1, 0, KVB_FD_NONE, &r);

		/* a percentile is there when its samples are, and they are in order */
		ok(!rc && r.runs == 2 && r.ops > 0 && !r.errors && r.samples > 0 &&
		   r.ops_per_sec > 0 && isfinite(r.ns_per_op) && !(r.p50 > r.p99) &&
		   !(r.p99 > r.p999) && r.misses > 0 && r.lat.samples == r.samples &&
		   isfinite(r.p99) == (r.samples >= 1000) &&
		   isfinite(r.p999) == (r.samples >= 10000) &&
		   r.lat.min <= r.lat.mean && r.lat.mean <= r.lat.max &&
		   (isnan(r.p50) || (r.lat.min <= r.p50 && r.p50 <= r.lat.max)) &&
		   r.thr_min <= r.thr_max && r.thr_ratio > 0 && r.thr_ratio <= 1,
		   "engine runs %s, 2 threads, 80:15:5 zipf (%llu ops, %llu misses)",
		   t[i].name, r.ops, r.misses);
		ok(!rc && fabs(r.ns_per_op * r.ops_per_sec - 1e9) < 1 &&
		   fabs(r.lat_per_op - 2 * r.ns_per_op) < 0.000001 && r.sum.n == 2 &&
		   r.sum.ci_lo <= r.sum.mean && r.sum.mean <= r.sum.ci_hi &&
		   r.noisy == (r.spread_pct > p.noisy_pct) && !r.bstats.valid,
		   "%s at 2 threads: ns/op = 1e9 / ops/s, lat/op = 2 x ns/op, a CI around the mean",
		   t[i].name);
		if (!rc)
			kvb_result_free(&r);
	}
	p.ops = 1000;
	p.repeat = 1;
	ok(!kvb_run_case(b, &t[0], &mix, 2, 1, 0, KVB_FD_NONE, &r) &&
	   r.ops == 2000, "--ops: each thread runs exactly N operations");
	kvb_result_free(&r);
	p.sample_every = 1;
	ok(!kvb_run_case(b, &t[0], &mix, 1, 1, 0, KVB_FD_NONE, &r) &&
	   r.samples == 1000, "--sample-every 1 times every operation");
	kvb_result_free(&r);
	p.sample_every = 0;
	ok(!kvb_run_case(b, &t[0], &mix, 1, 1, 0, KVB_FD_NONE, &r) &&
	   r.samples == 0 && isnan(r.p50) && r.ops == 1000,
	   "--sample-every 0: no samples, latency unknown");
	kvb_result_free(&r);
	kvb_bench_free(b);
}

/* Can this process create a BPF hash map? */
static int bpf_works(void)
{
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_HASH;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 1;
	fd = syscall(__NR_bpf, BPF_MAP_CREATE, &attr, sizeof(attr));
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

static struct kvbench_op bop(int op, const char *key, char *val,
			     const struct kvb_params *p)
{
	struct kvbench_op o = {
		.kv = {
			.key = (__u64)(unsigned long)key,
			.value = (__u64)(unsigned long)val,
			.key_len = p->key_size,
			.value_len = p->value_size,
		},
		.op = op,
		.result = 1,
	};

	return o;
}

/*
 * bpf-htab through its row, as the engine drives it: the map made by
 * ->begin, single GET/SET/DEL, a batch that mixes UPDATE_BATCH,
 * DELETE_BATCH (restarted after a missing key) and lookups, then whole
 * cases. Needs root or CAP_BPF.
 */
static void test_bpf_htab(void)
{
	const char *name = "bpf-htab: GET/SET/DEL round trip through the row";
	struct kvb_params p;
	struct kvb_target t;
	struct kvb_bench *b;
	struct kvb_ctx c;
	struct kvb_result r;
	struct kvb_mix mix = { .get = 50, .set = 25, .del = 25 };
	struct kvbench_op o[6];
	char val[64], buf[64], v2[64];
	unsigned int vl = sizeof(val);
	const char *k0, *k1, *k2, *k3;
	int cpus[1] = { 0 }, rc, good;

	if (!bpf_works()) {
		skip("cannot create a BPF map here (needs root or CAP_BPF)", name);
		skip("no BPF", "bpf-htab: a batch of SETs, DELs and GETs");
		skip("no BPF", "bpf-htab: whole cases through the engine");
		return;
	}
	kvb_params_defaults(&p);
	p.repeat = 1;	/* one run: these count what one run does */
	p.keys = 64;
	p.duration = 0.05;
	p.warmup = 0.01;
	p.pin = 0;
	p.ncpus = 1;
	p.cpus = cpus;
	b = kvb_bench_new(&p);
	if (!b || kvb_target_by_name("bpf-htab", &t) || t.ops != &kvb_bpf_htab_ops) {
		ok(0, "%s: setup", name);
		kvb_bench_free(b);
		return;
	}
	k0 = b->keys;
	k1 = b->keys + p.key_size;
	k2 = b->keys + 2 * p.key_size;
	k3 = b->keys + 3 * p.key_size;
	memset(val, 'a', sizeof(val));
	memset(v2, 'b', sizeof(v2));
	memset(&c, 0, sizeof(c));
	c.b = b;
	c.klen = p.key_size;
	rc = t.ops->begin(b, &t);
	ok(!rc && b->fd >= 0 && !t.ops->thread_init(&c, KVB_FD_NONE) && c.fd == b->fd &&
	   t.ops->op(&c, KVBENCH_OP_GET, k0, buf, &vl) == -ENOENT &&
	   !t.ops->op(&c, KVBENCH_OP_SET, k0, val, &vl) &&
	   !t.ops->op(&c, KVBENCH_OP_GET, k0, buf, &vl) && !memcmp(buf, val, sizeof(val)) &&
	   !t.ops->op(&c, KVBENCH_OP_DEL, k0, NULL, &vl) &&
	   t.ops->op(&c, KVBENCH_OP_DEL, k0, NULL, &vl) == -ENOENT &&
	   t.ops->op(&c, KVBENCH_OP_GET, k0, buf, &vl) == -ENOENT, "%s", name);
	if (rc) {
		kvb_bench_free(b);
		return;
	}
	o[0] = bop(KVBENCH_OP_SET, k1, v2, &p);
	o[1] = bop(KVBENCH_OP_SET, k2, v2, &p);
	o[2] = bop(KVBENCH_OP_DEL, k3, NULL, &p);	/* missing: a miss */
	o[3] = bop(KVBENCH_OP_DEL, k1, NULL, &p);
	o[4] = bop(KVBENCH_OP_GET, k2, buf, &p);
	o[5] = bop(KVBENCH_OP_GET, k1, buf, &p);	/* deleted by o[3] */
	memset(buf, 0, sizeof(buf));
	t.ops->batch(&c, o, 6);
	ok(!o[0].result && !o[1].result && o[2].result == -ENOENT && !o[3].result &&
	   !o[4].result && o[5].result == -ENOENT && !memcmp(buf, v2, sizeof(v2)) &&
	   t.ops->op(&c, KVBENCH_OP_GET, k1, buf, &vl) == -ENOENT &&
	   !t.ops->probe(&c, 64, 0, val) && !t.ops->probe(&c, 1, 0, val),
	   "bpf-htab: a batch of SETs, DELs and GETs, in order (results %d %d %d %d %d %d)",
	   o[0].result, o[1].result, o[2].result, o[3].result, o[4].result, o[5].result);
	t.ops->thread_fini(&c);
	/*
	 * Long enough that a run has ops and misses on a loaded host (an
	 * ASan build beside make check's boots had none in 50 ms).
	 */
	p.duration = 0.25;
	rc = kvb_run_case(b, &t, &mix, 2, 8, 0, KVB_FD_NONE, &r);
	good = !rc && r.ops > 0 && !r.errors && r.misses > 0 && r.fdmode == KVB_FD_NONE &&
	       r.batch == 8 && r.kind == KVB_PEER;
	if (!good)
		printf("# batch 8: rc %d, %llu ops, %llu errors, %llu misses\n", rc,
		       rc ? 0ULL : (unsigned long long)r.ops,
		       rc ? 0ULL : (unsigned long long)r.errors,
		       rc ? 0ULL : (unsigned long long)r.misses);
	if (!rc)
		kvb_result_free(&r);
	rc = kvb_run_case(b, &t, &mix, 1, 1, 0, KVB_FD_NONE, &r);
	if (rc || !r.ops || r.errors || !r.misses)
		printf("# batch 1: rc %d, %llu ops, %llu errors, %llu misses\n", rc,
		       rc ? 0ULL : (unsigned long long)r.ops,
		       rc ? 0ULL : (unsigned long long)r.errors,
		       rc ? 0ULL : (unsigned long long)r.misses);
	ok(good && !rc && r.ops > 0 && !r.errors && r.misses > 0,
	   "bpf-htab: whole cases through the engine, batch 8 and 1, 50:25:25 (misses, no errors)");
	if (!rc)
		kvb_result_free(&r);
	kvb_bench_free(b);
}

/*
 * Without CAP_BPF, bpf-htab is left out with a one-line message and the
 * run does not fail: kvbench bench as uid 65534, in a child.
 */
static void test_bpf_unprivileged(void)
{
	const char *name = "bpf-htab without CAP_BPF: skipped with a message, exit 0";
	static const char * const args[] = {
		"bench", "-q", "-b", "bpf-htab,user-rwlock", "-t", "1", "-n", "100",
		"-w", "0", "-f", "csv",
	};
	char *argv[ARRAY_SIZE(args) + 1] = { NULL };
	char out[4096], tmpl[] = "/tmp/kvbench-test-XXXXXX";
	int fd, st;
	unsigned int i;
	pid_t pid;

	for (i = 0; i < ARRAY_SIZE(args); i++)
		argv[i] = (char *)args[i];

	slurp("/proc/sys/kernel/unprivileged_bpf_disabled", out, sizeof(out));
	if (geteuid() || out[0] == '0' || !out[0]) {
		skip(geteuid() ? "not root: cannot drop to another user" :
		     "unprivileged BPF is allowed here", name);
		return;
	}
	fd = mkstemp(tmpl);
	if (fd < 0) {
		skip("no temporary file", name);
		return;
	}
	fflush(stdout);
	pid = fork();
	if (!pid) {
		dup2(fd, 1);
		dup2(fd, 2);
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(99);
		st = kvb_bench_main(ARRAY_SIZE(args), argv, KVB_DEFAULT_DEVICE);
		fflush(stdout);
		fflush(stderr);
		_exit(st);
	}
	close(fd);
	st = -1;
	if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st))
		st = WEXITSTATUS(st);
	slurp(tmpl, out, sizeof(out));
	unlink(tmpl);
	ok(st == 0 && strstr(out, "kvbench: bpf-htab: skipped: ") && strstr(out, "CAP_BPF") &&
	   strstr(out, "\nuser-rwlock,userspace,get,") && !strstr(out, "\nbpf-htab,"),
	   "%s (exit %d)", name, st);
}

/* The in-process baselines have no fd: "-" in the table, null in JSON. */
static void test_fdless(void)
{
	struct kvb_params p;
	struct kvb_result r[2];
	double runs[1] = { 1 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	kvb_params_defaults(&p);
	p.repeat = 1;	/* one run: these count what one run does */
	p.ncpus = 2;
	memset(r, 0, sizeof(r));
	snprintf(r[0].target, sizeof(r[0].target), "nop");
	r[0].kind = KVB_NOP;
	r[0].threads = 2;
	r[0].batch = 1;
	r[0].runs = 1;
	r[0].run_ops = runs;
	r[0].ops_per_sec = 400000;
	r[0].ns_per_op = 5000;
	r[0].fdmode = KVB_FD_PER_THREAD;
	r[1] = r[0];
	snprintf(r[1].target, sizeof(r[1].target), "user-rwlock");
	r[1].kind = KVB_USER_RWLOCK;
	r[1].mix = (struct kvb_mix){ .get = 1, .set = 0, .del = 0 };
	r[1].ns_per_op = 500;
	r[1].fdmode = KVB_FD_NONE;
	kvb_compute_ratios(r, 2);
	ok(fabs(r[1].cost_vs_nop - 0.1) < 0.000000001,
	   "a row without an fd is set beside nop's per-thread fd row");
	f = open_memstream(&buf, &len);
	kvb_print_json(f, &p, r, 2, &(struct kvb_outcome){ .complete = 1 });
	fclose(f);
	ok(json_valid(buf) && strstr(buf, "\"fd\": null") && strstr(buf, "\"fd\": \"per-thread\""),
	   "JSON: fd null for a target without an fd");
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	kvb_print_csv(f, r, 2);
	fclose(f);
	ok(!!strstr(buf, "\nuser-rwlock,userspace,get,1,0,0,2,1,,1,"),
	   "CSV: an empty fd cell for a target without an fd");
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	kvb_print_table(f, NULL, r, 2, NULL);
	fclose(f);
	ok(strstr(buf, "\nuser-rwlock get    2      1 -          ") &&
	   strstr(buf, "\nnop         -      2      1 per-thread "),
	   "table: fd '-' for a target without an fd");
	free(buf);
}

static void fake_results(struct kvb_result *r, double *runs)
{
	memset(r, 0, 3 * sizeof(*r));
	snprintf(r[0].target, sizeof(r[0].target), "nop");
	r[0].kind = KVB_NOP;
	r[0].threads = 1;
	r[0].batch = 1;
	r[0].runs = 1;
	r[0].run_ops = runs;
	r[0].ops_per_sec = 400000;
	r[0].ns_per_op = 2500;
	r[0].lat_per_op = 2500;
	kvb_summarize(runs, 1, &r[0].sum);
	r[0].p50 = 2400;
	r[0].p99 = 3000;
	r[0].p999 = 9000;
	r[0].samples = 20000;
	r[0].lat = (struct kvb_lat){ 20000, 2000, 2550.5, 9500,
				     { 2400, 2800, 3000, 9000, NAN } };
	r[0].thr_min = 400000;
	r[0].thr_max = 400000;
	r[0].thr_ratio = 1;
	r[1] = r[0];
	snprintf(r[1].target, sizeof(r[1].target), "rwlock");
	r[1].kind = KVB_KERNEL;
	r[1].mix = (struct kvb_mix){ .get = 90, .set = 10, .del = 0 };
	r[1].ops_per_sec = 200000;
	r[1].ns_per_op = 5000;
	r[1].lat_per_op = 5000;
	r[1].bstats = (struct kvb_bstats){ .valid = 1, .reset = 1, .queue_hwm = 3,
					   .drain_mean = 1.5, .queue_full = 4,
					   .requests = 800, .has_sleeps = 1,
					   .sleeps = 200, .handoffs = 6,
					   .combine_mean = NAN, .has_poll = 1,
					   .poll_us = 900000, .owners = 2,
					   .window_s = 2 };
	r[2] = r[1];
	snprintf(r[2].target, sizeof(r[2].target), "we\"ird\\\n");
	r[2].ops_per_sec = 100000;
	r[2].ns_per_op = 10000;
	r[2].p50 = NAN;
	r[2].p99 = NAN;
	r[2].p999 = NAN;
	r[2].samples = 5;
	r[2].lat = (struct kvb_lat){ 5, 1000, 1200, 1500, { NAN, NAN, NAN, NAN, NAN } };
	r[2].runs = 2;
	r[2].spread_pct = INFINITY;
	r[2].noisy = 1;
	r[2].bstats = (struct kvb_bstats){ 0 };
	kvb_summarize(runs, 2, &r[2].sum);
}

/*
 * --multi: a row with a ->multi gets packed calls of one kind, n keys
 * each, the kind drawn from the mix per call; the reports mark the case.
 */
static atomic_uint fake_calls, fake_mixed, fake_wrong_n;

static int fake_init(struct kvb_ctx *c, enum kvb_fd fdmode)
{
	(void)fdmode;
	c->fd = -1;
	return 0;
}

static int fake_op(struct kvb_ctx *c, int op, const char *key, char *val,
		   unsigned int *vlen)
{
	(void)c;
	(void)op;
	(void)key;
	(void)val;
	(void)vlen;
	return 0;
}

static void fake_multi(struct kvb_ctx *c, struct kvbench_op *ops, unsigned int n)
{
	unsigned int i;

	(void)c;
	atomic_fetch_add(&fake_calls, 1);
	atomic_fetch_add(&fake_wrong_n, n != 8);
	for (i = 0; i < n; i++) {
		atomic_fetch_add(&fake_mixed, ops[i].op != ops[0].op);
		ops[i].result = ops[i].op == KVBENCH_OP_GET ? -ENOENT : 0;
	}
}

static void test_multi(void)
{
	static const struct kvb_target_ops fake_ops = {
		.kind = KVB_KERNEL,
		.group = "kernel",
		.flags = KVB_T_MIXES | KVB_T_MULTI,
		.thread_init = fake_init,
		.op = fake_op,
		.multi = fake_multi,
	};
	struct kvb_target t = { .name = "fake", .kind = KVB_KERNEL, .ops = &fake_ops };
	struct kvb_mix mix = { .get = 50, .set = 50, .del = 0 };
	struct kvb_params p;
	struct kvb_result r[2];
	struct kvb_bench *b;
	int cpus[1] = { 0 };
	double runs[1] = { 1 };
	char *buf = NULL, name[16];
	size_t len = 0;
	FILE *f;
	int rc;

	kvb_call_name(64, 1, name, sizeof(name));
	ok(!strcmp(name, "M64") && (kvb_call_name(64, 0, name, sizeof(name)), !strcmp(name, "64")),
	   "the batch column: 64 for a BATCH, M64 for packed calls");

	kvb_params_defaults(&p);
	p.repeat = 1;	/* one run: these count what one run does */
	p.keys = 64;
	p.ops = 800;
	p.warmup = 0;
	p.pin = 0;
	p.ncpus = 1;
	p.cpus = cpus;
	b = kvb_bench_new(&p);
	if (!b) {
		ok(0, "bench context");
		return;
	}
	rc = kvb_run_case(b, &t, &mix, 2, 8, 1, KVB_FD_NONE, &r[0]);
	ok(!rc && r[0].ops == 1600 && atomic_load(&fake_calls) == 200 &&
	   !atomic_load(&fake_wrong_n) && !atomic_load(&fake_mixed) &&
	   r[0].misses > 0 && r[0].misses < 1600 && !r[0].errors && r[0].multi &&
	   r[0].batch == 8,
	   "engine: --multi 8 makes packed calls of 8 ops of one kind (%u calls, %u mixed ops, misses %llu)",
	   atomic_load(&fake_calls), atomic_load(&fake_mixed), r[0].misses);
	kvb_result_free(&r[0]);
	kvb_bench_free(b);

	memset(r, 0, sizeof(r));
	snprintf(r[0].target, sizeof(r[0].target), "rwlock");
	r[0].kind = KVB_KERNEL;
	r[0].mix = (struct kvb_mix){ .get = 1, .set = 0, .del = 0 };
	r[0].threads = 1;
	r[0].batch = 64;
	r[0].runs = 1;
	r[0].run_ops = runs;
	r[0].ops_per_sec = 1000;
	r[0].fdmode = KVB_FD_PER_THREAD;
	r[1] = r[0];
	r[1].multi = 1;
	r[1].ops_per_sec = 3000;
	kvb_compute_ratios(r, 2);
	ok(r[0].tput_vs_rwlock == 1 && r[1].tput_vs_rwlock == 1,
	   "tput/rwlock: MGET(64) is set beside rwlock's MGET(64), not its BATCH(64)");
	f = open_memstream(&buf, &len);
	kvb_print_json(f, &p, r, 2, &(struct kvb_outcome){ .complete = 1 });
	fclose(f);
	ok(json_valid(buf) && strstr(buf, "\"batch\": 64,\n      \"multi\": false,") &&
	   strstr(buf, "\"batch\": 64,\n      \"multi\": true,"),
	   "JSON: \"multi\" tells packed calls from a BATCH of the same size");
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	kvb_print_csv(f, r, 2);
	fclose(f);
	ok(strstr(buf, ",noisy,multi,io,qd,sqpoll,wakeups_per_req,combine_mean,") &&
	   strstr(buf, ",wakeups_per_req,combine_mean,poll_cpus,owners,") &&
	   strstr(buf, ",0,0,ioctl,,0,,,,,") && strstr(buf, ",0,1,ioctl,,0,,,,,"),
	   "CSV: a multi column, 0 or 1; then io, qd, sqpoll, the backend's waits and polling");
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	kvb_print_table(f, NULL, r, 2, NULL);
	fclose(f);
	ok(strstr(buf, "\nrwlock  get    1     64 per-thread ") &&
	   strstr(buf, "\nrwlock  get    1    M64 per-thread ") && strstr(buf, "M64: packed"),
	   "table: batch 64 and M64, and what M means");
	free(buf);
}

/* How often needle occurs in hay. */
static int count_of(const char *hay, const char *needle)
{
	int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

/* The writers' one number (and member): fixed or significant digits; null when not finite. */
static void test_json_num(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	kvb_json_num(f, 3.14159, 2);
	fputc('|', f);
	kvb_json_num(f, 2e6, 0);
	fputc('|', f);
	kvb_json_num(f, 1.0 / 3, KVB_JSON_SIG(6));
	fputc('|', f);
	kvb_json_num(f, NAN, 1);
	fputc('|', f);
	kvb_json_num(f, -INFINITY, KVB_JSON_SIG(10));
	kvb_json_field(f, ", ", "p", 0.25, 2);
	kvb_json_field(f, ",\n  ", "q", NAN, 2);
	fclose(f);
	ok(buf && !strcmp(buf, "3.14|2000000|0.333333|null|null, \"p\": 0.25,\n  \"q\": null"),
	   "kvb_json_num: %%.*f, %%.*g, null for NaN and infinity; kvb_json_field: \"key\": (%s)",
	   buf ? buf : "");
	free(buf);
}

static void test_output(void)
{
	struct kvb_params p;
	struct kvb_result r[3];
	double runs[2] = { 1, 2 };
	char *buf = NULL, *line, *save;
	size_t len = 0;
	FILE *f;
	int cols = -1, same = 1, rows = 0, i;

	kvb_params_defaults(&p);
	p.repeat = 1;	/* one run: these count what one run does */
	p.ncpus = 2;
	p.seed = 7;
	p.seed_given = 1;
	fake_results(r, runs);
	kvb_compute_ratios(r, 3);
	ok(r[0].cost_vs_nop == 1 && r[1].cost_vs_nop == 2 && isnan(r[0].tput_vs_rwlock) &&
	   r[1].tput_vs_rwlock == 1 && r[2].tput_vs_rwlock == 0.5,
	   "ratios to nop and to rwlock");

	f = open_memstream(&buf, &len);
	kvb_print_json(f, &p, r, 3, &(struct kvb_outcome){ .complete = 1 });
	fclose(f);
	ok(json_valid(buf), "JSON output is well-formed (NaN, infinity, quotes escaped)");
	ok(strstr(buf, "\"schema\": \"kvbench-bench/4\"") && strstr(buf, "\"p99_9\": 9000") &&
	   strstr(buf, "\"p50\": null"), "JSON carries schema, latencies, nulls");
	ok(strstr(buf, "\"samples\": 20000, \"min\": 2000, \"mean\": 2550.5, \"max\": 9500,") &&
	   strstr(buf, "\"percentiles\": { \"50\": 2400, \"90\": 2800, \"99\": 3000, ") &&
	   strstr(buf, "\"99\": 3000, \"99.9\": 9000, \"99.99\": null }") &&
	   strstr(buf, "\"insufficient\": [\"99.99\"], \"precision\": 0.0078125,") &&
	   strstr(buf, "\"insufficient\": [\"50\", \"90\", \"99\", \"99.9\", \"99.99\"]") &&
	   strstr(buf, "\"samples\": 5, \"min\": 1000, \"mean\": 1200.0, \"max\": 1500,") &&
	   strstr(buf, "\"p50\": 2400, \"p99\": 3000, \"p99_9\": 9000 }") &&
	   strstr(buf, "\"per_thread_ops_per_sec\": { \"min\": 400000.0, \"max\": 400000.0, ") &&
	   strstr(buf, "\"max\": 400000.0, \"min_max_ratio\": 1.0000 }"),
	   "JSON latency_ns: exact min/mean/max, percentiles, the insufficient ones null and listed");
	ok(strstr(buf, "\"mean_ci95_low\": null, \"mean_ci95_high\": null") &&
	   strstr(buf, "\"median_ci_low\": 1.0, \"median_ci_high\": 2.0, ") &&
	   strstr(buf, "\"median_ci_high\": 2.0, \"median_ci_level\": 0.500000 }") &&
	   !strstr(buf, "\"ci95_low\""),
	   "JSON ops_per_sec_stats: the mean's interval renamed, the median's with its level");
	ok(strstr(buf, "\"ns_per_op\": 2500.00") && strstr(buf, "\"lat_per_op_ns\": 5000.00") &&
	   strstr(buf, "\"noisy\": true") && strstr(buf, "\"noisy\": false") &&
	   strstr(buf, "\"ops_per_sec_stats\": { \"mean\": 1.5, \"median\": 1.5") &&
	   strstr(buf, "\"seed\": 7,") && strstr(buf, "\"seed_given\": true") &&
	   strstr(buf, "\"provenance\": null") &&
	   strstr(buf, "\"backend_stats\": { \"reset\": true, \"queue_hwm\": 3, \"drain") &&
	   strstr(buf, "\"drain_mean\": 1.50, \"queue_full\": 4, \"requests\": 800,") &&
	   strstr(buf, "\"requests\": 800, \"sleeps\": 200, \"wakeups_per_req\": 0.2500,") &&
	   strstr(buf, "\"wakeups_per_req\": 0.2500, \"handoffs\": 6, \"combine_mean\": null,") &&
	   strstr(buf, "\"combine_mean\": null, \"owners\": 2, \"poll_us\": 900000,") &&
	   strstr(buf, "\"poll_us\": 900000, \"poll_cpus\": 0.4500 }") &&
	   strstr(buf, "\"backend_stats\": null"),
	   "JSON: ns/op (Go's) beside lat/op, run statistics, noisy, seed, backend stats");
	if (!has_python()) {
		skip("no python3", "JSON accepted by python3 json.load");
	} else {
		char out[256], path[] = "/tmp/kvbench-test-XXXXXX";
		int fd = mkstemp(path);

		if (fd >= 0) {
			if (write(fd, buf, len) != (ssize_t)len)
				fd = -1;
			close(fd);
		}
		ok(fd >= 0 && !run(out, sizeof(out), "python3 -m json.tool %s >/dev/null 2>&1",
				   path), "JSON accepted by python3 -m json.tool");
		unlink(path);
	}
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	kvb_print_json(f, &p, r, 0, &(struct kvb_outcome){ .interrupted = 1 });
	fclose(f);
	ok(json_valid(buf) && strstr(buf, "\"interrupted\": true"),
	   "JSON with no results (interrupted at once) is well-formed");
	free(buf);
	ok(!json_valid("{\"a\": 1,}") && !json_valid("[1 2]") && !json_valid("{\"a\": nan}") &&
	   !json_valid("\"x") && json_valid("{\"a\": [1, -2.5e3, true, null, \"\\u0001\"]}"),
	   "the JSON checker itself tells good from bad");

	snprintf(r[2].target, sizeof(r[2].target), "rcu");
	buf = NULL;
	f = open_memstream(&buf, &len);
	kvb_print_csv(f, r, 3);
	fclose(f);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int c = 1;

		for (i = 0; line[i]; i++)
			c += line[i] == ',';
		if (cols < 0)
			cols = c;
		else if (c != cols)
			same = 0;
		rows++;
	}
	ok(rows == 4 && same && cols == 47, "CSV: header + 3 rows, 47 columns each");
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	kvb_print_csv(f, r, 3);
	fclose(f);
	ok(strstr(buf, ",combine_mean,poll_cpus,owners,lat_min_ns,") &&
	   strstr(buf, ",0.2500,,0.4500,2,2000,") && strstr(buf, ",0,,,,,2000,"),
	   "CSV: poll_cpus and owners, empty without the backend's statistics");
	ok(strstr(buf, ",owners,lat_min_ns,lat_mean_ns,lat_max_ns,p90_ns,p9999_ns,ops_per") &&
	   strstr(buf, ",p9999_ns,ops_per_sec_median_ci_low,ops_per_sec_median_ci_high,") &&
	   strstr(buf, ",ops_per_sec_median_ci_high,ops_per_sec_median_ci_level,thread") &&
	   strstr(buf, ",ops_per_sec_median_ci_level,thread_ops_per_sec_min,thread_ops") &&
	   strstr(buf, ",thread_ops_per_sec_min,thread_ops_per_sec_max,thread_min_max_ratio\n") &&
	   strstr(buf, ",2,2000,2550.5,9500,2800,,,,,400000.0,400000.0,1.0000\n") &&
	   strstr(buf, ",1000,1200.0,1500,,,1.0,2.0,0.500000,400000.0,400000.0,1.0000\n"),
	   "CSV: the latency, median interval and fairness columns come last");
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	kvb_print_table(f, &p, r, 3, NULL);
	fclose(f);
	ok(strstr(buf, "ops/s") && strstr(buf, "p99.9") && strstr(buf, "rwlock") &&
	   strstr(buf, "90:10") && strstr(buf, "1 op in 64 timed") &&
	   strstr(buf, "seed: 7 (--seed 7 replays"),
	   "table has the columns, the rows and the sampling rate");
	ok(strstr(buf, " lat/op ") && strstr(buf, " ns/op ") && strstr(buf, "%!") &&
	   strstr(buf, "5000.0") && strstr(buf, "2500.0") && strstr(buf, "above 10%"),
	   "table: ns/op and lat/op side by side, the noisy case marked");
	ok(strstr(buf, " wake/req   poll\n") && strstr(buf, "    0.250  0.450\n") &&
	   strstr(buf, "        -      -\n") &&
	   strstr(buf, "\npoll = CPUs' worth of time the owner threads spent polling for work") &&
	   strstr(buf, "(sysfs poll_us over the case's wall time); 0 for backends without owners."),
	   "table: poll after wake/req, '-' without the backend's statistics, explained");
	free(buf);

	/* A module without poll_us and owners, and an empty window */
	r[1].bstats.has_poll = 0;
	r[2] = r[1];
	r[2].bstats.has_poll = 1;
	r[2].bstats.window_s = 0;
	buf = NULL;
	f = open_memstream(&buf, &len);
	kvb_print_json(f, &p, r + 1, 2, &(struct kvb_outcome){ .complete = 1 });
	fclose(f);
	ok(json_valid(buf) && strstr(buf, "\"combine_mean\": null }") &&
	   strstr(buf, "\"owners\": 2, \"poll_us\": 900000, \"poll_cpus\": null }") &&
	   count_of(buf, "\"owners\"") == 1,
	   "JSON: no owners or poll_us from a module without them; poll_cpus null when unknown");
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	kvb_print_csv(f, r + 1, 2);
	fclose(f);
	ok(count_of(buf, ",0.2500,,,,2000,") == 1 && count_of(buf, ",0.2500,,,2,2000,") == 1,
	   "CSV: poll_cpus empty when unknown, owners empty without the file");
	free(buf);
	r[1].ops = 1000;
	r[1].vcsw = 250;
	r[2].ops = 0;
	buf = NULL;
	f = open_memstream(&buf, &len);
	kvb_print_json(f, &p, r + 1, 2, &(struct kvb_outcome){ .complete = 1 });
	fclose(f);
	ok(json_valid(buf) && count_of(buf, "\"vcsw_per_op\": 0.2500,\n") == 1 &&
	   count_of(buf, "\"vcsw_per_op\": null,\n") == 1,
	   "JSON: vcsw_per_op, the threads' voluntary switches per op; null without ops");
	free(buf);
}

static void test_plan(const char *k);

static void test_cli(void)
{
	static char big[1 << 20];
	char out[32768];
	const char *k = kvbench_bin;
	int st;

	if (!k || access(k, X_OK)) {
		skip("no kvbench binary given", "command line tests");
		return;
	}
	st = run(out, sizeof(out), "%s --help 2>&1", k);
	ok(st == 0 && strstr(out, "get KEY"), "kvbench --help exits 0");
	st = run(out, sizeof(out), "%s 2>&1", k);
	ok(st == 2 && strstr(out, "missing command"), "no command: exit 2");
	st = run(out, sizeof(out), "%s frob 2>&1", k);
	ok(st == 2 && strstr(out, "unknown command 'frob'"), "unknown command: exit 2");
	st = run(out, sizeof(out), "%s --frob 2>&1", k);
	ok(st == 2 && strstr(out, "--frob"), "unknown option: exit 2");
	st = run(out, sizeof(out), "%s get 2>&1", k);
	ok(st == 2 && strstr(out, "kvbench get KEY"), "get without a key: exit 2");
	st = run(out, sizeof(out), "%s set a 2>&1", k);
	ok(st == 2, "set without a value: exit 2");
	st = run(out, sizeof(out), "%s get %0260d 2>&1", k, 1);
	ok(st == 2 && strstr(out, "1..250"), "key over KVBENCH_KEY_MAX: exit 2");
	st = run(out, sizeof(out), "%s -d /nonexistent/kvbench get x 2>&1", k);
	ok(st == 1 && strstr(out, "/nonexistent/kvbench") && strstr(out, "insmod") &&
	   strstr(out, "modprobe"), "missing device: exit 1, says how to load the module");
	st = run(out, sizeof(out), "%s -d /dev/null get x 2>&1", k);
	ok(st == 1 && strstr(out, "get 'x'"), "failing ioctl: exit 1, names the key");
	st = run(out, sizeof(out), "%s bench --help 2>&1", k);
	ok(st == 0 && strstr(out, "--backends"), "bench --help exits 0");
	st = run(out, sizeof(out), "%s bench --threads 0 2>&1", k);
	ok(st == 2 && strstr(out, "--threads"), "bench --threads 0: exit 2 naming the option");
	st = run(out, sizeof(out), "%s bench --mix 1:x 2>&1", k);
	ok(st == 2 && strstr(out, "--mix"), "bench bad --mix: exit 2");
	st = run(out, sizeof(out), "%s bench --dist pareto 2>&1", k);
	ok(st == 2 && strstr(out, "--dist"), "bench bad --dist: exit 2");
	st = run(out, sizeof(out), "%s bench --bogus 2>&1", k);
	ok(st == 2 && strstr(out, "--bogus"), "bench unknown option: exit 2");
	st = run(out, sizeof(out), "%s bench --keys 100000 --key-size 3 2>&1", k);
	ok(st == 2 && strstr(out, "--key-size"), "bench keys that do not fit: exit 2");
	st = run(out, sizeof(out), "%s bench -q -d /nonexistent -b nop -t 1 -D 10ms 2>&1", k);
	ok(st == 1 && strstr(out, "insmod"), "bench without the device: exit 1 with the hint");
	/* the report carries every case's histogram: room for a megabyte */
	st = run(big, sizeof(big),
		 "%s bench -q -b user-rwlock,user-owner -t 1-2 -m get,50:50 -n 2000 -w 0 -f json 2>/dev/null",
		 k);
	ok(st == 0 && strlen(big) + 1 < sizeof(big) && json_valid(big) &&
	   strstr(big, "user-owner"),
	   "bench on the userspace baselines: exit 0, valid JSON");
	st = run(out, sizeof(out),
		 "%s bench -q -b user-rwlock -t 1 -D 30ms -w 0 -f csv 2>/dev/null", k);
	ok(st == 0 && strstr(out, "user-rwlock,userspace,get"), "bench --format csv");
	st = run(out, sizeof(out), "%s plot 2>&1", k);
	ok(st == 2 && strstr(out, "REPORT.json"), "plot without arguments: exit 2");
	st = run(out, sizeof(out), "%s plot /nonexistent.json /tmp/x.png 2>&1", k);
	ok(st == 1 && strstr(out, "/nonexistent.json"), "plot of a missing file: exit 1");
	st = run(out, sizeof(out), "%s plot /nonexistent.json /tmp/x.txt 2>&1", k);
	ok(st == 2 && strstr(out, ".png, .svg, .jpg or .jpeg"),
	   "plot to x.txt: exit 2, the formats listed");
	st = run(out, sizeof(out),
		 "%s bench -q -b user-rwlock -t 1 -n 10 -w 0 --plot /tmp/x.gif 2>&1", k);
	ok(st == 2 && strstr(out, "--plot: /tmp/x.gif: unknown format '.gif'") &&
	   !strstr(out, "user-rwlock"),
	   "bench --plot x.gif: exit 2 before the run");
	st = run(out, sizeof(out), "%s plot --help", k);
	ok(st == 0 && strstr(out, "Usage: kvbench plot") && strstr(out, "relative to rwlock"),
	   "plot --help");
	if (run(out, sizeof(out), "command -v gnuplot >/dev/null 2>&1")) {
		skip("no gnuplot", "bench --json then kvbench plot draws a PNG");
		skip("no gnuplot", "plot of a CSV report: exit 1, it needs the JSON");
		skip("no gnuplot", "bench --plot draws the same figure as kvbench plot");
		skip("no gnuplot", "plot x.jpg: a JPEG, or exit 2 without gnuplot's jpeg terminal");
	} else {
		char dir[] = "/tmp/kvbench-test-XXXXXX";

		ok(mkdtemp(dir) &&
		   !run(out, sizeof(out),
			"%s bench -q -b user-rwlock -t 1-2 -D 20ms -w 0 -r 2 --json %s/r.json --csv %s/r.csv >/dev/null 2>&1 && %s plot %s/r.json %s/r.png 2>&1 && test -s %s/r.png",
			k, dir, dir, k, dir, dir, dir),
		   "bench --json then kvbench plot draws a PNG");
		st = run(out, sizeof(out), "%s plot %s/r.csv %s/c.png 2>&1", k, dir, dir);
		ok(st == 1 && strstr(out, "not a JSON report"),
		   "plot of a CSV report: exit 1, it needs the JSON");
		st = run(out, sizeof(out),
			 "%s bench -q -b user-rwlock -t 1 -n 100 -w 0 --plot %s/b.svg >/dev/null 2>&1 && grep -c 'kvbench: throughput and latency' %s/b.svg",
			 k, dir, dir);
		ok(st == 0 && atoi(out) >= 1,
		   "bench --plot draws the same figure as kvbench plot");
		st = run(out, sizeof(out),
			 "%s plot %s/r.json %s/r.jpg 2>&1 && od -An -tx1 -N3 %s/r.jpg",
			 k, dir, dir, dir);
		ok((st == 0 && strstr(out, "ff d8 ff")) ||
		   (st == 2 && strstr(out, "no jpeg terminal")),
		   "plot x.jpg: a JPEG, or exit 2 without gnuplot's jpeg terminal (%s)",
		   st ? "exit 2" : "a JPEG");
		run(out, sizeof(out), "rm -rf %s", dir);
	}
	st = run(out, sizeof(out),
		 "timeout --preserve-status -s INT 1 %s bench -q -b user-rwlock -t 1 -w 0 -D 20s -f json 2>/dev/null",
		 k);
	ok(st == 130 && json_valid(out) && strstr(out, "\"interrupted\": true") &&
	   strstr(out, "user-rwlock"),
	   "Ctrl-C stops, prints what was measured, exits 130");
	test_plan(k);
}

/* A file's contents (NUL-terminated, at most len - 1 bytes), or "". */
static void slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = 0;
}

/* --dry-run, --budget, and reports written while the run goes on. */
static void test_plan(const char *k)
{
	char out[8192], json[16384], dir[] = "/tmp/kvbench-test-XXXXXX";
	int st;

	st = run(out, sizeof(out),
		 "%s bench --dry-run -d /nonexistent -b all -t 1,2 -m get,90:10 --batch 1,64 -r 3 2>&1",
		 k);
	ok(st == 0 && strstr(out, "kthread-percpu") &&
	   strstr(out, "kvbench: 66 cases x 3 rounds, about "),
	   "bench --dry-run prints the plan and its estimate without the device");
	st = run(out, sizeof(out),
		 "%s bench --dry-run -b nop,user-rwlock,user-owner,bpf-htab,rcu -t 1,2 -m get,set --batch 1,64 --fd both -r 1 2>&1",
		 k);
	ok(st == 0 && strstr(out, "\nnop                   4      4 ") &&
	   strstr(out, "\nuser-rwlock           4      4 ") &&
	   strstr(out, "\nuser-owner            4      4 ") &&
	   strstr(out, "\nbpf-htab              8      8 ") &&
	   strstr(out, "\nrcu                  16     16 ") &&
	   strstr(out, "kvbench: 36 cases x 1 round, about "),
	   "--fd both: nop and kernel backends per fd mode; the baselines and bpf-htab once; batches for kernel and bpf-htab");
	st = run(out, sizeof(out),
		 "%s bench --dry-run -b nop,user-rwlock,bpf-htab,rcu -t 1,2 -m get --batch 1,64 --multi 64,8 -r 1 2>&1",
		 k);
	ok(st == 0 && strstr(out, "\nnop                   2      2 ") &&
	   strstr(out, "\nuser-rwlock           2      2 ") &&
	   strstr(out, "\nbpf-htab              4      4 ") &&
	   strstr(out, "\nrcu                   8      8 ") &&
	   strstr(out, "kvbench: 16 cases x 1 round, about "),
	   "--multi 64,8: two more cases per thread count for the kernel backends only");
	st = run(out, sizeof(out), "%s bench --dry-run -b rcu --multi 0 2>&1", k);
	ok(st == 2 && strstr(out, "--multi"), "--multi 0: a usage error");
	st = run(out, sizeof(out), "%s bench --dry-run -b rcu --multi 257 2>&1", k);
	ok(st == 2 && strstr(out, "--multi"),
	   "--multi 257 (above KVBENCH_BATCH_MAX): a usage error");
	st = run(out, sizeof(out),
		 "%s bench --dry-run -b rcu -t 1 -m get --batch 1 --multi 1-4 -r 1 2>&1", k);
	ok(st == 0 && strstr(out, "\nrcu                   5      5 "),
	   "--multi 1-4: a range, as --batch");
	st = run(out, sizeof(out), "%s bench --dry-run -b nop,rcu -t 1 -m get --multi 64 -r 1 2>&1",
		 k);
	ok(st == 0 && strstr(out, "\nnop                   1      1 ") &&
	   strstr(out, "\nrcu                   1      1 ") &&
	   strstr(out, "kvbench: 2 cases x 1 round, about "),
	   "--multi without --batch: only packed calls for the kernel backends, batch 1 for the rest");
	st = run(out, sizeof(out),
		 "%s bench -q -b user-rwlock -t 1 -m get --fd both -n 500 -w 0 -f json 2>/dev/null",
		 k);
	ok(st == 0 && json_valid(out) && strstr(out, "\"fd\": null") &&
	   strstr(out, "\"backend\": \"user-rwlock\"") &&
	   !strstr(strstr(out, "\"backend\": \"user-rwlock\"") + 1, "\"backend\":"),
	   "--fd both: a baseline runs once, its fd null in the JSON");
	st = run(out, sizeof(out), "%s bench --dry-run --cpus 64 -b nop 2>&1", k);
	ok(st == 0 && strstr(out, "threads 1,2,4,8,16,32,64\n"),
	   "bench --dry-run --cpus 64 plans pow2 threads for 64 CPUs");
	st = run(out, sizeof(out), "%s bench --cpus 1024 -b nop 2>&1", k);
	ok(st == 2 && strstr(out, "--cpus") && strstr(out, "not 1024"),
	   "bench --cpus beyond the CPUs it may use: exit 2");
	st = run(out, sizeof(out), "%s bench --budget 0 2>&1", k);
	ok(st == 2 && strstr(out, "--budget"), "bench --budget 0: exit 2 naming the option");
	st = run(out, sizeof(out),
		 "%s bench --dry-run -b user-rwlock -t 1 -m get,set -D 1 -r 5 --budget 3 2>&1", k);
	ok(st == 0 && strstr(out, "5 rounds (runs per case) would take about") &&
	   strstr(out, "1 round instead") && strstr(out, "2 cases x 1 round, about 3 s"),
	   "bench --budget cuts the repeats first, and says so");
	if (!mkdtemp(dir)) {
		skip("no temporary directory", "bench --budget skips what does not fit");
		skip("no temporary directory", "bench reports survive a SIGKILL midway");
		skip("no temporary directory", "bench checks its output paths first");
		return;
	}
	/* a case is about 0.26 s: the first fits 0.3 s, the second cannot */
	st = run(out, sizeof(out),
		 "%s bench -q --order sequential -b user-rwlock -t 1 -m get,set,90:10 -D 0.2 -w 0 --budget 0.3 --json %s/b.json 2>&1",
		 k, dir);
	snprintf(json, sizeof(json), "%s/b.json", dir);
	slurp(json, json, sizeof(json));
	ok(st == 0 && json_valid(json) && strstr(json, "\"skipped_cases\": 2") &&
	   strstr(json, "\"why\": \"the --budget of 0.3 s ran out\"") &&
	   strstr(json, "\"complete\": true") && strstr(json, "\"budget_s\": 0") &&
	   strstr(out, "2 of 3 cases skipped, from 'user-rwlock set"),
	   "bench --budget skips the cases that do not fit and says which");
	st = run(out, sizeof(out),
		 "%s bench -q -b user-rwlock -t 1 -m get,set,90:10,50:50 -D 0.3 -w 0 -r 1 --json %s/k.json --csv %s/k.csv & sleep 0.8; kill -9 $!; wait",
		 k, dir, dir);
	snprintf(json, sizeof(json), "%s/k.json", dir);
	slurp(json, json, sizeof(json));
	ok(json_valid(json) && strstr(json, "\"complete\": false") &&
	   strstr(json, "\"backend\": \"user-rwlock\"") &&
	   !run(out, sizeof(out), "grep -q '^user-rwlock,userspace,' %s/k.csv", dir),
	   "bench reports survive a SIGKILL midway, with the cases finished");
	st = run(out, sizeof(out),
		 "%s bench -b user-rwlock -t 1 -D 5 --json %s/no/such/dir/x.json 2>&1", k, dir);
	ok(st == 1 && strstr(out, "no/such/dir/x.json") && !strstr(out, "[1/"),
	   "bench checks its output paths before it runs a case");
	run(out, sizeof(out), "rm -rf %s", dir);
}

/*
 * The labels of a shuffled run's progress lines, in the order they ran
 * ("kvbench: [round 1/2, 3/4] LABEL 123 ops/s"), one per line.
 */
static void run_order(const char *out, char *buf, size_t len)
{
	const char *l = out, *a, *e, *sp;
	size_t n = 0;

	buf[0] = 0;
	while ((a = strstr(l, "kvbench: [round ")) && (e = strstr(a, " ops/s"))) {
		a = strstr(a, "] ");
		if (!a || a > e)
			break;
		a += 2;
		for (sp = e - 1; sp > a && *sp != ' '; sp--)
			;
		if (n + (sp - a) + 2 < len) {
			memcpy(buf + n, a, sp - a);
			n += sp - a;
			buf[n++] = '\n';
			buf[n] = 0;
		}
		l = e + 1;
	}
}

/* --order shuffled (the default): rounds, their order, and the budget. */
static void test_rounds(const char *k)
{
	unsigned int o[100], o2[100], seen[100], i, r, n, perm = 1, same = 1;
	unsigned int differ = 0, seeds_differ = 0;
	char out[16384], out2[16384], a[4096], b[4096];
	char json[65536], dir[] = "/tmp/kvbench-rounds-XXXXXX";
	const char *small = "-b user-rwlock -t 1,2 -m get,set -n 300 -w 0 -r 3", *x;
	int st, runs_ok, nres;

	for (n = 1; n <= 100; n += 33) {
		for (r = 0; r < 5; r++) {
			kvb_round_order(7, r, o, n);
			memset(seen, 0, sizeof(seen));
			for (i = 0; i < n; i++)
				if (o[i] < n)
					seen[o[i]]++;
			for (i = 0; i < n; i++)
				perm &= seen[i] == 1;
			kvb_round_order(7, r, o2, n);
			same &= !memcmp(o, o2, n * sizeof(*o));
		}
	}
	ok(perm && same,
	   "kvb_round_order: a permutation of 0..n-1, the same for the same seed and round");
	kvb_round_order(7, 0, o, 40);
	for (r = 1; r < 10; r++) {
		kvb_round_order(7, r, o2, 40);
		differ += !!memcmp(o, o2, 40 * sizeof(*o));
		kvb_round_order(8, r, o, 40);
		kvb_round_order(9, r, seen, 40);
		seeds_differ += !!memcmp(o, seen, 40 * sizeof(*o));
		kvb_round_order(7, 0, o, 40);
	}
	for (i = 0; i < 40 && o[i] == i; i++)
		;
	ok(differ == 9 && seeds_differ == 9 && i < 40,
	   "kvb_round_order: every round its own order, another seed another, not the identity");

	if (!k) {
		skip("no kvbench binary given", "bench rounds");
		return;
	}
	st = run(out, sizeof(out),
		 "%s bench --dry-run -b rcu,user-rwlock -t 1,2 -m get,set -r 4 2>&1", k);
	st |= run(out2, sizeof(out2),
		  "%s bench --dry-run --order sequential -b rcu,user-rwlock -t 1,2 -m get,set -r 4 2>&1",
		  k);
	ok(!st && strstr(out, "rounds of every case once, each in its own shuffled order") &&
	   strstr(out, "\nrcu                   4     16 ") &&
	   strstr(out, "kvbench: 8 cases x 4 rounds, about ") &&
	   strstr(out2, "each case's runs back to back") &&
	   strstr(out2, "kvbench: 8 cases x 4 runs, about "),
	   "bench --dry-run: the plan counts rounds (shuffled) or runs per case (sequential)");
	{
		const char *x1 = strstr(out, "4 rounds, about ");
		const char *x2 = strstr(out2, "4 runs, about ");
		double e1 = x1 ? atof(x1 + 16) : 0, e2 = x2 ? atof(x2 + 14) : 0;

		ok(e1 > e2,
		   "bench --dry-run: shuffled, each run begins its target again: %g s > %g s",
		   e1, e2);
	}
	st = run(out, sizeof(out),
		 "%s bench --dry-run -b rcu -t 1 -m get -r 4 --after set 2>&1", k);
	{
		const char *x3 = strstr(out, "4 rounds, about ");
		double e3 = x3 ? atof(x3 + 16) : 0;

		run(out2, sizeof(out2), "%s bench --dry-run -b rcu -t 1 -m get -r 4 2>&1", k);
		x3 = strstr(out2, "4 rounds, about ");
		ok(!st && x3 && e3 > 1.5 * atof(x3 + 16),
		   "bench --dry-run --after set: each run has a run of SETs before it (%g s)", e3);
	}
	st = run(out, sizeof(out), "%s bench --dry-run --after 50:x 2>&1", k);
	ok(st == 2 && strstr(out, "--after"), "bench --after 50:x: exit 2 naming the option");
	st = run(out, sizeof(out), "%s bench --dry-run --order random 2>&1", k);
	ok(st == 2 && strstr(out, "--order") && strstr(out, "shuffled or sequential"),
	   "bench --order random: exit 2, the two orders named");

	st = run(out, sizeof(out), "%s bench %s --seed 11 -f csv 2>&1", k, small);
	st |= run(out2, sizeof(out2), "%s bench %s --seed 11 -f csv 2>&1", k, small);
	run_order(out, a, sizeof(a));
	run_order(out2, b, sizeof(b));
	ok(!st && strstr(out, "seed 11") && strlen(a) > 0 && !strcmp(a, b) &&
	   strstr(out, "[round 3/3, 4/4] "),
	   "bench --seed 11 twice: the same order of runs, round by round");
	st = run(out2, sizeof(out2), "%s bench %s --seed 12 -f csv 2>&1", k, small);
	run_order(out2, b, sizeof(b));
	ok(!st && strlen(b) == strlen(a) && strcmp(a, b),
	   "bench --seed 12: another order of the same runs");
	for (i = 0, x = a; (x = strchr(x, '\n')); x++)
		i++;
	ok(i == 12, "bench -r 3, 4 cases: 12 runs, one progress line each (%u)", i);

	if (!mkdtemp(dir)) {
		skip("no temporary directory", "bench rounds: JSON and budget");
		return;
	}
	st = run(out, sizeof(out),
		 "%s bench -q -b user-rwlock -t 1 -m get,set -n 300 -w 0 -r 2 --json %s/r.json 2>&1 >/dev/null",
		 k, dir);
	snprintf(json, sizeof(json), "%s/r.json", dir);
	slurp(json, json, sizeof(json));
	ok(!st && json_valid(json) && strstr(json, "\"order\": \"shuffled\"") &&
	   strstr(json, "\"rounds\": [0, 1]") && strstr(json, "\"settle\": ") &&
	   strstr(json, "\"after\": null"),
	   "bench JSON: the order, and each run's round");
	st = run(out, sizeof(out),
		 "%s bench -q --order sequential -b user-rwlock -t 1 -m get -n 300 -w 0 -r 2 --no-settle --after 90:10 --json %s/s.json 2>&1 >/dev/null",
		 k, dir);
	snprintf(json, sizeof(json), "%s/s.json", dir);
	slurp(json, json, sizeof(json));
	ok(!st && json_valid(json) && strstr(json, "\"order\": \"sequential\"") &&
	   strstr(json, "\"settle\": false") && strstr(json, "\"rounds\": [0, 1]") &&
	   strstr(json, "\"after\": \"90:10\""),
	   "bench --order sequential --no-settle --after 90:10: said in the JSON");
	/* --after over two mixes: round by round in turn, and the end says */
	st = run(out, sizeof(out),
		 "%s bench -b user-rwlock -t 1 -m get -n 300 -w 0 -r 6 --after set,get --json %s/o.json 2>/dev/null",
		 k, dir);
	snprintf(json, sizeof(json), "%s/o.json", dir);
	ok(!st &&
	   strstr(out, "the case before a run: each case's runs after get set against") &&
	   strstr(out, " its\nruns after set (interleaved") &&
	   strstr(out, "  user-rwlock get t=1 b=1 ") && strstr(out, "  1 case: "),
	   "bench --after set,get: each case's runs after get set against those after set");
	st = run(out2, sizeof(out2), "%s report %s 2>&1", k, json);
	{
		const char *a = strstr(out, "\nthe case before a run");
		const char *b = strstr(out2, "\nthe case before a run");
		const char *e = a ? strstr(a, " neither\n") : NULL;

		ok(!st && a && b && e && !strncmp(a, b, e - a),
		   "report of that JSON: the same lines from its rounds");
	}
	slurp(json, json, sizeof(json));
	ok(strstr(json, "\"after\": \"set,get\"") && strstr(json, "\"rounds\": [0, 1, 2, 3, 4, 5]"),
	   "bench --after set,get: both in the JSON, with each run's round");
	st = run(out, sizeof(out), "%s bench --dry-run --after set,get,del,90:10,50:50 2>&1", k);
	ok(st == 2 && strstr(out, "--after") && strstr(out, "at most 4 mixes"),
	   "bench --after with 5 mixes: exit 2, at most 4");

	/* the estimate fits 2 rounds of 10 in 1 s: every case gets 2 runs */
	st = run(out, sizeof(out),
		 "%s bench -b user-rwlock -t 1 -m get,set,90:10 -D 0.05 -w 0 -r 10 --budget 1 --json %s/f.json 2>&1 >/dev/null",
		 k, dir);
	snprintf(json, sizeof(json), "%s/f.json", dir);
	slurp(json, json, sizeof(json));
	/* the results' "runs", not the verdict's */
	for (nres = 0, runs_ok = 1, x = json; (x = strstr(x, "\n      \"runs\": ")); x++, nres++)
		runs_ok &= !strncmp(x + 7, "\"runs\": 2,", 10);
	ok(!st && strstr(out, "10 rounds (runs per case) would take about") &&
	   strstr(out, "2 rounds instead") && nres == 3 && runs_ok &&
	   strstr(json, "\"skipped_cases\": 0"),
	   "bench --budget cuts rounds: 2 of 10, every case 2 runs, none skipped");
	/*
	 * Runs of 4M operations take far longer than the plan's estimate
	 * (-n: no duration in it), so the budget runs out while the run goes
	 * on: rounds stop whole, every case keeps as many runs as the others.
	 */
	st = run(out, sizeof(out),
		 "%s bench -b user-rwlock -t 1 -m get,set -n 4M -w 0 -r 8 --budget 1.2 --json %s/c.json 2>&1 >/dev/null",
		 k, dir);
	snprintf(json, sizeof(json), "%s/c.json", dir);
	slurp(json, json, sizeof(json));
	{
		int first = -1, same_runs = 1;

		for (nres = 0, x = json; (x = strstr(x, "\n      \"runs\": ")); x++, nres++) {
			int v = atoi(x + 15);

			if (first < 0)
				first = v;
			same_runs &= v == first;
		}
		/*
		 * On a slow host (a sanitizer build) the first round itself
		 * may not fit: then its second case is skipped, as when one
		 * round does not fit the plan; either way no case has more
		 * runs than another.
		 */
		ok(!st && same_runs && first >= 1 && first < 8 &&
		   strstr(out, "rounds run, every case") &&
		   (nres == 2 ? !!strstr(json, "\"skipped_cases\": 0") :
		    nres == 1 && !!strstr(json, "\"skipped_cases\": 1")),
		   "bench --budget running out midway stops at a round's end: %d runs each of 8",
		   first);
	}
	run(out, sizeof(out), "rm -rf %s", dir);
}

/* Suffixes: SI and binary for counts, time units for durations; no guessing. */
static void test_suffixes(void)
{
	static const struct {
		const char *s;
		unsigned long long v;
	} counts[] = {
		{ "7", 7 }, { "4k", 4000 }, { "2M", 2000000 }, { "3G", 3000000000ULL },
		{ "4Ki", 4096 }, { "2Mi", 2 << 20 }, { "3Gi", 3ULL << 30 },
	};
	static const char * const bad_counts[] = {
		"1m", "4K", "1g", "2kb", "1KiB", "3mi", "1 k", "1.5k", "k1",
	};
	static const struct {
		const char *s;
		double sec;
	} durations[] = {
		{ "2", 2 }, { "250us", 0.00025 }, { "500ms", 0.5 }, { "1.5s", 1.5 },
		{ "10m", 600 }, { ".5", 0.5 },
	};
	static const char * const bad_durations[] = {
		"1h", "1M", "5sec", "2 s", "1mi", "1ns", "ms", "2S", "1d", "inf",
	};
	unsigned long long v;
	char err[256];
	double sec;
	size_t i;
	int good = 1;

	for (i = 0; i < ARRAY_SIZE(counts); i++) {
		v = 0;
		if (kvb_parse_count(counts[i].s, 0, 1ULL << 40, &v, err, sizeof(err)) ||
		    v != counts[i].v) {
			printf("# count '%s': %llu, want %llu\n", counts[i].s, v, counts[i].v);
			good = 0;
		}
	}
	ok(good, "counts: k, M, G are x1000, Ki, Mi, Gi are x1024");
	good = 1;
	for (i = 0; i < ARRAY_SIZE(bad_counts); i++) {
		err[0] = 0;
		if (!kvb_parse_count(bad_counts[i], 0, 1ULL << 40, &v, err, sizeof(err)) ||
		    !strstr(err, bad_counts[i])) {
			printf("# count '%s' accepted or not named: %s\n", bad_counts[i], err);
			good = 0;
		}
	}
	ok(good, "counts: m, K, g and other suffixes are refused, naming the input");
	ok(kvb_parse_count("1m", 0, 1ULL << 40, &v, err, sizeof(err)) &&
	   strstr(err, "Ki, Mi, Gi") && strstr(err, "k, M, G"),
	   "a refused count suffix says which ones exist");
	good = 1;
	for (i = 0; i < ARRAY_SIZE(durations); i++) {
		sec = -1;
		if (kvb_parse_seconds(durations[i].s, &sec, err, sizeof(err)) ||
		    fabs(sec - durations[i].sec) > 0.000000000001) {
			printf("# duration '%s': %g, want %g\n", durations[i].s, sec,
			       durations[i].sec);
			good = 0;
		}
	}
	ok(good, "durations: seconds, us, ms, s and m (minutes)");
	good = 1;
	for (i = 0; i < ARRAY_SIZE(bad_durations); i++) {
		err[0] = 0;
		if (!kvb_parse_seconds(bad_durations[i], &sec, err, sizeof(err)) ||
		    !strstr(err, bad_durations[i])) {
			printf("# duration '%s' accepted or not named: %s\n",
			       bad_durations[i], err);
			good = 0;
		}
	}
	ok(good, "durations: h, M, sec and other units are refused, naming the input");
}

/* One meaning per option letter; getopt's own message for a missing argument. */
static void test_cli_options(const char *k)
{
	char out[8192];
	int st;

	if (!k || access(k, X_OK)) {
		skip("no kvbench binary given", "command line option tests");
		return;
	}
	st = run(out, sizeof(out), "%s -b 100 get x 2>&1", k);
	ok(st == 2 && strstr(out, "invalid option -- 'b'") && strstr(out, "kvbench --help"),
	   "-b is not an option at the top level (it is bench's --backends)");
	st = run(out, sizeof(out), "%s compare --alpha 2>&1", k);
	ok(st == 2 && strstr(out, "kvbench compare: option '--alpha' requires an argument"),
	   "compare --alpha without its argument: getopt's message, exit 2");
	st = run(out, sizeof(out), "%s compare --bogus a b 2>&1", k);
	ok(st == 2 && strstr(out, "kvbench compare: unrecognized option '--bogus'"),
	   "compare --bogus: getopt's message, exit 2");
	st = run(out, sizeof(out), "%s --buffer-size 1Ki -d /dev/null get x 2>&1", k);
	ok(st == 1 && strstr(out, "get 'x'"), "--buffer-size takes a count (1Ki)");
	st = run(out, sizeof(out), "%s --buffer-size 1m get x 2>&1", k);
	ok(st == 2 && strstr(out, "--buffer-size") && strstr(out, "'1m'"),
	   "--buffer-size 1m: exit 2, an ambiguous suffix");
	st = run(out, sizeof(out), "%s -d 2>&1", k);
	ok(st == 2 && strstr(out, "kvbench: option requires an argument -- 'd'"),
	   "-d without its argument: getopt's 'requires an argument', exit 2");
	st = run(out, sizeof(out), "%s --device 2>&1", k);
	ok(st == 2 && strstr(out, "option '--device' requires an argument"),
	   "--device without its argument: 'requires an argument', exit 2");
	st = run(out, sizeof(out), "%s bench --keys 2>&1", k);
	ok(st == 2 && strstr(out, "kvbench bench: option '--keys' requires an argument") &&
	   strstr(out, "kvbench bench --help"),
	   "bench --keys without its argument: 'requires an argument', exit 2");
	st = run(out, sizeof(out), "%s bench -q -t 2>&1", k);
	ok(st == 2 && strstr(out, "option requires an argument -- 't'"),
	   "bench -t without its argument: 'requires an argument', exit 2");
	st = run(out, sizeof(out), "%s bench --dry-run -b nop -t 1 -k 1m 2>&1", k);
	ok(st == 2 && strstr(out, "--keys") && strstr(out, "'1m'"),
	   "bench -k 1m: exit 2 (M or Mi?)");
	st = run(out, sizeof(out), "%s bench --dry-run -b nop -t 1 -D 1h 2>&1", k);
	ok(st == 2 && strstr(out, "--duration") && strstr(out, "'1h'"),
	   "bench -D 1h: exit 2 (no such unit)");
	st = run(out, sizeof(out), "%s bench --dry-run -b nop -t 1 --budget 1M 2>&1", k);
	ok(st == 2 && strstr(out, "--budget") && strstr(out, "'1M'"),
	   "bench --budget 1M: exit 2 (a count suffix is no duration)");
	st = run(out, sizeof(out), "%s bench --dry-run -b nop -t 1 -k 2Ki --budget 10m 2>&1", k);
	ok(st == 0 && strstr(out, "about"), "bench -k 2Ki --budget 10m is accepted");
}

/* The table: columns line up for any name, skipped cases, oversubscription. */
static void test_table(const char *k)
{
	static const char * const names[] = { "nop", "kthread-percpu", "rcu" };
	struct kvb_skip skips[2] = {
		{ "rwlock get threads=1 batch=1 fd=per-thread", "the --budget of 5 s ran out" },
		{ "kthread get threads=1 batch=1 fd=per-thread",
		  "/dev/kvbench: Permission denied" },
	};
	struct kvb_outcome o = { .complete = 1, .skips = skips, .nskips = 2 };
	struct kvb_result r[3];
	struct kvb_params p;
	double runs[2] = { 1, 2 };
	char *buf = NULL, *line, *save, out[16384];
	size_t len = 0, hlen = 0;
	unsigned int thr[2] = { 1, 4 };
	int rows = 0, aligned = 1, marked = 0, i, st;
	FILE *f;

	kvb_params_defaults(&p);
	p.repeat = 1;	/* one run: these count what one run does */
	p.ncpus = 2;
	p.threads.v = thr;
	p.threads.n = 2;
	fake_results(r, runs);
	for (i = 0; i < 3; i++)
		snprintf(r[i].target, sizeof(r[i].target), "%s", names[i]);
	r[2].mix = (struct kvb_mix){ .get = 50, .set = 25, .del = 25 };
	r[2].threads = 4;
	kvb_compute_ratios(r, 3);
	f = open_memstream(&buf, &len);
	kvb_print_table(f, &p, r, 3, &o);
	fclose(f);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "backend ", 8)) {
			hlen = strlen(line);
			continue;
		}
		if (!hlen || rows == 3)
			continue;
		rows++;
		/* every row as long as the header: fixed-width cells after the name */
		if (strlen(line) != hlen) {
			printf("# %zu vs header %zu: %s\n", strlen(line), hlen, line);
			aligned = 0;
		}
		marked += !!strstr(line, "   4* ");
	}
	ok(rows == 3 && aligned, "table: kthread-percpu and 50:25:25 rows line up with the header");
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	kvb_print_table(f, &p, r, 3, &o);
	fclose(f);
	ok(marked == 1 && strstr(buf, "* 1 case ran more threads than the 2 CPUs used"),
	   "table: a case with more threads than CPUs is marked and footnoted");
	ok(strstr(buf, "skipped: 2 cases did not run") &&
	   strstr(buf, "rwlock get threads=1 batch=1 fd=per-thread") &&
	   strstr(buf, "the --budget of 5 s ran out") && strstr(buf, "Permission denied"),
	   "table: the skipped cases are listed with the reason");
	ok(kvb_oversubscribed(&p) == 4, "kvb_oversubscribed: 4 threads on 2 CPUs");
	p.threads.n = 1;
	ok(!kvb_oversubscribed(&p), "kvb_oversubscribed: 1 thread on 2 CPUs is not");
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	kvb_print_table(f, &p, r, 2, NULL);
	fclose(f);
	ok(!strstr(buf, "skipped") && !strstr(buf, "more threads than"),
	   "table: no footnotes when nothing was skipped or oversubscribed");
	free(buf);

	if (!k || access(k, X_OK)) {
		skip("no kvbench binary given", "bench warns when threads exceed CPUs");
		skip("no kvbench binary given", "bench lists the cases it could not run");
		return;
	}
	st = run(out, sizeof(out),
		 "%s bench -q --cpus 1 -b user-rwlock -t 1,3 -m get -n 200 -w 0 2>&1", k);
	ok(st == 0 && strstr(out, "warning: up to 3 threads on 1 CPU") &&
	   strstr(out, "* 1 case ran more threads than the 1 CPU used"),
	   "bench warns (stderr and footnote) when threads exceed CPUs");
	st = run(out, sizeof(out),
		 "%s bench -q -d /nonexistent/kvbench -b nop,user-rwlock -t 1 -m get -n 200 -w 0 2>/dev/null",
		 k);
	ok(st == 1 && strstr(out, "user-rwlock ") && strstr(out, "skipped: 1 case did not run") &&
	   strstr(out, "nop nop threads=1") && strstr(out, "No such file or directory"),
	   "bench lists the cases it could not run, and why");
	st = run(out, sizeof(out),
		 "%s bench -q --order sequential -b user-rwlock -t 1 -m get,set -D 0.2 -w 0 --budget 0.3 2>/dev/null",
		 k);
	ok(st == 0 && strstr(out, "skipped: 1 case did not run") &&
	   strstr(out, "user-rwlock set threads=1") && strstr(out, "the --budget of 0.3 s ran out"),
	   "bench lists the cases the budget left out");
}

/*
 * A report for the figure: 2 CPUs; nop, rwlock and rcu at 1, 2 and 4
 * threads (4 oversubscribed), get and 50:50, then rwlock at BATCH(64).
 * rwlock's runs are 90, 100 and 110 x threads (median 100 x threads), rcu's
 * twice that; p50 = 1000 x threads ns, p99 ten times it.
 */
static void plot_report(char *buf, size_t len, const char *schema, int prov)
{
	static const char * const mixes[] = { "get", "50:50" };
	static const unsigned int thr[] = { 1, 2, 4 };
	size_t n;
	int t, m, b, i;

	n = snprintf(buf, len, "{\"schema\": \"%s\", \"date\": \"%s\", %s", schema,
		     "2026-01-02T03:04:05Z",
		     "\"kernel\": \"6.99.0-test\", \"machine\": \"x86_64\", \"cpus\": 2, ");
	if (prov)
		n += snprintf(buf + n, len - n, "%s%s%s",
			      "\"provenance\": {\"git_describe\": \"v9-3-gabc\", ",
			      "\"cpu_model\": \"TestCPU 3000\", \"nproc\": 2, \"accel\": \"kvm\"}, ",
			      "\"params\": {\"keys\": 1024, \"key_size\": 16, \"value_size\": 64, \"dist\": \"uniform\", \"repeat\": 3, \"duration_s\": 1.0}, ");
	n += snprintf(buf + n, len - n, "\"results\": [");
	for (i = 0; i < 3; i++)
		n += snprintf(buf + n, len - n, "%s{%s, \"threads\": %u, %s, %s: %u, %s: [%u], %s}",
			      i ? ", " : "",
			      "\"backend\": \"nop\", \"kind\": \"floor\", \"mix\": {\"name\": \"nop\"}",
			      thr[i], "\"batch\": 1, \"fd\": \"per-thread\", \"io\": \"ioctl\"",
			      "\"ops_per_sec\"", 1000 * thr[i],
			      "\"ops_per_sec_runs\"", 1000 * thr[i],
			      "\"latency_ns\": {\"p50\": 500, \"p99\": 900}");
	for (b = 0; b < 2; b++)
		for (m = 0; m < 2 - b; m++)
			for (t = 0; t < 2 - b; t++)
				for (i = 0; i < 3; i++) {
					unsigned int k = (t + 1) * thr[i] * (b ? 10 : 1);

					n += snprintf(buf + n, len - n,
						      ", {\"backend\": \"%s\", \"kind\": \"kernel\", \"mix\": {\"name\": \"%s\"}, \"threads\": %u, \"batch\": %d, \"fd\": \"per-thread\", \"io\": \"ioctl\", \"ops_per_sec\": %u, \"ops_per_sec_runs\": [%u, %u, %u], \"latency_ns\": {\"p50\": %u, \"p99\": %u}}",
						      t ? "rcu" : "rwlock", mixes[m], thr[i],
						      b ? 64 : 1, 100 * k, 90 * k, 100 * k, 110 * k,
						      1000 * thr[i], 10000 * thr[i]);
				}
	snprintf(buf + n, len - n, "]}");
}

/* The gnuplot script for a report in text (NULL: an error, in err). */
static char *plot_text(const char *text, const char *file, char *err, size_t errlen)
{
	struct kvb_rmodel root;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	if (kvb_rmodel_parse(text, &root, err, errlen))
		return NULL;
	f = open_memstream(&buf, &len);
	if (!f) {
		kvb_rmodel_free(&root);
		return NULL;
	}
	rc = kvb_plot_script(f, file, &root, err, errlen);
	fclose(f);
	kvb_rmodel_free(&root);
	if (rc) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* PNG: the width and height in the IHDR chunk, or 0. */
static void png_size(const char *path, unsigned int *w, unsigned int *h)
{
	unsigned char b[24] = { 0 };
	FILE *f = fopen(path, "re");

	*w = 0;
	*h = 0;
	if (!f)
		return;
	if (fread(b, 1, sizeof(b), f) == sizeof(b) && !memcmp(b, "\x89PNG", 4) &&
	    !memcmp(b + 12, "IHDR", 4)) {
		*w = (unsigned int)b[16] << 24 | b[17] << 16 | b[18] << 8 | b[19];
		*h = (unsigned int)b[20] << 24 | b[21] << 16 | b[22] << 8 | b[23];
	}
	fclose(f);
}

/* The figure: whiskers, oversubscription, the ratio to rwlock, the caption. */
static void test_plot(void)
{
	static char rep[16384];
	char *buf, err[256], out[512], dir[] = "/tmp/kvbench-test-XXXXXX", path[64];
	unsigned int w, h;

	plot_report(rep, sizeof(rep), "kvbench-bench/2", 1);
	buf = plot_text(rep, "x.png", err, sizeof(err));
	ok(buf && strstr(buf, "set terminal pngcairo") && strstr(buf, "set output 'x.png'"),
	   "plot: a script for a report, a PNG for .png (%s)", buf ? "" : err);
	if (!buf)
		buf = strdup("");
	/* rwlock at 2 threads: x dodged, threads, median, slowest, fastest, over */
	ok(strstr(buf, " 2 200 180 220 0\n") && strstr(buf, " 1 100 90 110 0\n") &&
	   strstr(buf, ":4:5 with yerrorbars") && strstr(buf, "title 'runs: slowest..fastest'"),
	   "plot: whiskers from the slowest to the fastest run");
	ok(strstr(buf, " 4 400 360 440 1\n") &&
	   strstr(buf, "using 1:($6 > 0 ? $3 : NaN):4:5 with yerrorbars pt 6 ") &&
	   strstr(buf, "set object 1 rect from 2.82843,") &&
	   strstr(buf, "title 'threads > 2 CPUs (shaded)'"),
	   "plot: 4 threads on 2 CPUs hollow, shaded, in the legend");
	ok(strstr(buf, "$R0 << EOD\n# nop / rwlock\n") && strstr(buf, "# rwlock / rwlock\n") &&
	   strstr(buf, " 2 0\n") && strstr(buf, " 1 0\n") && strstr(buf, " 10 0\n") &&
	   strstr(buf, "plot 1 with lines") &&
	   strstr(buf, "(b) get only: ops/s relative to rwlock"),
	   "plot: (b) is ops/s over rwlock's: rcu 2, rwlock 1, nop 10, a line at 1");
	ok(strstr(buf, "kernel 6.99.0-test x86_64") && strstr(buf, "accelerator kvm") &&
	   strstr(buf, "2 CPUs (TestCPU 3000)") && strstr(buf, "commit v9-3-gabc") &&
	   strstr(buf, "2026-01-02 03:04 UTC") && strstr(buf, "3 runs of 1 s per point"),
	   "plot: the caption has the kernel, accelerator, CPUs, commit and date");
	/* p50 2000 ns and p99 20000 ns at 2 threads, in seconds */
	ok(strstr(buf, "$L0 << EOD\n0 \"nop\" 5e-07 9e-07 0x8C8C8C\n") &&
	   strstr(buf, "\n1 \"rwlock\" 2e-06 2e-05 0x000000\n") &&
	   strstr(buf, "(c) get only: latency at 2 threads") && strstr(buf, "with vectors nohead"),
	   "plot: (c) p50 and p99 per backend at the most threads with a CPU each");
	ok(strstr(buf, "'1\xc2\xb5s' 1e-06") && strstr(buf, "'500ns' 5e-07") &&
	   strstr(buf, "'1k' 1000") && strstr(buf, "'8' 8"),
	   "plot: tics labelled with SI prefixes and units, ratios as numbers");
	ok(strstr(buf, "(a) get only: ops/s'") && strstr(buf, "(a) 50:50 GET:SET: ops/s'") &&
	   strstr(buf, "(d) get only: ops/s, BATCH(64)'") && !strstr(buf, "(d) 50:50") &&
	   strstr(buf, "title 'nop (ioctl floor)'") && strstr(buf, "set logscale x 2"),
	   "plot: a column per mix, a row per call shape, one legend");
	free(buf);

	ok(kvb_plot_format("a/x.jpg", err, sizeof(err)) == KVB_PLOT_JPEG &&
	   kvb_plot_format("x.JPEG", err, sizeof(err)) == KVB_PLOT_JPEG &&
	   kvb_plot_format("x.svg", err, sizeof(err)) == KVB_PLOT_SVG &&
	   kvb_plot_format("x.png", err, sizeof(err)) == KVB_PLOT_PNG,
	   "plot: .jpg, .jpeg, .svg and .png are formats");
	ok(kvb_plot_format("x.txt", err, sizeof(err)) < 0 &&
	   strstr(err, ".png, .svg, .jpg or .jpeg") &&
	   kvb_plot_format("png", err, sizeof(err)) < 0 &&
	   !plot_text(rep, "x.txt", err, sizeof(err)),
	   "plot: any other name is refused, with the formats listed");
	buf = plot_text(rep, "x.jpg", err, sizeof(err));
	ok(buf && strstr(buf, "set terminal jpeg ") && !strstr(buf, "pngcairo"),
	   "plot: x.jpg is drawn by the jpeg terminal, not as a PNG");
	free(buf);
	buf = plot_text(rep, "it's.svg", err, sizeof(err));
	ok(buf && strstr(buf, "set terminal svg ") && strstr(buf, "set output 'it''s.svg'"),
	   "plot: an SVG, its name quoted for gnuplot");
	free(buf);

	plot_report(rep, sizeof(rep), "kvbench-bench/1", 0);
	buf = plot_text(rep, "x.png", err, sizeof(err));
	ok(buf && strstr(buf, "accelerator unknown") && strstr(buf, "commit unknown"),
	   "plot: a report without provenance says unknown");
	free(buf);
	snprintf(rep, sizeof(rep), "{%s, %s: [{%s, %s, %s}]}", "\"schema\": \"kvbench-bench/3\"",
		 "\"results\"", "\"backend\": \"rcu\", \"mix\": {\"name\": \"50:50\"}",
		 "\"workload\": \"A\"", "\"threads\": 1, \"ops_per_sec\": 5");
	buf = plot_text(rep, "x.png", err, sizeof(err));
	ok(buf && strstr(buf, "'(a) A (50:50 GET:SET): ops/s'") && !strstr(buf, "$L0"),
	   "plot: a case's workload names its panel, with its mix; no latency, no (c)");
	free(buf);
	ok(!plot_text("{\"schema\": \"kvbench-bench/2\", \"results\": []}", "x.png", err,
		      sizeof(err)) &&
	   strstr(err, "no results") &&
	   !plot_text("{\"schema\": \"other/1\", \"results\": []}", "x.png", err, sizeof(err)) &&
	   strstr(err, "not a kvbench bench report") &&
	   !plot_text("{\"schema\": \"kvbench-bench/9\", \"results\": []}", "x.png", err,
		      sizeof(err)) &&
	   strstr(err, "kvbench-bench/1 to /"),
	   "plot: no results, or another schema, is an error");

	if (run(out, sizeof(out), "command -v gnuplot >/dev/null 2>&1") || !mkdtemp(dir)) {
		skip("no gnuplot", "plot: gnuplot draws the figure");
		return;
	}
	plot_report(rep, sizeof(rep), "kvbench-bench/2", 1);
	snprintf(path, sizeof(path), "%s/p.png", dir);
	ok(!kvb_plot_json(path, rep, "test"), "plot: gnuplot draws the figure without an error");
	png_size(path, &w, &h);
	ok(w >= 900 && h > w, "plot: the PNG is sized for 2 columns of 4 panels (%ux%u)", w, h);
	run(out, sizeof(out), "rm -rf %s", dir);
}

/* Write a fake sysfs file. */
static int put(const char *dir, const char *name, const char *text, int mode)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "we");
	if (!f)
		return -1;
	fputs(text, f);
	fclose(f);
	return chmod(path, mode);
}

/* kvbench stats against a fake sysfs directory: a test of the tool. */
static void test_stats_cmd(const char *k)
{
	static const char * const files[][2] = {
		{ "backend", "kthread\n" }, { "entries", "1024\n" }, { "bytes", "90112\n" },
		{ "gets", "500\n" }, { "hits", "450\n" }, { "misses", "50\n" },
		{ "sets", "10\n" }, { "dels", "0\n" }, { "batches", "3\n" },
		{ "queue_hwm", "7\n" }, { "drain_mean", "3.25\n" }, { "queue_full", "2\n" },
		{ "owners", "2\n" }, { "poll_us", "450000\n" },
		{ "load_factor", "4.25\n" }, { "longest_chain", "11\n" },
		{ "uevent", "MAJOR=10\nMINOR=122\nDEVNAME=kvbench\n" },
		{ "future_file", "42\n" },
	};
	struct kvb_sysfs_snap a, b;
	char dir[] = "/tmp/kvbench-test-XXXXXX", path[600], err[600];
	char *buf = NULL, out[16384];
	size_t len = 0, i;
	struct timespec t0, t1;
	int good = 1, st;
	const char *g, *h, *bt;
	FILE *f;

	if (!mkdtemp(dir)) {
		skip("no temporary directory", "kvbench stats");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(files); i++)
		good &= !put(dir, files[i][0], files[i][1], 0444);
	good &= !put(dir, "reset", "", 0200);
	snprintf(path, sizeof(path), "%s/power", dir);
	good &= !mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/subsystem", dir);
	good &= !symlink("/nonexistent", path);
	ok(good && !kvb_sysfs_read(dir, &a, err, sizeof(err)) && a.n == 19,
	   "stats: reads the 19 regular files, not the directory or the link");
	f = open_memstream(&buf, &len);
	kvb_sysfs_print(f, dir, &a, NULL);
	fclose(f);
	g = strstr(buf, "\ngets ");
	h = strstr(buf, "\nhits ");
	bt = strstr(buf, "\nbatches ");
	ok(strstr(buf, "[backend]\nbackend             kthread  the backend serving the map\n") &&
	   strstr(buf, "[operations]") && strstr(buf, "[owner queues]") &&
	   strstr(buf, "drain_mean             3.25") && g && h && bt && g < h && h < bt,
	   "stats: grouped and labelled, counters in the ABI document's order");
	ok(strstr(buf, "hit rate              90.0%  hits / gets") &&
	   strstr(buf, "uevent        MAJOR=10 MINOR=122 DEVNAME=kvbench\n") &&
	   strstr(buf, "[other]\nfuture_file              42\n") &&
	   strstr(buf, "reset                     -  write 1 to zero the counters") &&
	   !strstr(buf, "power") && !strstr(buf, "subsystem") && !strstr(buf, "/s "),
	   "stats: hit rate, multi-line files, unknown and write-only files; no rates in one report");
	ok(strstr(buf, "[owners]\nowners                    2  owner threads the backend runs\n"
			"poll_us              450000  microseconds the owners spun") &&
	   strstr(buf, "\n\n[owner queues]\n"),
	   "stats: the owner threads and their polling, grouped before their queues");
	ok(strstr(buf, "\nload_factor            4.25  keys per hash bucket\n"
			"longest_chain            11  longest hash chain the table has had\n"
			"warning                4.25  keys per bucket: the table is overfull;") &&
	   strstr(buf, "longest_chain") < strstr(buf, "[operations]"),
	   "stats: load factor and longest chain with the map, a warning above 2.00");
	free(buf);
	good = !put(dir, "load_factor", "2.00\n", 0444) &&
	       !kvb_sysfs_read(dir, &b, err, sizeof(err));
	buf = NULL;
	f = open_memstream(&buf, &len);
	kvb_sysfs_print(f, dir, &b, NULL);
	fclose(f);
	ok(good && strstr(buf, "load_factor            2.00") && !strstr(buf, "warning"),
	   "stats: no warning at a load factor of 2.00");
	free(buf);
	kvb_sysfs_free(&b);

	good = !put(dir, "load_factor", "4.25\n", 0444) &&
	       !put(dir, "gets", "800\n", 0444) && !put(dir, "entries", "2000\n", 0444) &&
	       !put(dir, "queue_full", "1\n", 0444) && !put(dir, "poll_us", "1350000\n", 0444) &&
	       !put(dir, "owners", "1\n", 0444) && !kvb_sysfs_read(dir, &b, err, sizeof(err));
	b.time = a.time + 2;
	buf = NULL;
	f = open_memstream(&buf, &len);
	if (good)
		kvb_sysfs_print(f, dir, &b, &a);
	fclose(f);
	ok(good && strstr(buf, "gets                    800      150.0/s") &&
	   strstr(buf, "hits                    450        0.0/s") &&
	   strstr(buf, "entries                2000               keys in the map\n") &&
	   strstr(buf, "queue_full                1      (reset)") &&
	   strstr(buf, "poll_us             1350000   450000.0/s") &&
	   strstr(buf, "owners                    1               owner threads"),
	   "stats: per-second rates of the counters, none for gauges, a reset said");
	free(buf);
	kvb_sysfs_free(&a);
	if (good)
		kvb_sysfs_free(&b);
	ok(kvb_sysfs_read("/nonexistent/kvbench", &a, err, sizeof(err)) &&
	   strstr(err, "/nonexistent/kvbench: No such file"), "stats: a missing directory fails");

	if (!k || access(k, X_OK)) {
		skip("no kvbench binary given", "kvbench stats command line");
		run(out, sizeof(out), "rm -rf %s", dir);
		return;
	}
	st = run(out, sizeof(out), "%s stats --sysfs %s 2>&1", k, dir);
	ok(st == 0 && strstr(out, "[operations]") && strstr(out, "gets                    800"),
	   "kvbench stats --sysfs DIR: exit 0, the report");
	st = run(out, sizeof(out), "%s stats --sysfs /nonexistent/kvbench 2>&1", k);
	ok(st == 1 && strstr(out, "/nonexistent/kvbench: No such file or directory") &&
	   strstr(out, "is the module loaded?"),
	   "kvbench stats without the directory: exit 1, says to load the module");
	st = run(out, sizeof(out), "%s stats --sysfs %s --watch 50ms --count 3 2>&1", k, dir);
	ok(st == 0 && count_of(out, "# kvbench stats: ") == 3 &&
	   count_of(out, "rates since the last report") == 2 &&
	   count_of(out, "      0.0/s  GETs (hits + misses)") == 2,
	   "kvbench stats --watch 50ms --count 3: three reports, rates in the last two");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	st = run(out, sizeof(out),
		 "timeout --preserve-status -s INT 0.5 %s stats --sysfs %s --watch 10 2>&1",
		 k, dir);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ok(st == 0 && count_of(out, "# kvbench stats: ") == 1 &&
	   t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9 < 5,
	   "kvbench stats --watch 10: Ctrl-C stops it at once, exit 0");
	st = run(out, sizeof(out), "%s stats --sysfs %s --count 2 2>&1", k, dir);
	ok(st == 2 && strstr(out, "--count: only with --watch"),
	   "stats --count without --watch: exit 2");
	st = run(out, sizeof(out), "%s stats --watch 1h 2>&1", k);
	ok(st == 2 && strstr(out, "--watch") && strstr(out, "'1h'"), "stats --watch 1h: exit 2");
	st = run(out, sizeof(out), "%s stats --watch 2>&1", k);
	ok(st == 2 && strstr(out, "option '--watch' requires an argument"),
	   "stats --watch without its argument: 'requires an argument', exit 2");
	st = run(out, sizeof(out), "%s stats --help 2>&1", k);
	ok(st == 0 && strstr(out, "--sysfs DIR") && strstr(out, "--count K"),
	   "stats --help exits 0");
}

/*
 * The histogram's percentiles against the exact nearest-rank ones of the
 * same values (kvb_percentile() over them sorted): never below, at most
 * KVB_HIST_PRECISION above, at every percentile in pcts. Returns the
 * largest relative error seen, or -1 when one is out of bounds.
 */
static double hist_vs_exact(const struct kvb_hist *h, unsigned int *v, size_t n)
{
	static const double pcts[] = { 0, 1, 10, 25, 50, 75, 90, 99, 99.5, 99.9, 99.99, 100 };
	double worst = 0;
	size_t i;

	kvb_sort_u32(v, n);
	for (i = 0; i < ARRAY_SIZE(pcts); i++) {
		double exact = kvb_percentile(v, n, pcts[i]);
		double got = kvb_hist_value_at(h, pcts[i]);
		double rel = (got - exact) / exact;

		if (got < exact || rel > KVB_HIST_PRECISION) {
			printf("# p%g: %.0f, exact %.0f (%+.4f%%)\n", pcts[i], got, exact,
			       rel * 100);
			return -1;
		}
		if (rel > worst)
			worst = rel;
	}
	return worst;
}

static void test_hist(void)
{
	struct kvb_hist *h = malloc(sizeof(*h)), *a = malloc(sizeof(*a));
	struct kvb_hist *b = malloc(sizeof(*b));
	unsigned int *v = malloc(100000 * sizeof(*v));
	__u64 rng = 12345, lo, hi, sum = 0, vmin = ~0ULL, vmax = 0;
	unsigned int i, idx, bad = 0;
	struct kvb_lat l;
	double worst;

	if (!h || !a || !b || !v) {
		free(h);
		free(a);
		free(b);
		free(v);
		ok(0, "histogram: memory for the tests");
		return;
	}
	/* the layout: every value in its bucket, buckets contiguous, narrow */
	for (i = 0; i < KVB_HIST_BUCKETS; i++) {
		kvb_hist_bounds(i, &lo, &hi);
		if (kvb_hist_index(lo) != i || kvb_hist_index(hi) != i ||
		    (i && kvb_hist_index(lo - 1) != i - 1) ||
		    (double)(hi - lo) > lo * KVB_HIST_PRECISION)
			bad++;
	}
	kvb_hist_bounds(KVB_HIST_BUCKETS - 1, &lo, &hi);
	ok(!bad && hi == ~0ULL && kvb_hist_index(127) == 127 && kvb_hist_index(128) == 128 &&
	   kvb_hist_index(1ULL << 40) < KVB_HIST_BUCKETS && KVB_HIST_PRECISION == 1.0 / 128,
	   "histogram: %u buckets cover 0..2^64-1, each at most 1/128 of its lowest value wide",
	   KVB_HIST_BUCKETS);

	/* 1..100000 ns, uniform, in a shuffled order */
	kvb_hist_init(h);
	for (i = 0; i < 100000; i++)
		v[i] = i + 1;
	for (i = 99999; i > 0; i--) {
		unsigned int j = kvb_rand(&rng) % (i + 1), t = v[i];

		v[i] = v[j];
		v[j] = t;
	}
	for (i = 0; i < 100000; i++)
		kvb_hist_add(h, v[i]);
	worst = hist_vs_exact(h, v, 100000);
	ok(worst >= 0 && kvb_hist_value_at(h, 50) >= 50000 &&
	   kvb_hist_value_at(h, 50) <= 50000 * (1 + 1.0 / 128) &&
	   kvb_hist_value_at(h, 99.9) >= 99900 && kvb_hist_value_at(h, 100) == 100000,
	   "histogram of 1..100000 ns: percentiles within 0.78%% of the exact ones (worst %.3f%%)",
	   worst * 100);
	kvb_hist_summary(h, &l);
	ok(l.samples == 100000 && l.min == 1 && l.max == 100000 && l.mean == 50000.5 &&
	   isfinite(l.pct[3]) && isfinite(l.pct[4]) && kvb_lat_pcts[4] == 99.99,
	   "histogram: exact count, min, max and mean; p99.99 from 100000 samples");

	/* bimodal: 90% near 1 us, 10% near 1 ms */
	kvb_hist_init(h);
	for (i = 0; i < 100000; i++) {
		v[i] = i % 10 ? 900 + kvb_rand(&rng) % 200 : 900000 + kvb_rand(&rng) % 200000;
		kvb_hist_add(h, v[i]);
	}
	worst = hist_vs_exact(h, v, 100000);
	ok(worst >= 0 && kvb_hist_value_at(h, 89) < 1200 && kvb_hist_value_at(h, 91) > 800000,
	   "histogram of a bimodal set (1 us, 1 ms): within 0.78%% (worst %.3f%%)", worst * 100);

	/* 1 ns .. 1 s, log-uniform; two halves merged against all in one */
	kvb_hist_init(h);
	kvb_hist_init(a);
	kvb_hist_init(b);
	for (i = 0; i < 100000; i++) {
		v[i] = (unsigned int)llround(pow(10, 9 * kvb_rand_double(&rng)));
		if (i == 7)
			v[i] = 1;
		if (i == 8)
			v[i] = 1000000000;
		kvb_hist_add(h, v[i]);
		kvb_hist_add(i % 3 ? a : b, v[i]);
		sum += v[i];
		vmin = v[i] < vmin ? v[i] : vmin;
		vmax = v[i] > vmax ? v[i] : vmax;
	}
	worst = hist_vs_exact(h, v, 100000);
	ok(worst >= 0 && h->min == 1 && h->max == 1000000000,
	   "histogram of 1 ns .. 1 s: within 0.78%% at every percentile (worst %.3f%%)",
	   worst * 100);
	kvb_hist_merge(a, b);
	ok(a->count == h->count && a->sum == h->sum && a->sum == sum && a->min == vmin &&
	   a->max == vmax && !memcmp(a->counts, h->counts, sizeof(h->counts)),
	   "histogram: merging two parts equals adding everything to one");
	kvb_hist_init(b);
	kvb_hist_merge(a, b);
	kvb_hist_merge(b, h);
	ok(a->count == h->count && !memcmp(b, h, sizeof(*h)),
	   "histogram: an empty one merges as nothing, into an empty one as a copy");

	/* the insufficient-sample rule: n (1 - p) >= 10 */
	ok(kvb_pct_min_samples(50) == 20 && kvb_pct_min_samples(90) == 100 &&
	   kvb_pct_min_samples(99) == 1000 && kvb_pct_min_samples(99.9) == 10000 &&
	   kvb_pct_min_samples(99.99) == 100000,
	   "a percentile p needs n (1 - p) >= 10: 20, 100, 1000, 10000, 100000 samples");
	kvb_hist_init(h);
	for (i = 0; i < 23; i++)
		kvb_hist_add(h, 1000 + i);
	kvb_hist_summary(h, &l);
	ok(l.samples == 23 && l.min == 1000 && l.max == 1022 && l.mean == 1011 &&
	   isfinite(l.pct[0]) && isnan(l.pct[1]) && isnan(l.pct[2]) && isnan(l.pct[3]),
	   "23 samples give p50 only: p90, p99, p99.9 are not theirs to give");
	for (i = 23; i < 999; i++)
		kvb_hist_add(h, 1000);
	kvb_hist_summary(h, &l);
	bad = isfinite(l.pct[2]);
	kvb_hist_add(h, 5000);
	kvb_hist_summary(h, &l);
	ok(!bad && isfinite(l.pct[2]) && isnan(l.pct[3]) && l.max == 5000,
	   "p99 from the 1000th sample on, not before; p99.9 still not");
	kvb_hist_init(h);
	kvb_hist_summary(h, &l);
	ok(l.samples == 0 && isnan(l.min) && isnan(l.mean) && isnan(l.max) && isnan(l.pct[0]) &&
	   isnan(kvb_hist_value_at(h, 50)), "an empty histogram: nothing known");
	kvb_hist_add(h, 0);
	kvb_hist_add(h, ~0ULL);
	idx = kvb_hist_index(~0ULL);
	ok(h->min == 0 && h->max == ~0ULL && idx == KVB_HIST_BUCKETS - 1 &&
	   kvb_hist_value_at(h, 100) == (double)~0ULL && kvb_hist_value_at(h, 50) == 0,
	   "histogram: 0 and 2^64 - 1 ns, the ends of its range");
	free(h);
	free(a);
	free(b);
	free(v);
}

/*
 * The median's order-statistic interval, against the binomial by hand:
 * n = 5: no 95% interval, min..max covers 1 - 2/32 = 0.9375; n = 10:
 * x(2)..x(9), 1 - 2 (1 + 10) / 1024 = 0.978515625 (x(3)..x(8) would be
 * 1 - 2 * 56 / 1024 = 0.890625); n = 20: x(6)..x(15), 1 - 2 * 21700 /
 * 2^20 = 0.958610535 (x(7)..x(14): 0.884689331).
 */
static void test_median_ci(void)
{
	double v[20], lo, hi, cover;
	struct kvb_summary s;
	int k, i;

	for (i = 0; i < 20; i++)
		v[i] = 100 - i * 3;	/* unsorted: 100, 97, ... 43 */
	k = kvb_median_ci(v, 5, 0.95, &lo, &hi, &cover);
	ok(k == 1 && lo == 88 && hi == 100 && cover == 0.9375,
	   "median CI of 5: min..max, coverage 0.9375 (got k %d, %g..%g, %g)", k, lo, hi, cover);
	k = kvb_median_ci(v, 10, 0.95, &lo, &hi, &cover);
	ok(k == 2 && lo == 76 && hi == 97 && cover == 1 - 22.0 / 1024,
	   "median CI of 10: x(2)..x(9), coverage 0.978515625 (got k %d, %g..%g, %.9f)",
	   k, lo, hi, cover);
	k = kvb_median_ci(v, 20, 0.95, &lo, &hi, &cover);
	ok(k == 6 && lo == 43 + 5 * 3 && hi == 43 + 14 * 3 &&
	   fabs(cover - (1 - 43400.0 / 1048576)) < 0.000000001,
	   "median CI of 20: x(6)..x(15), coverage 0.958610535 (got k %d, %g..%g, %.9f)",
	   k, lo, hi, cover);
	k = kvb_median_ci(v, 6, 0.95, &lo, &hi, &cover);
	ok(k == 1 && cover == 1 - 2.0 / 64 && kvb_median_ci(v, 2, 0.95, &lo, &hi, &cover) == 1 &&
	   cover == 0.5 && !kvb_median_ci(v, 1, 0.95, &lo, &hi, &cover) && isnan(lo) &&
	   isnan(hi) && isnan(cover),
	   "median CI: 95%% from 6 values (0.96875), 0.5 for 2, none for 1");
	/* the issue's case: a mean CI below zero; the median's cannot be */
	{
		double runs[] = { 100, 120, 90, 110, 9000 };

		kvb_summarize(runs, 5, &s);
		ok(s.ci_lo < 0 && s.med_lo == 90 && s.med_hi == 9000 && s.med_level == 0.9375 &&
		   s.median == 110,
		   "summary: the mean's t interval goes below 0, the median's stays in the data");
	}
}

static void test_summary(void)
{
	double v[] = { 1, 2, 3, 4, 5 }, one = 7;
	struct kvb_summary s;
	__u64 a, b, c;
	int i, same = 1, differ = 0;

	kvb_summarize(v, 5, &s);
	/* stddev sqrt(2.5); half-width t(0.975, 4) * sd / sqrt(5) = 1.9630 */
	ok(s.n == 5 && s.mean == 3 && s.median == 3 && fabs(s.stddev - 1.5811388) < 0.000001 &&
	   fabs(s.ci_lo - (3 - 1.9630)) < 0.001 && fabs(s.ci_hi - (3 + 1.9630)) < 0.001,
	   "summary of 1..5: mean, median, stddev, 95%% CI by hand");
	kvb_summarize(&one, 1, &s);
	ok(s.mean == 7 && s.median == 7 && isnan(s.stddev) && isnan(s.ci_lo) && isnan(s.ci_hi),
	   "summary of one run: no stddev, no interval");
	ok(kvb_t95(1) == 12.706 && kvb_t95(2) == 4.303 && kvb_t95(9) == 2.262 &&
	   kvb_t95(30) == 2.042 && kvb_t95(1000) == 1.960, "t quantiles from the tables");

	a = kvb_thread_seed(42, 0);
	b = kvb_thread_seed(42, 1);
	c = kvb_thread_seed(43, 0);
	ok(a && b && c && a != b && a != c && a == kvb_thread_seed(42, 0) &&
	   kvb_thread_seed(0, 0), "thread seeds: from the run seed and the index, never 0");
	b = a;
	c = kvb_thread_seed(42, 0);
	for (i = 0; i < 1000; i++) {
		__u64 x = kvb_rand(&b), y = kvb_rand(&c);

		same &= x == y;
	}
	c = kvb_thread_seed(43, 0);
	b = a;
	for (i = 0; i < 1000; i++)
		differ += kvb_rand(&b) != kvb_rand(&c);
	ok(same && differ > 990, "the same seed gives the same sequence, another one another");
}

static void test_mwu(void)
{
	double a3[] = { 1, 2, 3 }, b3[] = { 4, 5, 6 }, t3[] = { 3, 4, 5 };
	double a4[] = { 1, 2, 3, 4 }, b4[] = { 5, 6, 7, 8 };
	double a5[] = { 1, 2, 3, 4, 5 }, b5[] = { 6, 7, 8, 9, 10 };
	double u2a[] = { 1, 2, 3, 4, 7 }, u2b[] = { 5, 6, 8, 9, 10 };
	double u3a[] = { 1, 2, 3, 5, 7 }, u3b[] = { 4, 6, 8, 9, 10 };
	double same[] = { 10, 10, 10 }, big_a[15], big_b[15];
	double u, p;
	int i;

	/* Two-sided exact p = 2 * P(U <= u) with C(n, na) equally likely splits. */
	ok(!kvb_mwu(a3, 3, b3, 3, &u, &p) && u == 0 && fabs(p - 0.1) < TINY,
	   "U test 3 vs 3 separated: U = 0, p = 2/20 = 0.1 (the smallest possible)");
	ok(!kvb_mwu(b3, 3, a3, 3, &u, &p) && u == 9 && fabs(p - 0.1) < TINY,
	   "U test 3 vs 3 the other way: U = 9, p = 0.1");
	ok(fabs(kvb_mwu_min_p(3, 3) - 0.1) < TINY &&
	   fabs(kvb_mwu_min_p(5, 5) - 2.0 / 252) < TINY && kvb_mwu_min_p(1, 1) == 1,
	   "smallest possible p: 3+3 0.1, 5+5 2/252, 1+1 1");
	ok(!kvb_mwu(a4, 4, b4, 4, &u, &p) && u == 0 && fabs(p - 2.0 / 70) < TINY,
	   "U test 4 vs 4 separated: p = 2/70 = 0.0286");
	ok(!kvb_mwu(a5, 5, b5, 5, &u, &p) && u == 0 && fabs(p - 2.0 / 252) < TINY,
	   "U test 5 vs 5 separated: p = 2/252 = 0.0079");
	/* U <= 2 in 1 + 1 + 2 = 4 of 252 splits: the 5+5 critical value at 0.05 */
	ok(!kvb_mwu(u2a, 5, u2b, 5, &u, &p) && u == 2 && fabs(p - 8.0 / 252) < TINY,
	   "U test 5 vs 5, U = 2: p = 8/252 = 0.0317 (table: significant at 0.05)");
	/* U <= 3 in 4 + 3 = 7 of 252 splits */
	ok(!kvb_mwu(u3a, 5, u3b, 5, &u, &p) && u == 3 && fabs(p - 14.0 / 252) < TINY,
	   "U test 5 vs 5, U = 3: p = 14/252 = 0.0556 (table: not significant)");
	ok(!kvb_mwu(same, 3, same, 3, &u, &p) && u == 4.5 && p == 1,
	   "U test of identical samples: U = 4.5, p = 1");
	/* one tie across (3, 3): U = 0.5; U <= 0.5 or >= 8.5 in 4 of 20 splits */
	ok(!kvb_mwu(a3, 3, t3, 3, &u, &p) && u == 0.5 && fabs(p - 0.2) < TINY,
	   "U test with a tie across the samples: U = 0.5, exact p = 4/20");
	for (i = 0; i < 15; i++) {
		big_a[i] = i;
		big_b[i] = 15 + i;
	}
	/* normal approximation: z = (112.5 - 0.5) / sqrt(15 * 15 * 31 / 12) = 4.6455 */
	ok(!kvb_mwu(big_a, 15, big_b, 15, &u, &p) && u == 0 &&
	   fabs(p - erfc(4.6455 / sqrt(2))) < 0.0000001 && p < 0.00001,
	   "U test 15 vs 15 (normal approximation): p = %.2g", p);
	ok(!kvb_mwu(big_a, 15, big_a, 15, &u, &p) && p == 1,
	   "U test 15 vs 15 identical: p = 1");
	ok(kvb_mwu(a3, 0, b3, 3, &u, &p) == -1, "U test of an empty sample: an error");
}

/* A report in the tool's own schema, one case per (target, runs). */
static void fake_report(char *buf, size_t len, const char *schema, int ncase,
			const char * const *target, const double (*runs)[5], int nruns)
{
	size_t n = snprintf(buf, len, "{\"schema\": \"%s\", \"results\": [", schema);
	int i, j;

	for (i = 0; i < ncase; i++) {
		n += snprintf(buf + n, len - n,
			      "%s{\"backend\": \"%s\", \"mix\": {\"name\": \"get\"}, \"threads\": 2, \"batch\": 1, \"fd\": \"per-thread\", \"ops_per_sec_runs\": [",
			      i ? ", " : "", target[i]);
		for (j = 0; j < nruns; j++)
			n += snprintf(buf + n, len - n, "%s%.1f", j ? ", " : "", runs[i][j]);
		n += snprintf(buf + n, len - n, "]}");
	}
	snprintf(buf + n, len - n, "]}");
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (s = strstr(s, what); s; s = strstr(s + 1, what))
		n++;
	return n;
}

static int compare_text(char *out, size_t len, const char *a, const char *b,
			char *err, size_t errlen)
{
	FILE *f = fmemopen(out, len, "w");
	int rows;

	if (!f)
		return -2;
	rows = kvb_compare_text(f, f, a, b, &(struct kvb_cmp_opts){ .alpha = 0.05 }, err, errlen);
	fclose(f);
	out[len - 1] = 0;
	return rows;
}

/* compare with options; stdout into out, stderr into eout */
static int compare_opts(char *out, size_t len, char *eout, size_t elen, const char *a,
			const char *b, const struct kvb_cmp_opts *o, char *err, size_t errlen)
{
	FILE *f, *fe;
	int rows = -2;

	out[0] = 0;
	eout[0] = 0;
	f = fmemopen(out, len, "w");
	fe = fmemopen(eout, elen, "w");
	if (f && fe)
		rows = kvb_compare_text(f, fe, a, b, o, err, errlen);
	if (f)
		fclose(f);
	if (fe)
		fclose(fe);
	out[len - 1] = 0;
	eout[elen - 1] = 0;
	return rows;
}

/* A report with settings and provenance, and cases of 5 runs around med[i]. */
static void full_report(char *buf, size_t len, const char *kernel, unsigned long keys,
			const char *hash_bits, int ncase, const char * const *target,
			const double *med)
{
	size_t n = snprintf(buf, len,
			    "{\"schema\": \"kvbench-bench/2\", \"kernel\": \"%s\", \"cpus\": 2,\n"
			    " \"provenance\": {\"cpu_model\": \"Test CPU\", \"nproc\": 2, \"accel\": \"kvm\",\n"
			    "  \"module_parameters\": {\"backend\": \"%s\", \"hash_bits\": \"%s\"}},\n"
			    " \"params\": {\"keys\": %lu, \"key_size\": 16, \"value_size\": 64, \"dist\": \"uniform\",\n"
			    "  \"theta\": 0.0, \"duration_s\": 1.0, \"warmup_s\": 0.2, \"ops_per_thread\": null,\n"
			    "  \"sample_every\": 64, \"pin\": true, \"seed\": %lu, \"repeat\": 5},\n"
			    " \"results\": [",
			    kernel, keys > 1000 ? "rcu" : "rwlock", hash_bits, keys, keys * 7);
	int i, j;

	for (i = 0; i < ncase; i++) {
		n += snprintf(buf + n, len - n,
			      "%s{\"backend\": \"%s\", \"mix\": {\"name\": \"get\", \"get\": 100, \"set\": 0, \"del\": 0}, \"threads\": 2, \"batch\": 1, \"fd\": \"per-thread\", \"ops_per_sec_runs\": [",
			      i ? ", " : "", target[i]);
		for (j = 0; j < 5; j++)
			n += snprintf(buf + n, len - n, "%s%.1f", j ? ", " : "",
				      med[i] + (j - 2) * med[i] / 1000);
		n += snprintf(buf + n, len - n, "]}");
	}
	snprintf(buf + n, len - n, "]}");
}

/* Replace every from in buf with to (buf has room). */
static void subst(char *buf, size_t len, const char *from, const char *to)
{
	char *at = buf, *tmp = malloc(len);

	if (!tmp)
		return;
	while ((at = strstr(at, from))) {
		snprintf(tmp, len, "%s%s", to, at + strlen(from));
		snprintf(at, len - (at - buf), "%s", tmp);
		at += strlen(to);
	}
	free(tmp);
}

/* What an older or a newer report has or lacks: difference, note, or nothing. */
static void test_compare_schema(void)
{
	static const char * const two[] = { "rwlock", "rcu" };
	static const double m[] = { 1000, 4000 };
	struct kvb_cmp_opts o = { .alpha = 0.05 };
	char a[4096], b[8192], out[8192], eout[4096], err[256];
	int n;

	full_report(a, sizeof(a), "6.12.118", 1024, "12", 2, two, m);
	/* a newer schema: the mix's insert and rmw at 0, no workload, per-case dist */
	snprintf(b, sizeof(b), "%s", a);
	subst(b, sizeof(b), "\"del\": 0}",
	      "\"del\": 0, \"insert\": 0, \"rmw\": 0}, \"workload\": null, \"dist\": \"uniform\", \"theta\": 0.0");
	subst(b, sizeof(b), "\"repeat\": 5}",
	      "\"repeat\": 3, \"workloads\": null, \"budget_s\": 60}");
	subst(b, sizeof(b), "\"accel\": \"kvm\",", "");
	subst(b, sizeof(b), "\"nproc\": 2,",
	      "\"nproc\": 2, \"accel\": \"kvm\", \"governor\": \"performance\",");
	n = compare_opts(out, sizeof(out), eout, sizeof(eout), a, b, &o, err, sizeof(err));
	ok(n == 2 && !eout[0] && !strstr(out, "not compared"),
	   "compare: absent vs 0 in a mix, absent vs null workloads, repeat and budget, moved keys: no difference (%s)",
	   eout);
	subst(b, sizeof(b), "\"kernel\": \"6.12.118\"",
	      "\"machine\": \"aarch64\", \"kernel\": \"6.12.118\"");
	n = compare_opts(out, sizeof(out), eout, sizeof(eout), a, b, &o, err, sizeof(err));
	ok(n == 2 && !eout[0] &&
	   strstr(out, "not compared (absent in one report):\n  machine: absent vs aarch64\n"),
	   "compare: a field only one report has is listed as not compared, not refused");
	subst(a, sizeof(a), "\"kernel\": \"6.12.118\"",
	      "\"machine\": \"x86_64\", \"kernel\": \"6.12.118\"");
	subst(b, sizeof(b), "\"rmw\": 0}, \"workload\": null, \"dist\": \"uniform\"",
	      "\"rmw\": 5}, \"workload\": null, \"dist\": \"zipf\"");
	subst(b, sizeof(b), "\"workloads\": null", "\"workloads\": [{\"name\": \"ycsb-f\"}]");
	n = compare_opts(out, sizeof(out), eout, sizeof(eout), a, b, &o, err, sizeof(err));
	ok(n == KVB_CMP_REFUSED && strstr(eout, "  machine: x86_64 vs aarch64\n") &&
	   strstr(eout, "  mix get: rmw: absent vs 5\n") &&
	   strstr(eout, "  dist (per case): uniform vs zipf (2 cases)\n") &&
	   strstr(eout, "  params.workloads: absent vs ycsb-f\n"),
	   "compare: machine, a mix's rmw, each case's dist (counted) and a workload preset where there was none differ");
	subst(b, sizeof(b), "\"results\"", "\"complete\": false, \"results\"");
	o.force = 1;
	n = compare_opts(out, sizeof(out), eout, sizeof(eout), a, b, &o, err, sizeof(err));
	ok(n == 2 && strstr(out, "note: new is from an interrupted run"),
	   "compare: an interrupted run is said");
}

static void test_compare_trust(void)
{
	static const char * const two[] = { "rwlock", "rcu" };
	static const char * const base[] = { "rwlock", "rcu", "rwlock/uring-qd16",
					     "rcu/uring-qd16", "kthread/uring-qd1", "user-rwlock" };
	static const double m_old[] = { 1000, 4000 }, m_new[] = { 2000, 32000 };
	static const double m_base[] = { 1000, 3000, 2000, 1000, 5000, 8000 };
	struct kvb_cmp_opts o = { .alpha = 0.05 };
	char a[4096], b[4096], out[8192], eout[4096], err[256];
	const struct jnode *g, *rows;
	struct jnode root;
	int n;

	/* 1 M keys, another kernel, hash_bits 20: refused, each difference listed */
	full_report(a, sizeof(a), "6.12.118", 1024, "12", 2, two, m_old);
	full_report(b, sizeof(b), "7.2.13", 1000000, "20", 2, two, m_new);
	n = compare_opts(out, sizeof(out), eout, sizeof(eout), a, b, &o, err, sizeof(err));
	ok(n == KVB_CMP_REFUSED && !out[0] && strstr(eout, "not comparing them") &&
	   strstr(eout, "  params.keys: 1024 vs 1000000\n") &&
	   strstr(eout, "  kernel: 6.12.118 vs 7.2.13\n") &&
	   strstr(eout, "  provenance.module_parameters.hash_bits: 12 vs 20\n") &&
	   !strstr(eout, "seed") && !strstr(eout, "backend") && strstr(eout, "--force"),
	   "compare: reports that differ in keys, kernel and hash_bits are refused, each listed (not the seed, not the backend)");
	o.force = 1;
	n = compare_opts(out, sizeof(out), eout, sizeof(eout), a, b, &o, err, sizeof(err));
	ok(n == 2 && strstr(eout, "WARNING: kvbench compare --force") &&
	   strstr(eout, "WARNING:   params.keys: 1024 vs 1000000") &&
	   strstr(out, "FORCED: the reports differ in 3 fields") &&
	   strstr(out, "differences (--force):\n  params.keys"),
	   "compare --force: goes on, with a WARNING block on stderr and a FORCED line in the table");
	/* ratios 2 and 8: the geometric mean is exactly 4 (+300%) */
	full_report(b, sizeof(b), "6.12.118", 1024, "12", 2, two, m_new);
	o.force = 0;
	n = compare_opts(out, sizeof(out), eout, sizeof(eout), a, b, &o, err, sizeof(err));
	ok(n == 2 && !eout[0] && !strstr(out, "FORCED") &&
	   strstr(out, "(2 cases)") && strstr(out, "+300.00%") && strstr(out, "-75.00%") &&
	   strstr(out, "0.008   5+5"),
	   "compare: same settings; geomean of the ratios 2 and 8: +300.00%% ops/s, -75.00%% lat/op");
	/* one unit for the ops/s columns: 1k to 32k all in k, two digits for the smallest */
	ok(strstr(out, "  1.00k ±") && strstr(out, " 32.00k ±") && strstr(out, "  4.00k ±") &&
	   strstr(out, "  8.00k  ") && !strstr(out, "M ") && strstr(out, " 2.000ms ") &&
	   strstr(out, " 0.062ms "),
	   "compare: one unit per column (k from the largest value)");
	o.json = 1;
	n = compare_opts(out, sizeof(out), eout, sizeof(eout), a, b, &o, err, sizeof(err));
	ok(n == 2 && json_valid(out) && !kvb_json_parse(out, &root, err, sizeof(err)),
	   "compare --json: strict JSON (%s)", err);
	g = kvb_json_get(kvb_json_get(&root, "geomean", J_OBJ), "ratio", J_NUM);
	rows = kvb_json_get(&root, "rows", J_ARR);
	ok(g && g->num == 4 && rows && rows->nkids == 2 &&
	   kvb_json_get(&rows->kids[1], "ratio", J_NUM) &&
	   kvb_json_get(&rows->kids[1], "ratio", J_NUM)->num == 8 &&
	   kvb_json_get(&rows->kids[1], "significant", J_BOOL)->num == 1 &&
	   kvb_json_get(&rows->kids[1], "old_median", J_NUM)->num == 4000 &&
	   !strcmp(kvb_json_get(&rows->kids[1], "backend", J_STR)->str, "rcu") &&
	   kvb_json_get(&root, "forced", J_BOOL)->num == 0 &&
	   kvb_json_get(&root, "differences", J_ARR)->nkids == 0,
	   "compare --json: rows (ratio 8, significant), geomean ratio exactly 4, not forced");
	kvb_json_free(&root);
	full_report(b, sizeof(b), "7.2.13", 1024, "12", 2, two, m_new);
	o.force = 1;
	n = compare_opts(out, sizeof(out), eout, sizeof(eout), a, b, &o, err, sizeof(err));
	ok(n == 2 && json_valid(out) && strstr(out, "\"forced\": true") &&
	   strstr(out, "{ \"field\": \"kernel\", \"old\": \"6.12.118\", \"new\": \"7.2.13\" }"),
	   "compare --json --force: forced, and the differences listed");
	/* --base: rcu against rwlock, rcu/uring-qd16 against rwlock/uring-qd16 */
	full_report(a, sizeof(a), "6.12.118", 1024, "12", 6, base, m_base);
	/* a target without a device fd, as the userspace ones */
	subst(a, sizeof(a), "\"fd\": \"per-thread\", \"ops_per_sec_runs\": [7984.0",
	      "\"fd\": null, \"ops_per_sec_runs\": [7984.0");
	o.force = 0;
	o.json = 0;
	o.base = "rwlock";
	n = compare_opts(out, sizeof(out), eout, sizeof(eout), a, NULL, &o, err, sizeof(err));
	ok(n == 3 && strstr(out, "every backend against rwlock") && strstr(out, "+200.00%") &&
	   strstr(out, "-50.00%") && count(out, "rcu") == 2 &&
	   strstr(out, "no rwlock case for: kthread/uring-qd1 get") &&
	   strstr(out, "user-rwlock      get         2     1 -") && strstr(out, "+700.00%"),
	   "compare --base rwlock: rcu x3 (+200%%), rcu/uring-qd16 against rwlock/uring-qd16 (-50%%), user-rwlock (no fd) x8");
	o.json = 1;
	n = compare_opts(out, sizeof(out), eout, sizeof(eout), a, NULL, &o, err, sizeof(err));
	ok(n == 3 && json_valid(out) && !kvb_json_parse(out, &root, err, sizeof(err)),
	   "compare --base --json: strict JSON");
	rows = kvb_json_get(&root, "geomean_by_backend", J_ARR);
	ok(rows && rows->nkids == 3 &&
	   !strcmp(kvb_json_get(&rows->kids[1], "backend", J_STR)->str, "rcu/uring-qd16") &&
	   kvb_json_get(kvb_json_get(&rows->kids[1], "geomean", J_OBJ), "ratio",
			J_NUM)->num == 0.5 &&
	   strstr(out, "\"base\": \"rwlock/uring-qd16\""),
	   "compare --base --json: a geomean per target; the io variant against the base's");
	kvb_json_free(&root);
	o.base = "bogus";
	n = compare_opts(out, sizeof(out), eout, sizeof(eout), a, NULL, &o, err, sizeof(err));
	ok(n == -1 && strstr(err, "no target bogus"),
	   "compare --base with a backend the report does not have: an error");
}

static void test_compare(void)
{
	static const char * const one[] = { "rwlock" }, * const two[] = { "rwlock", "rcu" };
	static const char * const other[] = { "rwlock", "kthread" };
	static const double slow[2][5] = { { 100, 101, 102, 103, 104 }, { 50, 51, 52, 53, 54 } };
	static const double fast[2][5] = { { 200, 201, 202, 203, 204 },
					   { 50.5, 52.5, 51.5, 54.5, 53.5 } };
	char a[2048], b[2048], out[4096], err[256];
	int rows;

	fake_report(a, sizeof(a), "kvbench-bench/2", 2, two, slow, 5);
	rows = compare_text(out, sizeof(out), a, a, err, sizeof(err));
	ok(rows == 2 && strstr(out, "p > alpha") && count(out, " ~ ") == 4 &&
	   strstr(out, "1.000   5+5") && !strstr(out, "only in"),
	   "compare: a report against itself: every row ~, p = 1");
	fake_report(b, sizeof(b), "kvbench-bench/2", 2, two, fast, 5);
	rows = compare_text(out, sizeof(out), a, b, err, sizeof(err));
	ok(rows == 2 && strstr(out, "+98.04%") && strstr(out, "-49.50%") &&
	   strstr(out, "0.008   5+5") && strstr(out, "rcu") && strstr(out, "0.690   5+5"),
	   "compare: separated runs: +98.04%% ops/s, -49.50%% lat/op, p = 0.008; interleaved: ~");
	fake_report(b, sizeof(b), "kvbench-bench/1", 2, other, fast, 3);
	rows = compare_text(out, sizeof(out), a, b, err, sizeof(err));
	ok(rows == 1 && strstr(out, "only in old: rcu get threads=2") &&
	   strstr(out, "only in new: kthread get threads=2") &&
	   strstr(out, "0.036   5+3") && !strstr(out, "cannot reach"),
	   "compare: cases in one report only are listed; a v1 report reads too");
	fake_report(b, sizeof(b), "kvbench-bench/2", 1, one, fast, 3);
	fake_report(a, sizeof(a), "kvbench-bench/2", 1, one, slow, 3);
	rows = compare_text(out, sizeof(out), a, b, err, sizeof(err));
	ok(rows == 1 && strstr(out, "0.100   3+3") && strstr(out, " ~ ") &&
	   strstr(out, "runs 3 vs 3: the test cannot reach p <= 0.05 (smallest p 0.100)") &&
	   strstr(out, "0.100); use -r 5 or more\n"),
	   "compare: 3 runs against 3 cannot reach 0.05, and it says so");
	ok(compare_text(out, sizeof(out), "{\"schema\": \"kvbench-bench/2\", \"results\": [}",
			a, err, sizeof(err)) == -1 && strstr(err, "line 1, column 43"),
	   "compare: malformed JSON: an error with line and column (%s)", err);
	ok(compare_text(out, sizeof(out), "{\"schema\": \"kvbench-bench/2\", \"results\": [],}",
			a, err, sizeof(err)) == -1 &&
	   compare_text(out, sizeof(out), "{\"a\": 01}", a, err, sizeof(err)) == -1 &&
	   compare_text(out, sizeof(out), "{\"a\": NaN}", a, err, sizeof(err)) == -1 &&
	   compare_text(out, sizeof(out), "[1] x", a, err, sizeof(err)) == -1 &&
	   compare_text(out, sizeof(out), "\"\\u12\"", a, err, sizeof(err)) == -1,
	   "compare: the reader is strict (trailing comma, leading zero, NaN, trailing text, bad escape)");
	ok(compare_text(out, sizeof(out), "{\"schema\": \"kvbench-bench/9\", \"results\": []}",
			a, err, sizeof(err)) == -1 && strstr(err, "kvbench-bench/9") &&
	   compare_text(out, sizeof(out), "{\"results\": []}", a, err, sizeof(err)) == -1 &&
	   strstr(err, "not a kvbench bench report"),
	   "compare: another schema, or none: an error naming it");
	ok(compare_text(out, sizeof(out),
			"{\"schema\": \"kvbench-bench/2\", \"results\": [{\"backend\": \"rcu\"}]}",
			a, err, sizeof(err)) == -1 && strstr(err, "results[0]") &&
	   compare_text(out, sizeof(out),
			"{\"schema\": \"kvbench-bench/2\", \"results\": [{\"backend\": \"rcu\", \"mix\": {\"name\": \"get\"}, \"threads\": 1, \"batch\": 1, \"fd\": null, \"ops_per_sec_runs\": [1, \"x\"]}]}",
			a, err, sizeof(err)) == -1 && strstr(err, "ops_per_sec_runs[1]"),
	   "compare: a result without its fields, or a run that is not a number: an error");
	ok(compare_text(out, sizeof(out), "{\"schema\": \"kvbench-bench/2\", \"results\": []}",
			a, err, sizeof(err)) == 0 && strstr(out, "no case is in both"),
	   "compare: nothing in common: 0 rows, said");
	rows = compare_text(out, sizeof(out),
			    "{\"schema\": \"kvbench-bench/2\", \"results\": [{\"backend\": \"rcu\", \"mix\": {\"name\": \"get\"}, \"threads\": 1, \"batch\": 64, \"multi\": true, \"fd\": null, \"ops_per_sec_runs\": [1, 2]}]}",
			    "{\"schema\": \"kvbench-bench/2\", \"results\": [{\"backend\": \"rcu\", \"mix\": {\"name\": \"get\"}, \"threads\": 1, \"batch\": 64, \"fd\": null, \"ops_per_sec_runs\": [1, 2]}, {\"backend\": \"rcu\", \"mix\": {\"name\": \"get\"}, \"threads\": 1, \"batch\": 64, \"multi\": true, \"fd\": null, \"ops_per_sec_runs\": [1, 2]}]}",
			    err, sizeof(err));
	ok(rows == 1 && strstr(out, "  M64 ") &&
	   strstr(out, "only in new: rcu get threads=1 batch=64"),
	   "compare: packed calls are matched with packed calls, not with a BATCH (no \"multi\": a BATCH)");
}

/* A test that hay has needle (printed when it has not) */
/* s ends with tail */
static int str_ends(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && !strcmp(s + a - b, tail);
}

static void ok_has(const char *hay, const char *needle, const char *name)
{
	ok(!!strstr(hay, needle), "%s", name);
	if (!strstr(hay, needle))
		printf("# wanted: %s\n# in: %s\n", needle, hay);
}

/*
 * The verdict (verdict.c): the exact U distribution and its critical
 * values against the published tables, the Hodges-Lehmann ratio and
 * Moses' interval against order statistics counted by hand, the marks.
 */
static void vcase(struct kvb_vcase *c, const char *target, const char *mix,
		  unsigned int threads, const double *runs, unsigned int n)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->target, sizeof(c->target), "%s", target);
	c->kind = KVB_KERNEL;
	snprintf(c->key.mix, sizeof(c->key.mix), "%s", mix);
	snprintf(c->key.dist, sizeof(c->key.dist), "uniform");
	c->key.threads = threads;
	c->key.batch = 1;
	c->key.fd = KVB_FD_PER_THREAD;
	c->key.io = KVB_IO_IOCTL;
	c->runs = runs;
	c->n = n;
}

static void test_verdict_stats(void)
{
	static const double x[] = { 90, 92, 94, 96, 98 }, y[] = { 100, 101, 102, 103, 104 };
	static const double u2a[] = { 1, 2, 3, 4, 7 }, u2b[] = { 5, 6, 8, 9, 10 };
	static const double u3a[] = { 1, 2, 3, 5, 7 }, u3b[] = { 4, 6, 8, 9, 10 };
	static const double ta[] = { 1, 2, 5, 5, 5 }, tb[] = { 5, 6, 7, 8, 9 };
	static const double same[] = { 7, 7, 7, 7, 7 };
	double big[30], u, p, total = 0;
	struct kvb_hl h;
	int i, agree = 1;

	/* 252 splits of 5 + 5: U = 0 once, 1 once, 2 twice, 3 three times */
	ok(fabs(kvb_mwu_cdf(5, 5, 0) - 1.0 / 252) < TINY &&
	   fabs(kvb_mwu_cdf(5, 5, 2) - 4.0 / 252) < TINY &&
	   fabs(kvb_mwu_cdf(5, 5, 3) - 7.0 / 252) < TINY &&
	   fabs(kvb_mwu_cdf(3, 3, 0) - 1.0 / 20) < TINY && kvb_mwu_cdf(5, 5, 25) == 1 &&
	   kvb_mwu_cdf(5, 5, -1) == 0 &&
	   fabs(kvb_mwu_cdf(4, 6, 11) + kvb_mwu_cdf(4, 6, 12) - 1) < TINY,
	   "exact U distribution: 5+5 P(U<=0,2,3) = 1, 4, 7 / 252; 3+3 P(U<=0) = 1/20; symmetric");
	ok(fabs(kvb_mwu_cdf(30, 30, 449) + kvb_mwu_cdf(30, 30, 450) - 1) < TINY &&
	   kvb_mwu_cdf(30, 30, 150) < 0.0001 && kvb_mwu_cdf(30, 30, 750) > 0.9999,
	   "beyond 50 runs in all: the normal approximation, centred on nm/2");
	/* two-sided critical values at 0.05 of the Mann-Whitney tables */
	ok(kvb_mwu_crit(3, 3, 0.05) == -1 && kvb_mwu_crit(3, 4, 0.05) == -1 &&
	   kvb_mwu_crit(4, 4, 0.05) == 0 && kvb_mwu_crit(5, 5, 0.05) == 2 &&
	   kvb_mwu_crit(6, 6, 0.05) == 5 && kvb_mwu_crit(8, 8, 0.05) == 13 &&
	   kvb_mwu_crit(10, 10, 0.05) == 23 && kvb_mwu_crit(5, 8, 0.05) == 6,
	   "U critical values: 4+4 0, 5+5 2, 6+6 5, 8+8 13, 10+10 23, 5+8 6; 3+3 none");
	for (i = 1, agree = 1; i <= 64; i++) {
		unsigned int n = (i - 1) / 8 + 1, m = (i - 1) % 8 + 1;

		agree &= (kvb_mwu_crit(n, m, 0.05) < 0) == (kvb_mwu_min_p(n, m) > 0.05);
	}
	ok(agree, "no critical value exactly where kvb_mwu_min_p() is above 0.05 (1..8 runs)");
	agree = 1;
	ok(kvb_verdict_needs(0.05) == 4, "runs needed for any difference at 0.05: 4 each");

	/*
	 * 90..98 against 100..104: of the 25 ratios the 3rd smallest is 90/102
	 * (after 90/104 and 90/103), the 3rd largest 98/102 (after 98/100 and
	 * 98/101), the 13th 94/102; every x below every y: U = 0, p = 2/252.
	 */
	ok(!kvb_hl_ratio(x, 5, y, 5, 0.05, &h) && h.crit == 2 && h.can_tell &&
	   fabs(h.lo - 90.0 / 102) < TINY && fabs(h.hi - 98.0 / 102) < TINY &&
	   fabs(h.ratio - 94.0 / 102) < TINY && fabs(h.p - 2.0 / 252) < TINY && h.significant,
	   "5 vs 5: HL ratio 94/102, Moses' CI [90/102, 98/102] (3rd smallest, 3rd largest)");
	/* 4 + 4 runs of 1..4 against 5..8: 16 ratios, even: the middle two meet */
	ok(!kvb_hl_ratio(y, 4, x, 4, 0.05, &h) && h.crit == 0 &&
	   fabs(h.lo - 100.0 / 96) < TINY && fabs(h.hi - 103.0 / 90) < TINY &&
	   fabs(h.ratio - sqrt(101.0 / 92 * 102.0 / 94)) < 0.002 && h.significant,
	   "4 vs 4: the CI is the smallest and largest ratio, the estimate on the log scale");
	ok(!kvb_hl_ratio(u2a, 5, u2b, 5, 0.05, &h) && fabs(h.p - 8.0 / 252) < TINY &&
	   h.significant && h.hi < 1 && fabs(h.hi - 7.0 / 8) < TINY,
	   "U = 2 of 25: p = 8/252, significant, and the CI stops below 1 (7/8)");
	ok(!kvb_hl_ratio(u3a, 5, u3b, 5, 0.05, &h) && fabs(h.p - 14.0 / 252) < TINY &&
	   !h.significant && h.lo < 1 && h.hi > 1,
	   "U = 3 of 25: p = 14/252, no significant difference, and the CI covers 1");
	ok(!kvb_hl_ratio(same, 5, same, 5, 0.05, &h) && h.ratio == 1 && h.p == 1 &&
	   !h.significant && h.lo == 1 && h.hi == 1,
	   "identical runs: ratio 1, p = 1, CI [1, 1]: no difference");
	/* three ties (5 = 5) count against a difference: U 3, not 1.5 */
	ok(!kvb_hl_ratio(ta, 5, tb, 5, 0.05, &h) && fabs(h.p - 14.0 / 252) < TINY &&
	   !h.significant && h.hi == 1, "ties count against a difference, and the CI ends at 1");
	ok(!kvb_hl_ratio(x, 3, y, 3, 0.05, &h) && !h.can_tell && !h.significant &&
	   isnan(h.lo) && fabs(h.p - 0.1) < TINY && h.ratio < 1,
	   "3 vs 3: cannot tell (p >= 0.1), no interval, still an estimate");
	ok(kvb_hl_ratio(x, 0, y, 5, 0.05, &h) == -1 &&
	   kvb_hl_ratio(same, 1, (double[]){ 0 }, 1, 0.05, &h) == -1,
	   "HL ratio: an empty sample or a run of 0 ops/s is an error");
	/* without ties, the p is kvb_mwu()'s, and p <= 0.05 exactly outside the CI */
	for (i = 0; i < 30; i++) {
		double a[6], b[6];
		__u64 s = kvb_thread_seed(i, 1);
		int j;

		for (j = 0; j < 6; j++) {
			a[j] = 100 + kvb_rand_double(&s) * 10;
			b[j] = 100 + kvb_rand_double(&s) * 10 + i % 5;
		}
		kvb_hl_ratio(a, 6, b, 6, 0.05, &h);
		kvb_mwu(a, 6, b, 6, &u, &p);
		agree &= fabs(h.p - p) < TINY && h.significant == (h.lo > 1 || h.hi < 1);
		total += h.significant;
	}
	ok(agree && total > 0 && total < 30,
	   "random 6 vs 6: p equals kvb_mwu's, significant exactly when the CI leaves 1 out");
	for (i = 0; i < 30; i++)
		big[i] = 1000 + i;
	ok(!kvb_hl_ratio(big, 30, big, 30, 0.05, &h) && h.crit > 0 && h.lo < 1 && h.hi > 1 &&
	   !h.significant, "30 vs 30 (normal approximation): the same sample is no difference");
}

/* In-process maps pay no system call: candidates only among themselves. */
static void test_verdict_baselines(void)
{
	static const double fast[] = { 900, 905, 910, 915, 920 };
	static const double mid[] = { 500, 502, 504, 506, 508 };
	static const double slow[] = { 100, 101, 102, 103, 104 };
	struct kvb_vcase c[4];
	struct kvb_vgroup *g;
	int ng, i;

	vcase(&c[0], "user-rwlock", "get", 2, fast, 5);
	vcase(&c[1], "user-owner", "get", 2, slow, 5);
	vcase(&c[2], "rcu", "get", 1, mid, 5);
	vcase(&c[3], "user-rwlock", "get", 1, fast, 5);
	c[0].kind = KVB_USER_RWLOCK;
	c[1].kind = KVB_USER_OWNER;
	c[3].kind = KVB_USER_RWLOCK;
	for (i = 0; i < 4; i++)
		if (c[i].kind != KVB_KERNEL) {
			c[i].key.fd = KVB_FD_NONE;
			c[i].key.io = KVB_IO_NONE;
			kvb_vkey_normalize(&c[i].key);
		}
	ng = kvb_verdict(c, 4, 0.05, 0.05, &g);
	ok(ng == 2 && g[0].n == 2 && !strcmp(g[0].t[0].c->target, "user-rwlock") &&
	   g[0].t[1].mark == KVB_V_DIFFERENT,
	   "baselines alone in a group: they are the candidates");
	ok(ng == 2 && g[1].n == 1 && !strcmp(g[1].t[0].c->target, "rcu"),
	   "a baseline beside a kernel backend is left out of the verdict");
	kvb_verdict_free(g, ng);
}

static void test_verdict_groups(void)
{
	static const double fast[] = { 200, 202, 204, 206, 208 };
	static const double tie[] = { 199, 201, 203, 205, 209 };
	static const double slow[] = { 170, 172, 174, 176, 178 };
	static const double three[] = { 100, 110, 120 };
	struct kvb_vcase c[12];
	struct kvb_vgroup *g;
	char line[1024], *buf = NULL;
	size_t len = 0;
	FILE *f;
	int ng;

	/* two mixes, two thread counts; a peer without fd or device */
	vcase(&c[0], "rwlock", "get", 1, slow, 5);
	vcase(&c[1], "rcu", "get", 1, fast, 5);
	vcase(&c[2], "rwlock", "get", 2, fast, 5);
	vcase(&c[3], "rcu", "get", 2, slow, 5);
	vcase(&c[4], "rwlock", "90:10", 1, slow, 5);
	vcase(&c[5], "rcu", "90:10", 1, tie, 5);
	vcase(&c[6], "bpf-htab", "90:10", 1, fast, 5);
	c[6].kind = KVB_PEER;
	c[6].key.fd = KVB_FD_NONE;
	c[6].key.io = KVB_IO_NONE;
	kvb_vkey_normalize(&c[6].key);
	vcase(&c[7], "rwlock", "90:10", 2, three, 3);
	vcase(&c[8], "rcu", "90:10", 2, fast, 3);
	vcase(&c[9], "rcu", "get", 2, fast, 5);	/* repeated: the first counts */
	vcase(&c[10], "rcu", "get", 2, fast, 5);
	c[10].key.fd = KVB_FD_SHARED;
	vcase(&c[11], "rhashtable", "get", 2, three, 0);	/* no runs: left out */
	ng = kvb_verdict(c, 12, 0.05, 0.05, &g);
	ok(ng == 5 && g[0].n == 2 && g[1].n == 2 && g[2].n == 3 && g[3].n == 2 &&
	   g[4].n == 1 && !strcmp(g[0].key.mix, "get") && g[0].key.threads == 1 &&
	   g[1].key.threads == 2 && !strcmp(g[2].key.mix, "90:10") && g[4].key.fd == KVB_FD_SHARED,
	   "grouping: 2 mixes x 2 thread counts, the shared fd apart, a peer beside rwlock");
	ok(ng == 5 && !strcmp(g[0].t[0].c->target, "rcu") && g[0].t[0].mark == KVB_V_FASTEST &&
	   g[0].t[1].mark == KVB_V_DIFFERENT && !strcmp(g[1].t[0].c->target, "rwlock") &&
	   g[1].t[1].c->runs == slow, "the fastest by median in each group, whatever the order");
	kvb_verdict_line(line, sizeof(line), &g[0]);
	ok(!strcmp(line, "get, 1 thread, batch 1: rcu; rwlock: -14.7% [-17.3%, -12.0%]"),
	   "verdict line, one slower: '%s'", line);
	kvb_verdict_line(line, sizeof(line), &g[2]);
	ok(g[2].ntied == 2 && g[2].t[1].mark == KVB_V_TIED && g[2].t[2].mark == KVB_V_DIFFERENT,
	   "ties: the fastest, one tied with it, one slower");
	ok_has(line,
	       "90:10, 1 thread, batch 1: bpf-htab; rcu is tied with it (within ±5%); rwlock: -14.7% [-17.3%, -12.0%]",
	       "ties: the verdict line names the fastest, tied, then the slower");
	kvb_verdict_line(line, sizeof(line), &g[3]);
	ok(g[3].ncannot == 1 && g[3].t[1].mark == KVB_V_CANNOT &&
	   !strcmp(line,
		   "90:10, 2 threads, batch 1: rcu has the highest median; "
		   "rwlock: cannot tell: 3 runs, needs 4"),
	   "3 runs: cannot tell, and how many it needs: '%s'", line);
	kvb_verdict_line(line, sizeof(line), &g[4]);
	ok(!strcmp(line, "get, 2 threads, batch 1, shared fd: rcu (the only target)"),
	   "a group of one target: '%s'", line);
	f = open_memstream(&buf, &len);
	kvb_verdict_json(f, g, ng, NULL, 2);
	fclose(f);
	ok(json_valid(buf) && count_of(buf, "\"group\": ") == 5 &&
	   strstr(buf, "\"fastest\": [\"bpf-htab\", \"rcu\"]") &&
	   strstr(buf, "\"mark\": \"cannot tell\", \"text\": \"cannot tell: 3 runs, needs 4\""),
	   "verdict JSON: well-formed, the tied fastest listed, marks and texts");
	ok_has(buf,
	       "\"ratio\": 1.0000, \"ci_low\": null, \"ci_high\": null, \"p\": null, \"p_floor\": null, \"p_holm\": null,\n          \"noisy\": false, \"mark\": \"fastest\"",
	       "verdict JSON: the fastest against itself: ratio 1, no interval, no p");
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	kvb_verdict_table(f, &g[0]);
	fclose(f);
	ok(strstr(buf, "get, 1 thread, batch 1\n") && strstr(buf, "  rcu") &&
	   strstr(buf, "0.8529 [0.8269, 0.8800] 0.008* 0.008 slower\n") &&
	   strstr(buf, "\nverdict: get, 1 thread, batch 1: rcu; rwlock: -14.7% [-17.3%, -12.0%]\n"),
	   "verdict table: ratio, CI [172/208, 176/200], p and mark per target, then the line");
	free(buf);
	kvb_verdict_free(g, ng);
}

/*
 * tied only where the interval lies inside 1 +- margin; a wide interval
 * over 1 is inconclusive, and only the tied are named with the fastest.
 */
static void test_verdict_margin(void)
{
	static const double fast[] = { 200, 202, 204, 206, 208 };
	static const double wide[] = { 150, 170, 203, 230, 250 };
	static const double near[] = { 199, 201, 203, 205, 209 };
	struct kvb_vcase c[3];
	struct kvb_vgroup *g;
	char line[1024], *buf = NULL;
	size_t len = 0;
	FILE *f;
	int ng;

	vcase(&c[0], "rcu", "get", 2, fast, 5);
	vcase(&c[1], "rwlock", "get", 2, wide, 5);
	vcase(&c[2], "rhashtable", "get", 2, near, 5);
	ng = kvb_verdict(c, 3, 0.05, 0.05, &g);
	kvb_verdict_line(line, sizeof(line), &g[0]);
	f = open_memstream(&buf, &len);
	kvb_verdict_json(f, g, ng, NULL, 2);
	fclose(f);
	/* rwlock's ratio is the higher: the rows by ratio put it first */
	ok(ng == 1 && !strcmp(g[0].t[1].c->target, "rwlock") &&
	   g[0].t[1].mark == KVB_V_INCONCLUSIVE && g[0].t[2].mark == KVB_V_TIED &&
	   g[0].ntied == 2 && g[0].ninconclusive == 1 &&
	   strstr(buf, "\"fastest\": [\"rcu\", \"rhashtable\"]") &&
	   strstr(line, "rhashtable is tied with it (within ±5%)") &&
	   strstr(line, "; the next, rwlock: inconclusive (neither slower nor within ±5%), ") &&
	   strstr(line, "within ±5%), -0.49% [-26.5%, +22.5%]"),
	   "verdict: tied inside ±5%%, a wide interval inconclusive and not named fastest: '%s'",
	   line);

	free(buf);
	kvb_verdict_free(g, ng);
	ng = kvb_verdict(c, 3, 0.05, 0.5, &g);
	ok(ng == 1 && g[0].t[1].mark == KVB_V_TIED && g[0].t[2].mark == KVB_V_TIED,
	   "verdict: a margin of 50%% takes the wide one in");
	kvb_verdict_free(g, ng);
}

/*
 * The margin is the smallest difference that counts: a target shown slower
 * but not shown slower by more than the margin is inconclusive (it was
 * "slower", and such marks did not hold on the next make bench run); one
 * whose whole interval is inside the margin is tied, though significant.
 */
static void test_verdict_min_effect(void)
{
	static const double fast[] = { 1000, 1010, 1020, 1030, 1040 };
	static const double near[] = { 930, 950, 960, 975, 990 };
	static const double close[] = { 985, 990, 995, 998, 999 };
	static const double far[] = { 800, 810, 820, 830, 840 };
	struct kvb_vcase c[4];
	struct kvb_vgroup *g;
	char mark[128];
	int ng;

	vcase(&c[0], "rcu", "get", 2, fast, 5);
	vcase(&c[1], "rwlock", "get", 2, near, 5);
	vcase(&c[2], "rhashtable", "get", 2, close, 5);
	vcase(&c[3], "combining", "get", 2, far, 5);
	ng = kvb_verdict(c, 4, 0.05, 0.05, &g);
	ok(ng == 1 && !strcmp(g[0].t[2].c->target, "rwlock") && g[0].t[2].hl.significant &&
	   g[0].t[2].hl.hi > 0.95 && g[0].t[2].mark == KVB_V_INCONCLUSIVE,
	   "min effect: significant, the interval [%.4f, %.4f] not below 0.95: inconclusive",
	   ng == 1 ? g[0].t[2].hl.lo : 0, ng == 1 ? g[0].t[2].hl.hi : 0);
	kvb_verdict_mark(mark, sizeof(mark), &g[0].t[2], 5);
	ok(ng == 1 && str_ends(mark, "], not beyond -5%"),
	   "min effect: the mark says why: '%s'", mark);
	ok(ng == 1 && !strcmp(g[0].t[1].c->target, "rhashtable") && g[0].t[1].hl.significant &&
	   g[0].t[1].mark == KVB_V_TIED && g[0].ntied == 2,
	   "min effect: significant and the whole interval inside ±5%%: tied");
	ok(ng == 1 && g[0].t[3].mark == KVB_V_DIFFERENT, "min effect: -20%% is slower");
	kvb_verdict_free(g, ng);
	/* a margin of 1%: rwlock's interval, below 0.975, passes it */
	ng = kvb_verdict(c, 4, 0.05, 0.01, &g);
	ok(ng == 1 && !strcmp(g[0].t[2].c->target, "rwlock") &&
	   g[0].t[2].mark == KVB_V_DIFFERENT,
	   "min effect: at --margin 1 rwlock's difference passes it: slower");
	kvb_verdict_free(g, ng);
}

/*
 * The verdict line's "the next" is the row under the fastest (the closest
 * target not tied with it), whatever its mark: an inconclusive target
 * closer than the first slower one is named as the next, with its interval,
 * and the closest slower one is named as such.
 */
static void test_verdict_next(void)
{
	static const double fast[] = { 200, 202, 204, 206, 208 };
	static const double wide[] = { 150, 185, 195, 205, 215 };
	static const double slow[] = { 170, 172, 174, 176, 178 };
	static const double slower[] = { 100, 101, 102, 103, 104 };
	static const double wide2[] = { 120, 160, 180, 200, 212 };
	struct kvb_vcase c[4];
	struct kvb_vgroup *g;
	char line[1024];
	int ng;

	vcase(&c[0], "rcu", "get", 2, fast, 5);
	vcase(&c[1], "rhashtable", "get", 2, slow, 5);
	vcase(&c[2], "rwlock", "get", 2, wide, 5);
	vcase(&c[3], "combining", "get", 2, slower, 5);
	ng = kvb_verdict(c, 4, 0.05, 0.05, &g);
	kvb_verdict_line(line, sizeof(line), &g[0]);
	ok(ng == 1 && !strcmp(g[0].t[1].c->target, "rwlock") &&
	   g[0].t[1].mark == KVB_V_INCONCLUSIVE && g[0].t[2].mark == KVB_V_DIFFERENT &&
	   strstr(line, "get, 2 threads, batch 1: rcu; the next, rwlock: inconclusive (") &&
	   strstr(line, " (neither slower nor within ±5%), -4.4% [-26.5%, +5.4%]; the ") &&
	   strstr(line, "; the closest significantly slower, rhashtable: -14.7% [") &&
	   str_ends(line, " rhashtable: -14.7% [-17.3%, -12.0%], and 1 more"),
	   "verdict line: the next is the closest row, an inconclusive one: '%s'", line);
	kvb_verdict_free(g, ng);
	/* a second inconclusive one, further down: "also inconclusive" */
	vcase(&c[3], "kthread", "get", 2, wide2, 5);
	ng = kvb_verdict(c, 4, 0.05, 0.05, &g);
	kvb_verdict_line(line, sizeof(line), &g[0]);
	ok(ng == 1 && g[0].ninconclusive == 2 &&
	   strstr(line, "; the next, rwlock: inconclusive (") &&
	   strstr(line, "; the closest significantly slower, rhashtable: -14.7% [-17.3%, -12.0%]; "
		  "also inconclusive: kthread") && !strstr(line, "more"),
	   "verdict line: the other inconclusive ones after the slower: '%s'", line);
	kvb_verdict_free(g, ng);
	/* no inconclusive one: the next is the first slower one, as before */
	ng = kvb_verdict(c, 2, 0.05, 0.05, &g);
	kvb_verdict_line(line, sizeof(line), &g[0]);
	ok(ng == 1 &&
	   !strcmp(line, "get, 2 threads, batch 1: rcu; rhashtable: -14.7% [-17.3%, -12.0%]"),
	   "verdict line: one slower, named: '%s'", line);
	kvb_verdict_free(g, ng);
}

/*
 * Holm's step-down correction within a group: two targets at p 0.032 each
 * (5 runs against 5, U = 2) are each significant alone, not both after the
 * correction (2 x 0.032 > 0.05); a third at the floor (0.0079) stays
 * slower (3 x 0.0079 = 0.024). Seven comparisons at the floor: 5 runs
 * against 5 cannot reach Holm's first step (0.05 / 7), and the line says so.
 */
static void test_verdict_holm(void)
{
	static const double fast[] = { 200, 202, 204, 206, 208 };
	static const double a[] = { 180, 182, 184, 186, 203 };
	static const double b[] = { 179, 181, 183, 185, 203.5 };
	static const double low[] = { 100, 101, 102, 103, 104 };
	static const double p[] = { 0.03, NAN, 0.01, 0.04, 0.005 };
	static const char * const name[] = { "b1", "b2", "b3", "b4", "b5", "b6", "b7" };
	struct kvb_vcase c[8];
	struct kvb_vgroup *g;
	struct kvb_vtally tl = { .pfloor = NAN };
	char line[1024], *buf = NULL;
	double adj[5];
	size_t len = 0;
	FILE *f;
	int ng, i;

	kvb_holm(p, 5, adj);
	/* by p: 0.005 x 4, 0.01 x 3, 0.03 x 2, 0.04 x 1, each at least the one before */
	ok(fabs(adj[4] - 0.02) < TINY && fabs(adj[2] - 0.03) < TINY &&
	   fabs(adj[0] - 0.06) < TINY && fabs(adj[3] - 0.06) < TINY && isnan(adj[1]),
	   "Holm: (m - i) p(i), never below the step before, NAN no test");

	vcase(&c[0], "rcu", "get", 2, fast, 5);
	vcase(&c[1], "rwlock", "get", 2, a, 5);
	vcase(&c[2], "rhashtable", "get", 2, b, 5);
	vcase(&c[3], "kthread", "get", 2, low, 5);
	ng = kvb_verdict(c, 3, 0.05, 0.05, &g);
	ok(ng == 1 && g[0].t[1].hl.significant && g[0].t[2].hl.significant &&
	   fabs(g[0].t[1].hl.p - 8.0 / 252) < TINY &&
	   fabs(g[0].t[1].p_holm - 16.0 / 252) < TINY &&
	   g[0].t[1].mark == KVB_V_INCONCLUSIVE && g[0].t[2].mark == KVB_V_INCONCLUSIVE,
	   "Holm: two at p 0.032, each slower alone, inconclusive both after the correction");
	kvb_verdict_line(line, sizeof(line), &g[0]);
	ok_has(line, "; the next, rwlock: inconclusive (neither slower nor within ±5%), ",
	       "Holm: the line calls the next inconclusive");
	ok_has(line, ", Holm p 0.063; also inconclusive: rhashtable",
	       "Holm: the line says which p the correction took above alpha");
	f = open_memstream(&buf, &len);
	kvb_verdict_table(f, &g[0]);
	kvb_verdict_json(f, g, ng, NULL, 2);
	fclose(f);
	ok(strstr(buf, " 0.032  0.063 inconclusive\n") &&
	   strstr(buf, "\"correction\": \"holm\", \"min_effect\": true, ") &&
	   strstr(buf, "\"min_effect\": true, \"comparisons\": 2, \"holm_binds\": false,") &&
	   strstr(buf, "\"p\": 0.0317, \"p_floor\": 0.0079, \"p_holm\": 0.0635,"),
	   "Holm: the table's Holm column, the JSON's correction, min_effect and p_holm");
	free(buf);
	buf = NULL;
	kvb_verdict_free(g, ng);

	ng = kvb_verdict(c, 4, 0.05, 0.05, &g);
	ok(ng == 1 && !strcmp(g[0].t[3].c->target, "kthread") &&
	   g[0].t[3].mark == KVB_V_DIFFERENT && fabs(g[0].t[3].p_holm - 6.0 / 252) < TINY &&
	   g[0].t[1].mark == KVB_V_INCONCLUSIVE && g[0].t[2].mark == KVB_V_INCONCLUSIVE &&
	   !g[0].holm_binds,
	   "Holm: the one at the floor stays slower (3 x 0.0079), the two at 0.032 do not");
	kvb_verdict_free(g, ng);

	/* eight targets: seven comparisons at the floor of 5 runs against 5 */
	vcase(&c[0], "rcu", "get", 2, fast, 5);
	for (i = 0; i < 7; i++)
		vcase(&c[i + 1], name[i], "get", 2, low, 5);
	ng = kvb_verdict(c, 8, 0.05, 0.05, &g);
	kvb_verdict_line(line, sizeof(line), &g[0]);
	ok(ng == 1 && g[0].holm_binds && g[0].ninconclusive == 7 &&
	   fabs(g[0].t[1].hl.p - 2.0 / 252) < TINY && g[0].t[1].hl.significant,
	   "Holm: 7 comparisons at the floor, none slower (7 x 0.0079 > 0.05)");
	ok_has(line,
	       "; none can be marked slower: 7 comparisons (Holm) need a p of 0.0071, below what these runs can give (0.0079): use -r 6",
	       "Holm: the line states the p floor that binds and the runs that would do");
	kvb_verdict_tally(&tl, &g[0]);
	f = open_memstream(&buf, &len);
	kvb_verdict_legend(f, 0.05, &tl);
	fclose(f);
	ok(strstr(buf, "7 comparisons in 1 group, corrected by Holm's method") &&
	   strstr(buf, "p floor: 5 runs against 5 cannot give a p below 0.0079, and Holm's\n") &&
	   strstr(buf, "\nfirst step over 7 comparisons needs 0.0071: in 1 group no") &&
	   strstr(buf, "\nbe marked slower. Use -r 6.\n"),
	   "Holm: the legend states the correction and the p floor that binds");
	free(buf);
	kvb_verdict_free(g, ng);
}

/* Write text to dir/name. */
static int put_text(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static void test_prov(void)
{
	char dir[] = "/tmp/kvbench-test-XXXXXX", sub[64], out[256];
	struct kvb_bstats before, after;
	struct kvb_prov pv = { 0 };

	if (!mkdtemp(dir)) {
		skip("no temporary directory", "provenance and backend statistics");
		return;
	}
	snprintf(sub, sizeof(sub), "%s/parameters", dir);
	mkdir(sub, 0700);
	put_text(sub, "queue_len", "256\n");
	put_text(sub, "backend", "rcu\n");
	put_text(dir, "version", "0.1\n");
	kvb_prov_collect(&pv, dir, 0, NULL);
	ok(pv.nparams == 2 && !strcmp(pv.param_name[0], "backend") &&
	   !strcmp(pv.param_value[0], "rcu") && !strcmp(pv.param_name[1], "queue_len") &&
	   !strcmp(pv.param_value[1], "256") && !strcmp(pv.module_version, "0.1") &&
	   pv.argc > 0 && pv.nproc > 0 && pv.cpu_model[0],
	   "provenance: module version, every parameter (sorted), command line, CPUs");
	kvb_prov_free(&pv);
	snprintf(sub, sizeof(sub), "%s/none", dir);
	kvb_prov_collect(&pv, sub, 0, NULL);
	ok(pv.nparams == -1 && !pv.module_version[0],
	   "provenance: no module: no version, no parameters");
	kvb_prov_free(&pv);

	/* No reset file: a delta for the counter, no drain_mean, hwm as it is */
	put_text(dir, "queue_full", "5\n");
	put_text(dir, "queue_hwm", "9\n");
	put_text(dir, "drain_mean", "2.50\n");
	put_text(dir, "gets", "100\n");
	put_text(dir, "sets", "10\n");
	put_text(dir, "dels", "1\n");
	kvb_bstats_begin(dir, &before);
	put_text(dir, "queue_full", "12\n");
	put_text(dir, "gets", "400\n");
	kvb_bstats_end(dir, &before, &after);
	ok(after.valid && !after.reset && after.queue_full == 7 && after.queue_hwm == 9 &&
	   isnan(after.drain_mean) && after.requests == 300 && !after.has_sleeps &&
	   isnan(kvb_wakeups_per_req(&after)) && isnan(after.combine_mean),
	   "backend stats without a reset: queue_full delta, no drain_mean");
	ok(!after.has_poll && !after.poll_us && !after.owners &&
	   after.window_s >= 0 && after.window_s < 60 &&
	   isnan(kvb_poll_cpus(&after, after.window_s)) && isnan(kvb_poll_cpus(&after, 2)),
	   "backend stats: a module without poll_us and owners: polling unknown");
	/* poll_us without owners: not the module that has both */
	put_text(dir, "poll_us", "100\n");
	kvb_bstats_begin(dir, &before);
	kvb_bstats_end(dir, &before, &after);
	ok(after.valid && !after.has_poll && isnan(kvb_poll_cpus(&after, 2)),
	   "backend stats: poll_us without owners: polling unknown");
	/* A module with both: the counter's delta, the gauge after the case */
	put_text(dir, "owners", "2\n");
	kvb_bstats_begin(dir, &before);
	put_text(dir, "poll_us", "500100\n");
	put_text(dir, "owners", "1\n");
	kvb_bstats_end(dir, &before, &after);
	ok(after.valid && after.has_poll && after.poll_us == 500000 && after.owners == 1 &&
	   after.window_s >= 0 && after.window_s < 60 && kvb_poll_cpus(&after, 2) == 0.25 &&
	   isnan(kvb_poll_cpus(&after, 0)),
	   "backend stats: poll_us delta, owners after the case, 0.25 CPUs polling over 2 s");
	snprintf(sub, sizeof(sub), "%s/owners", dir);
	unlink(sub);
	kvb_bstats_end(dir, &before, &after);
	ok(after.valid && !after.has_poll && !after.poll_us && !after.owners,
	   "backend stats: owners gone by the end of the case: polling unknown");
	put_text(dir, "owners", "1\n");
	/* A module with sleeps and handoffs: deltas, wake-ups per request */
	put_text(dir, "sleeps", "40\n");
	put_text(dir, "handoffs", "2\n");
	put_text(dir, "combine_mean", "7.25\n");
	kvb_bstats_begin(dir, &before);
	put_text(dir, "gets", "600\n");
	put_text(dir, "sleeps", "90\n");
	put_text(dir, "handoffs", "5\n");
	kvb_bstats_end(dir, &before, &after);
	ok(after.valid && after.has_sleeps && after.requests == 200 &&
	   after.sleeps == 50 && after.handoffs == 3 &&
	   kvb_wakeups_per_req(&after) == 0.25 && isnan(after.combine_mean),
	   "backend stats: sleeps and handoffs deltas, 0.25 wake-ups per request");
	/* A reset file that takes the write: the values are the case's */
	put_text(dir, "reset", "");
	put_text(dir, "queue_full", "0\n");
	kvb_bstats_begin(dir, &before);
	put_text(dir, "queue_full", "3\n");
	kvb_bstats_end(dir, &before, &after);
	snprintf(sub, sizeof(sub), "%s/reset", dir);
	slurp(sub, out, sizeof(out));
	ok(after.valid && after.reset && after.queue_full == 3 && after.drain_mean == 2.5 &&
	   after.combine_mean == 7.25 && !strcmp(out, "1"),
	   "backend stats after writing 1 to reset: the case's own values");
	put_text(dir, "drain_mean", "x\n");
	kvb_bstats_end(dir, &before, &after);
	ok(!after.valid, "backend stats: an unreadable value: no statistics, not wrong ones");
	snprintf(sub, sizeof(sub), "%s/none", dir);
	kvb_bstats_begin(sub, &before);
	kvb_bstats_end(sub, &before, &after);
	ok(!after.valid, "backend stats: no sysfs directory: none");
	run(out, sizeof(out), "rm -rf %s", dir);
}

/*
 * --trace-stall against a stand-in for tracefs (regular files): nothing
 * at or under the threshold; the first operation over it writes its line
 * to trace_marker, then 0 to tracing_on; the second writes nothing; a
 * trace that is off at the start is left alone. Then from the command
 * line, with every operation over a threshold of 0.
 */
static void test_trace_stall(const char *k)
{
	char dir[] = "/tmp/kvbench-test-XXXXXX", path[128], buf[1024], err[256];
	char out[32768];
	struct kvb_stall st;
	int r1, r2, st_rc;

	if (!mkdtemp(dir)) {
		skip("no temporary directory", "--trace-stall");
		return;
	}
	ok(kvb_stall_open(&st, dir, 100, err, sizeof(err)) == -1 &&
	   strstr(err, "trace_marker") && strstr(err, "tracefs"),
	   "--trace-stall: no trace_marker: an error naming it (%s)", err);
	run(out, sizeof(out), ": >%s/trace_marker && echo 1 >%s/tracing_on", dir, dir);
	ok(!kvb_stall_open(&st, dir, 100, err, sizeof(err)) && !st.off_at_start &&
	   st.threshold_ns == 100000, "--trace-stall: armed on a trace that is on");
	r1 = kvb_stall_hit(&st, 100000, "GET", "c1", 0);
	snprintf(path, sizeof(path), "%s/trace_marker", dir);
	slurp(path, buf, sizeof(buf));
	ok(!r1 && !buf[0] && !atomic_load(&st.fired),
	   "--trace-stall: an operation of exactly the threshold writes nothing");
	r1 = kvb_stall_hit(&st, 2345678, "SET", "kthread ycsb-a threads=1", 3);
	r2 = kvb_stall_hit(&st, 9000000, "GET", "c2", 1);
	slurp(path, buf, sizeof(buf));
	ok(r1 == 1 && !r2 && count_of(buf, "kvbench stall: ") == 1 &&
	   strstr(buf, "kvbench stall: SET took 2345 us (over 100 us), thread 3 tid ") &&
	   strstr(buf, ", case kthread ycsb-a threads=1\n") && !strstr(buf, "c2"),
	   "--trace-stall: the first operation over it, once: %s", buf);
	snprintf(path, sizeof(path), "%s/tracing_on", dir);
	slurp(path, buf, sizeof(buf));
	ok(!strcmp(buf, "0\n") && st.ns == 2345678 && st.thread == 3 &&
	   !strcmp(st.what, "SET") && !st.marker_err && !st.off_err,
	   "--trace-stall: then tracing_on is 0, and what fired is kept");
	kvb_stall_close(&st);
	ok(!kvb_stall_open(&st, dir, 0, err, sizeof(err)) && st.off_at_start &&
	   !kvb_stall_hit(&st, 5000, "GET", "c3", 0),
	   "--trace-stall: a trace that is off at the start is not armed");
	kvb_stall_close(&st);
	/* US:3: two operations over it do not fire, the third does */
	run(out, sizeof(out), ": >%s/trace_marker && echo 1 >%s/tracing_on", dir, dir);
	ok(!kvb_stall_open(&st, dir, 100, err, sizeof(err)), "--trace-stall 100:3: armed");
	st.count = 3;
	r1 = kvb_stall_hit(&st, 200000, "GET", "c4", 0);
	r1 += kvb_stall_hit(&st, 50000, "GET", "c4", 0);
	r1 += kvb_stall_hit(&st, 300000, "GET", "c4", 0);
	r2 = kvb_stall_hit(&st, 400000, "SET", "c4", 0);
	snprintf(path, sizeof(path), "%s/trace_marker", dir);
	slurp(path, buf, sizeof(buf));
	ok(!r1 && r2 == 1 &&
	   strstr(buf,
		  "kvbench stall: SET took 400 us (over 100 us; the 3rd over it in the run)"),
	   "--trace-stall 100:3: the third over 100 us fires, not the first two: %s", buf);
	kvb_stall_close(&st);

	if (!k || access(k, X_OK)) {
		skip("no kvbench binary", "--trace-stall from the command line");
		run(out, sizeof(out), "rm -rf %s", dir);
		return;
	}
	st_rc = run(out, sizeof(out),
		    ": >%s/trace_marker && echo 1 >%s/tracing_on && %s bench -q -b user-rwlock -m 50:50 -t 2 -n 500 -w 0 -r 2 --trace-stall 0 --trace-dir %s -f json 2>%s/err && cat %s/trace_marker",
		    dir, dir, k, dir, dir, dir);
	ok(st_rc == 0 && count_of(out, "kvbench stall: ") == 1 &&
	   strstr(out, "\"trace_stall\": { \"threshold_us\": 0, ") &&
	   strstr(out, "\"armed\": true, \"fired\": true,") &&
	   strstr(out, "\"case\": \"user-rwlock 50:50 threads=2 batch=1\"") &&
	   strstr(out, "\"sample_every\": 1,"),
	   "bench --trace-stall 0: fires once, at the first operation, the report says so");
	snprintf(path, sizeof(path), "%s/err", dir);
	slurp(path, buf, sizeof(buf));
	ok(count_of(buf, "kvbench: trace-stall: trace frozen at ") == 1,
	   "bench --trace-stall: stderr says it once: %s", buf);
	st_rc = run(out, sizeof(out),
		    "echo 1 >%s/tracing_on && %s bench -q -b user-rwlock -t 1 -n 100 -w 0 -r 1 --trace-stall 60s --trace-dir %s 2>&1",
		    dir, k, dir);
	ok(st_rc == 2 && strstr(out, "--trace-stall: "),
	   "bench --trace-stall takes microseconds, a number");
	st_rc = run(out, sizeof(out),
		    "%s bench -q -b user-rwlock -t 1 -n 1000 -w 0 -r 1 --trace-stall 60000000 --trace-dir %s 2>&1",
		    k, dir);
	ok(st_rc == 0 && strstr(out, "trace-stall: no operation over 60000000 us"),
	   "bench --trace-stall: none over the threshold, said");
	st_rc = run(out, sizeof(out),
		    "%s bench -q -b user-rwlock -t 1 -n 100 -r 1 --trace-stall 10 --trace-dir %s --sample-every 64 2>&1; %s bench -q -b user-rwlock -t 1 -n 100 -r 1 --trace-dir %s 2>&1",
		    k, dir, k, dir);
	ok(count_of(out, "Try 'kvbench bench --help'") == 2 &&
	   strstr(out, "--trace-stall times every operation") &&
	   strstr(out, "--trace-dir: only with --trace-stall"),
	   "bench --trace-stall with --sample-every other than 1, --trace-dir alone: usage errors");
	run(out, sizeof(out), "rm -rf %s", dir);
}

/* kvbench --version, compare, --seed, --noisy from the command line. */
static void test_cli_stats(const char *k)
{
	char out[32768], dir[] = "/tmp/kvbench-test-XXXXXX", version[64] = "";
	int st;

	if (!k || access(k, X_OK) || !mkdtemp(dir)) {
		skip("no kvbench binary or temporary directory", "version, compare, --seed");
		return;
	}
	slurp("../../VERSION", version, sizeof(version));
	version[strcspn(version, "\n")] = 0;
	st = run(out, sizeof(out), "%s --version", k);
	ok(st == 0 && !strncmp(out, "kvbench ", 8) &&
	   !strncmp(out + 8, kvb_version, strlen(kvb_version)) &&
	   (!version[0] || !strcmp(kvb_version, version)),
	   "kvbench --version: %s (the VERSION file: %s)", kvb_version, version);
	st = run(out + 1000, sizeof(out) - 1000, "%s version", k);
	ok(st == 0 && !strcmp(out, out + 1000), "kvbench version says the same");
	st = run(out, sizeof(out),
		 "%s bench -q -b user-rwlock -t 1 -n 1000 -w 0 -r 2 --seed 42 --noisy 0 -f json 2>&1",
		 k);
	ok(st == 0 && json_valid(out) && strstr(out, "\"seed\": 42,") &&
	   strstr(out, "\"seed_given\": true") && strstr(out, "\"noisy\": true") &&
	   strstr(out, "\"noisy_pct\": 0.0") && strstr(out, "\"command_line\": [") &&
	   strstr(out, "\"--seed\", \"42\"") && strstr(out, "\"tool_version\": ") &&
	   strstr(out, "\"accel\": "),
	   "bench --seed 42 --noisy 0: seed, provenance and a noisy case in the JSON");
	st = run(out, sizeof(out),
		 "KVBENCH_ACCEL=tcg %s bench -q -b user-rwlock -t 1 -n 1000 -w 0 --noisy 1000 -f json 2>&1",
		 k);
	ok(st == 0 && json_valid(out) && strstr(out, "\"seed_given\": false") &&
	   strstr(out, "\"noisy\": false") && strstr(out, "\"accel\": \"tcg\""),
	   "bench without --seed draws one and says so; KVBENCH_ACCEL is the accelerator");
	st = run(out, sizeof(out),
		 "%s bench --seed -1 2>&1; %s bench --seed 9007199254740992 2>&1; %s bench --noisy x 2>&1",
		 k, k, k);
	ok(st == 2 && strstr(out, "--seed: must be") && strstr(out, "--noisy: must be"),
	   "bench --seed and --noisy out of range: exit 2");
	/* One thread, N ops, no warm-up: the misses follow from the keys alone. */
	st = run(out, sizeof(out),
		 "for i in 1 2; do %s bench -q -b user-rwlock -t 1 -m 50:25:25 -n 20000 -w 0 --seed 5 -f json | grep -o '\"misses\": [0-9]*'; done",
		 k);
	ok(st == 0 && count(out, "\"misses\": ") == 2 && strlen(out) > 24 &&
	   !strncmp(out, out + strlen(out) / 2, strlen(out) / 2) && !strstr(out, "\"misses\": 0\n"),
	   "bench --seed 5 twice: the same operations and keys (the same misses: %.*s)",
	   (int)strcspn(out, "\n"), out);
	st = run(out, sizeof(out),
		 "%s bench -q -b user-rwlock -t 1 -m get,set -n 2000 -w 0 -r 5 --json %s/a.json >/dev/null 2>&1 && %s compare %s/a.json %s/a.json",
		 k, dir, k, dir, dir);
	ok(st == 0 && strstr(out, "user-rwlock") && strstr(out, "1.000   5+5") &&
	   strstr(out, " ~ "),
	   "kvbench compare of a report with itself: exit 0, ~");
	st = run(out, sizeof(out),
		 "sed 's/\"keys\": [0-9]*/\"keys\": 77/' %s/a.json >%s/b.json; %s compare -o %s/c.json %s/a.json %s/b.json 2>&1; echo \"st=$? $(test -e %s/c.json && echo file).\"",
		 dir, dir, k, dir, dir, dir, dir);
	ok(strstr(out, "params.keys: 1024 vs 77") && strstr(out, "st=2 ."),
	   "kvbench compare of two reports of other keys: exit 2, the difference, no -o file");
	st = run(out, sizeof(out),
		 "%s compare --json -o %s/c.json %s/a.json %s/a.json && cat %s/c.json",
		 k, dir, dir, dir, dir);
	ok(st == 0 && json_valid(out) && strstr(out, "\"schema\": \"kvbench-compare/1\"") &&
	   strstr(out, "\"ratio\": 1,"),
	   "kvbench compare --json -o FILE: strict JSON in FILE");
	put_text(dir, "bad.json", "{\"schema\": \"kvbench-bench/2\", \"results\": [1,]}");
	st = run(out, sizeof(out), "%s compare %s/a.json %s/bad.json 2>&1", k, dir, dir);
	ok(st == 1 && strstr(out, "bad.json: line 1"),
	   "kvbench compare of malformed JSON: exit 1, where");
	st = run(out, sizeof(out), "%s compare %s/a.json %s/missing.json 2>&1", k, dir, dir);
	ok(st == 1 && strstr(out, "missing.json: No such file"),
	   "kvbench compare of a missing file: exit 1");
	st = run(out, sizeof(out), "%s compare %s/a.json 2>&1; %s compare --alpha 2 a b 2>&1",
		 k, dir, k);
	ok(st == 2 && strstr(out, "takes 2 reports") && strstr(out, "--alpha: must be"),
	   "kvbench compare usage errors: exit 2");
	st = run(out, sizeof(out),
		 "%s compare --base rwlock a b 2>&1; %s compare --base rcu/uring-qd1 a 2>&1",
		 k, k);
	ok(st == 2 && strstr(out, "--base takes 1 report") &&
	   strstr(out, "--base: a backend's name, such as rwlock"),
	   "kvbench compare --base with 2 reports, or with an io variant: exit 2");
	/* a report of schema 1: no runs' list, no provenance */
	put_text(dir, "v1.json",
		 "{\"schema\": \"kvbench-bench/1\", \"results\": [{\"backend\": \"rcu\", \"kind\": \"kernel\", \"mix\": {\"name\": \"get\"}, \"threads\": 1, \"batch\": 1, \"fd\": \"per-thread\", \"ops_per_sec\": 558853.0, \"latency_ns\": {\"samples\": 1, \"p50\": 1833, \"p99\": 1943, \"p99_9\": 21683}}]}");
	if (run(out, sizeof(out), "command -v gnuplot >/dev/null 2>&1"))
		skip("no gnuplot", "kvbench plot draws a report of schema 1");
	else
		ok(!run(out, sizeof(out), "%s plot %s/v1.json %s/v1.png 2>&1 && test -s %s/v1.png",
			k, dir, dir, dir),
		   "kvbench plot draws a report of schema 1");
	st = run(out, sizeof(out), "%s compare --help", k);
	ok(st == 0 && strstr(out, "Mann-Whitney"), "kvbench compare --help");
	run(out, sizeof(out), "rm -rf %s", dir);
}

/* For the VM smoke test, where there is no python3. */
static int check_json_file(const char *path)
{
	FILE *f = fopen(path, "re");
	long len = -1;
	char *buf;
	int good;

	if (f && !fseek(f, 0, SEEK_END))
		len = ftell(f);
	if (len < 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "kvbench-test: %s: %s\n", path, strerror(errno));
		return 2;
	}
	buf = calloc(1, len + 1);
	if (!buf || fread(buf, 1, len, f) != (size_t)len) {
		fprintf(stderr, "kvbench-test: %s: read error\n", path);
		return 2;
	}
	fclose(f);
	good = json_valid(buf) && strstr(buf, "\"schema\": \"kvbench-bench/4\"") &&
	       strstr(buf, "\"ops_per_sec\"");
	printf("%s: %s\n", path, good ? "valid kvbench JSON" : "INVALID");
	free(buf);
	return good ? 0 : 1;
}

/*
 * --io, --qd, --sqpoll: a device target once per io and queue depth, each
 * under a name of its own; the others once. A fake ->queue row keeps
 * ops in flight: the engine counts what it reaps and times it from queue.
 */
#define FAKE_QD	4

struct fake_q {
	int op[FAKE_QD];
	__u64 t[FAKE_QD];
	unsigned int head, n;
};

static atomic_uint fake_q_over;

static int fake_q_init(struct kvb_ctx *c, enum kvb_fd fdmode)
{
	(void)fdmode;
	c->fd = -1;
	c->priv = calloc(1, sizeof(struct fake_q));
	return c->priv ? 0 : -ENOMEM;
}

static void fake_q_fini(struct kvb_ctx *c)
{
	free(c->priv);
	c->priv = NULL;
}

/* FIFO, FAKE_QD deep; a GET of an odd slot misses */
static int fake_q_queue(struct kvb_ctx *c, int op, const char *key, int timed,
			struct kvb_done *done)
{
	struct fake_q *q = c->priv;
	int got = 0;

	(void)key;
	if (q->n == FAKE_QD) {
		unsigned int h = q->head;

		done->op = q->op[h];
		done->result = q->op[h] == KVBENCH_OP_GET && (h & 1) ? -ENOENT : 0;
		done->queued_ns = q->t[h];
		q->head = (h + 1) % FAKE_QD;
		q->n--;
		got = 1;
	}
	atomic_fetch_add(&fake_q_over, q->n >= FAKE_QD);
	q->op[(q->head + q->n) % FAKE_QD] = op;
	q->t[(q->head + q->n) % FAKE_QD] = timed ? kvb_now_ns() : 0;
	q->n++;
	return got;
}

static void test_uring_params(void)
{
	static const struct {
		const char *base;
		enum kvb_io io;
		unsigned int qd;
		int sqpoll;
		const char *name;
	} names[] = {
		{ "rcu", KVB_IO_IOCTL, 0, 0, "rcu" },
		{ "rcu", KVB_IO_URING, 16, 0, "rcu/uring-qd16" },
		{ "rcu", KVB_IO_URING, 64, 1, "rcu/uring-qd64-sqpoll" },
		{ "nop", KVB_IO_URING, 1, 0, "nop/uring-qd1" },
		{ "user-rwlock", KVB_IO_NONE, 0, 0, "user-rwlock" },
		{ "kthread-percpu", KVB_IO_URING, KVB_MAX_QD, 1,
		  "kthread-percpu/uring-qd1024-sqpoll" },
	};
	static const struct kvb_target_ops fake_ops = {
		.kind = KVB_KERNEL,
		.group = "kernel",
		.flags = KVB_T_MIXES,
		.thread_init = fake_q_init,
		.thread_fini = fake_q_fini,
		.op = fake_op,
		.queue = fake_q_queue,
	};
	struct kvb_target t = { .name = "fake", .kind = KVB_KERNEL, .ops = &fake_ops };
	struct kvb_mix mix = { .get = 50, .set = 50, .del = 0 };
	struct kvb_target *tg = NULL;
	struct kvb_ulist qds = { NULL, 0 };
	struct kvb_params p;
	struct kvb_result r;
	struct kvb_bench *b;
	char name[KVB_NAME_MAX], err[256];
	unsigned int ios = 0, i;
	int n = 0, cpus[1] = { 0 }, good = 1, rc;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		kvb_target_name(name, sizeof(name), names[i].base, names[i].io,
				names[i].qd, names[i].sqpoll);
		if (strcmp(name, names[i].name)) {
			good = 0;
			printf("# %s, not %s\n", name, names[i].name);
		}
	}
	ok(good, "target names: rcu, rcu/uring-qd16, rcu/uring-qd64-sqpoll, the longest fits");
	ok(!kvb_parse_io("ioctl", &ios, err, sizeof(err)) && ios == 1U << KVB_IO_IOCTL &&
	   !kvb_parse_io("uring", &ios, err, sizeof(err)) && ios == 1U << KVB_IO_URING &&
	   !kvb_parse_io("both", &ios, err, sizeof(err)) && ios == 3 &&
	   !kvb_parse_io("ioctl,uring", &ios, err, sizeof(err)) && ios == 3 &&
	   kvb_parse_io("aio", &ios, err, sizeof(err)) && strstr(err, "'aio'") &&
	   strstr(err, "ioctl, uring or both"),
	   "--io: ioctl, uring, both (ioctl,uring); anything else is named in the error");
	ok(kvb_uring_submit_batch(1, 0) == 1 && kvb_uring_submit_batch(16, 0) == 4 &&
	   kvb_uring_submit_batch(64, 0) == 16 && kvb_uring_submit_batch(64, 1) == 1,
	   "SQEs per submission: a quarter of the depth, 1 with SQPOLL");
	good = !kvb_parse_targets("nop,rcu,user-rwlock", &tg, &n, err, sizeof(err)) &&
	       !kvb_parse_ulist("1,16", 1, KVB_MAX_QD, KVB_MAX_QD, &qds, err, sizeof(err)) &&
	       !kvb_expand_io(&tg, &n, 3, &qds, 1, err, sizeof(err)) && n == 7;
	if (good) {
		static const char * const want[] = {
			"nop", "nop/uring-qd1-sqpoll", "nop/uring-qd16-sqpoll", "rcu",
			"rcu/uring-qd1-sqpoll", "rcu/uring-qd16-sqpoll", "user-rwlock",
		};

		for (i = 0; i < ARRAY_SIZE(want); i++)
			good &= !strcmp(tg[i].name, want[i]);
		good &= tg[1].ops == &kvb_nop_uring_ops && tg[4].ops == &kvb_kernel_uring_ops &&
			!strcmp(tg[5].base, "rcu") && tg[5].qd == 16 && tg[5].sqpoll &&
			tg[5].io == KVB_IO_URING && tg[3].io == KVB_IO_IOCTL &&
			tg[6].io == KVB_IO_NONE;
	}
	ok(good,
	   "--io both --qd 1,16 --sqpoll: each device target through ioctls, then per depth; user-rwlock once");
	free(tg);
	tg = NULL;
	ok(!kvb_parse_targets("user-rwlock,bpf-htab", &tg, &n, err, sizeof(err)) &&
	   kvb_expand_io(&tg, &n, 1U << KVB_IO_URING, &qds, 0, err, sizeof(err)) &&
	   strstr(err, "io_uring"),
	   "--io uring without a target on the device: an error that says why");
	free(tg);
	free(qds.v);

	kvb_params_defaults(&p);
	p.repeat = 1;	/* one run: these count what one run does */
	p.keys = 64;
	p.ops = 1000;
	p.warmup = 0;
	p.pin = 0;
	p.ncpus = 1;
	p.cpus = cpus;
	p.sample_every = 4;
	b = kvb_bench_new(&p);
	if (!b) {
		ok(0, "bench context");
		return;
	}
	rc = kvb_run_case(b, &t, &mix, 2, 1, 0, KVB_FD_NONE, &r);
	ok(!rc && r.ops == 2000 && r.misses > 0 && !r.errors &&
	   r.samples > 100 && !atomic_load(&fake_q_over),
	   "engine: a ->queue row counts what it reaps (%llu ops, %llu misses, %llu samples)",
	   r.ops, r.misses, r.samples);
	kvb_result_free(&r);
	kvb_bench_free(b);
}

/* The CLI: the options' errors, the plan's names, the skip line. */
static void test_uring_cli(const char *k)
{
	char out[8192], dir[] = "/tmp/kvbench-test-XXXXXX";
	int st;

	if (!k || access(k, X_OK)) {
		skip("no kvbench binary given", "--io, --qd and --sqpoll on the command line");
		return;
	}
	st = run(out, sizeof(out), "%s bench --dry-run -b nop --io aio 2>&1", k);
	ok(st == 2 && strstr(out, "--io: 'aio' is not ioctl, uring or both"),
	   "bench --io aio: exit 2, says what --io takes");
	st = run(out, sizeof(out), "%s bench --dry-run -b nop --io uring --qd 0 2>&1", k);
	ok(st == 2 && strstr(out, "--qd: '0' is outside 1..1024"),
	   "bench --qd 0: exit 2 with the range");
	st = run(out, sizeof(out), "%s bench --dry-run -b nop --io uring --qd 1025 2>&1", k);
	ok(st == 2 && strstr(out, "--qd: '1025' is outside 1..1024"),
	   "bench --qd 1025: exit 2 with the range");
	st = run(out, sizeof(out), "%s bench --dry-run -b nop --qd 16 2>&1", k);
	ok(st == 2 && strstr(out, "--qd: needs --io uring"),
	   "bench --qd without --io uring: exit 2");
	st = run(out, sizeof(out), "%s bench --dry-run -b nop --io ioctl --sqpoll 2>&1", k);
	ok(st == 2 && strstr(out, "--sqpoll: needs --io uring"),
	   "bench --sqpoll without --io uring: exit 2");
	st = run(out, sizeof(out), "%s bench --dry-run -b user-owner --io uring 2>&1", k);
	ok(st == 2 && strstr(out, "--io: no target runs on the device"),
	   "bench --io uring with no device target: exit 2");
	st = run(out, sizeof(out),
		 "%s bench --dry-run -b nop,rcu,user-rwlock -t 1,2 -m get --batch 1,64 --io both --qd 1,16,64 -r 1 2>&1",
		 k);
	ok(st == 0 && strstr(out, "\nnop                   2 ") &&
	   strstr(out, "\nnop/uring-qd16        2 ") && strstr(out, "\nrcu                   4 ") &&
	   strstr(out, "\nrcu/uring-qd1         2 ") && strstr(out, "\nrcu/uring-qd64        2 ") &&
	   strstr(out, "\nuser-rwlock           2 ") && strstr(out, "kvbench: 20 cases x 1 round"),
	   "--io both --qd 1,16,64: a target per depth, batch 1 only through io_uring");
	st = run(out, sizeof(out),
		 "%s bench --dry-run -b kthread -t 1 -m get --io uring --qd 16 --sqpoll 2>&1", k);
	ok(st == 0 && strstr(out, "\nkthread/uring-qd16-sqpoll ") && !strstr(out, "\nkthread "),
	   "--io uring --sqpoll: kthread/uring-qd16-sqpoll, no ioctl target");
	st = run(out, sizeof(out), "%s bench --help", k);
	ok(st == 0 && strstr(out, "--io MODE") && strstr(out, "--qd LIST") &&
	   strstr(out, "--sqpoll"),
	   "bench --help lists --io, --qd and --sqpoll");
	if (!mkdtemp(dir)) {
		skip("no temporary directory",
		     "a device without io_uring commands: the uring targets are skipped");
		return;
	}
	/* a regular file: io_uring works, its URING_CMD does not */
	st = run(out, sizeof(out),
		 "touch %s/dev && %s bench -q -d %s/dev -b nop --io uring --qd 1,4 --sqpoll -t 1 -D 10ms -w 0 2>&1",
		 dir, k, dir);
	ok(st == 0 && count_of(out, "kvbench: io_uring: ") == 1 &&
	   count_of(out, "are skipped") == 1 && strstr(out, "nop/uring-qd4-sqpoll") &&
	   strstr(out, "skipped: 2 cases did not run"),
	   "a device without io_uring commands: one line, the uring targets skipped, exit 0");
	run(out, sizeof(out), "rm -rf %s", dir);
	/* /dev/null takes URING_CMD on recent kernels: the queue runs for real */
	st = run(out, sizeof(out),
		 "%s bench -q -d /dev/null -b nop --io uring --qd 8 -t 2 -n 3000 -w 0 -r 1 --sample-every 2 -f json 2>&1",
		 k);
	if (st == 0 && strstr(out, "are skipped")) {
		skip("this kernel's /dev/null takes no io_uring commands",
		     "nop/uring-qd8 on /dev/null: every command reaped and counted");
	} else {
		ok(st == 0 && json_valid(out) && strstr(out, "\"backend\": \"nop/uring-qd8\"") &&
		   strstr(out, "\"io\": \"uring\"") && strstr(out, "\"qd\": 8,") &&
		   strstr(out, "\"submit_batch\": 2,") && strstr(out, "\"ops\": 6000,") &&
		   strstr(out, "\"errors\": 0,"),
		   "nop/uring-qd8 on /dev/null: every command reaped and counted");
	}
	/* SQPOLL: an SQ ring that looks full just after a CQE is no error */
	st = run(out, sizeof(out),
		 "%s bench -q -d /dev/null -b nop --io uring --qd 1,4 --sqpoll -t 1 -n 2000 -w 0 -r 1 -f csv 2>&1",
		 k);
	if (st == 0 && strstr(out, "are skipped")) {
		skip("this kernel's /dev/null takes no io_uring commands, or no SQPOLL",
		     "nop/uring-qd1-sqpoll and qd4-sqpoll on /dev/null: no errors");
	} else {
		ok(st == 0 && strstr(out, "\nnop/uring-qd1-sqpoll,floor,nop,") &&
		   strstr(out, "\nnop/uring-qd4-sqpoll,floor,nop,") &&
		   count_of(out, ",2000,0,0,") == 2 && count_of(out, ",uring,") == 2,
		   "nop/uring-qd1-sqpoll and qd4-sqpoll on /dev/null: no errors");
	}
}

/* A report, printed by fn into a string (free it). */
static char *report(void (*fn)(FILE *, const struct kvb_params *,
			       const struct kvb_result *, int,
			       const struct kvb_outcome *),
		    const struct kvb_params *p, const struct kvb_result *r, int n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fn(f, p, r, n, &(struct kvb_outcome){ .complete = 1 });
	fclose(f);
	return buf;
}

/*
 * hash_bits: sized for --keys before the kernel targets, put back at the
 * end (on a fake /sys/module/kvbench), and reported per case and in the
 * table's header; --keep-hash-bits leaves it alone.
 */
static void test_hash_bits(const char *k)
{
	static const struct {
		unsigned long keys;
		unsigned int bits;
	} sizes[] = {
		{ 1, 1 }, { 2, 1 }, { 1000, 10 }, { 1024, 10 }, { 1025, 11 },
		{ 1000000, 20 }, { 2000000, 20 },
	};
	static const char sized[] =
		"\nhash_bits: 20 (sized for 1000000 keys; --keep-hash-bits keeps the module's)\n";
	char dir[] = "/tmp/kvbench-test-XXXXXX", sub[64], path[96], out[8192];
	struct kvb_result r[3];
	struct kvb_params p;
	struct kvb_bench *b;
	double runs[2] = { 1, 2 };
	char *buf;
	size_t i;
	int good = 1, st;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		if (kvb_hash_bits_for(sizes[i].keys) != sizes[i].bits) {
			printf("# kvb_hash_bits_for(%lu): %u, want %u\n", sizes[i].keys,
			       kvb_hash_bits_for(sizes[i].keys), sizes[i].bits);
			good = 0;
		}
	}
	ok(good,
	   "kvb_hash_bits_for: 1, 2, 1000, 1024, 1025, 1000000, 2000000 keys: 1, 1, 10, 10, 11, 20, 20 bits");

	kvb_params_defaults(&p);
	p.repeat = 1;	/* one run: these count what one run does */
	p.keys = 1000;
	p.quiet = 1;
	b = kvb_bench_new(&p);
	if (!b || !mkdtemp(dir)) {
		skip("no memory or temporary directory", "hash_bits sized on a fake module");
		kvb_bench_free(b);
		b = NULL;
	}
	if (b) {
		p.sys_module = dir;
		snprintf(sub, sizeof(sub), "%s/parameters", dir);
		snprintf(path, sizeof(path), "%s/hash_bits", sub);
		ok(!kvb_size_hash_bits(b) && !b->orig_hash_bits && !kvb_module_hash_bits(dir),
		   "hash_bits: a module without the parameter is left alone");
		b->hash_bits_sized = 0;
		mkdir(sub, 0700);
		put_text(sub, "hash_bits", "12\n");
		ok(kvb_module_hash_bits(dir) == 12 && kvb_size_hash_bits(b) == 1 &&
		   kvb_module_hash_bits(dir) == 10 && b->orig_hash_bits == 12 &&
		   !kvb_size_hash_bits(b),
		   "hash_bits: 12 set to 10 for 1000 keys, once");
		kvb_restore_backend(b);
		slurp(path, out, sizeof(out));
		ok(!strcmp(out, "12") && !b->orig_hash_bits,
		   "hash_bits: put back to 12 at the end");
		b->hash_bits_sized = 0;
		p.keep_hash_bits = 1;
		ok(!kvb_size_hash_bits(b) && kvb_module_hash_bits(dir) == 12,
		   "hash_bits: --keep-hash-bits keeps the module's 12");
		p.keep_hash_bits = 0;
		b->hash_bits_sized = 0;
		put_text(sub, "hash_bits", "10\n");
		ok(!kvb_size_hash_bits(b) && !b->orig_hash_bits && kvb_module_hash_bits(dir) == 10,
		   "hash_bits: already right for the keys: not written, nothing to put back");
		put_text(sub, "hash_bits", "x\n");
		ok(!kvb_module_hash_bits(dir), "hash_bits: an unreadable value is none");
		kvb_bench_free(b);
		run(out, sizeof(out), "rm -rf %s", dir);
	}

	/* the reports: per case in the JSON, once in the table's header */
	kvb_params_defaults(&p);
	p.repeat = 1;	/* one run: these count what one run does */
	p.ncpus = 2;
	p.keys = 1000000;
	fake_results(r, runs);
	r[1].hash_bits = 20;
	r[2].hash_bits = 20;
	r[1].hash_bits_fit = 1;	/* what the run knew: 20 is for 1 M keys */
	r[2].hash_bits_fit = 1;
	buf = report(kvb_print_json, &p, r, 3);
	ok(buf && json_valid(buf) && count_of(buf, "\"hash_bits\": 20,\n") == 2 &&
	   count_of(buf, "\"hash_bits\": null,\n") == 1,
	   "JSON: hash_bits per case, a number for a kernel target, null for nop");
	free(buf);
	buf = report(kvb_print_table, &p, r, 3);
	ok(buf && count_of(buf, sized) == 1, "table header: hash_bits 20, sized for 1000000 keys");
	free(buf);
	p.keep_hash_bits = 1;
	r[1].hash_bits = 12;
	r[2].hash_bits = 12;
	buf = report(kvb_print_table, &p, r, 3);
	ok(buf && strstr(buf, "\nhash_bits: 12 (the module's, --keep-hash-bits)\n"),
	   "table header: hash_bits 12, the module's with --keep-hash-bits");
	free(buf);
	r[1].hash_bits = 0;
	r[2].hash_bits = 0;
	buf = report(kvb_print_table, &p, r, 3);
	ok(buf && !strstr(buf, "hash_bits"),
	   "table header: no hash_bits line without the module parameter");
	free(buf);

	if (!k || access(k, X_OK)) {
		skip("no kvbench binary given", "bench --keep-hash-bits on the command line");
		return;
	}
	st = run(out, sizeof(out), "%s bench --dry-run -b rcu -t 1 -m get -k 1M 2>&1", k);
	ok(st == 0 && strstr(out, "\nhash_bits: 20 for 1000000 keys, where the module has it"),
	   "bench --dry-run -k 1M: hash_bits 20 in the plan");
	st = run(out, sizeof(out),
		 "%s bench --dry-run -b rcu -t 1 -m get -k 1M --keep-hash-bits 2>&1", k);
	ok(st == 0 && strstr(out, "\nhash_bits: the module's (--keep-hash-bits)\n"),
	   "bench --keep-hash-bits parses: the module's hash_bits in the plan");
	st = run(out, sizeof(out),
		 "%s bench --dry-run -b user-rwlock -t 1 -k 1M --keep-hash-bits 2>&1; %s bench --help",
		 k, k);
	ok(st == 0 && !strstr(out, "\nhash_bits:") && strstr(out, "--keep-hash-bits  keep"),
	   "bench: no hash_bits without a kernel target; --help has --keep-hash-bits");
}

/* One result of a report in the tool's JSON, for the verdict's reader. */
static size_t vresult(char *buf, size_t len, const char *backend, const char *kind,
		      const char *mix, unsigned int threads, unsigned int batch,
		      const char *io, double base, unsigned int runs, int errors)
{
	size_t n = snprintf(buf, len,
			    "%s{\"backend\": \"%s\", \"kind\": \"%s\", \"mix\": {\"name\": \"%s\"}, \"threads\": %u, \"batch\": %u, \"multi\": false, \"fd\": %s, \"io\": %s, \"qd\": %s, \"sqpoll\": false, \"errors\": %d, \"ops_per_sec_runs\": [",
			    len && buf[-1] == '[' ? "" : ", ", backend, kind, mix, threads, batch,
			    strcmp(kind, "kernel") && strcmp(kind, "floor") ? "null" :
			    "\"per-thread\"",
			    io ? io : "null", io && strstr(io, "uring") ? "16" : "null", errors);
	unsigned int i;

	for (i = 0; i < runs && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%.1f", i ? ", " : "", base + i);
	if (n < len)
		n += snprintf(buf + n, len - n, "]}");
	return n;
}

/*
 * The verdict of a real make bench: the main suite's report of commit
 * 864f534, kept in testdata/ (5 runs per case, 4 workloads, 2 CPUs).
 */
/*
 * plot to a path it cannot write wrote the PNG to stdout (gnuplot's "set
 * output" failed and it drew on); -t and -r out of range said different
 * things ("not a list of numbers" against "outside 1..1000").
 */
static void test_plot_and_range_defects(const char *k)
{
	static const char json[] = "testdata/bench-864f534.json";
	char out[4096];
	int st;

	if (!k || access(k, X_OK) || access(json, R_OK)) {
		skip("no kvbench binary, or not run from tools/kvbench",
		     "plot to an unwritable path: exit 1, nothing on stdout");
		skip("no kvbench binary", "-t and -r out of range: the same words");
		return;
	}
	st = run(out, sizeof(out), "%s plot %s /nonexistent/dir/x.png 2>/dev/null | wc -c", k,
		 json);
	ok(st == 0 && atoi(out) == 0,
	   "plot to an unwritable path writes nothing on stdout (%d bytes)", atoi(out));
	st = run(out, sizeof(out), "%s plot %s /nonexistent/dir/x.png 2>&1 >/dev/null", k, json);
	ok(st == 1 && strstr(out, "/nonexistent/dir/x.png: cannot write the figure"),
	   "plot to an unwritable path: exit 1, says it cannot write it");
	st = run(out, sizeof(out),
		 "%s bench --dry-run -b user-rwlock -t 99999999999 2>&1; %s bench --dry-run -b user-rwlock -r 99999999999 2>&1",
		 k, k);
	ok(st == 2 && strstr(out, "--threads: '99999999999' is outside 1..1024") &&
	   strstr(out, "--repeat: '99999999999' is outside 1..1000"),
	   "-t and -r out of range: the same words");
}

/* plot --forest: the verdict's figure, per group the report shows */
/*
 * A verdict figure's gnuplot script (kvb_forest_script(), kvb_ops_script())
 * for the report in text, drawn to out: the script (to free), its status
 * in *rc (-1 when the report does not read), a message in err.
 */
static char *figure_script(int (*script)(FILE *, const char *, const struct kvb_rmodel *,
					 char *, size_t),
			   const char *text, const char *out, int *rc, char *err, size_t errlen)
{
	struct kvb_rmodel m;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	*rc = -1;
	if (f && !kvb_rmodel_parse(text, &m, err, errlen)) {
		*rc = script(f, out, &m, err, errlen);
		kvb_rmodel_free(&m);
	}
	if (f)
		fclose(f);
	return buf;
}

static void test_forest(const char *k)
{
	static const char json[] = "testdata/bench-864f534.json";
	char err[256] = "", *text, *buf = NULL, out[1024];
	int rc = -1, st;

	text = kvb_slurp(json, err, sizeof(err));
	if (!text) {
		skip("not run from tools/kvbench",
		     "plot --forest: a panel per group the report shows");
		skip("not run from tools/kvbench", "kvbench plot --forest draws");
		return;
	}
	buf = figure_script(kvb_forest_script, text, "f.svg", &rc, err, sizeof(err));
	ok(!rc && buf && strstr(buf, "set terminal svg ") && strstr(buf, "multiplot layout 4,1") &&
	   strstr(buf, "'rwlock! (inconclusive)' 1") && strstr(buf, "'rcu! (fastest)' 0") &&
	   strstr(buf, "set arrow from 0.95, graph 0") &&
	   strstr(buf, "set arrow from 1.05, graph 0") &&
	   strstr(buf, "\n1 0.839586 0.753252 1.0016 0xE69F00\n"),
	   "plot --forest: a panel per group the report shows, ratio and interval, mark and noisy (%s)",
	   err);
	if (getenv("KVB_DEBUG") && buf)
		fputs(buf, stderr);
	free(buf);
	free(text);
	if (!k || run(out, sizeof(out), "command -v gnuplot >/dev/null 2>&1")) {
		skip("no gnuplot", "kvbench plot --forest draws");
		return;
	}
	st = run(out, sizeof(out),
		 "f=/tmp/kvbench-forest-%d.png; %s plot --forest %s $f 2>&1 && test -s $f; r=$?; rm -f $f; exit $r",
		 (int)getpid(), k, json);
	ok(st == 0, "kvbench plot --forest draws the figure (%s)", out);
}

/*
 * plot --ops: the verdict's secondary figure, absolute ops/s per target
 * per group the report shows, the in-process baselines included.
 */
static void test_plot_ops(const char *k)
{
	static const char json[] = "testdata/bench-864f534.json";
	char err[256] = "", *text, *buf = NULL, out[1024];
	int rc = -1, st;

	text = kvb_slurp(json, err, sizeof(err));
	if (!text) {
		skip("not run from tools/kvbench", "plot --ops: ops/s per target, baselines in");
		skip("not run from tools/kvbench", "kvbench plot --ops draws");
		return;
	}
	buf = figure_script(kvb_ops_script, text, "o.svg", &rc, err, sizeof(err));
	/* ycsb-b at 2 threads: rcu's median 598324, its runs; user-rwlock in-process */
	ok(!rc && buf && strstr(buf, "set terminal svg ") && strstr(buf, "multiplot layout 4,1") &&
	   count_of(buf, "'user-rwlock! (in-process)'") == 4 &&
	   count_of(buf, "'user-owner! (in-process)'") == 4 &&
	   strstr(buf, "\n0 598324 548976 619079 7 0x009E73\n") &&
	   strstr(buf, "\n2 452659 236101 654442 6 0x56B4E9\n") &&
	   strstr(buf, "'rwlock! (inconclusive)'") && strstr(buf, "set logscale x") &&
	   !strstr(buf, "'nop"),
	   "plot --ops: a panel per group the report shows, ops/s per target, baselines in (%s)",
	   err);
	if (getenv("KVB_DEBUG") && buf)
		fputs(buf, stderr);
	free(buf);
	free(text);
	if (!k || access(k, X_OK)) {
		skip("no kvbench binary", "plot --forest --ops: one figure at a time");
		skip("no kvbench binary", "kvbench plot --ops draws");
		return;
	}
	st = run(out, sizeof(out), "%s plot --forest --ops %s x.png 2>&1", k, json);
	ok(st == 2 && strstr(out, "one figure at a time"), "plot --forest --ops: exit 2, said");
	if (run(out, sizeof(out), "command -v gnuplot >/dev/null 2>&1")) {
		skip("no gnuplot", "kvbench plot --ops draws");
		return;
	}
	st = run(out, sizeof(out),
		 "f=/tmp/kvbench-ops-%d.png; %s plot --ops %s $f 2>&1 && test -s $f; r=$?; rm -f $f; exit $r",
		 (int)getpid(), k, json);
	ok(st == 0, "kvbench plot --ops draws the figure (%s)", out);
}

/*
 * The verdict lines of report text joined back in place: a line that goes
 * on after "verdict: " begins with two spaces (kvb_wrap()).
 */
static void join_verdicts(char *s)
{
	char *p = s, *w;
	int in = 0;

	for (w = s; *p; ) {
		if (p == s || p[-1] == '\n')
			in = in ? !strncmp(p, "  ", 2) || !strncmp(p, "verdict: ", 9) :
			     !strncmp(p, "verdict: ", 9);
		if (in && p[0] == '\n' && p[1] == ' ' && p[2] == ' ') {
			*w++ = ' ';
			p += 3;
			continue;
		}
		*w++ = *p++;
	}
	*w = 0;
}

/* The widest line of text, in columns (UTF-8 code points), and where */
static int widest(const char *s, const char **at)
{
	int w = 0, c = 0;
	const char *start = s;

	*at = s;
	for (; *s; s++) {
		if (*s == '\n') {
			if (c > w) {
				w = c;
				*at = start;
			}
			c = 0;
			start = s + 1;
		} else if (((unsigned char)*s & 0xc0) != 0x80) {
			c++;
		}
	}
	return c > w ? c : w;
}

/*
 * kvbench report for mail: every line within 80 columns, the verdict lines
 * wrapped at spaces outside brackets, so that joined they are the verdict
 * of report --json word for word.
 */
static void test_report_mail(const char *k)
{
	static const char json[] = "testdata/bench-864f534.json";
	static char out[65536], js[262144];
	const struct jnode *reps, *v;
	const char *at;
	struct jnode root;
	char err[256] = "";
	int st, w, i, found = 0, same = 0;

	if (!k || access(k, X_OK) || access(json, R_OK)) {
		skip("no kvbench binary, or not run from tools/kvbench",
		     "kvbench report fits 80 columns");
		return;
	}
	st = run(out, sizeof(out), "%s report --all %s 2>&1", k, json);
	w = widest(out, &at);
	ok(st == 0 && w <= 80, "kvbench report --all fits 80 columns (widest %d: %.60s)", w, at);
	run(js, sizeof(js), "%s report --all --json %s 2>&1", k, json);
	memset(&root, 0, sizeof(root));
	if (!kvb_json_parse(js, &root, err, sizeof(err))) {
		reps = kvb_json_get(&root, "reports", J_ARR);
		v = reps && reps->nkids ? kvb_json_get(&reps->kids[0], "verdict", J_ARR) : NULL;
		for (i = 0; v && i < v->nkids; i++) {
			const struct jnode *line = kvb_json_get(&v->kids[i], "verdict", J_STR);
			char joined[2048];
			const char *p;
			size_t n = 0;

			if (!line)
				continue;
			found++;
			/* the paragraph from "verdict: ": lines that go on begin with 2 spaces */
			p = strstr(out, "\nverdict: ");
			while (p) {
				const char *q = p + 10;

				n = 0;
				while (*q && n < sizeof(joined) - 1) {
					if (q[0] == '\n' && q[1] == ' ' && q[2] == ' ') {
						joined[n++] = ' ';
						q += 3;
						continue;
					}
					if (*q == '\n')
						break;
					joined[n++] = *q++;
				}
				joined[n] = 0;
				if (!strcmp(joined, line->str)) {
					same++;
					break;
				}
				p = strstr(q, "\nverdict: ");
			}
		}
	}
	ok(found == 8 && same == found,
	   "kvbench report: the wrapped verdict lines, joined, are report --json's (%d of %d) %s",
	   same, found, err);
	kvb_json_free(&root);
	st = run(out, sizeof(out), "%s report %s 2>&1", k, json);
	w = widest(out, &at);
	ok(st == 0 && w <= 80 &&
	   strstr(out, "ycsb-b, scrambled-zipf, 2 threads, batch 1: rcu; the next, rwlock:\n") &&
	   strstr(out, "\n  inconclusive (neither slower nor within ±5%), -16.0% [") &&
	   strstr(out, "within ±5%), -16.0% [-24.7%, +0.16%]; the\n") &&
	   strstr(out, "\nverdict: seed, 2 threads, batch 1: rwlock; the next, rhashtable:\n") &&
	   strstr(out, "\n  -10.9% [-22.2%, -6.4%], and 5 more significantly slower\n"),
	   "kvbench report fits 80 columns, an interval kept whole (widest %d: %.60s)", w, at);
}

/* Values out of their range are errors or named, never silent numbers */
/*
 * The case before a run: runs after the second mix 10% slower are marked
 * so; the same runs on both sides tied; too few, said.
 */
static void test_order_effect(void)
{
	static const double slow[12] = { 100, 90, 101, 91, 99, 89, 100, 90, 102, 92, 98, 88 };
	static const double same[12] = { 100, 100.2, 101, 100.9, 99, 99.1, 100, 100, 100.5,
					 100.4, 99.5, 99.6 };
	static const unsigned int rounds[12] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
	/* after get 6.5 above after set, the samples overlapping: p 0.015 */
	static const double mid[12] = { 100, 106.5, 102, 108.5, 104, 110.5, 106, 112.5, 108,
					114.5, 110, 116.5 };
	struct kvb_ocase c4[4];
	struct kvb_ocase c[3] = {
		{ "a get t=1 b=1", slow, rounds, 12 },
		{ "b get t=1 b=1", same, rounds, 12 },
		{ "c get t=1 b=1", slow, rounds, 4 },
	};
	struct kvb_hl h;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int st, i;

	st = kvb_order_case(&c[0], 2, 1, 0.05, &h);
	ok(!st && h.can_tell && h.significant && fabs(h.ratio - 0.9) < 0.01 && h.hi < 1,
	   "order: runs after the 2nd mix 10%% slower: significant, ratio %.3f", h.ratio);
	st = kvb_order_case(&c[1], 2, 1, 0.05, &h);
	ok(!st && h.can_tell && !h.significant && h.lo >= 0.95 && h.hi <= 1.05,
	   "order: the same runs after both: inside +-5%% [%.3f, %.3f]", h.lo, h.hi);
	f = open_memstream(&buf, &len);
	if (!f)
		return;
	kvb_order_effect(f, c, 3, "set,get", 2, 0.05, 0.05);
	fclose(f);
	ok(buf && strstr(buf, "a get t=1 b=1 ") && strstr(buf, "SLOWER after get") &&
	   strstr(buf, "b get t=1 b=1 ") && strstr(buf, "  tied\n") &&
	   strstr(buf, "c get t=1 b=1 ") && strstr(buf, "too few runs to tell") &&
	   strstr(buf, "3 cases: 1 significantly different (Holm's p <= 0.05 over 2 tests)") &&
	   strstr(buf, "1 tied, 1 neither"),
	   "order: the table marks slower, tied and too few");
	free(buf);

	/* p 0.015 alone is a difference; one of four such tests is not */
	for (i = 0; i < 4; i++)
		c4[i] = (struct kvb_ocase){ "d get t=1 b=1", mid, rounds, 12 };
	buf = NULL;
	f = open_memstream(&buf, &len);
	if (!f)
		return;
	kvb_order_effect(f, c4, 1, "set,get", 2, 0.05, 0.05);
	fclose(f);
	ok(buf && strstr(buf, "p 0.015 (Holm 0.015)  FASTER after get") &&
	   strstr(buf, "1 case: 1 significantly different (Holm's p <= 0.05 over 1 test)"),
	   "order: p 0.015 in a table of one test: a difference");
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	if (!f)
		return;
	kvb_order_effect(f, c4, 4, "set,get", 2, 0.05, 0.05);
	fclose(f);
	ok(buf && strstr(buf, "p 0.015 (Holm 0.061)  inconclusive") &&
	   !strstr(buf, "FASTER") &&
	   strstr(buf, "4 cases: 0 significantly different (Holm's p <= 0.05 over 4 tests)"),
	   "order: the same p in a table of four tests: Holm's 0.061, no mark");
	free(buf);

	/* a case with too few runs is no test: Holm over the one that is */
	c4[1] = (struct kvb_ocase){ "e get t=1 b=1", slow, rounds, 4 };
	buf = NULL;
	f = open_memstream(&buf, &len);
	if (!f)
		return;
	kvb_order_effect(f, c4, 2, "set,get", 2, 0.05, 0.05);
	fclose(f);
	ok(buf && strstr(buf, "p 0.015 (Holm 0.015)  FASTER after get") &&
	   strstr(buf, "e get t=1 b=1 ") && strstr(buf, "too few runs to tell") &&
	   strstr(buf, "2 cases: 1 significantly different (Holm's p <= 0.05 over 1 test)"),
	   "order: beside a case too short to tell, p 0.015 is Holm's 0.015 over 1 test");
	free(buf);
}

static void test_report_ranges(void)
{
	static const char head[] = "{\"schema\": \"kvbench-bench/3\", \"cpus\": %s,\n"
				   "\"params\": {\"repeat\": %s},\n \"results\": [%s]}";
	static const char one[] = "{\"backend\": \"%s\", \"kind\": \"kernel\",\n"
				  "\"mix\": {\"name\": \"get\"}, \"threads\": 2, \"batch\": 1,\n"
				  "\"fd\": \"per-thread\", \"ops_per_sec_runs\": [%s]}";
	char rep[2048], c1[512], c2[512], both[1100], err[256], *out = NULL;
	size_t len = 0;
	FILE *f;
	int n;

	snprintf(c1, sizeof(c1), one, "rwlock", "100, 101, 102, 103, 1e308");
	snprintf(c2, sizeof(c2), one, "rcu", "100, 101, 102, 103, 104");
	snprintf(both, sizeof(both), "%s, %s", c1, c2);
	snprintf(rep, sizeof(rep), head, "2", "5", both);
	ok(kvb_report_text(stdout, rep, "x", 1, 0, 0, err, sizeof(err)) == -1 &&
	   strstr(err, "results[0].ops_per_sec_runs[4]: 1e+308 ops/s is out of range"),
	   "report: a run of 1e308 ops/s is an error that names it (%s)", err);
	snprintf(c1, sizeof(c1), one, "rwlock", "100, 101, 102, 103, 105");
	snprintf(both, sizeof(both), "%s, %s", c1, c2);
	snprintf(rep, sizeof(rep), head, "1e44", "5", both);
	ok(kvb_report_text(stdout, rep, "x", 1, 0, 0, err, sizeof(err)) == -1 &&
	   strstr(err, "\"cpus\": 1e+44 is out of range"),
	   "report: 1e44 CPUs is an error that names it (%s)", err);
	/* an empty run list and a header the data contradicts: named */
	snprintf(c1, sizeof(c1), one, "rhashtable", "");
	snprintf(both, sizeof(both), "%s, %s", c1, c2);
	snprintf(rep, sizeof(rep), head, "2", "3", both);
	n = strlen(rep) - 2;
	snprintf(rep + n, sizeof(rep) - n, ", %s]}", c2);
	subst(rep, sizeof(rep), "\"rcu\", \"kind\": \"kernel\",\n\"mix\": {\"name\": \"get\"}",
	      "\"rcu\", \"kind\": \"kernel\",\n\"mix\": {\"name\": \"90:10\"}");
	f = open_memstream(&out, &len);
	if (f) {
		n = kvb_report_text(f, rep, "x", 1, 0, 0, err, sizeof(err));
		fclose(f);
	}
	ok(f && n >= 0 && out && strstr(out, "note: 1 case without runs (not judged)\n") &&
	   strstr(out, "note: 2 cases have more runs than the header's repeat (3)\n"),
	   "report: a case without runs and runs above the header's repeat are named (%s)", err);
	free(out);
	/* the plot's caption: the host's busy share, steal, host_busy, the noisy count */
	snprintf(c1, sizeof(c1), one, "rwlock", "100, 101, 102, 103, 105");
	subst(c1, sizeof(c1), "\"fd\": \"per-thread\",",
	      "\"fd\": \"per-thread\", \"noisy\": true,");
	snprintf(both, sizeof(both), "%s, %s", c1, c2);
	snprintf(rep, sizeof(rep), head, "2", "5", both);
	subst(rep, sizeof(rep), "\"cpus\": 2,",
	      "\"cpus\": 2, \"provenance\": {\"accel\": \"tcg\", \"cpu_busy_pct_before\": 42.0,\n"
	      "\"cpu_steal_pct_before\": 3.0, \"host_busy\": true},");
	subst(rep, sizeof(rep), "\"batch\": 1,", "\"batch\": 1, \"ops_per_sec\": 102,");
	out = plot_text(rep, "x.png", err, sizeof(err));
	ok(out && strstr(out, "accelerator tcg") &&
	   strstr(out, "host 42% busy (3% stolen), BUSY; 1 of 2 cases noisy"),
	   "plot: the caption names accel, the host's busy share, steal, host_busy, the noisy count");
	free(out);
}

static void test_report_real(const char *k)
{
	static const char json[] = "testdata/bench-864f534.json";
	char out[32768];
	int st;

	if (!k || access(k, X_OK) || access(json, R_OK)) {
		skip("no kvbench binary, or not run from tools/kvbench",
		     "kvbench report on a make bench report (testdata/bench-864f534.json)");
		return;
	}
	st = run(out, sizeof(out), "%s report %s 2>&1", k, json);
	join_verdicts(out);
	ok(st == 0 && count_of(out, "\nverdict: ") == 4 &&
	   strstr(out, "\nverdict: ycsb-c, scrambled-zipf, 2 threads, batch 1: ") &&
	   strstr(out, "\nverdict: seed, 2 threads, batch 1: ") &&
	   strstr(out, "2 CPUs, 5 runs per") && !strstr(out, " runs, needs ") &&
	   !strstr(out, "user-rwlock"),
	   "kvbench report on a real make bench report: a verdict per workload at 2 threads");
	/*
	 * ycsb-b: rwlock's runs against rcu's, p 0.056, interval [0.7533,
	 * 1.0016]: printed "tied" with "[0.753, 1]" and named co-fastest
	 * before; an interval of -25% to +0.16% shows no equivalence.
	 */
	ok(strstr(out, "  rwlock           5! 498.236k 0.8396 [0.7533, 1.0016] ") &&
	   strstr(out, "0.8396 [0.7533, 1.0016] 0.056  0.056 inconclusive\n") &&
	   strstr(out, "\nverdict: ycsb-b, scrambled-zipf, 2 threads, batch 1: rcu; the next, ") &&
	   strstr(out, "rcu; the next, rwlock: inconclusive (neither slower nor within ±5%), ") &&
	   strstr(out, "within ±5%), -16.0% [-24.7%, +0.16%]; the closest significantly slower") &&
	   strstr(out, "the closest significantly slower, rhashtable: -30.1% [-49.4%, -22.9%]") &&
	   strstr(out, "rhashtable: -30.1% [-49.4%, -22.9%], and 4 more\n") &&
	   !strstr(out, "is tied with it") && !strstr(out, "  tied\n"),
	   "report on the real report: an inconclusive target is not tied nor named fastest; [low, high] with the digits that tell 1.0016 from 1");
	ok(strstr(out, "host: accel tcg, CPUs 0.0% busy before the run (steal unknown), ") &&
	   strstr(out, "(steal unknown), not busy\nnoisy: 60 of 72 cases\n") &&
	   strstr(out, "  rhashtable       5! 472.437k") && strstr(out, "*: p is the smallest") &&
	   strstr(out, "\n24 comparisons in 4 groups, corrected by Holm's method within each\n"),
	   "report on the real report: accel, host busy, steal and the noisy count in view; noisy rows, the p floor and the comparisons said");
	st = run(out, sizeof(out), "%s report --threads 1 %s 2>&1", k, json);
	ok(st == 0 && strstr(out, "\nseed, 1 thread, batch 1\n") &&
	   strstr(strstr(out, "\nseed, 1 thread, batch 1\n"), "  combining ") &&
	   strstr(strstr(out, "\nseed, 1 thread, batch 1\n"), "  combining ") <
	   strstr(strstr(out, "\nseed, 1 thread, batch 1\n"), "  rcu "),
	   "report on the real report: rows by the ratio shown (seed, 1 thread: combining 0.7589 above rcu 0.6911, whose median is higher)");
	/* no group at 4 threads: it said "(no workload group matches ...)" and exited 0 */
	st = run(out, sizeof(out), "%s report --threads 4 %s 2>&1", k, json);
	ok(st == 1 && strstr(out, "no workload group matches") && strstr(out, "at 1, 2 threads"),
	   "report --threads 4 of a report without 4 threads: exit 1, the thread counts it has");
	st = run(out, sizeof(out),
		 "echo '{\"schema\": \"kvbench-bench/3\", \"cpus\": 2, \"results\": []}' | %s report /dev/stdin 2>&1",
		 k);
	ok(st == 1 && strstr(out, "no result to judge (0 results: an empty \"results\")"),
	   "report of a report without results: exit 1, said");
	st = run(out, sizeof(out), "%s report --margin 30 %s 2>&1", k, json);
	join_verdicts(out);
	ok(st == 0 && strstr(out, "rcu; rwlock is tied with it (within ±30%)") &&
	   strstr(out, "the whole CI inside 1 ±30% (each"),
	   "report --margin 30: the interval [0.7533, 1.0016] inside ±30%% is a tie");
	st = run(out, sizeof(out), "%s report --margin 0 %s 2>&1; %s report --margin 51%% %s 2>&1",
		 k, json, k, json);
	ok(st == 2 && count_of(out, "--margin: ") == 2 && strstr(out, "at most 50"),
	   "report --margin 0 or 51%%: exit 2, the range said");
}

static void test_report(const char *k)
{
	static const unsigned int thr[] = { 1, 2, 4 };
	char *json = malloc(16384), *out = NULL, err[256], cmd[64], path[] = "/tmp/kvbench-vXXXXXX";
	size_t n, len = 0;
	struct jnode root;
	FILE *f;
	int i, shown, fd, st;

	n = snprintf(json, 16384,
		     "{\"schema\": \"kvbench-bench/3\", \"kernel\": \"6.12-test\", \"cpus\": 2, \"params\": {\"dist\": \"zipf\", \"theta\": 0.99, \"repeat\": 5}, \"results\": [");
	for (i = 0; i < 3; i++) {
		n += vresult(json + n, 16384 - n, "nop", "floor", "nop", thr[i], 1, "\"ioctl\"",
			     9000, 5, 0);
		n += vresult(json + n, 16384 - n, "rwlock", "kernel", "get", thr[i], 1, "\"ioctl\"",
			     500, 5, 0);
		n += vresult(json + n, 16384 - n, "rcu", "kernel", "get", thr[i], 1, "\"ioctl\"",
			     600, 5, 0);
		n += vresult(json + n, 16384 - n, "rhashtable", "kernel", "get", thr[i], 1,
			     "\"ioctl\"", 602, 5, 0);
		n += vresult(json + n, 16384 - n, "user-rwlock", "userspace", "get", thr[i], 1,
			     NULL, 300, 5, 0);
		n += vresult(json + n, 16384 - n, "combining", "kernel", "get", thr[i], 1,
			     "\"ioctl\"", 9000, 5, 3);
		n += vresult(json + n, 16384 - n, "rcu", "kernel", "get", thr[i], 64, "\"ioctl\"",
			     900, 5, 0);
		n += vresult(json + n, 16384 - n, "rcu/uring-qd16", "kernel", "get", thr[i], 1,
			     "\"uring\"", 700, 5, 0);
	}
	snprintf(json + n, 16384 - n, "]}");
	f = open_memstream(&out, &len);
	shown = kvb_report_text(f, json, "run.json", 0, 0, 0, err, sizeof(err));
	fclose(f);
	if (out)
		join_verdicts(out);
	ok(shown == 1 &&
	   strstr(out, "== run.json: kernel 6.12-test, 2 CPUs, 5 runs per case, zipf:0.99\n") &&
	   strstr(out, "\nget, zipf:0.99, 2 threads, batch 1\n") && !strstr(out, "4 threads") &&
	   !strstr(out, "1 thread,") && !strstr(out, "nop") && !strstr(out, "combining") &&
	   !strstr(out, "uring") && !strstr(out, "batch 64"),
	   "report: by default batch 1, ioctl, per-thread at as many threads as CPUs; no nop, no errors");
	{
		char *o2 = NULL;
		size_t l2 = 0;
		FILE *f2 = open_memstream(&o2, &l2);

		kvb_report_text(f2,
				"{\"schema\": \"kvbench-bench/3\", \"cpus\": 2, \"params\": {\"dist\": \"uniform\", \"workloads\": []},\n"
				" \"results\": [{\"backend\": \"rcu\", \"mix\": {\"name\": \"get\"}, \"workload\": \"seed\", \"threads\": 2, \"ops_per_sec_runs\": [1, 2, 3, 4, 5]}]}",
				"w.json", 0, 0, 0, err, sizeof(err));
		fclose(f2);
		ok(o2 && strstr(o2, "per case, the workloads' own keys\n") &&
		   !strstr(o2, "uniform"),
		   "report: a run of workloads does not name --dist's distribution in its header");
		free(o2);
	}
	ok_has(out,
	       "verdict: get, zipf:0.99, 2 threads, batch 1: rhashtable; rcu is tied with it (within ±5%); rwlock: -16.9% [-17.3%, -16.4%]\n",
	       "report: the tied fastest, the next slower");
	ok(!strstr(out, "user-rwlock"),
	   "report: an in-process baseline is no candidate beside the kernel's targets");
	free(out);
	out = NULL;
	f = open_memstream(&out, &len);
	shown = kvb_report_text(f, json, "run.json", 1, 0, 0, err, sizeof(err));
	fclose(f);
	ok(shown == 9 && strstr(out, "get, zipf:0.99, 4 threads, batch 64\n") &&
	   strstr(out, "get, zipf:0.99, 1 thread, batch 1, uring qd16\n") &&
	   strstr(out, "shown: every workload group\n"),
	   "report --all: 3 thread counts x (batch 1, batch 64, uring) = 9 groups");
	free(out);
	out = NULL;
	f = open_memstream(&out, &len);
	shown = kvb_report_text(f, json, "run.json", 0, 4, 1, err, sizeof(err));
	fclose(f);
	ok(shown == 1 && !kvb_json_parse(out, &root, err, sizeof(err)) &&
	   kvb_json_get(&root, "verdict", J_ARR) &&
	   kvb_json_get(&root, "verdict", J_ARR)->nkids == 1 &&
	   !strcmp(kvb_json_get(&kvb_json_get(&root, "verdict", J_ARR)->kids[0], "group",
				J_STR)->str, "get, zipf:0.99, 4 threads, batch 1"),
	   "report --threads 4 --json: the verdict of one group, read back by json.c");
	kvb_json_free(&root);
	free(out);
	ok(kvb_report_text(stdout, "{\"schema\": \"kvbench-bench/9\", \"results\": []}", "x", 0, 0,
			   0, err, sizeof(err)) == -1 && strstr(err, "kvbench-bench/9") &&
	   kvb_report_text(stdout,
			   "{\"schema\": \"kvbench-bench/2\", \"results\": [{\"backend\": \"rcu\"}]}",
			   "x", 0, 0, 0, err, sizeof(err)) == -1 && strstr(err, "results[0]") &&
	   kvb_report_text(stdout, "{\"schema\": ", "x", 0, 0, 0, err, sizeof(err)) == -1 &&
	   strstr(err, "line 1"),
	   "report: another schema, a result without its fields, bad JSON: errors");

	fd = mkstemp(path);
	if (fd < 0 || write(fd, json, strlen(json)) != (ssize_t)strlen(json)) {
		skip("cannot write a temporary file", "kvbench report on a file");
		free(json);
		return;
	}
	close(fd);
	out = malloc(16384);
	st = run(out, 16384, "%s report %s 2>&1", k, path);
	join_verdicts(out);
	ok(st == 0 && strstr(out, "rhashtable; rcu is tied with it (within ±5%)") &&
	   strstr(out, "\nratio: ops/s of the target over the fastest's"),
	   "kvbench report FILE: exit 0, the verdict and the legend");
	st = run(out, 16384, "%s report --json %s %s 2>&1", k, path, path);
	ok(st == 0 && json_valid(out) && count_of(out, "\"file\": ") == 2 &&
	   strstr(out, "\"schema\": \"kvbench-verdict/1\""),
	   "kvbench report --json of two reports: valid JSON, one object each");
	st = run(out, 16384, "%s report %s /nonexistent.json 2>&1", k, path);
	ok(st == 1 && strstr(out, "kvbench report: /nonexistent.json: No such file"),
	   "kvbench report: an unreadable report: exit 1, named");
	snprintf(cmd, sizeof(cmd), "%s report", k);
	ok(run(out, 16384, "%s 2>&1", cmd) == 2 && strstr(out, "takes one or more reports") &&
	   run(out, 16384, "%s --threads 0 %s 2>&1", cmd, path) == 2 &&
	   strstr(out, "--threads") && run(out, 16384, "%s --bogus %s 2>&1", cmd, path) == 2 &&
	   run(out, 16384, "%s --help", cmd) == 0 && strstr(out, "--threads N"),
	   "kvbench report: no report, --threads 0, an unknown option: exit 2; --help");
	unlink(path);
	free(out);
	free(json);
}

/* bench's own reports: the JSON ends with the verdict, the table with its lines */
static void test_bench_verdict(void)
{
	static double fast[] = { 200, 202, 204, 206, 208 }, slow[] = { 170, 172, 174, 176, 178 };
	struct kvb_result r[3];
	struct kvb_params p;
	double runs[2] = { 1, 2 };
	const struct jnode *v;
	struct jnode root;
	char *buf, err[256];

	kvb_params_defaults(&p);
	p.repeat = 1;	/* one run: these count what one run does */
	p.ncpus = 2;
	fake_results(r, runs);
	r[1].runs = 5;
	r[1].run_ops = slow;
	snprintf(r[2].target, sizeof(r[2].target), "rcu");
	r[2].runs = 5;
	r[2].run_ops = fast;
	r[2].bstats = r[1].bstats;
	buf = report(kvb_print_json, &p, r, 3);
	ok(buf && json_valid(buf) && !kvb_json_parse(buf, &root, err, sizeof(err)) &&
	   (v = kvb_json_get(&root, "verdict", J_ARR)) && v->nkids == 1 &&
	   root.kids[root.nkids - 1].type == J_ARR &&
	   !strcmp(kvb_json_get(&v->kids[0], "verdict", J_STR)->str,
		   "90:10, 1 thread, batch 1: rcu; rwlock: -14.7% [-17.3%, -12.0%]") &&
	   kvb_json_get(&v->kids[0], "targets", J_ARR)->nkids == 2,
	   "bench JSON: \"verdict\" last, valid (strict checker), one group without nop");
	kvb_json_free(&root);
	free(buf);
	buf = report(kvb_print_table, &p, r, 3);
	ok(buf && strstr(buf, "\nverdict: the fastest by median ops/s in each workload") &&
	   strstr(buf, "\n  90:10, 1 thread, batch 1: rcu; rwlock: -14.7% [-17.3%, -12.0%]\n") &&
	   !strcmp(buf + strlen(buf) - strlen("rwlock: -14.7% [-17.3%, -12.0%]\n"),
		   "rwlock: -14.7% [-17.3%, -12.0%]\n"),
	   "bench table: ends with the verdict lines");
	free(buf);
}

static const struct kvb_mix *wl_mix(const struct kvb_mix *m, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (m[i].wl && !strcmp(m[i].wl->name, name))
			return &m[i];
	return NULL;
}

#define WL_DRAWS	200000
#define WL_KEYS		1000

/*
 * One preset's chooser, WL_DRAWS draws as the engine makes them: counts
 * of each kind of operation and of each key read, and for "latest" how far
 * behind the newest key each read landed.
 */
struct wl_counts {
	unsigned long op[4];
	unsigned long key[WL_KEYS];
	unsigned long behind[WL_KEYS];
	int insert_ok;		/* every insert took the key after the newest */
};

static void wl_draw(const struct kvb_mix *m, const struct kvb_zipf *z,
		    struct wl_counts *c)
{
	struct kvb_chooser ch;
	atomic_ulong newest = WL_KEYS - 1;
	__u64 rng = kvb_thread_seed(42, 0);
	int i;

	memset(c, 0, sizeof(*c));
	c->insert_ok = 1;
	kvb_chooser_init(&ch, m, WL_KEYS, z, &newest);
	for (i = 0; i < WL_DRAWS; i++) {
		int wop = kvb_chooser_op(&ch, kvb_rand(&rng));
		unsigned long before = atomic_load(&newest);
		unsigned long k = kvb_chooser_key(&ch, wop, &rng);

		c->op[wop]++;
		if (wop == KVB_W_INSERT) {
			c->insert_ok &= k == (before + 1) % WL_KEYS &&
					atomic_load(&newest) == before + 1;
			continue;
		}
		c->key[k]++;
		c->behind[(before - k) % WL_KEYS]++;
	}
}

static int near(unsigned long count, double want_share, double tol)
{
	return fabs((double)count / WL_DRAWS - want_share) <= tol;
}

/* The key drawn most often, and how often */
static unsigned long busiest(const struct wl_counts *c, unsigned long *key)
{
	unsigned long i, top = 0;

	for (i = 0; i < WL_KEYS; i++)
		if (c->key[i] > top) {
			top = c->key[i];
			*key = i;
		}
	return top;
}

/*
 * YCSB's scrambled zipfian over 1000 records: the weights against figures
 * computed apart (a Python script that hashes the first 2 million of the
 * 10^10 items with YCSB's fnvhash64 and spreads the rest evenly): the
 * hottest record 3.89% of the requests, the ten hottest 12.50%, the
 * coldest 0.062%; plain zipf over the 1000 keys would give 12.9%, 38.3%.
 */
static void test_ycsb_zipf(void)
{
	double w[WL_KEYS], sum = 0, hot = 0, cold = 1, top10 = 0, zeta;
	unsigned long i, j;

	zeta = kvb_zeta(KVB_YCSB_ITEMS, 0.99);
	ok(fabs(zeta / 26.46902820178302 - 1) < 0.000000001,
	   "zeta(10^10, 0.99) = %.10f, YCSB's ZETAN 26.4690282018", zeta);
	ok(fabs(kvb_zeta(1000, 0.99) / (1 / kvb_zipf_pmf(1000, 0.99, 0)) - 1) < TINY,
	   "zeta(1000, 0.99) is the zipf pmf's normaliser");
	kvb_ycsb_weights(w, WL_KEYS, 0.99);
	for (i = 0; i < WL_KEYS; i++) {
		sum += w[i];
		hot = w[i] > hot ? w[i] : hot;
		cold = w[i] < cold ? w[i] : cold;
	}
	/* the ten largest, by selection */
	for (j = 0; j < 10; j++) {
		double best = -1;
		unsigned long at = 0;

		for (i = 0; i < WL_KEYS; i++)
			if (w[i] > best) {
				best = w[i];
				at = i;
			}
		top10 += best;
		w[at] = -1;
	}
	ok(fabs(sum - 1) < 0.000000001 && fabs(hot - 0.0389) < 0.0002 &&
	   fabs(top10 - 0.1250) < 0.0005 && fabs(cold - 0.00062) < 0.00002,
	   "YCSB's scrambled zipfian over 1000 records: hottest %.4f, ten hottest %.4f, coldest %.5f",
	   hot, top10, cold);
}

/*
 * The presets produce the documented mixes and distributions: each one's
 * chooser counted over WL_DRAWS draws.
 */
static void test_workloads(void)
{
	struct kvb_mix *m = NULL, *m2 = NULL;
	const struct kvb_mix *a, *b, *c, *d, *f, *seed;
	struct wl_counts *cnt = malloc(sizeof(*cnt));
	struct kvb_zipf z, zs;
	double *w = malloc(WL_KEYS * sizeof(*w)), hot = 0, near10 = 0;
	double pmf0 = kvb_zipf_pmf(WL_KEYS, 0.99, 0);
	unsigned long i, top, topk = 0, hotk = 0;
	char err[512];
	int n = 0, seen_ok = 1;

	ok(!kvb_parse_workloads("a,ycsb-b,c,d,f,seed", &m, &n, err, sizeof(err)) && n == 6,
	   "workloads: a,ycsb-b,c,d,f,seed parse (aliases and names)");
	a = wl_mix(m, n, "ycsb-a");
	b = wl_mix(m, n, "ycsb-b");
	c = wl_mix(m, n, "ycsb-c");
	d = wl_mix(m, n, "ycsb-d");
	f = wl_mix(m, n, "ycsb-f");
	seed = wl_mix(m, n, "seed");
	if (!a || !b || !c || !d || !f || !seed || !cnt || !w ||
	    kvb_zipf_init(&z, WL_KEYS, 0.99) || kvb_ycsb_zipf_init(&zs, WL_KEYS, 0.99)) {
		ok(0, "workloads: presets, zipf tables");
		free(m);
		free(cnt);
		free(w);
		return;
	}
	ok(a->wl->dist == KVB_SCRAMBLED && a->wl->theta == 0.99 && d->wl->dist == KVB_LATEST &&
	   d->wl->theta == 0.99 && f->wl->dist == KVB_SCRAMBLED &&
	   seed->wl->dist == KVB_UNIFORM && seed->wl->all_cpus && !a->wl->all_cpus,
	   "workloads: YCSB's zipfian (constant 0.99), d latest, seed uniform at a thread per CPU");
	ok(!kvb_parse_workloads("ycsb,ycsb-a", &m2, &n, err, sizeof(err)) && n == 5 &&
	   !strcmp(m2[0].wl->name, "ycsb-a") && !strcmp(m2[4].wl->name, "ycsb-f"),
	   "workloads: ycsb is a, b, c, d, f, each once");
	free(m2);
	m2 = NULL;
	ok(kvb_parse_workloads("a,e", &m2, &n, err, sizeof(err)) && !m2 &&
	   strstr(err, "'e' is not a workload") && strstr(err, "ycsb-a (a)") &&
	   strstr(err, "ycsb-f (f)") && strstr(err, "seed"),
	   "workloads: an unknown one is refused with the list (%s)", err);
	ok(kvb_parse_workloads("", &m2, &n, err, sizeof(err)) &&
	   kvb_parse_workloads(",", &m2, &n, err, sizeof(err)), "workloads: empty list refused");

	kvb_ycsb_weights(w, WL_KEYS, 0.99);
	for (i = 0; i < WL_KEYS; i++)
		if (w[i] > hot) {
			hot = w[i];
			hotk = i;
		}

	/* A: 50% GET, 50% SET, the hottest record at its YCSB weight */
	wl_draw(a, &zs, cnt);
	top = busiest(cnt, &topk);
	ok(near(cnt->op[KVB_W_READ], 0.5, 0.005) && near(cnt->op[KVB_W_UPDATE], 0.5, 0.005) &&
	   !cnt->op[KVB_W_INSERT] && !cnt->op[KVB_W_RMW],
	   "ycsb-a: %lu reads, %lu updates of %d (50:50)", cnt->op[KVB_W_READ],
	   cnt->op[KVB_W_UPDATE], WL_DRAWS);
	ok(topk == hotk && fabs((double)top / WL_DRAWS / hot - 1) < 0.05 && hotk != 0,
	   "ycsb-a: the hottest key is record %lu (YCSB's hash put it there), %.4f of the draws (weight %.4f)",
	   topk, (double)top / WL_DRAWS, hot);

	wl_draw(b, &zs, cnt);
	ok(near(cnt->op[KVB_W_READ], 0.95, 0.003) && near(cnt->op[KVB_W_UPDATE], 0.05, 0.003) &&
	   !cnt->op[KVB_W_INSERT] && !cnt->op[KVB_W_RMW] &&
	   fabs((double)cnt->key[hotk] / WL_DRAWS / hot - 1) < 0.05,
	   "ycsb-b: %lu reads, %lu updates (95:5), YCSB's zipfian", cnt->op[KVB_W_READ],
	   cnt->op[KVB_W_UPDATE]);

	wl_draw(c, &zs, cnt);
	ok(cnt->op[KVB_W_READ] == WL_DRAWS &&
	   fabs((double)cnt->key[hotk] / WL_DRAWS / hot - 1) < 0.05,
	   "ycsb-c: reads only, YCSB's zipfian");

	/* D: 95% reads, 5% inserts; the reads just behind the newest key */
	wl_draw(d, &z, cnt);
	for (i = 0; i < 10; i++)
		near10 += kvb_zipf_pmf(WL_KEYS, 0.99, i);
	for (i = 0, top = 0; i < 10; i++)
		top += cnt->behind[i];
	ok(near(cnt->op[KVB_W_READ], 0.95, 0.003) && near(cnt->op[KVB_W_INSERT], 0.05, 0.003) &&
	   !cnt->op[KVB_W_UPDATE] && !cnt->op[KVB_W_RMW] && cnt->insert_ok,
	   "ycsb-d: %lu reads, %lu inserts (95:5), each insert the key after the newest",
	   cnt->op[KVB_W_READ], cnt->op[KVB_W_INSERT]);
	ok(fabs((double)cnt->behind[0] / cnt->op[KVB_W_READ] / pmf0 - 1) < 0.03 &&
	   fabs((double)top / cnt->op[KVB_W_READ] / near10 - 1) < 0.02,
	   "ycsb-d: %.3f of the reads hit the newest key, %.3f the newest 10 (zipf %.3f, %.3f)",
	   (double)cnt->behind[0] / cnt->op[KVB_W_READ],
	   (double)top / cnt->op[KVB_W_READ], pmf0, near10);

	wl_draw(f, &zs, cnt);
	ok(near(cnt->op[KVB_W_READ], 0.5, 0.005) && near(cnt->op[KVB_W_RMW], 0.5, 0.005) &&
	   !cnt->op[KVB_W_UPDATE] && !cnt->op[KVB_W_INSERT] &&
	   fabs((double)cnt->key[hotk] / WL_DRAWS / hot - 1) < 0.05,
	   "ycsb-f: %lu reads, %lu read-modify-writes (50:50), YCSB's zipfian",
	   cnt->op[KVB_W_READ], cnt->op[KVB_W_RMW]);

	/* seed: GET only, uniform: every key near 1/1000 of the draws */
	wl_draw(seed, NULL, cnt);
	for (i = 0, seen_ok = 1; i < WL_KEYS; i++)
		seen_ok &= cnt->key[i] > 0;
	top = busiest(cnt, &topk);
	ok(cnt->op[KVB_W_READ] == WL_DRAWS && seen_ok && top < 2.0 * WL_DRAWS / WL_KEYS,
	   "seed: reads only, uniform (the busiest key %lu draws, mean %d)", top,
	   WL_DRAWS / WL_KEYS);
	kvb_zipf_free(&z);
	kvb_zipf_free(&zs);
	free(w);
	free(cnt);
	free(m);
}

/*
 * A target that logs what a worker thread does, to see a read-modify-write
 * reach the map: a GET, then a SET of the same key. The pre-fill (from the
 * main thread's context, priv NULL) is not logged.
 */
#define LOG_MAX		65536
static struct { int op; char key[32]; } op_log[LOG_MAX];
static int op_log_n;

static int log_init(struct kvb_ctx *c, enum kvb_fd fdmode)
{
	c->priv = fdmode == KVB_FD_SHARED ? NULL : (void *)1;
	return 0;
}

static int log_op(struct kvb_ctx *c, int op, const char *key, char *val,
		  unsigned int *vlen)
{
	(void)val;
	(void)vlen;
	if (c->priv && op_log_n < LOG_MAX) {
		op_log[op_log_n].op = op;
		snprintf(op_log[op_log_n++].key, sizeof(op_log[0].key), "%.*s", c->klen, key);
	}
	return 0;
}

static void log_batch(struct kvb_ctx *c, struct kvbench_op *ops, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		unsigned int vlen = ops[i].kv.value_len;

		ops[i].result = log_op(c, ops[i].op,
				       (const char *)(unsigned long)ops[i].kv.key, NULL, &vlen);
	}
}

static const struct kvb_target_ops log_ops = {
	.kind = KVB_USER_RWLOCK,
	.group = "test",
	.flags = KVB_T_MIXES | KVB_T_RUN_MAP | KVB_T_BATCHES | KVB_T_MULTI,
	.thread_init = log_init,
	.op = log_op,
	.batch = log_batch,
	.multi = log_batch,
};

/* The key's number: the digits after the 'k' padding */
static long log_key(int i)
{
	const char *k = op_log[i].key;

	while (*k == 'k')
		k++;
	return atol(k);
}

static void test_workload_engine(void)
{
	struct kvb_params p;
	struct kvb_target t;
	struct kvb_result r;
	struct kvb_bench *b;
	struct kvb_mix *m = NULL;
	int cpus[1] = { 0 }, n = 0, i, gets = 0, sets = 0, pairs_ok = 1, multi, rc;
	char err[256];

	kvb_params_defaults(&p);
	p.repeat = 1;	/* one run: these count what one run does */
	if (kvb_parse_workloads("f,d,a", &m, &n, err, sizeof(err))) {
		ok(0, "workload engine: f,d");
		return;
	}
	p.mixes = m;
	p.nmixes = n;
	p.workloads = 1;
	p.keys = 1000;
	p.key_size = 24;
	p.value_size = 100;
	p.ops = 20000;
	p.warmup = 0;
	p.pin = 0;
	p.ncpus = 1;
	p.cpus = cpus;
	b = kvb_bench_new(&p);
	memset(&t, 0, sizeof(t));
	snprintf(t.name, sizeof(t.name), "log");
	t.ops = &log_ops;
	t.io = KVB_IO_NONE;
	op_log_n = 0;
	ok(b && b->wlz[m[0].wl - kvb_workloads] && b->wlz[m[1].wl - kvb_workloads] &&
	   b->wlz[m[0].wl - kvb_workloads]->scrambled &&
	   !b->wlz[m[1].wl - kvb_workloads]->scrambled && b->nzipfs == 2,
	   "workload engine: f's scrambled zipfian and d's zipf, built once each");
	if (!b || kvb_run_case(b, &t, &m[0], 1, 1, 0, KVB_FD_NONE, &r)) {
		ok(0, "workload engine: ycsb-f runs");
		kvb_bench_free(b);
		free(m);
		return;
	}
	/* every SET follows a GET of its key; the ops count GET + SET once */
	for (i = 0; i < op_log_n; i++) {
		if (op_log[i].op == KVBENCH_OP_GET) {
			gets++;
			continue;
		}
		sets++;
		pairs_ok &= op_log[i].op == KVBENCH_OP_SET && i > 0 &&
			    op_log[i - 1].op == KVBENCH_OP_GET &&
			    !strcmp(op_log[i - 1].key, op_log[i].key);
	}
	ok(pairs_ok && r.ops == 20000 && gets == 20000 && sets > 9500 && sets < 10500 &&
	   op_log_n == gets + sets && !r.errors,
	   "ycsb-f through the engine: %d GETs, %d SETs each right after a GET of its key, %llu ops (an RMW is one)",
	   gets, sets, r.ops);
	ok(r.mix.wl == m[0].wl && r.dist == KVB_SCRAMBLED && r.theta == 0.99,
	   "ycsb-f's result: its workload, YCSB's zipfian 0.99");
	kvb_result_free(&r);
	op_log_n = 0;
	ok(!kvb_run_case(b, &t, &m[1], 1, 1, 0, KVB_FD_NONE, &r) && r.ops == 20000 &&
	   r.dist == KVB_LATEST && op_log_n == 20000,
	   "ycsb-d through the engine: 20000 single operations, latest");
	kvb_result_free(&r);

	/*
	 * ycsb-d in BATCHes of 8, then packed calls of 8: every op drawn as a
	 * single one (inserts the keys after the newest, one by one: 0, 1, 2...
	 * over the ring), a packed call all of one kind.
	 */
	for (multi = 0; multi < 2; multi++) {
		int inserts = 0, next_ok = 1, one_kind = 1;
		long want = 0;

		op_log_n = 0;
		p.ops = 8000;
		rc = kvb_run_case(b, &t, &m[1], 1, 8, multi, KVB_FD_NONE, &r);
		for (i = 0; i < op_log_n; i++) {
			if (i % 8 && op_log[i].op != op_log[i - i % 8].op)
				one_kind = 0;
			if (op_log[i].op != KVBENCH_OP_SET)
				continue;
			inserts++;
			next_ok &= log_key(i) == want;
			want = (want + 1) % 1000;
		}
		ok(!rc && r.ops == 8000 && op_log_n == 8000 && next_ok &&
		   inserts > (multi ? 160 : 300) && inserts < (multi ? 700 : 500) &&
		   (!multi || one_kind),
		   "ycsb-d %s of 8: %d inserts, each the key after the newest%s",
		   multi ? "in packed calls" : "in BATCHes", inserts,
		   multi ? ", each call of one kind" : "");
		if (!rc)
			kvb_result_free(&r);
	}
	kvb_bench_free(b);
	free(m);
}

/* Two JSON trees alike: the same types, numbers, strings, keys in order. */
static int jsame(const struct jnode *a, const struct jnode *b, char *where, size_t len)
{
	int i;

	if (a->type != b->type || a->nkids != b->nkids ||
	    (a->key && (!b->key || strcmp(a->key, b->key))) ||
	    ((a->type == J_NUM || a->type == J_BOOL) && a->num != b->num) ||
	    (a->type == J_STR && strcmp(a->str, b->str))) {
		snprintf(where, len, "%s: %s / %s", a->key ? a->key : "[]",
			 a->type == J_STR ? a->str : "?", b->type == J_STR ? b->str : "?");
		return 0;
	}
	for (i = 0; i < a->nkids; i++)
		if (!jsame(&a->kids[i], &b->kids[i], where, len))
			return 0;
	return 1;
}

/*
 * The verdict bench writes into its JSON and the one `kvbench report`
 * computes from that file agree field for field: one computation over one
 * shape. Workloads with their own distribution (scrambled-zipf) under a
 * global --dist uniform: bench's verdict named "uniform" before (output.c
 * took the global p->dist), report the workload's.
 */
/*
 * bench.json's verdict (json) against `kvbench report --json`'s of the
 * same report (its text in *rep, for the caller to free): the number of
 * groups when they agree field for field, else -1 and where (or why) not.
 */
static int verdict_roundtrip(const char *json, char **rep, char *where, size_t wlen)
{
	const struct jnode *va = NULL, *vb = NULL, *reps;
	struct jnode a = { 0 }, b = { 0 };
	char err[256] = "", *doc;
	size_t len = 0;
	FILE *f = open_memstream(rep, &len);
	int n = -1;

	if (json && f && kvb_report_text(f, json, "bench.json", 1, 0, 1, err, sizeof(err)) < 0)
		fprintf(stderr, "# %s\n", err);
	if (f)
		fclose(f);
	if (json && !kvb_json_parse(json, &a, err, sizeof(err)))
		va = kvb_json_get(&a, "verdict", J_ARR);
	/* report --json: { "file": ..., "verdict": [...] }, without the outer object */
	doc = *rep ? malloc(strlen(*rep) + 32) : NULL;
	if (doc) {
		sprintf(doc, "{ \"reports\": [%s] }", *rep);
		if (!kvb_json_parse(doc, &b, err, sizeof(err))) {
			reps = kvb_json_get(&b, "reports", J_ARR);
			if (reps && reps->nkids == 1)
				vb = kvb_json_get(&reps->kids[0], "verdict", J_ARR);
		}
		free(doc);
	}
	if (va && vb && jsame(va, vb, where, wlen))
		n = va->nkids;
	else if (err[0])
		snprintf(where, wlen, "%s", err);
	kvb_json_free(&a);
	kvb_json_free(&b);
	return n;
}

static void test_verdict_roundtrip(void)
{
	static double runs[4][5] = {
		{ 1000, 1010, 990, 1005, 995 }, { 700, 720, 690, 710, 705 },
		{ 1001, 1012, 989, 1004, 996 }, { 500.04, 520, 490, 510, 505 },
	};
	static const char * const names[] = { "rwlock", "rcu", "rhashtable", "kthread" };
	struct kvb_result r[8];
	struct kvb_params p;
	char where[256] = "", *json, *rep = NULL;
	int i, w;

	kvb_params_defaults(&p);
	p.dist = KVB_UNIFORM;
	memset(r, 0, sizeof(r));
	for (w = 0; w < 2; w++) {
		/* ycsb-c (scrambled-zipf) and seed (uniform) */
		const struct kvb_workload *wl = &kvb_workloads[w ? 5 : 2];

		for (i = 0; i < 4; i++) {
			struct kvb_result *x = &r[w * 4 + i];

			snprintf(x->target, sizeof(x->target), "%s", names[i]);
			x->kind = KVB_KERNEL;
			x->mix = wl->mix;
			x->mix.wl = wl;
			x->dist = wl->dist;
			x->theta = wl->theta;
			x->threads = 2;
			x->batch = 1;
			x->fdmode = KVB_FD_PER_THREAD;
			x->io = KVB_IO_IOCTL;
			x->runs = 5;
			x->run_ops = runs[(i + w) % 4];
			x->ops_per_sec = kvb_median(x->run_ops, 5);
		}
	}
	json = report(kvb_print_json, &p, r, 8);
	ok(verdict_roundtrip(json, &rep, where, sizeof(where)) == 2,
	   "verdict: bench.json's and kvbench report's agree field for field (%s)", where);
	ok(json && strstr(json, "\"group\": \"ycsb-c, scrambled-zipf, 2 threads, batch 1\""),
	   "verdict: bench.json names the workload's distribution, not the global --dist");
	free(json);
	free(rep);
}

/* One boot's report for test_merge: rwlock and rcu, 3 runs each. */
static char *merge_boot(const double *rw, const double *rc, struct kvb_hist *h,
			unsigned long keys, int hist)
{
	const struct kvb_workload *wl = &kvb_workloads[5];	/* seed */
	struct kvb_result r[2];
	struct kvb_params p;
	int i;

	kvb_params_defaults(&p);
	p.repeat = 3;
	p.ncpus = 2;
	p.keys = keys;
	memset(r, 0, sizeof(r));
	for (i = 0; i < 2; i++) {
		struct kvb_result *x = &r[i];

		snprintf(x->target, sizeof(x->target), i ? "rcu" : "rwlock");
		x->kind = KVB_KERNEL;
		x->mix = wl->mix;
		x->mix.wl = wl;
		x->dist = wl->dist;
		x->threads = 2;
		x->batch = 1;
		x->fdmode = KVB_FD_PER_THREAD;
		x->io = KVB_IO_IOCTL;
		x->runs = 3;
		x->run_ops = (double *)(i ? rc : rw);
		x->ops_per_sec = kvb_median(x->run_ops, 3);
		x->ns_per_op = 1e9 / x->ops_per_sec;
		x->ops = 1000 * (i + 1);
		x->seconds = 1.5;
		x->vcsw = 10 * (i + 1);
		x->hist = hist ? h : NULL;
		kvb_hist_summary(h, &x->lat);
		x->samples = h->count;
		x->thr_min = x->ops_per_sec / 2;
		x->thr_max = x->thr_min;
		x->thr_ratio = 1;
		x->bstats = (struct kvb_bstats){ .valid = 1, .reset = 1, .queue_hwm = 3 + i,
						 .drain_mean = 2, .requests = 500, .has_sleeps = 1,
						 .sleeps = 50, .combine_mean = NAN };
	}
	return report(kvb_print_json, &p, r, 2);
}

static int write_tmp(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text ? text : "", f);
	return fclose(f);
}

/* host-steal.txt lines for every run of rwlock in test_merge's report a */
static const char steal_all[] =
	"50% kvbench: [round 1/3, 1/2] rwlock seed threads=2 batch=1 fd=per-thread 1 ops/s\n"
	"50% kvbench: [round 2/3, 1/2] rwlock seed threads=2 batch=1 fd=per-thread 1 ops/s\n"
	"50% kvbench: [round 3/3, 1/2] rwlock seed threads=2 batch=1 fd=per-thread 1 ops/s\n";

/*
 * test_merge's --max-steal cases: report text a, with host-steal.txt
 * (steal) beside it in a directory of its own, and report file b merged
 * into o by `kvbench merge --max-steal 10`, then `kvbench report o`; their
 * output in out. Returns the exit status (-1: no directory).
 */
static int merge_with_steal(const char *k, const char *a, const char *steal,
			    const char *b, const char *o, char *out, size_t len)
{
	char dir[] = "/tmp/kvbench-test-steal.XXXXXX", path[64], path2[64];
	int st;

	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/bench.json", dir);
	write_tmp(path, a);
	snprintf(path2, sizeof(path2), "%s/host-steal.txt", dir);
	write_tmp(path2, steal);
	st = run(out, len, "%s merge --max-steal 10 -o %s %s %s 2>&1 && %s report %s 2>&1",
		 k, o, path, b, k, o);
	unlink(path);
	unlink(path2);
	rmdir(dir);
	return st;
}

/*
 * The pooled report o of a merge that exited st, parsed into *root (its
 * text in *text, for the caller to free): its first result when it has
 * the two of test_merge's reports, else NULL.
 */
static const struct jnode *merged_first(int st, const char *o, struct jnode *root,
					char **text, char *err, size_t len)
{
	const struct jnode *res = NULL;

	memset(root, 0, sizeof(*root));
	*text = kvb_slurp(o, err, len);
	if (st == 0 && *text && !kvb_json_parse(*text, root, err, len))
		res = kvb_json_get(root, "results", J_ARR);
	return res && res->nkids == 2 ? &res->kids[0] : NULL;
}

/*
 * kvbench merge: two boots' reports of one suite pooled. Each case keeps
 * every run (rounds numbered on, "boots" naming the report), the median,
 * counts, means and latency computed from all of them (the histograms
 * added exactly), the verdict that of `kvbench report` on the pooled file;
 * reports of two suites, or without histograms to pool, are refused.
 */
static void test_merge(const char *k)
{
	static const double rw1[] = { 100, 102, 104 }, rc1[] = { 90, 91, 92 };
	static const double rw2[] = { 120, 121, 122 }, rc2[] = { 80, 81, 82 };
	const char *a = "/tmp/kvbench-test-merge-a.json", *b = "/tmp/kvbench-test-merge-b.json";
	const char *c = "/tmp/kvbench-test-merge-c.json", *o = "/tmp/kvbench-test-merge-o.json";
	static const char steal_txt[] =
		"30% kvbench: [round 2/3, 1/2] rwlock seed threads=2 batch=1 fd=per-thread 1 ops/s\n"
		"5% kvbench: [round 1/3, 2/2] rcu seed threads=2 batch=1 fd=per-thread 1 ops/s\n";
	struct kvb_hist *h1 = malloc(sizeof(*h1)), *h2 = malloc(sizeof(*h2));
	const struct jnode *res, *x = NULL, *v1, *v2, *lat;
	char *ta, *tb, *tc, *pooled, err[256] = "", where[256] = "", out[8192];
	struct jnode root, rep;
	int st, i;

	if (!k || access(k, X_OK) || !h1 || !h2) {
		skip("no kvbench binary", "kvbench merge");
		free(h1);
		free(h2);
		return;
	}
	kvb_hist_init(h1);
	kvb_hist_init(h2);
	for (i = 0; i < 300; i++) {
		kvb_hist_add(h1, 1000 + i);
		kvb_hist_add(h2, 5000 + 7 * i);
	}
	ta = merge_boot(rw1, rc1, h1, 1000, 1);
	tb = merge_boot(rw2, rc2, h2, 1000, 1);
	write_tmp(a, ta);
	write_tmp(b, tb);
	st = run(out, sizeof(out), "%s merge -o %s %s %s 2>&1", k, o, a, b);
	x = merged_first(st, o, &root, &pooled, err, sizeof(err));
	lat = kvb_json_get(x, "latency_ns", J_OBJ);
	kvb_hist_merge(h1, h2);
	ok(x && !strcmp(kvb_json_get(x, "backend", J_STR)->str, "rwlock") &&
	   kvb_json_get(x, "runs", J_NUM)->num == 6 &&
	   kvb_json_get(x, "ops_per_sec", J_NUM)->num == 112 &&
	   kvb_json_get(x, "ops_per_sec_runs", J_ARR)->kids[3].num == 120 &&
	   kvb_json_get(x, "rounds", J_ARR)->kids[3].num == 3 &&
	   kvb_json_get(x, "rounds", J_ARR)->kids[5].num == 5 &&
	   kvb_json_get(x, "boots", J_ARR)->kids[2].num == 0 &&
	   kvb_json_get(x, "boots", J_ARR)->kids[3].num == 1 &&
	   kvb_json_get(x, "ops", J_NUM)->num == 2000 &&
	   kvb_json_get(x, "spread_pct", J_NUM)->num == 19.64 &&
	   kvb_json_get(&root, "params", J_OBJ) &&
	   kvb_json_get(kvb_json_get(&root, "params", J_OBJ), "repeat", J_NUM)->num == 6 &&
	   kvb_json_get(&root, "boots", J_ARR) &&
	   kvb_json_get(&root, "boots", J_ARR)->nkids == 2,
	   "merge: a case's runs from both reports, rounds numbered on, boots, median, spread and counts of the pooled runs (%s%s)",
	   err, st ? out : "");
	ok(lat && kvb_json_get(lat, "samples", J_NUM)->num == 600 &&
	   kvb_json_get(lat, "min", J_NUM)->num == 1000 &&
	   kvb_json_get(lat, "max", J_NUM)->num == 5000 + 7 * 299 &&
	   kvb_json_get(kvb_json_get(lat, "percentiles", J_OBJ), "50", J_NUM)->num ==
	   kvb_hist_value_at(h1, 50) &&
	   kvb_json_get(kvb_json_get(lat, "percentiles", J_OBJ), "90", J_NUM)->num ==
	   kvb_hist_value_at(h1, 90) &&
	   kvb_json_get(kvb_json_get(x, "backend_stats", J_OBJ), "requests", J_NUM)->num == 1000 &&
	   kvb_json_get(kvb_json_get(x, "backend_stats", J_OBJ), "wakeups_per_req",
			J_NUM)->num == 0.1,
	   "merge: the latency of the two histograms added (p50 and p90 of the sum, not of either), backend counts added");
	/* the pooled report's verdict is kvbench report's on it */
	st = run(out, sizeof(out), "%s report --json %s 2>&1", k, o);
	memset(&rep, 0, sizeof(rep));
	v1 = kvb_json_get(&root, "verdict", J_ARR);
	v2 = NULL;
	if (st == 0 && !kvb_json_parse(out, &rep, err, sizeof(err)))
		v2 = kvb_json_get(&kvb_json_get(&rep, "reports", J_ARR)->kids[0], "verdict", J_ARR);
	ok(v1 && v2 && v1->nkids == 1 && jsame(v1, v2, where, sizeof(where)),
	   "merge: the pooled report's verdict is the one kvbench report computes from it (%s%s)",
	   where, err);
	kvb_json_free(&rep);
	kvb_json_free(&root);
	free(pooled);
	/* another suite: 1000 keys against 2000 */
	tc = merge_boot(rw2, rc2, h2, 2000, 1);
	write_tmp(c, tc);
	st = run(out, sizeof(out), "%s merge -o %s %s %s 2>&1", k, o, a, c);
	ok(st == 1 && strstr(out, "differs from") &&
	   strstr(out, "in params.keys: not runs of one suite"),
	   "merge of two suites (--keys 1000 and 2000): exit 1, the field named");
	free(tc);
	/* a report without histograms, though its latency has samples */
	tc = merge_boot(rw2, rc2, h2, 1000, 0);
	write_tmp(c, tc);
	st = run(out, sizeof(out), "%s merge -o %s %s %s 2>&1", k, o, a, c);
	ok(st == 1 && strstr(out, "has no \"latency_hist\" to pool"),
	   "merge of a report without latency_hist: exit 1, said");
	free(tc);
	/* a bucket past the histogram's end */
	tc = strstr(ta, "\"buckets\": [");
	if (tc) {
		char *bad = malloc(strlen(ta) + 32);

		tc += strlen("\"buckets\": [");
		sprintf(bad, "%.*s[999999, 1], %s", (int)(tc - ta), ta, tc);
		write_tmp(c, bad);
		free(bad);
	}
	st = run(out, sizeof(out), "%s merge -o %s %s %s 2>&1", k, o, c, b);
	ok(st == 1 && strstr(out, "latency_hist: a bucket is not [index, count]"),
	   "merge of a report with a bucket out of range: exit 1, said");
	st = run(out, sizeof(out), "%s merge 2>&1", k);
	ok(st == 2 && strstr(out, "takes the reports to pool"),
	   "merge without reports: usage, exit 2");
	/*
	 * --max-steal: the runner's host-steal.txt beside a report says the
	 * host took 30% of the vCPUs' time in rwlock's second run of a: left
	 * out and listed; 5% in rcu's first run: kept.
	 */
	st = merge_with_steal(k, ta, steal_txt, b, o, out, sizeof(out));
	x = merged_first(st, o, &root, &pooled, err, sizeof(err));
	res = x ? kvb_json_get(&root, "results", J_ARR) : NULL;
	ok(x && kvb_json_get(x, "runs", J_NUM)->num == 5 &&
	   kvb_json_get(x, "ops_per_sec_runs", J_ARR)->kids[1].num == 104 &&
	   kvb_json_get(x, "dropped_runs", J_ARR) &&
	   kvb_json_get(x, "dropped_runs", J_ARR)->nkids == 1 &&
	   kvb_json_get(&kvb_json_get(x, "dropped_runs", J_ARR)->kids[0], "ops_per_sec",
			J_NUM)->num == 102 &&
	   kvb_json_get(&res->kids[1], "runs", J_NUM)->num == 6 &&
	   kvb_json_get(&root, "max_steal_pct", J_NUM)->num == 10 &&
	   strstr(out, "runs left out: 1, the host took 10% or more of the vCPUs' time in them"),
	   "merge --max-steal 10: the run the host took 30%% of left out and listed, one at 5%% kept, the report says so (%s)",
	   err);
	kvb_json_free(&root);
	free(pooled);
	/* every run of a's rwlock left out: b's three remain, rounds 3-5 of boot 1 */
	st = merge_with_steal(k, ta, steal_all, b, o, out, sizeof(out));
	x = merged_first(st, o, &root, &pooled, err, sizeof(err));
	ok(x && kvb_json_get(x, "runs", J_NUM)->num == 3 &&
	   kvb_json_get(x, "ops_per_sec", J_NUM)->num == 121 &&
	   kvb_json_get(x, "rounds", J_ARR)->kids[0].num == 3 &&
	   kvb_json_get(x, "rounds", J_ARR)->kids[2].num == 5 &&
	   kvb_json_get(x, "boots", J_ARR)->kids[0].num == 1 &&
	   kvb_json_get(x, "dropped_runs", J_ARR)->nkids == 3 &&
	   kvb_json_get(&kvb_json_get(x, "dropped_runs", J_ARR)->kids[2], "round",
			J_NUM)->num == 2,
	   "merge --max-steal: all of one report's runs of a case left out, the other's kept with their rounds and boot (%s%s)",
	   err, st ? out : "");
	kvb_json_free(&root);
	free(pooled);
	st = run(out, sizeof(out), "%s merge --max-steal 0 %s 2>&1", k, a);
	ok(st == 2 && strstr(out, "--max-steal: a share of the vCPUs' time"),
	   "merge --max-steal 0: usage, exit 2");
	unlink(a);
	unlink(b);
	unlink(c);
	unlink(o);
	free(ta);
	free(tb);
	free(h1);
	free(h2);
}

/*
 * bench --margin: the run's tie margin is in its report (params.margin),
 * and bench's own verdict (its JSON and its table's lines), `kvbench
 * report` without --margin, compare's agreement and the forest plot all
 * judge at it; report --margin overrides it.
 */
static void test_run_margin(const char *k)
{
	static double runs[2][5] = {
		{ 1000, 1010, 990, 1005, 995 }, { 880, 1000, 900, 960, 930 },
	};
	static const char * const names[] = { "rwlock", "rcu" };
	static const char bad[] =
		"{\"schema\":\"kvbench-bench/4\",\"params\":{\"margin\":0.9},\"results\":[]}";
	struct kvb_result r[2];
	struct kvb_params p;
	struct kvb_rmodel m5, m30;
	struct kvb_agree ag;
	char err[256] = "", where[256] = "", *json, *json5, *rep = NULL, *tab, *fo = NULL;
	char out[16384], eout[4096], path[64];
	struct kvb_cmp_opts co = { .alpha = 0.05 };
	size_t len = 0;
	FILE *f;
	int i, st;

	kvb_params_defaults(&p);
	ok(p.margin == KVB_VERDICT_MARGIN, "bench --margin: 5%% by default");
	memset(r, 0, sizeof(r));
	for (i = 0; i < 2; i++) {
		struct kvb_result *x = &r[i];

		snprintf(x->target, sizeof(x->target), "%s", names[i]);
		x->kind = KVB_KERNEL;
		x->mix = (struct kvb_mix){ .get = 100 };
		x->threads = 2;
		x->batch = 1;
		x->fdmode = KVB_FD_PER_THREAD;
		x->io = KVB_IO_IOCTL;
		x->runs = 5;
		x->run_ops = runs[i];
		x->ops_per_sec = kvb_median(x->run_ops, 5);
	}
	json5 = report(kvb_print_json, &p, r, 2);
	p.margin = 0.3;
	json = report(kvb_print_json, &p, r, 2);
	tab = report(kvb_print_table, &p, r, 2);
	ok(json && strstr(json, "\n    \"margin\": 0.3\n  },\n") &&
	   strstr(json, "\"margin\": 0.3,\n") && strstr(json, "\"mark\": \"tied\"") &&
	   strstr(json, "\"fastest\": [\"rwlock\", \"rcu\"]") &&
	   json5 && strstr(json5, "\"mark\": \"inconclusive\""),
	   "bench --margin 30: recorded in params, and bench.json's verdict ties at it");
	ok(tab && strstr(tab, "rwlock; rcu is tied with it (within ±30%)") &&
	   strstr(tab, "\ninterval inside ±30%; 'kvbench report --all'"),
	   "bench --margin 30: the table's verdict lines tie at it");
	/* report without --margin: the run's; its verdict is bench.json's, field for field */
	ok(verdict_roundtrip(json, &rep, where, sizeof(where)) > 0 &&
	   strstr(rep, "\"margin\": 0.3,"),
	   "bench --margin 30: report --json without --margin gives bench.json's verdict (%s)",
	   where);
	free(rep);
	rep = NULL;
	f = open_memstream(&rep, &len);
	if (json && f)
		kvb_report_text(f, json, "bench.json", 1, 0, 0, err, sizeof(err));
	if (f)
		fclose(f);
	ok(rep && strstr(rep, "\nmargin: ±30%, slower beyond, tied within ") &&
	   strstr(rep, "tied within (the run's, bench --margin)\n") &&
	   strstr(rep, "rwlock; rcu is tied with it (within ±30%)"),
	   "bench --margin 30: kvbench report says the run's margin and ties at it");
	free(rep);
	rep = NULL;
	/* compare: each verdict at its report's margin, the difference said */
	if (json && json5 && !kvb_rmodel_parse(json5, &m5, err, sizeof(err))) {
		if (!kvb_rmodel_parse(json, &m30, err, sizeof(err))) {
			ok(!kvb_agreement(&m5, &m30, 0.05, 0, &ag) && ag.margin[0] == 0.05 &&
			   ag.margin[1] == 0.3 && ag.groups == 1 && ag.agree == 0,
			   "compare: each verdict at its report's margin (5%%, 30%%): they differ on the tie");
			ok(!kvb_agreement(&m5, &m30, 0.05, 0.3, &ag) && ag.agree == 1,
			   "compare --margin 30: one margin for both, they agree");
			f = open_memstream(&fo, &len);
			if (f && !kvb_forest_script(f, "f.svg", &m30, err, sizeof(err)))
				fclose(f);
			else if (f)
				fclose(f);
			ok(fo && strstr(fo, "set arrow from 0.7, graph 0") &&
			   strstr(fo, "set arrow from 1.3, graph 0") && strstr(fo, "rcu (tied)"),
			   "plot --forest: the run's margin, its dashed lines at 0.7 and 1.3");
			free(fo);
			kvb_rmodel_free(&m30);
		}
		kvb_rmodel_free(&m5);
	}
	st = compare_opts(out, sizeof(out), eout, sizeof(eout), json5, json, &co, err,
			  sizeof(err));
	ok(st > 0 && strstr(out, "tie margins differ: ±5% in old, ±30% in new"),
	   "compare: reports of different margins: said (%s)", err);
	/* a margin out of range in a report is an error, not a verdict */
	ok(kvb_rmodel_parse(bad, &m5, err, sizeof(err)) == -1 &&
	   strstr(err, "\"margin\": 0.9 is out of range"),
	   "a report's margin out of range: an error (%s)", err);
	if (k && !access(k, X_OK)) {
		snprintf(path, sizeof(path), "/tmp/kvbench-margin-%d.json", (int)getpid());
		f = json ? fopen(path, "w") : NULL;
		if (f) {
			fputs(json, f);
			fclose(f);
		}
		st = run(out, sizeof(out), "%s report %s 2>&1", k, path);
		ok(st == 0 && strstr(out, "rcu is tied with it (within ±30%)"),
		   "kvbench report on a --margin 30 run: tied at 30%%");
		st = run(out, sizeof(out), "%s report --margin 5 %s 2>&1", k, path);
		ok(st == 0 && strstr(out, "margin: ±5%, slower beyond, tied within (--margin)") &&
		   !strstr(out, "is tied with it"),
		   "kvbench report --margin 5 overrides the run's");
		unlink(path);
		st = run(out, sizeof(out), "%s bench --dry-run -b user-rwlock --margin 0 2>&1", k);
		ok(st == 2 && strstr(out, "--margin") && strstr(out, "at most 50"),
		   "bench --margin 0: exit 2, the range said");
	} else {
		skip("no kvbench binary", "kvbench report on a --margin 30 run");
		skip("no kvbench binary", "kvbench report --margin 5 overrides the run's");
		skip("no kvbench binary", "bench --margin 0: exit 2");
	}
	free(json);
	free(json5);
	free(tab);
}

/*
 * compare --base and report give one number for one pair: both the
 * Hodges-Lehmann estimate (compare took the ratio of the medians).
 */
static void test_base_estimator(void)
{
	static const char rep[] =
		"{\"schema\": \"kvbench-bench/3\", \"cpus\": 2, \"params\": {\"repeat\": 5},\n"
		" \"results\": [\n"
		"  {\"backend\": \"rwlock\", \"kind\": \"kernel\", \"mix\": {\"name\": \"get\"},\n"
		"   \"threads\": 2, \"batch\": 1, \"fd\": \"per-thread\",\n"
		"   \"ops_per_sec_runs\": [100, 101, 102, 103, 104]},\n"
		"  {\"backend\": \"rcu\", \"kind\": \"kernel\", \"mix\": {\"name\": \"get\"},\n"
		"   \"threads\": 2, \"batch\": 1, \"fd\": \"per-thread\",\n"
		"   \"ops_per_sec_runs\": [90, 91, 130, 131, 132]}]}";
	struct kvb_cmp_opts o = { .alpha = 0.05, .json = 1, .base = "rwlock" };
	char out[16384], eout[4096], err[256] = "", *rep_out = NULL;
	double cmp = NAN, hl = NAN;
	const char *at;
	size_t len = 0;
	FILE *f;

	at = NULL;
	if (compare_opts(out, sizeof(out), eout, sizeof(eout), rep, NULL, &o, err,
			 sizeof(err)) >= 0)
		at = strstr(out, "\"ratio\": ");
	if (at)
		cmp = strtod(at + 9, NULL);
	f = open_memstream(&rep_out, &len);
	if (f && kvb_report_text(f, rep, "r.json", 1, 0, 1, err, sizeof(err)) > 0) {
		fflush(f);
		at = strstr(rep_out, "\"target\": \"rwlock\"");
		at = at ? strstr(at, "\"ratio\": ") : NULL;
		if (at)
			hl = strtod(at + 9, NULL);
	}
	if (f)
		fclose(f);
	ok(fabs(cmp - 1 / hl) < 0.001 && fabs(cmp - 130.0 / 102) > 0.01 &&
	   strstr(out, "\"estimator\": \"hodges-lehmann\""),
	   "compare --base and report: one estimate for one pair, Hodges-Lehmann (%g, 1/%g)",
	   cmp, hl);
	free(rep_out);
}

/* A report of two groups (get, 90:10 at 2 threads), three targets, 5 runs around med[] */
static void agree_report(char *buf, size_t len, const double med[6])
{
	static const char * const t[] = { "rwlock", "rcu", "rhashtable" };
	static const char * const mix[] = { "get", "90:10" };
	size_t n = snprintf(buf, len,
			    "{\"schema\": \"kvbench-bench/3\", \"cpus\": 2, \"params\": {\"repeat\": 5},\n"
			    " \"results\": [");
	int i, j;

	for (i = 0; i < 6 && n < len; i++) {
		n += snprintf(buf + n, len - n,
			      "%s\n  {\"backend\": \"%s\", \"kind\": \"kernel\", \"mix\": {\"name\": \"%s\"},\n"
			      "\"threads\": 2, \"batch\": 1, \"fd\": \"per-thread\", \"ops_per_sec_runs\": [",
			      i ? "," : "", t[i % 3], mix[i / 3]);
		for (j = 0; j < 5 && n < len; j++)
			n += snprintf(buf + n, len - n, "%s%.1f", j ? ", " : "",
				      med[i] * (1 + (j - 2) * 0.001));
		if (n < len)
			n += snprintf(buf + n, len - n, "]}");
	}
	if (n < len)
		snprintf(buf + n, len - n, "]}");
}

/*
 * compare A B of one suite: in how many groups the verdicts agree, and
 * every contradiction (one's fastest marked significantly slower in the
 * other), with synthetic reports.
 */
static void test_compare_agreement(void)
{
	/* get: rwlock, rcu, rhashtable; 90:10: the same */
	static const double a[6] = { 800, 1000, 600, 1000, 999.5, 500 };
	static const double b[6] = { 1000, 800, 600, 1000, 999.5, 500 };
	struct kvb_cmp_opts o = { .alpha = 0.05 };
	char ra[4096], rb[4096], out[16384], eout[4096], err[256] = "";
	int n;

	agree_report(ra, sizeof(ra), a);
	agree_report(rb, sizeof(rb), b);
	n = compare_opts(out, sizeof(out), eout, sizeof(eout), ra, rb, &o, err, sizeof(err));
	ok(n == 6 && strstr(out, "\nverdicts: 1 of 2 workload groups agree") &&
	   strstr(out, "4 of 6 targets have the same mark in both") &&
	   strstr(out, "\n2 contradictions (a group's fastest in one report marked ") &&
	   strstr(out, "marked significantly slower in the other):\n") &&
	   strstr(out, "  get, 2 threads, batch 1: old's fastest, rcu, is -20.0% ") &&
	   strstr(out, "rcu, is -20.0% [-20.2%, -19.8%] against rwlock in new\n") &&
	   strstr(out, "  get, 2 threads, batch 1: new's fastest, rwlock, is -20.0% ") &&
	   strstr(out, "rwlock, is -20.0% [-20.2%, -19.8%] against rcu in old\n"),
	   "compare A B: 1 of 2 groups agree, 4 of 6 marks the same, both contradictions listed (%s%s)",
	   err, eout);
	n = compare_opts(out, sizeof(out), eout, sizeof(eout), ra, ra, &o, err, sizeof(err));
	ok(n == 6 && strstr(out, "\nverdicts: 2 of 2 workload groups agree") &&
	   strstr(out, "6 of 6 targets have the same mark in both") &&
	   strstr(out, "\n0 contradictions (no group's fastest"),
	   "compare A A: every group agrees, no contradiction");
	/* at a margin of 10%, rcu in 90:10 is still tied, the get group still contradicts */
	o.margin = 0.1;
	n = compare_opts(out, sizeof(out), eout, sizeof(eout), ra, rb, &o, err, sizeof(err));
	ok(n == 6 && strstr(out, "\nverdicts: 1 of 2 workload groups agree") &&
	   !strstr(out, "(within ±10%)") && strstr(out, "2 contradictions"),
	   "compare --margin 10: the same groups agree");
	/* the margin is the smallest difference that counts: 20% is none at 50% */
	o.margin = 0.5;
	n = compare_opts(out, sizeof(out), eout, sizeof(eout), ra, rb, &o, err, sizeof(err));
	ok(n == 6 && strstr(out, "\nverdicts: 2 of 2 workload groups agree") &&
	   strstr(out, "6 of 6 targets have the same mark in both") &&
	   strstr(out, "\n0 contradictions"),
	   "compare --margin 50: a 20%% difference is inside the margin, no contradiction");
	o.margin = 0;
	o.json = 1;
	n = compare_opts(out, sizeof(out), eout, sizeof(eout), ra, rb, &o, err, sizeof(err));
	ok(n == 6 && json_valid(out) &&
	   strstr(out, "\"agreement\": { \"groups\": 2, \"agree\": 1, ") &&
	   strstr(out, "\"agree\": 1, \"targets\": 6, \"same_mark\": 4,") &&
	   strstr(out, "\"contradictions\": 2,") && count_of(out, "\"fastest_in\": ") == 2,
	   "compare --json A B: the agreement and its contradictions");
}

/*
 * A difference in one workload preset's parameters: named with its values
 * (it was listed as "params.workloads: ycsb-a,ycsb-b vs ycsb-a,ycsb-b");
 * the preemption model, HZ and the kernel command line are compared.
 */
static void test_compare_workload_diff(void)
{
	static const double m[6] = { 800, 1000, 600, 1000, 999.5, 500 };
	struct kvb_cmp_opts o = { .alpha = 0.05 };
	char ra[4096], rb[4096], out[16384], eout[4096], err[256] = "";
	int n;

	agree_report(ra, sizeof(ra), m);
	subst(ra, sizeof(ra), "\"params\": {\"repeat\": 5}",
	      "\"params\": {\"repeat\": 5, \"workloads\": [\n"
	      "{\"name\": \"ycsb-a\", \"read\": 50, \"dist\": \"scrambled-zipf\", \"theta\": 0.99},\n"
	      "{\"name\": \"ycsb-b\", \"read\": 95, \"dist\": \"scrambled-zipf\", \"theta\": 0.99}]},\n"
	      "\"provenance\": {\"preempt\": \"voluntary\", \"hz\": 250,\n"
	      "\"kernel_cmdline\": \"console=ttyS0\"}");
	snprintf(rb, sizeof(rb), "%s", ra);
	subst(rb, sizeof(rb), "\"read\": 95, \"dist\": \"scrambled-zipf\", \"theta\": 0.99",
	      "\"read\": 95, \"dist\": \"scrambled-zipf\", \"theta\": 0.5");
	subst(rb, sizeof(rb), "\"preempt\": \"voluntary\", \"hz\": 250,",
	      "\"preempt\": \"full\", \"hz\": 1000,");
	subst(rb, sizeof(rb), "\"console=ttyS0\"", "\"console=ttyS0 quiet\"");
	n = compare_opts(out, sizeof(out), eout, sizeof(eout), ra, rb, &o, err, sizeof(err));
	ok(n == KVB_CMP_REFUSED && strstr(eout, "params.workloads[ycsb-b].theta") &&
	   strstr(eout, "0.99") && strstr(eout, "0.5") &&
	   !strstr(eout, "params.workloads[ycsb-a]") && !strstr(eout, "ycsb-a,ycsb-b"),
	   "compare: one workload's parameter that differs is named, with both values");
	ok(n == KVB_CMP_REFUSED && strstr(eout, "provenance.preempt") &&
	   strstr(eout, "provenance.hz") &&
	   strstr(eout, "provenance.kernel_cmdline") && strstr(eout, "voluntary") &&
	   strstr(eout, "console=ttyS0 quiet"),
	   "compare: the preemption model, HZ and the kernel command line are compared");
}

/* The plot's panel of a workload: titled by its name (it crashed on "ycsb-a") */
static void test_workload_plot(void)
{
	static double runs[] = { 1000, 1010, 990 };
	struct kvb_result r[2];
	struct kvb_params p;
	struct kvb_rmodel root;
	char buf[65536] = "", err[256], *json;
	FILE *g = tmpfile();
	size_t n = 0;

	kvb_params_defaults(&p);
	p.repeat = 1;	/* one run: these count what one run does */
	memset(r, 0, sizeof(r));
	snprintf(r[0].target, sizeof(r[0].target), "user-rwlock");
	r[0].kind = KVB_USER_RWLOCK;
	r[0].mix = kvb_workloads[0].mix;
	r[0].mix.wl = &kvb_workloads[0];
	r[0].threads = 1;
	r[0].batch = 1;
	r[0].fdmode = KVB_FD_NONE;
	r[0].io = KVB_IO_NONE;
	r[0].runs = 3;
	r[0].run_ops = runs;
	r[0].ops_per_sec = 1000;
	r[1] = r[0];
	r[1].mix = kvb_workloads[5].mix;
	r[1].mix.wl = &kvb_workloads[5];
	json = report(kvb_print_json, &p, r, 2);
	if (g && json && !kvb_rmodel_parse(json, &root, err, sizeof(err))) {
		if (!kvb_plot_script(g, "x.svg", &root, err, sizeof(err))) {
			rewind(g);
			n = fread(buf, 1, sizeof(buf) - 1, g);
		}
		kvb_rmodel_free(&root);
	}
	buf[n] = 0;
	ok(strstr(buf, "ycsb-a") && strstr(buf, "seed"),
	   "plot: a panel per workload of bench's own JSON, titled by its name");
	if (g)
		fclose(g);
	free(json);
}

static void test_workload_cli(const char *k)
{
	char out[32768], cmd[256];
	int st;

	if (!k || access(k, X_OK)) {
		skip("no kvbench binary given", "--workload command line tests");
		return;
	}
	snprintf(cmd, sizeof(cmd), "%s bench -b user-rwlock -t 1 -D 0.01 -w 0 -q", k);
	st = run(out, sizeof(out), "%s -W e 2>&1", cmd);
	ok(st == 2 && strstr(out, "'e' is not a workload") && strstr(out, "ycsb-d (d)") &&
	   strstr(out, "seed"), "-W e: exit 2, the presets listed");
	st = run(out, sizeof(out), "%s -m get --workload a 2>&1", cmd);
	ok(st == 2 && strstr(out, "--mix and --workload exclude each other"),
	   "-m with --workload: exit 2");
	st = run(out, sizeof(out), "%s -W a --dist uniform 2>&1", cmd);
	ok(st == 2 && strstr(out, "--dist") && strstr(out, "fixes the key distribution"),
	   "--dist with --workload: exit 2");
	st = run(out, sizeof(out), "%s -W b,f --batch 1,8 2>&1", cmd);
	ok(st == 2 && strstr(out, "ycsb-f is read-modify-write") && strstr(out, "--batch"),
	   "-W f --batch 8: exit 2, names ycsb-f");
	st = run(out, sizeof(out), "%s -W f --multi 8 2>&1", cmd);
	ok(st == 2 && strstr(out, "ycsb-f") && strstr(out, "--multi"), "-W f --multi: exit 2");
	st = run(out, sizeof(out), "%s bench -b nop,user-rwlock -W f --io uring -q 2>&1", k);
	ok(st == 2 && strstr(out, "ycsb-f") && strstr(out, "--io uring"),
	   "-W f --io uring: exit 2");
	st = run(out, sizeof(out), "%s -W a,b --batch 8 --dry-run 2>&1", cmd);
	ok(st == 0, "-W a,b --batch 8: allowed (no read-modify-write)");
	st = run(out, sizeof(out),
		 "%s bench -b user-rwlock,user-owner -t 1,2 -W ycsb -r 2 --dry-run --cpus 2 2>&1",
		 k);
	ok(st == 0 && strstr(out, "workloads ycsb-a,ycsb-b,ycsb-c,ycsb-d,ycsb-f") &&
	   strstr(out, "20 cases x 2 rounds"),
	   "--dry-run counts the workloads: 2 targets x 5 workloads x 2 thread counts");
	st = run(out, sizeof(out), "%s bench -b user-rwlock -W seed --cpus 2 --dry-run 2>&1", k);
	ok(st == 0 && strstr(out, "threads 2;") && strstr(out, "1 cases"),
	   "-W seed without -t: one thread per CPU");
	st = run(out, sizeof(out), "%s bench -b user-rwlock -W seed,a --cpus 4 --dry-run 2>&1",
		 k);
	ok(st == 0 && strstr(out, "threads 1,2,4;"), "-W seed,a without -t: pow2 (up to the CPUs)");
	st = run(out, sizeof(out), "%s -W c,d -f json 2>&1", cmd);
	ok(st == 0 && json_valid(out) && strstr(out, "\"workload\": \"ycsb-c\"") &&
	   strstr(out, "\"workload\": \"ycsb-d\"") && strstr(out, "\"dist\": \"latest\"") &&
	   strstr(out, "\"key_size\": 24") && strstr(out, "\"value_size\": 1000") &&
	   strstr(out, "\"keys\": 1000") && strstr(out, "\"insert\": 5") &&
	   strstr(out, "\"workloads\": [") && strstr(out, "\"rmw\": 0"),
	   "-W c,d JSON: workload and dist per case, YCSB's record, params.workloads");
	st = run(out, sizeof(out), "%s -W a -k 64 --value-size 8 -f json 2>&1", cmd);
	ok(st == 0 && strstr(out, "\"keys\": 64") && strstr(out, "\"value_size\": 8") &&
	   strstr(out, "\"key_size\": 24"), "-W a: -k and --value-size still apply");
	st = run(out, sizeof(out), "%s -m get -f json 2>&1", cmd);
	ok(st == 0 && strstr(out, "\"workload\": null") && strstr(out, "\"workloads\": null") &&
	   strstr(out, "\"dist\": \"uniform\""), "-m: workload null");
	st = run(out, sizeof(out), "%s -W a,seed 2>&1", cmd);
	ok(st == 0 && strstr(out, "user-rwlock ycsb-a") && strstr(out, "user-rwlock seed"),
	   "the table's mix column names the workload");
	if (run(out, sizeof(out), "command -v gnuplot >/dev/null 2>&1")) {
		skip("no gnuplot", "kvbench plot of a workload report");
		return;
	}
	/* ycsb-c and seed are both GET only: their names tell them apart */
	st = run(out, sizeof(out),
		 "d=$(mktemp -d) && %s -r 2 -W c,seed -f json -o $d/w.json && %s plot $d/w.json $d/w.svg && grep -c -e ' ycsb-c (100%% GET): ops/s<' -e ' seed (100%% GET): ops/s<' $d/w.svg; rm -rf $d",
		 cmd, k);
	ok(st == 0 && atoi(out) == 2,
	   "kvbench plot of a workload report: a panel each for ycsb-c and seed, with its mix");
	st = run(out, sizeof(out),
		 "d=$(mktemp -d) && %s -r 2 -W a -f json -o $d/w.json && %s plot $d/w.json $d/w.svg && grep -c \"each workload's keys\" $d/w.svg; rm -rf $d",
		 cmd, k);
	ok(st == 0 && atoi(out) == 1,
	   "kvbench plot of a workload report: the caption names no --dist distribution");
}

/* A fixture file under root: its directories made, its text written. */
static int put_tree(const char *root, const char *rel, const char *text)
{
	char out[256], path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	if (run(out, sizeof(out), "mkdir -p \"$(dirname '%s')\"", path))
		return -1;
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* The host's provenance, read from fixture trees as from /proc and /sys. */
static void test_host_prov(void)
{
	char root[] = "/tmp/kvbench-test-XXXXXX", out[256];
	struct utsname u = { 0 };
	struct kvb_host h;
	double load[3], steal;

	if (!mkdtemp(root)) {
		skip("no temporary directory", "host provenance");
		return;
	}
	snprintf(u.release, sizeof(u.release), "6.12.0-test");
	snprintf(u.version, sizeof(u.version), "#1 SMP PREEMPT_DYNAMIC Debian 6.12.0-1");
	/* an empty root: nothing known, nothing made up */
	kvb_host_collect(&h, root, &u, 2);
	ok(!h.cmdline[0] && h.hz == 0 &&
	   !h.governor[0] && h.smt_active == -1 && !h.smt_control[0] && h.nnodes == -1 &&
	   isnan(h.load_before[0]) && isnan(h.load_after[0]) && !h.busy,
	   "host: an empty root: every field unknown, not busy");
	ok(!strcmp(h.preempt, "dynamic") && !strcmp(h.preempt_src, "uname -v"),
	   "host: PREEMPT_DYNAMIC without config or preempt=: dynamic, mode unknown");
	snprintf(u.version, sizeof(u.version), "#1 SMP Debian");
	kvb_host_collect(&h, root, &u, 2);
	ok(!h.preempt[0] && !h.preempt_src[0], "host: no word, no config: preempt unknown");
	snprintf(u.version, sizeof(u.version), "#1 SMP PREEMPT_DYNAMIC Debian 6.12.0-1");

	put_tree(root, "/proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/vda quiet\n");
	put_tree(root, "/boot/config-6.12.0-test",
		 "# CONFIG_PREEMPT_NONE is not set\nCONFIG_PREEMPT_VOLUNTARY=y\n"
		 "# CONFIG_PREEMPT is not set\nCONFIG_HZ_250=y\nCONFIG_HZ=250\n");
	put_tree(root, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n");
	put_tree(root, "/sys/devices/system/cpu/smt/active", "1\n");
	put_tree(root, "/sys/devices/system/cpu/smt/control", "on\n");
	put_tree(root, "/sys/devices/system/node/node1/cpulist", "4-7\n");
	put_tree(root, "/sys/devices/system/node/node0/cpulist", "0-3\n");
	put_tree(root, "/sys/devices/system/node/possible", "0-1\n");
	put_tree(root, "/proc/loadavg", "0.50 0.40 0.30 1/99 1234\n");
	kvb_host_collect(&h, root, &u, 1);
	ok(!strcmp(h.cmdline, "BOOT_IMAGE=/vmlinuz root=/dev/vda quiet") &&
	   !strcmp(h.preempt, "voluntary") &&
	   !strcmp(h.preempt_src, "uname -v, /boot/config-6.12.0-test") && h.hz == 250 &&
	   !strcmp(h.governor, "performance") && h.smt_active == 1 &&
	   !strcmp(h.smt_control, "on"),
	   "host: cmdline, preempt from uname -v and the config, HZ, governor, SMT");
	ok(h.nnodes == 2 && h.node_id[0] == 0 && !strcmp(h.node_cpus[0], "0-3") &&
	   h.node_id[1] == 1 && !strcmp(h.node_cpus[1], "4-7"),
	   "host: NUMA nodes in order with their CPUs, other files ignored");
	ok(h.load_before[0] == 0.5 && h.load_before[1] == 0.4 && h.load_before[2] == 0.3 &&
	   !h.busy, "host: load average, read; a load is no verdict on the host");
	put_tree(root, "/proc/loadavg", "0.51 0.40 0.30 1/99 1234\n");
	ok(kvb_read_loadavg(root, load) == 0 && load[0] == 0.51, "host: the 1-minute load");
	/* user nice system idle iowait irq softirq steal: 100 ticks each way */
	ok(kvb_stat_busy_pct("cpu  100 0 50 1000 10 0 0 0 0 0",
			     "cpu  120 0 55 1070 15 0 0 0 0 0", NULL) == 25 &&
	   kvb_stat_busy_pct("cpu  100 0 50 1000 10 0 0 0",
			     "cpu  100 0 50 1090 20 0 0 0", &steal) == 0 && steal == 0 &&
	   kvb_stat_busy_pct("cpu  0 0 0 0 0 0 0 0", "cpu  0 0 0 50 0 0 0 50", &steal) == 50 &&
	   steal == 50,
	   "host: busy share from two /proc/stat lines: user and system busy, idle and iowait not, steal busy and said");
	ok(isnan(kvb_stat_busy_pct("cpu  1 2 3", "cpu  1 2 3 4 5 6 7 8", &steal)) &&
	   isnan(steal) &&
	   isnan(kvb_stat_busy_pct("cpu  5 0 0 0 0 0 0 0", "cpu  4 0 0 0 0 0 0 0", NULL)) &&
	   isnan(kvb_stat_busy_pct("cpu  5 0 0 0 0 0 0 0", "cpu  5 0 0 0 0 0 0 0", NULL)),
	   "host: a short line, a counter going back, no time passed: unknown");
	put_tree(root, "/proc/stat", "cpu  100 0 50 1000 10 0 0 0 0 0\ncpu0 1 2 3\n");
	kvb_host_collect(&h, root, &u, 2);
	ok(isnan(h.busy_pct) && !h.busy,
	   "host: a fixture's /proc/stat read twice is no window: unknown, not busy");

	put_tree(root, "/proc/cmdline", "root=/dev/vda preempt=full quiet\n");
	kvb_host_collect(&h, root, &u, 2);
	ok(!strcmp(h.preempt, "full") && !strcmp(h.preempt_src, "uname -v, /proc/cmdline preempt="),
	   "host: a dynamic kernel's preempt= on the command line wins over the config");
	put_tree(root, "/sys/kernel/debug/sched/preempt", "none (voluntary) full lazy\n");
	kvb_host_collect(&h, root, &u, 2);
	ok(!strcmp(h.preempt, "voluntary") &&
	   !strcmp(h.preempt_src, "/sys/kernel/debug/sched/preempt"),
	   "host: debugfs's model in force wins over everything");
	run(out, sizeof(out), "rm -f %s/sys/kernel/debug/sched/preempt", root);
	snprintf(u.version, sizeof(u.version), "#1 SMP PREEMPT_RT Debian");
	kvb_host_collect(&h, root, &u, 2);
	ok(!strcmp(h.preempt, "rt") && !strcmp(h.preempt_src, "uname -v"),
	   "host: PREEMPT_RT in uname -v");
	snprintf(u.version, sizeof(u.version), "#1 SMP Debian");
	put_tree(root, "/boot/config-6.12.0-test", "CONFIG_PREEMPT_NONE=y\nCONFIG_HZ=1000\n");
	kvb_host_collect(&h, root, &u, 2);
	ok(!strcmp(h.preempt, "none") && !strcmp(h.preempt_src, "/boot/config-6.12.0-test") &&
	   h.hz == 1000, "host: no PREEMPT word in uname -v: the config's model and HZ");
	put_tree(root, "/proc/loadavg", "garbage\n");
	ok(kvb_read_loadavg(root, load) == -1 && isnan(load[0]),
	   "host: an unreadable load average is unknown");

	/* what the table's header and the JSON make of a busy host */
	{
		static const char * const table_want[] = {
			"\nhost: accel kvm, preempt none (/boot/config-6.12.0-test), HZ 250, governor performance, SMT on (on), NUMA 2 nodes: 0=0-3 1=4-7\n",
			"\nload: 1.50 0.40 0.30 before, 1.50 0.40 0.30 after (1, 5, 15 min); module srcversion ABC123\n",
			"\ncmdline: root=/dev/vda preempt=full quiet\n",
			"\nhost_busy: the CPUs were 60% busy in the 250 ms before the run (25% or more)",
		};
		static const char * const json_want[] = {
			"\"host_busy\": true", "\"cpu_busy_pct_before\": 60.0", "\"hz\": 250",
			"\"preempt\": \"none\"",
			"\"preempt_source\": \"/boot/config-6.12.0-test\"",
			"\"smt\": { \"active\": true, \"control\": \"on\" }",
			"\"numa_nodes\": [{ \"node\": 0, \"cpus\": \"0-3\" }, { \"node\": 1, \"cpus\": \"4-7\" }]",
			"\"loadavg_before\": [1.50, 0.40, 0.30]",
			"\"loadavg_after\": [1.50, 0.40, 0.30]",
			"\"cpufreq_governor\": \"performance\"",
			"\"module_srcversion\": \"ABC123\"",
			"\"kernel_cmdline\": \"root=/dev/vda preempt=full quiet\"",
		};
		struct kvb_prov pv = { .tool_version = "0.1", .tool_git = "", .nparams = -1,
				       .nproc = 2 };
		struct kvb_params p;
		size_t len = 0, i, found;
		char *buf = NULL;
		FILE *f;

		put_tree(root, "/proc/loadavg", "1.50 0.40 0.30 1/99 1234\n");
		put_tree(root, "/boot/config-6.12.0-test",
			 "CONFIG_PREEMPT_NONE=y\nCONFIG_HZ=250\n");
		kvb_host_collect(&pv.host, root, &u, 2);
		kvb_read_loadavg(root, pv.host.load_after);
		/* as a live window would find it */
		pv.host.busy_pct = 60;
		pv.host.busy = pv.host.busy_pct >= KVB_BUSY_PCT;
		snprintf(pv.accel, sizeof(pv.accel), "kvm");
		snprintf(pv.host.srcversion, sizeof(pv.host.srcversion), "ABC123");
		kvb_params_defaults(&p);
		p.prov = &pv;
		f = open_memstream(&buf, &len);
		kvb_print_table(f, &p, NULL, 0, &(struct kvb_outcome){ .complete = 1 });
		fclose(f);
		for (i = 0, found = 0; buf && i < ARRAY_SIZE(table_want); i++)
			found += !!strstr(buf, table_want[i]);
		ok(pv.host.busy && found == ARRAY_SIZE(table_want),
		   "table header: the host, the load before and after, the busy host's line");
		free(buf);
		buf = NULL;
		f = open_memstream(&buf, &len);
		kvb_print_json(f, &p, NULL, 0, &(struct kvb_outcome){ .complete = 1 });
		fclose(f);
		for (i = 0, found = 0; buf && i < ARRAY_SIZE(json_want); i++)
			found += !!strstr(buf, json_want[i]);
		ok(buf && json_valid(buf) && found == ARRAY_SIZE(json_want),
		   "JSON provenance: every host field, host_busy true");
		free(buf);
		buf = NULL;
		f = open_memstream(&buf, &len);
		kvb_print_json(f, &p, NULL, 0,
			       &(struct kvb_outcome){ .complete = 1, .interrupted = 1 });
		fclose(f);
		ok(buf && strstr(buf, "\"complete\": false"),
		   "JSON: an interrupted run is not complete, even at its end");
		free(buf);
	}
	put_tree(root, "/proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu vme hypervisor lahf_lm\n");
	ok(!strcmp(kvb_detect_accel(root), "unknown"),
	   "accel: an x86 guest (hypervisor flag) is unknown without KVBENCH_ACCEL");
	put_tree(root, "/proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu vme lahf_lm\n");
	ok(!strcmp(kvb_detect_accel(root), "native"),
	   "accel: an x86 CPU without the hypervisor flag is native");
	put_tree(root, "/proc/cpuinfo", "processor\t: 0\nFeatures\t: fp asimd\n");
	ok(!strcmp(kvb_detect_accel(root), "unknown"),
	   "accel: a CPU without x86 flags is unknown");
	run(out, sizeof(out), "rm -rf %s", root);
}

/* The README's documented CSV header: the line in backticks after "CSV (". */
static int readme_csv_header(char *buf, size_t len)
{
	static const char * const paths[] = { "README.md", "../README.md" };
	char line[2048];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		FILE *f = fopen(paths[i], "re");

		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			if (strncmp(line, "`backend,", 9))
				continue;
			line[strcspn(line, "\n")] = 0;
			if (line[strlen(line) - 1] != '`')
				break;
			line[strlen(line) - 1] = 0;
			snprintf(buf, len, "%s", line + 1);
			fclose(f);
			return 0;
		}
		fclose(f);
	}
	return -1;
}

/*
 * The tool's layers (layers.sh over the objects beside the binary): no
 * file calls into a higher layer, no two call each other; and the check
 * finds both in a made-up symbol table.
 */
static void test_layers(const char *k)
{
	static const char fake[] =
		"util/a.o:0000000000000000 T kvb_a\n"
		"util/a.o:                 U kvb_b\n"
		"engine/b.o:0000000000000000 T kvb_b\n"
		"engine/b.o:                 U kvb_c\n"
		"engine/c.o:0000000000000000 T kvb_c\n"
		"engine/c.o:                 U kvb_b\n";
	const char *slash = k ? strrchr(k, '/') : NULL;
	char out[8192], dir[512], obj[600], sh[PATH_MAX], nm[64];
	FILE *f;
	int st;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - k) : 1, slash ? k : ".");
	snprintf(obj, sizeof(obj), "%s/main.o", dir);
	if (!k || !realpath("layers.sh", sh) || access(obj, R_OK)) {
		skip("no layers.sh or no objects here (a guest)",
		     "layers: no file calls up, no circle");
		skip("no layers.sh here", "layers.sh finds a call up and a circle");
		return;
	}
	st = run(out, sizeof(out),
		 "cd %s && sh %s main.o util/*.o engine/*.o report/*.o cli/*.o 2>&1", dir, sh);
	ok(st == 0 && strstr(out, "no call up, no circle"),
	   "layers: no file calls up (cli > report > engine > util), no circle (%.*s)",
	   (int)strcspn(out, "\n"), out);
	snprintf(nm, sizeof(nm), "/tmp/kvbench-test-layers-%d.nm", (int)getpid());
	f = fopen(nm, "w");
	if (!f || fputs(fake, f) < 0 || fclose(f)) {
		skip("cannot write a temporary file", "layers.sh finds a call up and a circle");
		return;
	}
	st = run(out, sizeof(out), "sh %s --nm %s 2>&1", sh, nm);
	unlink(nm);
	ok(st == 1 && strstr(out, "layers: util/a calls up into engine/b: kvb_b") &&
	   strstr(out, "layers: engine/b and engine/c call each other (a circle)"),
	   "layers.sh finds a call up and a circle, and fails");
}

/* The command line's loose ends: ranges, --ops with --duration, help, JSON. */
static void test_hygiene(const char *k)
{
	char out[32768], doc[2048], *nl;
	int st;

	if (!k || access(k, X_OK)) {
		skip("no kvbench binary given", "command line hygiene");
		return;
	}
	st = run(out, sizeof(out), "%s bench --dry-run -t 5-2 2>&1", k);
	ok(st == 2 && strstr(out, "--threads: '5-2': a range runs from low to high") &&
	   !strstr(out, "outside"), "bench -t 5-2: exit 2, a range runs from low to high");
	st = run(out, sizeof(out), "%s bench --dry-run -t 2-2000 2>&1", k);
	ok(st == 2 && strstr(out, "'2-2000' is outside 1..1024"),
	   "bench -t 2-2000: still out of range");
	st = run(out, sizeof(out), "%s bench --dry-run -b user-rwlock -n 100 -D 2 2>&1", k);
	ok(st == 2 && strstr(out, "not both"), "bench -n with -D: usage error, exit 2");
	st = run(out, sizeof(out), "%s bench --dry-run -b user-rwlock -D 2 -n 100 2>&1", k);
	ok(st == 2 && strstr(out, "not both"), "bench -D then -n: usage error too");
	st = run(out, sizeof(out), "%s bench --dry-run -b user-rwlock -n 100 2>&1", k);
	ok(st == 0, "bench -n alone: fine");
	st = run(out, sizeof(out), "%s -d /nonexistent get --help 2>&1", k);
	ok(st == 0 && strstr(out, "Usage: kvbench [-d DEVICE] get [--] KEY") &&
	   !strstr(out, "nonexistent"), "get --help: the usage, exit 0, no lookup");
	st = run(out, sizeof(out),
		 "%s -d /nonexistent set -h 2>&1; %s -d /nonexistent del --help 2>&1; %s -d /nonexistent nop --help 2>&1",
		 k, k, k);
	ok(st == 0 && strstr(out, "kvbench [-d DEVICE] set [--] KEY VALUE") &&
	   strstr(out, "del [--] KEY") && strstr(out, "kvbench [-d DEVICE] nop\n") &&
	   !strstr(out, "nonexistent"), "set -h, del --help, nop --help: their usage");
	st = run(out, sizeof(out), "%s -d /nonexistent get -- --help 2>&1", k);
	ok(st == 1 && strstr(out, "/nonexistent"),
	   "get -- --help: a key that starts with '-' after '--' is looked up");
	st = run(out, sizeof(out), "%s -d /nonexistent get -x 2>&1", k);
	ok(st == 2 && strstr(out, "unknown option '-x'") && strstr(out, "get -- -x"),
	   "get -x: exit 2, says to put such a key after '--'");
	st = run(out, sizeof(out), "%s stats --help 2>&1; %s compare --help 2>&1", k, k);
	ok(st == 0 && strstr(out, "Usage: kvbench stats") && strstr(out, "Usage: kvbench compare"),
	   "stats --help and compare --help: their usage");
	st = run(out, sizeof(out), "%s bench --help", k);
	ok(st == 0 && strstr(out, "--repeat R") && strstr(out, "(default 5") &&
	   strstr(out, "(default uniform)"), "bench --help shows the defaults of -r and --dist");
	st = run(out, sizeof(out),
		 "timeout --preserve-status -s INT 1 %s bench -q -b user-rwlock -t 1 -w 0 -D 20s -f json 2>/dev/null",
		 k);
	ok(st == 130 && json_valid(out) && strstr(out, "\"interrupted\": true") &&
	   strstr(out, "\"complete\": false"), "an interrupted run's JSON says complete: false");
	/* without $KVBENCH_ACCEL, which a make check run may have set */
	st = run(out, sizeof(out),
		 "env -u KVBENCH_ACCEL %s bench -q -b user-rwlock -t 1 -n 100 -w 0 -f json 2>/dev/null",
		 k);
	ok(st == 0 && strstr(out, "\"complete\": true") && strstr(out, "\"host_busy\": ") &&
	   strstr(out, "\"loadavg_after\": ") && strstr(out, "\"preempt_source\": ") &&
	   strstr(out, "\"accel_source\": \"cpuinfo\"") &&
	   (strstr(out, "\"accel\": \"native\"") || strstr(out, "\"accel\": \"unknown\"")),
	   "a whole run: complete, the host's provenance, accel native or unknown from cpuinfo");
	st = run(out, sizeof(out),
		 "%s bench -q -b user-rwlock -t 1 -n 100 -w 0 -r 1 -f json -o /tmp/kvbench-test-%d.json 2>&1",
		 k, (int)getpid());
	snprintf(doc, sizeof(doc), "/tmp/kvbench-test-%d.json", (int)getpid());
	ok(st == 0 && check_json_file(doc) == 0,
	   "kvbench-test --check-json (smoke.sh's) takes the tool's own report");
	unlink(doc);
	/* -b: the module's backends file, else the tool's list */
	st = run(out, sizeof(out), "%s bench --dry-run --sysfs /nonexistent -b rwlcok 2>&1", k);
	ok(st == 2 && strstr(out, "'rwlcok': no such backend (did you mean 'rwlock'?)") &&
	   strstr(out, "the tool knows rwlock rcu kthread kthread-percpu rhashtable combining"),
	   "bench -b rwlcok without the module: exit 2, the known names, the nearest");
	st = run(out, sizeof(out),
		 "%s bench --dry-run --sysfs /nonexistent -b kthread,rcu 2>&1", k);
	ok(st == 0, "bench -b kthread,rcu without the module: the tool's names pass");
	st = run(out, sizeof(out), "%s bench --dry-run --sysfs /nonexistent -b user-rwlok 2>&1", k);
	ok(st == 2 && strstr(out, "did you mean 'user-rwlock'?"),
	   "bench -b user-rwlok: the nearest of the tool's other targets");
	st = run(out, sizeof(out), "%s bench --dry-run --sysfs /nonexistent -b zzzzzzzz 2>&1", k);
	ok(st == 2 && strstr(out, "'zzzzzzzz': no such backend;"), "bench -b far off: no guess");
	snprintf(doc, sizeof(doc), "/tmp/kvbench-test-XXXXXX");
	if (mkdtemp(doc) && !put_text(doc, "backends", "rwlock rcu future-one\n")) {
		st = run(out, sizeof(out),
			 "%s bench --dry-run --sysfs %s -b rwlock,future-one,current 2>&1",
			 k, doc);
		ok(st == 0 && strstr(out, "future-one"),
		   "bench -b: a backend the module offers and the tool does not know passes");
		st = run(out, sizeof(out), "%s bench --dry-run --sysfs %s -b rcu,kthread 2>&1",
			 k, doc);
		ok(st == 2 && strstr(out, "'kthread': no such backend;") &&
		   strstr(out, "the module offers rwlock rcu future-one"),
		   "bench -b: a backend the tool knows but the module does not offer fails");
		st = run(out, sizeof(out),
			 "%s bench --dry-run --sysfs %s -b kernel,all,current 2>&1", k, doc);
		ok(st == 0, "bench -b: groups and current are not checked name by name");
		st = run(out, sizeof(out), "%s bench --dry-run --sysfs %s -b rwlcok 2>&1", k, doc);
		ok(st == 2 && strstr(out, "did you mean 'rwlock'?"),
		   "bench -b rwlcok: the module's nearest");
		run(out, sizeof(out), "rm -rf %s", doc);
	} else {
		skip("no temporary directory", "bench -b against the module's backends file");
	}
	if (!has_python() || access("figures.py", R_OK)) {
		skip("no python3 or no figures.py here", "figures.py --help and a missing dir");
	} else {
		st = run(out, sizeof(out), "python3 figures.py --help 2>&1");
		ok(st == 0 && strstr(out, "Usage: figures.py RESULTS_DIR") &&
		   !strstr(out, "Traceback"), "figures.py --help: the usage, exit 0");
		st = run(out, sizeof(out), "python3 figures.py /nonexistent/results 2>&1");
		ok(st == 1 && !strstr(out, "Traceback") && count_of(out, "\n") == 1 &&
		   strstr(out, "/nonexistent/results"),
		   "figures.py of a missing dir: one line, exit 1");
	}
	if (readme_csv_header(doc, sizeof(doc))) {
		skip("no README.md here", "the CSV header is the README's");
		return;
	}
	st = run(out, sizeof(out),
		 "%s bench -q -b user-rwlock -t 1 -n 100 -w 0 -f csv 2>/dev/null", k);
	nl = strchr(out, '\n');
	if (nl)
		*nl = 0;
	ok(st == 0 && !strcmp(out, doc), "the CSV header is the one README.md documents");
	if (strcmp(out, doc))
		printf("# tool:   %s\n# README: %s\n", out, doc);
}

/*
 * --counters (counters.c) against a fake perf_event_open: chosen counts,
 * scaling and errnos, through the engine, the table, the JSON and back.
 */
static atomic_int ctr_opens, ctr_main_opens, ctr_enables, ctr_disables, ctr_closes;
static pid_t ctr_main_tid;
static pthread_mutex_t ctr_lock = PTHREAD_MUTEX_INITIALIZER;	/* protects ctr_attr */
static struct perf_event_attr ctr_attr[KVB_CTR_NEV];

/* The event an attr stands for, as counters.c opens them. */
static int ctr_event_of(const struct perf_event_attr *a)
{
	int k = !a->exclude_kernel && a->exclude_user;

	if (a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_CONTEXT_SWITCHES)
		return KVB_CTR_CSW;
	if (a->type != PERF_TYPE_HARDWARE)
		return -1;
	if (a->config == PERF_COUNT_HW_INSTRUCTIONS)
		return k ? KVB_CTR_INSTR_K : KVB_CTR_INSTR_U;
	if (a->config == PERF_COUNT_HW_CPU_CYCLES)
		return k ? KVB_CTR_CYC_K : KVB_CTR_CYC_U;
	if (a->config == PERF_COUNT_HW_CACHE_MISSES)
		return k ? KVB_CTR_CMISS_K : KVB_CTR_CMISS_U;
	return -1;
}

/* Per event: the errno perf_event_open fails with, or 0 and an fd. */
static const int ctr_errno[KVB_CTR_NEV] = {
	[KVB_CTR_INSTR_K] = EACCES,
	[KVB_CTR_CMISS_U] = ENOENT,
	[KVB_CTR_CMISS_K] = EOPNOTSUPP,
};

static int fake_open(struct perf_event_attr *a)
{
	int ev = ctr_event_of(a);

	atomic_fetch_add(&ctr_opens, 1);
	if (syscall(SYS_gettid) == ctr_main_tid)
		atomic_fetch_add(&ctr_main_opens, 1);
	if (ev < 0) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&ctr_lock);
	ctr_attr[ev] = *a;
	pthread_mutex_unlock(&ctr_lock);
	if (ctr_errno[ev]) {
		errno = ctr_errno[ev];
		return -1;
	}
	return 1000 + ev;
}

static int fake_enable(int on)
{
	atomic_fetch_add(on ? &ctr_enables : &ctr_disables, 1);
	return 0;
}

/*
 * Per thread: instr:u 1.5M over the whole window; cycles:u 1M over half
 * of it (scaled: 2M); cycles:k never on a counter; 3 context switches.
 */
static ssize_t fake_read(int fd, void *buf, size_t len)
{
	__u64 v[3] = { 0, 1000000, 1000000 };

	switch (fd - 1000) {
	case KVB_CTR_INSTR_U:
		v[0] = 1500000;
		break;
	case KVB_CTR_CYC_U:
		v[0] = 1000000;
		v[1] = 2000000;
		break;
	case KVB_CTR_CYC_K:
		v[0] = 0;
		v[2] = 0;
		break;
	case KVB_CTR_CSW:
		v[0] = 3;
		break;
	default:
		errno = EBADF;
		return -1;
	}
	if (len < sizeof(v)) {
		errno = ENOSPC;
		return -1;
	}
	memcpy(buf, v, sizeof(v));
	return sizeof(v);
}

static int fake_close(int fd)
{
	(void)fd;
	atomic_fetch_add(&ctr_closes, 1);
	return 0;
}

static int fake_paranoid(void)
{
	return 2;
}

static const struct kvb_ctr_sys fake_sys = {
	.open = fake_open,
	.enable = fake_enable,
	.read = fake_read,
	.close = fake_close,
	.paranoid = fake_paranoid,
};

static void test_counters_why(void)
{
	static const struct {
		int ev, err, paranoid;
		const char *want;
	} w[] = {
		{ KVB_CTR_INSTR_U, ENOENT, 2,
		  "no hardware PMU here (ENOENT): TCG, or a VM without a virtual PMU" },
		{ KVB_CTR_CSW, ENOENT, 2, "this kernel does not count it (ENOENT)" },
		{ KVB_CTR_CYC_K, EACCES, 2,
		  "perf_event_paranoid=2 forbids counting the kernel without CAP_PERFMON (EACCES)"
		},
		{ KVB_CTR_CSW, EPERM, 3,
		  "perf_event_paranoid=3 forbids counting the kernel without CAP_PERFMON (EPERM)" },
		{ KVB_CTR_CYC_U, EACCES, KVB_CTR_NO_PARANOID,
		  "perf_event_paranoid (unreadable), or a security policy, forbids perf_event_open (EACCES)"
		},
		{ KVB_CTR_CMISS_K, EOPNOTSUPP, 2,
		  "the PMU cannot count it apart for the kernel (EOPNOTSUPP)" },
		{ KVB_CTR_INSTR_U, EMFILE, 2, "out of file descriptors (EMFILE)" },
		{ KVB_CTR_INSTR_U, KVB_CTR_EUNSCHED, 2,
		  "never had a counter in the window: the PMU's were taken (NMI watchdog, another perf user)"
		},
	};
	char buf[KVB_CTR_WHY];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(w); i++) {
		kvb_ctr_why(buf, sizeof(buf), w[i].ev, w[i].err, w[i].paranoid);
		ok(!strcmp(buf, w[i].want), "counters: %s, errno %d: \"%s\"",
		   kvb_ctr_name(w[i].ev), w[i].err, buf);
	}
}

/* A report of one result: schema /S, threads T, then more of the result */
#define CTR_DOC(S, T, MORE) \
	"{\"schema\": \"kvbench-bench/" S "\", \"results\": [{\"backend\": \"rcu\", " \
	"\"mix\": {\"name\": \"get\"}, \"threads\": " T MORE "}]}"
#define CTR_BAD(V) \
	", \"counters\": {\"ops\": 10, \"per_op\": {\"instructions_user\": " V "}}"

/* Every string of want (NULL-terminated) is in buf. */
static int has_all(const char *buf, const char *const *want)
{
	for (; buf && *want; want++)
		if (!strstr(buf, *want)) {
			printf("# missing: %s\n", *want);
			return 0;
		}
	return !!buf;
}

static const char *const table_want[] = {
	"\ncounters per op (perf_event_open",
	"\ncase                      instr:u   instr:k  cycles:u  cycles:k  c-miss:u  c-miss:k       csw   ipc\n",
	"\nuser-rwlock get t2 b1 -      1500         -      2000         -         -         -  3.00e-03     -  (scaled: 50%)\n",
	"\n-: instr:k: perf_event_paranoid=2 forbids counting the kernel without CAP_PERFMON (EACCES)\n",
	"\n-: cycles:k: never had a counter in the window",
	"\n-: c-miss:u: no hardware PMU here (ENOENT): TCG, or a VM without a virtual PMU\n",
	"\n-: c-miss:k: the PMU cannot count it apart for the kernel (EOPNOTSUPP)\n",
	NULL
};

static const char *const report_want[] = {
	"\nuser-rwlock get t2 b1 -      1500         -      2000",
	"\n-: c-miss:k: the PMU cannot count it apart for the kernel (EOPNOTSUPP)\n",
	NULL
};

static const char *const ipc_want[] = {
	"\nrcu get t1 b1 per-thread       800      1600       400      2000    0.5000      2.00         0  1.00\n",
	NULL
};

static void test_counters(void)
{
	const struct kvb_ctr_sys *real = kvb_ctr_sys;
	struct kvb_mix mix = { .get = 100 };
	struct kvb_params p;
	struct kvb_target t;
	struct kvb_result r;
	struct kvb_rmodel m;
	struct kvb_bench *b;
	const struct kvb_ctr_case *c = &r.ctr;
	char *buf = NULL, err[256];
	size_t len = 0;
	int cpus[1] = { 0 }, rc, e, nan_why = 1;
	FILE *f;

	test_counters_why();
	kvb_params_defaults(&p);
	p.keys = 64;
	p.warmup = 0;
	p.ops = 1000;	/* per thread: 2000 ops per run */
	p.repeat = 2;
	p.pin = 0;
	p.ncpus = 1;
	p.cpus = cpus;
	p.counters = 1;
	b = kvb_bench_new(&p);
	if (!b || kvb_target_by_name("user-rwlock", &t)) {
		ok(0, "counters: a bench context");
		kvb_bench_free(b);
		return;
	}
	ctr_main_tid = syscall(SYS_gettid);
	kvb_ctr_sys = &fake_sys;
	rc = kvb_run_case(b, &t, &mix, 2, 1, 0, KVB_FD_NONE, &r);
	kvb_ctr_sys = real;
	ok(!rc && r.ops == 4000 && c->on && c->ops == 4000,
	   "counters: the case's ops are the counted windows' (%llu)", c->ops);
	ok(atomic_load(&ctr_opens) == 2 * 2 * KVB_CTR_NEV && !atomic_load(&ctr_main_opens) &&
	   atomic_load(&ctr_enables) == 4 && atomic_load(&ctr_disables) == 4 &&
	   atomic_load(&ctr_closes) == 2 * 2 * 4,
	   "counters: each worker thread opens its own events, enables and disables them once per run, closes every fd (opens %d, on %d, off %d, closes %d)",
	   atomic_load(&ctr_opens), atomic_load(&ctr_enables), atomic_load(&ctr_disables),
	   atomic_load(&ctr_closes));
	ok(ctr_attr[KVB_CTR_INSTR_U].disabled && !ctr_attr[KVB_CTR_INSTR_U].inherit &&
	   ctr_attr[KVB_CTR_INSTR_U].exclude_kernel && !ctr_attr[KVB_CTR_INSTR_U].exclude_user &&
	   ctr_attr[KVB_CTR_INSTR_K].exclude_user && !ctr_attr[KVB_CTR_INSTR_K].exclude_kernel &&
	   !ctr_attr[KVB_CTR_CSW].exclude_kernel &&
	   ctr_attr[KVB_CTR_CYC_U].read_format ==
	   (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING),
	   "counters: opened disabled, not inherited, user and kernel apart, with the times to scale by");
	ok(fabs(c->per_op[KVB_CTR_INSTR_U] - 1500) < TINY &&
	   fabs(c->running_pct[KVB_CTR_INSTR_U] - 100) < TINY,
	   "counters: instructions per op = the threads' and runs' counts / their ops (%g)",
	   c->per_op[KVB_CTR_INSTR_U]);
	ok(fabs(c->per_op[KVB_CTR_CYC_U] - 2000) < TINY &&
	   fabs(c->running_pct[KVB_CTR_CYC_U] - 50) < TINY,
	   "counters: an event on a counter half the time is scaled x2, as perf stat (%g, %g%%)",
	   c->per_op[KVB_CTR_CYC_U], c->running_pct[KVB_CTR_CYC_U]);
	ok(fabs(c->per_op[KVB_CTR_CSW] - 0.003) < TINY,
	   "counters: context switches per op (%g)", c->per_op[KVB_CTR_CSW]);
	for (e = 0; e < KVB_CTR_NEV; e++)
		nan_why &= !isnan(c->per_op[e]) == !c->why[e][0];
	ok(nan_why && strstr(c->why[KVB_CTR_INSTR_K], "perf_event_paranoid=2 forbids") &&
	   strstr(c->why[KVB_CTR_CMISS_U], "no hardware PMU here (ENOENT)") &&
	   strstr(c->why[KVB_CTR_CMISS_K], "EOPNOTSUPP") &&
	   strstr(c->why[KVB_CTR_CYC_K], "never had a counter"),
	   "counters: an event not counted is NAN with why, never a zero");

	f = open_memstream(&buf, &len);
	kvb_print_table(f, NULL, &r, 1, NULL);
	fclose(f);
	ok(has_all(buf, table_want),
	   "counters: the table's section, '-' and why for what was not counted");
	free(buf);
	buf = NULL;

	f = open_memstream(&buf, &len);
	kvb_print_json(f, &p, &r, 1, &(struct kvb_outcome){ .complete = 1 });
	fclose(f);
	ok(buf && json_valid(buf) && strstr(buf, "\"instructions_user\": 1500,") &&
	   strstr(buf, "\"instructions_kernel\": null") && strstr(buf, "\"cycles_user\": 50.00"),
	   "counters: the JSON has them, null where not counted");
	rc = kvb_rmodel_parse(buf, &m, err, sizeof(err));
	ok(!rc && m.n == 1 && m.c[0].ctr.on && m.c[0].ctr.ops == 4000 &&
	   fabs(m.c[0].ctr.per_op[KVB_CTR_INSTR_U] - 1500) < TINY &&
	   fabs(m.c[0].ctr.per_op[KVB_CTR_CSW] - 0.003) < TINY &&
	   fabs(m.c[0].ctr.running_pct[KVB_CTR_CYC_U] - 50) < TINY &&
	   isnan(m.c[0].ctr.per_op[KVB_CTR_CMISS_U]) &&
	   !strcmp(m.c[0].ctr.why[KVB_CTR_INSTR_K], c->why[KVB_CTR_INSTR_K]) &&
	   !strcmp(m.c[0].ctr.why[KVB_CTR_CYC_K], c->why[KVB_CTR_CYC_K]),
	   "counters: the JSON reads back as written (%s)", rc ? err : "ok");
	if (!rc) {
		char *o2 = NULL;
		size_t l2 = 0;
		FILE *f2 = open_memstream(&o2, &l2);

		kvb_ctr_rmodel_table(f2, &m);
		fclose(f2);
		ok(has_all(o2, report_want), "counters: kvbench report's section, from the JSON");
		free(o2);
		kvb_rmodel_free(&m);
	}
	free(buf);
	kvb_result_free(&r);

	/* without --counters: not opened, null in the JSON */
	p.counters = 0;
	atomic_store(&ctr_opens, 0);
	kvb_ctr_sys = &fake_sys;
	rc = kvb_run_case(b, &t, &mix, 1, 1, 0, KVB_FD_NONE, &r);
	kvb_ctr_sys = real;
	buf = NULL;
	f = open_memstream(&buf, &len);
	kvb_print_json(f, &p, &r, 1, &(struct kvb_outcome){ .complete = 1 });
	fclose(f);
	ok(!rc && !atomic_load(&ctr_opens) && !r.ctr.on && buf &&
	   strstr(buf, "\"counters\": null") &&
	   !kvb_rmodel_parse(buf, &m, err, sizeof(err)) && !m.c[0].ctr.on,
	   "counters: off by default, nothing opened, \"counters\": null");
	kvb_rmodel_free(&m);
	free(buf);
	kvb_result_free(&r);
	kvb_bench_free(b);

	/* every event counted: ipc over user and kernel, nothing to explain */
	{
		struct kvb_ctr_case all = { .on = 1, .ops = 10 };
		struct kvb_ctr_row row = { "rcu get t1 b1 per-thread", &all };
		static const double v[KVB_CTR_NEV] = { 800, 1600, 400, 2000, 0.5, 2, 0 };

		for (e = 0; e < KVB_CTR_NEV; e++) {
			all.per_op[e] = v[e];
			all.running_pct[e] = 100;
		}
		buf = NULL;
		f = open_memstream(&buf, &len);
		kvb_ctr_table(f, &row, 1);
		fclose(f);
		ok(has_all(buf, ipc_want) && !strstr(buf, "-:") && !strstr(buf, "scaled"),
		   "counters: ipc = (instr:u + instr:k) / (cycles:u + cycles:k); 0 is a count");
		free(buf);
	}

	/* a rare event keeps its digits: 25 switches in 3.7M ops is not 0 */
	{
		struct kvb_result x;
		double one[1] = { 1000 };

		memset(&x, 0, sizeof(x));
		snprintf(x.target, sizeof(x.target), "user-rwlock");
		x.kind = KVB_USER_RWLOCK;
		x.mix.get = 1;
		x.threads = 1;
		x.batch = 1;
		x.runs = 1;
		x.run_ops = one;
		x.fdmode = KVB_FD_NONE;
		x.ctr.on = 1;
		x.ctr.ops = 3668135;
		for (e = 0; e < KVB_CTR_NEV; e++)
			snprintf(x.ctr.why[e], sizeof(x.ctr.why[e]), "none here");
		x.ctr.why[KVB_CTR_CSW][0] = 0;
		x.ctr.per_op[KVB_CTR_CSW] = 25.0 / 3668135;
		x.ctr.running_pct[KVB_CTR_CSW] = 100;
		buf = NULL;
		f = open_memstream(&buf, &len);
		kvb_print_json(f, &p, &x, 1, &(struct kvb_outcome){ .complete = 1 });
		fclose(f);
		rc = kvb_rmodel_parse(buf, &m, err, sizeof(err));
		ok(!rc && fabs(m.c[0].ctr.per_op[KVB_CTR_CSW] / (25.0 / 3668135) - 1) < 0.00001,
		   "counters: a rare event per op keeps six significant digits in the JSON (%s)",
		   rc ? err : "ok");
		if (!rc)
			kvb_rmodel_free(&m);
		free(buf);
	}

	/* the reader: older reports have none; a count without why is refused */
	ok(!kvb_rmodel_parse(CTR_DOC("3", "1", ""), &m, err, sizeof(err)) && m.n == 1 &&
	   !m.c[0].ctr.on,
	   "counters: a report from before them reads, without counters");
	kvb_rmodel_free(&m);
	ok(kvb_rmodel_parse(CTR_DOC("4", "1", CTR_BAD("null")), &m, err, sizeof(err)) &&
	   strstr(err, "results[0].counters.instructions_user:"),
	   "counters: null without a reason is refused (%s)", err);
	ok(kvb_rmodel_parse(CTR_DOC("4", "1", CTR_BAD("-1")), &m, err, sizeof(err)) &&
	   strstr(err, "results[0].counters.instructions_user:"),
	   "counters: a negative count is refused (%s)", err);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--check-json"))
		return check_json_file(argv[2]);
	kvbench_bin = argc > 1 ? argv[1] : NULL;
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_ulist();
	test_mix();
	test_dist_and_counts();
	test_stats();
	test_zipf();
	test_maps();
	test_engine();
	test_counters();
	test_bpf_htab();
	test_output();
	test_multi();
	test_fdless();
	test_json_num();
	test_summary();
	test_hist();
	test_median_ci();
	test_mwu();
	test_compare();
	test_verdict_stats();
	test_verdict_groups();
	test_verdict_min_effect();
	test_verdict_margin();
	test_verdict_next();
	test_verdict_holm();
	test_order_effect();
	test_verdict_baselines();
	test_compare_trust();
	test_compare_schema();
	test_prov();
	test_cli();
	test_cli_stats(kvbench_bin);
	test_bpf_unprivileged();
	test_suffixes();
	test_rounds(kvbench_bin);
	test_cli_options(kvbench_bin);
	test_table(kvbench_bin);
	test_plot();
	test_stats_cmd(kvbench_bin);
	test_uring_params();
	test_uring_cli(kvbench_bin);
	test_hash_bits(kvbench_bin);
	test_report(kvbench_bin);
	test_report_real(kvbench_bin);
	test_report_ranges();
	test_forest(kvbench_bin);
	test_report_mail(kvbench_bin);
	test_plot_ops(kvbench_bin);
	test_plot_and_range_defects(kvbench_bin);
	test_bench_verdict();
	test_ycsb_zipf();
	test_workloads();
	test_workload_engine();
	test_workload_plot();
	test_verdict_roundtrip();
	test_merge(kvbench_bin);
	test_run_margin(kvbench_bin);
	test_base_estimator();
	test_compare_agreement();
	test_compare_workload_diff();
	test_workload_cli(kvbench_bin);
	test_host_prov();
	test_hygiene(kvbench_bin);
	test_layers(kvbench_bin);
	test_trace_stall(kvbench_bin);
	printf("1..%d\n", test_num);
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n",
	       test_num - test_fail - test_skip, test_fail, test_skip);
	return test_fail ? 1 : 0;
}
