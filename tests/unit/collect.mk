# The collector (src/collect.c): its host tests, built by the pattern rule of tests/unit/unit.mk
# with sanitizers. Included by the top-level Makefile.
COLLECT_SRCS := src/collect.c src/ml/data.c
outcome-label_SRCS := $(COLLECT_SRCS)
collect_SRCS := $(COLLECT_SRCS)
$(B)/tests/unit/outcome-label: $(outcome-label_SRCS)
$(B)/tests/unit/collect: $(collect_SRCS)

all: $(B)/tests/unit/outcome-label $(B)/tests/unit/collect

# The learner (src/learn.c): deployment into a real BPF map on the host, rollback, gates.
learn_SRCS := src/learn.c src/ml/model.c src/ml/mlp.c src/ml/quant.c src/ml/data.c \
	src/ml/metrics.c src/ml/train.c src/ml/ope.c
learn_LDLIBS := $(LDLIBS_BPF) -lpthread
$(B)/tests/unit/learn: $(learn_SRCS)
all: $(B)/tests/unit/learn
