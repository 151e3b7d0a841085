# scx_mlb machine learning: the mlb-model tool, its host tests, the BPF build of the fixed-point
# inference (tests/bpf/nn_test.bpf.c, run through BPF_PROG_TEST_RUN), the fuzzers of the model
# loader and of the dataset CSV reader and `make bench-nn`. Included by the top-level Makefile.

ML_SRCS := src/ml/model.c src/ml/mlp.c src/ml/quant.c src/ml/data.c src/ml/metrics.c \
	src/ml/train.c src/ml/ope.c
ML_HDRS := $(wildcard src/ml/*.h) $(wildcard include/mlb/*.h)
ML_TESTS := $(addprefix $(B)/tests/unit/,gradcheck train-known quant-agreement model-reject \
	nn-bpf-exact)

all: $(B)/mlb-model $(ML_TESTS) $(B)/ml/fuzz-model $(B)/ml/fuzz-csv

# Training is the hot path of the tool: -O3 lets gcc vectorise the dot products.
$(B)/mlb-model: src/ml/mlb_model.c $(ML_SRCS) $(ML_HDRS) $(B)/mlb-version.h
	$(CC) $(CFLAGS) -O3 -o $@ src/ml/mlb_model.c $(ML_SRCS) -lm

# The inference built for BPF exactly as the scheduler builds it, and its skeleton.
$(B)/ml/nn_test.bpf.o: tests/bpf/nn_test.bpf.c tests/bpf/nn_test.h $(wildcard include/mlb/*.h) $(VMLINUX_H)
	@mkdir -p $(dir $@)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(B)/ml/nn_test.skel.h: $(B)/ml/nn_test.bpf.o
	$(BPFTOOL) gen skeleton $< name nn_test > $@.tmp && mv $@.tmp $@

# Host unit tests (the pattern rule of tests/unit/unit.mk builds them with sanitizers).
gradcheck_SRCS := src/ml/mlp.c
train-known_SRCS := src/ml/mlp.c src/ml/metrics.c
quant-agreement_SRCS := $(ML_SRCS)
model-reject_SRCS := src/ml/model.c
nn-bpf-exact_SRCS := src/ml/model.c
nn-bpf-exact_LDLIBS := $(LDLIBS_BPF)
$(B)/tests/unit/gradcheck: $(gradcheck_SRCS)
$(B)/tests/unit/train-known: $(train-known_SRCS)
$(B)/tests/unit/quant-agreement: $(quant-agreement_SRCS)
$(B)/tests/unit/model-reject: $(model-reject_SRCS) tests/fuzz/model_bytes.h
$(B)/tests/unit/nn-bpf-exact: $(nn-bpf-exact_SRCS) $(B)/ml/nn_test.skel.h

# libFuzzer targets, built with ASan and UBSan; tests/unit/fuzz-model.sh and fuzz-csv.sh run
# them on their corpora.
FUZZ_CFLAGS := -g -O1 -Wall -Wextra -Werror -Iinclude -Isrc -D_GNU_SOURCE \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all

# The model loader.
$(B)/ml/fuzz-model: tests/fuzz/fuzz_model.c src/ml/model.c $(ML_HDRS)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_model.c src/ml/model.c

# The dataset CSV reader.
$(B)/ml/fuzz-csv: tests/fuzz/fuzz_csv.c src/ml/data.c $(ML_HDRS)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_csv.c src/ml/data.c -lm

# The model-loader fuzzer's seed corpus, regenerated when the model format changes: three small
# trained models (valid-*.mlb: two wait models, two outputs, and a label's, one) and the first
# one damaged in each way the loader refuses (bad-*.mlb).
$(B)/ml/make-corpus: tests/fuzz/make_corpus.c tests/fuzz/model_bytes.h src/ml/model.c $(ML_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Isrc -o $@ tests/fuzz/make_corpus.c src/ml/model.c

fuzz-corpus: $(B)/ml/make-corpus $(B)/mlb-model
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	$(B)/mlb-model synth --seed=7 3000 $$tmp/d.csv >/dev/null && \
	$(B)/mlb-model train -H 4 -e 5 -o $$tmp/a.mlb $$tmp/d.csv >/dev/null && \
	$(B)/mlb-model train -L label -H 3,2 -e 5 -o $$tmp/b.mlb $$tmp/d.csv >/dev/null && \
	$(B)/mlb-model train -H none -e 5 -o $$tmp/c.mlb $$tmp/d.csv >/dev/null && \
	rm -f tests/fuzz/model-corpus/*.mlb && \
	$(B)/ml/make-corpus tests/fuzz/model-corpus $$tmp/a.mlb $$tmp/b.mlb $$tmp/c.mlb && \
	ls tests/fuzz/model-corpus

# Benchmark of the fixed-point network (not a test): key=value lines on stdout.
$(B)/ml/bench-nn: bench/nn/bench_nn.c $(ML_SRCS) $(ML_HDRS) $(B)/ml/nn_test.skel.h
	$(CC) $(CFLAGS) -O3 -Isrc -o $@ bench/nn/bench_nn.c $(ML_SRCS) $(LDLIBS_BPF) -lm

bench-nn: $(B)/ml/bench-nn
	@$(B)/ml/bench-nn
