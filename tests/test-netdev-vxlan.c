/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for the vxlan provider (netdev/netdev-vxlan*.c) over loopback,
 * without root: a port whose remote is 127.0.0.1 receives what it sends.
 *   - frames of 60 to 9000 bytes come back whole, in order, with the
 *     port's key as their tun_id;
 *   - a 64 KB TCP GSO frame leaves in UDP GSO sends and comes back as its
 *     45 segments, read over two batches (UDP_GRO hands them over in one
 *     read), their payloads the frame's in order;
 *   - a frame whose checksum its sender left partial arrives finished;
 *   - datagrams too short, with bad flags, another VNI or from an address
 *     not in remote_ip are dropped under their counters, and what follows
 *     still arrives;
 *   - with two remotes a broadcast or an unknown unicast leaves twice, and
 *     unicast to a MAC learned from one remote once;
 *   - with "key": "flow" the frame's tun_id is the VNI both ways.
 */
#include <autoconf.h>
#include "netdev/netdev-vxlan.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "base/util.h"
#include "check.h"
#include "gso-test.h"
#include "netdev/netdev.h"
#include "packet/csum.h"
#include "packet/vxlan.h"
#include "packet/wire.h"

/* A frame received, copied out of the port's buffers. */
struct rx_frame {
    uint8_t data[MAX_FRAME];
    uint32_t size;
    uint32_t tun_id;
};

static struct rx_frame rx_frames[64];

/* A UDP port nobody uses now. */
static uint16_t
free_udp_port(void)
{
    struct sockaddr_in sin = { .sin_family = AF_INET,
                               .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof sin;
    int fd = socket(AF_INET, SOCK_DGRAM, 0);

    CHECK(fd >= 0 && !bind(fd, (struct sockaddr *) &sin, sizeof sin)
          && !getsockname(fd, (struct sockaddr *) &sin, &len),
          "cannot find a free UDP port (%s)", strerror(errno));
    close(fd);
    return ntohs(sin.sin_port);
}

/* Opens vxlan port 'name' on UDP 'port' towards 'remotes' ('n' of them,
 * dotted quads), with VNI 'key' or "flow". */
static struct netdev *
open_port(const char *name, uint16_t port, const char *const *remotes,
          size_t n, uint32_t key, bool key_flow)
{
    struct netdev_vxlan_options vx = {
        .n_remotes = n, .key = key, .key_flow = key_flow,
        .dst_port = port, .ttl = 64, .tos = 0,
    };
    struct netdev_options opts = { .n_rxq = 1, .n_txq = 1, .vxlan = &vx };
    struct netdev *nd = NULL;
    char *err = NULL;

    for (size_t i = 0; i < n; i++) {
        inet_pton(AF_INET, remotes[i], &vx.remotes[i]);
    }
    CHECK(!netdev_open(name, "vxlan", &opts, &nd, &err) && nd,
          "cannot open %s: %s", name, err ? err : "?");
    free(err);
    return nd;
}

/* Receives until 'n' frames came or 2 s passed, copying them into
 * rx_frames.  Returns how many came. */
static size_t
receive(struct netdev *nd, size_t n)
{
    struct netdev_rxq *rxq = netdev_get_rxq(nd, 0);
    int fds[NETDEV_RXQ_MAX_WAIT_FDS];
    size_t got = 0;

    netdev_rxq_wait_fds(rxq, fds);
    for (int idle = 0; got < n && idle < 200; ) {
        struct dp_batch batch;

        dp_batch_init(&batch);
        if (netdev_rxq_recv(rxq, &batch, 1)) {
            struct pollfd pfd = { .fd = fds[0], .events = POLLIN };

            poll(&pfd, 1, 10);
            idle++;
            continue;
        }
        for (uint32_t i = 0; i < batch.count && got < ARRAY_SIZE(rx_frames);
             i++) {
            const struct dp_packet *p = batch.packets[i];

            memcpy(rx_frames[got].data, p->data, p->size);
            rx_frames[got].size = p->size;
            rx_frames[got].tun_id = p->tun_id;
            got++;
        }
    }
    return got;
}

static void
send_one(struct netdev *nd, struct dp_packet *p)
{
    struct dp_batch batch;

    dp_batch_init(&batch);
    dp_batch_add(&batch, p);
    netdev_send(nd, 0, &batch);
}

/* Fills 'buf' with a plain frame of 'size' bytes from 'src' (last byte of
 * a 02:00:00:00:00:xx MAC) to 'dst' (all-ones for broadcast). */
static void
make_frame(uint8_t *buf, uint32_t size, uint8_t src, uint8_t dst)
{
    for (uint32_t i = 0; i < size; i++) {
        buf[i] = i * 7 + size;
    }
    memcpy(buf, "\x02\x00\x00\x00\x00", 5);
    buf[5] = dst;
    if (dst == 0xff) {
        memset(buf, 0xff, 6);
    }
    memcpy(buf + 6, "\x02\x00\x00\x00\x00", 5);
    buf[11] = src;
    wire_put16(buf + 12, 0x88b5);
}

static void
test_round_trip(void)
{
    static const char *const lo[] = { "127.0.0.1" };
    static const uint32_t sizes[] = { 60, 100, 1000, 1514, 9000 };
    static uint8_t bufs[ARRAY_SIZE(sizes)][9000];
    struct netdev *nd = open_port("vxt0", free_udp_port(), lo, 1, 42, false);
    struct dp_packet pkts[ARRAY_SIZE(sizes)];
    struct netdev_stats st = { 0 };
    struct dp_batch batch;

    if (!nd) {
        return;
    }
    dp_batch_init(&batch);
    for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
        make_frame(bufs[i], sizes[i], 1, 2);
        dp_packet_init(&pkts[i], bufs[i], sizes[i], 0);
        dp_packet_set_rss_hash(&pkts[i], i * 0x9e3779b9);
        dp_batch_add(&batch, &pkts[i]);
    }
    netdev_send(nd, 0, &batch);
    CHECK_INT(receive(nd, ARRAY_SIZE(sizes)), ARRAY_SIZE(sizes));
    for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
        CHECK_INT(rx_frames[i].size, sizes[i]);
        CHECK(!memcmp(rx_frames[i].data, bufs[i], sizes[i]),
              "frame %zu differs", i);
        CHECK_INT(rx_frames[i].tun_id, 42);
    }
    netdev_get_stats(nd, &st);
    CHECK_INT(st.tx_packets, ARRAY_SIZE(sizes));
    CHECK_INT(st.rx_packets, ARRAY_SIZE(sizes));
    netdev_close(nd);
}

static void
test_gso(void)
{
    static const char *const lo[] = { "127.0.0.1" };
    static const struct frame_spec spec = {
        .name = "tcp4", .payload = 64000, .gso_size = 1448,
        .tcp_flags = 0x18,
    };
    static struct frame f;
    struct netdev *nd = open_port("vxt1", free_udp_port(), lo, 1, 7, false);
    uint32_t n_segs = (spec.payload + spec.gso_size - 1) / spec.gso_size;
    uint32_t offset = 0;
    size_t got;

    if (!nd) {
        return;
    }
    build_frame(&spec, &f);
    send_one(nd, &f.p);
    got = receive(nd, n_segs);
    CHECK_INT(got, n_segs);
    for (size_t i = 0; i < got; i++) {
        const struct rx_frame *r = &rx_frames[i];
        uint32_t len = r->size - f.hdr_len;

        CHECK(r->size > f.hdr_len && len <= spec.gso_size,
              "segment %zu: %u bytes", i, r->size);
        CHECK(!memcmp(r->data, f.data, 12), "segment %zu: MACs", i);
        for (uint32_t j = 0; j < len; j++) {
            if (r->data[f.hdr_len + j] != (offset + j) % 251) {
                CHECK(false, "segment %zu: payload byte %u", i, j);
                break;
            }
        }
        /* The TCP checksum over the pseudo-header and segment is right. */
        CHECK_INT(csum_fold(csum_add(csum_add(0, r->data + f.l3 + 12, 8)
                                     + 6 + (r->size - f.l4),
                                     r->data + f.l4, r->size - f.l4)),
                  0xffff);
        offset += len;
    }
    CHECK_INT(offset, spec.payload);
    netdev_close(nd);
}

static void
test_csum_finished(void)
{
    static const char *const lo[] = { "127.0.0.1" };
    static const struct frame_spec spec = {
        .name = "tcp4", .payload = 500, .gso_size = 0, .tcp_flags = 0x18,
    };
    static struct frame f;
    struct netdev *nd = open_port("vxt2", free_udp_port(), lo, 1, 7, false);
    const struct rx_frame *r = &rx_frames[0];

    if (!nd) {
        return;
    }
    build_frame(&spec, &f);
    /* A checksum-partial frame, no GSO: the field holds the pseudo-header
     * sum, as a sender with checksum offload leaves it. */
    f.p.vnet.gso_type = VIRTIO_NET_HDR_GSO_NONE;
    f.p.vnet.gso_size = 0;
    wire_put16(f.data + f.l4 + 16,
               csum_fold(csum_add(0, f.data + f.l3 + 12, 8) + 6
                         + (f.p.size - f.l4)));
    send_one(nd, &f.p);
    if (receive(nd, 1) != 1 || r->size != f.p.size) {
        CHECK(false, "the checksum-partial frame did not come back whole");
        netdev_close(nd);
        return;
    }
    CHECK_INT(csum_fold(csum_add(csum_add(0, r->data + f.l3 + 12, 8) + 6
                                 + (r->size - f.l4),
                                 r->data + f.l4, r->size - f.l4)), 0xffff);
    netdev_close(nd);
}

/* Sends 'size' bytes of 'payload' from 'src' to 127.0.0.1:'port'. */
static void
send_datagram(const char *src, uint16_t port, const void *payload,
              size_t size)
{
    struct sockaddr_in from = { .sin_family = AF_INET };
    struct sockaddr_in to = { .sin_family = AF_INET,
                              .sin_port = htons(port),
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    int fd = socket(AF_INET, SOCK_DGRAM, 0);

    inet_pton(AF_INET, src, &from.sin_addr);
    CHECK(fd >= 0 && !bind(fd, (struct sockaddr *) &from, sizeof from)
          && sendto(fd, payload, size, 0, (struct sockaddr *) &to,
                    sizeof to) == (ssize_t) size,
          "cannot send from %s (%s)", src, strerror(errno));
    close(fd);
}

static void
test_bad_datagrams(void)
{
    static const char *const lo[] = { "127.0.0.1" };
    uint16_t port = free_udp_port();
    struct netdev *nd = open_port("vxt3", port, lo, 1, 42, false);
    struct netdev_vxlan_drops d;
    uint8_t dg[VXLAN_HEADER_LEN + 60];

    if (!nd) {
        return;
    }
    make_frame(dg + VXLAN_HEADER_LEN, 60, 1, 2);
    vxlan_put_header(dg, 42);
    send_datagram("127.0.0.1", port, dg, VXLAN_HEADER_LEN + 6);
    dg[0] |= 0x04;
    send_datagram("127.0.0.1", port, dg, sizeof dg);
    vxlan_put_header(dg, 43);
    send_datagram("127.0.0.1", port, dg, sizeof dg);
    vxlan_put_header(dg, 42);
    send_datagram("127.0.0.2", port, dg, sizeof dg);
    send_datagram("127.0.0.1", port, dg, sizeof dg);
    CHECK_INT(receive(nd, 1), 1);
    CHECK_INT(rx_frames[0].size, 60);
    netdev_vxlan_get_drops(nd, &d);
    CHECK_INT(d.truncated, 1);
    CHECK_INT(d.bad_flags, 1);
    CHECK_INT(d.wrong_vni, 1);
    CHECK_INT(d.unknown_remote, 1);
    netdev_close(nd);
}

static void
test_replication_and_learning(void)
{
    /* Both remotes are loopback addresses, so the port, bound to any
     * address, receives the copies sent to either: a flood comes back
     * twice, a frame sent to one remote once. */
    static const char *const two[] = { "127.0.0.1", "127.0.0.3" };
    uint16_t port = free_udp_port();
    struct netdev *nd = open_port("vxt4", port, two, 2, 5, false);
    uint8_t frame[60], dg[VXLAN_HEADER_LEN + 60];
    struct netdev_stats st = { 0 };
    struct dp_packet p;

    if (!nd) {
        return;
    }
    make_frame(frame, sizeof frame, 1, 0xff);
    dp_packet_init(&p, frame, sizeof frame, 0);
    send_one(nd, &p);
    CHECK_INT(receive(nd, 2), 2);
    netdev_get_stats(nd, &st);
    CHECK_INT(st.tx_packets, 2);

    /* Unknown unicast floods too. */
    make_frame(frame, sizeof frame, 1, 9);
    send_one(nd, &p);
    CHECK_INT(receive(nd, 2), 2);
    memset(&st, 0, sizeof st);
    netdev_get_stats(nd, &st);
    CHECK_INT(st.tx_packets, 4);

    /* MAC ...:09 speaks from 127.0.0.1: unicast to it goes there only. */
    vxlan_put_header(dg, 5);
    make_frame(dg + VXLAN_HEADER_LEN, 60, 9, 1);
    send_datagram("127.0.0.1", port, dg, sizeof dg);
    CHECK_INT(receive(nd, 1), 1);
    send_one(nd, &p);
    CHECK_INT(receive(nd, 1), 1);
    memset(&st, 0, sizeof st);
    netdev_get_stats(nd, &st);
    CHECK_INT(st.tx_packets, 5);
    netdev_close(nd);
}

static void
test_key_flow(void)
{
    static const char *const lo[] = { "127.0.0.1" };
    struct netdev *nd = open_port("vxt5", free_udp_port(), lo, 1, 0, true);
    uint8_t frame[60];
    struct dp_packet p;

    if (!nd) {
        return;
    }
    make_frame(frame, sizeof frame, 1, 2);
    dp_packet_init(&p, frame, sizeof frame, 0);
    p.tun_id = 0xabcdef;
    send_one(nd, &p);
    CHECK_INT(receive(nd, 1), 1);
    CHECK_INT(rx_frames[0].tun_id, 0xabcdef);
    netdev_close(nd);
}

int
main(void)
{
    test_round_trip();
    test_gso();
    test_csum_finished();
    test_bad_datagrams();
    test_replication_and_learning();
    test_key_flow();
    return check_finish("test-netdev-vxlan");
}
