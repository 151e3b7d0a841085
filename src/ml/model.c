// SPDX-License-Identifier: GPL-2.0
/*
 * scx_mlb model files: validation, (de)serialisation, CRC32, dump. Format in docs/model.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "model.h"
#include "err.h"

/* Fixed part of the file: header (32 bytes) and, at the end, the CRC32. */
#define HDR_SIZE       32
#define FEAT_SIZE      (MLB_MODEL_NAME_LEN + 5 * 4)
#define LAYER_HDR_SIZE 20
#define META_SIZE      (4 * 8 + 12 * 4 + MLB_MODEL_NAME_LEN)
#define CRC_SIZE       4

u32 mlb_crc32(const void *buf, size_t len)
{
	static u32 table[256];
	static int ready;
	const u8 *p = buf;
	u32 crc = 0xffffffff;
	size_t i;

	if (!ready) {
		for (u32 n = 0; n < 256; n++) {
			u32 c = n;

			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320 ^ (c >> 1) : c >> 1;
			table[n] = c;
		}
		__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
	}
	for (i = 0; i < len; i++)
		crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	return crc ^ 0xffffffff;
}

static int all_zero(const void *p, size_t len)
{
	const u8 *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i])
			return 0;
	return 1;
}

int mlb_nn_validate(const struct mlb_nn_model *nn, char *err, size_t errsz)
{
	u32 l, i, j, prev, in_frac = MLB_NN_IN_FRAC;

	if (nn->magic != MLB_NN_MAGIC) {
		set_err(err, errsz, "bad network magic 0x%08x", nn->magic);
		return -EINVAL;
	}
	if (nn->n_in < 1 || nn->n_in > MLB_NN_MAX_IN) {
		set_err(err, errsz, "%u inputs, expected 1..%d", nn->n_in, MLB_NN_MAX_IN);
		return -EINVAL;
	}
	if (nn->n_layers < 1 || nn->n_layers > MLB_NN_MAX_LAYERS) {
		set_err(err, errsz, "%u layers, expected 1..%d", nn->n_layers, MLB_NN_MAX_LAYERS);
		return -EINVAL;
	}
	if (nn->n_out < 1 || nn->n_out > MLB_NN_MAX_OUT) {
		set_err(err, errsz, "%u outputs, expected 1..%d", nn->n_out, MLB_NN_MAX_OUT);
		return -EINVAL;
	}
	for (i = 0; i < MLB_NN_MAX_IN; i++) {
		const struct mlb_nn_norm *n = &nn->norm[i];

		if (i >= nn->n_in) {
			if (!all_zero(n, sizeof(*n))) {
				set_err(err, errsz, "unused normalisation %u is not zero", i);
				return -EINVAL;
			}
			continue;
		}
		if (n->lo > n->hi || n->hi - n->lo > MLB_NN_SPAN_MAX || n->lo < INT32_MIN ||
		    n->hi > INT32_MAX) {
			set_err(err, errsz, "input %u: range [%lld, %lld] empty or wider than 2^26",
				i, (long long)n->lo, (long long)n->hi);
			return -EINVAL;
		}
		if (n->offset < n->lo || n->offset > n->hi || n->mult < 0 ||
		    n->mult > MLB_NN_MULT_MAX || n->shift > MLB_NN_SHIFT_MAX ||
		    n->half != mlb_nn_half((u32)n->shift)) {
			set_err(err, errsz,
				"input %u: normalisation offset %lld mult %lld shift %llu out of "
				"range or inconsistent",
				i, (long long)n->offset, (long long)n->mult,
				(unsigned long long)n->shift);
			return -EINVAL;
		}
	}
	prev = nn->n_in;
	for (l = 0; l < MLB_NN_MAX_LAYERS; l++) {
		const struct mlb_nn_layer *ly = &nn->layer[l];
		int last = l + 1 == nn->n_layers;

		if (l >= nn->n_layers) {
			if (!all_zero(ly, sizeof(*ly))) {
				set_err(err, errsz, "unused layer %u is not zero", l);
				return -EINVAL;
			}
			continue;
		}
		if (ly->n_in != prev) {
			set_err(err, errsz, "layer %u takes %u inputs, the previous gives %u", l,
				ly->n_in, prev);
			return -EINVAL;
		}
		if (ly->n_out < 1 || ly->n_out > (last ? MLB_NN_MAX_OUT : MLB_NN_MAX_HIDDEN) ||
		    (last && ly->n_out != nn->n_out)) {
			set_err(err, errsz, "layer %u has %u outputs (network outputs %u)", l,
				ly->n_out, nn->n_out);
			return -EINVAL;
		}
		if (ly->relu != (u32)!last) {
			set_err(err, errsz, "layer %u: relu=%u, expected %d", l, ly->relu, !last);
			return -EINVAL;
		}
		if (ly->w_frac > MLB_NN_WFRAC_MAX) {
			set_err(err, errsz, "layer %u: %u weight fraction bits, at most %d", l,
				ly->w_frac, MLB_NN_WFRAC_MAX);
			return -EINVAL;
		}
		if (ly->out_frac > (last ? MLB_NN_FRAC_BITS : MLB_NN_OUT_FRAC_MAX) ||
		    ly->out_frac > in_frac + ly->w_frac) {
			set_err(err, errsz,
				"layer %u: %u output fraction bits, at most %d and at most "
				"in %u + weight %u",
				l, ly->out_frac, last ? MLB_NN_FRAC_BITS : MLB_NN_OUT_FRAC_MAX,
				in_frac, ly->w_frac);
			return -EINVAL;
		}
		if (ly->shift != in_frac + ly->w_frac - ly->out_frac) {
			set_err(err, errsz, "layer %u: shift %u, expected %u + %u - %u", l,
				ly->shift, in_frac, ly->w_frac, ly->out_frac);
			return -EINVAL;
		}
		for (j = 0; j < MLB_NN_WIDTH; j++) {
			s64 b = mlb_nn_bias(ly, j), l1 = 0;

			for (i = 0; i < MLB_NN_WIDTH; i++) {
				s64 w = mlb_nn_weight(ly, j, i);

				if ((i >= ly->n_in || j >= ly->n_out) && w) {
					set_err(err, errsz,
						"layer %u: unused weight [%u][%u] is %lld", l, j, i,
						(long long)w);
					return -EINVAL;
				}
				l1 += w < 0 ? -w : w;
			}
			if (j >= ly->n_out && b) {
				set_err(err, errsz, "layer %u: unused bias %u is %lld", l, j,
					(long long)b);
				return -EINVAL;
			}
			if (b > MLB_NN_B_MAX || b < -MLB_NN_B_MAX) {
				set_err(err, errsz, "layer %u: bias %u = %lld out of range", l, j,
					(long long)b);
				return -EINVAL;
			}
			if (l1 > MLB_NN_ROW_L1_MAX) {
				set_err(err, errsz,
					"layer %u: weights of unit %u sum to %lld in magnitude, "
					"more than %d",
					l, j, (long long)l1, MLB_NN_ROW_L1_MAX);
				return -EINVAL;
			}
		}
		in_frac = ly->out_frac;
		prev = ly->n_out;
	}
	return 0;
}

static int name_ok(const char *name)
{
	return memchr(name, 0, MLB_MODEL_NAME_LEN) != NULL;
}

/*
 * A name read from a file, fit for a one-line error: at most MLB_MODEL_NAME_LEN bytes, up to
 * its NUL, each byte outside printable ASCII shown as '?' (a newline in a corrupt file must not
 * split the error in two).
 */
static const char *printable_name(const char *name, char out[MLB_MODEL_NAME_LEN + 1])
{
	int i;

	for (i = 0; i < MLB_MODEL_NAME_LEN && name[i]; i++)
		out[i] = name[i] >= 0x20 && name[i] < 0x7f ? name[i] : '?';
	out[i] = '\0';
	return out;
}

int mlb_model_validate(const struct mlb_model *m, char *err, size_t errsz)
{
	const struct mlb_model_meta *mt = &m->meta;
	const u32 *ppm[] = {&mt->acc_ppm,   &mt->prec_ppm,  &mt->rec_ppm,
			    &mt->auc_ppm,   &mt->q_acc_ppm, &mt->q_prec_ppm,
			    &mt->q_rec_ppm, &mt->q_auc_ppm, &mt->agree_ppm};
	int ret;
	u32 i;

	if (m->nn.n_in != MLB_NR_FEATURES) {
		set_err(err, errsz, "model has %u features, the scheduler has %d", m->nn.n_in,
			MLB_NR_FEATURES);
		return -EINVAL;
	}
	ret = mlb_nn_validate(&m->nn, err, errsz);
	if (ret)
		return ret;
	for (i = 0; i < MLB_NR_FEATURES; i++) {
		const struct mlb_feature_desc *d = &mlb_feature_descs[i];

		if (!name_ok(m->feature[i]) || strcmp(m->feature[i], d->name)) {
			char shown[MLB_MODEL_NAME_LEN + 1];

			set_err(err, errsz, "feature %u is '%s', the scheduler's is '%s'", i,
				printable_name(m->feature[i], shown), d->name);
			return -EINVAL;
		}
		if (m->nn.norm[i].lo != d->min || m->nn.norm[i].hi != d->max) {
			set_err(err, errsz,
				"feature %s: range [%lld, %lld], the scheduler's is [%d, %d]",
				d->name, (long long)m->nn.norm[i].lo, (long long)m->nn.norm[i].hi,
				d->min, d->max);
			return -EINVAL;
		}
	}
	for (; i < MLB_NN_MAX_IN; i++) {
		if (!all_zero(m->feature[i], MLB_MODEL_NAME_LEN)) {
			set_err(err, errsz, "unused feature name %u is not empty", i);
			return -EINVAL;
		}
	}
	for (i = 0; i < sizeof(ppm) / sizeof(ppm[0]); i++) {
		if (*ppm[i] > MLB_PPM) {
			set_err(err, errsz, "metric %u is %u ppm, more than 100%%", i, *ppm[i]);
			return -EINVAL;
		}
	}
	if (!name_ok(mt->label)) {
		set_err(err, errsz, "label name is not NUL-terminated");
		return -EINVAL;
	}
	return 0;
}

/* Byte writer and reader, little-endian, bounds-checked. */
struct wbuf {
	u8 *p;
	size_t len, cap;
};

static void put(struct wbuf *w, const void *src, size_t n)
{
	/* the caller sized the buffer exactly: running past it is a bug here */
	if (w->len + n > w->cap)
		abort();
	memcpy(w->p + w->len, src, n);
	w->len += n;
}

static void put_u32(struct wbuf *w, u32 v)
{
	u8 b[4] = {v, v >> 8, v >> 16, v >> 24};

	put(w, b, 4);
}

static void put_u64(struct wbuf *w, u64 v)
{
	put_u32(w, (u32)v);
	put_u32(w, (u32)(v >> 32));
}

struct rbuf {
	const u8 *p;
	size_t len, off;
	int bad; /* a read ran past the end */
};

static void get(struct rbuf *r, void *dst, size_t n)
{
	if (r->bad || r->len - r->off < n) {
		r->bad = 1;
		memset(dst, 0, n);
		return;
	}
	memcpy(dst, r->p + r->off, n);
	r->off += n;
}

static u32 get_u32(struct rbuf *r)
{
	u8 b[4];

	get(r, b, 4);
	return (u32)b[0] | (u32)b[1] << 8 | (u32)b[2] << 16 | (u32)b[3] << 24;
}

static u64 get_u64(struct rbuf *r)
{
	u64 lo = get_u32(r);

	return lo | (u64)get_u32(r) << 32;
}

static size_t encoded_size(const struct mlb_nn_model *nn)
{
	size_t sz = HDR_SIZE + (size_t)nn->n_in * FEAT_SIZE + META_SIZE + CRC_SIZE;

	for (u32 l = 0; l < nn->n_layers; l++)
		sz += LAYER_HDR_SIZE + 4 * (size_t)nn->layer[l].n_out * (nn->layer[l].n_in + 1);
	return sz;
}

int mlb_model_encode(const struct mlb_model *m, void **buf, size_t *len, char *err, size_t errsz)
{
	const struct mlb_nn_model *nn = &m->nn;
	const struct mlb_model_meta *mt = &m->meta;
	struct wbuf w = {};
	u32 i, j, l;
	int ret;

	ret = mlb_model_validate(m, err, errsz);
	if (ret)
		return ret;
	w.cap = encoded_size(nn);
	w.p = malloc(w.cap);
	if (!w.p) {
		set_err(err, errsz, "out of memory");
		return -ENOMEM;
	}
	put(&w, MLB_MODEL_MAGIC, 8);
	put_u32(&w, MLB_MODEL_VERSION);
	put_u32(&w, (u32)w.cap);
	put_u32(&w, MLB_NN_IN_FRAC);
	put_u32(&w, nn->n_in);
	put_u32(&w, nn->n_layers);
	put_u32(&w, nn->n_out);
	for (i = 0; i < nn->n_in; i++) {
		const struct mlb_nn_norm *n = &nn->norm[i];

		put(&w, m->feature[i], MLB_MODEL_NAME_LEN);
		put_u32(&w, (u32)n->lo);
		put_u32(&w, (u32)n->hi);
		put_u32(&w, (u32)n->offset);
		put_u32(&w, (u32)n->mult);
		put_u32(&w, (u32)n->shift);
	}
	for (l = 0; l < nn->n_layers; l++) {
		const struct mlb_nn_layer *ly = &nn->layer[l];

		put_u32(&w, ly->n_in);
		put_u32(&w, ly->n_out);
		put_u32(&w, ly->w_frac);
		put_u32(&w, ly->out_frac);
		put_u32(&w, ly->relu);
		/* validated: every value fits s32 */
		for (j = 0; j < ly->n_out; j++)
			put_u32(&w, (u32)(s32)mlb_nn_bias(ly, j));
		for (j = 0; j < ly->n_out; j++)
			for (i = 0; i < ly->n_in; i++)
				put_u32(&w, (u32)(s32)mlb_nn_weight(ly, j, i));
	}
	put_u64(&w, mt->created);
	put_u64(&w, mt->n_train);
	put_u64(&w, mt->n_val);
	put_u64(&w, mt->seed);
	put_u32(&w, mt->epochs);
	put_u32(&w, mt->acc_ppm);
	put_u32(&w, mt->prec_ppm);
	put_u32(&w, mt->rec_ppm);
	put_u32(&w, mt->auc_ppm);
	put_u32(&w, mt->q_acc_ppm);
	put_u32(&w, mt->q_prec_ppm);
	put_u32(&w, mt->q_rec_ppm);
	put_u32(&w, mt->q_auc_ppm);
	put_u32(&w, mt->agree_ppm);
	put_u32(&w, mt->max_err);
	put_u32(&w, 0); /* reserved */
	put(&w, mt->label, MLB_MODEL_NAME_LEN);
	put_u32(&w, mlb_crc32(w.p, w.len));
	if (w.len != w.cap)
		abort(); /* encoded_size() and the writer disagree */
	*buf = w.p;
	*len = w.len;
	return 0;
}

int mlb_model_decode(const void *buf, size_t len, struct mlb_model *out, char *err, size_t errsz)
{
	struct rbuf r = {.p = buf, .len = len};
	struct mlb_model *m;
	struct mlb_nn_model *nn;
	struct mlb_model_meta *mt;
	u32 version, size, frac, crc, i, j, l, in_frac = MLB_NN_IN_FRAC;
	char magic[8];
	int ret = -EINVAL;

	if (len < HDR_SIZE + CRC_SIZE) {
		set_err(err, errsz, "truncated: %zu bytes, a model has at least %d", len,
			HDR_SIZE + CRC_SIZE);
		return -EINVAL;
	}
	get(&r, magic, 8);
	if (memcmp(magic, MLB_MODEL_MAGIC, 8)) {
		set_err(err, errsz, "not an scx_mlb model (bad magic)");
		return -EINVAL;
	}
	version = get_u32(&r);
	if (version != MLB_MODEL_VERSION) {
		set_err(err, errsz, "model format version %u, this build reads version %d", version,
			MLB_MODEL_VERSION);
		return -EINVAL;
	}
	size = get_u32(&r);
	if (size != len) {
		set_err(err, errsz, "%s: header says %u bytes, have %zu",
			size > len ? "truncated" : "trailing data", size, len);
		return -EINVAL;
	}
	crc = (u32)((const u8 *)buf)[len - 4] | (u32)((const u8 *)buf)[len - 3] << 8 |
	      (u32)((const u8 *)buf)[len - 2] << 16 | (u32)((const u8 *)buf)[len - 1] << 24;
	if (crc != mlb_crc32(buf, len - CRC_SIZE)) {
		set_err(err, errsz, "checksum mismatch (file corrupted)");
		return -EINVAL;
	}
	frac = get_u32(&r);
	if (frac != MLB_NN_IN_FRAC) {
		set_err(err, errsz, "inputs with %u fraction bits, this build uses %d", frac,
			MLB_NN_IN_FRAC);
		return -EINVAL;
	}

	m = calloc(1, sizeof(*m));
	if (!m) {
		set_err(err, errsz, "out of memory");
		return -ENOMEM;
	}
	nn = &m->nn;
	mt = &m->meta;
	nn->magic = MLB_NN_MAGIC;
	nn->n_in = get_u32(&r);
	nn->n_layers = get_u32(&r);
	nn->n_out = get_u32(&r);
	if (nn->n_in < 1 || nn->n_in > MLB_NN_MAX_IN || nn->n_layers < 1 ||
	    nn->n_layers > MLB_NN_MAX_LAYERS) {
		set_err(err, errsz, "shape out of range: %u inputs, %u layers", nn->n_in,
			nn->n_layers);
		goto out;
	}
	for (i = 0; i < nn->n_in; i++) {
		struct mlb_nn_norm *n = &nn->norm[i];

		get(&r, m->feature[i], MLB_MODEL_NAME_LEN);
		n->lo = (s32)get_u32(&r);
		n->hi = (s32)get_u32(&r);
		n->offset = (s32)get_u32(&r);
		n->mult = (s32)get_u32(&r);
		n->shift = get_u32(&r);
		n->half = mlb_nn_half((u32)n->shift); /* derived; a bad shift is refused later */
	}
	for (l = 0; l < nn->n_layers && !r.bad; l++) {
		struct mlb_nn_layer *ly = &nn->layer[l];

		ly->n_in = get_u32(&r);
		ly->n_out = get_u32(&r);
		ly->w_frac = get_u32(&r);
		ly->out_frac = get_u32(&r);
		ly->relu = get_u32(&r);
		/* derived; an inconsistent triple wraps and mlb_nn_validate() names it */
		ly->shift = in_frac + ly->w_frac - ly->out_frac;
		in_frac = ly->out_frac;
		if (ly->n_in < 1 || ly->n_in > MLB_NN_WIDTH || ly->n_out < 1 ||
		    ly->n_out > MLB_NN_WIDTH) {
			set_err(err, errsz, "layer %u: shape %u x %u out of range", l, ly->n_out,
				ly->n_in);
			goto out;
		}
		for (j = 0; j < ly->n_out; j++)
			mlb_nn_set_bias(ly, j, (s32)get_u32(&r));
		for (j = 0; j < ly->n_out; j++)
			for (i = 0; i < ly->n_in; i++)
				mlb_nn_set_weight(ly, j, i, (s32)get_u32(&r));
	}
	mt->created = get_u64(&r);
	mt->n_train = get_u64(&r);
	mt->n_val = get_u64(&r);
	mt->seed = get_u64(&r);
	mt->epochs = get_u32(&r);
	mt->acc_ppm = get_u32(&r);
	mt->prec_ppm = get_u32(&r);
	mt->rec_ppm = get_u32(&r);
	mt->auc_ppm = get_u32(&r);
	mt->q_acc_ppm = get_u32(&r);
	mt->q_prec_ppm = get_u32(&r);
	mt->q_rec_ppm = get_u32(&r);
	mt->q_auc_ppm = get_u32(&r);
	mt->agree_ppm = get_u32(&r);
	mt->max_err = get_u32(&r);
	if (get_u32(&r) != 0 && !r.bad) {
		set_err(err, errsz, "reserved field is not zero");
		goto out;
	}
	get(&r, mt->label, MLB_MODEL_NAME_LEN);
	if (r.bad || r.off + CRC_SIZE != len) {
		set_err(err, errsz, "size %zu does not match the shape it declares", len);
		goto out;
	}
	ret = mlb_model_validate(m, err, errsz);
	if (!ret)
		*out = *m;
out:
	free(m);
	return ret;
}

int mlb_model_load(const char *path, struct mlb_model *out, char *err, size_t errsz)
{
	return mlb_model_load_mode(path, 0, out, err, errsz);
}

int mlb_model_load_mode(const char *path, unsigned int refuse_mode, struct mlb_model *out,
			char *err, size_t errsz)
{
	char why[200];
	u8 *buf = NULL;
	size_t len = 0;
	struct stat st;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		set_err(err, errsz, "%s: %s", path, strerror(errno));
		return ret;
	}
	/* checked on the open file: what is read is what was checked */
	if (refuse_mode && (fstat(fd, &st) || (st.st_mode & refuse_mode))) {
		ret = -EPERM;
		set_err(err, errsz,
			"%s: group- or world-writable (mode %03o): refused "
			"(--allow-writable-model to accept)",
			path, (unsigned int)st.st_mode & 0777);
		close(fd);
		return ret;
	}
	buf = malloc(MLB_MODEL_MAX_SIZE + 1);
	if (!buf) {
		ret = -ENOMEM;
		set_err(err, errsz, "%s: out of memory", path);
		goto out;
	}
	/* read one byte more than the limit to tell "too large" from "exactly at the limit" */
	while (len < MLB_MODEL_MAX_SIZE + 1) {
		ssize_t n = read(fd, buf + len, MLB_MODEL_MAX_SIZE + 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			set_err(err, errsz, "%s: %s", path, strerror(errno));
			goto out;
		}
		if (!n)
			break;
		len += n;
	}
	if (len > MLB_MODEL_MAX_SIZE) {
		ret = -EFBIG;
		set_err(err, errsz, "%s: larger than %d bytes, not a model", path,
			MLB_MODEL_MAX_SIZE);
		goto out;
	}
	ret = mlb_model_decode(buf, len, out, why, sizeof(why));
	if (ret)
		set_err(err, errsz, "%s: %s", path, why);
out:
	free(buf);
	close(fd);
	return ret;
}

int mlb_model_save(const char *path, const struct mlb_model *m, char *err, size_t errsz)
{
	char tmp[PATH_MAX], why[200];
	void *buf;
	size_t len, off = 0;
	int fd, ret;

	ret = mlb_model_encode(m, &buf, &len, why, sizeof(why));
	if (ret) {
		set_err(err, errsz, "%s: %s", path, why);
		return ret;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof(tmp)) {
		free(buf);
		set_err(err, errsz, "%s: path too long", path);
		return -ENAMETOOLONG;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		set_err(err, errsz, "%s: %s", tmp, strerror(errno));
		free(buf);
		return ret;
	}
	while (off < len) {
		ssize_t n = write(fd, (u8 *)buf + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			set_err(err, errsz, "%s: %s", tmp, strerror(errno));
			goto fail;
		}
		off += n;
	}
	if (fsync(fd)) {
		ret = -errno;
		set_err(err, errsz, "%s: fsync: %s", tmp, strerror(errno));
		goto fail;
	}
	if (close(fd)) {
		fd = -1;
		ret = -errno;
		set_err(err, errsz, "%s: close: %s", tmp, strerror(errno));
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path)) {
		ret = -errno;
		set_err(err, errsz, "%s: rename: %s", path, strerror(errno));
		goto fail;
	}
	free(buf);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(buf);
	return ret;
}

static void print_ppm(FILE *f, const char *name, u32 ppm)
{
	fprintf(f, " %s=%.4f", name, ppm / (double)MLB_PPM);
}

void mlb_model_dump(FILE *f, const struct mlb_model *m)
{
	const struct mlb_nn_model *nn = &m->nn;
	const struct mlb_model_meta *mt = &m->meta;
	time_t t = (time_t)mt->created;
	char when[64] = "?";
	struct tm tm;
	u32 i, j, l, in_frac;

	if (gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(f, "scx_mlb model, format version %d\n", MLB_MODEL_VERSION);
	fprintf(f, "shape: %u", nn->n_in);
	for (l = 0; l < nn->n_layers; l++)
		fprintf(f, "-%u", nn->layer[l].n_out);
	if (nn->n_out == 2)
		fprintf(f,
			" (ReLU hidden layers, linear outputs: the wait if the task stays, if it "
			"moves, ms; score = their difference, the move's saving)\n");
	else
		fprintf(f, " (ReLU hidden layers, linear output; output 0 = migrate logit)\n");
	fprintf(f,
		"number format: activations |a| <= %d with per-layer fraction bits, inputs "
		"Q4.%d, unit pairs packed in s64 words, score Q15.16\n",
		MLB_NN_ACT_MAX, MLB_NN_IN_FRAC);
	fprintf(f,
		"trained: %s, label '%s', %llu train + %llu validation samples, %u epochs, "
		"seed %llu\n",
		when, mt->label, (unsigned long long)mt->n_train, (unsigned long long)mt->n_val,
		mt->epochs, (unsigned long long)mt->seed);
	if (nn->n_out == 2) /* the wait model's validation is in its training log */
		goto quant;
	fprintf(f, "validation float:");
	print_ppm(f, "accuracy", mt->acc_ppm);
	print_ppm(f, "precision", mt->prec_ppm);
	print_ppm(f, "recall", mt->rec_ppm);
	print_ppm(f, "auc", mt->auc_ppm);
	fprintf(f, "\nvalidation quantized:");
	print_ppm(f, "accuracy", mt->q_acc_ppm);
	print_ppm(f, "precision", mt->q_prec_ppm);
	print_ppm(f, "recall", mt->q_rec_ppm);
	print_ppm(f, "auc", mt->q_auc_ppm);
	fprintf(f, "\n");
quant:
	fprintf(f, "quantization:");
	print_ppm(f, "agreement", mt->agree_ppm);
	fprintf(f, " max_score_error=%.6f\n", mt->max_err / (double)MLB_NN_ONE);
	fprintf(f, "features (x = (clamp(v, lo, hi) - offset) * mult / 2^shift, Q4.%d):\n",
		MLB_NN_IN_FRAC);
	fprintf(f, "  %-3s %-20s %9s %9s %9s %11s %5s %12s\n", "#", "name", "lo", "hi", "offset",
		"mult", "shift", "scale(1/std)");
	for (i = 0; i < nn->n_in; i++) {
		const struct mlb_nn_norm *n = &nn->norm[i];
		double scale = n->mult / (double)((u64)1 << n->shift) / (1 << MLB_NN_IN_FRAC);

		fprintf(f, "  %-3u %-20s %9lld %9lld %9lld %11lld %5llu %12.6g\n", i, m->feature[i],
			(long long)n->lo, (long long)n->hi, (long long)n->offset,
			(long long)n->mult, (unsigned long long)n->shift, scale);
	}
	for (l = 0, in_frac = MLB_NN_IN_FRAC; l < nn->n_layers; l++) {
		const struct mlb_nn_layer *ly = &nn->layer[l];
		double ws = 1.0 / (double)((u64)1 << ly->w_frac);
		double bs = ws / (double)((u64)1 << in_frac);

		fprintf(f, "layer %u: %u -> %u, %s, weights x 2^-%u, outputs x 2^-%u, shift %u\n",
			l, ly->n_in, ly->n_out, ly->relu ? "relu" : "linear", ly->w_frac,
			ly->out_frac, ly->shift);
		for (j = 0; j < ly->n_out; j++) {
			fprintf(f, "  [%2u] b=%9.5f w=", j, mlb_nn_bias(ly, j) * bs);
			for (i = 0; i < ly->n_in; i++)
				fprintf(f, "%s%.4f", i ? " " : "", mlb_nn_weight(ly, j, i) * ws);
			fprintf(f, "\n");
		}
		in_frac = ly->out_frac;
	}
}

s32 mlb_model_score(const struct mlb_model *m, const s32 *x)
{
	struct mlb_nn_scratch s;

	/* a valid model always runs: the forward pass only fails on shapes validate refuses */
	if (mlb_nn_forward(&m->nn, x, MLB_NR_FEATURES, &s))
		abort();
	return mlb_nn_saving(&s, m->nn.n_out);
}
