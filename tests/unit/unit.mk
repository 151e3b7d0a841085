# Host unit tests. Each tests/unit/test_NAME.c builds to $(B)/tests/unit/NAME, linked with the
# user-space sources it names in NAME_SRCS (add them below), under ASan and UBSan.
# tests/run.sh runs every executable in $(B)/tests/unit and every tests/unit/*.sh.
UNIT_C := $(wildcard tests/unit/test_*.c)
UNIT_TESTS += $(patsubst tests/unit/test_%.c,$(B)/tests/unit/%,$(UNIT_C))

topology_SRCS := src/topology.c

# The sources a test links (NAME_SRCS) are prerequisites too: editing src/topology.c rebuilds
# unit/topology instead of running the stale binary.
.SECONDEXPANSION:
$(B)/tests/unit/%: tests/unit/test_%.c $$($$*_SRCS) $(wildcard tests/unit/*.h) $(wildcard include/mlb/*.h) $(wildcard src/*.h) $(wildcard src/ml/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) -Isrc -o $@ $< $($*_SRCS) $($*_LDLIBS) -lm
