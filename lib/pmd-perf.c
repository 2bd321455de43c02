/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * PMD counters: reading and formatting.
 */
#include <autoconf.h>
#include "pmd-perf.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include "util.h"

static const char *const stat_names[PMD_N_STATS] = {
#define PMD_STAT_NAME__(NAME, STR) STR,
    PMD_STATS(PMD_STAT_NAME__)
#undef PMD_STAT_NAME__
};

void
pmd_perf_read(const struct pmd_perf_stats *s, uint64_t out[PMD_N_STATS])
{
    for (int i = 0; i < PMD_N_STATS; i++) {
        out[i] = __atomic_load_n(&s->counters[i], __ATOMIC_RELAXED);
    }
}

const char *
pmd_perf_stat_name(enum pmd_stat_type type)
{
    return stat_names[type];
}

/* Appends to 'buf' at '*ofs', never past 'size'. */
static void PRINTF_FORMAT(4, 5)
append__(char *buf, size_t size, size_t *ofs, const char *format, ...)
{
    va_list args;
    int n;

    if (*ofs >= size) {
        return;
    }
    va_start(args, format);
    n = vsnprintf(buf + *ofs, size - *ofs, format, args);
    va_end(args);
    if (n > 0) {
        *ofs = MIN(*ofs + n, size - 1);
    }
}

static double
ratio__(uint64_t num, uint64_t den)
{
    return den ? (double) num / den : 0.0;
}

size_t
pmd_perf_format_ovs(const uint64_t c[PMD_N_STATS], int core_id,
                    char *buf, size_t size)
{
    uint64_t total_cycles = c[PMD_STAT_CYCLES_IDLE] + c[PMD_STAT_CYCLES_BUSY];
    uint64_t recv = c[PMD_STAT_RECV];
    size_t ofs = 0;

    buf[0] = '\0';
    append__(buf, size, &ofs, "pmd thread numa_id 0 core_id %d:\n", core_id);
    append__(buf, size, &ofs, "  packets received: %"PRIu64"\n", recv);
    append__(buf, size, &ofs, "  packet recirculations: 0\n");
    append__(buf, size, &ofs, "  avg. datapath passes per packet: %.02f\n",
             recv ? 1.0 : 0.0);
    append__(buf, size, &ofs, "  emc hits: %"PRIu64"\n", c[PMD_STAT_EMC_HIT]);
    append__(buf, size, &ofs, "  smc hits: %"PRIu64"\n", c[PMD_STAT_SMC_HIT]);
    append__(buf, size, &ofs, "  megaflow hits: %"PRIu64"\n",
             c[PMD_STAT_MASKED_HIT]);
    append__(buf, size, &ofs,
             "  avg. subtable lookups per megaflow hit: %.02f\n",
             ratio__(c[PMD_STAT_MASKED_LOOKUP], c[PMD_STAT_MASKED_HIT]));
    append__(buf, size, &ofs, "  miss with success upcall: %"PRIu64"\n",
             c[PMD_STAT_MISS]);
    append__(buf, size, &ofs, "  miss with failed upcall: %"PRIu64"\n",
             c[PMD_STAT_LOST]);
    append__(buf, size, &ofs, "  avg. packets per output batch: %.02f\n",
             ratio__(c[PMD_STAT_SENT_PACKETS], c[PMD_STAT_SENT_BATCHES]));
    append__(buf, size, &ofs, "  idle cycles: %"PRIu64" (%.02f%%)\n",
             c[PMD_STAT_CYCLES_IDLE],
             100.0 * ratio__(c[PMD_STAT_CYCLES_IDLE], total_cycles));
    append__(buf, size, &ofs, "  processing cycles: %"PRIu64" (%.02f%%)\n",
             c[PMD_STAT_CYCLES_BUSY],
             100.0 * ratio__(c[PMD_STAT_CYCLES_BUSY], total_cycles));
    append__(buf, size, &ofs, "  avg cycles per packet: %.02f (%"PRIu64"/%"
             PRIu64")\n", ratio__(total_cycles, recv), total_cycles, recv);
    append__(buf, size, &ofs,
             "  avg processing cycles per packet: %.02f (%"PRIu64"/%"
             PRIu64")\n", ratio__(c[PMD_STAT_CYCLES_BUSY], recv),
             c[PMD_STAT_CYCLES_BUSY], recv);
    append__(buf, size, &ofs, "  dropped by flow action: %"PRIu64"\n",
             c[PMD_STAT_DROP_FLOW_ACTION]);
    return ofs;
}

size_t
pmd_perf_format_kv(const uint64_t c[PMD_N_STATS], char *buf, size_t size)
{
    size_t ofs = 0;

    buf[0] = '\0';
    for (int i = 0; i < PMD_N_STATS; i++) {
        append__(buf, size, &ofs, "%s%s=%"PRIu64, i ? " " : "",
                 stat_names[i], c[i]);
    }
    return ofs;
}
