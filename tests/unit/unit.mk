# Host unit tests. Each tests/unit/test_NAME.c builds to $(B)/tests/unit/NAME, linked with the
# user-space sources it names in NAME_SRCS (add them below), under ASan and UBSan.
# tests/run.sh runs every executable in $(B)/tests/unit and every tests/unit/*.sh.
UNIT_C := $(wildcard tests/unit/test_*.c)
UNIT_TESTS += $(patsubst tests/unit/test_%.c,$(B)/tests/unit/%,$(UNIT_C))

topology_SRCS := src/topology.c
statsd_SRCS := src/statsd.c src/json.c src/stats.c
statsd_LDLIBS := $(LDLIBS_BPF) -lpthread

# The sources a test links (NAME_SRCS) are prerequisites too: editing src/topology.c rebuilds
# unit/topology instead of running the stale binary.
.SECONDEXPANSION:
$(B)/tests/unit/%: tests/unit/test_%.c $$($$*_SRCS) $(wildcard tests/unit/*.h) $(wildcard include/mlb/*.h) $(wildcard src/*.h) $(wildcard src/ml/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) -Isrc -o $@ $< $($*_SRCS) $($*_LDLIBS) -lm

# unit/model-seq: the scheduler's mlb_model_run() (src/bpf/model.bpf.h) in the BPF program
# tests/bpf/model_seq.bpf.c, built exactly as the scheduler is built, and its skeleton; the
# test runs it through BPF_PROG_TEST_RUN.
$(B)/tests/bpf/model_seq.bpf.o: tests/bpf/model_seq.bpf.c $(BPF_HDRS) $(VMLINUX_H)
	@mkdir -p $(dir $@)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(B)/tests/bpf/model_seq.skel.h: $(B)/tests/bpf/model_seq.bpf.o
	$(BPFTOOL) gen skeleton $< name model_seq > $@.tmp && mv $@.tmp $@

model-seq_SRCS := src/ml/model.c
model-seq_LDLIBS := $(LDLIBS_BPF)
$(B)/tests/unit/model-seq: $(model-seq_SRCS) $(B)/tests/bpf/model_seq.skel.h

# The stats socket's request handling: a libFuzzer target (FUZZ_CFLAGS, src/ml/ml.mk) and the
# tool that checks its corpus; tests/unit/fuzz-statsd.sh runs both.
STATSD_SRCS := src/statsd.c src/json.c src/stats.c
$(B)/tests/fuzz-statsd: tests/fuzz/fuzz_statsd.c $(STATSD_SRCS) src/statsd.h src/json.h src/mlb.h
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_statsd.c $(STATSD_SRCS) $(LDLIBS_BPF) -lpthread

$(B)/tests/statsd-check: tests/fuzz/statsd_check.c $(STATSD_SRCS) src/statsd.h src/json.h src/mlb.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) -Isrc -o $@ tests/fuzz/statsd_check.c $(STATSD_SRCS) $(LDLIBS_BPF) -lpthread

all: $(B)/tests/fuzz-statsd $(B)/tests/statsd-check
