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
 * The "mmsg" provider uses the same group with one socket per queue, so
 * that either provider can take over the other's group on a hand-over
 * (doc/port-handover.md).
 *
 * This module opens no socket: the providers open the members and hand
 * them over to tpacket_steer_init(), which closes them in
 * tpacket_steer_uninit().  All functions are for the control thread.
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

/* Most instructions tpacket_steer_build() emits: the hash, then up to
 * two per member for a slot table. */
#define TPACKET_STEER_MAX_INSNS (160 + 2 * 2 * TPACKET_STEER_MAX_RXQ + 1)

struct tpacket_steer;

/* Most steerings in one group: a port's and its successor's, and one
 * more that joined before the successor took over. */
#define TPACKET_GROUP_MAX_STEERS 4

/* Most members of a group: the kernel's limit for groups joined with an
 * int PACKET_FANOUT argument. */
#define TPACKET_GROUP_MAX_MEMBERS 256

/* A fanout group, shared by the port's receive sockets and, during a
 * hand-over (doc/port-handover.md), by those of the netdev that replaces
 * them.  'fds' mirrors the kernel's member array: the kernel appends a
 * joining socket and moves the last member into the slot of one that
 * leaves. */
struct tpacket_group {
    int n_refs;                 /* Steerings that use it. */
    int id;                     /* Group id, unique in the namespace. */
    bool ignores_outgoing;      /* The kernel keeps the port's own
                                 * transmissions out of the group. */
    int n_members;
    int fds[TPACKET_GROUP_MAX_MEMBERS]; /* Slot -> member socket. */
    const struct tpacket_steer *owner; /* Whose program the kernel runs;
                                        * NULL: none yet. */
    struct tpacket_steer *steers[TPACKET_GROUP_MAX_STEERS]; /* The
                                 * 'n_refs' steerings in the group. */
};

/* The steering of one netdev's receive sockets: 'per_queue' sockets per rx
 * queue ("tpacket": low-latency and throughput; "mmsg": one), logical
 * member per_queue * q + mode.  A frame of queue q goes to the member of
 * the mode of bit q of 'modes' (always mode 0 with one socket a queue). */
struct tpacket_steer {
    struct tpacket_group *group; /* NULL until tpacket_steer_init(). */
    int n_rxq;
    int per_queue;              /* 1 or TPACKET_N_MODES. */
    int fds[2 * TPACKET_STEER_MAX_RXQ]; /* Logical member -> socket, owned
                                 * by the caller until
                                 * tpacket_steer_init() succeeds. */
    uint64_t modes;             /* Bit q set if queue q is steered to
                                 * TPACKET_THROUGHPUT. */
    size_t n_insns;             /* Length of the last program built. */
};

/* Makes packet socket 'fd' drop every frame it receives, until
 * tpacket_steer_init() has put it in the group.  Call it on each member
 * as soon as the socket may receive.  Returns 0 or a positive errno. */
int tpacket_steer_hold(int fd);

/* Puts the 'per_queue' * 'n_rxq' sockets 'fds' (logical member order, each
 * bound to the port's interface with protocol ETH_P_ALL, held by
 * tpacket_steer_hold() and created in member order, which the kernel keeps
 * across a link flap) in a fanout group and steers queue q to the mode of
 * bit q of 'modes'.
 *
 * With 'join' NULL the group is new and the steering takes effect at once.
 * With 'join' (the steering of the netdev being replaced on the same
 * interface) the sockets join its group, in an order chosen so that they
 * sit in member order once 'join''s sockets have left, and receive nothing
 * until tpacket_steer_take_over().
 *
 * Frames the sockets received before they joined are discarded.  Sleeps
 * for an RCU grace period.  On success 'st' owns the sockets (closed by
 * tpacket_steer_uninit()) and 0 is returned; on failure the sockets stay
 * the caller's and a positive errno is returned with the failing step in
 * '*stepp'. */
int tpacket_steer_init(struct tpacket_steer *st, const int fds[], int n_rxq,
                       int per_queue, uint64_t modes,
                       struct tpacket_steer *join, const char **stepp);

/* Steers every frame of the group to the sockets of 'st' (joined with
 * tpacket_steer_init() to the group of the steering it replaces).  When it
 * returns 0, every delivery to the old sockets is over: they receive
 * nothing any more.  Sleeps for a grace period.  Returns 0 or a positive
 * errno (then nothing changed). */
int tpacket_steer_take_over(struct tpacket_steer *st);

/* True if the kernel runs the program of 'st'. */
bool tpacket_steer_is_owner(const struct tpacket_steer *st);

/* Steers each queue of 'st' to the mode of its bit in 'modes' by
 * replacing the group's program (if 'st' owns it; else only records
 * 'modes').  When it returns 0, the kernel has finished every delivery
 * the old program chose (it waits for an RCU grace period), and later
 * frames follow 'modes'.  A queue whose bit did not change sees no
 * difference.  Returns 0 or a positive errno (then the old program
 * stays). */
int tpacket_steer_set_modes(struct tpacket_steer *st, uint64_t modes);

/* Closes the sockets of 'st' and leaves its group.  While the group's
 * program is another steering's, each socket leaves only after a program
 * that stays right both before and after the kernel moves its last member
 * into the hole, so that no frame reaches a wrong socket.  If 'st' owns
 * the program and another steering is in the group, that one takes over
 * first (frames still queued on 'st''s sockets are then lost: a caller
 * that cares uses tpacket_steer_take_over() and drains first).  Accepts a
 * steering that tpacket_steer_init() did not set up (does nothing). */
void tpacket_steer_uninit(struct tpacket_steer *st);

/* Writes into 'insns' the steering program for 'n_rxq' queues (1 to
 * TPACKET_STEER_MAX_RXQ) of 'per_queue' members steered to 'modes': it
 * computes logical member L = per_queue * (flow hash % n_rxq) + mode of
 * that queue and returns 'values[L]' ('values' NULL: L itself), which
 * the kernel takes modulo the number of members as the slot to deliver
 * to.  Returns the number of instructions, at most
 * TPACKET_STEER_MAX_INSNS. */
size_t tpacket_steer_build(struct sock_filter *insns, int n_rxq,
                           int per_queue, uint64_t modes,
                           const uint32_t *values);

/* Fills 'order' with the order in which a steering of 'n' members must
 * join a group whose first 'n_old' slots hold the sockets that leave, so
 * that logical member L is in slot L once they have left, lowest slot
 * first (each leaving member's slot taken by the last member), as
 * tpacket_steer_uninit() makes them: 'order[k]' is the logical member
 * that joins k-th. */
void tpacket_steer_join_order(int n_old, int n, int order[]);

#endif /* netdev-tpacket-steer.h */
