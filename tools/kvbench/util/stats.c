// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench: random numbers, the zipf key sampler, percentiles and medians.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kvbench.h"

/* xorshift64*: small, fast, good enough to pick keys and operations. */
__u64 kvb_rand(__u64 *state)
{
	__u64 x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* Uniform in [0, 1). */
double kvb_rand_double(__u64 *state)
{
	return (kvb_rand(state) >> 11) * (1.0 / 9007199254740992.0);
}

static int cmp_u32(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a;
	unsigned int y = *(const unsigned int *)b;

	return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a;
	double y = *(const double *)b;

	return (x > y) - (x < y);
}

void kvb_sort_u32(unsigned int *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u32);
}

/*
 * Nearest-rank percentile of sorted samples: the smallest value with at
 * least pct% of the samples at or below it. NAN for no samples.
 */
double kvb_percentile(const unsigned int *sorted, size_t n, double pct)
{
	double rank;
	size_t idx;

	if (!n)
		return NAN;
	if (pct <= 0)
		return sorted[0];
	rank = ceil(pct / 100.0 * n - 0.000000001);
	idx = rank < 1 ? 0 : (size_t)rank - 1;
	if (idx >= n)
		idx = n - 1;
	return sorted[idx];
}

/* Median of unsorted values (mean of the middle two for an even count). */
double kvb_median(const double *v, size_t n)
{
	double *c, m;

	if (!n)
		return NAN;
	c = malloc(n * sizeof(*c));
	if (!c)
		return NAN;
	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_double);
	m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	free(c);
	return m;
}

/* (max - min) / median, in percent: how far apart the repeats landed. */
double kvb_spread_pct(const double *v, size_t n)
{
	double lo, hi, med;
	size_t i;

	if (!n)
		return NAN;
	lo = v[0];
	hi = v[0];
	for (i = 1; i < n; i++) {
		if (v[i] < lo)
			lo = v[i];
		if (v[i] > hi)
			hi = v[i];
	}
	med = kvb_median(v, n);
	return med > 0 ? (hi - lo) / med * 100 : 0;
}

/* P(k) = (1 / (k + 1)^theta) / H(n, theta), for k in 0..n-1. */
double kvb_zipf_pmf(unsigned long n, double theta, unsigned long k)
{
	double h = 0;
	unsigned long i;

	for (i = 1; i <= n; i++)
		h += pow((double)i, -theta);
	return pow((double)(k + 1), -theta) / h;
}

/*
 * Vose's alias method over the weights in z->prob (z->n of them, not
 * normalised): z->prob and z->alias become the table. Frees z on failure.
 */
static int alias_build(struct kvb_zipf *z)
{
	unsigned long n = z->n, *small, *large, ns = 0, nl = 0, i;
	double sum = 0, *p = z->prob;

	small = malloc(n * sizeof(*small));
	large = malloc(n * sizeof(*large));
	if (!small || !large) {
		free(small);
		free(large);
		kvb_zipf_free(z);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		sum += p[i];
	for (i = 0; i < n; i++) {
		p[i] = p[i] / sum * n;	/* scaled so the mean is 1 */
		z->alias[i] = i;
		if (p[i] < 1)
			small[ns++] = i;
		else
			large[nl++] = i;
	}
	while (ns && nl) {
		unsigned long s = small[--ns], l = large[--nl];

		z->alias[s] = l;
		p[l] = (p[l] + p[s]) - 1;
		if (p[l] < 1)
			small[ns++] = l;
		else
			large[nl++] = l;
	}
	/* What is left is 1 up to rounding. */
	while (nl)
		p[large[--nl]] = 1;
	while (ns)
		p[small[--ns]] = 1;
	free(small);
	free(large);
	return 0;
}

static int alias_alloc(struct kvb_zipf *z, unsigned long n, double theta)
{
	memset(z, 0, sizeof(*z));
	if (!n)
		return -EINVAL;
	z->n = n;
	z->theta = theta;
	z->prob = malloc(n * sizeof(*z->prob));
	z->alias = malloc(n * sizeof(*z->alias));
	if (!z->prob || !z->alias) {
		kvb_zipf_free(z);
		return -ENOMEM;
	}
	return 0;
}

/* Index 0 the most popular: P(k) = kvb_zipf_pmf(n, theta, k). */
int kvb_zipf_init(struct kvb_zipf *z, unsigned long n, double theta)
{
	unsigned long i;
	int err = alias_alloc(z, n, theta);

	if (err)
		return err;
	for (i = 0; i < n; i++)
		z->prob[i] = pow((double)(i + 1), -theta);
	return alias_build(z);
}

/*
 * zeta(n, theta) = sum of k^-theta for k = 1..n, for any n up to YCSB's
 * 10^10: the first million terms summed, the rest by the midpoint rule
 * (k^-theta is smooth there: the error is below 1e-12 of the sum).
 */
double kvb_zeta(double n, double theta)
{
	double m = n < 1e6 ? n : 1e6, z = 0, k;

	for (k = 1; k <= m; k++)
		z += pow(k, -theta);
	if (n <= m)
		return z;
	if (fabs(theta - 1) < 0.000000000001)
		return z + log((n + 0.5) / (m + 0.5));
	return z + (pow(n + 0.5, 1 - theta) - pow(m + 0.5, 1 - theta)) / (1 - theta);
}

/* YCSB's Utils.fnvhash64(): FNV-1 64 over the 8 bytes, low first; |h| */
static __u64 fnvhash64(__u64 v)
{
	__u64 h = 0xCBF29CE484222325ULL;
	int i;

	for (i = 0; i < 8; i++) {
		h ^= v & 0xff;
		v >>= 8;
		h *= 1099511628211ULL;
	}
	return (__s64)h < 0 ? -h : h;
}

/*
 * The popularity of each of n records under YCSB's ScrambledZipfianGenerator
 * (the request distribution "zipfian" of its workloads A, B, C, F): a
 * zipfian over KVB_YCSB_ITEMS (10^10) items, zipf(theta) ranks, item i
 * going to record fnvhash64(i) mod n. So a record's weight is the sum of
 * the items that hash to it: the first m items exactly (m: 2^21 to 2^24,
 * 16 per record), the rest of the mass evenly (their hashes spread so, and
 * each is tiny). Far flatter than zipf over the n records themselves: with
 * 1000 records the hottest has 3.9% of the requests, not 12.9% (the
 * hottest items are diluted among 10^10). YCSB draws its ranks with Gray
 * et al.'s closed form, which approximates this pmf; we use the pmf. w: n
 * weights, summing to 1.
 */
void kvb_ycsb_weights(double *w, unsigned long n, double theta)
{
	double zetan = kvb_zeta(KVB_YCSB_ITEMS, theta), head = 0;
	__u64 m = (__u64)n * 16, i;

	/* 2^24 items: half a second; beyond, every record gets a few */
	if (m < 1ULL << 21)
		m = 1ULL << 21;
	if (m > 1ULL << 24)
		m = 1ULL << 24;
	memset(w, 0, n * sizeof(*w));
	for (i = 0; i < m; i++) {
		double p = pow((double)(i + 1), -theta) / zetan;

		w[fnvhash64(i) % n] += p;
		head += p;
	}
	for (i = 0; i < n; i++)
		w[i] += (1 - head) / n;
}

/* A sampler of n records as YCSB's scrambled zipfian draws them. */
int kvb_ycsb_zipf_init(struct kvb_zipf *z, unsigned long n, double theta)
{
	int err = alias_alloc(z, n, theta);

	if (err)
		return err;
	z->scrambled = 1;
	kvb_ycsb_weights(z->prob, n, theta);
	return alias_build(z);
}

unsigned long kvb_zipf_next(const struct kvb_zipf *z, __u64 *rng)
{
	__u64 r = kvb_rand(rng);
	unsigned long col = (unsigned long)(((r >> 32) * z->n) >> 32);
	double u = (r & 0xffffffffULL) * (1.0 / 4294967296.0);

	return u < z->prob[col] ? col : z->alias[col];
}

void kvb_zipf_free(struct kvb_zipf *z)
{
	free(z->prob);
	free(z->alias);
	z->prob = NULL;
	z->alias = NULL;
}

/*
 * Two-sided 95% quantile of Student's t distribution with df degrees of
 * freedom (t(0.975, df)), from the usual tables; the normal 1.960 beyond.
 */
double kvb_t95(unsigned int df)
{
	static const double t[] = {
		NAN, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
		2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110,
		2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
		2.052, 2.048, 2.045, 2.042,
	};

	if (df < ARRAY_SIZE(t))
		return t[df];
	if (df <= 40)
		return 2.021;
	if (df <= 60)
		return 2.000;
	if (df <= 120)
		return 1.980;
	return 1.960;
}

/*
 * The median's confidence interval without assuming a distribution: of n
 * values sorted, [x(k), x(n + 1 - k)] holds the population median unless
 * k or more values fall on one side of it, so it covers the median with
 * probability 1 - 2 P(Binomial(n, 1/2) <= k - 1), whatever the
 * distribution (continuous). The largest k whose coverage is at least
 * level gives the narrowest such interval. From 6 values that is 95% or
 * more; with 2 to 5 no k reaches 95%: then k = 1, min..max, whose coverage
 * 1 - 2^(1 - n) (0.9375 for 5, 0.5 for 2) goes to *cover so that the
 * report says how sure it is. Returns k, or 0 (and NAN) for n < 2.
 */
int kvb_median_ci(const double *v, unsigned int n, double level, double *lo,
		  double *hi, double *cover)
{
	double *c, tail = 0, term, best;
	unsigned int k, i;

	*lo = NAN;
	*hi = NAN;
	*cover = NAN;
	if (n < 2)
		return 0;
	c = malloc(n * sizeof(*c));
	if (!c)
		return 0;
	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_double);
	/* tail: P(X <= k - 1) for X ~ Bin(n, 1/2), term: P(X = k - 1) */
	term = ldexp(1, -(int)n);
	tail = term;
	best = 1 - 2 * tail;
	k = 1;
	for (i = 1; i < n / 2; i++) {
		double next;

		term = term * (n - i + 1) / i;
		next = 1 - 2 * (tail + term);
		if (next < level)
			break;
		tail += term;
		best = next;
		k = i + 1;
	}
	*lo = c[k - 1];
	*hi = c[n - k];
	*cover = best;
	free(c);
	return k;
}

/*
 * Mean, median, sample stddev (n - 1), the t interval of the mean and the
 * median's own interval (95%, or the widest there is).
 */
void kvb_summarize(const double *v, unsigned int n, struct kvb_summary *s)
{
	double sum = 0, sq = 0, half;
	unsigned int i;

	s->n = n;
	s->mean = NAN;
	s->median = kvb_median(v, n);
	s->stddev = NAN;
	s->ci_lo = NAN;
	s->ci_hi = NAN;
	kvb_median_ci(v, n, 0.95, &s->med_lo, &s->med_hi, &s->med_level);
	if (!n)
		return;
	for (i = 0; i < n; i++)
		sum += v[i];
	s->mean = sum / n;
	if (n < 2)
		return;
	for (i = 0; i < n; i++)
		sq += (v[i] - s->mean) * (v[i] - s->mean);
	s->stddev = sqrt(sq / (n - 1));
	half = kvb_t95(n - 1) * s->stddev / sqrt(n);
	s->ci_lo = s->mean - half;
	s->ci_hi = s->mean + half;
}

static __u64 splitmix64(__u64 x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

/*
 * The xorshift state of thread i in a run seeded with run_seed: the same
 * pair gives the same key sequence, threads get unrelated ones, and the
 * state is never 0 (xorshift would stay at 0).
 */
__u64 kvb_thread_seed(__u64 run_seed, unsigned int thread)
{
	__u64 s = splitmix64(run_seed ^ splitmix64(thread + 1ULL));

	return s ? s : 0x9E3779B97F4A7C15ULL;
}

/*
 * The order of round @round of a shuffled run: a permutation of 0..n-1,
 * Fisher-Yates with a generator seeded from (@seed, @round). The same
 * pair gives the same order; rounds get unrelated ones.
 */
void kvb_round_order(__u64 seed, unsigned int round, unsigned int *order,
		     unsigned int n)
{
	__u64 x = kvb_thread_seed(splitmix64(seed ^ 0x726f756e64ULL), round);
	unsigned int i, j, t;

	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n; i > 1; i--) {
		x = splitmix64(x);
		/* j uniform in [0, i): the high bits times i */
		j = (unsigned int)(((x >> 32) * i) >> 32);
		t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}
}

/* U of a against b: pairs (x in a, y in b) with x > y, ties count 1/2. */
static double mwu_stat(const double *a, unsigned int na, const double *b,
		       unsigned int nb)
{
	double u = 0;
	unsigned int i, j;

	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			u += a[i] > b[j] ? 1 : a[i] == b[j] ? 0.5 : 0;
	return u;
}

/* The exact test enumerates C(na + nb, na) splits: small samples only. */
#define KVB_MWU_EXACT_MAX	20

/*
 * Count the splits of the pooled sample whose U is at least as far from
 * its mean as the observed one: every way to choose na of the n values as
 * "a" (exact, and exact under ties too: the permutation distribution of U
 * given the data).
 */
static void mwu_enum(const double *pool, unsigned int n, unsigned int na,
		     double dist, unsigned int *pick, unsigned int k,
		     unsigned int from, double *hits, double *all)
{
	double a[KVB_MWU_EXACT_MAX], b[KVB_MWU_EXACT_MAX];
	unsigned int i, j, ia = 0, ib = 0;

	if (k < na) {
		for (i = from; i + (na - k) <= n; i++) {
			pick[k] = i;
			mwu_enum(pool, n, na, dist, pick, k + 1, i + 1, hits, all);
		}
		return;
	}
	for (i = 0, j = 0; i < n; i++) {
		if (j < na && pick[j] == i) {
			a[ia++] = pool[i];
			j++;
		} else {
			b[ib++] = pool[i];
		}
	}
	*all += 1;
	if (fabs(mwu_stat(a, na, b, ib) - na * (double)ib / 2) >= dist - 0.000000001)
		*hits += 1;
}

/*
 * Mann-Whitney U test, two-sided: *u is U of a against b (pairs with a > b,
 * ties 1/2), *p the probability, with no difference between the two, of a
 * U at least as far from na * nb / 2. Exact (by enumeration) when na + nb
 * <= 20; beyond, the normal approximation with the tie correction and a
 * continuity correction. Returns -1 when a sample is empty.
 */
int kvb_mwu(const double *a, unsigned int na, const double *b, unsigned int nb,
	    double *u, double *p)
{
	unsigned int n = na + nb, i, pick[KVB_MWU_EXACT_MAX];
	double pool[KVB_MWU_EXACT_MAX], mean = na * (double)nb / 2, dist;
	double hits = 0, all = 0;

	if (!na || !nb)
		return -1;
	*u = mwu_stat(a, na, b, nb);
	dist = fabs(*u - mean);
	if (n <= KVB_MWU_EXACT_MAX) {
		for (i = 0; i < na; i++)
			pool[i] = a[i];
		for (i = 0; i < nb; i++)
			pool[na + i] = b[i];
		mwu_enum(pool, n, na, dist, pick, 0, 0, &hits, &all);
		*p = hits / all;
	} else {
		double *all_v = malloc(n * sizeof(*all_v)), ties = 0, var, z;
		unsigned int j, k;

		if (!all_v)
			return -1;
		memcpy(all_v, a, na * sizeof(*a));
		memcpy(all_v + na, b, nb * sizeof(*b));
		qsort(all_v, n, sizeof(*all_v), cmp_double);
		for (j = 0; j < n; j = k) {
			for (k = j + 1; k < n && all_v[k] == all_v[j]; k++)
				;
			ties += (double)(k - j) * (k - j) * (k - j) - (k - j);
		}
		free(all_v);
		var = na * (double)nb / 12 * ((n + 1) - ties / ((double)n * (n - 1)));
		if (var <= 0) {
			*p = 1;
			return 0;
		}
		z = (dist - 0.5) / sqrt(var);
		*p = z <= 0 ? 1 : erfc(z / sqrt(2));
	}
	if (*p > 1)
		*p = 1;
	return 0;
}

/* The smallest two-sided p the exact test can give: 2 / C(na + nb, na). */
double kvb_mwu_min_p(unsigned int na, unsigned int nb)
{
	double c = 1;
	unsigned int i;

	for (i = 1; i <= na; i++)
		c = c * (nb + i) / i;
	return c > 0 && 2 / c < 1 ? 2 / c : 1;
}

/*
 * A --workload's chooser. The thresholds are out of 2^32, so that a
 * weight that takes the rest takes every draw: (u32)x < 2^32 always.
 */
void kvb_chooser_init(struct kvb_chooser *c, const struct kvb_mix *mix,
		      unsigned long n, const struct kvb_zipf *zipf,
		      atomic_ulong *newest)
{
	double total = (double)mix->get + mix->set + mix->ins + mix->rmw;
	double span = 4294967296.0;

	memset(c, 0, sizeof(*c));
	if (total <= 0)
		total = 1;
	c->read_below = (__u64)(span * (mix->get / total));
	c->update_below = (__u64)(span * ((mix->get + mix->set) / total));
	c->insert_below = (__u64)(span * ((mix->get + mix->set + mix->ins) / total));
	/* the last kind with a weight takes the rounding's leftovers */
	if (!mix->rmw) {
		c->insert_below = 1ULL << 32;
		if (!mix->ins) {
			c->update_below = 1ULL << 32;
			if (!mix->set)
				c->read_below = 1ULL << 32;
		}
	}
	c->n = n;
	c->dist = mix->wl ? mix->wl->dist : KVB_UNIFORM;
	c->zipf = zipf;
	c->newest = newest;
}

/* The kind of operation (KVB_W_*) for a random x: its low 32 bits. */
int kvb_chooser_op(const struct kvb_chooser *c, __u64 x)
{
	__u64 v = (__u32)x;

	if (v < c->read_below)
		return KVB_W_READ;
	if (v < c->update_below)
		return KVB_W_UPDATE;
	if (v < c->insert_below)
		return KVB_W_INSERT;
	return KVB_W_RMW;
}

/*
 * The key (an index in 0..n-1) an operation of kind wop acts on.
 *
 * An insert makes a key the newest: over a fixed ring of n keys it is the
 * one after the newest, which is the oldest (re-inserted: the map keeps
 * its size). The counter only grows; key = counter mod n. It starts at
 * n - 1 (the pre-fill inserted 0..n-1, in that order).
 *
 * "latest", as YCSB's SkewedLatestGenerator: newest - zipf draw, so rank
 * 0 is the newest key, 1 the one before... A read may land on a key whose
 * insert another thread has counted but not yet done: it finds the old
 * value (every key of the ring always exists), never a miss. YCSB's reads
 * stop at the last acknowledged insert instead; the difference is at most
 * one key per thread.
 */
unsigned long kvb_chooser_key(const struct kvb_chooser *c, int wop, __u64 *rng)
{
	unsigned long r;

	if (wop == KVB_W_INSERT)
		return (atomic_fetch_add_explicit(c->newest, 1, memory_order_relaxed) + 1) %
		       c->n;
	if (!c->zipf)
		return (unsigned long)(((kvb_rand(rng) >> 32) * c->n) >> 32);
	r = kvb_zipf_next(c->zipf, rng);
	if (c->dist == KVB_LATEST)
		return (atomic_load_explicit(c->newest, memory_order_relaxed) - r) % c->n;
	return r;
}
