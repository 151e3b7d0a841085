/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space view of the feature table declared in intf.h: names, ranges and units, in
 * feature-index order. These names head the dataset CSV and are stored in model files; a
 * model whose list differs from this one is refused.
 */
#ifndef __MLB_FEATURES_H
#define __MLB_FEATURES_H

#include "intf.h"

struct mlb_feature_desc {
	const char *name;
	s32 min, max;
	const char *doc;
};

static const struct mlb_feature_desc mlb_feature_descs[MLB_NR_FEATURES] = {
#define MLB_X_DESC(e, n, lo, hi, d) [MLB_F_##e] = {.name = n, .min = lo, .max = hi, .doc = d},
    MLB_FEATURES(MLB_X_DESC)
#undef MLB_X_DESC
};

#endif /* __MLB_FEATURES_H */
