// SPDX-License-Identifier: GPL-2.0
/*
 * unit/model-reject: the model loader accepts a valid file bit for bit and refuses, with a
 * one-line reason and without touching its output, truncated files, wrong versions, wrong
 * feature lists, bad checksums and out-of-range contents.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mlb/features.h"
#include "ml/model.h"
#include "../fuzz/model_bytes.h"
#include "ml/rng.h"

/* File offsets (docs/model.md): header, per-feature records, then layers. */
#define OFF_VERSION 8
#define OFF_NIN	    20
#define OFF_NLAYERS 24
#define OFF_FEAT    32
#define FEAT_SIZE   52
#define OFF_LAYER0  (OFF_FEAT + MLB_NR_FEATURES * FEAT_SIZE)
/* layer 0: n_in, n_out, w_frac, out_frac, relu, 16 biases, then w[0][0..] */
#define OFF_W0 (OFF_LAYER0 + 20 + 16 * 4)

static int fails;
static struct mlb_model *sentinel, *out;

/* Decoding @buf must fail, name @what in the reason, and leave the output untouched. */
static void expect_refused(const char *name, const u8 *buf, size_t len, const char *what)
{
	char err[256] = "";
	int ret;

	memcpy(out, sentinel, sizeof(*out));
	ret = mlb_model_decode(buf, len, out, err, sizeof(err));
	if (!ret || memcmp(out, sentinel, sizeof(*out)) || !*err || strchr(err, '\n') ||
	    (what && !strstr(err, what))) {
		fprintf(stderr, "FAIL: %s: ret %d, reason '%s' (expected '%s')%s\n", name, ret, err,
			what ? what : "",
			memcmp(out, sentinel, sizeof(*out)) ? ", output changed" : "");
		fails++;
		return;
	}
	printf("refused %-28s %s\n", name, err);
}

static void make_model(struct mlb_model *m)
{
	const u32 sizes[] = {MLB_NR_FEATURES, 16, 8, 1};
	struct mlb_rng r;

	memset(m, 0, sizeof(*m));
	mlb_rng_seed(&r, 42);
	m->nn.magic = MLB_NN_MAGIC;
	m->nn.n_in = MLB_NR_FEATURES;
	m->nn.n_layers = 3;
	m->nn.n_out = 1;
	for (int i = 0; i < MLB_NR_FEATURES; i++) {
		const struct mlb_feature_desc *d = &mlb_feature_descs[i];

		snprintf(m->feature[i], MLB_MODEL_NAME_LEN, "%s", d->name);
		m->nn.norm[i] = (struct mlb_nn_norm){d->min,
						     d->max,
						     d->min + (d->max - d->min) / 2,
						     (s32)mlb_rng_below(&r, 1 << 30),
						     20,
						     mlb_nn_half(20)};
	}
	for (int l = 0, in_frac = MLB_NN_IN_FRAC; l < 3; l++) {
		struct mlb_nn_layer *ly = &m->nn.layer[l];
		s64 wmax = MLB_NN_ROW_L1_MAX / sizes[l]; /* every row sum within the bound */

		ly->n_in = sizes[l];
		ly->n_out = sizes[l + 1];
		ly->w_frac = 12;
		ly->out_frac = 10;
		ly->shift = in_frac + ly->w_frac - ly->out_frac;
		ly->relu = l < 2;
		in_frac = ly->out_frac;
		for (u32 j = 0; j < ly->n_out; j++) {
			mlb_nn_set_bias(ly, j, mlb_rng_range(&r, -(1 << 20), 1 << 20));
			for (u32 i = 0; i < ly->n_in; i++)
				mlb_nn_set_weight(ly, j, i, mlb_rng_range(&r, -wmax, wmax));
		}
	}
	m->meta = (struct mlb_model_meta){.created = 1764720000,
					  .n_train = 800,
					  .n_val = 200,
					  .seed = 7,
					  .epochs = 12,
					  .acc_ppm = 950000,
					  .agree_ppm = 999000,
					  .max_err = 12};
	snprintf(m->meta.label, MLB_MODEL_NAME_LEN, "label");
}

int main(void)
{
	struct mlb_model *m = malloc(sizeof(*m));
	char err[256], path[] = "/tmp/mlb-model-reject-XXXXXX";
	u8 *buf, *bad;
	size_t len, i;
	void *vbuf;
	FILE *f;
	int fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	sentinel = malloc(sizeof(*sentinel));
	out = malloc(sizeof(*out));
	if (!m || !sentinel || !out)
		return 1;
	memset(sentinel, 0xa5, sizeof(*sentinel));

	if (mlb_crc32("123456789", 9) != 0xcbf43926) {
		fprintf(stderr, "FAIL: CRC32 check value 0x%08x\n", mlb_crc32("123456789", 9));
		return 1;
	}

	/* packed pairs: any two s32 values round-trip, the extremes included */
	{
		static struct mlb_nn_layer ly;
		const s64 v[] = {0, 1, -1, -885, INT32_MIN, INT32_MAX, MLB_NN_ROW_L1_MAX};

		for (size_t a = 0; a < sizeof(v) / sizeof(v[0]); a++) {
			for (size_t b = 0; b < sizeof(v) / sizeof(v[0]); b++) {
				mlb_nn_set_weight(&ly, 2, 5, v[a]);
				mlb_nn_set_weight(&ly, 3, 5, v[b]);
				mlb_nn_set_bias(&ly, 3, v[a]);
				mlb_nn_set_bias(&ly, 2, v[b]);
				if (mlb_nn_weight(&ly, 2, 5) != v[a] ||
				    mlb_nn_weight(&ly, 3, 5) != v[b] ||
				    mlb_nn_bias(&ly, 3) != v[a] || mlb_nn_bias(&ly, 2) != v[b]) {
					fprintf(stderr,
						"FAIL: pair (%lld, %lld) does not round-trip\n",
						(long long)v[a], (long long)v[b]);
					fails++;
				}
			}
		}
	}

	/* a valid model round-trips exactly */
	make_model(m);
	if (mlb_model_encode(m, &vbuf, &len, err, sizeof(err))) {
		fprintf(stderr, "FAIL: encode: %s\n", err);
		return 1;
	}
	buf = vbuf;
	if (mlb_model_decode(buf, len, out, err, sizeof(err)) || memcmp(out, m, sizeof(*m))) {
		fprintf(stderr, "FAIL: valid model did not round-trip: %s\n", err);
		return 1;
	}
	printf("valid model: %zu bytes, round-trips\n", len);
	bad = malloc(len + 8);
	if (!bad)
		return 1;

	/* truncated: every proper prefix */
	for (i = 0; i < len; i++) {
		char name[64];

		snprintf(name, sizeof(name), "truncated to %zu", i);
		memcpy(bad, buf, i);
		if (i == 0 || i == 20 || i == len / 2 || i == len - 1)
			expect_refused(name, bad, i, NULL);
		else if (!mlb_model_decode(bad, i, out, err, sizeof(err))) {
			fprintf(stderr, "FAIL: %s accepted\n", name);
			fails++;
		}
	}
	/* trailing garbage */
	memcpy(bad, buf, len);
	memset(bad + len, 0, 8);
	expect_refused("trailing bytes", bad, len + 8, "trailing");

	/* wrong version (checksum fixed so only the version is wrong) */
	memcpy(bad, buf, len);
	put32(bad + OFF_VERSION, MLB_MODEL_VERSION + 1);
	fix_crc(bad, len);
	expect_refused("version + 1", bad, len, "version");
	memcpy(bad, buf, len);
	bad[0] ^= 0x20;
	expect_refused("bad magic", bad, len, "magic");

	/* wrong feature list: renamed, reordered, other range */
	memcpy(bad, buf, len);
	bad[OFF_FEAT + 2] ^= 1;
	fix_crc(bad, len);
	expect_refused("renamed feature", bad, len, "feature");
	memcpy(bad, buf, len);
	memcpy(bad + OFF_FEAT, buf + OFF_FEAT + FEAT_SIZE, MLB_MODEL_NAME_LEN);
	memcpy(bad + OFF_FEAT + FEAT_SIZE, buf + OFF_FEAT, MLB_MODEL_NAME_LEN);
	fix_crc(bad, len);
	expect_refused("swapped features", bad, len, "feature");
	memcpy(bad, buf, len);
	put32(bad + OFF_FEAT + 36, mlb_feature_descs[0].max + 1); /* hi of feature 0 */
	fix_crc(bad, len);
	expect_refused("feature range", bad, len, "range");
	{
		/* a model of a different feature count: n_in - 1, one record fewer */
		size_t l2 = len - FEAT_SIZE;

		memcpy(bad, buf, OFF_FEAT + (MLB_NR_FEATURES - 1) * FEAT_SIZE);
		memcpy(bad + OFF_FEAT + (MLB_NR_FEATURES - 1) * FEAT_SIZE, buf + OFF_LAYER0,
		       len - OFF_LAYER0);
		put32(bad + 12, l2);
		put32(bad + OFF_NIN, MLB_NR_FEATURES - 1);
		fix_crc(bad, l2);
		expect_refused("one feature fewer", bad, l2, "features");
	}

	/* bad checksum: any single flipped bit anywhere is caught */
	for (i = 0; i < len; i++) {
		memcpy(bad, buf, len);
		bad[i] ^= 1 << (i % 8);
		if (!mlb_model_decode(bad, len, out, err, sizeof(err))) {
			fprintf(stderr, "FAIL: bit flip at byte %zu accepted\n", i);
			fails++;
		}
	}
	memcpy(bad, buf, len);
	bad[OFF_LAYER0 + 100] ^= 0x10;
	expect_refused("flipped weight bit", bad, len, "checksum");
	memcpy(bad, buf, len);
	bad[len - 1] ^= 0x80;
	expect_refused("flipped crc bit", bad, len, "checksum");

	/* out of range, each with a valid checksum */
	memcpy(bad, buf, len);
	put32(bad + OFF_NLAYERS, 4);
	fix_crc(bad, len);
	expect_refused("4 layers", bad, len, "layers");
	memcpy(bad, buf, len);
	put32(bad + OFF_NIN, 33);
	fix_crc(bad, len);
	expect_refused("33 inputs", bad, len, "shape out of range: 33 inputs");
	memcpy(bad, buf, len);
	put32(bad + OFF_LAYER0 + 8, MLB_NN_WFRAC_MAX + 1); /* w_frac */
	fix_crc(bad, len);
	expect_refused("w_frac too large", bad, len, "fraction");
	memcpy(bad, buf, len);
	put32(bad + OFF_LAYER0 + 12, MLB_NN_OUT_FRAC_MAX + 1); /* out_frac */
	fix_crc(bad, len);
	expect_refused("out_frac too large", bad, len, "output fraction");
	memcpy(bad, buf, len);
	put32(bad + OFF_LAYER0 + 12, MLB_NN_IN_FRAC + 12 + 1); /* more than the sum carries */
	fix_crc(bad, len);
	expect_refused("out_frac > in + w_frac", bad, len, "output fraction");
	memcpy(bad, buf, len);
	put32(bad + OFF_LAYER0 + 16, 0); /* relu off on a hidden layer */
	fix_crc(bad, len);
	expect_refused("hidden layer without relu", bad, len, "relu");
	memcpy(bad, buf, len);
	put32(bad + OFF_W0, MLB_NN_ROW_L1_MAX + 1); /* w[0][0] */
	fix_crc(bad, len);
	expect_refused("weight too large", bad, len, "weights of unit 0");
	memcpy(bad, buf, len);
	for (i = 0; i < MLB_NR_FEATURES; i++) /* each small, together over the bound */
		put32(bad + OFF_W0 + 4 * i, MLB_NN_ROW_L1_MAX / 16);
	fix_crc(bad, len);
	expect_refused("row sum too large", bad, len, "sum to");
	memcpy(bad, buf, len);
	put32(bad + OFF_LAYER0 + 20, (u32)-MLB_NN_B_MAX - 1); /* b[0] */
	fix_crc(bad, len);
	expect_refused("bias too large", bad, len, "bias");
	/*
	 * Layer 0 with 17 outputs, layer 1 still taking 16: the file holds layer 0's 17th bias and
	 * weight row (inserted after its 16 biases and after its 16 rows) and a size field to
	 * match, so the parser reads every layer where it is and the validator sees the mismatch.
	 */
	{
		const size_t at_b = OFF_W0, at_w = OFF_W0 + 16 * MLB_NR_FEATURES * 4;
		const size_t grow = 4 * (1 + MLB_NR_FEATURES);
		u8 *wide = calloc(1, len + grow);

		if (!wide)
			return 1;
		memcpy(wide, buf, at_b);
		memcpy(wide + at_b + 4, buf + at_b, at_w - at_b);
		memcpy(wide + at_w + grow, buf + at_w, len - at_w);
		put32(wide + 12, len + grow);
		put32(wide + OFF_LAYER0 + 4, 17);
		fix_crc(wide, len + grow);
		expect_refused("layer sizes disagree", wide, len + grow,
			       "layer 1 takes 16 inputs, the previous gives 17");
		free(wide);
	}
	memcpy(bad, buf, len);
	put32(bad + OFF_FEAT + 48, MLB_NN_SHIFT_MAX + 1); /* shift of feature 0 */
	fix_crc(bad, len);
	expect_refused("normalisation shift", bad, len, "normalisation");
	memcpy(bad, buf, len);
	put32(bad + OFF_FEAT + 44, (u32)-5); /* negative mult */
	fix_crc(bad, len);
	expect_refused("negative mult", bad, len, "normalisation");
	memcpy(bad, buf, len);
	put32(bad + OFF_FEAT + 40, mlb_feature_descs[0].min - 1); /* offset below lo */
	fix_crc(bad, len);
	expect_refused("offset out of range", bad, len, "normalisation");
	memcpy(bad, buf, len);
	put32(bad + 16, 8); /* Q format */
	fix_crc(bad, len);
	expect_refused("other Q format", bad, len, "fraction bits");
	memcpy(bad, buf, len);
	put32(bad + len - 4 - MLB_MODEL_NAME_LEN - 4 - 4 - 4, MLB_PPM + 1); /* agree_ppm */
	fix_crc(bad, len);
	expect_refused("agreement over 100%", bad, len, "ppm");

	/* the encoder refuses what the decoder would */
	memcpy(out, m, sizeof(*m));
	mlb_nn_set_weight(&out->nn.layer[1], 0, 20, 1); /* past n_in */
	vbuf = NULL;
	if (!mlb_model_encode(out, &vbuf, &len, err, sizeof(err)) || vbuf) {
		fprintf(stderr, "FAIL: encoder accepted a non-zero padding weight\n");
		fails++;
	}
	/* the other half of the output layer's only pair is unit 1, past n_out = 1 */
	memcpy(out, m, sizeof(*m));
	mlb_nn_set_weight(&out->nn.layer[2], 1, 0, -1);
	vbuf = NULL;
	if (!mlb_model_encode(out, &vbuf, &len, err, sizeof(err)) || vbuf ||
	    !strstr(err, "unused weight")) {
		fprintf(stderr, "FAIL: encoder accepted a weight of a unit past n_out: %s\n", err);
		fails++;
	}
	memcpy(out, m, sizeof(*m));
	out->nn.norm[3].half++;
	if (!mlb_model_encode(out, &vbuf, &len, err, sizeof(err)) || !strstr(err, "inconsistent")) {
		fprintf(stderr, "FAIL: encoder accepted a wrong rounding constant: %s\n", err);
		fails++;
	}
	memcpy(out, m, sizeof(*m));
	out->nn.layer[0].shift++;
	if (!mlb_model_encode(out, &vbuf, &len, err, sizeof(err)) || !strstr(err, "shift")) {
		fprintf(stderr, "FAIL: encoder accepted an inconsistent shift: %s\n", err);
		fails++;
	}

	/* files: save + load, then a corrupt file changes nothing */
	fd = mkstemp(path);
	if (fd < 0)
		return 1;
	close(fd);
	if (mlb_model_save(path, m, err, sizeof(err)) ||
	    mlb_model_load(path, out, err, sizeof(err)) || memcmp(out, m, sizeof(*m))) {
		fprintf(stderr, "FAIL: save/load: %s\n", err);
		fails++;
	}
	f = fopen(path, "r+");
	if (!f || fseek(f, 200, SEEK_SET) || fputc('X', f) == EOF || fclose(f))
		return 1;
	memcpy(out, sentinel, sizeof(*out));
	if (!mlb_model_load(path, out, err, sizeof(err)) || memcmp(out, sentinel, sizeof(*out)) ||
	    !strstr(err, path)) {
		fprintf(stderr, "FAIL: a corrupt file was loaded or changed the output\n");
		fails++;
	} else {
		printf("refused corrupt file: %s\n", err);
	}
	unlink(path);
	if (mlb_model_load(path, out, err, sizeof(err)) != -ENOENT) {
		fprintf(stderr, "FAIL: a missing file: %s\n", err);
		fails++;
	}

	free(buf);
	free(bad);
	free(m);
	free(sentinel);
	free(out);
	printf("%d failures\n", fails);
	return fails ? 1 : 0;
}
