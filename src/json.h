/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small JSON writer into a fixed buffer, and a strict reader that walks a JSON text and
 * hands every value to a callback with its path of keys. Enough for the stats socket
 * (src/statsd.c): objects, strings and numbers; no arrays, no true/false/null.
 */
#ifndef __MLB_JSON_H
#define __MLB_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include "mlb/intf.h"

/* A JSON text being written into buf (always NUL-terminated); overflow: it did not fit. */
struct mlb_json {
	char *buf;
	size_t size, len;
	bool overflow;
	bool comma; /* a value was written at this level: the next one needs a comma */
};

/* mlb_json_init - start writing into @buf of @size bytes (at least 1). */
void mlb_json_init(struct mlb_json *j, char *buf, size_t size);
/* mlb_json_open / mlb_json_close - '{' and '}' (the only containers written). */
void mlb_json_open(struct mlb_json *j);
void mlb_json_close(struct mlb_json *j);
/* mlb_json_key - an object key; the next call writes its value. */
void mlb_json_key(struct mlb_json *j, const char *key);
/* mlb_json_str - a string value, escaped ('"', '\\' and control characters). */
void mlb_json_str(struct mlb_json *j, const char *s);
/* mlb_json_num - a number value given as text (the caller makes it a JSON number). */
void mlb_json_num(struct mlb_json *j, const char *num);
/* mlb_json_u64 - an unsigned integer value; mlb_json_int - a signed one. */
void mlb_json_u64(struct mlb_json *j, u64 v);
void mlb_json_int(struct mlb_json *j, long long v);
/* mlb_json_raw - text appended as it is ("\n" at the end of a reply). */
void mlb_json_raw(struct mlb_json *j, const char *s);

/* The reader's limits: nesting, a key's and a string value's length after unescaping. */
#define MLB_JSON_MAX_DEPTH 8
#define MLB_JSON_MAX_KEY   64
#define MLB_JSON_MAX_STR   256

enum mlb_json_kind { MLB_JSON_OBJ, MLB_JSON_STR, MLB_JSON_NUM };

/*
 * A value found by mlb_json_walk(): its path of keys from the top (path[0] .. path[depth-1];
 * depth 0 is the whole text), its kind, and for a string its unescaped text, for a number its
 * text as written (val NUL-terminated, vlen bytes). An object is reported before its members.
 * Returns 0 to go on; anything else stops the walk, which then returns it.
 */
typedef int (*mlb_json_fn)(void *ctx, const char *const *path, int depth, enum mlb_json_kind kind,
			   const char *val, size_t vlen);

/*
 * mlb_json_walk - read the JSON text @s (@len bytes; NUL bytes are errors) and call @fn for
 * every value. Strict: objects, strings and numbers only (RFC 8259 grammar), whitespace
 * around tokens, nothing after the top value; strings in UTF-8 with \uXXXX escapes of
 * ASCII only; keys at most MLB_JSON_MAX_KEY - 1 bytes, strings MLB_JSON_MAX_STR - 1, nesting
 * MLB_JSON_MAX_DEPTH. Returns 0; -1 with a one-line reason in @err when the text breaks a
 * rule (the callbacks made before stay made); or what @fn returned to stop it.
 */
int mlb_json_walk(const char *s, size_t len, mlb_json_fn fn, void *ctx, char *err, size_t errlen);

#endif /* __MLB_JSON_H */
