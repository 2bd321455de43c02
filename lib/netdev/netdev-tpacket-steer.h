/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Receive steering of the "tpacket" port provider: the port's one
 * PACKET_FANOUT_CBPF group and the classic BPF program that picks, for
 * each frame, the rx queue (by a hash of the frame's flow) and, within
 * the queue, the socket of the queue's receive mode.  The group has
 * 2 * n_rxq members, the two receive sockets of each queue, joined in the
 * order q0 low-latency, q0 throughput, q1 low-latency, ... so that member
 * 2 * q + mode is the socket of 'mode' of queue q.  doc/netdev-tpacket.md
 * ("Steering", "More than one rx queue") says why, and
 * which kernel facts this relies on.
 *
 * This module opens no socket: netdev-tpacket.c opens the members and
 * owns them.  All functions are for the control thread.
 */
#ifndef NETDEV_TPACKET_STEER_H
#define NETDEV_TPACKET_STEER_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/filter.h>
#include "netdev/netdev-tpacket-policy.h"

/* Most rx queues per port: the same as netdev.c's NETDEV_MAX_RXQ.  A
 * queue's mode is one bit of a uint64_t. */
#define TPACKET_STEER_MAX_RXQ 64

/* Most instructions tpacket_steer_build() emits. */
#define TPACKET_STEER_MAX_INSNS 128

/* A port's fanout group. */
struct tpacket_steer {
    int fd;                     /* First member, which the group's
                                 * program is set through; owned by the
                                 * caller. */
    int n_rxq;
    int id;                     /* Group id, unique in the namespace. */
    bool ignores_outgoing;      /* The kernel keeps the port's own
                                 * transmissions out of the group. */
    uint64_t modes;             /* Installed program: bit q set if queue q
                                 * is steered to TPACKET_THROUGHPUT. */
    size_t n_insns;             /* Length of the installed program. */
};

/* Makes packet socket 'fd' drop every frame it receives, until
 * tpacket_steer_init() has put it in the group.  Call it on each member
 * before tpacket_steer_init(), as soon as the socket may receive.
 * Returns 0 or a positive errno. */
int tpacket_steer_hold(int fd);

/* Puts the 2 * 'n_rxq' sockets 'fds' (indexed [queue][mode], each bound
 * to the port's interface with protocol ETH_P_ALL and held by
 * tpacket_steer_hold(), and created in member order, which the kernel
 * keeps across a link flap) in a new fanout group of the port, member
 * 2 * q + mode being fds[q][mode], and steers queue q to the mode of bit
 * q of 'modes'.  Frames the members received before they joined are
 * discarded; frames that arrive during the call may be lost.  Sleeps for
 * an RCU grace period.  On success fills in 'st' and returns 0; the
 * members stay the caller's to close (closing any of them dissolves the
 * order).  On failure returns a positive errno with the failing step in
 * '*stepp'. */
int tpacket_steer_init(struct tpacket_steer *st,
                       const int fds[][TPACKET_N_MODES], int n_rxq,
                       uint64_t modes, const char **stepp);

/* Steers each queue of 'st' to the mode of its bit in 'modes' by
 * replacing the group's program.  When it returns 0, the kernel has
 * finished every delivery the old program chose (it waits for an RCU
 * grace period), and later frames follow 'modes'.  A queue whose bit did
 * not change sees no difference.  Returns 0 or a positive errno (then
 * the old program stays). */
int tpacket_steer_set_modes(struct tpacket_steer *st, uint64_t modes);

/* Writes into 'insns' the steering program for 'n_rxq' queues (1 to
 * TPACKET_STEER_MAX_RXQ) steered to 'modes': it returns
 * 2 * (flow hash % n_rxq) + mode of that queue, the index of the member
 * to deliver to.  Returns the number of instructions, at most
 * TPACKET_STEER_MAX_INSNS. */
size_t tpacket_steer_build(struct sock_filter *insns, int n_rxq,
                           uint64_t modes);

#endif /* netdev-tpacket-steer.h */
