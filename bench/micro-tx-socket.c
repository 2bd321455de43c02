/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Microbenchmark of the kernel's transmit cost per frame on the packet
 * sockets a tx queue uses (lib/netdev/netdev-linux.c): 64-byte frames in
 * batches of 32 by sendmmsg() into interface IFNAME, on
 *
 *   vnet      the socket with PACKET_VNET_HDR, each frame after a zeroed
 *             virtio_net_hdr (what every frame paid before frames without
 *             offload metadata got their own socket);
 *   plain     the socket without header, what those frames use now;
 *   bypass    the plain socket with PACKET_QDISC_BYPASS (testpmd's choice;
 *             unsafe for GSO frames, see doc/netdev-tpacket.md).
 *
 * The three take turns, ROUNDS rounds of FRAMES frames each; it prints the
 * lowest and the median ns per frame of each.  Wall time of one core,
 * since the transmit runs in the caller's context: run it pinned, on an
 * otherwise idle core, against a veth whose peer drops the frames early
 * (bench/tx-socket.sh sets that up).  The frames go to a MAC address that
 * is not the peer's, so the peer's stack drops them at once.
 *
 * Usage: micro-tx-socket IFNAME [FRAMES [ROUNDS]]
 */
#include <autoconf.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_packet_compat.h>
#include <linux/virtio_net.h>
#include "netdev/netdev-provider.h"
#include "base/util.h"

#define BATCH 32
#define FRAME_SIZE 64
#define MAX_ROUNDS 1000

enum variant { VNET, PLAIN, BYPASS, N_VARIANTS };

static const char *const variant_names[N_VARIANTS] = {
    "vnet", "plain", "bypass"
};

static double
now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int
open_variant(int ifindex, enum variant v)
{
    int fd = netdev_linux_packet_socket(ifindex, (v == VNET
                                                  ? NETDEV_SOCK_TX
                                                  : NETDEV_SOCK_TX_PLAIN));
    int one = 1;

    if (fd < 0) {
        fprintf(stderr, "micro-tx-socket: cannot open socket: %s\n",
                strerror(-fd));
        exit(1);
    }
    if (v == BYPASS
        && setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof one)) {
        perror("micro-tx-socket: PACKET_QDISC_BYPASS");
        exit(1);
    }
    return fd;
}

/* Sends 'n' frames on 'fd' in batches of BATCH; returns ns per frame. */
static double
send_round(int fd, struct mmsghdr *msgs, long n)
{
    double start = now_ns();
    long sent = 0;

    while (sent < n) {
        int ret = sendmmsg(fd, msgs, BATCH, 0);

        if (ret < 0 && errno != ENOBUFS && errno != EAGAIN) {
            perror("micro-tx-socket: sendmmsg");
            exit(1);
        }
        sent += ret > 0 ? ret : 0;
    }
    return (now_ns() - start) / n;
}

static int
cmp_double(const void *a_, const void *b_)
{
    double a = *(const double *) a_, b = *(const double *) b_;

    return a < b ? -1 : a > b;
}

int
main(int argc, char *argv[])
{
    static double ns[N_VARIANTS][MAX_ROUNDS];
    static const struct virtio_net_hdr zero_vnet;
    struct mmsghdr msgs[N_VARIANTS][BATCH];
    struct iovec iovs[BATCH][2];
    uint8_t frame[FRAME_SIZE];
    int fds[N_VARIANTS];
    long frames;
    int rounds;
    int ifindex;

    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: %s IFNAME [FRAMES [ROUNDS]]\n", argv[0]);
        return 2;
    }
    ifindex = netdev_linux_ifindex(argv[1]);
    frames = argc > 2 ? atol(argv[2]) : 200000;
    rounds = argc > 3 ? atoi(argv[3]) : 20;
    if (ifindex < 0 || frames < BATCH || rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "micro-tx-socket: bad interface, FRAMES (at least "
                "%d) or ROUNDS (1 to %d)\n", BATCH, MAX_ROUNDS);
        return 2;
    }

    /* IPv4 to 02:00:00:00:00:01 from 02:00:00:00:00:02: not the peer's
     * address, so its stack drops it right after the driver. */
    memset(frame, 0, sizeof frame);
    frame[0] = 0x02;
    frame[5] = 0x01;
    frame[6] = 0x02;
    frame[11] = 0x02;
    frame[12] = 0x08;
    frame[14] = 0x45;
    for (int i = 0; i < BATCH; i++) {
        iovs[i][0].iov_base = (void *) &zero_vnet;
        iovs[i][0].iov_len = sizeof zero_vnet;
        iovs[i][1].iov_base = frame;
        iovs[i][1].iov_len = sizeof frame;
        for (int v = 0; v < N_VARIANTS; v++) {
            memset(&msgs[v][i], 0, sizeof msgs[v][i]);
            msgs[v][i].msg_hdr.msg_iov = &iovs[i][v != VNET];
            msgs[v][i].msg_hdr.msg_iovlen = v == VNET ? 2 : 1;
        }
    }
    for (int v = 0; v < N_VARIANTS; v++) {
        fds[v] = open_variant(ifindex, v);
    }

    for (int r = 0; r < rounds; r++) {
        for (int v = 0; v < N_VARIANTS; v++) {
            ns[v][r] = send_round(fds[v], msgs[v], frames);
        }
    }

    printf("| socket | min ns/frame | median ns/frame |\n|---|---|---|\n");
    for (int v = 0; v < N_VARIANTS; v++) {
        qsort(ns[v], rounds, sizeof ns[v][0], cmp_double);
        printf("| %s | %.0f | %.0f |\n", variant_names[v], ns[v][0],
               ns[v][rounds / 2]);
        close(fds[v]);
    }
    return 0;
}
