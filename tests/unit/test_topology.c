// SPDX-License-Identifier: GPL-2.0
/*
 * unit/topology: domain discovery from fake sysfs trees (2 nodes x 2 LLCs with an offline
 * CPU and a gap in the ids; no NUMA or cache information; malformed lists), and the CPU
 * list parser/formatter.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mlb.h"
#include "check.h"

static char root[256];

static void put(const char *text, const char *fmt, ...)
{
	char path[512], cmd[600];
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert(system(cmd) == 0);
	f = fopen(path, "w");
	assert(f);
	fputs(text, f);
	fclose(f);
}

static void cache(int cpu, int idx, int level, const char *shared)
{
	char lv[8];

	snprintf(lv, sizeof(lv), "%d\n", level);
	put(lv, "%s/devices/system/cpu/cpu%d/cache/index%d/level", root, cpu, idx);
	put(shared, "%s/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list", root, cpu, idx);
}

static void test_cpulist(void)
{
	u64 m[MLB_CPUMASK_WORDS];
	char buf[256];

	CHECK(mlb_parse_cpulist("0-3,8,10-11\n", m, MLB_CPUMASK_WORDS) == 7);
	CHECK(!strcmp(mlb_format_cpulist(m, MLB_CPUMASK_WORDS, buf, sizeof(buf)), "0-3,8,10-11"));
	CHECK(mlb_parse_cpulist("511", m, MLB_CPUMASK_WORDS) == 1);
	CHECK(mlb_parse_cpulist("512", m, MLB_CPUMASK_WORDS) == -1);
	CHECK(mlb_parse_cpulist("3-1", m, MLB_CPUMASK_WORDS) == -1);
	CHECK(mlb_parse_cpulist("1,,2", m, MLB_CPUMASK_WORDS) == -1);
	CHECK(mlb_parse_cpulist("a", m, MLB_CPUMASK_WORDS) == -1);
	CHECK(mlb_parse_cpulist("1-", m, MLB_CPUMASK_WORDS) == -1);
	CHECK(mlb_parse_cpulist("0-1 x", m, MLB_CPUMASK_WORDS) == -1);
	CHECK(mlb_parse_cpulist("", m, MLB_CPUMASK_WORDS) == 0);
}

/* 2 nodes x 2 LLCs over CPUs 0-8 with CPU 5 offline and CPU 9 absent (possible 0-8, 10). */
static void test_numa(void)
{
	struct mlb_topo t;
	char err[256], buf[128];

	snprintf(root, sizeof(root), "/tmp/mlb-topo-%d/a", getpid());
	put("0-8,10\n", "%s/devices/system/cpu/possible", root);
	put("0-4,6-8,10\n", "%s/devices/system/cpu/online", root);
	put("0-3\n", "%s/devices/system/node/node0/cpulist", root);
	put("4-8,10\n", "%s/devices/system/node/node1/cpulist", root);
	put("10 21\n", "%s/devices/system/node/node0/distance", root);
	put("21 10\n", "%s/devices/system/node/node1/distance", root);
	const char *l3[] = {"0-1",    "0-1",	"2-3",	  "2-3", "4-5",	  "4-5",
			    "6-8,10", "6-8,10", "6-8,10", "",	 "6-8,10"};
	for (int c = 0; c <= 10; c++) {
		if (c == 9)
			continue;
		cache(c, 0, 1, "0\n"); /* an L1 shared by nobody: must not win */
		cache(c, 3, 3, l3[c]);
	}
	/* SMT pairs 6-7 and 8,10; the other CPUs say nothing (a core of their own) */
	put("6-7\n", "%s/devices/system/cpu/cpu6/topology/thread_siblings_list", root);
	put("6-7\n", "%s/devices/system/cpu/cpu7/topology/thread_siblings_list", root);
	put("8,10\n", "%s/devices/system/cpu/cpu8/topology/thread_siblings_list", root);
	put("8,10\n", "%s/devices/system/cpu/cpu10/topology/thread_siblings_list", root);
	put("512\n", "%s/devices/system/cpu/cpu0/cpu_capacity", root);
	put("1024\n", "%s/devices/system/cpu/cpu1/cpu_capacity", root);

	CHECK(mlb_topo_read(root, &t, err, sizeof(err)) == 0);
	CHECK(t.nr_cpu_ids == 11);
	CHECK(t.nr_online == 9);
	CHECK(t.nr_doms == 4);
	CHECK(t.nr_nodes == 2);
	CHECK(t.cpu_dom[0] == 0 && t.cpu_dom[1] == 0 && t.cpu_dom[2] == 1 && t.cpu_dom[3] == 1);
	CHECK(t.cpu_dom[4] == 2 && t.cpu_dom[5] == -1 && t.cpu_dom[9] == -1);
	CHECK(t.cpu_dom[6] == 3 && t.cpu_dom[10] == 3);
	CHECK(t.dom_node[0] == 0 && t.dom_node[1] == 0 && t.dom_node[2] == 1 && t.dom_node[3] == 1);
	CHECK(t.dom_nr_cpus[2] == 1 && t.dom_nr_cpus[3] == 4);
	CHECK(!strcmp(mlb_format_cpulist(t.dom_cpus[3], MLB_CPUMASK_WORDS, buf, sizeof(buf)),
		      "6-8,10"));
	CHECK(t.node_dist[0][1] == 21 && t.node_dist[1][1] == 10);
	CHECK(t.dom_capacity[0] == 768 && t.dom_capacity[1] == 1024);
	CHECK(t.cpu_capacity_scaled[0] == 512 && t.cpu_capacity_scaled[1] == 1024);
	/* cores: the lowest sibling */
	CHECK(t.cpu_core[6] == 6 && t.cpu_core[7] == 6 && t.cpu_core[8] == 8 &&
	      t.cpu_core[10] == 8);
	CHECK(t.cpu_core[0] == 0 && t.cpu_core[1] == 1 && t.cpu_core[4] == 4);
	/* each domain's CPU list, ascending, holds exactly its CPUs */
	for (u32 d = 0; d < t.nr_doms; d++) {
		u32 n = 0, prev = 0;

		for (u32 c = t.dom_first_cpu[d]; c != (u32)-1; c = t.cpu_next_in_dom[c]) {
			CHECK(c < MLB_MAX_CPUS && t.cpu_dom[c] == (s32)d);
			CHECK(!n || c > prev);
			prev = c;
			if (++n > MLB_MAX_CPUS)
				break;
		}
		CHECK(n == t.dom_nr_cpus[d]);
	}
	CHECK(t.dom_first_cpu[3] == 6 && t.cpu_next_in_dom[8] == 10 &&
	      t.cpu_next_in_dom[10] == (u32)-1);
}

/* No node directory, no cache information: one domain of all online CPUs. */
static void test_flat(void)
{
	struct mlb_topo t;
	char err[256];

	snprintf(root, sizeof(root), "/tmp/mlb-topo-%d/b", getpid());
	put("0-3\n", "%s/devices/system/cpu/possible", root);
	put("0-3\n", "%s/devices/system/cpu/online", root);
	CHECK(mlb_topo_read(root, &t, err, sizeof(err)) == 0);
	CHECK(t.nr_doms == 1 && t.nr_nodes == 1 && t.dom_nr_cpus[0] == 4);
	CHECK(t.node_dist[0][0] == 10);
}

/* Malformed or missing input: an error with a reason. */
static void test_bad(void)
{
	struct mlb_topo t;
	char err[256] = "";

	snprintf(root, sizeof(root), "/tmp/mlb-topo-%d/c", getpid());
	CHECK(mlb_topo_read(root, &t, err, sizeof(err)) == -1 && strstr(err, "possible"));
	put("0-3\n", "%s/devices/system/cpu/possible", root);
	put("0-x\n", "%s/devices/system/cpu/online", root);
	CHECK(mlb_topo_read(root, &t, err, sizeof(err)) == -1 && strstr(err, "online"));
	put("0-3\n", "%s/devices/system/cpu/online", root);
	put("0-3\n", "%s/devices/system/node/node99/cpulist", root);
	CHECK(mlb_topo_read(root, &t, err, sizeof(err)) == -1 && strstr(err, "NUMA"));
}

/* 65 LLCs: more domains than the scheduler handles. */
static void test_too_many_doms(void)
{
	struct mlb_topo t;
	char err[256] = "", list[16];

	snprintf(root, sizeof(root), "/tmp/mlb-topo-%d/d", getpid());
	put("0-64\n", "%s/devices/system/cpu/possible", root);
	put("0-64\n", "%s/devices/system/cpu/online", root);
	for (int c = 0; c <= 64; c++) {
		snprintf(list, sizeof(list), "%d\n", c);
		cache(c, 3, 3, list);
	}
	CHECK(mlb_topo_read(root, &t, err, sizeof(err)) == -1 && strstr(err, "domains"));
}

int main(void)
{
	char cmd[128];

	test_cpulist();
	test_numa();
	test_flat();
	test_bad();
	test_too_many_doms();
	snprintf(cmd, sizeof(cmd), "rm -rf /tmp/mlb-topo-%d", getpid());
	if (system(cmd))
		fprintf(stderr, "cleanup failed\n");
	if (failures)
		fprintf(stderr, "%d checks failed\n", failures);
	return failures ? 1 : 0;
}
