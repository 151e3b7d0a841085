// SPDX-License-Identifier: GPL-2.0
/*
 * unit/topology: domain discovery from fake sysfs trees (2 nodes x 2 LLCs with an offline
 * CPU and a gap in the ids; no NUMA or cache information; malformed lists; the limits
 * exactly, MLB_MAX_CPUS CPUs in MLB_MAX_DOMS LLCs on 8 and on MLB_MAX_NODES nodes, and one
 * over each), the CPU list parser/formatter, and placement by capacity
 * (include/mlb/place.h) on big/little trees: an Arm big.LITTLE, a hybrid P/E-core machine
 * with SMT on its big cores, and symmetric ones where it must not change anything.
 */
#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mlb.h"
#include "mlb/place.h"
#include "check.h"

static char root[256];

/* Write @text to the file named by @fmt, making its directories when they are missing
 * (mkdir -p without a shell: the trees at the limits have thousands of files). */
static void put(const char *text, const char *fmt, ...)
{
	char path[512];
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	f = fopen(path, "w");
	for (char *s = strchr(path + 1, '/'); !f && s; s = strchr(s + 1, '/')) {
		int r;

		*s = '\0';
		r = mkdir(path, 0755);
		assert(!r || errno == EEXIST);
		*s = '/';
	}
	if (!f)
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

/*
 * The limits exactly: MLB_MAX_CPUS CPUs, MLB_MAX_DOMS LLCs of 4 cores with 2 SMT threads
 * each, the siblings numbered n and n + 256 as x86 does, on @nodes nodes. Core k (CPUs k
 * and k + 256) is in LLC k / 4, LLCs in order over the nodes; with @spread the cores are
 * dealt out round-robin instead, core k on node k % nodes and in LLC k % 64, as two-socket
 * machines that alternate sockets number them: consecutive CPUs are then in different
 * domains and nodes, so the test checks the mapping, not the counting.
 */
struct layout {
	int nodes;
	bool spread;
};

#define NR_CORES (MLB_MAX_CPUS / 2)
MLB_ASSERT(MLB_MAX_CPUS == 512 && MLB_MAX_DOMS == 64 && MLB_MAX_NODES == 16,
	   "the layouts below and the values they spell out");

/* Domains are numbered in the order of their lowest CPU, which here is the LLC number. */
static int lay_dom(const struct layout *l, int cpu)
{
	int core = cpu % NR_CORES;

	return l->spread ? core % MLB_MAX_DOMS : core / 4;
}

static int lay_dom_node(const struct layout *l, int dom)
{
	return l->spread ? dom % l->nodes : dom / (MLB_MAX_DOMS / l->nodes);
}

static int lay_dist(int i, int j)
{
	return i == j ? 10 : 20 + 2 * abs(i - j);
}

/* The CPUs of domain @dom, or with @dom < 0 of node @node. */
static void lay_mask(const struct layout *l, int dom, int node, u64 *m)
{
	memset(m, 0, MLB_CPUMASK_WORDS * sizeof(*m));
	for (int c = 0; c < MLB_MAX_CPUS; c++)
		if (dom >= 0 ? lay_dom(l, c) == dom : lay_dom_node(l, lay_dom(l, c)) == node)
			m[c / 64] |= 1ULL << (c % 64);
}

static const char *lay_list(const struct layout *l, int dom, int node, char *buf, size_t len)
{
	u64 m[MLB_CPUMASK_WORDS];

	lay_mask(l, dom, node, m);
	mlb_format_cpulist(m, MLB_CPUMASK_WORDS, buf, len - 1);
	strcat(buf, "\n");
	return buf;
}

static void put_node(const struct layout *l, int node)
{
	char list[2048];

	put(lay_list(l, -1, node, list, sizeof(list)), "%s/devices/system/node/node%d/cpulist",
	    root, node);
}

static void put_llc(const struct layout *l, int cpu)
{
	char list[2048];

	put(lay_list(l, lay_dom(l, cpu), -1, list, sizeof(list)),
	    "%s/devices/system/cpu/cpu%d/cache/index3/shared_cpu_list", root, cpu);
}

static void put_cpus(int nr)
{
	char list[32];

	snprintf(list, sizeof(list), "0-%d\n", nr - 1);
	put(list, "%s/devices/system/cpu/possible", root);
	put(list, "%s/devices/system/cpu/online", root);
}

static void build_max(const struct layout *l)
{
	char buf[256];

	put_cpus(MLB_MAX_CPUS);
	for (int n = 0; n < l->nodes; n++) {
		int off = 0;

		put_node(l, n);
		for (int j = 0; j < l->nodes; j++)
			off += snprintf(buf + off, sizeof(buf) - off, "%s%d", j ? " " : "",
					lay_dist(n, j));
		strcat(buf, "\n");
		put(buf, "%s/devices/system/node/node%d/distance", root, n);
	}
	for (int c = 0; c < MLB_MAX_CPUS; c++) {
		int core = c % NR_CORES;

		snprintf(buf, sizeof(buf), "%d,%d\n", core, core + NR_CORES);
		cache(c, 0, 1, buf); /* L1 per core: the L3 must win */
		put("3\n", "%s/devices/system/cpu/cpu%d/cache/index3/level", root, c);
		put_llc(l, c);
		put(buf, "%s/devices/system/cpu/cpu%d/topology/thread_siblings_list", root, c);
	}
}

/* Every CPU's domain, core and place in its domain's list, every domain's node, CPUs and
 * first CPU, every distance: all as build_max() laid them out. */
static void check_max(const struct layout *l, const struct mlb_topo *t)
{
	u64 m[MLB_CPUMASK_WORDS];
	char *text = NULL, want[64];
	size_t len = 0;
	FILE *out;

	CHECK(t->nr_cpu_ids == MLB_MAX_CPUS && t->nr_online == MLB_MAX_CPUS);
	CHECK(t->nr_doms == MLB_MAX_DOMS && t->nr_nodes == (u32)l->nodes);
	for (int c = 0; c < MLB_MAX_CPUS; c++) {
		int before = failures;
		u32 next = (u32)-1;

		for (int n = c + 1; n < MLB_MAX_CPUS && next == (u32)-1; n++)
			if (lay_dom(l, n) == lay_dom(l, c))
				next = n;
		CHECK(t->cpu_dom[c] == lay_dom(l, c));
		CHECK(t->cpu_next_in_dom[c] == next);
		CHECK(t->cpu_core[c] == (u32)(c % NR_CORES));
		CHECK(t->cpu_capacity_scaled[c] == 1024);
		if (failures > before)
			fprintf(stderr, "  cpu %d: dom %d next %d core %u, laid out %d %d %d\n", c,
				t->cpu_dom[c], (int)t->cpu_next_in_dom[c], t->cpu_core[c],
				lay_dom(l, c), (int)next, c % NR_CORES);
	}
	for (int d = 0; d < MLB_MAX_DOMS; d++) {
		int before = failures, first = 0;

		while (lay_dom(l, first) != d)
			first++;
		lay_mask(l, d, -1, m);
		CHECK(t->dom_node[d] == (u32)lay_dom_node(l, d));
		CHECK(t->dom_nr_cpus[d] == MLB_MAX_CPUS / MLB_MAX_DOMS);
		CHECK(t->dom_first_cpu[d] == (u32)first);
		CHECK(!memcmp(t->dom_cpus[d], m, sizeof(m)));
		CHECK(t->dom_capacity[d] == 1024);
		if (failures > before)
			fprintf(stderr,
				"  dom %d: node %u, %u cpus from %d, laid out %d, %d from %d\n", d,
				t->dom_node[d], t->dom_nr_cpus[d], (int)t->dom_first_cpu[d],
				lay_dom_node(l, d), MLB_MAX_CPUS / MLB_MAX_DOMS, first);
	}
	for (int i = 0; i < l->nodes; i++)
		for (int j = 0; j < l->nodes; j++)
			CHECK(t->node_dist[i][j] == lay_dist(i, j));

	/* the startup line the guest's vm/numa-topology reads */
	out = open_memstream(&text, &len);
	assert(out);
	mlb_topo_print(t, out);
	fclose(out);
	snprintf(want, sizeof(want), "%d domains on %d nodes, %d cpus\n", MLB_MAX_DOMS, l->nodes,
		 MLB_MAX_CPUS);
	CHECK(strstr(text, want));
	free(text);
}

/* @why is refused, with a one-line reason naming @what. */
static void check_refused(const char *why, const char *what)
{
	struct mlb_topo t;
	char err[256] = "";
	int before = failures;

	CHECK(mlb_topo_read(root, &t, err, sizeof(err)) == -1);
	CHECK(err[0] && !strchr(err, '\n') && strstr(err, what));
	if (failures > before)
		fprintf(stderr, "  %s: expected a refusal naming \"%s\", got \"%s\"\n", why, what,
			err);
}

/*
 * 8 nodes x 8 LLCs x 4 cores x 2 threads, LLCs of consecutive cores, then one over each
 * limit: 513 CPUs, a 65th LLC, a 65th domain made by a node splitting an LLC. Afterwards
 * the tree, restored, reads as before: a refusal leaves nothing behind.
 */
static void test_max_8_nodes(void)
{
	static struct mlb_topo t, again;
	const struct layout l = {.nodes = 8};
	char err[256] = "";

	snprintf(root, sizeof(root), "/tmp/mlb-topo-%d/e", getpid());
	build_max(&l);
	CHECK(mlb_topo_read(root, &t, err, sizeof(err)) == 0);
	if (err[0])
		fprintf(stderr, "  error: %s\n", err);
	check_max(&l, &t);
	/* the ends and the seams, spelled out */
	CHECK(t.cpu_dom[0] == 0 && t.cpu_dom[3] == 0 && t.cpu_dom[4] == 1);
	CHECK(t.cpu_dom[256] == 0 && t.cpu_dom[259] == 0 && t.cpu_dom[260] == 1);
	CHECK(t.cpu_dom[255] == 63 && t.cpu_dom[511] == 63 && t.dom_node[63] == 7);
	CHECK(t.dom_node[7] == 0 && t.dom_node[8] == 1 && t.dom_node[56] == 7);
	CHECK(t.dom_first_cpu[63] == 252 && t.cpu_next_in_dom[255] == 508 &&
	      t.cpu_next_in_dom[508] == 509 && t.cpu_next_in_dom[511] == (u32)-1);
	CHECK(t.cpu_next_in_dom[3] == 256 && t.cpu_core[511] == 255 && t.node_dist[0][7] == 34);

	put_cpus(MLB_MAX_CPUS + 1);
	check_refused("513 CPUs", "512 CPUs");
	put_cpus(MLB_MAX_CPUS);

	cache(511, 3, 3, "511\n"); /* CPU 511 in an LLC of its own */
	check_refused("65 LLCs", "more than 64 domains");
	put_llc(&l, 511);

	put("192-223,448-479,511\n", "%s/devices/system/node/node6/cpulist", root); /* from 7 */
	put("224-255,480-510\n", "%s/devices/system/node/node7/cpulist", root);
	check_refused("an LLC on 2 nodes", "more than 64 domains");
	put_node(&l, 6);
	put_node(&l, 7);

	CHECK(mlb_topo_read(root, &again, err, sizeof(err)) == 0);
	CHECK(!memcmp(&t, &again, sizeof(t)));
}

/* MLB_MAX_NODES nodes x 4 LLCs x 8 CPUs, cores dealt round-robin; then a 17th node. */
static void test_max_16_nodes(void)
{
	static struct mlb_topo t, again;
	const struct layout l = {.nodes = MLB_MAX_NODES, .spread = true};
	char err[256] = "", cmd[512];

	snprintf(root, sizeof(root), "/tmp/mlb-topo-%d/f", getpid());
	build_max(&l);
	CHECK(mlb_topo_read(root, &t, err, sizeof(err)) == 0);
	if (err[0])
		fprintf(stderr, "  error: %s\n", err);
	check_max(&l, &t);
	CHECK(t.cpu_dom[0] == 0 && t.cpu_dom[1] == 1 && t.cpu_dom[64] == 0);
	CHECK(t.cpu_dom[256] == 0 && t.cpu_dom[257] == 1 && t.cpu_dom[511] == 63);
	CHECK(t.dom_node[1] == 1 && t.dom_node[16] == 0 && t.dom_node[63] == 15);
	CHECK(t.dom_first_cpu[63] == 63 && t.cpu_next_in_dom[63] == 127 &&
	      t.cpu_next_in_dom[255] == 319 && t.cpu_next_in_dom[447] == 511);

	/* CPU 511 moves from node 15 to a 17th node */
	put("15,31,47,63,79,95,111,127,143,159,175,191,207,223,239,255,271,287,303,319,335,351,"
	    "367,383,399,415,431,447,463,479,495\n",
	    "%s/devices/system/node/node15/cpulist", root);
	put("511\n", "%s/devices/system/node/node%d/cpulist", root, MLB_MAX_NODES);
	check_refused("17 nodes", "more than 16 NUMA nodes");
	snprintf(cmd, sizeof(cmd), "rm -r %s/devices/system/node/node%d", root, MLB_MAX_NODES);
	CHECK(system(cmd) == 0);
	put_node(&l, 15);

	CHECK(mlb_topo_read(root, &again, err, sizeof(err)) == 0);
	CHECK(!memcmp(&t, &again, sizeof(t)));
}

/* A tree of @n CPUs in one LLC, CPU c of capacity cap[c] (none written when @cap is NULL),
 * SMT pairs (c, c + 1) for c < @smt_below, even c. */
static void build_caps(const char *name, int n, const u32 *cap, int smt_below)
{
	char list[32];

	snprintf(root, sizeof(root), "/tmp/mlb-topo-%d/%s", getpid(), name);
	snprintf(list, sizeof(list), "0-%d\n", n - 1);
	put(list, "%s/devices/system/cpu/possible", root);
	put(list, "%s/devices/system/cpu/online", root);
	for (int c = 0; c < n; c++) {
		cache(c, 2, 3, list);
		if (cap) {
			snprintf(list, sizeof(list), "%u\n", cap[c]);
			put(list, "%s/devices/system/cpu/cpu%d/cpu_capacity", root, c);
			snprintf(list, sizeof(list), "0-%d\n", n - 1);
		}
		if (c < smt_below) {
			char sib[32];

			snprintf(sib, sizeof(sib), "%d-%d\n", c & ~1, (c & ~1) + 1);
			put(sib, "%s/devices/system/cpu/cpu%d/topology/thread_siblings_list", root,
			    c);
		}
	}
}

/*
 * The candidates of a wake-up on @t for a task on CPU @ref, as pick_idle_cap() in
 * queues.bpf.h sees them: the domain's CPUs in list order but @ref, each with its scaled
 * capacity and idle rank (@idle: bit c set for an idle CPU c; a core is whole-idle when all
 * its CPUs are). Returns the count; @ids gets the CPU of each.
 */
static u32 candidates(const struct mlb_topo *t, u32 ref, u64 idle, u32 *ids, u32 *cap, u32 *rank)
{
	u32 n = 0;

	for (u32 c = t->dom_first_cpu[t->cpu_dom[ref]]; c != (u32)-1; c = t->cpu_next_in_dom[c]) {
		bool core_idle = true;

		if (c == ref)
			continue;
		for (u32 s = 0; s < t->nr_cpu_ids; s++)
			if (t->cpu_core[s] == t->cpu_core[c] && !(idle >> s & 1))
				core_idle = false;
		ids[n] = c;
		cap[n] = t->cpu_capacity_scaled[c];
		rank[n] = !(idle >> c & 1)		       ? MLB_RANK_BUSY
			  : t->cpu_core[c] == t->cpu_core[ref] ? MLB_RANK_SIBLING
			  : core_idle			       ? MLB_RANK_CORE
							       : MLB_RANK_IDLE;
		n++;
	}
	return n;
}

/* The CPU a task of class @cls and load @load on CPU @ref takes on @t with @idle, or -1. */
static int pick(const struct mlb_topo *t, u32 cls, u64 load, u32 ref, u64 idle)
{
	u32 ids[64], cap[64], rank[64], n = candidates(t, ref, idle, ids, cap, rank);
	int i = mlb_place_pick(mlb_place_want(cls, load), cap, rank, n);

	return i < 0 ? -1 : (int)ids[i];
}

/* The usual idle preference, without capacities: scan_idle() of queues.bpf.h. */
static int pick_usual(const struct mlb_topo *t, u32 ref, u64 idle)
{
	u32 ids[64], cap[64], rank[64], n = candidates(t, ref, idle, ids, cap, rank);
	int best[4] = {-1, -1, -1, -1};

	for (u32 i = 0; i < n; i++)
		if (best[rank[i]] < 0)
			best[rank[i]] = ids[i];
	return best[3] >= 0 ? best[3] : best[2] >= 0 ? best[2] : best[1];
}

#define LIGHT 100	   /* a light task's load */
#define HEAVY MLB_LOAD_ONE /* runs all the time */

/* Arm big.LITTLE (DynamIQ: one L3): CPUs 0-3 little (446), 4-7 big (1024), no SMT. */
static void test_big_little(void)
{
	const u32 cap[8] = {446, 446, 446, 446, 1024, 1024, 1024, 1024};
	struct mlb_topo t;
	char err[256], *text = NULL;
	size_t len = 0;
	FILE *out;

	build_caps("bl", 8, cap, 0);
	CHECK(mlb_topo_read(root, &t, err, sizeof(err)) == 0);
	CHECK(t.nr_doms == 1 && t.cap_asym == 1 && t.cap_min == 446);
	CHECK(t.cpu_capacity_scaled[0] == 446 && t.cpu_capacity_scaled[7] == 1024);
	/* everything idle, the task on little CPU 0 */
	CHECK(pick(&t, MLB_CLASS_LAT, LIGHT, 0, 0xff) == 4);   /* latency: big */
	CHECK(pick(&t, MLB_CLASS_INTER, HEAVY, 0, 0xff) == 4); /* heavy: big */
	CHECK(pick(&t, MLB_CLASS_INTER, LIGHT, 0, 0xff) == 1); /* light: the usual, first */
	CHECK(pick(&t, MLB_CLASS_BATCH, HEAVY, 4, 0xff) == 0); /* batch, even heavy: little */
	CHECK(pick(&t, MLB_CLASS_BATCH, LIGHT, 4, 0xff) == 0);
	/* it ranks, it does not filter: only little CPUs idle, only big ones */
	CHECK(pick(&t, MLB_CLASS_LAT, LIGHT, 0, 0x0e) == 1);
	CHECK(pick(&t, MLB_CLASS_BATCH, LIGHT, 0, 0xf0) == 4);
	CHECK(pick(&t, MLB_CLASS_LAT, LIGHT, 0, 0x01) == -1); /* only its own CPU: none */
	CHECK(pick(&t, MLB_CLASS_LAT, LIGHT, 5, 0xc0) == 6);
	/* the startup line says so */
	out = open_memstream(&text, &len);
	mlb_topo_print(&t, out);
	fclose(out);
	CHECK(strstr(text, "cpu capacities 446 to 1024 of 1024"));
	free(text);
}

/* A hybrid machine: P-cores with SMT (CPUs 0-1, 2-3, 4-5; 1024), E-cores 6-9 (600). */
static void test_hybrid(void)
{
	const u32 cap[10] = {1024, 1024, 1024, 1024, 1024, 1024, 600, 600, 600, 600};
	struct mlb_topo t;
	char err[256];

	build_caps("hy", 10, cap, 6);
	CHECK(mlb_topo_read(root, &t, err, sizeof(err)) == 0);
	CHECK(t.cap_asym == 1 && t.cap_min == 600 && t.cpu_core[1] == 0 && t.cpu_core[6] == 6);
	/* on P-core CPU 0: its idle sibling first among the big ones, then a whole idle core */
	CHECK(pick(&t, MLB_CLASS_LAT, LIGHT, 0, 0x3ff) == 1);
	CHECK(pick(&t, MLB_CLASS_LAT, LIGHT, 0, 0x3fd) == 2);
	CHECK(pick(&t, MLB_CLASS_LAT, LIGHT, 0, 0x3f5) == 4);
	/* every P-core half busy: a busy core's big CPU over a whole idle E-core */
	CHECK(pick(&t, MLB_CLASS_LAT, LIGHT, 0, 0x3d5) == 2);
	CHECK(pick_usual(&t, 0, 0x3d5) == 6);
	/* on E-core 6: a big whole idle core over an idle E-core */
	CHECK(pick(&t, MLB_CLASS_LAT, LIGHT, 6, 0x3ff) == 0);
	CHECK(pick(&t, MLB_CLASS_BATCH, LIGHT, 0, 0x3ff) == 6);
	CHECK(pick(&t, MLB_CLASS_INTER, LIGHT, 6, 0x3ff) == pick_usual(&t, 6, 0x3ff));
}

/*
 * Symmetric machines: no capacity files (x86, the test guests), equal ones, ones a little
 * apart (under 1/8). Not asymmetric, so the scheduler never calls the rule; and were it
 * called, every class would take what the usual preference takes, for every idle set and
 * every CPU the task is on (980..1024 is one capacity band).
 */
static void test_symmetric(void)
{
	const u32 equal[8] = {1024, 1024, 1024, 1024, 1024, 1024, 1024, 1024};
	const u32 near[8] = {1024, 1024, 1000, 1000, 980, 980, 1024, 1024};
	const u32 *caps[3] = {NULL, equal, near};
	struct mlb_topo t;
	char err[256];

	for (int k = 0; k < 3; k++) {
		char name[8];
		int before = failures;

		snprintf(name, sizeof(name), "s%d", k);
		build_caps(name, 8, caps[k], 4);
		CHECK(mlb_topo_read(root, &t, err, sizeof(err)) == 0);
		CHECK(t.cap_asym == 0);
		for (u64 idle = 0; idle < 256; idle++)
			for (u32 ref = 0; ref < 8; ref++)
				for (u32 cls = 0; cls < MLB_NR_CLASSES; cls++) {
					CHECK(pick(&t, cls, HEAVY, ref, idle) ==
					      pick_usual(&t, ref, idle));
					CHECK(pick(&t, cls, LIGHT, ref, idle) ==
					      pick_usual(&t, ref, idle));
				}
		if (failures > before)
			fprintf(stderr, "  symmetric tree %d\n", k);
	}
	CHECK(!mlb_cap_asymmetric(896, 1024) && mlb_cap_asymmetric(895, 1024));
	CHECK(!mlb_cap_asymmetric(1024, 1024) && mlb_cap_asymmetric(0, 1));
}

int main(void)
{
	char cmd[128];

	test_cpulist();
	test_numa();
	test_flat();
	test_bad();
	test_too_many_doms();
	test_max_8_nodes();
	test_max_16_nodes();
	test_big_little();
	test_hybrid();
	test_symmetric();
	snprintf(cmd, sizeof(cmd), "rm -rf /tmp/mlb-topo-%d", getpid());
	if (system(cmd))
		fprintf(stderr, "cleanup failed\n");
	if (failures)
		fprintf(stderr, "%d checks failed\n", failures);
	return failures ? 1 : 0;
}
