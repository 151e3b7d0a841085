/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One-line error reporting for the ML code: every fallible function takes (err, errsz) and
 * fills it with a reason; NULL or a zero size means the caller does not want it.
 */
#ifndef __MLB_ML_ERR_H
#define __MLB_ML_ERR_H

#include <stdarg.h>
#include <stdio.h>

static inline void set_err(char *err, size_t errsz, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline void set_err(char *err, size_t errsz, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errsz)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errsz, fmt, ap);
	va_end(ap);
}

#endif /* __MLB_ML_ERR_H */
