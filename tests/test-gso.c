/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for packet/gso.c: GSO frames of every supported kind (TCP over
 * IPv4 with options and a VLAN tag, TCP over IPv6 with an extension
 * header, UDP segmentation over both) are cut into segments whose payloads
 * add up to the frame's, whose lengths, IDs, sequence numbers and flags
 * are those of the kernel's software GSO, and whose checksums verify; and
 * frames that cannot be segmented are refused with the reason.
 * tests/system/test-gso.sh sends the segments to the kernel's TCP.
 */
#include <autoconf.h>
#include "packet/gso.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "base/util.h"
#include "packet/csum.h"
#include "packet/dp-packet.h"
#include "gso-test.h"

/* True if the L4 checksum of 'seg' verifies. */
static bool
l4_csum_ok(const struct frame *f, const struct frame_spec *spec,
           const struct dp_packet *seg)
{
    uint32_t l4_len = seg->size - f->l4;
    uint32_t sum;

    if (!spec->ipv6) {
        sum = csum_add(0, seg->data + f->l3 + 12, 8);
    } else {
        sum = csum_add(0, seg->data + f->l3 + 8, 32);
    }
    sum += (spec->udp ? 17 : 6) + l4_len;
    return csum_fold(csum_add(sum, seg->data + f->l4, l4_len)) == 0xffff;
}

static void
check_segments(const struct frame_spec *spec, uint32_t mss_override)
{
    struct frame *f = xmalloc(sizeof *f);
    uint8_t *joined = xmalloc(MAX_FRAME);
    uint32_t mss = mss_override ? mss_override : spec->gso_size;
    uint32_t n_expected = spec->payload ? (spec->payload + mss - 1) / mss : 1;
    uint8_t buf[9000 + 200];
    struct gso_iter it;
    struct dp_packet seg;
    uint32_t n = 0, joined_len = 0;

    check_set_context("%s, mss %u", spec->name, mss);
    build_frame(spec, f);
    CHECK(gso_is_gso(&f->p), "is GSO");
    CHECK_INT(gso_start(&it, &f->p, mss_override), GSO_OK);
    CHECK_INT(gso_n_segments(&it), n_expected);
    CHECK_INT(gso_max_segment_size(&it),
              f->hdr_len + MIN(mss, spec->payload));
    while (gso_next(&it, buf, sizeof buf, &seg)) {
        const uint8_t *s = seg.data;
        uint32_t chunk = seg.size - f->hdr_len;
        bool last = n + 1 == n_expected;

        CHECK(chunk == (last ? spec->payload - n * mss : mss),
              "segment %u: %u payload bytes", n, chunk);
        CHECK(!memcmp(s, f->data, f->l3), "segment %u: L2 header", n);
        CHECK_INT(seg.in_port, 3);
        CHECK_INT(seg.rss_hash, 0x1234);
        CHECK(!(seg.flags & DP_PACKET_F_VNET), "no offload metadata");
        memcpy(joined + joined_len, s + f->hdr_len, chunk);
        joined_len += chunk;
        if (!spec->ipv6) {
            uint32_t ihl = (s[f->l3] & 0xf) * 4;

            CHECK_INT(wire_get16(s + f->l3 + 2), seg.size - f->l3);
            CHECK_INT(wire_get16(s + f->l3 + 4), (uint16_t) (0xfff0 + n));
            CHECK(csum_fold(csum_add(0, s + f->l3, ihl)) == 0xffff,
                  "segment %u: IPv4 header checksum", n);
            CHECK(!memcmp(s + f->l3 + 20, f->data + f->l3 + 20, ihl - 20),
                  "segment %u: IPv4 options", n);
        } else {
            CHECK_INT(wire_get16(s + f->l3 + 4), seg.size - f->l3 - 40);
            CHECK(!memcmp(s + f->l3 + 40, f->data + f->l3 + 40,
                          f->l4 - f->l3 - 40), "extension headers");
        }
        if (spec->udp) {
            CHECK_INT(wire_get16(s + f->l4 + 4), seg.size - f->l4);
        } else {
            uint8_t flags = s[f->l4 + 13];
            uint8_t want = spec->tcp_flags;

            CHECK_INT(wire_get32(s + f->l4 + 4), 0xfffff000u + n * mss);
            if (!last) {
                want &= ~0x09;                  /* FIN, PSH. */
            }
            if (n) {
                want &= ~0x80;                  /* CWR. */
            }
            CHECK_INT(flags, want);
            CHECK(!memcmp(s + f->l4 + 20, f->data + f->l4 + 20,
                          spec->tcp_opt_len), "TCP options");
        }
        CHECK(l4_csum_ok(f, spec, &seg), "segment %u: L4 checksum", n);
        n++;
    }
    CHECK_INT(n, n_expected);
    CHECK_INT(joined_len, spec->payload);
    CHECK(!memcmp(joined, f->data + f->hdr_len, spec->payload),
          "payloads add up to the frame's");
    CHECK(!gso_next(&it, buf, sizeof buf, &seg), "nothing after the last");
    check_set_context("%s", "");
    free(joined);
    free(f);
}

static const struct frame_spec good_specs[] = {
    { "tcp4", false, false, false, false, false, 12, 0x18, 64000, 1448 },
    { "tcp4 vlan options", true, false, false, true, false, 12, 0x99,
      10001, 1400 },
    { "tcp4 one segment", false, false, false, false, false, 0, 0x19, 100,
      1448 },
    { "tcp4 exact", false, false, false, false, false, 0, 0x10, 4 * 1000,
      1000 },
    { "tcp4 no payload", false, false, false, false, false, 0, 0x11, 0,
      1448 },
    { "tcp6", false, true, false, false, false, 12, 0x18, 30000, 1428 },
    { "tcp6 hop-by-hop vlan", true, true, true, false, false, 0, 0x98,
      9000, 1220 },
    { "udp4", false, false, false, false, true, 0, 0, 8000, 1472 },
    { "udp6 vlan", true, true, false, false, true, 0, 0, 5000, 1452 },
};

static void
test_segments(void)
{
    for (size_t i = 0; i < ARRAY_SIZE(good_specs); i++) {
        check_segments(&good_specs[i], 0);
    }
    /* A smaller MTU on the way out: the caller's MSS wins. */
    check_segments(&good_specs[0], 536);
    check_segments(&good_specs[5], 1000);
}

/* A buffer too small for a segment: nothing is written. */
static void
test_small_buffer(void)
{
    struct frame *f = xmalloc(sizeof *f);
    struct gso_iter it;
    struct dp_packet seg;
    uint8_t buf[256];

    build_frame(&good_specs[0], f);
    CHECK_INT(gso_start(&it, &f->p, 0), GSO_OK);
    CHECK(!gso_next(&it, buf, sizeof buf, &seg), "refused");
    CHECK_INT(it.index, 0);
    free(f);
}

static void
test_refused(void)
{
    struct frame *f = xmalloc(sizeof *f);
    struct gso_iter it;

    /* Not GSO at all. */
    build_frame(&good_specs[0], f);
    f->p.vnet.gso_type = VIRTIO_NET_HDR_GSO_NONE;
    CHECK(!gso_is_gso(&f->p), "GSO_NONE");
    f->p.flags &= ~DP_PACKET_F_VNET;
    f->p.vnet.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
    CHECK(!gso_is_gso(&f->p), "no offload metadata");

    build_frame(&good_specs[0], f);
    f->p.vnet.gso_type = VIRTIO_NET_HDR_GSO_UDP;
    CHECK_INT(gso_start(&it, &f->p, 0), GSO_UNSUPPORTED);

    build_frame(&good_specs[0], f);
    f->p.vnet.gso_size = 0;
    CHECK_INT(gso_start(&it, &f->p, 0), GSO_MALFORMED);

    build_frame(&good_specs[0], f);
    f->p.vnet.csum_start += 4;
    CHECK_INT(gso_start(&it, &f->p, 0), GSO_MALFORMED);

    build_frame(&good_specs[0], f);
    f->p.vnet.gso_type = VIRTIO_NET_HDR_GSO_TCPV6;      /* On IPv4. */
    CHECK_INT(gso_start(&it, &f->p, 0), GSO_MALFORMED);

    build_frame(&good_specs[5], f);
    f->p.vnet.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;      /* On IPv6. */
    CHECK_INT(gso_start(&it, &f->p, 0), GSO_MALFORMED);

    build_frame(&good_specs[5], f);
    f->p.vnet.flags = 0;                /* IPv6 without csum_start. */
    f->p.vnet.csum_start = 0;
    CHECK_INT(gso_start(&it, &f->p, 0), GSO_MALFORMED);

    build_frame(&good_specs[0], f);
    f->data[14] = 0x65;                 /* Version 6 in an IPv4 frame. */
    CHECK_INT(gso_start(&it, &f->p, 0), GSO_MALFORMED);

    build_frame(&good_specs[0], f);
    f->data[14 + 9] = 17;               /* UDP under a TCP GSO type. */
    CHECK_INT(gso_start(&it, &f->p, 0), GSO_MALFORMED);

    build_frame(&good_specs[0], f);
    f->data[f->l4 + 12] = 0x40;         /* TCP data offset 16 bytes. */
    CHECK_INT(gso_start(&it, &f->p, 0), GSO_MALFORMED);

    /* Every truncation of the headers is refused, never read past. */
    build_frame(&good_specs[1], f);
    for (uint32_t size = 0; size < f->hdr_len; size++) {
        f->p.size = size;
        CHECK(gso_start(&it, &f->p, 0) == GSO_MALFORMED,
              "cut to %u bytes", size);
    }
    free(f);
}

int
main(void)
{
    test_segments();
    test_small_buffer();
    test_refused();
    return check_finish("test-gso");
}
