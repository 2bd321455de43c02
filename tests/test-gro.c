/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for packet/gro.c and dp/tx-gro.c: segments that packet/gso.c cut
 * from a GSO frame merge back into that frame (headers, payload, lengths,
 * IPv4 header checksum, and offload metadata asking for segmentation at
 * the same size); what must not merge does not (out of order,
 * retransmitted, other TCP options, PSH or a short segment before,
 * a bad checksum, IPv4 options, no DF, another VLAN); and an output batch
 * of interleaved flows and other frames keeps every flow's order.
 * tests/system/test-gso.sh runs TCP through the switch with merging on.
 */
#include <autoconf.h>
#include "packet/gro.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dp-test.h"
#include "dp/tx-gro.h"
#include "gso-test.h"
#include "packet/csum.h"
#include "packet/gso.h"

#define N_SEGS_MAX 64

/* Segments cut from one GSO frame. */
struct segments {
    struct frame frame;
    uint8_t bufs[N_SEGS_MAX][2048];
    struct dp_packet segs[N_SEGS_MAX];
    uint32_t n;
};

/* Cuts the frame 'spec' describes into 'out', marking each segment's
 * checksum good as a local sender would (NEEDS_CSUM) when 'partial'. */
static void
cut(const struct frame_spec *spec, struct segments *out, bool partial)
{
    struct gso_iter it;

    build_frame(spec, &out->frame);
    CHECK_INT(gso_start(&it, &out->frame.p, 0), GSO_OK);
    out->n = 0;
    while (out->n < N_SEGS_MAX
           && gso_next(&it, out->bufs[out->n], sizeof out->bufs[0],
                       &out->segs[out->n])) {
        out->n++;
    }
    if (partial) {
        for (uint32_t i = 0; i < out->n; i++) {
            struct dp_packet *p = &out->segs[i];

            p->flags |= DP_PACKET_F_VNET;
            memset(&p->vnet, 0, sizeof p->vnet);
            p->vnet.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
            p->vnet.csum_start = out->frame.l4;
            p->vnet.csum_offset = 16;
        }
    }
}

/* Merges segments 'from'..'to' (inclusive) of 's' into 'merged'; returns
 * how many joined a group started with 'from'. */
static uint32_t
merge_range(struct segments *s, uint32_t from, uint32_t to,
            uint8_t *buf, struct dp_packet *merged)
{
    struct gro_group *g = xmalloc(sizeof *g);
    struct gro_seg seg;
    uint32_t n = 1;

    CHECK(gro_parse(&s->segs[from], &seg), "segment %u parses", from);
    gro_group_start(g, &seg);
    for (uint32_t i = from + 1; i <= to; i++) {
        CHECK(gro_parse(&s->segs[i], &seg), "segment %u parses", i);
        if (!gro_group_add(g, &seg)) {
            break;
        }
        n++;
    }
    if (g->n_segs > 1) {
        gro_merge(g, buf, merged);
    }
    free(g);
    return n;
}

static const struct frame_spec tcp4 = {
    "tcp4", true, false, false, false, false, 12, 0x18, 20000, 1448 };
static const struct frame_spec tcp6 = {
    "tcp6", false, true, false, false, false, 12, 0x10, 15000, 1428 };

/* Segments merge back into the frame they were cut from. */
static void
test_round_trip(const struct frame_spec *spec, bool partial)
{
    struct segments *s = xmalloc(sizeof *s);
    uint8_t *buf = xmalloc(GRO_MAX_FRAME);
    struct dp_packet merged;
    const struct frame *f = &s->frame;
    uint32_t csum_field;

    check_set_context("%s%s", spec->name, partial ? ", partial" : "");
    cut(spec, s, partial);
    csum_field = f->l4 + 16;
    CHECK_INT(merge_range(s, 0, s->n - 1, buf, &merged), s->n);
    CHECK_INT(merged.size, f->p.size);
    CHECK(!memcmp(merged.data, f->p.data, csum_field), "headers");
    CHECK(!memcmp(merged.data + csum_field + 2, f->p.data + csum_field + 2,
                  f->p.size - csum_field - 2), "TCP header rest, payload");
    CHECK(merged.flags & DP_PACKET_F_VNET, "offload metadata");
    CHECK_INT(merged.vnet.gso_type, f->p.vnet.gso_type);
    CHECK_INT(merged.vnet.gso_size, spec->gso_size);
    CHECK_INT(merged.vnet.hdr_len, f->hdr_len);
    CHECK_INT(merged.vnet.csum_start, f->l4);
    CHECK_INT(merged.vnet.csum_offset, 16);
    CHECK_INT(merged.vnet.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
    CHECK_INT(merged.in_port, 3);
    if (!spec->ipv6) {
        CHECK(csum_fold(csum_add(0, merged.data + f->l3, 20)) == 0xffff,
              "IPv4 header checksum");
    }
    /* Finishing the partial checksum gives a valid segment of it all. */
    {
        uint8_t *m = merged.data;
        uint32_t l4_len = merged.size - f->l4;
        uint16_t csum = csum_finish(csum_add(0, m + f->l4, l4_len));
        uint32_t sum;

        m[csum_field] = csum >> 8;
        m[csum_field + 1] = csum;
        sum = spec->ipv6 ? csum_add(0, m + f->l3 + 8, 32)
                         : csum_add(0, m + f->l3 + 12, 8);
        sum += 6 + l4_len;
        CHECK(csum_fold(csum_add(sum, m + f->l4, l4_len)) == 0xffff,
              "finished TCP checksum");
    }
    check_set_context("%s", "");
    free(buf);
    free(s);
}

/* What must not merge. */
static void
test_refusals(void)
{
    struct segments *s = xmalloc(sizeof *s);
    uint8_t *buf = xmalloc(GRO_MAX_FRAME);
    struct dp_packet merged;
    struct gro_group *g = xmalloc(sizeof *g);
    struct gro_seg a, b;
    uint8_t saved;

    /* Out of order: segment 2 does not follow segment 0. */
    cut(&tcp4, s, true);
    CHECK(gro_parse(&s->segs[0], &a) && gro_parse(&s->segs[2], &b), "parse");
    gro_group_start(g, &a);
    CHECK(!gro_group_add(g, &b), "out of order");
    /* Retransmitted: segment 0 again. */
    CHECK(gro_parse(&s->segs[0], &b), "parse");
    CHECK(!gro_group_add(g, &b), "retransmission");
    CHECK_INT(g->n_segs, 1);

    /* Other TCP options (a timestamp moved on). */
    cut(&tcp4, s, true);
    s->bufs[1][s->frame.l4 + 25] ^= 1;
    CHECK_INT(merge_range(s, 0, 1, buf, &merged), 1);

    /* PSH on the first segment ends the group at once. */
    cut(&tcp4, s, true);
    s->bufs[0][s->frame.l4 + 13] |= 0x08;
    CHECK_INT(merge_range(s, 0, 2, buf, &merged), 1);

    /* After a short segment nothing joins. */
    {
        struct frame_spec short_last = tcp4;

        short_last.payload = 1448 + 100;
        cut(&short_last, s, true);
        CHECK_INT(s->n, 2);
    }
    cut(&tcp4, s, true);
    s->segs[1].size -= 10;
    saved = s->bufs[1][s->frame.l3 + 3];
    s->bufs[1][s->frame.l3 + 3] = saved - 10;           /* IPv4 length. */
    s->bufs[1][s->frame.l3 + 10] = 0;
    s->bufs[1][s->frame.l3 + 11] = 0;
    {
        uint16_t c = ~csum_fold(csum_add(0, s->bufs[1] + s->frame.l3, 20));

        s->bufs[1][s->frame.l3 + 10] = c >> 8;
        s->bufs[1][s->frame.l3 + 11] = c;
    }
    CHECK_INT(merge_range(s, 0, 3, buf, &merged), 2);

    /* A bad checksum, where no flag vouches for it. */
    cut(&tcp4, s, false);
    s->bufs[1][s->frame.hdr_len + 5] ^= 0xff;
    CHECK_INT(merge_range(s, 0, 2, buf, &merged), 1);
    cut(&tcp4, s, false);
    CHECK_INT(merge_range(s, 0, 2, buf, &merged), 3);   /* Good ones do. */

    /* IPv4 options; no DF; another VLAN: not even parsed, or no join. */
    {
        struct frame_spec opts = tcp4;

        opts.ip_options = true;
        cut(&opts, s, true);
        CHECK(!gro_parse(&s->segs[0], &a), "IPv4 options");
    }
    cut(&tcp4, s, true);
    s->bufs[0][s->frame.l3 + 6] &= ~0x40;
    CHECK(!gro_parse(&s->segs[0], &a), "no DF");
    cut(&tcp4, s, true);
    s->bufs[1][15] ^= 1;                                /* VLAN ID. */
    CHECK(gro_parse(&s->segs[0], &a) && gro_parse(&s->segs[1], &b), "parse");
    gro_group_start(g, &a);
    CHECK(!gro_same_flow(g, &b), "another VLAN is another flow");
    CHECK(!gro_group_add(g, &b), "another VLAN");

    /* UDP and frames that already are GSO frames: never. */
    {
        struct frame_spec udp = tcp4;

        udp.udp = true;
        cut(&udp, s, false);
        CHECK(!gro_parse(&s->segs[0], &a), "UDP");
        build_frame(&tcp4, &s->frame);
        CHECK(!gro_parse(&s->frame.p, &a), "a GSO frame");
    }
    free(g);
    free(buf);
    free(s);
}

/* A batch of two interleaved flows, an ARP frame and a retransmission:
 * merged where allowed, each flow in order. */
static void
test_batch(void)
{
    struct segments *s4 = xmalloc(sizeof *s4);
    struct segments *s6 = xmalloc(sizeof *s6);
    struct dp *dp = dp_test_create(2);
    struct pmd *pmd = pmd_create(dp, 0);
    uint8_t arp_buf[60] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    struct dp_packet arp;
    struct dp_batch batch;
    uint64_t c[PMD_N_STATS];

    cut(&tcp4, s4, true);
    cut(&tcp6, s6, true);
    arp_buf[12] = 0x08;
    arp_buf[13] = 0x06;
    dp_packet_init(&arp, arp_buf, sizeof arp_buf, 1);

    /* v4 0, v6 0, v4 1, v6 1, v4 2, ARP, v4 3, v4 2 again, v4 4. */
    dp_batch_init(&batch);
    dp_batch_add(&batch, &s4->segs[0]);
    dp_batch_add(&batch, &s6->segs[0]);
    dp_batch_add(&batch, &s4->segs[1]);
    dp_batch_add(&batch, &s6->segs[1]);
    dp_batch_add(&batch, &s4->segs[2]);
    dp_batch_add(&batch, &arp);
    dp_batch_add(&batch, &s4->segs[3]);
    dp_batch_add(&batch, &s4->segs[2]);
    dp_batch_add(&batch, &s4->segs[4]);
    tx_gro_batch(pmd, 1, &batch);

    /* [v4 0-2] [v6 0-1] ARP [v4 3] [v4 2] [v4 4]: the ARP frame closed
     * both groups, the retransmission closed v4's second. */
    CHECK_INT(batch.count, 6);
    CHECK_INT(batch.packets[0]->size,
              s4->frame.hdr_len + 3 * tcp4.gso_size);
    CHECK(batch.packets[0]->flags & DP_PACKET_F_VNET, "v4 merged");
    CHECK_INT(batch.packets[1]->size,
              s6->frame.hdr_len + 2 * tcp6.gso_size);
    CHECK(batch.packets[2] == &arp, "ARP in its place");
    CHECK(batch.packets[3] == &s4->segs[3], "v4 3 alone");
    CHECK(batch.packets[4] == &s4->segs[2], "the retransmission alone");
    CHECK(batch.packets[5] == &s4->segs[4], "v4 4 alone");
    pmd_perf_read(&pmd->perf, c);
    CHECK_INT(c[PMD_STAT_GRO_FRAMES], 2);
    CHECK_INT(c[PMD_STAT_GRO_SEGMENTS], 5);
    CHECK_INT(pmd->tx_offload[1].gro_frames, 2);
    CHECK_INT(pmd->tx_offload[1].gro_segments, 5);

    /* Nothing to merge: the batch is left as it was. */
    dp_batch_init(&batch);
    dp_batch_add(&batch, &s4->segs[0]);
    dp_batch_add(&batch, &arp);
    dp_batch_add(&batch, &s4->segs[1]);
    tx_gro_batch(pmd, 1, &batch);
    CHECK_INT(batch.count, 3);
    CHECK(batch.packets[0] == &s4->segs[0] && batch.packets[1] == &arp
          && batch.packets[2] == &s4->segs[1], "unchanged");

    dp_test_destroy(dp, pmd);
    free(s6);
    free(s4);
}

int
main(void)
{
    rcu_register_thread();
    test_round_trip(&tcp4, true);
    test_round_trip(&tcp4, false);
    test_round_trip(&tcp6, true);
    test_refusals();
    test_batch();
    rcu_unregister();
    return check_finish("test-gro");
}
