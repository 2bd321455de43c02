/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for the "afxdp" port provider on real veth pairs.  Needs root and
 * a kernel that lets libxdp attach its XDP program (exits 77 otherwise).
 * The program first moves into a network namespace of its own, so the
 * "here" ends of its veth pairs (sxd-afx0, sxd-afx2) vanish with it; the
 * other ends (sxd-afx1, sxd-afx3) live in namespace "sxd-afx-ns", where
 * packet sockets send and receive crafted frames.
 *
 * Each case runs in native and in generic XDP mode: byte-exact receive of
 * frames of many sizes (with writable headroom), byte-exact transmit of a
 * batch, counters that add up (kernel drops included), oversize and GSO
 * frames counted as tx drops, checksum-partial frames finished in
 * software, shared tx queues, open errors with their
 * messages (missing interface, more queues than it has, queue taken, no
 * root), no descriptor or XDP program left behind by close, and a VLAN
 * tag kept in the frame on the way in.
 *
 * Frames the test makes carry source MAC 02:41:46:58:xx:xx ("AFX"), so that
 * frames the kernel sends on its own are told apart.  Payloads come from a
 * fixed-seed generator.
 */
#include <autoconf.h>
#include "netdev/netdev.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/virtio_net.h>
#include "check.h"
#include "netns-test.h"
#include "packet/packets.h"
#include "base/util.h"

#define NS_NAME "sxd-afx-ns"
#define HERE0 "sxd-afx0"
#define THERE0 "sxd-afx1"
#define HERE1 "sxd-afx2"
#define THERE1 "sxd-afx3"

#define TEST_PORT_NO 7
#define TEST_ETHERTYPE 0x88b5       /* IEEE local experimental. */
#define WAIT_MS 3000                /* Longest wait for expected frames. */
#define QUIET_MS 150                /* How long "nothing more" waits. */
#define MAX_FRAME 9000
#define MAX_FRAMES 4096

static const struct netns_test_veth veths[] = {
    { HERE0, THERE0, NULL, NULL },
    { HERE1, THERE1, NULL, NULL },
};

/* The two provider types under test, "afxdp" (native) and generic. */
static const char *const modes[] = { "afxdp", "afxdp-generic" };

/* ---- Frames. ---- */

struct test_frame {
    uint8_t data[MAX_FRAME];
    size_t size;
};

static uint32_t rng_state = 0x5eed1234;

static uint32_t
rng_next(void)
{
    /* xorshift32: a fixed seed gives the same frames on every run. */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

/* Fills 'f' with a 'size'-byte test frame numbered 'seq' with random
 * payload, of 'ethertype' (TEST_ETHERTYPE if 0). */
static void
make_frame(struct test_frame *f, uint16_t seq, size_t size,
           uint16_t ethertype)
{
    static const uint8_t dst[6] = { 0x02, 0, 0, 0x41, 0, 0x01 };

    memcpy(f->data, dst, 6);
    f->data[6] = 0x02;
    f->data[7] = 'A';
    f->data[8] = 'F';
    f->data[9] = 'X';
    f->data[10] = seq >> 8;
    f->data[11] = seq;
    ethertype = ethertype ? ethertype : TEST_ETHERTYPE;
    f->data[12] = ethertype >> 8;
    f->data[13] = ethertype;
    for (size_t i = ETH_HEADER_LEN; i < size; i++) {
        f->data[i] = rng_next();
    }
    f->size = size;
}

static bool
is_test_frame(const uint8_t *data, size_t size)
{
    static const uint8_t prefix[] = { 0x02, 'A', 'F', 'X' };

    return size >= ETH_HEADER_LEN && !memcmp(data + 6, prefix, 4);
}

/* Frames received, copied out of the port's buffers. */
struct rx_set {
    uint8_t *data[MAX_FRAMES];
    uint32_t sizes[MAX_FRAMES];
    int n;                      /* Test frames stored. */
    int n_all;                  /* Frames seen, test frames or not. */
    uint64_t n_bytes;           /* Bytes of all frames seen. */
    int last_error;             /* Last error besides EAGAIN. */
    bool headroom_ok;           /* Every packet had writable headroom. */
};

static void
rx_set_clear(struct rx_set *set)
{
    for (int i = 0; i < set->n; i++) {
        free(set->data[i]);
    }
    memset(set, 0, sizeof *set);
    set->headroom_ok = true;
}

static void
rx_set_add(struct rx_set *set, const uint8_t *data, uint32_t size)
{
    set->n_all++;
    set->n_bytes += size;
    if (is_test_frame(data, size) && set->n < MAX_FRAMES) {
        set->data[set->n] = xmemdup(data, size);
        set->sizes[set->n++] = size;
    }
}

/* Index in 'set' of a frame equal to 'f', or -1. */
static int
rx_set_find(const struct rx_set *set, const struct test_frame *f)
{
    for (int i = 0; i < set->n; i++) {
        if (set->sizes[i] == f->size
            && !memcmp(set->data[i], f->data, f->size)) {
            return i;
        }
    }
    return -1;
}

/* Polls every rx queue of 'nd' until 'set' holds 'want' test frames or
 * 'timeout_ms' passed.  Writes into each packet's headroom, which must be
 * ours to write, and checks the frame is left alone. */
static void
collect(struct netdev *nd, struct rx_set *set, int want, int timeout_ms)
{
    long long deadline = time_msec() + timeout_ms;

    while (set->n < want && time_msec() < deadline) {
        bool idle = true;

        for (int q = 0; q < netdev_n_rxq(nd); q++) {
            struct dp_batch batch;
            struct dp_packet *p;
            int error;

            error = netdev_rxq_recv(netdev_get_rxq(nd, q), &batch,
                                    TEST_PORT_NO);
            if (error) {
                if (error != EAGAIN) {
                    set->last_error = error;
                }
                CHECK(!batch.count, "recv returned %s with %u packets",
                      strerror(error), batch.count);
                continue;
            }
            idle = false;
            DP_BATCH_FOR_EACH (i, p, &batch) {
                if (p->headroom < DP_PACKET_HEADROOM
                    || p->in_port != TEST_PORT_NO) {
                    set->headroom_ok = false;
                } else {
                    memset(p->data - DP_PACKET_HEADROOM, 0xa5,
                           DP_PACKET_HEADROOM);
                }
                rx_set_add(set, p->data, p->size);
            }
        }
        if (idle) {
            usleep(200);
        }
    }
    netdev_run();
}

/* Receives from 'nd' until nothing more comes for QUIET_MS. */
static void
collect_all(struct netdev *nd, struct rx_set *set)
{
    for (int last = -1; last != set->n_all; ) {
        last = set->n_all;
        collect(nd, set, INT32_MAX, QUIET_MS);
    }
}

/* Reads test frames from peer socket 'fd' into 'set' until it holds
 * 'want' or 'timeout_ms' passed. */
static void
peer_collect(int fd, struct rx_set *set, int want, int timeout_ms)
{
    static uint8_t buf[MAX_FRAME];
    long long deadline = time_msec() + timeout_ms;

    while (set->n < want) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        long long left = deadline - time_msec();
        ssize_t n;

        if (left <= 0 || poll(&pfd, 1, left) <= 0) {
            break;
        }
        n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n > 0) {
            rx_set_add(set, buf, n);
        }
    }
}

static void
peer_send(int fd, const struct test_frame *f)
{
    CHECK(send(fd, f->data, f->size, 0) == (ssize_t) f->size,
          "peer send of %zu bytes failed: %s", f->size, strerror(errno));
}

/* Sends 'frames[0..n)' (n <= DP_BATCH_SIZE) as one batch on tx queue
 * 'qid' of 'nd'; 'gso' marks which carry GSO metadata. */
static void
port_send(struct netdev *nd, int qid, struct test_frame *frames, int n,
          const bool *gso)
{
    struct dp_packet packets[DP_BATCH_SIZE];
    struct dp_batch batch;

    dp_batch_init(&batch);
    for (int i = 0; i < n && i < DP_BATCH_SIZE; i++) {
        dp_packet_init(&packets[i], frames[i].data, frames[i].size, 1);
        memset(&packets[i].vnet, 0, sizeof packets[i].vnet);
        if (gso && gso[i]) {
            packets[i].flags |= DP_PACKET_F_VNET;
            packets[i].vnet.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
            packets[i].vnet.gso_size = 1448;
        }
        dp_batch_add(&batch, &packets[i]);
    }
    netdev_send(nd, qid, &batch);
}

static struct netdev *
port_open(const char *ifname, const char *type, int n_rxq, int n_txq,
          char **errp)
{
    struct netdev_options opts = { .n_rxq = n_rxq, .n_txq = n_txq };
    struct netdev *nd = NULL;

    netdev_open(ifname, type, &opts, &nd, errp);
    return nd;
}

static bool
xdp_attached(const char *ifname)
{
    char *cmd = xasprintf("ip link show dev %s | grep -q ' xdp'", ifname);
    bool attached = !system(cmd);

    free(cmd);
    return attached;
}

/* ---- Cases, each run once per mode. ---- */

/* Frames of many sizes from the peer arrive byte-exact, in order, with
 * writable headroom, and are counted. */
static void
test_rx(const char *mode)
{
    static const size_t sizes[] = { 60, 64, 65, 128, 255, 256, 511, 1000,
                                    1499, 1514 };
    static struct test_frame frames[3 * ARRAY_SIZE(sizes)];
    static struct rx_set set;
    struct netdev_stats st;
    struct netdev *nd;
    char *error = NULL;
    int fd;

    nd = port_open(HERE0, mode, 1, 1, &error);
    CHECK(nd, "open: %s", error ? error : "?");
    free(error);
    if (!nd) {
        return;
    }
    rx_set_clear(&set);
    fd = netns_test_peer_socket(THERE0, false, false);
    for (size_t i = 0; i < ARRAY_SIZE(frames); i++) {
        make_frame(&frames[i], i, sizes[i % ARRAY_SIZE(sizes)], 0);
        peer_send(fd, &frames[i]);
    }
    collect(nd, &set, ARRAY_SIZE(frames), WAIT_MS);
    collect_all(nd, &set);
    CHECK_INT(set.n, ARRAY_SIZE(frames));
    CHECK_INT(set.last_error, 0);
    CHECK(set.headroom_ok, "a packet lacked headroom or port number");
    for (size_t i = 0; i < ARRAY_SIZE(frames) && i < (size_t) set.n; i++) {
        CHECK(set.sizes[i] == frames[i].size
              && !memcmp(set.data[i], frames[i].data, frames[i].size),
              "frame %zu (%zu bytes) arrived as %u bytes or changed", i,
              frames[i].size, set.sizes[i]);
    }
    netdev_get_stats(nd, &st);
    CHECK_INT(st.rx_packets, set.n_all);
    CHECK_INT(st.rx_bytes, set.n_bytes);
    CHECK_INT(st.rx_ring_full + st.rx_truncated + st.rx_errors, 0);
    CHECK_INT(netdev_health(nd), 0);
    close(fd);
    netdev_close(nd);
    rx_set_clear(&set);
}

/* A flood the port does not poll overflows the rings; afterwards every
 * frame sent is either received or counted as a kernel drop. */
static void
test_rx_drops(const char *mode)
{
    enum { N = 10000 };         /* More than the rx frames and ring. */
    static struct test_frame frame;
    static struct rx_set set;
    struct netdev_stats st;
    struct netdev *nd;
    int fd, n_sent = 0;

    nd = port_open(HERE0, mode, 1, 1, NULL);
    CHECK(nd, "open failed");
    if (!nd) {
        return;
    }
    rx_set_clear(&set);
    fd = netns_test_peer_socket(THERE0, false, false);
    for (int i = 0; i < N; i++) {
        make_frame(&frame, i, 64, 0);
        n_sent += send(fd, frame.data, frame.size, 0) == 64;
    }
    CHECK_INT(n_sent, N);
    collect_all(nd, &set);
    netdev_run();
    netdev_get_stats(nd, &st);
    CHECK(st.rx_ring_full > 0, "no kernel drops after %d unpolled frames",
          N);
    CHECK(st.rx_packets + st.rx_ring_full == (uint64_t) n_sent,
          "rx_packets %llu + rx_ring_full %llu != %d sent",
          (unsigned long long) st.rx_packets,
          (unsigned long long) st.rx_ring_full, n_sent);
    CHECK_INT(set.n, st.rx_packets);
    close(fd);
    netdev_close(nd);
    rx_set_clear(&set);
}

/* A batch goes out byte-exact; oversize and GSO frames in it are counted
 * as tx_too_big and the others still arrive.  With more tx queues than
 * sockets every queue works. */
static void
test_tx(const char *mode)
{
    static const struct {
        const char *name;
        int n_txq;
    } cases[] = {
        { "one tx queue", 1 },
        { "three tx queues share one socket", 3 },
    };

    for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
        static struct test_frame frames[DP_BATCH_SIZE];
        static struct rx_set set;
        bool gso[DP_BATCH_SIZE] = { false };
        uint64_t n_bytes = 0;
        int n_good = 0, n_bad = 0;
        struct netdev_stats st;
        struct netdev *nd;
        char buf[256] = "";
        int fd;

        check_set_context("%s: tx: %s", mode, cases[c].name);
        nd = port_open(HERE0, mode, 1, cases[c].n_txq, NULL);
        CHECK(nd, "open failed");
        if (!nd) {
            continue;
        }
        rx_set_clear(&set);
        fd = netns_test_peer_socket(THERE0, true, false);
        for (int i = 0; i < DP_BATCH_SIZE; i++) {
            /* Every 8th frame is too big for a UMEM frame (and the MTU),
             * every 8th from the 5th carries GSO metadata. */
            size_t size = (i % 8 == 3 ? 4000 + i
                           : 60 + (rng_next() % 1455));

            make_frame(&frames[i], 1000 + i, size, 0);
            gso[i] = i % 8 == 5;
            if (i % 8 == 3 || gso[i]) {
                n_bad++;
            } else {
                n_good++;
                n_bytes += size;
            }
        }
        for (int q = 0; q < cases[c].n_txq; q++) {
            port_send(nd, q, frames, DP_BATCH_SIZE, gso);
        }
        peer_collect(fd, &set, n_good * cases[c].n_txq, WAIT_MS);
        CHECK_INT(set.n, n_good * cases[c].n_txq);
        for (int i = 0; i < DP_BATCH_SIZE; i++) {
            bool bad = i % 8 == 3 || gso[i];

            CHECK((rx_set_find(&set, &frames[i]) >= 0) == !bad,
                  "frame %d (%zu bytes%s) %s", i, frames[i].size,
                  gso[i] ? ", GSO" : "", bad ? "went out" : "is missing");
        }
        netdev_get_stats(nd, &st);
        CHECK_INT(st.tx_packets, n_good * cases[c].n_txq);
        CHECK_INT(st.tx_bytes, n_bytes * cases[c].n_txq);
        CHECK_INT(st.tx_too_big, n_bad * cases[c].n_txq);
        CHECK_INT(st.tx_queue_full + st.tx_errors + st.tx_port_down, 0);
        netdev_get_status(nd, buf, sizeof buf);
        CHECK(strstr(buf, !strcmp(mode, "afxdp") ? "xdp-mode native"
                     : "xdp-mode generic")
              && (cases[c].n_txq == 1) == !strstr(buf, "shared tx"),
              "status \"%s\"", buf);
        close(fd);
        netdev_close(nd);
        rx_set_clear(&set);
    }
    check_set_context("%s", mode);
}

/* Returns the 16-bit ones' complement sum of 'size' bytes at 'p' added to
 * 'sum', folded. */
static uint16_t
csum_fold_add(uint32_t sum, const uint8_t *p, size_t size)
{
    for (size_t i = 0; i < size; i++) {
        sum += i % 2 ? p[i] : p[i] << 8;
    }
    while (sum > 0xffff) {
        sum = (sum >> 16) + (sum & 0xffff);
    }
    return sum;
}

/* Makes 'f' an IPv4 frame of 'size' bytes carrying UDP ('tcp' false) or
 * TCP with a correct L4 checksum, and 'partial' the same frame with the
 * checksum field holding only the pseudo-header sum, as a sender with tx
 * checksumming on leaves it; sets 'vnet' to describe that. */
static void
make_csum_frames(struct test_frame *f, struct test_frame *partial,
                 struct virtio_net_hdr *vnet, uint16_t seq, size_t size,
                 bool tcp)
{
    uint8_t *ip = f->data + ETH_HEADER_LEN;
    uint8_t *l4 = ip + 20;
    size_t l4_size = size - ETH_HEADER_LEN - 20;
    size_t field = tcp ? 16 : 6;
    uint8_t pseudo[12];
    uint16_t phsum, sum;

    make_frame(f, seq, size, 0x0800);
    memset(ip, 0, 20);
    ip[0] = 0x45;
    ip[2] = (size - ETH_HEADER_LEN) >> 8;
    ip[3] = size - ETH_HEADER_LEN;
    ip[8] = 64;
    ip[9] = tcp ? 6 : 17;
    memcpy(ip + 12, (uint8_t[]) { 10, 77, 0, 1, 10, 77, 0, 2 }, 8);
    sum = ~csum_fold_add(0, ip, 20);
    ip[10] = sum >> 8;
    ip[11] = sum;
    if (tcp) {
        l4[12] = 5 << 4;        /* Data offset: 20 bytes. */
    } else {
        l4[4] = l4_size >> 8;
        l4[5] = l4_size;
    }
    memcpy(pseudo, ip + 12, 8);
    pseudo[8] = 0;
    pseudo[9] = ip[9];
    pseudo[10] = l4_size >> 8;
    pseudo[11] = l4_size;
    phsum = csum_fold_add(0, pseudo, sizeof pseudo);

    l4[field] = l4[field + 1] = 0;
    sum = ~csum_fold_add(phsum, l4, l4_size);
    sum = sum || tcp ? sum : 0xffff;
    *partial = *f;
    l4[field] = sum >> 8;
    l4[field + 1] = sum;
    partial->data[ETH_HEADER_LEN + 20 + field] = phsum >> 8;
    partial->data[ETH_HEADER_LEN + 20 + field + 1] = phsum;

    memset(vnet, 0, sizeof *vnet);
    vnet->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
    vnet->csum_start = ETH_HEADER_LEN + 20;
    vnet->csum_offset = field;
}

/* Checksum-partial frames from another port leave with their checksums
 * finished; one whose offsets point outside it counts as tx_errors. */
static void
test_tx_csum(const char *mode)
{
    static const struct {
        size_t size;
        bool tcp;
    } cases[] = {
        { 60, false }, { 61, false }, { 100, true }, { 101, true },
        { 777, false }, { 1514, true }, { 1513, false },
    };
    static struct test_frame frames[ARRAY_SIZE(cases) + 1];
    static struct test_frame partial[ARRAY_SIZE(cases) + 1];
    static struct rx_set set;
    struct dp_packet packets[ARRAY_SIZE(cases) + 1];
    struct dp_batch batch;
    struct netdev_stats st;
    struct netdev *nd;
    size_t n = ARRAY_SIZE(cases);
    int fd;

    nd = port_open(HERE0, mode, 1, 1, NULL);
    CHECK(nd, "open failed");
    if (!nd) {
        return;
    }
    rx_set_clear(&set);
    fd = netns_test_peer_socket(THERE0, true, false);
    dp_batch_init(&batch);
    for (size_t i = 0; i <= n; i++) {
        struct virtio_net_hdr vnet;

        make_csum_frames(&frames[i], &partial[i], &vnet, 2000 + i,
                         i < n ? cases[i].size : 200, i < n && cases[i].tcp);
        if (i == n) {
            vnet.csum_start = 199;      /* The field ends past the frame. */
        }
        dp_packet_init(&packets[i], partial[i].data, partial[i].size, 1);
        packets[i].flags |= DP_PACKET_F_VNET;
        packets[i].vnet = vnet;
        dp_batch_add(&batch, &packets[i]);
    }
    netdev_send(nd, 0, &batch);
    peer_collect(fd, &set, n, WAIT_MS);
    CHECK_INT(set.n, n);
    for (size_t i = 0; i < n; i++) {
        CHECK(rx_set_find(&set, &frames[i]) >= 0,
              "%s frame of %zu bytes: missing or wrong checksum",
              cases[i].tcp ? "TCP" : "UDP", cases[i].size);
    }
    CHECK(rx_set_find(&set, &partial[n]) < 0
          && rx_set_find(&set, &frames[n]) < 0, "bad frame went out");
    netdev_get_stats(nd, &st);
    CHECK_INT(st.tx_packets, n);
    CHECK_INT(st.tx_errors, 1);
    CHECK_INT(st.tx_too_big + st.tx_queue_full, 0);
    close(fd);
    netdev_close(nd);
    rx_set_clear(&set);
}

/* Opening fails with a message naming the interface and the way out. */
static void
test_open_errors(const char *mode)
{
    static const struct {
        const char *name;
        const char *ifname;
        int n_rxq;
        const char *want;
    } cases[] = {
        { "missing interface", "sxd-afx-none", 1,
          "interface sxd-afx-none does not exist" },
        { "more queues than the veth", HERE0, 2,
          "interface sxd-afx0 has 1 receive queue, fewer than n_rxq 2" },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        int n_fds = netns_test_count_fds();
        char *error = NULL;
        struct netdev *nd;

        nd = port_open(cases[i].ifname, mode, cases[i].n_rxq, 1, &error);
        CHECK(!nd, "%s: opened", cases[i].name);
        CHECK(error && strstr(error, cases[i].want), "%s: error \"%s\"",
              cases[i].name, error ? error : "(none)");
        CHECK_INT(netns_test_count_fds(), n_fds);
        CHECK(!xdp_attached(HERE0), "%s: XDP left attached",
              cases[i].name);
        free(error);
        netdev_close(nd);
    }

    /* A second port on an interface whose queue is taken. */
    {
        struct netdev *a = port_open(HERE1, mode, 1, 1, NULL);
        struct netdev_options opts = { .n_rxq = 1, .n_txq = 1,
                                       .replaces = true };
        struct netdev *b = NULL;
        char *error = NULL;

        CHECK(a, "open of %s failed", HERE1);
        netdev_open(HERE1, mode, &opts, &b, &error);
        CHECK(!b, "second socket on a taken queue opened");
        CHECK(error && strstr(error, HERE1)
              && strstr(error, "remove the port in one reload"),
              "error \"%s\"", error ? error : "(none)");
        free(error);
        netdev_close(b);
        netdev_close(a);
    }
}

/* Without root the open fails and says what AF_XDP needs.  The open runs
 * in a child that gave up root and reports its error through a pipe. */
static void
test_no_permission(const char *mode)
{
    char msg[512] = "";
    int fds[2];
    pid_t pid;
    ssize_t n;

    if (pipe(fds)) {
        CHECK(false, "pipe: %s", strerror(errno));
        return;
    }
    pid = fork();
    if (!pid) {
        struct netdev *nd;
        char *error = NULL;

        close(fds[0]);
        if (setgid(65534) || setuid(65534)) {
            _exit(2);
        }
        nd = port_open(HERE0, mode, 1, 1, &error);
        if (write(fds[1], nd ? "opened" : error ? error : "no message",
                  strlen(nd ? "opened" : error ? error : "no message"))
            < 0) {
            _exit(3);
        }
        _exit(0);
    }
    close(fds[1]);
    n = read(fds[0], msg, sizeof msg - 1);
    msg[n > 0 ? n : 0] = '\0';
    close(fds[0]);
    CHECK(pid > 0 && waitpid(pid, NULL, 0) == pid, "child failed");
    CHECK(strstr(msg, "interface " HERE0) && strstr(msg, "needs root"),
          "unprivileged open: \"%s\"", msg);
    CHECK(!xdp_attached(HERE0), "XDP left attached");
}

/* Open and close leave no descriptor and no XDP program behind. */
static void
test_close(const char *mode)
{
    int n_fds = netns_test_count_fds();

    for (int i = 0; i < 3; i++) {
        struct netdev *nd = port_open(HERE0, mode, 1, 2, NULL);

        CHECK(nd, "open %d failed", i);
        CHECK(xdp_attached(HERE0), "no XDP program while open");
        netdev_close(nd);
    }
    CHECK_INT(netns_test_count_fds(), n_fds);
    CHECK(!xdp_attached(HERE0), "XDP program left after close");
}

/* A frame sent tagged into the peer of a veth reaches the port with its
 * tag in the frame bytes: XDP runs before the kernel would move the tag
 * into skb metadata (where a packet socket finds it). */
static void
test_rx_vlan(const char *mode)
{
    static struct test_frame tagged, untagged;
    static struct rx_set set;
    struct netdev *nd;
    int fd;

    nd = port_open(HERE0, mode, 1, 1, NULL);
    CHECK(nd, "open failed");
    if (!nd) {
        return;
    }
    rx_set_clear(&set);
    make_frame(&untagged, 77, 100, 0);
    /* The same frame with an 802.1Q tag (VLAN 10) after the MACs. */
    memcpy(tagged.data, untagged.data, 12);
    tagged.data[12] = 0x81;
    tagged.data[13] = 0x00;
    tagged.data[14] = 0x00;
    tagged.data[15] = 10;
    memcpy(tagged.data + 16, untagged.data + 12, untagged.size - 12);
    tagged.size = untagged.size + 4;

    fd = netns_test_peer_socket(THERE0, false, false);
    peer_send(fd, &tagged);
    collect(nd, &set, 1, WAIT_MS);
    CHECK_INT(set.n, 1);
    if (set.n == 1) {
        bool has_tag = rx_set_find(&set, &tagged) >= 0;
        bool no_tag = rx_set_find(&set, &untagged) >= 0;

        printf("%s: a tagged frame sent into the veth peer arrives %s\n",
               mode, has_tag ? "with its tag" : no_tag ? "untagged"
               : "changed");
        CHECK(has_tag, "expected the tag in the frame (%s)",
              no_tag ? "it is gone: update netdev-afxdp.c" : "changed");
    }
    close(fd);
    netdev_close(nd);
    rx_set_clear(&set);
}

struct test_case {
    const char *name;
    void (*run)(const char *mode);
};

static const struct test_case cases[] = {
    { "rx", test_rx },
    { "rx-drops", test_rx_drops },
    { "tx", test_tx },
    { "tx-csum", test_tx_csum },
    { "open-errors", test_open_errors },
    { "no-permission", test_no_permission },
    { "close", test_close },
    { "rx-vlan", test_rx_vlan },
};

/* Returns true if AF_XDP works here; otherwise says why. */
static bool
afxdp_works(void)
{
    struct netdev *nd;
    char *error = NULL;

    if (!netdev_type_exists("afxdp")) {
        printf("test-netdev-afxdp: built without AF_XDP, skipped\n");
        return false;
    }
    nd = port_open(HERE0, "afxdp", 1, 1, &error);
    if (!nd) {
        printf("test-netdev-afxdp: cannot attach AF_XDP (%s), skipped\n",
               error ? error : "?");
        free(error);
        return false;
    }
    netdev_close(nd);
    return true;
}

int
main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (geteuid()) {
        printf("test-netdev-afxdp: needs root, skipped\n");
        return 77;
    }
    /* Our own namespace: the "here" ends go away with the process. */
    if (unshare(CLONE_NEWNET) || !netns_test_shell("ip link set lo up")) {
        printf("test-netdev-afxdp: cannot make a network namespace, "
               "skipped\n");
        return 77;
    }
    if (!netns_test_setup(NS_NAME, veths, ARRAY_SIZE(veths))) {
        printf("test-netdev-afxdp: cannot create namespace and veth pairs, "
               "skipped\n");
        netns_test_cleanup();
        return 77;
    }
    if (!afxdp_works()) {
        netns_test_cleanup();
        return 77;
    }

    for (size_t m = 0; m < ARRAY_SIZE(modes); m++) {
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
            int before = check_n_failed();

            check_set_context("%s", modes[m]);
            cases[i].run(modes[m]);
            if (check_n_failed() != before) {
                printf("test %s (%s): FAILED\n", cases[i].name, modes[m]);
            }
        }
    }
    check_set_context("%s", "");
    return check_finish("test-netdev-afxdp");
}
