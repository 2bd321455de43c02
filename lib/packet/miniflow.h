/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Flow keys in compact form.  'struct flow' (flow.h) is the expanded key,
 * FLOW_U64S 64-bit words.  A miniflow is the form the datapath works with: a
 * bitmap 'map' says which words are present and the present words follow in
 * index order; an absent word reads as zero.  miniflow_extract() parses a
 * frame straight into a miniflow and never reads past the frame, whatever
 * it holds.
 *
 * Megaflow masks are miniflows too: a mask's map names the words it looks
 * at, and its values are the bits within them.
 */
#ifndef MINIFLOW_H
#define MINIFLOW_H 1

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <netinet/in.h>
#include "packet/flow.h"
#include "packet/packets.h"
#include "base/util.h"

struct dp_packet;

/* A compact key: 'map' plus count_1bits(map) words in 'values'. */
struct miniflow {
    uint64_t map;
    uint64_t values[FLOW_U64S];
};

/* A miniflow with its hash and length, as the caches store it. */
struct netdev_flow_key {
    uint32_t hash;              /* RSS hash for packets, or masked hash. */
    uint32_t len;               /* Bytes of 'mf.values' in use. */
    struct miniflow mf;
};

/* Parses 'packet' into 'key->mf' and sets 'key->len'.  It does not touch
 * 'key->hash'.  Fields the frame does not have (truncated or malformed
 * headers) are left out of the map; parsing stops at the first header that
 * does not fit in the frame.  Any thread. */
void miniflow_extract(const struct dp_packet *packet,
                      struct netdev_flow_key *key);

/* Returns word 'idx' of 'mf', 0 if absent. */
static inline uint64_t
miniflow_get_word(const struct miniflow *mf, unsigned int idx)
{
    uint64_t bit = UINT64_C(1) << idx;

    if (!(mf->map & bit)) {
        return 0;
    }
    return mf->values[count_1bits(mf->map & (bit - 1))];
}

/* Converts between the two forms.  miniflow_from_flow() includes exactly
 * the words whose bit is set in 'map'. */
void miniflow_expand(const struct miniflow *mf, struct flow *flow);
void miniflow_from_flow(struct miniflow *mf, const struct flow *flow,
                        uint64_t map);

/* Byte length of the values of 'mf'. */
static inline uint32_t
miniflow_size(const struct miniflow *mf)
{
    return count_1bits(mf->map) * 8;
}

/* True if 'a' and 'b' hold the same words. */
bool miniflow_equal(const struct miniflow *a, const struct miniflow *b);

#endif /* miniflow.h */
