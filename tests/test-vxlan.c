/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for packet/vxlan.c: the header for a VNI is the bytes the Linux
 * kernel's vxlan device sends (08 00 00 00, then the VNI and a zero byte;
 * read off a datagram from a kernel vxlan device with id 42) and parses
 * back to its VNI for VNIs from 0 to 2^24 - 1; datagrams too short for a
 * header and an Ethernet header are refused as truncated; every datagram
 * the kernel refuses (I flag clear, any other flag or reserved bit set,
 * a nonzero byte after the VNI) is refused as bad flags; the outer UDP
 * header carries the length and checksum 0; source ports stay in their
 * range, reach both ends and spread evenly.
 */
#include <autoconf.h>
#include "packet/vxlan.h"

#include <string.h>

#include "base/util.h"
#include "check.h"

/* A datagram payload: a VXLAN header for 'vni' and a 14-byte inner
 * Ethernet header of zeros. */
static size_t
make_payload(uint8_t buf[VXLAN_MIN_PAYLOAD], uint32_t vni)
{
    memset(buf, 0, VXLAN_MIN_PAYLOAD);
    vxlan_put_header(buf, vni);
    return VXLAN_MIN_PAYLOAD;
}

static void
test_kernel_bytes(void)
{
    static const uint8_t kernel_vni42[VXLAN_HEADER_LEN] = {
        0x08, 0, 0, 0, 0, 0, 0x2a, 0,
    };
    uint8_t hdr[VXLAN_HEADER_LEN];

    vxlan_put_header(hdr, 42);
    CHECK(!memcmp(hdr, kernel_vni42, sizeof hdr),
          "VNI 42's header differs from the kernel's");
}

static void
test_round_trip(void)
{
    static const uint32_t vnis[] = { 0, 1, 42, 0x123456, VXLAN_VNI_MAX };
    uint8_t buf[VXLAN_MIN_PAYLOAD];

    for (size_t i = 0; i < ARRAY_SIZE(vnis); i++) {
        uint32_t vni = ~0u;
        size_t n = make_payload(buf, vnis[i]);

        CHECK_INT(vxlan_parse(buf, n, &vni), VXLAN_RX_OK);
        CHECK_INT(vni, vnis[i]);
    }
}

static void
test_truncated(void)
{
    uint8_t buf[VXLAN_MIN_PAYLOAD];
    uint32_t vni = 7;

    make_payload(buf, 42);
    for (size_t size = 0; size < VXLAN_MIN_PAYLOAD; size++) {
        if (vxlan_parse(buf, size, &vni) != VXLAN_RX_TRUNCATED) {
            CHECK(false, "%zu bytes not refused as truncated", size);
            return;
        }
    }
    CHECK_INT(vni, 7);                  /* Untouched on refusal. */
    CHECK_INT(vxlan_parse(buf, VXLAN_MIN_PAYLOAD, &vni), VXLAN_RX_OK);
}

/* Flipping any bit of the header other than the VNI's makes the datagram
 * one the kernel refuses. */
static void
test_bad_flags(void)
{
    uint8_t buf[VXLAN_MIN_PAYLOAD];
    int n_refused = 0;

    for (int bit = 0; bit < 64; bit++) {
        int byte = bit / 8;
        uint32_t vni;

        if (byte >= 4 && byte <= 6) {
            continue;                   /* The VNI itself. */
        }
        make_payload(buf, 42);
        buf[byte] ^= 0x80 >> (bit % 8);
        if (vxlan_parse(buf, sizeof buf, &vni) == VXLAN_RX_BAD_FLAGS) {
            n_refused++;
        } else {
            CHECK(false, "header bit %d flipped, not refused", bit);
        }
    }
    CHECK_INT(n_refused, 40);
}

static void
test_udp_header(void)
{
    static const uint8_t want[VXLAN_UDP_HEADER_LEN] = {
        0xc3, 0x50, 0x12, 0xb5, 0x00, 0x3a, 0x00, 0x00,
    };
    uint8_t hdr[VXLAN_UDP_HEADER_LEN];

    /* 50000 -> 4789, a VXLAN header and a 42-byte frame. */
    vxlan_put_udp(hdr, 50000, VXLAN_DEFAULT_PORT, VXLAN_HEADER_LEN + 42);
    CHECK(!memcmp(hdr, want, sizeof hdr), "UDP header differs");
}

static void
test_src_port(void)
{
    enum { N_BINS = 16, N_HASHES = 1 << 20 };
    const uint32_t span = VXLAN_SRC_PORT_MAX - VXLAN_SRC_PORT_MIN + 1;
    uint32_t bins[N_BINS] = { 0 };
    uint32_t x = 2463534242u;
    bool in_range = true;

    CHECK_INT(vxlan_src_port(0, VXLAN_SRC_PORT_MIN, VXLAN_SRC_PORT_MAX),
              VXLAN_SRC_PORT_MIN);
    CHECK_INT(vxlan_src_port(UINT32_MAX, VXLAN_SRC_PORT_MIN,
                             VXLAN_SRC_PORT_MAX), VXLAN_SRC_PORT_MAX);
    CHECK_INT(vxlan_src_port(12345, 4789, 4789), 4789);
    CHECK_INT(vxlan_src_port(UINT32_MAX, 0, UINT16_MAX), UINT16_MAX);

    for (int i = 0; i < N_HASHES; i++) {
        uint16_t port;

        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        port = vxlan_src_port(x, VXLAN_SRC_PORT_MIN, VXLAN_SRC_PORT_MAX);
        if (port < VXLAN_SRC_PORT_MIN || port > VXLAN_SRC_PORT_MAX) {
            in_range = false;
            continue;
        }
        bins[(uint64_t) (port - VXLAN_SRC_PORT_MIN) * N_BINS / span]++;
    }
    CHECK(in_range, "a source port outside %d-%d", VXLAN_SRC_PORT_MIN,
          VXLAN_SRC_PORT_MAX);
    for (int b = 0; b < N_BINS; b++) {
        /* Each bin expects 65,536; 3% is over 20 standard deviations. */
        CHECK(bins[b] > N_HASHES / N_BINS * 97 / 100
              && bins[b] < N_HASHES / N_BINS * 103 / 100,
              "bin %d of the port range got %u of %d", b, bins[b],
              N_HASHES);
    }
}

static void
test_error_names(void)
{
    CHECK(!strcmp(vxlan_rx_error_name(VXLAN_RX_TRUNCATED),
                  "vxlan_truncated"), "truncated's name");
    CHECK(!strcmp(vxlan_rx_error_name(VXLAN_RX_BAD_FLAGS),
                  "vxlan_bad_flags"), "bad flags' name");
    CHECK(!strcmp(vxlan_rx_error_name(VXLAN_RX_OK), ""), "ok has no name");
}

int
main(void)
{
    test_kernel_bytes();
    test_round_trip();
    test_truncated();
    test_bad_flags();
    test_udp_header();
    test_src_port();
    test_error_names();
    return check_finish("test-vxlan");
}
