/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for the port layer and its AF_PACKET providers on real veth pairs.
 * Needs root (exits 77 otherwise): it makes network namespace "ndt-a" and
 * two veth pairs whose "a" ends (ndt0a, ndt1a) stay in the test's namespace
 * for the provider to open and whose "b" ends sit in ndt-a, where the test
 * sends and receives crafted frames on packet sockets.  Everything is
 * removed at exit, on a fatal signal, and before the run in case an earlier
 * run was killed.
 *
 * Every case runs once per provider in 'providers'; a provider not compiled
 * in is skipped.  Frames the test makes carry source MAC 02:4e:44:54:xx:xx
 * so that anything the kernel itself sends on the link is told apart.
 */
#include <autoconf.h>
#include "netdev/netdev.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include "check.h"
#include "netns-test.h"
#include "packet/packets.h"
#include "base/util.h"

#define NS_NAME "ndt-a"
#define IF0_A "ndt0a"
#define IF0_B "ndt0b"
#define IF1_A "ndt1a"
#define IF1_B "ndt1b"

#define TEST_PORT_NO 7
#define TEST_ETHERTYPE 0x88b5       /* IEEE local experimental. */
#define WAIT_MS 2000                /* Longest wait for expected frames. */
#define QUIET_MS 100                /* How long "nothing arrives" waits. */
#define MAX_FRAME 70000
#define MAX_FRAMES 128

static const char *const providers[] = { "mmsg", "tpacket" };

/* The veth pairs: "a" ends here for the provider, "b" ends in NS_NAME. */
static const struct netns_test_veth veths[] = {
    { IF0_A, IF0_B, "02:00:00:00:00:0a", "02:00:00:00:00:0b" },
    { IF1_A, IF1_B, "02:00:00:00:01:0a", "02:00:00:00:01:0b" },
};

/* Sends 'frame' on peer socket 'fd', preceded by 'vnet' if nonnull (the
 * socket must then have PACKET_VNET_HDR). */
static void
peer_send(int fd, const uint8_t *frame, size_t size,
          const struct virtio_net_hdr *vnet)
{
    struct iovec iov[2];
    struct msghdr mh;
    int n = 0;

    memset(&mh, 0, sizeof mh);
    if (vnet) {
        iov[n].iov_base = (void *) vnet;
        iov[n++].iov_len = sizeof *vnet;
    }
    iov[n].iov_base = (void *) frame;
    iov[n++].iov_len = size;
    mh.msg_iov = iov;
    mh.msg_iovlen = n;
    CHECK(sendmsg(fd, &mh, 0) == (ssize_t) (size + (vnet ? sizeof *vnet : 0)),
          "peer send of %zu bytes failed: %s", size, strerror(errno));
}

/* A received frame, copied out of the provider's memory. */
struct frame {
    uint8_t *data;
    uint32_t size;
    uint16_t in_port;
    uint16_t flags;
    int qid;
    struct virtio_net_hdr vnet;
};

struct frame_set {
    struct frame frames[MAX_FRAMES];
    int n;                          /* Test frames stored. */
    int n_test;                     /* Test frames seen, stored or not. */
    int n_other;                    /* Frames the kernel made. */
    bool count_only;                /* Count test frames, store none. */
    uint64_t n_bytes_all;           /* Bytes of all frames. */
    int last_error;                 /* Last error besides EAGAIN. */
};

static void
frame_set_clear(struct frame_set *set)
{
    for (int i = 0; i < set->n; i++) {
        free(set->frames[i].data);
    }
    memset(set, 0, sizeof *set);
}

static bool
is_test_frame(const uint8_t *data, size_t size)
{
    static const uint8_t mac_prefix[] = { 0x02, 'N', 'D', 'T' };

    return size >= ETH_HEADER_LEN && !memcmp(data + 6, mac_prefix, 4);
}

static void
frame_set_add(struct frame_set *set, const uint8_t *data, uint32_t size,
              const struct virtio_net_hdr *vnet, uint16_t in_port,
              uint16_t flags, int qid)
{
    struct frame *f;

    set->n_bytes_all += size;
    if (!is_test_frame(data, size)) {
        set->n_other++;
        return;
    }
    set->n_test++;
    if (set->count_only) {
        return;
    }
    if (set->n >= MAX_FRAMES) {
        CHECK(false, "more than %d test frames", MAX_FRAMES);
        return;
    }
    f = &set->frames[set->n++];
    f->data = xmemdup(data, size);
    f->size = size;
    f->in_port = in_port;
    f->flags = flags;
    f->qid = qid;
    if (vnet) {
        f->vnet = *vnet;
    } else {
        memset(&f->vnet, 0, sizeof f->vnet);
    }
}

/* Polls every rx queue of 'nd' until 'want' test frames have arrived or
 * 'timeout_ms' has passed, adding what arrives to 'set'. */
static void
netdev_collect(struct netdev *nd, struct frame_set *set, int want,
               int timeout_ms)
{
    long long deadline = time_msec() + timeout_ms;

    while (set->n_test < want && time_msec() < deadline) {
        bool idle = true;

        netdev_run();
        for (int q = 0; q < netdev_n_rxq(nd); q++) {
            struct dp_batch batch;
            struct dp_packet *p;
            int error;

            dp_batch_init(&batch);
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
            CHECK(batch.count > 0 && batch.count <= DP_BATCH_SIZE,
                  "recv returned 0 with %u packets", batch.count);
            idle = false;
            DP_BATCH_FOR_EACH (i, p, &batch) {
                frame_set_add(set, p->data, p->size,
                              p->flags & DP_PACKET_F_VNET ? &p->vnet : NULL,
                              p->in_port, p->flags, q);
            }
        }
        if (idle) {
            usleep(200);
        }
    }
    netdev_run();
}

/* Reads frames from peer socket 'fd' (with a vnet header if 'vnet') until
 * 'want' test frames have arrived or 'timeout_ms' has passed. */
static void
peer_collect(int fd, bool vnet, struct frame_set *set, int want,
             int timeout_ms)
{
    static uint8_t buf[MAX_FRAME];
    long long deadline = time_msec() + timeout_ms;

    while (set->n_test < want) {
        struct virtio_net_hdr hdr;
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        struct iovec iov[2];
        struct msghdr mh;
        long long left = deadline - time_msec();
        ssize_t n;
        int k = 0;

        if (left <= 0 || poll(&pfd, 1, left) <= 0) {
            break;
        }
        if (vnet) {
            iov[k].iov_base = &hdr;
            iov[k++].iov_len = sizeof hdr;
        }
        iov[k].iov_base = buf;
        iov[k++].iov_len = sizeof buf;
        memset(&mh, 0, sizeof mh);
        mh.msg_iov = iov;
        mh.msg_iovlen = k;
        n = recvmsg(fd, &mh, MSG_DONTWAIT);
        if (n < 0) {
            continue;
        }
        if (vnet) {
            n -= sizeof hdr;
        }
        frame_set_add(set, buf, n, vnet ? &hdr : NULL, 0, 0, 0);
    }
}

/* Throws away whatever is queued on 'nd' and on peer socket 'fd'. */
static void
drain(struct netdev *nd, int fd)
{
    static struct frame_set junk;

    if (nd) {
        junk.count_only = true;
        netdev_collect(nd, &junk, INT32_MAX, 20);
        frame_set_clear(&junk);
    }
    if (fd >= 0) {
        uint8_t buf[2048];

        while (recv(fd, buf, sizeof buf, MSG_DONTWAIT | MSG_TRUNC) >= 0) {
            continue;
        }
    }
}

/* Index in 'set' of the test frame equal to 'data', or -1. */
static int
find_frame(const struct frame_set *set, const uint8_t *data, size_t size)
{
    for (int i = 0; i < set->n; i++) {
        if (set->frames[i].size == size
            && !memcmp(set->frames[i].data, data, size)) {
            return i;
        }
    }
    return -1;
}

/* ---- Frames. ---- */

struct test_frame {
    uint8_t data[MAX_FRAME];
    size_t size;
};

/* Writes the Ethernet addresses for test frame 'seq' into 'f' and returns
 * the offset after them. */
static size_t
put_macs(struct test_frame *f, uint16_t seq)
{
    static const uint8_t dst[] = { 0x02, 0, 0, 0, 0, 0x0a };

    memcpy(f->data, dst, 6);
    f->data[6] = 0x02;
    f->data[7] = 'N';
    f->data[8] = 'D';
    f->data[9] = 'T';
    f->data[10] = seq >> 8;
    f->data[11] = seq;
    return 12;
}

static size_t
put_be16(struct test_frame *f, size_t ofs, uint16_t x)
{
    f->data[ofs] = x >> 8;
    f->data[ofs + 1] = x;
    return ofs + 2;
}

/* Fills 'f' with a 'size'-byte frame: MACs, the 'n_tags' VLAN tags in
 * 'tags' (tpid << 16 | tci each), the test ethertype, then a pattern
 * derived from 'seq'. */
static void
make_frame(struct test_frame *f, uint16_t seq, size_t size,
           const uint32_t *tags, int n_tags)
{
    size_t ofs = put_macs(f, seq);

    for (int i = 0; i < n_tags; i++) {
        ofs = put_be16(f, ofs, tags[i] >> 16);
        ofs = put_be16(f, ofs, tags[i] & 0xffff);
    }
    ofs = put_be16(f, ofs, TEST_ETHERTYPE);
    for (size_t i = ofs; i < size; i++) {
        f->data[i] = (uint8_t) (seq * 31 + i * 7);
    }
    f->size = size;
}

/* Fills 'f' with an IPv4 frame (optionally VLAN-tagged with 'tag') carrying
 * 'l4_size' bytes of protocol 'proto' (TCP: 20-byte header; UDP: 8) from
 * 10.0.<seq>.1:<sport> to 10.1.0.<seq>:80.  Sets '*l4_ofs' to the
 * transport header's offset. */
static void
make_ip_frame(struct test_frame *f, uint16_t seq, uint32_t tag, int proto,
              size_t l4_size, uint16_t sport, size_t *l4_ofs)
{
    size_t ofs = put_macs(f, seq);
    uint32_t sum = 0;
    size_t ip;

    if (tag) {
        ofs = put_be16(f, ofs, tag >> 16);
        ofs = put_be16(f, ofs, tag & 0xffff);
    }
    ofs = put_be16(f, ofs, ETH_TYPE_IP);
    ip = ofs;
    memset(f->data + ip, 0, 20);
    f->data[ip] = 0x45;
    put_be16(f, ip + 2, 20 + l4_size);
    f->data[ip + 8] = 64;
    f->data[ip + 9] = proto;
    f->data[ip + 12] = 10;
    f->data[ip + 14] = seq;
    f->data[ip + 15] = 1;
    f->data[ip + 16] = 10;
    f->data[ip + 17] = 1;
    f->data[ip + 19] = seq;
    for (int i = 0; i < 20; i += 2) {
        sum += f->data[ip + i] << 8 | f->data[ip + i + 1];
    }
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    put_be16(f, ip + 10, ~sum & 0xffff);

    ofs = ip + 20;
    *l4_ofs = ofs;
    memset(f->data + ofs, 0, l4_size);
    put_be16(f, ofs, sport);
    put_be16(f, ofs + 2, 80);
    if (proto == IP_PROTO_TCP) {
        f->data[ofs + 12] = 5 << 4;
        f->data[ofs + 13] = 0x18;   /* PSH, ACK. */
        put_be16(f, ofs + 14, 65535);
        for (size_t i = 20; i < l4_size; i++) {
            f->data[ofs + i] = (uint8_t) (i * 13 + seq);
        }
    } else {
        put_be16(f, ofs + 4, l4_size);
        for (size_t i = 8; i < l4_size; i++) {
            f->data[ofs + i] = (uint8_t) (i * 13 + seq);
        }
    }
    f->size = ofs + l4_size;
}

/* ---- Test cases.  Each gets the provider type to test. ---- */

static struct netdev *
open_or_fail(const char *ifname, const char *type, int n_rxq, int n_txq)
{
    struct netdev_options opts = { .n_rxq = n_rxq, .n_txq = n_txq };
    struct netdev *nd = NULL;
    char *err = NULL;
    int error;

    error = netdev_open(ifname, type, &opts, &nd, &err);
    CHECK(!error && nd, "cannot open %s: %s", ifname, err ? err : "?");
    free(err);
    return error ? NULL : nd;
}

/* Opens a port of provider 'type' on IF0_A with 'n_rxq' and 'n_txq'
 * queues and, if that worked, a peer socket on IF0_B into '*fdp' ('rx'
 * and 'vnet' as for netns_test_peer_socket()).  Returns the port, or NULL
 * after a failed check. */
static struct netdev *
open_with_peer(const char *type, int n_rxq, int n_txq, bool rx, bool vnet,
               int *fdp)
{
    struct netdev *nd = open_or_fail(IF0_A, type, n_rxq, n_txq);

    if (nd) {
        *fdp = netns_test_peer_socket(IF0_B, rx, vnet);
    }
    return nd;
}

/* Ends a case of open_with_peer(): frees 'set', closes 'fd' and 'nd'. */
static void
close_with_peer(struct netdev *nd, int fd, struct frame_set *set)
{
    frame_set_clear(set);
    close(fd);
    netdev_close(nd);
}

/* Opens with the given arguments, expecting failure 'want_error' with a
 * message containing 'want_msg'. */
static void
expect_open_error(const char *ifname, const char *type, int n_rxq,
                  int n_txq, int want_error, const char *want_msg)
{
    struct netdev_options opts = { .n_rxq = n_rxq, .n_txq = n_txq };
    struct netdev *nd = (struct netdev *) &opts;
    char *err = NULL;
    int error;

    error = netdev_open(ifname, type, &opts, &nd, &err);
    CHECK(error == want_error, "open %s: got %d (%s), want %d", ifname,
          error, strerror(error), want_error);
    CHECK(!nd, "open %s failed but returned a netdev", ifname);
    CHECK(err && strstr(err, want_msg), "open %s: message \"%s\" lacks "
          "\"%s\"", ifname, err ? err : "(none)", want_msg);
    free(err);
    if (!error) {
        netdev_close(nd);
    }
}

static void
test_open_errors(const char *type)
{
    struct netdev *nd;
    char status[256];

    expect_open_error("ndt-missing0", type, 1, 1, ENODEV,
                      "interface ndt-missing0 does not exist");
    expect_open_error("ndt-name-too-long-0", type, 1, 1, EINVAL,
                      "invalid interface name");
    expect_open_error(IF0_A, type, 0, 1, EINVAL, "n_rxq");
    expect_open_error(IF0_A, type, 1, 0, EINVAL, "n_txq");
    expect_open_error(IF0_A, "ndt-no-such-type", 1, 1, EAFNOSUPPORT,
                      "unknown port type");

    nd = open_or_fail(IF0_A, type, 1, 2);
    if (!nd) {
        return;
    }
    CHECK(!strcmp(netdev_get_name(nd), IF0_A), "name %s",
          netdev_get_name(nd));
    CHECK(!strcmp(netdev_get_type(nd), type), "type %s", netdev_get_type(nd));
    CHECK(netdev_get_ifindex(nd) == (int) if_nametoindex(IF0_A),
          "ifindex %d", netdev_get_ifindex(nd));
    CHECK(netdev_n_rxq(nd) == 1 && netdev_n_txq(nd) == 2, "queues %d/%d",
          netdev_n_rxq(nd), netdev_n_txq(nd));
    CHECK(netdev_get_rxq(nd, 0)
          && netdev_rxq_get_netdev(netdev_get_rxq(nd, 0)) == nd
          && netdev_rxq_get_qid(netdev_get_rxq(nd, 0)) == 0, "rxq 0");
    CHECK(!netdev_get_rxq(nd, 1) && !netdev_get_rxq(nd, -1), "rxq range");
    CHECK(netdev_health(nd) == 0, "health %d", netdev_health(nd));
    strcpy(status, "status: ");
    netdev_get_status(nd, status, sizeof status);
    CHECK(!strncmp(status, "status: ", 8) && strstr(status, type),
          "status \"%s\" does not name the type", status);

    /* A second port on the same interface would duplicate every frame. */
    expect_open_error(IF0_A, type, 1, 1, EBUSY, "already open");
    netdev_close(nd);

    /* After close the interface can be opened again. */
    nd = open_or_fail(IF0_A, type, 1, 1);
    netdev_close(nd);
    netdev_close(NULL);
}

/* True if provider 'type' opens ports with more than one rx queue; a
 * provider may refuse with EOPNOTSUPP, and then multi-queue checks are
 * skipped for it. */
static bool
supports_multiqueue(const char *type)
{
    struct netdev_options opts = { .n_rxq = 2, .n_txq = 1 };
    struct netdev *nd = NULL;
    char *err = NULL;
    int error;

    error = netdev_open(IF0_A, type, &opts, &nd, &err);
    free(err);
    netdev_close(nd);
    if (error == EOPNOTSUPP) {
        printf("test-netdev: provider %s: one rx queue only, multi-queue "
               "checks skipped\n", type);
    }
    return error != EOPNOTSUPP;
}

/* A port that fails half-way through opening (out of descriptors for a tx
 * queue's first or second socket, or for the third rx queue with mmsg)
 * leaves nothing behind and says which interface failed.  Each tx queue
 * takes two descriptors and is opened before the rx queues. */
static void
test_open_rollback(const char *type)
{
    static const struct {
        const char *name;
        int n_free;
        int n_rxq;
        int n_txq;
    } cases[] = {
        { "plain socket of the first tx queue", 1, 1, 1 },
        { "second tx queue", 2, 1, 2 },
        { "plain socket of the second tx queue", 3, 1, 2 },
        { "third rx queue", 4, 4, 1 },
        { "no descriptor at all", 0, 1, 1 },
    };

    bool multiqueue = supports_multiqueue(type);

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        struct netdev_options opts = { .n_rxq = cases[i].n_rxq,
                                       .n_txq = cases[i].n_txq };
        int n_fds = netns_test_count_fds();
        struct netdev *nd = NULL;
        struct rlimit saved;
        char *err = NULL;
        int error;

        if (opts.n_rxq > 1 && !multiqueue) {
            continue;
        }
        if (getrlimit(RLIMIT_NOFILE, &saved)
            || !netns_test_limit_free_fds(cases[i].n_free)) {
            CHECK(false, "%s: cannot lower RLIMIT_NOFILE", cases[i].name);
            continue;
        }
        error = netdev_open(IF0_A, type, &opts, &nd, &err);
        setrlimit(RLIMIT_NOFILE, &saved);

        CHECK(error == EMFILE, "%s: open returned %d (%s), want EMFILE",
              cases[i].name, error, strerror(error));
        CHECK(!nd, "%s: failed open returned a netdev", cases[i].name);
        CHECK(err && strstr(err, IF0_A), "%s: message \"%s\" does not "
              "name the interface", cases[i].name, err ? err : "(none)");
        CHECK(netns_test_count_fds() == n_fds, "%s: %d descriptors before, %d "
              "after", cases[i].name, n_fds, netns_test_count_fds());
        free(err);
        if (!error) {
            netdev_close(nd);
        }
    }

    /* Nothing of the failed attempts stays registered. */
    netdev_close(open_or_fail(IF0_A, type, multiqueue ? 2 : 1, 2));
}

/* Checks that rx counters of 'nd' account for exactly 'set'. */
static void
check_rx_conservation(struct netdev *nd, const struct frame_set *set)
{
    struct netdev_stats st;

    netdev_get_stats(nd, &st);
    CHECK(st.rx_packets == (uint64_t) (set->n_test + set->n_other),
          "rx_packets %llu, received %d", (unsigned long long) st.rx_packets,
          set->n_test + set->n_other);
    CHECK(st.rx_bytes == set->n_bytes_all, "rx_bytes %llu, received %llu",
          (unsigned long long) st.rx_bytes,
          (unsigned long long) set->n_bytes_all);
    CHECK(!st.rx_ring_full && !st.rx_truncated && !st.rx_errors,
          "rx drops: ring_full %llu truncated %llu errors %llu",
          (unsigned long long) st.rx_ring_full,
          (unsigned long long) st.rx_truncated,
          (unsigned long long) st.rx_errors);
}

/* Sends 'n' frames from the peer and expects each to arrive once, with
 * the same bytes, 'in_port' set, no offload work to do. */
static void
test_rx_basic(const char *type)
{
    static struct test_frame frames[40];
    static struct frame_set set;
    int n = ARRAY_SIZE(frames);
    struct netdev *nd;
    int fd;

    nd = open_with_peer(type, 1, 1, false, false, &fd);
    if (!nd) {
        return;
    }
    for (int i = 0; i < n; i++) {
        /* Sizes from the minimum to the MTU, the larger ones a full batch
         * apart so that several batches are needed. */
        make_frame(&frames[i], i, 60 + (i * 1454) / (n - 1), NULL, 0);
        peer_send(fd, frames[i].data, frames[i].size, NULL);
    }
    netdev_collect(nd, &set, n, WAIT_MS);

    CHECK(set.n == n, "received %d of %d frames", set.n, n);
    for (int i = 0; i < n; i++) {
        int k = find_frame(&set, frames[i].data, frames[i].size);

        CHECK(k >= 0, "frame %d (%zu bytes) missing or altered", i,
              frames[i].size);
        if (k >= 0) {
            const struct frame *f = &set.frames[k];

            CHECK(f->in_port == TEST_PORT_NO, "in_port %u", f->in_port);
            CHECK(!(f->flags & DP_PACKET_F_VNET)
                  || !(f->vnet.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM),
                  "frame %d claims a partial checksum", i);
            CHECK(!(f->flags & DP_PACKET_F_VNET)
                  || f->vnet.gso_type == VIRTIO_NET_HDR_GSO_NONE,
                  "frame %d claims GSO", i);
        }
    }
    check_rx_conservation(nd, &set);
    close_with_peer(nd, fd, &set);
}

/* Tagged frames lose their tag to metadata in the kernel; the provider
 * must put it back so that the bytes are what was sent. */
static void
test_rx_vlan(const char *type)
{
    static const struct {
        const char *name;
        uint32_t tags[2];
        int n_tags;
    } cases[] = {
        { "802.1Q vid 100 pcp 3", { 0x8100u << 16 | 3 << 13 | 100 }, 1 },
        { "802.1Q vid 0 (priority tag)", { 0x8100u << 16 | 5 << 13 }, 1 },
        { "802.1ad vid 4094", { 0x88a8u << 16 | 4094 }, 1 },
        { "QinQ 802.1ad 20 + 802.1Q 30",
          { 0x88a8u << 16 | 20, 0x8100u << 16 | 30 }, 2 },
    };
    static struct test_frame frames[ARRAY_SIZE(cases)];
    static struct frame_set set;
    int n = ARRAY_SIZE(cases);
    struct netdev *nd;
    int fd;

    nd = open_with_peer(type, 1, 1, false, false, &fd);
    if (!nd) {
        return;
    }
    for (int i = 0; i < n; i++) {
        make_frame(&frames[i], 100 + i, 200, cases[i].tags, cases[i].n_tags);
        peer_send(fd, frames[i].data, frames[i].size, NULL);
    }
    netdev_collect(nd, &set, n, WAIT_MS);

    CHECK(set.n == n, "received %d of %d tagged frames", set.n, n);
    for (int i = 0; i < n; i++) {
        CHECK(find_frame(&set, frames[i].data, frames[i].size) >= 0,
              "%s: frame missing or tag not restored", cases[i].name);
    }
    check_rx_conservation(nd, &set);
    close_with_peer(nd, fd, &set);
}

/* A checksum-partial TCP frame (what a local TCP socket hands veth) and a
 * GSO super-frame keep their offload metadata, also when tagged. */
static void
test_rx_offload(const char *type)
{
    static const struct {
        const char *name;
        uint32_t tag;
        size_t l4_size;
        uint16_t gso_size;
    } cases[] = {
        { "csum partial", 0, 20 + 100, 0 },
        { "csum partial, tagged", 0x8100u << 16 | 42, 20 + 100, 0 },
        { "gso 20000 bytes", 0, 20 + 20000, 1448 },
        { "gso 64 KB", 0, 65000, 1448 },
        { "gso 20000 bytes, tagged", 0x8100u << 16 | 43, 20 + 20000, 1400 },
    };
    static struct test_frame frames[ARRAY_SIZE(cases)];
    static struct frame_set set;
    int n = ARRAY_SIZE(cases);
    struct netdev *nd;
    int fd;

    nd = open_with_peer(type, 1, 1, false, true, &fd);
    if (!nd) {
        return;
    }
    for (int i = 0; i < n; i++) {
        struct virtio_net_hdr vnet;
        size_t l4;

        make_ip_frame(&frames[i], 200 + i, cases[i].tag, IP_PROTO_TCP,
                      cases[i].l4_size, 1000 + i, &l4);
        memset(&vnet, 0, sizeof vnet);
        vnet.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
        vnet.csum_start = l4;
        vnet.csum_offset = 16;
        if (cases[i].gso_size) {
            vnet.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
            vnet.gso_size = cases[i].gso_size;
            vnet.hdr_len = l4 + 20;
        }
        peer_send(fd, frames[i].data, frames[i].size, &vnet);
    }
    netdev_collect(nd, &set, n, WAIT_MS);

    CHECK(set.n == n, "received %d of %d offload frames", set.n, n);
    for (int i = 0; i < n; i++) {
        int k = find_frame(&set, frames[i].data, frames[i].size);
        size_t l4 = cases[i].tag ? 38 : 34;
        const struct frame *f;

        CHECK(k >= 0, "%s: frame missing or altered", cases[i].name);
        if (k < 0) {
            continue;
        }
        f = &set.frames[k];
        CHECK(f->flags & DP_PACKET_F_VNET, "%s: no vnet header",
              cases[i].name);
        CHECK(f->vnet.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM,
              "%s: vnet flags %#x lack NEEDS_CSUM", cases[i].name,
              f->vnet.flags);
        CHECK(f->vnet.csum_start == l4 && f->vnet.csum_offset == 16,
              "%s: csum_start %u csum_offset %u, want %zu 16",
              cases[i].name, f->vnet.csum_start, f->vnet.csum_offset, l4);
        if (cases[i].gso_size) {
            CHECK(f->vnet.gso_type == VIRTIO_NET_HDR_GSO_TCPV4
                  && f->vnet.gso_size == cases[i].gso_size,
                  "%s: gso_type %u gso_size %u", cases[i].name,
                  f->vnet.gso_type, f->vnet.gso_size);
        } else {
            CHECK(f->vnet.gso_type == VIRTIO_NET_HDR_GSO_NONE,
                  "%s: gso_type %u", cases[i].name, f->vnet.gso_type);
        }
    }
    check_rx_conservation(nd, &set);
    close_with_peer(nd, fd, &set);
}

/* Makes a batch of dp_packets over 'frames', each with room before it. */
static void
make_batch(struct dp_batch *batch, struct dp_packet *packets,
           struct test_frame *frames, int n)
{
    dp_batch_init(batch);
    for (int i = 0; i < n; i++) {
        dp_packet_init(&packets[i], frames[i].data, frames[i].size, 0);
        dp_batch_add(batch, &packets[i]);
    }
}

/* netdev_send() delivers exact bytes to the peer, counts them, and the
 * port's own rx queue does not see them. */
static void
test_tx_basic(const char *type)
{
    static struct test_frame frames[DP_BATCH_SIZE + 8];
    static struct frame_set peer_set, self_set;
    struct dp_packet packets[DP_BATCH_SIZE];
    int n = ARRAY_SIZE(frames);
    struct netdev_stats st;
    struct dp_batch batch;
    uint64_t bytes = 0;
    struct netdev *nd;
    int fd;

    nd = open_with_peer(type, 1, 2, true, false, &fd);
    if (!nd) {
        return;
    }
    drain(nd, fd);
    for (int i = 0; i < n; i++) {
        make_frame(&frames[i], 300 + i, 60 + i * 37, NULL, 0);
        bytes += frames[i].size;
    }
    /* A full batch on queue 0, the rest on queue 1. */
    make_batch(&batch, packets, frames, DP_BATCH_SIZE);
    netdev_send(nd, 0, &batch);
    make_batch(&batch, packets, frames + DP_BATCH_SIZE, n - DP_BATCH_SIZE);
    netdev_send(nd, 1, &batch);
    dp_batch_init(&batch);
    netdev_send(nd, 1, &batch);

    peer_collect(fd, false, &peer_set, n, WAIT_MS);
    CHECK(peer_set.n == n, "peer received %d of %d frames", peer_set.n, n);
    for (int i = 0; i < n; i++) {
        CHECK(find_frame(&peer_set, frames[i].data, frames[i].size) >= 0,
              "frame %d (%zu bytes) missing or altered at the peer", i,
              frames[i].size);
    }

    netdev_get_stats(nd, &st);
    CHECK(st.tx_packets == (uint64_t) n && st.tx_bytes == bytes,
          "tx_packets %llu tx_bytes %llu, want %d %llu",
          (unsigned long long) st.tx_packets,
          (unsigned long long) st.tx_bytes, n, (unsigned long long) bytes);
    CHECK(!st.tx_queue_full && !st.tx_too_big && !st.tx_port_down
          && !st.tx_errors, "tx drops counted");

    /* The peer has them all, so any copy looped back is queued by now. */
    netdev_collect(nd, &self_set, 1, QUIET_MS);
    CHECK(self_set.n == 0, "own transmissions received %d times",
          self_set.n);
    netdev_get_stats(nd, &st);
    CHECK(st.rx_packets == (uint64_t) self_set.n_other,
          "rx_packets %llu after sending only",
          (unsigned long long) st.rx_packets);

    frame_set_clear(&self_set);
    close_with_peer(nd, fd, &peer_set);
}

/* Offload metadata given to netdev_send() reaches the peer: a GSO
 * super-frame arrives whole with its GSO fields. */
static void
test_tx_offload(const char *type)
{
    static struct test_frame frame;
    static struct frame_set set;
    struct dp_packet packet;
    struct netdev_stats st;
    struct dp_batch batch;
    struct netdev *nd;
    size_t l4;
    int fd;

    nd = open_with_peer(type, 1, 1, true, true, &fd);
    if (!nd) {
        return;
    }
    make_ip_frame(&frame, 400, 0, IP_PROTO_TCP, 20 + 30000, 4000, &l4);
    make_batch(&batch, &packet, &frame, 1);
    packet.flags |= DP_PACKET_F_VNET;
    memset(&packet.vnet, 0, sizeof packet.vnet);
    packet.vnet.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
    packet.vnet.csum_start = l4;
    packet.vnet.csum_offset = 16;
    packet.vnet.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
    packet.vnet.gso_size = 1448;
    packet.vnet.hdr_len = l4 + 20;
    netdev_send(nd, 0, &batch);

    peer_collect(fd, true, &set, 1, WAIT_MS);
    CHECK(set.n == 1, "peer received %d frames, want 1 GSO frame", set.n);
    if (set.n == 1) {
        const struct frame *f = &set.frames[0];

        CHECK(f->size == frame.size && !memcmp(f->data, frame.data,
                                                frame.size),
              "GSO frame arrived as %u bytes, sent %zu", f->size, frame.size);
        CHECK(f->vnet.gso_type == VIRTIO_NET_HDR_GSO_TCPV4
              && f->vnet.gso_size == 1448,
              "peer saw gso_type %u gso_size %u", f->vnet.gso_type,
              f->vnet.gso_size);
    }
    netdev_get_stats(nd, &st);
    CHECK(st.tx_packets == 1 && st.tx_bytes == frame.size,
          "tx_packets %llu tx_bytes %llu", (unsigned long long) st.tx_packets,
          (unsigned long long) st.tx_bytes);
    close_with_peer(nd, fd, &set);
}

/* A frame larger than the MTU without GSO is refused alone and counted as
 * tx_too_big; the frames around it still go out, whether it comes in the
 * middle of a batch or first. */
static void
test_tx_too_big(const char *type)
{
    static const size_t sizes[] = { 100, 3000, 200, 3000, 150 };
    static struct test_frame frames[ARRAY_SIZE(sizes)];
    static struct frame_set set;
    struct dp_packet packets[ARRAY_SIZE(sizes)];
    struct netdev_stats st;
    struct dp_batch batch;
    struct netdev *nd;
    int fd;

    nd = open_with_peer(type, 1, 1, true, false, &fd);
    if (!nd) {
        return;
    }
    drain(NULL, fd);
    for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
        make_frame(&frames[i], 500 + i, sizes[i], NULL, 0);
    }
    make_batch(&batch, packets, frames, 3);
    netdev_send(nd, 0, &batch);
    make_batch(&batch, packets + 3, frames + 3, 2);
    netdev_send(nd, 0, &batch);

    peer_collect(fd, false, &set, 3, WAIT_MS);
    CHECK(set.n == 3, "peer received %d frames, want 3", set.n);
    for (size_t i = 0; i < ARRAY_SIZE(sizes); i += 2) {
        CHECK(find_frame(&set, frames[i].data, frames[i].size) >= 0,
              "frame %zu of %zu bytes missing", i, sizes[i]);
    }
    netdev_get_stats(nd, &st);
    CHECK(st.tx_packets == 3 && st.tx_too_big == 2,
          "tx_packets %llu tx_too_big %llu, want 3 2",
          (unsigned long long) st.tx_packets,
          (unsigned long long) st.tx_too_big);
    CHECK(st.tx_packets + st.tx_queue_full + st.tx_too_big
          + st.tx_port_down + st.tx_errors == ARRAY_SIZE(sizes),
          "tx counters do not add up to the %zu frames sent",
          ARRAY_SIZE(sizes));
    close_with_peer(nd, fd, &set);
}

/* Reads a statistics counter of interface 'ifname' from sysfs. */
static uint64_t
read_if_stat(const char *ifname, const char *name)
{
    unsigned long long value = 0;
    char path[128];
    FILE *f;

    snprintf(path, sizeof path, "/sys/class/net/%s/statistics/%s", ifname,
             name);
    f = fopen(path, "r");
    if (f) {
        if (fscanf(f, "%llu", &value) != 1) {
            value = 0;
        }
        fclose(f);
    }
    return value;
}

/* A flood that overflows the socket buffer or ring while nobody polls:
 * every frame is either received or counted as a kernel drop (after
 * netdev_run() has collected the drop counters).  Drops before the packet
 * socket, in the veth backlog, show in the interface's rx_dropped. */
static void
test_rx_overload(const char *type, bool expect_drops)
{
    static struct test_frame frame;
    static struct frame_set set;
    const int n = 40000;
    uint64_t backlog_drops;
    struct netdev_stats st;
    struct netdev *nd;
    int n_sent = 0;
    int fd;

    nd = open_with_peer(type, 1, 1, false, false, &fd);
    if (!nd) {
        return;
    }
    backlog_drops = read_if_stat(IF0_A, "rx_dropped");
    make_frame(&frame, 800, 60, NULL, 0);
    for (int i = 0; i < n; i++) {
        n_sent += send(fd, frame.data, frame.size, 0) == (ssize_t) frame.size;
    }
    CHECK(n_sent == n, "peer sent only %d of %d frames", n_sent, n);

    /* Receive until nothing more comes. */
    set.count_only = true;
    for (int last = -1; last != set.n_test + set.n_other; ) {
        last = set.n_test + set.n_other;
        netdev_collect(nd, &set, INT32_MAX, QUIET_MS);
    }
    netdev_run();
    backlog_drops = read_if_stat(IF0_A, "rx_dropped") - backlog_drops;

    netdev_get_stats(nd, &st);
    CHECK(st.rx_packets == (uint64_t) (set.n_test + set.n_other),
          "rx_packets %llu, received %d", (unsigned long long) st.rx_packets,
          set.n_test + set.n_other);
    CHECK(st.rx_packets + st.rx_ring_full + backlog_drops
          == (uint64_t) (n_sent + set.n_other),
          "sent %d: rx_packets %llu + rx_ring_full %llu + backlog drops "
          "%llu do not add up", n_sent, (unsigned long long) st.rx_packets,
          (unsigned long long) st.rx_ring_full,
          (unsigned long long) backlog_drops);
    CHECK(!expect_drops || st.rx_ring_full > 0,
          "no kernel drops counted for a %d-frame flood", n);
    CHECK(!st.rx_truncated && !st.rx_errors, "truncated %llu errors %llu",
          (unsigned long long) st.rx_truncated,
          (unsigned long long) st.rx_errors);
    close_with_peer(nd, fd, &set);
}

static void
test_rx_overload_case(const char *type)
{
    /* The mmsg socket buffer is known to hold fewer frames than the
     * flood; a ring provider may hold them all. */
    test_rx_overload(type, !strcmp(type, "mmsg"));
}

/* Sends the first 'n' of 'frames' on 'nd' and checks that none comes
 * back on its rx queues.  The kernel hands packet sockets their copy of an
 * outgoing frame before sendmmsg returns, so a looped frame would be
 * queued by the time we poll. */
static void
check_own_tx_not_received(struct netdev *nd, struct test_frame *frames,
                          int n)
{
    static struct frame_set set;
    struct dp_packet packets[DP_BATCH_SIZE];
    struct dp_batch batch;

    make_batch(&batch, packets, frames, MIN(n, DP_BATCH_SIZE));
    netdev_send(nd, 0, &batch);
    netdev_collect(nd, &set, 1, QUIET_MS);
    CHECK(set.n_test == 0, "own transmissions received %d times",
          set.n_test);
    frame_set_clear(&set);
}

/* With two rx queues every flow lands on exactly one of them. */
static void
test_rx_multiqueue(const char *type)
{
    static struct test_frame frames[64];
    static struct frame_set set;
    int n = ARRAY_SIZE(frames);
    int per_queue[2] = { 0, 0 };
    struct netdev *nd;
    int fd;

    if (!supports_multiqueue(type)) {
        return;
    }
    nd = open_with_peer(type, 2, 1, false, false, &fd);
    if (!nd) {
        return;
    }
    for (int i = 0; i < n; i++) {
        size_t l4;

        make_ip_frame(&frames[i], 600 + i, 0, IP_PROTO_UDP, 64,
                      10000 + i * 17, &l4);
        peer_send(fd, frames[i].data, frames[i].size, NULL);
    }
    netdev_collect(nd, &set, n, WAIT_MS);
    CHECK(set.n == n, "received %d of %d frames over 2 queues", set.n, n);
    for (int i = 0; i < n; i++) {
        int k = find_frame(&set, frames[i].data, frames[i].size);

        CHECK(k >= 0, "frame %d missing", i);
        if (k >= 0) {
            per_queue[set.frames[k].qid]++;
        }
    }
    /* 64 flows all hashing to one queue has probability 2^-63. */
    CHECK(per_queue[0] && per_queue[1], "queue 0 got %d, queue 1 got %d",
          per_queue[0], per_queue[1]);
    check_rx_conservation(nd, &set);
    frame_set_clear(&set);

    /* A fanout group must not see the port's own transmissions either. */
    check_own_tx_not_received(nd, frames, 8);
    close_with_peer(nd, fd, &set);
}

/* Health follows the link: down, up again, then deleted.  Sending while
 * down is counted as tx_port_down. */
static void
test_link_state(const char *type)
{
    static struct test_frame frame;
    static struct frame_set set;
    struct dp_packet packet;
    struct netdev_stats st;
    struct dp_batch batch;
    struct netdev *nd;
    long long deadline;
    int health;

    nd = open_or_fail(IF1_A, type, 1, 1);
    if (!nd) {
        return;
    }
    CHECK(netdev_health(nd) == 0, "health %d while up", netdev_health(nd));

    netns_test_shell("ip link set %s down", IF1_A);
    health = netdev_health(nd);
    CHECK(health != 0, "health 0 while the link is down");
    make_frame(&frame, 700, 100, NULL, 0);
    make_batch(&batch, &packet, &frame, 1);
    netdev_send(nd, 0, &batch);
    netdev_get_stats(nd, &st);
    CHECK(st.tx_port_down == 1 && st.tx_packets == 0,
          "tx_port_down %llu tx_packets %llu after sending on a down link",
          (unsigned long long) st.tx_port_down,
          (unsigned long long) st.tx_packets);

    netns_test_shell("ip link set %s up", IF1_A);
    deadline = time_msec() + WAIT_MS;
    while ((health = netdev_health(nd)) && time_msec() < deadline) {
        usleep(1000);
    }
    CHECK(health == 0, "health %d after the link came back", health);

    netns_test_shell("ip link del %s", IF1_A);
    health = netdev_health(nd);
    CHECK(health != 0, "health 0 after the interface was deleted");
    netdev_collect(nd, &set, 1, QUIET_MS);
    CHECK(set.last_error == ENETDOWN, "recv after deletion: last error %d "
          "(%s), want ENETDOWN", set.last_error, strerror(set.last_error));
    frame_set_clear(&set);
    netdev_close(nd);

    /* Put the pair back for the next provider. */
    if (!netns_test_add_veth(&veths[1])) {
        CHECK(false, "cannot recreate %s", IF1_A);
    }
}

struct test_case {
    const char *name;
    void (*run)(const char *type);
};

static const struct test_case cases[] = {
    { "open-errors", test_open_errors },
    { "open-rollback", test_open_rollback },
    { "rx-basic", test_rx_basic },
    { "rx-vlan", test_rx_vlan },
    { "rx-offload", test_rx_offload },
    { "tx-basic", test_tx_basic },
    { "tx-offload", test_tx_offload },
    { "tx-too-big", test_tx_too_big },
    { "rx-overload", test_rx_overload_case },
    { "rx-multiqueue", test_rx_multiqueue },
    { "link-state", test_link_state },
};

int
main(void)
{
    int n_run = 0;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (geteuid()) {
        printf("test-netdev: needs root, skipped\n");
        return 77;
    }
    if (!netns_test_setup(NS_NAME, veths, ARRAY_SIZE(veths))) {
        printf("test-netdev: cannot create namespace and veth pairs, "
               "skipped\n");
        netns_test_cleanup();
        return 77;
    }

    for (size_t p = 0; p < ARRAY_SIZE(providers); p++) {
        const char *type = providers[p];

        if (!netdev_type_exists(type)) {
            printf("test-netdev: provider %s not compiled in, skipped\n",
                   type);
            continue;
        }
        for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
            int before = check_n_failed();

            check_set_context("%s %s", type, cases[c].name);
            cases[c].run(type);
            if (check_n_failed() != before) {
                printf("test %s: FAILED\n", check_context());
            }
            n_run++;
        }
    }
    check_set_context("%s", "");
    CHECK(!netdev_type_exists("ndt-no-such-type") && !netdev_type_exists(NULL)
          && netdev_type_exists("mmsg"), "netdev_type_exists");

    printf("test-netdev: %d case runs\n", n_run);
    return check_finish("test-netdev");
}
