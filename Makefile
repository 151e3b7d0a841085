# scx_mlb build. Everything generated goes to $(B) (build/).
#
#   make            build the scheduler, the model tool and the host tests
#   make run        run scx_mlb (here on a sched_ext host, else in the test guest with a demo)
#   make test       install what is missing, build, run every test (unit + guest)
#   make bench      EEVDF vs scx_mlb: build, hackbench, latency, imbalance (QUICK=1, HOST=1, REPS=N)
#   make bench-kernel  the reference's benchmark: part of a Linux tree built (REPS=N, HOST=1: defconfig)
#   make bench-nn   benchmark the fixed-point network (key=value lines)
#   make bench-trace where a build's migrations come from, EEVDF vs scx_mlb (QUICK=1, MLB_ARGS)
#   make soak       MINUTES=N of adaptive mode under a rotating workload (a report)
#   make format     clang-format the C sources

B := build
CC := gcc
CLANG ?= clang-19
BPFTOOL ?= bpftool
ARCH := x86

CFLAGS_COMMON := -O2 -g -Wall -Wextra -Wno-missing-field-initializers -Werror -Iinclude -I$(B) -D_GNU_SOURCE
CFLAGS := $(CFLAGS_COMMON) -std=gnu11
LDLIBS_BPF := $(shell pkg-config --libs libbpf 2>/dev/null || echo -lbpf -lelf -lz)
# Host unit tests run with sanitizers.
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -mcpu=v3 -Wall -Werror \
	-Wno-missing-declarations -Iinclude -I$(B) -Isrc/bpf

DEPS_STAMP := /var/lib/scx_mlb-deps.v1
KERNEL_DIR := $(B)/kernel

.PHONY: FORCE all deps kernel run test test-unit test-vm bench bench-kernel bench-nn bench-trace fuzz-corpus soak format clean docs
all: $(B)/scx_mlb $(B)/bench-work $(B)/mlb-docs $(B)/man/scx_mlb.8 $(B)/man/mlb-model.1

deps: $(DEPS_STAMP)
$(DEPS_STAMP): scripts/install-deps.sh
	bash scripts/install-deps.sh

kernel: $(KERNEL_DIR)/version
$(KERNEL_DIR)/version: tests/vm/fetch-kernel.sh | $(DEPS_STAMP)
	bash tests/vm/fetch-kernel.sh $(KERNEL_DIR)

# Kernel types for BPF: the running kernel's BTF on a sched_ext host, else the test kernel's.
VMLINUX_BTF ?= $(if $(wildcard /sys/kernel/sched_ext),/sys/kernel/btf/vmlinux,$(KERNEL_DIR)/vmlinux)
$(B)/vmlinux.h: | $(DEPS_STAMP)
	@mkdir -p $(B)
	@if [ "$(VMLINUX_BTF)" = "$(KERNEL_DIR)/vmlinux" ]; then $(MAKE) --no-print-directory kernel; fi
	$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@.tmp && mv $@.tmp $@

BPF_HDRS := $(wildcard src/bpf/*.h) $(wildcard include/mlb/*.h)
$(B)/scx_mlb.bpf.o: src/bpf/scx_mlb.bpf.c $(BPF_HDRS) $(B)/vmlinux.h $(B)/mlb-version.h | $(DEPS_STAMP)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# bpftool 7.5 emits a struct_ops auto-attach field (.link) that libbpf 1.4's skeleton struct
# lacks; the loader attaches explicitly, so the line is dropped.
$(B)/scx_mlb.skel.h: $(B)/scx_mlb.bpf.o
	$(BPFTOOL) gen skeleton $< name scx_mlb | sed '/^\tmap->link = /d' > $@.tmp && mv $@.tmp $@

# The git revision that --version prints and the ops name carries, rewritten only when it
# changes (a clean checkout: g<hash>; local changes: g<hash>_dirty). Where git cannot tell (a
# tarball) or the tree is read-only (the test guest runs `make install` on the built tree),
# the header that exists is kept.
$(B)/mlb-version.h: FORCE
	@mkdir -p $(B); \
	if g=$$(git -C $(CURDIR) describe --always --dirty=_dirty --abbrev=7 --match=NONE 2>/dev/null); \
	then g=g$$g; elif [ -f $@ ]; then exit 0; else g=unknown; fi; \
	line="#define MLB_GIT \"$$g\""; \
	if [ -f $@ ] && { [ "$$(cat $@)" = "$$line" ] || [ ! -w $(B) ]; }; then exit 0; fi; \
	echo "$$line" >$@.tmp && mv $@.tmp $@
FORCE:

MLB_SRCS := src/scx_mlb.c src/topology.c src/stats.c src/collect.c src/learn.c \
	src/ml/data.c src/ml/model.c src/ml/mlp.c src/ml/quant.c src/ml/metrics.c src/ml/train.c \
	src/ml/ope.c
$(B)/scx_mlb: $(MLB_SRCS) $(wildcard src/*.h) $(wildcard include/mlb/*.h) $(B)/scx_mlb.skel.h \
		$(B)/mlb-version.h
	$(CC) $(CFLAGS) -Isrc -o $@ $(MLB_SRCS) $(LDLIBS_BPF) -lm -lpthread

# Host unit tests: tests/unit/test_NAME.c -> $(B)/tests/unit/NAME (with sanitizers).
UNIT_TESTS :=
include tests/unit/unit.mk
include tests/unit/collect.mk
-include src/ml/ml.mk

# tests/run.sh runs a unit test only if it is built: build them all.
all: $(UNIT_TESTS)

# The make targets run the tests strictly: a skipped test (exit 77: no kernel, no QEMU, no BPF
# privileges) fails unless MLB_ALLOW_SKIP names it (docs/testing.md).
test-unit: $(UNIT_TESTS) | $(DEPS_STAMP)
	MLB_TEST_STRICT=1 bash tests/run.sh unit

test-vm: all $(UNIT_TESTS) | $(DEPS_STAMP)
	@$(MAKE) --no-print-directory kernel
	MLB_TEST_STRICT=1 bash tests/run.sh vm

test: | $(DEPS_STAMP)
	@$(MAKE) --no-print-directory all $(UNIT_TESTS) kernel
	MLB_TEST_STRICT=1 bash tests/run.sh

run: | $(DEPS_STAMP)
	@$(MAKE) --no-print-directory all
	bash scripts/run.sh

# A long adaptive run under a rotating workload (not a test): MINUTES=N, default 30.
# The README's feature, stats and options tables, printed from the tables that generate the
# code; the man page from the options table (man -l build/man/scx_mlb.8).
$(B)/mlb-docs: tools/mlb-docs.c include/mlb/intf.h include/mlb/options.h
	@mkdir -p $(B)
	$(CC) $(CFLAGS) -o $@ $<

$(B)/man/scx_mlb.8: $(B)/mlb-docs
	@mkdir -p $(dir $@)
	$(B)/mlb-docs man >$@.tmp && mv $@.tmp $@

# mlb-model's page from its --help, the one place its commands and options are written down.
$(B)/man/mlb-model.1: $(B)/mlb-model dist/mlb-model.h2m
	@mkdir -p $(dir $@)
	help2man --no-info --section=1 --include=dist/mlb-model.h2m \
		--name="train, inspect and evaluate scx_mlb models" \
		--version-string="mlb-model $$(sed -n 's/^#define MLB_VERSION "\(.*\)"$$/\1/p' include/mlb/intf.h)" \
		--output=$@.tmp $(B)/mlb-model && mv $@.tmp $@

docs: $(B)/mlb-docs
	@for t in features stats work options; do \
		$(B)/mlb-docs $$t >$(B)/docs-$$t.md && \
		awk -v b="<!-- $$t:begin -->" -v e="<!-- $$t:end -->" -v f=$(B)/docs-$$t.md \
			'$$0 == e { skip = 0 } !skip { print } $$0 == b { while ((getline l < f) > 0) print l; skip = 1 }' \
			README.md >README.md.tmp && mv README.md.tmp README.md || exit 1; \
	done

# The imbalanced-load workload of make bench: a fixed amount of CPU work.
$(B)/bench-work: bench/work.c
	@mkdir -p $(B)
	$(CC) $(CFLAGS) -o $@ $<

# EEVDF vs scx_mlb (heuristic, learned, adaptive) in the test guest (HOST=1: on this sched_ext
# machine); QUICK=1, REPS=N; SCHEDS="eevdf heuristic" runs a subset,
# MLB_ARGS="--move-cost-llc-us 200" tunes scx_mlb.
bench: | $(DEPS_STAMP)
	QUICK=$(QUICK) HOST=$(HOST) REPS=$(REPS) BENCH_SCHEDS="$(SCHEDS)" BENCH_MLB_ARGS="$(MLB_ARGS)" \
		bash bench/bench.sh

# The reference's own benchmark, a Linux kernel build (Debian's linux source package): EEVDF,
# the heuristic and the learned model, in the test guest (part of the tree: bench/kbuild.sh) or
# with HOST=1 here (a full defconfig build); REPS=N, SCHEDS, MLB_ARGS as for make bench.
bench-kernel: | $(DEPS_STAMP)
	QUICK=$(QUICK) HOST=$(HOST) REPS=$(REPS) BENCH_SCHEDS="$(SCHEDS)" BENCH_MLB_ARGS="$(MLB_ARGS)" \
		bash bench/bench.sh kernel

# One traced build under EEVDF and one under scx_mlb, in the test guest: a diagnosis.
bench-trace: | $(DEPS_STAMP)
	@$(MAKE) --no-print-directory all
	QUICK=$(QUICK) MLB_ARGS="$(MLB_ARGS)" bash bench/trace.sh

soak: | $(DEPS_STAMP)
	@$(MAKE) --no-print-directory all
	MINUTES=$(MINUTES) bash scripts/soak.sh

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(B)/*.o $(B)/*.skel.h $(B)/scx_mlb $(B)/mlb-model $(B)/bench-work $(B)/tests $(B)/ml \
		$(B)/mlb-docs $(B)/man

# Install: the programs, the man page, the service and its defaults, the state directory
# (0750: datasets and models are the machine's scheduling history). DESTDIR for packaging.
# uninstall keeps the state directory and /etc/default/scx_mlb (the user's data and settings).
PREFIX ?= /usr/local
SBINDIR := $(PREFIX)/sbin
BINDIR := $(PREFIX)/bin
MANDIR := $(PREFIX)/share/man
SYSCONFDIR ?= /etc
UNITDIR ?= /lib/systemd/system
STATEDIR ?= /var/lib/scx_mlb
.PHONY: install uninstall
install: $(B)/scx_mlb $(B)/mlb-model $(B)/man/scx_mlb.8 $(B)/man/mlb-model.1
	install -D -m 0755 $(B)/scx_mlb $(DESTDIR)$(SBINDIR)/scx_mlb
	install -D -m 0755 $(B)/mlb-model $(DESTDIR)$(BINDIR)/mlb-model
	install -D -m 0644 $(B)/man/scx_mlb.8 $(DESTDIR)$(MANDIR)/man8/scx_mlb.8
	install -D -m 0644 $(B)/man/mlb-model.1 $(DESTDIR)$(MANDIR)/man1/mlb-model.1
	install -d -m 0755 $(DESTDIR)$(UNITDIR)
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		dist/scx_mlb.service.in >$(DESTDIR)$(UNITDIR)/scx_mlb.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/scx_mlb.service
	[ -e $(DESTDIR)$(SYSCONFDIR)/default/scx_mlb ] || \
		install -D -m 0644 dist/scx_mlb.default $(DESTDIR)$(SYSCONFDIR)/default/scx_mlb
	install -d -m 0750 $(DESTDIR)$(STATEDIR)
uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/scx_mlb $(DESTDIR)$(BINDIR)/mlb-model \
		$(DESTDIR)$(MANDIR)/man8/scx_mlb.8 $(DESTDIR)$(MANDIR)/man1/mlb-model.1 \
		$(DESTDIR)$(UNITDIR)/scx_mlb.service
