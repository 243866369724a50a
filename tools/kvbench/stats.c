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

/* Vose's alias method over the zipf weights. */
int kvb_zipf_init(struct kvb_zipf *z, unsigned long n, double theta)
{
	unsigned long *small, *large, ns = 0, nl = 0, i;
	double sum = 0, *p;

	memset(z, 0, sizeof(*z));
	if (!n)
		return -EINVAL;
	z->n = n;
	z->prob = malloc(n * sizeof(*z->prob));
	z->alias = malloc(n * sizeof(*z->alias));
	small = malloc(n * sizeof(*small));
	large = malloc(n * sizeof(*large));
	p = z->prob;
	if (!z->prob || !z->alias || !small || !large) {
		free(small);
		free(large);
		kvb_zipf_free(z);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		p[i] = pow((double)(i + 1), -theta);
		sum += p[i];
	}
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
