// SPDX-License-Identifier: GPL-2.0
/*
 * JSON for the stats socket: a writer into a fixed buffer that notes overflow instead of
 * growing, and a strict recursive reader with fixed limits (json.h). The reader is fed what
 * anybody with access to the socket sends, so it never allocates, never recurses deeper than
 * MLB_JSON_MAX_DEPTH and never reads past @len (tests/fuzz/fuzz_statsd.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "json.h"

void mlb_json_init(struct mlb_json *j, char *buf, size_t size)
{
	*j = (struct mlb_json){.buf = buf, .size = size};
	buf[0] = '\0';
}

static void put(struct mlb_json *j, const char *s, size_t n)
{
	if (j->overflow || j->len + n >= j->size) {
		j->overflow = true;
		return;
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = '\0';
}

static void puts_(struct mlb_json *j, const char *s)
{
	put(j, s, strlen(s));
}

/* Before a value or a key: the comma that separates it from the previous one. */
static void sep(struct mlb_json *j)
{
	if (j->comma)
		put(j, ",", 1);
	j->comma = false;
}

void mlb_json_open(struct mlb_json *j)
{
	sep(j);
	put(j, "{", 1);
}

void mlb_json_close(struct mlb_json *j)
{
	put(j, "}", 1);
	j->comma = true;
}

static void quoted(struct mlb_json *j, const char *s)
{
	char esc[8];

	put(j, "\"", 1);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = c;
			put(j, esc, 2);
		} else if (c < 0x20) {
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			put(j, esc, 6);
		} else {
			put(j, (const char *)&c, 1);
		}
	}
	put(j, "\"", 1);
}

void mlb_json_key(struct mlb_json *j, const char *key)
{
	sep(j);
	quoted(j, key);
	put(j, ":", 1);
}

void mlb_json_str(struct mlb_json *j, const char *s)
{
	sep(j);
	quoted(j, s);
	j->comma = true;
}

void mlb_json_num(struct mlb_json *j, const char *num)
{
	sep(j);
	puts_(j, num);
	j->comma = true;
}

void mlb_json_u64(struct mlb_json *j, u64 v)
{
	char b[24];

	snprintf(b, sizeof(b), "%llu", (unsigned long long)v);
	mlb_json_num(j, b);
}

void mlb_json_int(struct mlb_json *j, long long v)
{
	char b[24];

	snprintf(b, sizeof(b), "%lld", v);
	mlb_json_num(j, b);
}

void mlb_json_raw(struct mlb_json *j, const char *s)
{
	puts_(j, s);
}

/* The reader's state: the text, where it is, the path of keys down to here. */
struct rd {
	const char *s;
	size_t len, pos;
	mlb_json_fn fn;
	void *ctx;
	char *err;
	size_t errlen;
	const char *path[MLB_JSON_MAX_DEPTH];
	char keys[MLB_JSON_MAX_DEPTH][MLB_JSON_MAX_KEY];
	char str[MLB_JSON_MAX_STR];
};

static int fail(struct rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct rd *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(r->err, r->errlen, "at byte %zu: ", r->pos);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < r->errlen)
		vsnprintf(r->err + n, r->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

static void ws(struct rd *r)
{
	while (r->pos < r->len && (r->s[r->pos] == ' ' || r->s[r->pos] == '\t' ||
				   r->s[r->pos] == '\n' || r->s[r->pos] == '\r'))
		r->pos++;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A string at r->pos (its opening quote) into @out (@size bytes with the NUL); its length. */
static long string(struct rd *r, char *out, size_t size, const char *what)
{
	size_t n = 0;

	r->pos++; /* the quote */
	for (;;) {
		unsigned char c;

		if (r->pos >= r->len)
			return fail(r, "unterminated string");
		c = r->s[r->pos++];
		if (c == '"')
			break;
		if (c < 0x20)
			return fail(r, "control character 0x%02x in a string", c);
		if (c == '\\') {
			if (r->pos >= r->len)
				return fail(r, "unterminated string");
			c = r->s[r->pos++];
			switch (c) {
			case '"':
			case '\\':
			case '/':
				break;
			case 'b':
				c = '\b';
				break;
			case 'f':
				c = '\f';
				break;
			case 'n':
				c = '\n';
				break;
			case 'r':
				c = '\r';
				break;
			case 't':
				c = '\t';
				break;
			case 'u': {
				int v = 0;

				if (r->len - r->pos < 4)
					return fail(r, "short \\u escape");
				for (int i = 0; i < 4; i++) {
					int h = hexval(r->s[r->pos + i]);

					if (h < 0)
						return fail(r, "bad \\u escape");
					v = v * 16 + h;
				}
				r->pos += 4;
				if (v == 0 || v > 0x7f)
					return fail(r, "\\u%04x: only ASCII escapes, not NUL", v);
				c = v;
				break;
			}
			default:
				return fail(r, "bad escape \\%c", c);
			}
		}
		if (n + 1 >= size)
			return fail(r, "%s longer than %zu bytes", what, size - 1);
		out[n++] = c;
	}
	out[n] = '\0';
	return n;
}

/* A number at r->pos (RFC 8259: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?). */
static long number(struct rd *r, char *out, size_t size)
{
	size_t b = r->pos, n;

#define DIGITS()                                                                                   \
	({                                                                                         \
		size_t d0 = r->pos;                                                                \
		while (r->pos < r->len && r->s[r->pos] >= '0' && r->s[r->pos] <= '9')              \
			r->pos++;                                                                  \
		r->pos - d0;                                                                       \
	})
	if (r->pos < r->len && r->s[r->pos] == '-')
		r->pos++;
	if (r->pos < r->len && r->s[r->pos] == '0')
		r->pos++;
	else if (!DIGITS())
		return fail(r, "bad number");
	if (r->pos < r->len && r->s[r->pos] == '.') {
		r->pos++;
		if (!DIGITS())
			return fail(r, "bad number: no digit after '.'");
	}
	if (r->pos < r->len && (r->s[r->pos] == 'e' || r->s[r->pos] == 'E')) {
		r->pos++;
		if (r->pos < r->len && (r->s[r->pos] == '+' || r->s[r->pos] == '-'))
			r->pos++;
		if (!DIGITS())
			return fail(r, "bad number: no exponent digit");
	}
#undef DIGITS
	n = r->pos - b;
	if (n + 1 > size)
		return fail(r, "number longer than %zu bytes", size - 1);
	memcpy(out, r->s + b, n);
	out[n] = '\0';
	return n;
}

static int value(struct rd *r, int depth)
{
	long n;
	int e;

	ws(r);
	if (r->pos >= r->len)
		return fail(r, "a value is missing");
	switch (r->s[r->pos]) {
	case '{':
		r->pos++;
		e = r->fn(r->ctx, r->path, depth, MLB_JSON_OBJ, "", 0);
		if (e)
			return e;
		ws(r);
		if (r->pos < r->len && r->s[r->pos] == '}') {
			r->pos++;
			return 0;
		}
		if (depth >= MLB_JSON_MAX_DEPTH)
			return fail(r, "nested deeper than %d", MLB_JSON_MAX_DEPTH);
		for (;;) {
			ws(r);
			if (r->pos >= r->len || r->s[r->pos] != '"')
				return fail(r, "a key (a string) is expected");
			if (string(r, r->keys[depth], MLB_JSON_MAX_KEY, "key") < 0)
				return -1;
			r->path[depth] = r->keys[depth];
			ws(r);
			if (r->pos >= r->len || r->s[r->pos] != ':')
				return fail(r, "':' is expected after a key");
			r->pos++;
			e = value(r, depth + 1);
			if (e)
				return e;
			ws(r);
			if (r->pos < r->len && r->s[r->pos] == ',') {
				r->pos++;
				continue;
			}
			if (r->pos < r->len && r->s[r->pos] == '}') {
				r->pos++;
				return 0;
			}
			return fail(r, "',' or '}' is expected");
		}
	case '"':
		n = string(r, r->str, sizeof(r->str), "string");
		if (n < 0)
			return -1;
		return r->fn(r->ctx, r->path, depth, MLB_JSON_STR, r->str, n);
	case '[':
		return fail(r, "arrays are not accepted");
	default:
		n = number(r, r->str, sizeof(r->str));
		if (n < 0)
			return -1;
		return r->fn(r->ctx, r->path, depth, MLB_JSON_NUM, r->str, n);
	}
}

int mlb_json_walk(const char *s, size_t len, mlb_json_fn fn, void *ctx, char *err, size_t errlen)
{
	struct rd r;
	const char *nul = memchr(s, '\0', len);
	int e;

	r = (struct rd){.s = s, .len = len, .fn = fn, .ctx = ctx, .err = err, .errlen = errlen};
	if (errlen)
		err[0] = '\0';
	if (nul) {
		r.pos = nul - s;
		return fail(&r, "a NUL byte in the text");
	}
	e = value(&r, 0);
	if (e)
		return e;
	ws(&r);
	if (r.pos != len)
		return fail(&r, "text after the value");
	return 0;
}
