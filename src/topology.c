// SPDX-License-Identifier: GPL-2.0
/*
 * Topology discovery from sysfs: CPUs, NUMA nodes and distances, last-level caches, CPU
 * capacities. The root directory is a parameter so the unit tests can feed a fake tree.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "mlb.h"
#include "mlb/place.h"

#define PATH_LEN 512

static int read_text(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return 0;
}

static int read_fmt(char *buf, size_t len, const char *fmt, ...)
{
	char path[PATH_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return read_text(path, buf, len);
}

static void set_bit(u64 *mask, u32 bit)
{
	mask[bit / 64] |= 1ULL << (bit % 64);
}

static int test_bit(const u64 *mask, u32 bit)
{
	return (mask[bit / 64] >> (bit % 64)) & 1;
}

int mlb_parse_cpulist(const char *s, u64 *mask, size_t words)
{
	int count = 0;

	memset(mask, 0, words * sizeof(*mask));
	while (*s && *s != '\n') {
		char *end;
		unsigned long lo, hi;

		if (!isdigit((unsigned char)*s))
			return -1;
		lo = strtoul(s, &end, 10);
		hi = lo;
		s = end;
		if (*s == '-') {
			s++;
			if (!isdigit((unsigned char)*s))
				return -1;
			hi = strtoul(s, &end, 10);
			s = end;
		}
		if (hi < lo || hi >= words * 64)
			return -1;
		for (unsigned long c = lo; c <= hi; c++) {
			if (!test_bit(mask, c))
				count++;
			set_bit(mask, c);
		}
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -1;
	}
	return count;
}

char *mlb_format_cpulist(const u64 *mask, size_t words, char *buf, size_t len)
{
	size_t off = 0, nbits = words * 64;

	buf[0] = '\0';
	for (size_t c = 0; c < nbits; c++) {
		size_t e = c;

		if (!test_bit(mask, c))
			continue;
		while (e + 1 < nbits && test_bit(mask, e + 1))
			e++;
		if (off < len)
			off += snprintf(buf + off, len - off, e > c ? "%s%zu-%zu" : "%s%zu",
					off ? "," : "", c, e);
		c = e;
	}
	return buf;
}

/* Fill cpu_node[] from each nodeN/cpulist (all 0 without NUMA information) and the node
 * distances from nodeN/distance. */
static int read_nodes(const char *sysfs, struct mlb_topo *t, s32 *cpu_node, char *err,
		      size_t errlen)
{
	char path[PATH_LEN], buf[4096];
	u64 mask[MLB_CPUMASK_WORDS];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/devices/system/node", sysfs);
	t->nr_nodes = 1;
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char *end;
		unsigned long node;

		if (strncmp(de->d_name, "node", 4) || !isdigit((unsigned char)de->d_name[4]))
			continue;
		node = strtoul(de->d_name + 4, &end, 10);
		if (*end)
			continue;
		if (node >= MLB_MAX_NODES) {
			snprintf(err, errlen, "node %lu: more than %d NUMA nodes", node,
				 MLB_MAX_NODES);
			closedir(d);
			return -1;
		}
		if (read_fmt(buf, sizeof(buf), "%s/node%lu/cpulist", path, node) ||
		    mlb_parse_cpulist(buf, mask, MLB_CPUMASK_WORDS) < 0) {
			snprintf(err, errlen, "%s/node%lu/cpulist: unreadable or malformed", path,
				 node);
			closedir(d);
			return -1;
		}
		for (u32 c = 0; c < MLB_MAX_CPUS; c++)
			if (test_bit(mask, c))
				cpu_node[c] = node;
		if (node + 1 > t->nr_nodes)
			t->nr_nodes = node + 1;
		if (!read_fmt(buf, sizeof(buf), "%s/node%lu/distance", path, node)) {
			char *s = buf;

			for (u32 j = 0; j < MLB_MAX_NODES; j++) {
				long v = strtol(s, &end, 10);

				if (end == s)
					break;
				t->node_dist[node][j] = v < 0 ? 0 : v > 255 ? 255 : v;
				s = end;
			}
		}
	}
	closedir(d);
	return 0;
}

/* The key of @cpu's last-level cache: the lowest CPU sharing its highest-level cache, or
 * -1 when sysfs has no cache information. */
static s32 llc_key(const char *sysfs, u32 cpu)
{
	char buf[4096];
	u64 mask[MLB_CPUMASK_WORDS];
	long best_level = -1;
	s32 key = -1;

	for (int idx = 0; idx < 16; idx++) {
		long level;

		if (read_fmt(buf, sizeof(buf), "%s/devices/system/cpu/cpu%u/cache/index%d/level",
			     sysfs, cpu, idx))
			continue;
		level = strtol(buf, NULL, 10);
		if (level <= best_level)
			continue;
		if (read_fmt(buf, sizeof(buf),
			     "%s/devices/system/cpu/cpu%u/cache/index%d/shared_cpu_list", sysfs,
			     cpu, idx) ||
		    mlb_parse_cpulist(buf, mask, MLB_CPUMASK_WORDS) <= 0)
			continue;
		best_level = level;
		for (u32 c = 0; c < MLB_MAX_CPUS; c++)
			if (test_bit(mask, c)) {
				key = c;
				break;
			}
	}
	return key;
}

/* The key of @cpu's core: the lowest CPU of its topology/thread_siblings_list, or @cpu
 * itself when sysfs does not say (no SMT). */
static u32 core_key(const char *sysfs, u32 cpu)
{
	char buf[4096];
	u64 mask[MLB_CPUMASK_WORDS];

	if (read_fmt(buf, sizeof(buf), "%s/devices/system/cpu/cpu%u/topology/thread_siblings_list",
		     sysfs, cpu) ||
	    mlb_parse_cpulist(buf, mask, MLB_CPUMASK_WORDS) <= 0)
		return cpu;
	for (u32 c = 0; c < MLB_MAX_CPUS; c++)
		if (test_bit(mask, c))
			return c;
	return cpu;
}

int mlb_topo_read(const char *sysfs, struct mlb_topo *t, char *err, size_t errlen)
{
	static s32 cpu_node[MLB_MAX_CPUS], dom_key_llc[MLB_MAX_DOMS];
	u64 possible[MLB_CPUMASK_WORDS], online[MLB_CPUMASK_WORDS];
	char buf[4096];
	u32 maxcap = 0;

	memset(t, 0, sizeof(*t));
	memset(cpu_node, 0, sizeof(cpu_node));
	if (read_fmt(buf, sizeof(buf), "%s/devices/system/cpu/possible", sysfs) ||
	    mlb_parse_cpulist(buf, possible, MLB_CPUMASK_WORDS) <= 0) {
		snprintf(err, errlen,
			 "%s/devices/system/cpu/possible: unreadable, malformed "
			 "or over %d CPUs",
			 sysfs, MLB_MAX_CPUS);
		return -1;
	}
	if (read_fmt(buf, sizeof(buf), "%s/devices/system/cpu/online", sysfs) ||
	    mlb_parse_cpulist(buf, online, MLB_CPUMASK_WORDS) <= 0) {
		snprintf(err, errlen, "%s/devices/system/cpu/online: unreadable or malformed",
			 sysfs);
		return -1;
	}
	for (u32 c = 0; c < MLB_MAX_CPUS; c++)
		if (test_bit(possible, c))
			t->nr_cpu_ids = c + 1;
	if (read_nodes(sysfs, t, cpu_node, err, errlen))
		return -1;
	for (u32 i = 0; i < t->nr_nodes; i++)
		for (u32 j = 0; j < t->nr_nodes; j++)
			if (!t->node_dist[i][j])
				t->node_dist[i][j] = i == j ? 10 : 20;

	for (u32 c = 0; c < MLB_MAX_CPUS; c++) {
		s32 key, dom = -1;

		t->cpu_dom[c] = -1;
		if (c >= t->nr_cpu_ids || !test_bit(online, c))
			continue;
		t->nr_online++;
		key = llc_key(sysfs, c);
		for (u32 d = 0; d < t->nr_doms; d++)
			if (t->dom_node[d] == (u32)cpu_node[c] && dom_key_llc[d] == key) {
				dom = d;
				break;
			}
		if (dom < 0) {
			if (t->nr_doms == MLB_MAX_DOMS) {
				snprintf(err, errlen, "more than %d domains (LLCs x nodes)",
					 MLB_MAX_DOMS);
				return -1;
			}
			dom = t->nr_doms++;
			t->dom_node[dom] = cpu_node[c];
			dom_key_llc[dom] = key;
		}
		t->cpu_dom[c] = dom;
		set_bit(t->dom_cpus[dom], c);
		t->dom_nr_cpus[dom]++;
		t->cpu_capacity[c] = 1024;
		if (!read_fmt(buf, sizeof(buf), "%s/devices/system/cpu/cpu%u/cpu_capacity", sysfs,
			      c))
			t->cpu_capacity[c] = strtoul(buf, NULL, 10);
		if (t->cpu_capacity[c] > maxcap)
			maxcap = t->cpu_capacity[c];
	}
	if (!t->nr_doms) {
		snprintf(err, errlen, "no online CPU");
		return -1;
	}
	/* Each domain's CPUs as a list (ascending), each CPU's core and scaled capacity. */
	for (u32 d = 0; d < t->nr_doms; d++)
		t->dom_first_cpu[d] = (u32)-1;
	for (u32 c = MLB_MAX_CPUS; c-- > 0;) {
		t->cpu_next_in_dom[c] = (u32)-1;
		t->cpu_core[c] = c;
		if (t->cpu_dom[c] < 0)
			continue;
		t->cpu_next_in_dom[c] = t->dom_first_cpu[t->cpu_dom[c]];
		t->dom_first_cpu[t->cpu_dom[c]] = c;
		t->cpu_core[c] = core_key(sysfs, c);
		t->cpu_capacity_scaled[c] = maxcap ? (u64)t->cpu_capacity[c] * 1024 / maxcap : 1024;
	}
	/* Asymmetric capacities (big.LITTLE, hybrid cores): placement by capacity. */
	t->cap_min = MLB_CAP_ONE;
	for (u32 c = 0; c < t->nr_cpu_ids; c++)
		if (t->cpu_dom[c] >= 0 && t->cpu_capacity_scaled[c] < t->cap_min)
			t->cap_min = t->cpu_capacity_scaled[c];
	t->cap_asym = mlb_cap_asymmetric(t->cap_min, MLB_CAP_ONE);
	/* Mean capacity per domain, scaled so the largest CPU is 1024. */
	for (u32 d = 0; d < t->nr_doms; d++) {
		u64 sum = 0;

		for (u32 c = 0; c < t->nr_cpu_ids; c++)
			if (t->cpu_dom[c] == (s32)d)
				sum += maxcap ? (u64)t->cpu_capacity[c] * 1024 / maxcap : 1024;
		t->dom_capacity[d] = sum / t->dom_nr_cpus[d];
	}
	return 0;
}

void mlb_topo_print(const struct mlb_topo *t, FILE *out)
{
	u32 nodes_used = 0;
	u64 seen = 0;
	char list[1024];

	for (u32 d = 0; d < t->nr_doms; d++)
		if (!(seen & (1ULL << t->dom_node[d]))) {
			seen |= 1ULL << t->dom_node[d];
			nodes_used++;
		}
	fprintf(out, "scx_mlb: topology: %u domains on %u nodes, %u cpus\n", t->nr_doms, nodes_used,
		t->nr_online);
	for (u32 d = 0; d < t->nr_doms; d++)
		fprintf(out, "scx_mlb: dom %u: node %u, cpus %s\n", d, t->dom_node[d],
			mlb_format_cpulist(t->dom_cpus[d], MLB_CPUMASK_WORDS, list, sizeof(list)));
	if (t->cap_asym)
		fprintf(out,
			"scx_mlb: cpu capacities %u to %u of %u: idle CPUs chosen by capacity and "
			"task class\n",
			t->cap_min, MLB_CAP_ONE, MLB_CAP_ONE);
}
