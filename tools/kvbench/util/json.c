// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench: a small strict JSON reader for the tool's own reports (compare,
 * report, plot). It knows nothing beyond RFC 8259: no comments, no trailing
 * commas, no NaN. A document is parsed into a tree of struct jnode.
 * And the writers' string escape, kvb_json_str(), and number,
 * kvb_json_num().
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kvbench.h"

#define JSON_MAX_DEPTH	64

struct jparser {
	const char *start, *s;
	char *err;
	size_t errlen;
};

static int jfail(struct jparser *jp, const char *what)
{
	const char *c;
	int line = 1, col = 1;

	if (jp->err[0])
		return -1;
	for (c = jp->start; c < jp->s; c++) {
		col++;
		if (*c == '\n') {
			line++;
			col = 1;
		}
	}
	snprintf(jp->err, jp->errlen, "line %d, column %d: %s", line, col, what);
	return -1;
}

static void jskip(struct jparser *jp)
{
	while (*jp->s == ' ' || *jp->s == '\t' || *jp->s == '\n' || *jp->s == '\r')
		jp->s++;
}

void kvb_json_free(struct jnode *n)
{
	int i;

	for (i = 0; i < n->nkids; i++)
		kvb_json_free(&n->kids[i]);
	free(n->kids);
	free(n->str);
	free(n->key);
	memset(n, 0, sizeof(*n));
}

static int hex4(const char *s, unsigned int *v)
{
	int i;

	*v = 0;
	for (i = 0; i < 4; i++) {
		char c = s[i];

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			*v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			*v |= c - 'A' + 10;
		else
			return -1;
	}
	return 0;
}

/*
 * The escape after a backslash, at *sp, into buf at *len (up to 3 bytes:
 * UTF-8), *sp past it. 0; 1: a bad escape; 2: a bad or unsupported \u.
 */
static unsigned int junescape(const char **sp, char *buf, size_t *len)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *s = *sp;
	unsigned int c = (unsigned char)*s++;
	const char *at = c ? strchr(from, c) : NULL;

	if (at) {
		buf[(*len)++] = to[at - from];
		*sp = s;
		return 0;
	}
	if (c != 'u')
		return 1;
	if (hex4(s, &c) || (c >= 0xd800 && c <= 0xdfff) || !c)
		return 2;
	*sp = s + 4;
	if (c < 0x80) {
		buf[(*len)++] = c;
	} else if (c < 0x800) {
		buf[(*len)++] = 0xc0 | (c >> 6);
		buf[(*len)++] = 0x80 | (c & 0x3f);
	} else {
		buf[(*len)++] = 0xe0 | (c >> 12);
		buf[(*len)++] = 0x80 | ((c >> 6) & 0x3f);
		buf[(*len)++] = 0x80 | (c & 0x3f);
	}
	return 0;
}

/* A string into *out (malloc'ed, UTF-8); \u escapes of the BMP only. */
static int jparse_string(struct jparser *jp, char **out)
{
	const char *s = jp->s + 1;
	size_t cap = 16, len = 0;
	char *buf = malloc(cap);

	if (!buf)
		return jfail(jp, "out of memory");
	for (;;) {
		unsigned int c = (unsigned char)*s;

		if (len + 4 >= cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				return jfail(jp, "out of memory");
			}
			buf = nb;
			cap *= 2;
		}
		if (c == '"')
			break;
		jp->s = s;
		if (!c) {
			free(buf);
			return jfail(jp, "unterminated string");
		}
		if (c < 0x20) {
			free(buf);
			return jfail(jp, "control character in a string");
		}
		s++;
		if (c != '\\') {
			buf[len++] = c;
			continue;
		}
		c = junescape(&s, buf, &len);
		if (c) {
			free(buf);
			return jfail(jp, c == 1 ? "bad escape in a string" :
				     "bad or unsupported \\u escape");
		}
	}
	buf[len] = 0;
	jp->s = s + 1;
	*out = buf;
	return 0;
}

/* The JSON number grammar, strictly: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int jparse_number(struct jparser *jp, double *v)
{
	const char *s = jp->s;
	char *end;

	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		while (*s >= '0' && *s <= '9')
			s++;
	else
		return jfail(jp, "expected a value");
	if (*s == '.') {
		if (*++s < '0' || *s > '9')
			return jfail(jp, "expected a digit after '.'");
		while (*s >= '0' && *s <= '9')
			s++;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (*s < '0' || *s > '9')
			return jfail(jp, "expected a digit in the exponent");
		while (*s >= '0' && *s <= '9')
			s++;
	}
	errno = 0;
	*v = strtod(jp->s, &end);
	if (end != s || !isfinite(*v))
		return jfail(jp, "number out of range");
	jp->s = s;
	return 0;
}

static int jparse_value(struct jparser *jp, struct jnode *n, int depth);

static int jparse_container(struct jparser *jp, struct jnode *n, int depth)
{
	int object = *jp->s == '{';
	char close = object ? '}' : ']';
	int cap = 0;

	n->type = object ? J_OBJ : J_ARR;
	jp->s++;
	jskip(jp);
	if (*jp->s == close) {
		jp->s++;
		return 0;
	}
	for (;;) {
		struct jnode *kid;
		char *key = NULL;

		if (object) {
			if (*jp->s != '"')
				return jfail(jp, "expected a member name");
			if (jparse_string(jp, &key))
				return -1;
			jskip(jp);
			if (*jp->s != ':') {
				free(key);
				return jfail(jp, "expected ':'");
			}
			jp->s++;
		}
		if (n->nkids == cap) {
			struct jnode *nk;

			cap = cap ? 2 * cap : 8;
			nk = realloc(n->kids, cap * sizeof(*nk));
			if (!nk) {
				free(key);
				return jfail(jp, "out of memory");
			}
			n->kids = nk;
		}
		kid = &n->kids[n->nkids++];
		memset(kid, 0, sizeof(*kid));
		kid->key = key;
		if (jparse_value(jp, kid, depth + 1))
			return -1;
		jskip(jp);
		if (*jp->s == close) {
			jp->s++;
			return 0;
		}
		if (*jp->s != ',')
			return jfail(jp, object ? "expected ',' or '}'" : "expected ',' or ']'");
		jp->s++;
		jskip(jp);
	}
}

static int jparse_value(struct jparser *jp, struct jnode *n, int depth)
{
	static const struct {
		const char *word;
		enum jtype type;
		double num;
	} words[] = {
		{ "null", J_NULL, 0 }, { "true", J_BOOL, 1 }, { "false", J_BOOL, 0 },
	};
	size_t i;

	if (depth > JSON_MAX_DEPTH)
		return jfail(jp, "nested too deep");
	jskip(jp);
	switch (*jp->s) {
	case '{':
	case '[':
		return jparse_container(jp, n, depth);
	case '"':
		n->type = J_STR;
		return jparse_string(jp, &n->str);
	case 0:
		return jfail(jp, "unexpected end of input");
	}
	for (i = 0; i < ARRAY_SIZE(words); i++) {
		size_t len = strlen(words[i].word);

		if (!strncmp(jp->s, words[i].word, len)) {
			n->type = words[i].type;
			n->num = words[i].num;
			jp->s += len;
			return 0;
		}
	}
	n->type = J_NUM;
	return jparse_number(jp, &n->num);
}

/* Parse text into *root; 0, or -1 with a message in err. */
int kvb_json_parse(const char *text, struct jnode *root, char *err, size_t errlen)
{
	struct jparser jp = { text, text, err, errlen };

	err[0] = 0;
	memset(root, 0, sizeof(*root));
	if (jparse_value(&jp, root, 0))
		goto fail;
	jskip(&jp);
	if (*jp.s) {
		jfail(&jp, "text after the JSON value");
		goto fail;
	}
	return 0;
fail:
	kvb_json_free(root);
	return -1;
}

const struct jnode *kvb_json_member(const struct jnode *obj, const char *key)
{
	int i;

	if (!obj || obj->type != J_OBJ)
		return NULL;
	for (i = 0; i < obj->nkids; i++)
		if (!strcmp(obj->kids[i].key, key))
			return &obj->kids[i];
	return NULL;
}

const struct jnode *kvb_json_get(const struct jnode *obj, const char *key,
				 enum jtype type)
{
	const struct jnode *n = kvb_json_member(obj, key);

	return n && n->type == type ? n : NULL;
}

/* A JSON string: quotes, backslashes and control characters escaped. */
void kvb_json_str(FILE *f, const char *s)
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

/*
 * A number as the reader will read it back: the shortest of 15 or 17
 * significant digits that gives the same double (838332.2, not
 * 838332.19999999995); null for what JSON cannot hold.
 */
void kvb_json_double(FILE *f, double v)
{
	char s[32];

	if (!isfinite(v)) {
		fputs("null", f);
		return;
	}
	if (v == floor(v) && fabs(v) < 9.2e18)
		snprintf(s, sizeof(s), "%.0f", v);	/* a seed, a count */
	else
		snprintf(s, sizeof(s), "%.15g", v);
	if (strtod(s, NULL) != v)
		snprintf(s, sizeof(s), "%.17g", v);
	fputs(s, f);
}

static int json_scalar(const struct jnode *n)
{
	return n->type != J_ARR && n->type != J_OBJ;
}

/* Whether n's members or elements are all scalars: then it takes a line. */
static int json_flat(const struct jnode *n)
{
	int i;

	for (i = 0; i < n->nkids; i++)
		if (!json_scalar(&n->kids[i]))
			return 0;
	return n->type == J_ARR || n->nkids <= 8;
}

/*
 * Write a tree back as text, @indent spaces deep: an object or array of
 * scalars on one line, any other with a member or element per line. The
 * tool's own writer (benchjson.c) lays its reports out the same way; this
 * one is for a tree that was read and changed (kvbench merge).
 */
void kvb_json_write(FILE *f, const struct jnode *n, int indent)
{
	int flat, i;

	switch (n->type) {
	case J_NULL:
		fputs("null", f);
		return;
	case J_BOOL:
		fputs(n->num ? "true" : "false", f);
		return;
	case J_NUM:
		kvb_json_double(f, n->num);
		return;
	case J_STR:
		kvb_json_str(f, n->str);
		return;
	case J_ARR:
	case J_OBJ:
		break;
	}
	flat = json_flat(n);
	fputc(n->type == J_ARR ? '[' : '{', f);
	for (i = 0; i < n->nkids; i++) {
		if (flat)
			fputs(i ? ", " : n->type == J_OBJ ? " " : "", f);
		else
			fprintf(f, "%s\n%*s", i ? "," : "", indent + 2, "");
		if (n->type == J_OBJ) {
			kvb_json_str(f, n->kids[i].key);
			fputs(": ", f);
		}
		kvb_json_write(f, &n->kids[i], indent + 2);
	}
	if (!flat && n->nkids)
		fprintf(f, "\n%*s", indent, "");
	else if (flat && n->type == J_OBJ && n->nkids)
		fputc(' ', f);
	fputc(n->type == J_ARR ? ']' : '}', f);
}

/*
 * A JSON number: prec >= 0 digits after the point ("%.*f"), or with
 * KVB_JSON_SIG(n) n significant digits ("%.*g"). JSON has no NaN or
 * infinity: a value that is not finite is null.
 */
void kvb_json_num(FILE *f, double v, int prec)
{
	if (!isfinite(v))
		fputs("null", f);
	else if (prec >= 0)
		fprintf(f, "%.*f", prec, v);
	else
		fprintf(f, "%.*g", -prec, v);
}

/* A member whose value is a number: before, "key": and kvb_json_num(). */
void kvb_json_field(FILE *f, const char *before, const char *key, double v, int prec)
{
	fprintf(f, "%s\"%s\": ", before, key);
	kvb_json_num(f, v, prec);
}
