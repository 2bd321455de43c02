/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for the "tap" port provider on real taps.  Needs root (exits 77
 * otherwise).  It makes namespace "ttap-ns" and a veth pair ttapv0/ttapv1
 * (ttapv1 in the namespace).  The provider creates the taps (ttap0, ttap1);
 * most cases then move the tap's kernel side into the namespace, send
 * frames there (from a packet socket, or from python3 sockets when python3
 * is installed) and check what the port's rx queues get, and read what the
 * port sends on a packet socket in the namespace.  Some cases make taps of
 * their own (ttap2, ttap-sq, ttap-tun) or a bridge ttapbr in the namespace.
 *
 * Clean-up.  A tap the provider made is not persistent and goes away with
 * the process, and so do the taps the test holds open.  The namespace (with
 * the bridge), the veth pair and the one persistent tap, ttap-sq, are
 * removed at exit, and before the run in case an earlier run was killed.
 *
 * Frames the test makes carry source MAC 02:54:41:50:xx:xx ("TAP"), so that
 * frames the kernel sends on its own are told apart.
 */
#include <autoconf.h>
#include "netdev/netdev.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>
#include "check.h"
#include "netns-test.h"
#include "packet/packets.h"
#include "base/util.h"

#define NS_NAME "ttap-ns"
#define TAP0 "ttap0"
#define TAP1 "ttap1"
#define TAP_OWN "ttap2"             /* Made and held by the test itself. */
#define TAP_SQ "ttap-sq"            /* Persistent, without multi_queue. */
#define TUN_OWN "ttap-tun"          /* A tun device, not a tap. */
#define MISSING "ttap-gone"
#define VETH_HERE "ttapv0"
#define VETH_THERE "ttapv1"

#define NS_ADDR "10.77.0.1"         /* TAP0's address in the namespace. */
#define FAKE_ADDR "10.77.0.2"       /* The host behind the port. */
#define FAKE_MAC "02:00:00:77:00:02"
#define TCP_PORT 5001
#define UDP_PORT 9999

#define TEST_PORT_NO 9
#define TEST_ETHERTYPE 0x88b5       /* IEEE local experimental. */
#define WAIT_MS 3000                /* Longest wait for expected frames. */
#define QUIET_MS 100                /* How long "nothing more" waits. */
#define MAX_FRAME 70000
#define MAX_FRAMES 256
#define MAX_QUEUES 4

static bool have_python;            /* python3 can be run. */

static const uint8_t fake_mac[6] = { 0x02, 0, 0, 0x77, 0, 0x02 };

static const struct netns_test_veth veths[] = {
    { VETH_HERE, VETH_THERE, NULL, NULL },
};

/* ---- Interfaces. ---- */

/* Deletes the persistent tap a case may have left; errors are ignored. */
static void
delete_leftovers(void)
{
    if (if_nametoindex(TAP_SQ)) {
        netns_test_shell("ip link del %s", TAP_SQ);
    }
}

/* Opens interface 'name' as a tap port.  Returns what netdev_open()
 * returns; the caller frees '*errp'. */
static int
tap_open(const char *name, bool create, int n_rxq, int n_txq,
         struct netdev **ndp, char **errp)
{
    struct netdev_options opts = { .n_rxq = n_rxq, .n_txq = n_txq,
                                   .create = create };

    return netdev_open(name, "tap", &opts, ndp, errp);
}

/* Opens 'name' as a tap port, creating it.  Returns the port, or NULL
 * after a failed check. */
static struct netdev *
tap_open_or_fail(const char *name, int n_rxq, int n_txq)
{
    struct netdev *nd = NULL;
    char *err = NULL;
    int error;

    error = tap_open(name, true, n_rxq, n_txq, &nd, &err);
    CHECK(!error && nd, "cannot open tap %s: %s", name, err ? err : "?");
    free(err);
    return error ? NULL : nd;
}

/* Waits up to WAIT_MS for interface 'name' to exist in this namespace (if
 * 'want') or not.  Returns true if it got there. */
static bool
wait_if_exists(const char *name, bool want)
{
    long long deadline = time_msec() + WAIT_MS;

    while ((if_nametoindex(name) != 0) != want) {
        if (time_msec() >= deadline) {
            return false;
        }
        usleep(1000);
    }
    return true;
}

/* Returns the flags of interface 'name' in this namespace, or 0. */
static unsigned int
if_flags(const char *name)
{
    struct ifreq ifr;
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    int ok;

    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", name);
    ok = fd >= 0 && !ioctl(fd, SIOCGIFFLAGS, &ifr);
    if (fd >= 0) {
        close(fd);
    }
    return ok ? (unsigned short) ifr.ifr_flags : 0;
}

/* Makes tap or tun device 'name' on a new fd with 'flags' (IFF_*), as a
 * program other than the switch would.  Returns the fd or -1. */
static int
make_tun_fd(const char *name, int flags)
{
    struct ifreq ifr;
    int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);

    if (fd < 0) {
        return -1;
    }
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", name);
    ifr.ifr_flags = flags;
    if (ioctl(fd, TUNSETIFF, &ifr)) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Moves interface 'name' into NS_NAME with IPv6 off (so that the kernel
 * sends nothing on its own) and brings it up there.  With 'addressed' it
 * gets NS_ADDR/24 and a neighbour entry for FAKE_ADDR at FAKE_MAC, so that
 * sockets in the namespace send to FAKE_ADDR through it. */
static bool
move_to_ns(const char *name, bool addressed)
{
    return (netns_test_shell("ip link set %s netns %s", name, NS_NAME)
            && netns_test_shell("ip netns exec %s sh -c 'echo 1 > "
                                "/proc/sys/net/ipv6/conf/%s/disable_ipv6'",
                                NS_NAME, name)
            && (!addressed
                || netns_test_shell("ip -n %s addr add %s/24 dev %s",
                                    NS_NAME, NS_ADDR, name))
            && netns_test_shell("ip -n %s link set %s up", NS_NAME, name)
            && (!addressed
                || netns_test_shell("ip -n %s neigh replace %s lladdr %s "
                                    "dev %s", NS_NAME, FAKE_ADDR, FAKE_MAC,
                                    name)));
}

/* ---- Frames. ---- */

struct test_frame {
    uint8_t data[MAX_FRAME];
    size_t size;
};

static uint16_t
get_be16(const uint8_t *p)
{
    return p[0] << 8 | p[1];
}

static uint32_t
get_be32(const uint8_t *p)
{
    return (uint32_t) get_be16(p) << 16 | get_be16(p + 2);
}

static void
put_be16(uint8_t *p, uint16_t x)
{
    p[0] = x >> 8;
    p[1] = x;
}

static void
put_be32(uint8_t *p, uint32_t x)
{
    put_be16(p, x >> 16);
    put_be16(p + 2, x);
}

/* Adds the big-endian 16-bit words of 'size' bytes at 'p' to 'sum'. */
static uint32_t
csum_add(uint32_t sum, const uint8_t *p, size_t size)
{
    for (size_t i = 0; i + 1 < size; i += 2) {
        sum += get_be16(p + i);
    }
    if (size & 1) {
        sum += p[size - 1] << 8;
    }
    return sum;
}

static uint16_t
csum_fold(uint32_t sum)
{
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return sum;
}

/* Writes the test MACs for frame 'seq' into 'f' (destination FAKE_MAC),
 * then 'ethertype'; returns the offset after them. */
static size_t
put_eth(struct test_frame *f, uint16_t seq, uint16_t ethertype)
{
    memcpy(f->data, fake_mac, 6);
    f->data[6] = 0x02;
    f->data[7] = 'T';
    f->data[8] = 'A';
    f->data[9] = 'P';
    put_be16(f->data + 10, seq);
    put_be16(f->data + 12, ethertype);
    return ETH_HEADER_LEN;
}

/* Fills 'f' with a 'size'-byte test frame with a pattern from 'seq'. */
static void
make_frame(struct test_frame *f, uint16_t seq, size_t size)
{
    for (size_t i = put_eth(f, seq, TEST_ETHERTYPE); i < size; i++) {
        f->data[i] = (uint8_t) (seq * 31 + i * 7);
    }
    f->size = size;
}

/* Writes a 20-byte IPv4 header at 'ip' for 'l4_size' bytes of 'proto'
 * from 'src' to 'dst' (host order), with its checksum. */
static void
put_ipv4(uint8_t *ip, int proto, size_t l4_size, uint32_t src, uint32_t dst)
{
    memset(ip, 0, 20);
    ip[0] = 0x45;
    put_be16(ip + 2, 20 + l4_size);
    put_be16(ip + 6, 0x4000);       /* Don't fragment. */
    ip[8] = 64;
    ip[9] = proto;
    put_be32(ip + 12, src);
    put_be32(ip + 16, dst);
    put_be16(ip + 10, ~csum_fold(csum_add(0, ip, 20)));
}

/* Fills 'f' with a test IPv4/UDP frame of 'l4_size' bytes from source port
 * 'sport' (one flow per port). */
static void
make_udp_frame(struct test_frame *f, uint16_t seq, uint16_t sport,
               size_t l4_size)
{
    size_t ofs = put_eth(f, seq, ETH_TYPE_IP);
    uint8_t *udp = f->data + ofs + 20;

    put_ipv4(f->data + ofs, IP_PROTO_UDP, l4_size, 0x0a4d0063, 0x0a4d0001);
    memset(udp, 0, l4_size);
    put_be16(udp, sport);
    put_be16(udp + 2, 7);
    put_be16(udp + 4, l4_size);
    for (size_t i = 8; i < l4_size; i++) {
        udp[i] = (uint8_t) (seq + i);
    }
    f->size = ofs + 20 + l4_size;
}

/* ---- Receiving. ---- */

/* A received frame, copied out of the provider's memory. */
struct rx_frame {
    uint8_t *data;
    uint32_t size;
    uint16_t in_port;
    uint16_t flags;
    int qid;
    struct virtio_net_hdr vnet;
};

/* Decides which frames a collection waits for. */
typedef bool rx_match_func(const uint8_t *data, size_t size);

struct rx_set {
    struct rx_frame frames[MAX_FRAMES];
    int n;                          /* Frames stored. */
    int n_all;                      /* Frames seen. */
    int n_match;                    /* Frames seen that 'match' accepts. */
    int per_queue[MAX_QUEUES];      /* Matching frames by rx queue. */
    uint64_t n_bytes;               /* Bytes of all frames seen. */
    int last_error;                 /* Last error besides EAGAIN. */
    bool count_only;                /* Store nothing. */
    rx_match_func *match;           /* NULL: test frames (by MAC). */
};

static bool
is_test_frame(const uint8_t *data, size_t size)
{
    static const uint8_t prefix[] = { 0x02, 'T', 'A', 'P' };

    return size >= ETH_HEADER_LEN && !memcmp(data + 6, prefix, 4);
}

static void
rx_set_clear(struct rx_set *set)
{
    rx_match_func *match = set->match;

    for (int i = 0; i < set->n; i++) {
        free(set->frames[i].data);
    }
    memset(set, 0, sizeof *set);
    set->match = match;
}

static void
rx_set_add(struct rx_set *set, const uint8_t *data, uint32_t size,
           const struct virtio_net_hdr *vnet, uint16_t in_port,
           uint16_t flags, int qid)
{
    bool match = set->match ? set->match(data, size)
                            : is_test_frame(data, size);
    struct rx_frame *f;

    set->n_all++;
    set->n_bytes += size;
    if (match) {
        set->n_match++;
        set->per_queue[qid]++;
    }
    if (set->count_only || set->n >= MAX_FRAMES) {
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

/* Polls every rx queue of 'nd' until 'want' matching frames have arrived,
 * an error other than EAGAIN was returned (if 'stop_on_error') or
 * 'timeout_ms' has passed, adding what arrives to 'set'. */
static void
collect(struct netdev *nd, struct rx_set *set, int want, int timeout_ms,
        bool stop_on_error)
{
    long long deadline = time_msec() + timeout_ms;

    while (set->n_match < want && time_msec() < deadline
           && !(stop_on_error && set->last_error)) {
        bool idle = true;

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
                rx_set_add(set, p->data, p->size,
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

/* Receives from 'nd' until nothing more comes for QUIET_MS. */
static void
collect_all(struct netdev *nd, struct rx_set *set)
{
    for (int last = -1; last != set->n_all; ) {
        last = set->n_all;
        collect(nd, set, INT32_MAX, QUIET_MS, false);
    }
}

/* Reads frames from peer socket 'fd' (with a vnet header if 'vnet') into
 * 'set' until 'want' matching frames have arrived or 'timeout_ms' has
 * passed. */
static void
peer_collect(int fd, bool vnet, struct rx_set *set, int want,
             int timeout_ms)
{
    static uint8_t buf[MAX_FRAME];
    long long deadline = time_msec() + timeout_ms;

    while (set->n_match < want) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        long long left = deadline - time_msec();
        struct virtio_net_hdr hdr;
        struct iovec iov[2];
        struct msghdr mh;
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
        if (n < (ssize_t) (vnet ? sizeof hdr : 0)) {
            continue;
        }
        rx_set_add(set, buf, n - (vnet ? sizeof hdr : 0),
                   vnet ? &hdr : NULL, 0, 0, 0);
    }
}

/* Index in 'set' of the frame equal to 'size' bytes at 'data', or -1. */
static int
find_frame(const struct rx_set *set, const uint8_t *data, size_t size)
{
    for (int i = 0; i < set->n; i++) {
        if (set->frames[i].size == size
            && !memcmp(set->frames[i].data, data, size)) {
            return i;
        }
    }
    return -1;
}

/* Returns the index of the first frame of 'set' that 'match' accepts, or
 * -1. */
static int
find_match(const struct rx_set *set, rx_match_func *match)
{
    for (int i = 0; i < set->n; i++) {
        if (match(set->frames[i].data, set->frames[i].size)) {
            return i;
        }
    }
    return -1;
}

/* Sends 'frame' from peer socket 'fd'. */
static void
peer_send(int fd, const struct test_frame *frame)
{
    CHECK(send(fd, frame->data, frame->size, 0) == (ssize_t) frame->size,
          "peer send of %zu bytes failed: %s", frame->size,
          strerror(errno));
}

/* Sends 'frames[0..n)' on tx queue 'qid' of 'nd' in batches. */
static void
port_send(struct netdev *nd, int qid, struct test_frame *frames, int n)
{
    for (int i = 0; i < n; i += DP_BATCH_SIZE) {
        struct dp_packet packets[DP_BATCH_SIZE];
        struct dp_batch batch;

        dp_batch_init(&batch);
        for (int k = i; k < n && k < i + DP_BATCH_SIZE; k++) {
            dp_packet_init(&packets[k - i], frames[k].data, frames[k].size,
                           0);
            dp_batch_add(&batch, &packets[k - i]);
        }
        netdev_send(nd, qid, &batch);
    }
}

/* Checks that the rx counters of 'nd' account for what 'set' saw. */
static void
check_rx_counted(struct netdev *nd, const struct rx_set *set)
{
    struct netdev_stats st;

    netdev_get_stats(nd, &st);
    CHECK(st.rx_packets == (uint64_t) set->n_all
          && st.rx_bytes == set->n_bytes,
          "rx_packets %llu rx_bytes %llu, received %d frames of %llu bytes",
          (unsigned long long) st.rx_packets,
          (unsigned long long) st.rx_bytes, set->n_all,
          (unsigned long long) set->n_bytes);
    CHECK(!st.rx_truncated && !st.rx_errors, "rx drops: truncated %llu "
          "errors %llu", (unsigned long long) st.rx_truncated,
          (unsigned long long) st.rx_errors);
}

/* Checks the tx counters of 'nd': 'n_sent' frames of 'n_bytes' bytes
 * sent, 'n_errors' in tx_errors, 'n_down' in tx_port_down, nothing else. */
static void
check_tx_counted(struct netdev *nd, uint64_t n_sent, uint64_t n_bytes,
                 uint64_t n_errors, uint64_t n_down)
{
    struct netdev_stats st;

    netdev_get_stats(nd, &st);
    CHECK(st.tx_packets == n_sent && st.tx_bytes == n_bytes,
          "tx_packets %llu tx_bytes %llu, want %llu %llu",
          (unsigned long long) st.tx_packets,
          (unsigned long long) st.tx_bytes, (unsigned long long) n_sent,
          (unsigned long long) n_bytes);
    CHECK(st.tx_errors == n_errors && st.tx_port_down == n_down
          && !st.tx_queue_full && !st.tx_too_big,
          "tx_errors %llu tx_port_down %llu tx_queue_full %llu tx_too_big "
          "%llu, want %llu %llu 0 0", (unsigned long long) st.tx_errors,
          (unsigned long long) st.tx_port_down,
          (unsigned long long) st.tx_queue_full,
          (unsigned long long) st.tx_too_big,
          (unsigned long long) n_errors, (unsigned long long) n_down);
}

/* Checks that the status line of 'nd' contains 'want'. */
static void
check_status(struct netdev *nd, const char *want)
{
    char status[256] = "";

    netdev_get_status(nd, status, sizeof status);
    CHECK(strstr(status, want), "status \"%s\" lacks \"%s\"", status, want);
}

/* Waits up to WAIT_MS for the health of 'nd' to leave 0 (if 'bad') or to
 * return to 0.  Returns the last health. */
static int
wait_health(struct netdev *nd, bool bad)
{
    long long deadline = time_msec() + WAIT_MS;
    int health;

    while (((health = netdev_health(nd)) != 0) != bad) {
        if (time_msec() >= deadline) {
            break;
        }
        usleep(1000);
    }
    return health;
}

/* ---- Cases: opening. ---- */

/* A missing tap is created, up, and gone after close. */
static void
test_open_create(void)
{
    struct netdev *nd2 = NULL;
    struct netdev *nd;
    char *err = NULL;
    int error;

    nd = tap_open_or_fail(TAP0, 2, 4);
    if (!nd) {
        return;
    }
    CHECK(if_nametoindex(TAP0) != 0, "%s missing after open", TAP0);
    CHECK(netdev_get_ifindex(nd) == (int) if_nametoindex(TAP0),
          "ifindex %d, interface has %u", netdev_get_ifindex(nd),
          if_nametoindex(TAP0));
    CHECK(if_flags(TAP0) & IFF_UP, "%s is not up", TAP0);
    CHECK(!access("/sys/class/net/" TAP0 "/tun_flags", F_OK),
          "%s is not a tun/tap device", TAP0);
    CHECK(netdev_n_rxq(nd) == 2 && netdev_n_txq(nd) == 4, "queues %d/%d",
          netdev_n_rxq(nd), netdev_n_txq(nd));
    CHECK_STR(netdev_get_type(nd), "tap");
    CHECK_INT(netdev_health(nd), 0);
    check_status(nd, "tap: n_rxq=2, n_txq=4, multi_queue=yes, "
                 "offloads=csum,tso4,tso6, created=yes");

    /* A second port would take half the tap's queues. */
    error = tap_open(TAP0, true, 1, 1, &nd2, &err);
    CHECK(error == EBUSY && err && strstr(err, "already open"),
          "second open: %d (%s)", error, err ? err : "(none)");
    free(err);
    if (!error) {
        netdev_close(nd2);
    }

    netdev_close(nd);
    CHECK(wait_if_exists(TAP0, false), "%s still exists after close", TAP0);
}

/* Opens that fail, each with its exact message, leaving nothing. */
static void
test_open_errors(void)
{
    static const struct {
        const char *name;
        const char *type;
        bool create;
        int error;
        const char *msg;
        bool exact;
    } cases[] = {
        { MISSING, "tap", false, ENODEV,
          "interface " MISSING " does not exist (set \"create\": true to "
          "create the tap)", true },
        { VETH_HERE, "tap", false, EINVAL,
          "interface " VETH_HERE " exists and is not a tap (driver "
          "\"veth\")", true },
        { VETH_HERE, "tap", true, EINVAL,
          "interface " VETH_HERE " exists and is not a tap (driver "
          "\"veth\")", true },
        { TUN_OWN, "tap", false, EINVAL,
          "interface " TUN_OWN " exists and is a tun device, not a tap",
          true },
        /* Other providers do not create. */
        { MISSING, "mmsg", true, ENODEV,
          "interface " MISSING " does not exist", true },
        { "ttap-name-too-long", "tap", true, EINVAL,
          "invalid interface name", false },
    };
    int tun_fd = make_tun_fd(TUN_OWN, IFF_TUN | IFF_NO_PI);

    CHECK(tun_fd >= 0, "cannot make tun device %s", TUN_OWN);
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        struct netdev_options opts = { .n_rxq = 1, .n_txq = 1,
                                       .create = cases[i].create };
        struct netdev *nd = (struct netdev *) &opts;
        char *err = NULL;
        int error;

        check_set_context("open-errors %s %s%s", cases[i].name,
                          cases[i].type, cases[i].create ? " create" : "");
        error = netdev_open(cases[i].name, cases[i].type, &opts, &nd, &err);
        CHECK(error == cases[i].error, "got %d (%s), want %d", error,
              strerror(error), cases[i].error);
        CHECK(!nd, "failed open returned a netdev");
        if (cases[i].exact) {
            CHECK_STR(err, cases[i].msg);
        } else {
            CHECK(err && strstr(err, cases[i].msg), "message \"%s\" lacks "
                  "\"%s\"", err ? err : "(none)", cases[i].msg);
        }
        free(err);
        if (!error) {
            netdev_close(nd);
        }
    }
    check_set_context("open-errors");
    CHECK(!if_nametoindex(MISSING), "a failed open created %s", MISSING);
    if (tun_fd >= 0) {
        close(tun_fd);
    }
}

/* A tap made by another program is opened, not created, and outlives the
 * port; one made without multi_queue takes one rx queue. */
static void
test_open_existing(void)
{
    int flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
    struct netdev *nd = NULL;
    char *err = NULL;
    int error;
    int fd;

    fd = make_tun_fd(TAP_OWN, flags | IFF_MULTI_QUEUE);
    CHECK(fd >= 0, "cannot make tap %s", TAP_OWN);
    if (fd >= 0) {
        error = tap_open(TAP_OWN, false, 2, 2, &nd, &err);
        CHECK(!error, "cannot open existing tap: %s", err ? err : "?");
        free(err);
        err = NULL;
        if (nd) {
            check_status(nd, "multi_queue=yes");
            check_status(nd, "created=no");
            /* Only a tap the port creates is brought up. */
            CHECK_INT(netdev_health(nd), ENETDOWN);
            netns_test_shell("ip link set %s up", TAP_OWN);
            CHECK_INT(wait_health(nd, false), 0);
            netdev_close(nd);
            nd = NULL;
        }
        CHECK(if_nametoindex(TAP_OWN), "closing the port deleted a tap it "
              "did not create");
        close(fd);
        CHECK(wait_if_exists(TAP_OWN, false), "%s outlives its fd",
              TAP_OWN);
    }

    /* A single-queue tap attached elsewhere cannot be shared. */
    fd = make_tun_fd(TAP_SQ, flags);
    CHECK(fd >= 0, "cannot make tap %s", TAP_SQ);
    if (fd < 0) {
        return;
    }
    error = tap_open(TAP_SQ, false, 1, 1, &nd, &err);
    CHECK(error == EBUSY && err && strstr(err, "in use by another process"),
          "open of a busy single-queue tap: %d (%s)", error,
          err ? err : "(none)");
    free(err);
    err = NULL;

    /* Detached and persistent, it takes one queue, not two. */
    CHECK(!ioctl(fd, TUNSETPERSIST, 1), "TUNSETPERSIST: %s",
          strerror(errno));
    close(fd);
    error = tap_open(TAP_SQ, false, 2, 1, &nd, &err);
    CHECK(error == EINVAL && err && strstr(err, "without multi_queue"),
          "two queues on a single-queue tap: %d (%s)", error,
          err ? err : "(none)");
    free(err);
    err = NULL;
    error = tap_open(TAP_SQ, false, 1, 2, &nd, &err);
    CHECK(!error, "one queue on a single-queue tap: %s", err ? err : "?");
    free(err);
    if (nd) {
        check_status(nd, "multi_queue=no");
        CHECK_INT(netdev_health(nd), ENETDOWN);
        netdev_close(nd);
    }
    CHECK(if_nametoindex(TAP_SQ), "persistent tap deleted by close");
    delete_leftovers();
}

/* Running out of descriptors at the third queue fails the open with
 * EMFILE and leaves nothing: no descriptor and no tap. */
static void
test_open_rollback(void)
{
    int n_fds = netns_test_count_fds();
    struct netdev *nd = NULL;
    struct rlimit saved;
    char *err = NULL;
    int error;

    if (getrlimit(RLIMIT_NOFILE, &saved) || !netns_test_limit_free_fds(2)) {
        CHECK(false, "cannot lower RLIMIT_NOFILE");
        return;
    }
    error = tap_open(TAP0, true, 3, 1, &nd, &err);
    setrlimit(RLIMIT_NOFILE, &saved);

    CHECK(error == EMFILE, "open returned %d (%s), want EMFILE", error,
          strerror(error));
    CHECK(!nd, "failed open returned a netdev");
    CHECK(err && strstr(err, TAP0) && strstr(err, "queue 2"),
          "message \"%s\" does not name the tap and queue",
          err ? err : "(none)");
    free(err);
    CHECK(netns_test_count_fds() == n_fds, "%d descriptors before, %d after",
          n_fds, netns_test_count_fds());
    CHECK(wait_if_exists(TAP0, false), "failed open left %s behind", TAP0);
    if (!error) {
        netdev_close(nd);
    }
}

/* ---- Cases: traffic. ---- */

#define UDP_PAYLOAD "ttap-udp-payload-0123456789"
#define UDP_REPEAT 10

static bool
is_udp_test_datagram(const uint8_t *data, size_t size)
{
    return (size >= ETH_HEADER_LEN + 28 && get_be16(data + 12) == ETH_TYPE_IP
            && data[ETH_HEADER_LEN + 9] == IP_PROTO_UDP
            && get_be16(data + ETH_HEADER_LEN + 22) == UDP_PORT);
}

/* A UDP socket in the namespace sends a datagram to FAKE_ADDR through
 * TAP0.  Checks that it reaches 'nd' whole with its checksum left partial
 * (the tap offers checksum offload).  Adds what arrives to 'set'. */
static void
check_udp_datagram(struct netdev *nd, struct rx_set *set)
{
    size_t len = strlen(UDP_PAYLOAD);
    size_t l4 = ETH_HEADER_LEN + 20;
    const struct rx_frame *f;
    bool intact;
    int k;

    set->match = is_udp_test_datagram;
    if (!netns_test_shell("ip netns exec %s python3 -c \"import socket; "
                          "socket.socket(socket.AF_INET, socket.SOCK_DGRAM)"
                          ".sendto(b'%s' * %d, ('%s', %d))\"", NS_NAME,
                          UDP_PAYLOAD, UDP_REPEAT, FAKE_ADDR, UDP_PORT)) {
        CHECK(false, "python3 cannot send a datagram");
        return;
    }
    collect(nd, set, 1, WAIT_MS, false);
    k = find_match(set, is_udp_test_datagram);
    CHECK(set->n_match == 1 && k >= 0, "UDP datagram received %d times",
          set->n_match);
    if (k < 0) {
        return;
    }
    f = &set->frames[k];
    CHECK(f->size == l4 + 8 + UDP_REPEAT * len, "UDP frame of %u bytes, "
          "want %zu", f->size, l4 + 8 + UDP_REPEAT * len);
    CHECK(!memcmp(f->data, fake_mac, 6), "UDP frame not sent to %s",
          FAKE_MAC);
    intact = f->size == l4 + 8 + UDP_REPEAT * len;
    for (int i = 0; intact && i < UDP_REPEAT; i++) {
        intact = !memcmp(f->data + l4 + 8 + i * len, UDP_PAYLOAD, len);
    }
    CHECK(intact, "UDP payload altered");
    CHECK((f->vnet.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
          && f->vnet.csum_start == l4 && f->vnet.csum_offset == 6,
          "UDP vnet flags %#x csum_start %u csum_offset %u, want "
          "NEEDS_CSUM %zu 6", f->vnet.flags, f->vnet.csum_start,
          f->vnet.csum_offset, l4);
}

/* Frames from the namespace (raw, and UDP datagrams from a socket) reach
 * the rx queue whole; frames the port sends reach the namespace whole;
 * the counters account for all of them. */
static void
test_rx_tx(void)
{
    static struct rx_set set, peer_set, udp_set;
    static struct test_frame frames[40];
    int n = ARRAY_SIZE(frames);
    uint64_t tx_bytes = 0;
    struct netdev *nd;
    int tx_fd, rx_fd;

    nd = tap_open_or_fail(TAP0, 1, 1);
    if (!nd || !move_to_ns(TAP0, true)) {
        CHECK(false, "cannot set up %s in %s", TAP0, NS_NAME);
        netdev_close(nd);
        return;
    }
    CHECK_INT(netdev_health(nd), 0);
    tx_fd = netns_test_peer_socket(TAP0, false, false);
    rx_fd = netns_test_peer_socket(TAP0, true, false);

    /* Raw frames, from the minimum to the MTU, over several batches. */
    for (int i = 0; i < n; i++) {
        make_frame(&frames[i], i, 60 + (i * 1454) / (n - 1));
        peer_send(tx_fd, &frames[i]);
    }
    collect(nd, &set, n, WAIT_MS, false);
    CHECK(set.n_match == n, "received %d of %d frames", set.n_match, n);
    for (int i = 0; i < n; i++) {
        int k = find_frame(&set, frames[i].data, frames[i].size);

        CHECK(k >= 0, "frame %d (%zu bytes) missing or altered", i,
              frames[i].size);
        if (k >= 0) {
            const struct rx_frame *f = &set.frames[k];

            CHECK(f->in_port == TEST_PORT_NO, "in_port %u", f->in_port);
            CHECK((f->flags & DP_PACKET_F_VNET)
                  && !(f->vnet.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
                  && f->vnet.gso_type == VIRTIO_NET_HDR_GSO_NONE,
                  "frame %d: flags %#x, vnet flags %#x gso_type %u", i,
                  f->flags, f->vnet.flags, f->vnet.gso_type);
        }
    }

    /* Datagrams from a UDP socket, checksum left to "hardware". */
    if (!have_python) {
        printf("test-netdev-tap: no python3, UDP socket checks skipped\n");
    } else {
        check_udp_datagram(nd, &udp_set);
    }

    /* The port sends; the namespace gets exact bytes. */
    for (int i = 0; i < n; i++) {
        make_frame(&frames[i], 100 + i, 60 + i * 37);
        tx_bytes += frames[i].size;
    }
    port_send(nd, 0, frames, n);
    peer_collect(rx_fd, false, &peer_set, n, WAIT_MS);
    CHECK(peer_set.n_match == n, "namespace received %d of %d frames",
          peer_set.n_match, n);
    for (int i = 0; i < n; i++) {
        CHECK(find_frame(&peer_set, frames[i].data, frames[i].size) >= 0,
              "sent frame %d (%zu bytes) missing or altered", i,
              frames[i].size);
    }

    /* Whatever else arrived is counted too. */
    collect_all(nd, &set);
    set.n_all += udp_set.n_all;
    set.n_bytes += udp_set.n_bytes;
    check_rx_counted(nd, &set);
    check_tx_counted(nd, n, tx_bytes, 0, 0);

    rx_set_clear(&set);
    rx_set_clear(&peer_set);
    rx_set_clear(&udp_set);
    close(tx_fd);
    close(rx_fd);
    netdev_close(nd);
}

/* Tagged frames reach the port with the tag inside the frame.  They are
 * sent from a "mmsg" port on VETH_HERE; the kernel takes the tag off into
 * metadata when VETH_THERE receives them, and a bridge in the namespace
 * forwards them, tag still in metadata, to TAP0, which must put it back.
 * (On a packet socket the tag would stay outside the frame.) */
static void
test_rx_vlan(void)
{
    static const struct {
        const char *name;
        uint32_t tags[2];           /* tpid << 16 | tci each. */
        int n_tags;
    } cases[] = {
        { "untagged", { 0 }, 0 },
        { "802.1Q vid 5 pcp 3", { 0x8100u << 16 | 3 << 13 | 5 }, 1 },
        { "802.1Q priority tag", { 0x8100u << 16 | 6 << 13 }, 1 },
        { "802.1ad vid 7", { 0x88a8u << 16 | 7 }, 1 },
        { "802.1ad 20 + 802.1Q 30", { 0x88a8u << 16 | 20,
                                      0x8100u << 16 | 30 }, 2 },
    };
    static struct test_frame frames[ARRAY_SIZE(cases)];
    static struct rx_set set;
    struct netdev_options opts = { .n_rxq = 1, .n_txq = 1 };
    struct netdev *nd, *veth = NULL;

    nd = tap_open_or_fail(TAP0, 1, 1);
    if (netdev_open(VETH_HERE, "mmsg", &opts, &veth, NULL) || !nd
        || !move_to_ns(TAP0, false)
        || !netns_test_shell("ip -n %s link add ttapbr type bridge",
                             NS_NAME)
        || !netns_test_shell("ip netns exec %s sh -c 'echo 1 > "
                             "/proc/sys/net/ipv6/conf/ttapbr/disable_ipv6'",
                             NS_NAME)
        || !netns_test_shell("ip -n %s link set %s master ttapbr", NS_NAME,
                             VETH_THERE)
        || !netns_test_shell("ip -n %s link set %s master ttapbr", NS_NAME,
                             TAP0)
        || !netns_test_shell("ip -n %s link set ttapbr up", NS_NAME)) {
        CHECK(false, "cannot set up the bridge");
        goto out;
    }

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        struct test_frame *f = &frames[i];
        size_t ofs = put_eth(f, 700 + i, 0) - 2;

        for (int t = 0; t < cases[i].n_tags; t++) {
            put_be16(f->data + ofs, cases[i].tags[t] >> 16);
            put_be16(f->data + ofs + 2, cases[i].tags[t]);
            ofs += 4;
        }
        put_be16(f->data + ofs, TEST_ETHERTYPE);
        for (ofs += 2; ofs < 200; ofs++) {
            f->data[ofs] = (uint8_t) (i * 17 + ofs);
        }
        f->size = ofs;
    }
    port_send(veth, 0, frames, ARRAY_SIZE(cases));
    collect(nd, &set, ARRAY_SIZE(cases), WAIT_MS, false);
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        CHECK(find_frame(&set, frames[i].data, frames[i].size) >= 0,
              "%s: frame missing or tag not in the frame", cases[i].name);
    }
    collect_all(nd, &set);
    check_rx_counted(nd, &set);
    rx_set_clear(&set);

out:
    netns_test_shell("ip -n %s link del ttapbr", NS_NAME);
    netdev_close(veth);
    netdev_close(nd);
}

/* ---- A TCP connection from the namespace, through the port. ---- */

/* Returns the offset of the TCP header of IPv4 frame 'data' if it is a TCP
 * segment to TCP_PORT, otherwise 0. */
static size_t
tcp_to_port(const uint8_t *data, size_t size)
{
    size_t l4;

    if (size < ETH_HEADER_LEN + 20 || get_be16(data + 12) != ETH_TYPE_IP
        || data[23] != IP_PROTO_TCP) {
        return 0;
    }
    l4 = ETH_HEADER_LEN + (data[14] & 0xf) * 4;
    return size >= l4 + 20 && get_be16(data + l4 + 2) == TCP_PORT ? l4 : 0;
}

static bool
is_syn(const uint8_t *data, size_t size)
{
    size_t l4 = tcp_to_port(data, size);

    return l4 && (data[l4 + 13] & 0x12) == 0x02;
}

/* A TCP segment to TCP_PORT longer than the 1500-byte MTU allows: only a
 * GSO frame can be that long. */
static bool
is_tcp_gso_frame(const uint8_t *data, size_t size)
{
    return tcp_to_port(data, size) && size > ETH_HEADER_LEN + 1500;
}

/* Fills 'f' with the SYN-ACK from FAKE_ADDR to SYN 'syn' (MSS 1460, window
 * 65535, no other options), and '*vnet' with checksum offload: the
 * checksum field holds the pseudo-header sum for the receiver to finish
 * (which a local receiver skips). */
static void
make_syn_ack(struct test_frame *f, const struct rx_frame *syn,
             struct virtio_net_hdr *vnet)
{
    const uint8_t *in = syn->data + tcp_to_port(syn->data, syn->size);
    uint8_t *ip = f->data + ETH_HEADER_LEN;
    uint8_t *tcp = ip + 20;

    memcpy(f->data, syn->data + 6, 6);
    memcpy(f->data + 6, fake_mac, 6);
    put_be16(f->data + 12, ETH_TYPE_IP);
    put_ipv4(ip, IP_PROTO_TCP, 24, get_be32(syn->data + 30),
             get_be32(syn->data + 26));
    memset(tcp, 0, 24);
    put_be16(tcp, TCP_PORT);
    memcpy(tcp + 2, in, 2);
    put_be32(tcp + 4, 0x1000);
    put_be32(tcp + 8, get_be32(in + 4) + 1);
    tcp[12] = 6 << 4;
    tcp[13] = 0x12;                 /* SYN, ACK. */
    put_be16(tcp + 14, 65535);
    tcp[20] = 2;                    /* MSS option. */
    tcp[21] = 4;
    put_be16(tcp + 22, 1460);
    put_be16(tcp + 16, csum_fold(csum_add(IP_PROTO_TCP + 24, ip + 12, 8)));
    f->size = ETH_HEADER_LEN + 20 + 24;

    memset(vnet, 0, sizeof *vnet);
    vnet->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
    vnet->csum_start = ETH_HEADER_LEN + 20;
    vnet->csum_offset = 16;
}

/* Sends the 'size' bytes at 'data' with offload metadata 'vnet' on 'nd'. */
static void
send_with_vnet(struct netdev *nd, const uint8_t *data, size_t size,
               const struct virtio_net_hdr *vnet)
{
    struct dp_packet packet;
    struct dp_batch batch;

    dp_packet_init(&packet, (uint8_t *) data, size, 0);
    packet.flags |= DP_PACKET_F_VNET;
    packet.vnet = *vnet;
    dp_batch_init(&batch);
    dp_batch_add(&batch, &packet);
    netdev_send(nd, 0, &batch);
}

/* Runs python3 'script' in NS_NAME in the background.  Returns its pid, or
 * -1. */
static pid_t
spawn_python(const char *script)
{
    pid_t pid = fork();

    if (!pid) {
        execlp("ip", "ip", "netns", "exec", NS_NAME, "python3", "-c", script,
               (char *) NULL);
        _exit(127);
    }
    return pid;
}

/* Stops and reaps process 'pid' from spawn_python(). */
static void
reap(pid_t pid)
{
    if (pid > 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
}

/* Forwards GSO frame 'f' out of port 'out' and checks that the peer socket
 * 'fd' (with PACKET_VNET_HDR) gets it whole with the same metadata. */
static void
check_forward(const char *what, struct netdev *out, int fd,
              const struct rx_frame *f)
{
    static struct rx_set set = { .match = is_tcp_gso_frame };
    int k;

    send_with_vnet(out, f->data, f->size, &f->vnet);
    peer_collect(fd, true, &set, 1, WAIT_MS);
    k = find_frame(&set, f->data, f->size);
    CHECK(k >= 0, "%s: GSO frame of %u bytes did not arrive whole (%d "
          "frames)", what, f->size, set.n);
    if (k >= 0) {
        const struct virtio_net_hdr *v = &set.frames[k].vnet;

        CHECK(v->gso_type == f->vnet.gso_type
              && v->gso_size == f->vnet.gso_size
              && (v->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
              && v->csum_start == f->vnet.csum_start
              && v->csum_offset == f->vnet.csum_offset,
              "%s: peer saw gso_type %u gso_size %u flags %#x csum %u/%u, "
              "sent %u %u %#x %u/%u", what, v->gso_type, v->gso_size,
              v->flags, v->csum_start, v->csum_offset, f->vnet.gso_type,
              f->vnet.gso_size, f->vnet.flags, f->vnet.csum_start,
              f->vnet.csum_offset);
    }
    check_tx_counted(out, 1, f->size, 0, 0);
    rx_set_clear(&set);
}

/* A TCP client in the namespace connects through the port to a peer that
 * the test plays.  Its SYN arrives checksum-partial; after the test's
 * checksum-partial SYN-ACK (sent with send()), its first flight arrives as
 * a TSO frame with GSO metadata, which then leaves another tap port and a
 * veth ("mmsg") port whole with the same metadata. */
static void
test_tcp_offload(void)
{
    static struct rx_set syn_set = { .match = is_syn };
    static struct rx_set gso_set = { .match = is_tcp_gso_frame };
    struct netdev_options opts = { .n_rxq = 1, .n_txq = 1 };
    struct netdev *nd, *tap_out, *veth_out = NULL;
    struct virtio_net_hdr vnet;
    struct test_frame *syn_ack;
    int tap_fd, veth_fd;
    char *script;
    pid_t pid;
    int k;

    if (!have_python) {
        printf("test-netdev-tap: no python3, TCP offload case skipped\n");
        return;
    }
    nd = tap_open_or_fail(TAP0, 1, 1);
    tap_out = tap_open_or_fail(TAP1, 1, 1);
    if (netdev_open(VETH_HERE, "mmsg", &opts, &veth_out, NULL)
        || !nd || !tap_out || !move_to_ns(TAP0, true)
        || !move_to_ns(TAP1, false)) {
        CHECK(false, "cannot set up the ports");
        goto out;
    }
    tap_fd = netns_test_peer_socket(TAP1, true, true);
    veth_fd = netns_test_peer_socket(VETH_THERE, true, true);

    script = xasprintf("import socket, time\n"
                       "s = socket.create_connection(('%s', %d), "
                       "timeout=5)\n"
                       "s.setblocking(False)\n"
                       "s.send(b'x' * 60000)\n"
                       "time.sleep(5)\n", FAKE_ADDR, TCP_PORT);
    pid = spawn_python(script);
    free(script);
    CHECK(pid > 0, "cannot start python3: %s", strerror(errno));

    collect(nd, &syn_set, 1, WAIT_MS, false);
    k = find_match(&syn_set, is_syn);
    CHECK(k >= 0, "no SYN arrived (%d frames)", syn_set.n_all);
    if (k < 0) {
        goto reap;
    }
    CHECK((syn_set.frames[k].flags & DP_PACKET_F_VNET)
          && (syn_set.frames[k].vnet.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
          && syn_set.frames[k].vnet.csum_start == 34
          && syn_set.frames[k].vnet.csum_offset == 16
          && syn_set.frames[k].vnet.gso_type == VIRTIO_NET_HDR_GSO_NONE,
          "SYN vnet flags %#x csum %u/%u gso_type %u, want NEEDS_CSUM 34/16 "
          "none", syn_set.frames[k].vnet.flags,
          syn_set.frames[k].vnet.csum_start,
          syn_set.frames[k].vnet.csum_offset,
          syn_set.frames[k].vnet.gso_type);

    syn_ack = xmalloc(sizeof *syn_ack);
    make_syn_ack(syn_ack, &syn_set.frames[k], &vnet);
    send_with_vnet(nd, syn_ack->data, syn_ack->size, &vnet);
    free(syn_ack);

    collect(nd, &gso_set, 1, WAIT_MS, false);
    k = find_match(&gso_set, is_tcp_gso_frame);
    CHECK(k >= 0, "no TSO frame arrived (%d frames)", gso_set.n_all);
    if (k >= 0) {
        const struct rx_frame *f = &gso_set.frames[k];

        CHECK((f->flags & DP_PACKET_F_VNET)
              && f->vnet.gso_type == VIRTIO_NET_HDR_GSO_TCPV4
              && f->vnet.gso_size == 1460
              && (f->vnet.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
              && f->vnet.csum_start == 34 && f->vnet.csum_offset == 16,
              "TSO frame of %u bytes: gso_type %u gso_size %u flags %#x "
              "csum %u/%u, want TCPV4 1460 NEEDS_CSUM 34/16", f->size,
              f->vnet.gso_type, f->vnet.gso_size, f->vnet.flags,
              f->vnet.csum_start, f->vnet.csum_offset);
        check_forward("to tap", tap_out, tap_fd, f);
        check_forward("to veth", veth_out, veth_fd, f);
    }

reap:
    reap(pid);
    rx_set_clear(&syn_set);
    rx_set_clear(&gso_set);
    close(tap_fd);
    close(veth_fd);
out:
    netdev_close(veth_out);
    netdev_close(tap_out);
    netdev_close(nd);
}

/* ---- Multi-queue, drops, deletion. ---- */

/* With two rx queues, flows from the namespace spread over both; each of
 * four tx queues (sharing the two fds) delivers. */
static void
test_multiqueue(void)
{
    static struct test_frame frames[64];
    static struct rx_set set, peer_set;
    int n = ARRAY_SIZE(frames);
    uint64_t tx_bytes = 0;
    struct netdev *nd;
    int tx_fd, rx_fd;

    nd = tap_open_or_fail(TAP0, 2, 4);
    if (!nd || !move_to_ns(TAP0, false)) {
        CHECK(false, "cannot set up %s in %s", TAP0, NS_NAME);
        netdev_close(nd);
        return;
    }
    check_status(nd, "n_rxq=2, n_txq=4, multi_queue=yes");
    tx_fd = netns_test_peer_socket(TAP0, false, false);
    rx_fd = netns_test_peer_socket(TAP0, true, false);

    for (int i = 0; i < n; i++) {
        make_udp_frame(&frames[i], 200 + i, 10000 + i * 17, 64);
        peer_send(tx_fd, &frames[i]);
    }
    collect(nd, &set, n, WAIT_MS, false);
    CHECK(set.n_match == n, "received %d of %d frames over 2 queues",
          set.n_match, n);
    for (int i = 0; i < n; i++) {
        CHECK(find_frame(&set, frames[i].data, frames[i].size) >= 0,
              "flow %d missing or altered", i);
    }
    /* 64 flows all hashing to one queue has probability 2^-63. */
    CHECK(set.per_queue[0] && set.per_queue[1],
          "queue 0 got %d flows, queue 1 got %d", set.per_queue[0],
          set.per_queue[1]);

    for (int q = 0; q < 4; q++) {
        for (int i = q * 8; i < q * 8 + 8; i++) {
            make_frame(&frames[i], 300 + i, 80 + i * 11);
            tx_bytes += frames[i].size;
        }
        port_send(nd, q, frames + q * 8, 8);
    }
    peer_collect(rx_fd, false, &peer_set, 32, WAIT_MS);
    CHECK(peer_set.n_match == 32, "namespace received %d of 32 frames",
          peer_set.n_match);
    for (int i = 0; i < 32; i++) {
        CHECK(find_frame(&peer_set, frames[i].data, frames[i].size) >= 0,
              "frame %d from tx queue %d missing", i, i / 8);
    }

    collect_all(nd, &set);
    check_rx_counted(nd, &set);
    check_tx_counted(nd, 32, tx_bytes, 0, 0);
    rx_set_clear(&set);
    rx_set_clear(&peer_set);
    close(tx_fd);
    close(rx_fd);
    netdev_close(nd);
}

/* Every drop lands in a named counter: malformed frames in tx_errors,
 * frames sent while the link is down in tx_port_down, frames the kernel
 * could not queue for the port in rx_ring_full. */
static void
test_drops(void)
{
    static struct test_frame frames[4], flood;
    static struct rx_set set, peer_set;
    struct dp_packet packets[4];
    struct netdev_stats st;
    struct dp_batch batch;
    int n_flood = 3000;
    struct netdev *nd;
    int tx_fd, rx_fd;
    int n_sent = 0;

    nd = tap_open_or_fail(TAP0, 1, 1);
    if (!nd || !move_to_ns(TAP0, false)) {
        CHECK(false, "cannot set up %s in %s", TAP0, NS_NAME);
        netdev_close(nd);
        return;
    }
    tx_fd = netns_test_peer_socket(TAP0, false, false);
    rx_fd = netns_test_peer_socket(TAP0, true, false);

    /* A runt and a frame with an unknown GSO type are refused alone. */
    make_frame(&frames[0], 400, 100);
    make_frame(&frames[1], 401, 10);
    make_frame(&frames[2], 402, 100);
    make_frame(&frames[3], 403, 100);
    dp_batch_init(&batch);
    for (int i = 0; i < 4; i++) {
        dp_packet_init(&packets[i], frames[i].data, frames[i].size, 0);
        dp_batch_add(&batch, &packets[i]);
    }
    packets[2].flags |= DP_PACKET_F_VNET;
    memset(&packets[2].vnet, 0, sizeof packets[2].vnet);
    packets[2].vnet.gso_type = 77;
    packets[2].vnet.gso_size = 50;
    netdev_send(nd, 0, &batch);
    peer_collect(rx_fd, false, &peer_set, 2, WAIT_MS);
    CHECK(peer_set.n_match == 2
          && find_frame(&peer_set, frames[0].data, frames[0].size) >= 0
          && find_frame(&peer_set, frames[3].data, frames[3].size) >= 0,
          "namespace got %d frames, want the 2 good ones", peer_set.n_match);
    check_tx_counted(nd, 2, 200, 2, 0);

    /* Down in the namespace: the port sees it through the open sysfs
     * attribute and the tap refuses writes. */
    netns_test_shell("ip -n %s link set %s down", NS_NAME, TAP0);
    CHECK_INT(netdev_health(nd), ENETDOWN);
    port_send(nd, 0, frames, 1);
    port_send(nd, 0, frames + 2, 2);
    check_tx_counted(nd, 2, 200, 2, 3);
    netns_test_shell("ip -n %s link set %s up", NS_NAME, TAP0);
    CHECK_INT(wait_health(nd, false), 0);

    /* A flood while nobody polls overflows the tap's queue. */
    make_frame(&flood, 500, 60);
    for (int i = 0; i < n_flood; i++) {
        n_sent += send(tx_fd, flood.data, flood.size, 0) == 60;
    }
    CHECK(n_sent == n_flood, "namespace sent %d of %d", n_sent, n_flood);
    set.count_only = true;
    collect_all(nd, &set);
    netdev_get_stats(nd, &st);
    CHECK(st.rx_packets == (uint64_t) set.n_all, "rx_packets %llu, received "
          "%d", (unsigned long long) st.rx_packets, set.n_all);
    CHECK(st.rx_ring_full > 0, "no kernel drops counted for %d frames",
          n_sent);
    /* A stray frame of the namespace's own (received or dropped) takes a
     * queue slot too: what we sent is received or dropped, and at most a
     * few drops are of frames that are not ours. */
    CHECK(set.n_match + st.rx_ring_full >= (uint64_t) n_sent
          && set.n_match + st.rx_ring_full <= (uint64_t) n_sent + 4,
          "sent %d: received %d + rx_ring_full %llu (+ %d others) do not "
          "add up", n_sent, set.n_match,
          (unsigned long long) st.rx_ring_full, set.n_all - set.n_match);
    CHECK(!st.rx_truncated && !st.rx_errors, "truncated %llu errors %llu",
          (unsigned long long) st.rx_truncated,
          (unsigned long long) st.rx_errors);

    rx_set_clear(&set);
    rx_set_clear(&peer_set);
    close(tx_fd);
    close(rx_fd);
    netdev_close(nd);
}

/* Deleting the tap under an open port, here or in the namespace: health
 * says ENODEV, receive says ENETDOWN, sends count as tx_port_down, and the
 * port still closes. */
static void
test_gone(void)
{
    static const struct {
        const char *name;
        bool in_ns;
    } cases[] = {
        { "deleted here", false },
        { "deleted in the namespace", true },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        static struct test_frame frames[3];
        static struct rx_set set;
        struct netdev_stats st;
        struct netdev *nd;

        check_set_context("gone: %s", cases[i].name);
        nd = tap_open_or_fail(TAP0, 2, 2);
        if (!nd || (cases[i].in_ns && !move_to_ns(TAP0, false))) {
            CHECK(false, "cannot set up %s", TAP0);
            netdev_close(nd);
            continue;
        }
        CHECK_INT(netdev_health(nd), 0);
        if (cases[i].in_ns) {
            netns_test_shell("ip -n %s link del %s", NS_NAME, TAP0);
        } else {
            netns_test_shell("ip link del %s", TAP0);
        }

        CHECK_INT(wait_health(nd, true), ENODEV);
        collect(nd, &set, INT32_MAX, WAIT_MS, true);
        CHECK_INT(set.last_error, ENETDOWN);
        for (int k = 0; k < 3; k++) {
            make_frame(&frames[k], 600 + k, 100);
        }
        port_send(nd, 0, frames, 2);
        port_send(nd, 1, frames + 2, 1);
        netdev_get_stats(nd, &st);
        CHECK(st.tx_port_down == 3 && !st.tx_packets && !st.tx_errors,
              "tx_port_down %llu tx_packets %llu tx_errors %llu, want 3 0 "
              "0", (unsigned long long) st.tx_port_down,
              (unsigned long long) st.tx_packets,
              (unsigned long long) st.tx_errors);
        CHECK(st.rx_packets == (uint64_t) set.n_all && !st.rx_errors,
              "rx_packets %llu (received %d) rx_errors %llu",
              (unsigned long long) st.rx_packets, set.n_all,
              (unsigned long long) st.rx_errors);
        check_status(nd, "last_rx_error=Network is down");
        netdev_close(nd);
        CHECK(!if_nametoindex(TAP0), "%s exists after close", TAP0);
        rx_set_clear(&set);
    }
    check_set_context("%s", "");
}

struct test_case {
    const char *name;
    void (*run)(void);
};

static const struct test_case cases[] = {
    { "open-create", test_open_create },
    { "open-errors", test_open_errors },
    { "open-existing", test_open_existing },
    { "open-rollback", test_open_rollback },
    { "rx-tx", test_rx_tx },
    { "rx-vlan", test_rx_vlan },
    { "tcp-offload", test_tcp_offload },
    { "multiqueue", test_multiqueue },
    { "drops", test_drops },
    { "gone", test_gone },
};

int
main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (geteuid()) {
        printf("test-netdev-tap: needs root, skipped\n");
        return 77;
    }
    if (access("/dev/net/tun", R_OK | W_OK)) {
        printf("test-netdev-tap: no /dev/net/tun, skipped\n");
        return 77;
    }
    delete_leftovers();
    if (!netns_test_setup(NS_NAME, veths, ARRAY_SIZE(veths))) {
        printf("test-netdev-tap: cannot create namespace and veth pair, "
               "skipped\n");
        netns_test_cleanup();
        return 77;
    }
    atexit(delete_leftovers);
    have_python = !system("command -v python3 >/dev/null 2>&1");

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        int before = check_n_failed();

        check_set_context("%s", cases[i].name);
        cases[i].run();
        if (check_n_failed() != before) {
            printf("test %s: FAILED\n", cases[i].name);
        }
    }
    check_set_context("%s", "");
    return check_finish("test-netdev-tap");
}
