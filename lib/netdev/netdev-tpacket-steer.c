/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Receive steering of the "tpacket" port provider: the fanout group of a
 * port and its classic BPF program (see netdev-tpacket-steer.h;
 * doc/netdev-tpacket.md has the reasons and the kernel facts).
 *
 * The program.  The kernel runs it for every frame the port receives,
 * with the frame's data starting at the network header (the MAC header is
 * reachable at SKF_LL_OFF) and SKF_AD_PROTOCOL holding the EtherType
 * inside the VLAN tag that the device passed as metadata.  It returns
 * 2 * (hash % n_rxq) + mode, which the kernel takes modulo the number of
 * members as the index of the member to deliver to.  With one queue it is
 * just "return mode".  The program computes the flow hash itself (item 10
 * of the design note says why the skb hash, SKF_AD_RXHASH, will not do):
 * - IPv4: source and destination address, and for TCP, UDP and SCTP the
 *   port pair, except in fragments (MF or an offset), whose later pieces
 *   carry no ports.
 * - IPv6: both addresses, and the port pair if the next header is TCP,
 *   UDP or SCTP (after any extension header, addresses only).
 * - Anything else, or an IP header shorter than its minimum: both MAC
 *   addresses and the EtherType.
 * The words are combined by XOR and mixed by the murmur3 finalizer.  Every
 * load is guarded by a length check: a load out of bounds would end the
 * program with 0, member 0 whatever queue 0's mode.  The per-queue modes
 * are two 32-bit constants shifted by the queue number.  Every program
 * computes the same hash, so a flow stays on its queue for the life of
 * the port, whatever the modes.
 */
#include <autoconf.h>

#include "netdev/netdev-tpacket-steer.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/if_packet_compat.h>
#include "packet/packets.h"
#include "base/util.h"
#include "base/vlog.h"

VLOG_DEFINE_THIS_MODULE(netdev_tpacket_steer);

/* The kernel's legacy limit on the members of a group joined with an int
 * PACKET_FANOUT argument (fanout_add()). */
#define TPACKET_STEER_KERNEL_MAX_MEMBERS 256
BUILD_ASSERT_DECL(2 * TPACKET_STEER_MAX_RXQ
                  <= TPACKET_STEER_KERNEL_MAX_MEMBERS);
BUILD_ASSERT_DECL(TPACKET_STEER_MAX_RXQ <= 64);
BUILD_ASSERT_DECL(TPACKET_LOW_LATENCY == 0 && TPACKET_THROUGHPUT == 1);

/* IP protocols whose first four bytes are the port pair. */
#define STEER_IPPROTO_TCP 6
#define STEER_IPPROTO_UDP 17
#define STEER_IPPROTO_SCTP 132

/* Scratch memory words of the program. */
#define STEER_M_HASH 0          /* Words of the flow, XORed. */
#define STEER_M_QUEUE 1         /* The queue. */

/* Jump targets of the program.  STEER_NEXT is the next instruction. */
enum steer_label {
    STEER_NEXT,
    STEER_IPV4,
    STEER_IPV6,
    STEER_PORTS4,
    STEER_PORTS6,
    STEER_L2,
    STEER_MIX,
    STEER_HIGH,
    STEER_BITS,
    STEER_N_LABELS
};

/* A program being written.  Jumps hold label numbers until
 * steer_asm_finish() turns them into offsets. */
struct steer_asm {
    struct sock_filter *insns;
    size_t n;
    size_t pos[STEER_N_LABELS]; /* Where each label was placed. */
};

static void
steer_emit(struct steer_asm *a, uint16_t code, uint32_t k)
{
    ovs_assert(a->n < TPACKET_STEER_MAX_INSNS);
    a->insns[a->n++] = (struct sock_filter) BPF_STMT(code, k);
}

/* Emits a conditional jump to label 'jt' if true, 'jf' if false. */
static void
steer_jump(struct steer_asm *a, uint16_t code, uint32_t k,
           enum steer_label jt, enum steer_label jf)
{
    ovs_assert(a->n < TPACKET_STEER_MAX_INSNS);
    a->insns[a->n++] = (struct sock_filter) BPF_JUMP(BPF_JMP | code, k, jt,
                                                     jf);
}

static void
steer_place(struct steer_asm *a, enum steer_label label)
{
    a->pos[label] = a->n;
}

/* Returns the offset from the jump at 'at' to 'label', which follows. */
static uint32_t
steer_offset(const struct steer_asm *a, size_t at, uint32_t label)
{
    if (label == STEER_NEXT) {
        return 0;
    }
    ovs_assert(label < STEER_N_LABELS && a->pos[label] > at);
    return a->pos[label] - (at + 1);
}

/* Turns the labels in jumps into offsets. */
static void
steer_asm_finish(struct steer_asm *a)
{
    for (size_t i = 0; i < a->n; i++) {
        struct sock_filter *insn = &a->insns[i];

        if (BPF_CLASS(insn->code) != BPF_JMP) {
            continue;
        }
        if (BPF_OP(insn->code) == BPF_JA) {
            insn->k = steer_offset(a, i, insn->k);
        } else {
            insn->jt = steer_offset(a, i, insn->jt);
            insn->jf = steer_offset(a, i, insn->jf);
        }
    }
}

/* A ^= X, then X = A: folds the word in A into the running XOR in X. */
static void
steer_fold(struct steer_asm *a)
{
    steer_emit(a, BPF_ALU | BPF_XOR | BPF_X, 0);
    steer_emit(a, BPF_MISC | BPF_TAX, 0);
}

/* M[STEER_M_HASH] ^= A, then jumps to the mix. */
static void
steer_add_ports(struct steer_asm *a)
{
    steer_emit(a, BPF_MISC | BPF_TAX, 0);
    steer_emit(a, BPF_LD | BPF_MEM, STEER_M_HASH);
    steer_emit(a, BPF_ALU | BPF_XOR | BPF_X, 0);
    steer_emit(a, BPF_ST, STEER_M_HASH);
    steer_emit(a, BPF_JMP | BPF_JA, STEER_MIX);
}

/* Jumps to 'ports' if A is TCP, UDP or SCTP, else to the mix. */
static void
steer_if_ports(struct steer_asm *a, enum steer_label ports)
{
    steer_jump(a, BPF_JEQ | BPF_K, STEER_IPPROTO_TCP, ports, STEER_NEXT);
    steer_jump(a, BPF_JEQ | BPF_K, STEER_IPPROTO_UDP, ports, STEER_NEXT);
    steer_jump(a, BPF_JEQ | BPF_K, STEER_IPPROTO_SCTP, ports, STEER_MIX);
}

/* A ^= A >> 'shift'. */
static void
steer_xorshift(struct steer_asm *a, uint32_t shift)
{
    steer_emit(a, BPF_MISC | BPF_TAX, 0);
    steer_emit(a, BPF_ALU | BPF_RSH | BPF_K, shift);
    steer_emit(a, BPF_ALU | BPF_XOR | BPF_X, 0);
}

/* Emits the code that leaves the flow hash in A. */
static void
steer_emit_hash(struct steer_asm *a)
{
    steer_emit(a, BPF_LD | BPF_W | BPF_ABS, SKF_AD_OFF + SKF_AD_PROTOCOL);
    steer_jump(a, BPF_JEQ | BPF_K, ETH_TYPE_IP, STEER_IPV4, STEER_NEXT);
    steer_jump(a, BPF_JEQ | BPF_K, ETH_TYPE_IPV6, STEER_IPV6, STEER_L2);

    /* IPv4: the addresses at 12 and 16; the flags and fragment offset at
     * 6; the protocol at 9; the ports after the header of IHL words. */
    steer_place(a, STEER_IPV4);
    steer_emit(a, BPF_LD | BPF_W | BPF_LEN, 0);
    steer_jump(a, BPF_JGE | BPF_K, 20, STEER_NEXT, STEER_L2);
    steer_emit(a, BPF_LD | BPF_W | BPF_ABS, 12);
    steer_emit(a, BPF_MISC | BPF_TAX, 0);
    steer_emit(a, BPF_LD | BPF_W | BPF_ABS, 16);
    steer_emit(a, BPF_ALU | BPF_XOR | BPF_X, 0);
    steer_emit(a, BPF_ST, STEER_M_HASH);
    steer_emit(a, BPF_LD | BPF_H | BPF_ABS, 6);
    steer_jump(a, BPF_JSET | BPF_K, 0x3fff, STEER_MIX, STEER_NEXT);
    steer_emit(a, BPF_LD | BPF_B | BPF_ABS, 9);
    steer_if_ports(a, STEER_PORTS4);
    steer_place(a, STEER_PORTS4);
    steer_emit(a, BPF_LDX | BPF_B | BPF_MSH, 0);
    steer_emit(a, BPF_LD | BPF_W | BPF_LEN, 0);
    steer_emit(a, BPF_ALU | BPF_SUB | BPF_K, 4);
    steer_jump(a, BPF_JGE | BPF_X, 0, STEER_NEXT, STEER_MIX);
    steer_emit(a, BPF_LD | BPF_W | BPF_IND, 0);
    steer_add_ports(a);

    /* IPv6: the addresses at 8 to 40, the next header at 6, the ports at
     * 40. */
    steer_place(a, STEER_IPV6);
    steer_emit(a, BPF_LD | BPF_W | BPF_LEN, 0);
    steer_jump(a, BPF_JGE | BPF_K, 40, STEER_NEXT, STEER_L2);
    steer_emit(a, BPF_LD | BPF_W | BPF_ABS, 8);
    steer_emit(a, BPF_MISC | BPF_TAX, 0);
    for (uint32_t ofs = 12; ofs < 40; ofs += 4) {
        steer_emit(a, BPF_LD | BPF_W | BPF_ABS, ofs);
        steer_fold(a);
    }
    steer_emit(a, BPF_ST, STEER_M_HASH);
    steer_emit(a, BPF_LD | BPF_B | BPF_ABS, 6);
    steer_if_ports(a, STEER_PORTS6);
    steer_place(a, STEER_PORTS6);
    steer_emit(a, BPF_LD | BPF_W | BPF_LEN, 0);
    steer_jump(a, BPF_JGE | BPF_K, 44, STEER_NEXT, STEER_MIX);
    steer_emit(a, BPF_LD | BPF_W | BPF_ABS, 40);
    steer_add_ports(a);

    /* Anything else: the 12 bytes of MAC addresses and the EtherType. */
    steer_place(a, STEER_L2);
    steer_emit(a, BPF_LD | BPF_W | BPF_ABS, SKF_LL_OFF + 0);
    steer_emit(a, BPF_MISC | BPF_TAX, 0);
    steer_emit(a, BPF_LD | BPF_W | BPF_ABS, SKF_LL_OFF + 4);
    steer_fold(a);
    steer_emit(a, BPF_LD | BPF_W | BPF_ABS, SKF_LL_OFF + 8);
    steer_fold(a);
    steer_emit(a, BPF_LD | BPF_W | BPF_ABS, SKF_AD_OFF + SKF_AD_PROTOCOL);
    steer_emit(a, BPF_ALU | BPF_XOR | BPF_X, 0);
    steer_emit(a, BPF_ST, STEER_M_HASH);

    /* The murmur3 32-bit finalizer, so that flows differing in a few bits
     * (one port) spread over the queues. */
    steer_place(a, STEER_MIX);
    steer_emit(a, BPF_LD | BPF_MEM, STEER_M_HASH);
    steer_xorshift(a, 16);
    steer_emit(a, BPF_ALU | BPF_MUL | BPF_K, 0x85ebca6b);
    steer_xorshift(a, 13);
    steer_emit(a, BPF_ALU | BPF_MUL | BPF_K, 0xc2b2ae35);
    steer_xorshift(a, 16);
}

/* Emits the end of a program that has logical member L in A: "return
 * values[L]" for the 'n' members, as a chain of comparisons. */
static void
steer_emit_table(struct steer_asm *a, const uint32_t *values, int n)
{
    for (int l = 0; l < n; l++) {
        /* Skips the return unless A == l. */
        ovs_assert(a->n + 2 <= TPACKET_STEER_MAX_INSNS);
        a->insns[a->n++] = (struct sock_filter) BPF_JUMP(
            BPF_JMP | BPF_JEQ | BPF_K, l, 0, 1);
        steer_emit(a, BPF_RET | BPF_K, values[l]);
    }
    steer_emit(a, BPF_RET | BPF_K, values[0]);
}

size_t
tpacket_steer_build(struct sock_filter *insns, int n_rxq, int per_queue,
                    uint64_t modes, const uint32_t *values)
{
    struct steer_asm a = { .insns = insns };

    ovs_assert(n_rxq >= 1 && n_rxq <= TPACKET_STEER_MAX_RXQ);
    ovs_assert(per_queue == 1 || per_queue == TPACKET_N_MODES);
    if (per_queue == 1) {
        modes = 0;
    }
    if (n_rxq == 1) {
        uint32_t l = modes & 1;

        steer_emit(&a, BPF_RET | BPF_K, values ? values[l] : l);
        return a.n;
    }

    steer_emit_hash(&a);
    steer_emit(&a, BPF_ALU | BPF_MOD | BPF_K, n_rxq);
    if (per_queue == 1) {
        goto done;
    }
    steer_emit(&a, BPF_ST, STEER_M_QUEUE);

    /* X = the queue's bit of 'modes'.  A shift count must stay below
     * 32. */
    if (n_rxq > 32) {
        steer_jump(&a, BPF_JGE | BPF_K, 32, STEER_HIGH, STEER_NEXT);
        steer_emit(&a, BPF_MISC | BPF_TAX, 0);
        steer_emit(&a, BPF_LD | BPF_IMM, (uint32_t) modes);
        steer_emit(&a, BPF_JMP | BPF_JA, STEER_BITS);
        steer_place(&a, STEER_HIGH);
        steer_emit(&a, BPF_ALU | BPF_SUB | BPF_K, 32);
        steer_emit(&a, BPF_MISC | BPF_TAX, 0);
        steer_emit(&a, BPF_LD | BPF_IMM, (uint32_t) (modes >> 32));
        steer_place(&a, STEER_BITS);
    } else {
        steer_emit(&a, BPF_MISC | BPF_TAX, 0);
        steer_emit(&a, BPF_LD | BPF_IMM, (uint32_t) modes);
    }
    steer_emit(&a, BPF_ALU | BPF_RSH | BPF_X, 0);
    steer_emit(&a, BPF_ALU | BPF_AND | BPF_K, 1);
    steer_emit(&a, BPF_MISC | BPF_TAX, 0);

    /* A = 2 * queue + mode. */
    steer_emit(&a, BPF_LD | BPF_MEM, STEER_M_QUEUE);
    steer_emit(&a, BPF_ALU | BPF_LSH | BPF_K, 1);
    steer_emit(&a, BPF_ALU | BPF_ADD | BPF_X, 0);

done:
    /* The table's jumps are relative already; only the hash's have
     * labels. */
    steer_asm_finish(&a);
    if (values) {
        steer_emit_table(&a, values, per_queue * n_rxq);
    } else {
        steer_emit(&a, BPF_RET | BPF_A, 0);
    }
    return a.n;
}

static int
steer_setsockopt_int(int fd, int level, int name, int value)
{
    return setsockopt(fd, level, name, &value, sizeof value) ? errno : 0;
}

/* The value the program of 'st' returns for each of its logical members:
 * the member's slot in the group, or NULL if that is the member itself
 * throughout.  If 'leaving' is a slot (else -1) whose member is about to
 * leave, the value for the member in the last slot, which the kernel
 * moves into 'leaving', is the one number that names its slot both
 * before and after: n - 1 modulo the n members, 'leaving' modulo n - 1
 * (n and n - 1 are coprime, and n - 1 + n * leaving is that number). */
static const uint32_t *
steer_values(const struct tpacket_steer *st, int leaving, uint32_t *values)
{
    const struct tpacket_group *g = st->group;
    int n = st->per_queue * st->n_rxq;
    bool identity = true;

    for (int l = 0; l < n; l++) {
        int slot = 0;

        for (int s = 0; s < g->n_members; s++) {
            if (g->fds[s] == st->fds[l]) {
                slot = s;
                break;
            }
        }
        values[l] = slot;
        if (leaving >= 0 && slot == g->n_members - 1) {
            values[l] = (uint32_t) (g->n_members - 1)
                        + (uint32_t) g->n_members * leaving;
        }
        identity &= values[l] == (uint32_t) l;
    }
    return identity ? NULL : values;
}

/* Installs the program of 'st' for 'modes' in its group, where slot
 * 'leaving' (or -1) is about to leave, and makes 'st' the owner.
 * Replacing a program waits for a grace period. */
static int
steer_install(struct tpacket_steer *st, uint64_t modes, int leaving)
{
    struct sock_filter insns[TPACKET_STEER_MAX_INSNS];
    uint32_t values[2 * TPACKET_STEER_MAX_RXQ];
    struct sock_fprog prog;

    prog.len = tpacket_steer_build(insns, st->n_rxq, st->per_queue, modes,
                                   steer_values(st, leaving, values));
    prog.filter = insns;
    if (setsockopt(st->fds[0], SOL_PACKET, PACKET_FANOUT_DATA, &prog,
                   sizeof prog)) {
        return errno;
    }
    st->n_insns = prog.len;
    st->group->owner = st;
    return 0;
}

int
tpacket_steer_hold(int fd)
{
    struct sock_filter insn = BPF_STMT(BPF_RET | BPF_K, 0);
    struct sock_fprog prog = { .len = 1, .filter = &insn };

    return (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog)
            ? errno : 0);
}

/* Discards the frames queued on 'fd' (a socket error stops it). */
static void
steer_discard(int fd)
{
    uint8_t buf[64];            /* Room for a vnet header. */

    while (recv(fd, buf, sizeof buf, MSG_DONTWAIT | MSG_TRUNC) >= 0) {
        continue;
    }
}

/* Makes 'fd' the first member of new group 'g' with a unique id.  Returns
 * 0 or a positive errno. */
static int
steer_create(struct tpacket_group *g, int fd, const char **stepp)
{
    int type = PACKET_FANOUT_CBPF | PACKET_FANOUT_FLAG_IGNORE_OUTGOING;
    socklen_t len;
    int value;
    int error;

    /* The kernel picks an id that no group in the namespace uses. */
    if (steer_setsockopt_int(fd, SOL_PACKET, PACKET_FANOUT,
                             (type | PACKET_FANOUT_FLAG_UNIQUEID) << 16)) {
        /* Older kernels lack IGNORE_OUTGOING for groups; the receivers
         * then skip the port's own frames by packet type. */
        type &= ~PACKET_FANOUT_FLAG_IGNORE_OUTGOING;
        error = steer_setsockopt_int(fd, SOL_PACKET, PACKET_FANOUT,
                                     (type | PACKET_FANOUT_FLAG_UNIQUEID)
                                     << 16);
        if (error) {
            *stepp = "cannot create fanout group";
            return error;
        }
        VLOG_INFO("kernel lacks PACKET_FANOUT_FLAG_IGNORE_OUTGOING; "
                  "skipping outgoing frames in userspace");
    }
    len = sizeof value;
    if (getsockopt(fd, SOL_PACKET, PACKET_FANOUT, &value, &len)) {
        *stepp = "cannot read fanout group id";
        return errno;
    }
    g->id = value & 0xffff;
    g->ignores_outgoing = (type & PACKET_FANOUT_FLAG_IGNORE_OUTGOING) != 0;
    g->fds[g->n_members++] = fd;
    return 0;
}

/* Adds 'fd' to group 'g'.  Groups must agree on type and flags; UNIQUEID
 * applies to the first member only. */
static int
steer_join(struct tpacket_group *g, int fd)
{
    int type = PACKET_FANOUT_CBPF;
    int error;

    if (g->ignores_outgoing) {
        type |= PACKET_FANOUT_FLAG_IGNORE_OUTGOING;
    }
    error = steer_setsockopt_int(fd, SOL_PACKET, PACKET_FANOUT,
                                 (type << 16) | g->id);
    if (!error) {
        g->fds[g->n_members++] = fd;
    }
    return error;
}

void
tpacket_steer_join_order(int n_old, int n, int order[])
{
    int slots[TPACKET_GROUP_MAX_MEMBERS];
    int total = n_old + n;

    ovs_assert(total <= TPACKET_GROUP_MAX_MEMBERS);
    /* Joined k-th -> slot n_old + k (-1: an old member).  Then the old
     * ones leave as tpacket_steer_uninit() makes them: the lowest slot
     * that holds one first, its hole taken by the last member, which may
     * be an old one too. */
    for (int s = 0; s < total; s++) {
        slots[s] = s < n_old ? -1 : s - n_old;
    }
    for (int s = 0; s < total; ) {
        if (slots[s] < 0) {
            slots[s] = slots[--total];
        } else {
            s++;
        }
    }
    /* Slot s now holds the member joined slots[s]-th: it must be s. */
    ovs_assert(total == n);
    for (int s = 0; s < n; s++) {
        order[slots[s]] = s;
    }
}

/* Removes 'st''s sockets from 'g''s record after a failed join. */
static void
steer_forget(struct tpacket_group *g, const struct tpacket_steer *st)
{
    for (int s = g->n_members - 1; s >= 0; s--) {
        for (int l = 0; l < st->per_queue * st->n_rxq; l++) {
            if (g->fds[s] == st->fds[l]) {
                g->fds[s] = g->fds[--g->n_members];
                break;
            }
        }
    }
}

int
tpacket_steer_init(struct tpacket_steer *st, const int fds[], int n_rxq,
                   int per_queue, uint64_t modes, struct tpacket_steer *join,
                   const char **stepp)
{
    int order[2 * TPACKET_STEER_MAX_RXQ];
    struct tpacket_group *g;
    int n = per_queue * n_rxq;
    int error = 0;

    ovs_assert(n_rxq >= 1 && n_rxq <= TPACKET_STEER_MAX_RXQ);
    memset(st, 0, sizeof *st);
    st->n_rxq = n_rxq;
    st->per_queue = per_queue;
    st->modes = per_queue == 1 ? 0 : modes;
    memcpy(st->fds, fds, n * sizeof fds[0]);

    if (join && (!join->group || !join->group->owner
                 || join->group->n_refs >= TPACKET_GROUP_MAX_STEERS
                 || join->group->n_members + n > TPACKET_GROUP_MAX_MEMBERS)) {
        /* Nothing steers there, or too many at once: a group of its
         * own. */
        join = NULL;
    }
    if (!join) {
        g = xzalloc(sizeof *g);
        st->group = g;
        error = steer_create(g, fds[0], stepp);
        if (!error) {
            /* The first program comes without a grace period.  Until
             * every member has joined, the kernel takes its result modulo
             * fewer members, but every member drops what it gets. */
            error = steer_install(st, st->modes, -1);
            if (error) {
                *stepp = "cannot set steering program";
            }
        }
        for (int l = 1; l < n && !error; l++) {
            error = steer_join(g, fds[l]);
            if (error) {
                *stepp = "cannot join fanout group";
            }
        }
    } else {
        g = join->group;
        st->group = g;
        tpacket_steer_join_order(g->n_members, n, order);
        for (int k = 0; k < n && !error; k++) {
            error = steer_join(g, fds[order[k]]);
            if (error) {
                *stepp = "cannot join fanout group";
            }
        }
    }

    /* Installing the running program again waits for a grace period:
     * after it, no delivery that passed a member before its hold, or came
     * through its own hook before it joined, is still under way.  So
     * every frame a member queued outside the group is queued by now, and
     * discarding the queues leaves none behind. */
    if (!error) {
        struct tpacket_steer *owner = (struct tpacket_steer *) g->owner;

        error = steer_install(owner, owner->modes, -1);
        if (error) {
            *stepp = "cannot set steering program";
        }
    }
    if (error) {
        if (join) {
            steer_forget(g, st);
        } else {
            free(g);
        }
        st->group = NULL;
        return error;
    }
    for (int l = 0; l < n; l++) {
        steer_discard(fds[l]);
    }
    for (int l = 0; l < n; l++) {
        error = steer_setsockopt_int(fds[l], SOL_SOCKET, SO_DETACH_FILTER,
                                     0);
        if (error) {
            /* A held member can only lose frames steered to it, and none
             * is yet: give it up as a whole. */
            *stepp = "cannot detach filter";
            if (join) {
                steer_forget(g, st);
            } else {
                free(g);
            }
            st->group = NULL;
            return error;
        }
    }
    g->steers[g->n_refs++] = st;
    return 0;
}

int
tpacket_steer_take_over(struct tpacket_steer *st)
{
    return steer_install(st, st->modes, -1);
}

bool
tpacket_steer_is_owner(const struct tpacket_steer *st)
{
    return st->group && st->group->owner == st;
}

int
tpacket_steer_set_modes(struct tpacket_steer *st, uint64_t modes)
{
    int error = 0;

    if (st->per_queue == 1) {
        modes = 0;
    }
    if (tpacket_steer_is_owner(st)) {
        error = steer_install(st, modes, -1);
    }
    if (!error) {
        st->modes = modes;
    }
    return error;
}

void
tpacket_steer_uninit(struct tpacket_steer *st)
{
    struct tpacket_group *g = st->group;
    int n = st->per_queue * st->n_rxq;
    bool steered_around = false;

    if (!g) {
        return;
    }
    for (int i = 0; i < g->n_refs; i++) {
        if (g->steers[i] == st) {
            g->steers[i] = g->steers[--g->n_refs];
            break;
        }
    }
    if (g->owner == st) {
        g->owner = NULL;
        if (g->n_refs) {
            int error = steer_install(g->steers[0], g->steers[0]->modes,
                                      -1);

            if (error) {
                VLOG_WARN("fanout group %d: cannot hand the steering over "
                          "(%s)", g->id, strerror(error));
            }
        }
    }
    /* Slot order, which the joiner's order counts on. */
    for (int s = 0; s < g->n_members; ) {
        bool mine = false;

        for (int l = 0; l < n; l++) {
            mine |= g->fds[s] == st->fds[l];
        }
        if (!mine) {
            s++;
            continue;
        }
        if (g->owner) {
            struct tpacket_steer *owner = (struct tpacket_steer *) g->owner;
            int error = steer_install(owner, owner->modes, s);

            if (error) {
                VLOG_WARN("fanout group %d: cannot steer around a leaving "
                          "member (%s)", g->id, strerror(error));
            }
        }
        /* Closing unlinks it: the kernel moves the last member into its
         * slot (a last member just goes). */
        close(g->fds[s]);
        g->fds[s] = g->fds[--g->n_members];
        steered_around = g->owner != NULL;
    }
    if (steered_around) {
        /* The last program names a moved member by a number that is right
         * modulo this member count only: a socket that joins later would
         * change the count under it.  The plain program is right for any
         * count. */
        struct tpacket_steer *owner = (struct tpacket_steer *) g->owner;
        int error = steer_install(owner, owner->modes, -1);

        if (error) {
            VLOG_WARN("fanout group %d: cannot reinstall the steering "
                      "program (%s)", g->id, strerror(error));
        }
    }
    for (int l = 0; l < n; l++) {
        st->fds[l] = -1;
    }
    st->group = NULL;
    if (!g->n_refs) {
        free(g);
    }
}
