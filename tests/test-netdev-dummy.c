/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests of the dummy port provider and what it is built from, no root:
 * the byte ring (alone, and with a producer and a consumer thread, for
 * TSan), a dummy port's receive queue (bounded, full queue counted as
 * rx_ring_full, eventfd readable exactly while frames wait), its transmit
 * capture (oldest dropped and counted) and pcap file (read back with the
 * pcap reader), and flow_compose() (frames that miniflow_extract() parses
 * back to the flow, with valid checksums).
 */
#include <autoconf.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/byte-ring.h"
#include "base/util.h"
#include "netdev/netdev.h"
#include "netdev/netdev-dummy.h"
#include "ofproto/match-parse.h"
#include "packet/dp-packet.h"
#include "packet/flow.h"
#include "packet/flow-compose.h"
#include "packet/miniflow.h"
#include "packet/pcap-file.h"
#include "check.h"

/* Frames the threaded ring test moves. */
#define N_THREADED 200000

static void
test_byte_ring_basic(void)
{
    struct byte_ring ring;
    size_t size;
    uint8_t *p;
    int n = 0;

    byte_ring_init(&ring, 1024);
    CHECK(!byte_ring_read(&ring, &size), "empty ring reads nothing");
    CHECK(!byte_ring_reserve(&ring, byte_ring_max_record(&ring) + 1),
          "a record larger than the maximum is refused");
    /* Fill: 100-byte records take 112 bytes. */
    while ((p = byte_ring_reserve(&ring, 100)) != NULL) {
        memset(p, n, 100);
        n++;
    }
    CHECK_INT(n, 9);
    CHECK(!byte_ring_read(&ring, &size), "nothing before commit");
    byte_ring_commit(&ring);
    for (int i = 0; i < n; i++) {
        p = byte_ring_read(&ring, &size);
        CHECK(p && size == 100 && p[0] == i && p[99] == i, "record %d", i);
    }
    CHECK(!byte_ring_reserve(&ring, 100), "no room before release");
    byte_ring_release(&ring);
    /* Wraps around, many times. */
    for (int i = 0; i < 1000; i++) {
        size_t want = 1 + i % 300;

        p = byte_ring_reserve(&ring, want);
        CHECK(p != NULL, "reserve %zu after release", want);
        if (!p) {
            break;
        }
        memset(p, i & 0xff, want);
        byte_ring_commit(&ring);
        p = byte_ring_read(&ring, &size);
        CHECK(p && size == want && p[want - 1] == (i & 0xff),
              "wrapped record %d", i);
        byte_ring_release(&ring);
    }
    CHECK(byte_ring_drained(&ring), "drained");
    byte_ring_uninit(&ring);
}

static void *
ring_producer(void *ring_)
{
    struct byte_ring *ring = ring_;

    for (uint32_t i = 0; i < N_THREADED; ) {
        size_t size = 5 + i % 60;
        uint8_t *p = byte_ring_reserve(ring, size);

        if (!p) {
            byte_ring_commit(ring);
            sched_yield();
            continue;
        }
        memcpy(p, &i, 4);
        memset(p + 4, i & 0xff, size - 4);
        if (!(i % 7)) {
            byte_ring_commit(ring);
        }
        i++;
    }
    byte_ring_commit(ring);
    return NULL;
}

static void
test_byte_ring_threads(void)
{
    struct byte_ring ring;
    uint32_t expect = 0;
    int n_bad = 0;
    pthread_t t;

    byte_ring_init(&ring, 4096);
    pthread_create(&t, NULL, ring_producer, &ring);
    while (expect < N_THREADED) {
        size_t size;
        uint8_t *p = byte_ring_read(&ring, &size);
        uint32_t seq;

        if (!p) {
            byte_ring_release(&ring);
            sched_yield();
            continue;
        }
        memcpy(&seq, p, 4);
        if (seq != expect || size != 5 + seq % 60
            || p[size - 1] != (seq & 0xff)) {
            n_bad++;
        }
        expect++;
        if (!(expect % 5)) {
            byte_ring_release(&ring);
        }
    }
    pthread_join(t, NULL);
    CHECK_INT(n_bad, 0);
    byte_ring_uninit(&ring);
}

/* True if 'fd' polls readable now. */
static bool
readable(int fd)
{
    struct pollfd pfd = { .fd = fd, .events = POLLIN };

    return poll(&pfd, 1, 0) == 1;
}

/* Without netdev_dummy_enable() (pmdswitchd --enable-dummy) the type is
 * refused, with a message that says how to get it. */
static void
test_dummy_disabled(void)
{
    struct netdev_options opts = { .n_rxq = 1, .n_txq = 1 };
    struct netdev *netdev = NULL;
    char *error = NULL;

    CHECK(!netdev_dummy_is_enabled(), "dummy ports enabled from the start");
    CHECK_INT(netdev_open("dm0", "dummy", &opts, &netdev, &error),
              EAFNOSUPPORT);
    CHECK(!netdev, "a dummy port opened without netdev_dummy_enable()");
    CHECK_STR(error, "interface dm0: port type \"dummy\" is for tests (no "
              "kernel interface): start pmdswitchd with --enable-dummy to "
              "use it");
    free(error);
}

static void
test_dummy_rx(void)
{
    struct netdev_options opts = { .n_rxq = 2, .n_txq = 1 };
    uint8_t frame[1000];
    struct netdev_stats st;
    struct netdev *netdev, *dup;
    struct dp_batch batch;
    int fds[NETDEV_RXQ_MAX_WAIT_FDS];
    char *error = NULL;
    int n_queued = 0;

    CHECK_INT(netdev_open("dm0", "dummy", &opts, &netdev, &error), 0);
    if (!netdev) {
        free(error);
        return;
    }
    CHECK(netdev_is_dummy(netdev), "is dummy");
    CHECK_INT(netdev_open("dm0", "dummy", &opts, &dup, &error), EBUSY);
    free(error);
    CHECK_INT(netdev_rxq_wait_fds(netdev_get_rxq(netdev, 1), fds), 1);
    CHECK(!readable(fds[0]), "eventfd not readable while empty");

    CHECK_INT(netdev_dummy_receive(netdev, 2, frame, 60), EINVAL);
    CHECK_INT(netdev_dummy_receive(netdev, 1, frame, 13), EINVAL);
    CHECK_INT(netdev_dummy_receive(netdev, 1, frame,
                                   NETDEV_DUMMY_FRAME_MAX + 1), EINVAL);
    for (int i = 0; i < 1000; i++) {
        memset(frame, i & 0xff, sizeof frame);
        if (!netdev_dummy_receive(netdev, 1, frame, sizeof frame)) {
            n_queued++;
        }
    }
    CHECK(n_queued > 100 && n_queued < 1000, "%d queued", n_queued);
    CHECK(readable(fds[0]), "eventfd readable while frames wait");
    netdev_get_stats(netdev, &st);
    CHECK_INT(st.rx_ring_full, 1000 - n_queued);
    CHECK_INT(st.rx_packets, 0);

    CHECK_INT(netdev_rxq_recv(netdev_get_rxq(netdev, 0), &batch, 3),
              EAGAIN);
    for (int got = 0; got < n_queued; ) {
        int error2 = netdev_rxq_recv(netdev_get_rxq(netdev, 1), &batch, 3);

        CHECK_INT(error2, 0);
        if (error2) {
            break;
        }
        for (uint32_t i = 0; i < batch.count; i++) {
            const struct dp_packet *p = batch.packets[i];

            CHECK(p->size == sizeof frame && p->in_port == 3
                  && p->data[0] == ((got + (int) i) & 0xff)
                  && p->headroom >= VLAN_HEADER_LEN, "frame %d", got);
        }
        got += batch.count;
    }
    CHECK_INT(netdev_rxq_recv(netdev_get_rxq(netdev, 1), &batch, 3),
              EAGAIN);
    CHECK(!readable(fds[0]), "eventfd drained once the queue is empty");
    netdev_get_stats(netdev, &st);
    CHECK_INT(st.rx_packets, n_queued);
    CHECK_INT(netdev_dummy_receive(netdev, 1, frame, 60), 0);
    CHECK(readable(fds[0]), "eventfd readable again");
    netdev_close(netdev);
}

static void
test_dummy_tx(void)
{
    static const char path[] = "/tmp/test-netdev-dummy.pcap";
    struct netdev_options opts = { .n_rxq = 1, .n_txq = 2, .pcap = path };
    struct netdev_dummy_capture cap;
    struct dp_packet packets[DP_BATCH_SIZE];
    uint8_t frames[DP_BATCH_SIZE][64];
    struct pcap_record rec;
    struct pcap_file *pf;
    struct netdev *netdev;
    struct netdev_stats st;
    char *error = NULL;
    int n_sent = 0;
    int n_read = 0;

    CHECK_INT(netdev_open("dm1", "dummy", &opts, &netdev, &error), 0);
    if (!netdev) {
        free(error);
        return;
    }
    /* More than the capture keeps, in batches from both tx queues. */
    while (n_sent < NETDEV_DUMMY_CAPTURE_MAX + 100) {
        struct dp_batch batch;

        dp_batch_init(&batch);
        for (int i = 0; i < DP_BATCH_SIZE; i++) {
            memset(frames[i], 0, sizeof frames[i]);
            memcpy(frames[i], &n_sent, sizeof n_sent);
            dp_packet_init(&packets[i], frames[i], sizeof frames[i], 0);
            dp_batch_add(&batch, &packets[i]);
            n_sent++;
        }
        netdev_send(netdev, 0, &batch);
        netdev_run();           /* Drains the tx rings. */
    }
    netdev_get_stats(netdev, &st);
    CHECK_INT(st.tx_packets, n_sent);
    netdev_dummy_get_capture(netdev, true, &cap);
    CHECK_INT(cap.n, NETDEV_DUMMY_CAPTURE_MAX);
    CHECK_INT(cap.n_dropped, n_sent - NETDEV_DUMMY_CAPTURE_MAX);
    CHECK_INT(cap.n_overflow, 0);
    CHECK_INT(cap.n_captured, n_sent);
    if (cap.n) {
        int first;

        memcpy(&first, cap.frames[0].data, sizeof first);
        CHECK_INT(first, n_sent - NETDEV_DUMMY_CAPTURE_MAX);
    }
    netdev_dummy_capture_uninit(&cap);
    netdev_dummy_get_capture(netdev, false, &cap);
    CHECK_INT(cap.n, 0);
    netdev_dummy_capture_uninit(&cap);
    netdev_close(netdev);

    CHECK_INT(pcap_file_open(path, &pf, &error), 0);
    while (pf && !pcap_file_read(pf, &rec, NULL)) {
        int seq;

        memcpy(&seq, rec.data, sizeof seq);
        CHECK(rec.incl_len == 64 && seq == n_read, "pcap record %d", n_read);
        n_read++;
    }
    CHECK_INT(n_read, n_sent);
    pcap_file_close(pf);
    free(error);
    unlink(path);
}

static void
test_flow_compose(void)
{
    static const char *const flows[] = {
        "dl_src=00:00:00:00:00:01,dl_dst=00:00:00:00:00:02,ip,"
        "nw_src=10.0.0.1,nw_dst=10.0.0.2,nw_ttl=64,udp,tp_src=1,tp_dst=53",
        "dl_vlan=10,ip,nw_src=1.2.3.4,nw_dst=5.6.7.8,nw_tos=8,nw_ttl=3,"
        "tcp,tp_src=80,tp_dst=1234,tcp_flags=syn|ack",
        "ip,nw_src=1.1.1.1,nw_dst=2.2.2.2,nw_ttl=9,icmp,icmp_type=8,"
        "icmp_code=0",
        "arp,arp_op=1,arp_spa=10.0.0.1,arp_tpa=10.0.0.2,"
        "arp_sha=00:00:00:00:00:01",
        "ipv6,ipv6_src=fe80::1,ipv6_dst=fe80::2,nw_ttl=255,udp6,tp_src=5,"
        "tp_dst=6",
        "ipv6,ipv6_src=::1,ipv6_dst=::2,nw_ttl=255,icmp6,icmpv6_type=135,"
        "icmpv6_code=0,nd_target=fe80::9,nd_sll=00:00:00:00:00:07",
        "ip,nw_src=1.1.1.1,nw_dst=2.2.2.2,nw_ttl=9,nw_frag=later,udp",
        "dl_type=0x88cc",
    };

    for (size_t i = 0; i < ARRAY_SIZE(flows); i++) {
        uint8_t buf[FLOW_COMPOSE_MAX];
        struct netdev_flow_key key;
        struct flow flow, mask, got;
        struct dp_packet p;
        char *error;
        size_t n;

        error = match_parse(flows[i], NULL, NULL, &flow, &mask);
        CHECK(!error, "%s: %s", flows[i], error ? error : "");
        free(error);
        n = flow_compose(&flow, 0, buf, sizeof buf);
        CHECK(n >= 60, "%s: %zu bytes", flows[i], n);
        dp_packet_init(&p, buf, n, 0);
        miniflow_extract(&p, &key);
        miniflow_expand(&key.mf, &got);
        for (size_t w = 0; w < FLOW_U64S; w++) {
            uint64_t m = ((const uint64_t *) &mask)[w];

            CHECK(!((((const uint64_t *) &flow)[w]
                     ^ ((const uint64_t *) &got)[w]) & m),
                  "%s: word %zu differs", flows[i], w);
        }
        if (flow.dl_type == htons(ETH_TYPE_IP)) {
            size_t l3 = n > 14 && flow.vlans_tci[0] ? 18 : 14;

            CHECK_INT(flow_compose_csum(0, buf + l3, IP_HEADER_LEN), 0);
            if (flow.nw_proto == IP_PROTO_ICMP) {
                CHECK_INT(flow_compose_csum(0, buf + l3 + 20, 8), 0);
            }
        }
    }
}

int
main(void)
{
    test_byte_ring_basic();
    test_byte_ring_threads();
    test_dummy_disabled();
    netdev_dummy_enable();
    test_dummy_rx();
    test_dummy_tx();
    test_flow_compose();
    return check_finish("test-netdev-dummy");
}
