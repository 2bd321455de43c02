/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests of the dummy port provider, no root: refused until enabled, a
 * dummy port's receive queue (bounded, full queue counted as rx_ring_full,
 * eventfd readable exactly while frames wait), its transmit capture
 * (oldest dropped and counted) and pcap file (read back with the pcap
 * reader).
 */
#include <autoconf.h>

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "netdev/netdev.h"
#include "netdev/netdev-dummy.h"
#include "packet/dp-packet.h"
#include "packet/packets.h"
#include "packet/pcap-file.h"
#include "check.h"

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

/* Tx queues grow in place up to 'max_txq', and the new ones send. */
static void
test_dummy_grow_txqs(void)
{
    struct netdev_options opts = { .n_rxq = 1, .n_txq = 1, .max_txq = 3 };
    struct netdev_dummy_capture cap;
    struct dp_packet packet;
    uint8_t frame[64] = { 0 };
    struct dp_batch batch;
    struct netdev *netdev;
    char *error = NULL;

    CHECK_INT(netdev_open("dm2", "dummy", &opts, &netdev, &error), 0);
    if (!netdev) {
        free(error);
        return;
    }
    CHECK_INT(netdev_n_txq(netdev), 1);
    CHECK_INT(netdev_set_n_txq(netdev, 3, &error), 0);
    CHECK_INT(netdev_n_txq(netdev), 3);
    CHECK_INT(netdev_set_n_txq(netdev, 2, &error), 0);
    CHECK_INT(netdev_n_txq(netdev), 3);
    CHECK_INT(netdev_set_n_txq(netdev, 4, &error), EOPNOTSUPP);
    CHECK_INT(netdev_n_txq(netdev), 3);
    CHECK(!error, "error set: %s", error);

    for (int qid = 0; qid < 3; qid++) {
        frame[0] = qid;
        dp_packet_init(&packet, frame, sizeof frame, 0);
        dp_batch_init(&batch);
        dp_batch_add(&batch, &packet);
        netdev_send(netdev, qid, &batch);
    }
    netdev_run();
    netdev_dummy_get_capture(netdev, true, &cap);
    CHECK_INT(cap.n, 3);
    netdev_dummy_capture_uninit(&cap);
    netdev_close(netdev);
}

int
main(void)
{
    test_dummy_disabled();
    netdev_dummy_enable();
    test_dummy_rx();
    test_dummy_tx();
    test_dummy_grow_txqs();
    return check_finish("test-netdev-dummy");
}
