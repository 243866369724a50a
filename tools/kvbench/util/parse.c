// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench: the parsers every command shares: counts with their suffixes,
 * durations, lists of numbers and ranges, and the one splitter of a
 * comma-separated list of names. Every parser returns 0, or -1 with a
 * message (without the option name) in err.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kvbench.h"

/* The message of a parser that fails, in err; returns -1. */
int kvb_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * Each item of the comma-separated list s, in order, to fn: empty items
 * ("a,,b") are passed over. 0; -1 when fn fails (its message in err), when
 * s has no item at all ("empty list") or out of memory.
 */
int kvb_each_item(const char *s, kvb_item_fn fn, void *arg, char *err,
		  size_t errlen)
{
	char *copy = strdup(s), *tok, *save = NULL;
	int n = 0, ret = 0;

	if (!copy)
		return kvb_fail(err, errlen, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save), n++)
		ret = fn(tok, arg, err, errlen) ? -1 : 0;
	free(copy);
	if (!ret && !n)
		return kvb_fail(err, errlen, "empty list");
	return ret;
}

/* A decimal number, or "max" meaning max_value. */
static int parse_one(const char *s, const char *end, unsigned int max_value,
		     unsigned long *out)
{
	unsigned long v = 0;
	const char *c;

	if (end - s == 3 && !strncmp(s, "max", 3)) {
		*out = max_value;
		return 0;
	}
	if (s == end)
		return -1;
	for (c = s; c < end; c++) {
		if (*c < '0' || *c > '9')
			return -1;
		/* saturated: a number too large is out of range, as -r says */
		if (v <= 1000000000UL)
			v = v * 10 + (*c - '0');
	}
	*out = v;
	return 0;
}

/* "pow2": 1, 2, 4, ... below max_value, then max_value (at least 1). */
static int append_pow2(struct kvb_ulist *l, unsigned int lo, unsigned int hi,
		       unsigned int max_value, char *err, size_t errlen)
{
	unsigned long v;
	unsigned int *nv;

	if (!max_value)
		max_value = 1;
	if (lo > 1 || max_value > hi) {
		free(l->v);
		return kvb_fail(err, errlen, "'pow2' (1..%u) is outside %u..%u",
				max_value, lo, hi);
	}
	/* 32 powers of two at most, plus max_value */
	if (l->n + 33 > 4096) {
		free(l->v);
		return kvb_fail(err, errlen, "list too long");
	}
	nv = realloc(l->v, (l->n + 33) * sizeof(*nv));
	if (!nv) {
		free(l->v);
		return kvb_fail(err, errlen, "out of memory");
	}
	l->v = nv;
	for (v = 1; v < max_value; v *= 2)
		l->v[l->n++] = v;
	l->v[l->n++] = max_value;
	return 0;
}

/*
 * "1,2,4", "1-8", "max", "1-max", "1,4-6": a list of numbers in lo..hi.
 * max_value is what "max" stands for; "pow2" is 1, 2, 4, ... below it, then
 * max_value itself (1,2,4,6 for 6).
 */
int kvb_parse_ulist(const char *s, unsigned int lo, unsigned int hi,
		    unsigned int max_value, struct kvb_ulist *out,
		    char *err, size_t errlen)
{
	struct kvb_ulist l = { NULL, 0 };
	const char *p = s;

	if (!*s)
		return kvb_fail(err, errlen, "empty list");
	for (;;) {
		const char *comma = strchr(p, ',');
		const char *end = comma ? comma : p + strlen(p);
		const char *dash = memchr(p, '-', end - p);
		unsigned long a, b, v;
		unsigned int *nv;

		if (end - p == 4 && !strncmp(p, "pow2", 4)) {
			if (append_pow2(&l, lo, hi, max_value, err, errlen))
				return -1;
			if (!comma)
				break;
			p = comma + 1;
			continue;
		}
		if (dash) {
			if (parse_one(p, dash, max_value, &a) ||
			    parse_one(dash + 1, end, max_value, &b))
				goto bad;
		} else {
			if (parse_one(p, end, max_value, &a))
				goto bad;
			b = a;
		}
		if (a > b) {
			free(l.v);
			return kvb_fail(err, errlen,
					"'%.*s': a range runs from low to high (%lu-%lu)",
					(int)(end - p), p, b, a);
		}
		if (a < lo || b > hi) {
			free(l.v);
			return kvb_fail(err, errlen, "'%.*s' is outside %u..%u",
					(int)(end - p), p, lo, hi);
		}
		if (l.n + (b - a + 1) > 4096) {
			free(l.v);
			return kvb_fail(err, errlen, "list too long");
		}
		nv = realloc(l.v, (l.n + (b - a + 1)) * sizeof(*nv));
		if (!nv) {
			free(l.v);
			return kvb_fail(err, errlen, "out of memory");
		}
		l.v = nv;
		for (v = a; v <= b; v++)
			l.v[l.n++] = v;
		if (!comma)
			break;
		p = comma + 1;
	}
	*out = l;
	return 0;
bad:
	free(l.v);
	return kvb_fail(err, errlen,
			"'%s' is not a list of numbers or ranges (like 1,2,4 or 1-8 or max)",
			s);
}

/*
 * A duration: a number of seconds, or a number with one of the units us,
 * ms, s or m (minutes): "2", "1.5s", "500ms", "10m". Nothing else: "2h",
 * "1M" or "5sec" is an error, not a guess.
 */
int kvb_parse_seconds(const char *s, double *sec, char *err, size_t errlen)
{
	static const struct {
		const char *unit;
		double mul;
	} units[] = {
		{ "", 1 }, { "us", 0.000001 }, { "ms", 0.001 }, { "s", 1 }, { "m", 60 },
	};
	char *end;
	double v;
	size_t i;

	if ((*s < '0' || *s > '9') && *s != '.')
		goto bad;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		goto bad;
	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (!strcmp(end, units[i].unit))
			break;
	if (i == ARRAY_SIZE(units))
		return kvb_fail(err, errlen,
				"'%s' is not a duration: a number of seconds, or with one of the units us, ms, s, m (minutes), like 500ms, 1.5s or 10m",
				s);
	v *= units[i].mul;
	if (v > 86400)
		return kvb_fail(err, errlen, "'%s' is more than a day", s);
	*sec = v;
	return 0;
bad:
	return kvb_fail(err, errlen, "'%s' is not a duration (like 2, 500ms, 1.5s or 10m)", s);
}

/*
 * A decimal count with an optional suffix: k, M, G are SI (x1000, x10^6,
 * x10^9), Ki, Mi, Gi binary (x1024, x2^20, x2^30): "64", "4Ki", "1M". Any
 * other suffix ("1m", "4K", "2kb") is an error: "m" could be mega or
 * mebi, and is minutes in a duration.
 */
int kvb_parse_count(const char *s, unsigned long long lo, unsigned long long hi,
		    unsigned long long *out, char *err, size_t errlen)
{
	static const struct {
		const char *suffix;
		unsigned long long mul;
	} suffixes[] = {
		{ "", 1 },
		{ "k", 1000ULL }, { "M", 1000000ULL }, { "G", 1000000000ULL },
		{ "Ki", 1ULL << 10 }, { "Mi", 1ULL << 20 }, { "Gi", 1ULL << 30 },
	};
	unsigned long long v, mul;
	char *end;
	size_t i;

	if (*s < '0' || *s > '9')
		goto bad;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		goto bad;
	for (i = 0; i < ARRAY_SIZE(suffixes); i++)
		if (!strcmp(end, suffixes[i].suffix))
			break;
	if (i == ARRAY_SIZE(suffixes))
		return kvb_fail(err, errlen,
				"'%s' has an unknown suffix '%s': use k, M, G (x1000) or Ki, Mi, Gi (x1024)",
				s, end);
	mul = suffixes[i].mul;
	if (v > hi / mul || v * mul < lo || v * mul > hi)
		return kvb_fail(err, errlen, "'%s' is outside %llu..%llu", s, lo, hi);
	*out = v * mul;
	return 0;
bad:
	return kvb_fail(err, errlen, "'%s' is not a number (like 64, 4Ki or 1M)", s);
}
