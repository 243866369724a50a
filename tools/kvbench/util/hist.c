// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench: the latency histogram, log-linear as HdrHistogram's. Every
 * power of two [2^e, 2^(e+1)) is cut into KVB_HIST_SUB (128) buckets of
 * equal width, so a bucket is never wider than 1/128 of its lowest value:
 * any value read back from it is within 1/128 (0.78%) of a value that was
 * recorded there. Values below 128 ns get a bucket each (exact). The range
 * is every __u64 (0 .. 2^64 - 1 ns), in 7424 counters (58 KiB).
 *
 * Count, sum (for the mean), min and max are kept exactly beside the
 * buckets, so they carry no bucket error. Adding two histograms adds their
 * counters: the threads of a run, and the runs of a case, merge exactly
 * (the merged histogram is the one that recording every value into a
 * single histogram would have made).
 */
#include <math.h>
#include <string.h>

#include "kvbench.h"

/* The percentiles the reports give, and their names in the JSON. */
const double kvb_lat_pcts[KVB_NPCT] = { 50, 90, 99, 99.9, 99.99 };
const char * const kvb_lat_pct_names[KVB_NPCT] = {
	"50", "90", "99", "99.9", "99.99",
};

void kvb_hist_init(struct kvb_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = ~0ULL;
}

/* The bucket of v: its own below KVB_HIST_SUB, else (power, sub-bucket). */
unsigned int kvb_hist_index(__u64 v)
{
	unsigned int e, shift;

	if (v < KVB_HIST_SUB)
		return (unsigned int)v;
	e = 63 - __builtin_clzll(v);
	shift = e - KVB_HIST_SUB_BITS;
	return (shift + 1) * KVB_HIST_SUB + (unsigned int)((v >> shift) - KVB_HIST_SUB);
}

/* The lowest and highest value bucket i holds. */
void kvb_hist_bounds(unsigned int i, __u64 *lo, __u64 *hi)
{
	unsigned int shift;

	if (i < KVB_HIST_SUB) {
		*lo = i;
		*hi = i;
		return;
	}
	shift = i / KVB_HIST_SUB - 1;
	*lo = (__u64)(KVB_HIST_SUB + i % KVB_HIST_SUB) << shift;
	*hi = *lo + ((1ULL << shift) - 1);
}

void kvb_hist_add(struct kvb_hist *h, __u64 v)
{
	h->counts[kvb_hist_index(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void kvb_hist_merge(struct kvb_hist *dst, const struct kvb_hist *src)
{
	unsigned int i;

	if (!src->count)
		return;
	for (i = 0; i < KVB_HIST_BUCKETS; i++)
		dst->counts[i] += src->counts[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

/*
 * The value at percentile pct: of the nearest rank (the smallest value
 * with at least pct% of the values at or below it, kvb_percentile()'s
 * definition), the highest value of its bucket (HdrHistogram's "highest
 * equivalent value"), but never above the exact max. So it is never below
 * the exact percentile and at most 1/128 above it: a tail reads a little
 * slow, never fast. NAN when empty.
 */
double kvb_hist_value_at(const struct kvb_hist *h, double pct)
{
	__u64 rank, seen = 0, lo, hi;
	double r;
	unsigned int i;

	if (!h->count)
		return NAN;
	r = ceil(pct / 100.0 * h->count - 0.000000001);
	rank = r < 1 ? 1 : r > h->count ? h->count : (__u64)r;
	for (i = 0; i < KVB_HIST_BUCKETS; i++) {
		seen += h->counts[i];
		if (seen >= rank)
			break;
	}
	kvb_hist_bounds(i, &lo, &hi);
	return (double)(hi < h->max ? hi : h->max);
}

/*
 * The samples percentile pct needs before the reports give it: n (1 - p)
 * >= KVB_PCT_TAIL, i.e. at least 10 samples expected above it. With fewer,
 * the "percentile" is one of the last few samples, the max of a handful
 * (p99 of 23 samples is their max, and so is p99.9): 20 for p50, 1000 for
 * p99, 10000 for p99.9.
 */
unsigned long long kvb_pct_min_samples(double pct)
{
	return (unsigned long long)ceil(KVB_PCT_TAIL * 100.0 / (100.0 - pct) - 0.000001);
}

/* What the reports give of a histogram: NAN where it is not known. */
void kvb_hist_summary(const struct kvb_hist *h, struct kvb_lat *l)
{
	unsigned int i;

	l->samples = h->count;
	l->min = h->count ? (double)h->min : NAN;
	l->max = h->count ? (double)h->max : NAN;
	l->mean = h->count ? (double)h->sum / h->count : NAN;
	for (i = 0; i < KVB_NPCT; i++)
		l->pct[i] = h->count >= kvb_pct_min_samples(kvb_lat_pcts[i]) ?
			    kvb_hist_value_at(h, kvb_lat_pcts[i]) : NAN;
}
