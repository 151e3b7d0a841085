// SPDX-License-Identifier: GPL-2.0
/*
 * make fuzz-corpus: (re)write the seed corpus of unit/fuzz-model, tests/fuzz/model-corpus/,
 * from the valid model files given on the command line (trained by mlb-model, see ml.mk):
 * each is copied as valid-<shape>.mlb, and the first one is also damaged in the ways the
 * loader must refuse, each with a correct checksum unless the damage is the checksum itself,
 * so every bad-*.mlb reaches the check its name says.
 *
 * Usage: make_corpus OUTDIR MODEL...
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ml/model.h"
#include "model_bytes.h"

static int write_file(const char *dir, const char *name, const u8 *buf, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		fprintf(stderr, "make_corpus: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	/* header: magic 8, version 4, size 4, input frac 4, n_in 4, n_layers 4, n_out 4 */
	const size_t off_version = 8, off_nlayers = 24, off_feat = 32;
	const size_t off_layer0 = off_feat + MLB_NR_FEATURES * (MLB_MODEL_NAME_LEN + 20);
	static struct mlb_model m;
	u8 *first = NULL, *bad;
	size_t first_len = 0;
	u32 first_n_out = 0; /* units of the first model's layer 0 */
	char err[256];

	if (argc < 3) {
		fprintf(stderr, "usage: make_corpus OUTDIR MODEL...\n");
		return 2;
	}
	for (int a = 2; a < argc; a++) {
		char name[64];
		void *buf;
		size_t len, k;
		int n;

		if (mlb_model_load(argv[a], &m, err, sizeof(err)) ||
		    mlb_model_encode(&m, &buf, &len, err, sizeof(err))) {
			fprintf(stderr, "make_corpus: %s\n", err);
			return 1;
		}
		n = snprintf(name, sizeof(name), "valid-%u", m.nn.n_in);
		for (k = 0; k < m.nn.n_layers; k++)
			n += snprintf(name + n, sizeof(name) - n, "-%u", m.nn.layer[k].n_out);
		snprintf(name + n, sizeof(name) - n, ".mlb");
		if (write_file(argv[1], name, buf, len))
			return 1;
		if (!first) {
			first = buf;
			first_len = len;
			first_n_out = m.nn.layer[0].n_out;
		} else {
			free(buf);
		}
	}
	bad = malloc(first_len);
	if (!bad)
		return 1;
#define DAMAGE(name, code)                                                                         \
	do {                                                                                       \
		memcpy(bad, first, first_len);                                                     \
		code;                                                                              \
		if (write_file(argv[1], name, bad, first_len))                                     \
			return 1;                                                                  \
	} while (0)
	DAMAGE("bad-crc.mlb", bad[first_len / 2] ^= 0x10);
	DAMAGE("bad-version.mlb",
	       (put32(bad + off_version, MLB_MODEL_VERSION + 1), fix_crc(bad, first_len)));
	DAMAGE("bad-feature-name.mlb", (bad[off_feat] ^= 0x01, fix_crc(bad, first_len)));
	DAMAGE("bad-layers.mlb",
	       (put32(bad + off_nlayers, MLB_NN_MAX_LAYERS + 1), fix_crc(bad, first_len)));
	DAMAGE("bad-wfrac.mlb",
	       (put32(bad + off_layer0 + 8, MLB_NN_WFRAC_MAX + 1), fix_crc(bad, first_len)));
	DAMAGE("bad-outfrac.mlb",
	       (put32(bad + off_layer0 + 12, MLB_NN_OUT_FRAC_MAX + 1), fix_crc(bad, first_len)));
	/* layer 0, unit 0: every weight at the bound's 1/16, so the row sum is over it */
	DAMAGE("bad-rowsum.mlb", ({
		       size_t w0 = off_layer0 + 20 + 4 * (size_t)first_n_out;
		       for (u32 i = 0; i < MLB_NR_FEATURES; i++)
			       put32(bad + w0 + 4 * i, MLB_NN_ROW_L1_MAX / 16);
		       fix_crc(bad, first_len);
	       }));
	/* units 0 and 1 share packed words: the extreme s32 pair must unpack exactly, and refuse */
	DAMAGE("bad-wmin.mlb", ({
		       size_t w0 = off_layer0 + 20 + 4 * (size_t)first_n_out;
		       put32(bad + w0, (u32)-885);
		       put32(bad + w0 + 4 * MLB_NR_FEATURES, 0x80000000u);
		       fix_crc(bad, first_len);
	       }));
#undef DAMAGE
	if (write_file(argv[1], "bad-truncated.mlb", first, first_len / 2))
		return 1;
	free(bad);
	free(first);
	return 0;
}
