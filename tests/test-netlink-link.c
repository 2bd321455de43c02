/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for lib/netlink-link: the messages of netlink_link_strerror() and
 * the rejection of bad names and values run without root; everything else
 * needs root (the program exits 77 without it, once the rootless checks
 * have passed).
 *
 * As root the program first moves itself into a private network namespace
 * (unshare(CLONE_NEWNET)), which vanishes with the process however it
 * ends, so a failed check or a crash cannot leave the veth pair tnl0/tnl1
 * behind; the checks still delete it at the start and at the end.  What
 * netlink_link_get() reports is compared with what the ioctl interface
 * (SIOCGIFINDEX, SIOCGIFFLAGS, SIOCGIFMTU, SIOCGIFHWADDR) reports, and
 * "rejected before the kernel is asked" is checked by running those calls
 * with no file descriptor left for a netlink socket.  An alias set with
 * netlink_link_set_alias() is what netlink_link_dump() reports.
 */
#include <autoconf.h>
#include "netdev/netlink-link.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"
#include "base/util.h"

#define VETH0 "tnl0"
#define VETH1 "tnl1"
#define OTHER "tnl2"                /* Never created. */
#define MISSING "tnlmissing"        /* Never created. */
#define NAME_15 "tnl456789012345"   /* Longest valid name; never created. */
#define NAME_16 "tnl4567890123456"  /* One character too long. */
#define NAME_40 "tnl4567890123456789012345678901234567890"

#define OPER_WAIT_MS 5000           /* Longest wait for carrier. */

/* Returns the lowest file descriptor number not in use. */
static int
lowest_free_fd(void)
{
    int fd = open("/dev/null", O_RDONLY);

    if (fd >= 0) {
        close(fd);
    }
    return fd;
}

/* Runs ioctl 'request' for interface 'name' into '*ifr'.  Returns 0 or an
 * errno value. */
static int
ifr_ioctl(const char *name, unsigned long request, struct ifreq *ifr)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    int error;

    if (fd < 0) {
        return errno;
    }
    memset(ifr, 0, sizeof *ifr);
    snprintf(ifr->ifr_name, sizeof ifr->ifr_name, "%s", name);
    error = ioctl(fd, request, ifr) ? errno : 0;
    close(fd);
    return error;
}

/* Checks that 'info' agrees with what the ioctl interface reports for
 * 'name', and that it names 'name'. */
static void
check_against_ioctl(const char *name, const struct netlink_link_info *info)
{
    struct ifreq ifr;
    int error;

    CHECK_STR(info->name, name);
    error = ifr_ioctl(name, SIOCGIFINDEX, &ifr);
    CHECK(!error && ifr.ifr_ifindex == info->ifindex,
          "%s: ifindex %d, ioctl says %d (%s)", name, info->ifindex,
          ifr.ifr_ifindex, strerror(error));
    error = ifr_ioctl(name, SIOCGIFMTU, &ifr);
    CHECK(!error && ifr.ifr_mtu == info->mtu,
          "%s: mtu %d, ioctl says %d (%s)", name, info->mtu, ifr.ifr_mtu,
          strerror(error));
    error = ifr_ioctl(name, SIOCGIFFLAGS, &ifr);
    CHECK(!error
          && info->admin_up == !!(ifr.ifr_flags & IFF_UP)
          && info->promisc == !!(ifr.ifr_flags & IFF_PROMISC),
          "%s: up %d promisc %d, ioctl flags %#x (%s)", name,
          info->admin_up, info->promisc, (unsigned int) ifr.ifr_flags,
          strerror(error));
    error = ifr_ioctl(name, SIOCGIFHWADDR, &ifr);
    CHECK(!error && !memcmp(ifr.ifr_hwaddr.sa_data, info->mac.ea,
                            ETH_ADDR_LEN),
          "%s: mac "ETH_ADDR_FMT" differs from ioctl's (%s)", name,
          ETH_ADDR_ARGS(info->mac), strerror(error));
}

/* Messages of netlink_link_strerror(). */
static void
test_strerror(void)
{
    static const struct {
        const char *name;
        int error;
        const char *message;
    } cases[] = {
        { "veth0", ENODEV, "interface veth0 does not exist" },
        { "veth0", EEXIST, "interface veth0 already exists" },
        { "veth0", EINVAL, "invalid setting for interface veth0" },
        { NAME_15, EINVAL, "invalid setting for interface " NAME_15 },
        { NAME_16, EINVAL, "invalid interface name \"" NAME_16 "\" (must "
          "have 1 to 15 characters)" },
        { "", EINVAL, "invalid interface name \"\" (must have 1 to 15 "
          "characters)" },
        { NULL, EINVAL, "invalid interface name \"(null)\" (must have 1 "
          "to 15 characters)" },
        { "veth0", EPERM, "no permission to change interface veth0 (needs "
          "CAP_NET_ADMIN)" },
        { "veth0", EACCES, "no permission to change interface veth0 (needs "
          "CAP_NET_ADMIN)" },
        { "veth0", EBUSY, "interface veth0: Device or resource busy" },
        { "veth0", EIO, "interface veth0: Input/output error" },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        char *message = netlink_link_strerror(cases[i].name, cases[i].error);

        CHECK_STR(message, cases[i].message);
        free(message);
    }
}

/* Bad names and values are EINVAL without a netlink socket: the calls run
 * with the file descriptor limit at the lowest free descriptor, where any
 * socket would fail (as the last check shows). */
static void
test_rejected_early(void)
{
    static const char *const bad_names[] = { NULL, "", NAME_16, NAME_40 };
    struct netlink_link_info info;
    struct rlimit old, tight;
    int error;

    CHECK(!getrlimit(RLIMIT_NOFILE, &old), "getrlimit: %s", strerror(errno));
    tight = old;
    tight.rlim_cur = lowest_free_fd();
    if (setrlimit(RLIMIT_NOFILE, &tight)) {
        CHECK(false, "setrlimit: %s", strerror(errno));
        return;
    }

    for (size_t i = 0; i < ARRAY_SIZE(bad_names); i++) {
        const char *name = bad_names[i];

        check_set_context("name %s%s%s", name ? "\"" : "",
                          name ? name : "NULL", name ? "\"" : "");
        CHECK_INT(netlink_link_get(name, &info), EINVAL);
        CHECK_INT(netlink_link_set_up(name, true), EINVAL);
        CHECK_INT(netlink_link_set_up(name, false), EINVAL);
        CHECK_INT(netlink_link_set_promisc(name, true), EINVAL);
        CHECK_INT(netlink_link_set_mtu(name, 1500), EINVAL);
        CHECK_INT(netlink_link_create_veth(name, VETH1), EINVAL);
        CHECK_INT(netlink_link_create_veth(VETH0, name), EINVAL);
        CHECK_INT(netlink_link_delete(name), EINVAL);
    }
    check_set_context("%s", "");
    CHECK_INT(netlink_link_set_mtu("lo", 0), EINVAL);
    CHECK_INT(netlink_link_set_mtu("lo", -1500), EINVAL);
    CHECK_INT(netlink_link_get_by_index(0, &info), EINVAL);
    CHECK_INT(netlink_link_get_by_index(-1, &info), EINVAL);

    /* A valid request does need the socket that the limit forbids. */
    error = netlink_link_get("lo", &info);
    CHECK(error && error != EINVAL, "get(lo) with no descriptor left: %s",
          strerror(error));

    CHECK(!setrlimit(RLIMIT_NOFILE, &old), "setrlimit: %s", strerror(errno));
}

/* Without root: lookups work, changes are EPERM. */
static void
test_unprivileged(void)
{
    struct netlink_link_info info;

    CHECK_INT(netlink_link_get("lo", &info), 0);
    CHECK_STR(info.kind, "");
    CHECK_INT(info.ifindex, if_nametoindex("lo"));
    CHECK_INT(netlink_link_get(MISSING, &info), ENODEV);
    /* Changes only the state lo already has, should it succeed. */
    CHECK_INT(netlink_link_set_up("lo", true), EPERM);
    CHECK_INT(netlink_link_create_veth(VETH0, VETH1), EPERM);
    CHECK_INT(netlink_link_get(VETH0, &info), ENODEV);
}

/* As root, in the private namespace: a child that gives up root may still
 * look links up but changing one is EPERM. */
static void
test_permission(void)
{
    int status, code;
    bool exited;
    pid_t pid;

    fflush(stdout);
    pid = fork();
    if (pid < 0) {
        CHECK(false, "fork: %s", strerror(errno));
        return;
    }
    if (!pid) {
        struct netlink_link_info info;

        if (setgid(65534) || setuid(65534) || !geteuid()) {
            _exit(254);
        }
        if (netlink_link_get("lo", &info)) {
            _exit(253);
        }
        _exit(netlink_link_set_up("lo", true));
    }
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            CHECK(false, "waitpid: %s", strerror(errno));
            return;
        }
    }
    exited = WIFEXITED(status);
    code = exited ? WEXITSTATUS(status) : -1;
    if (code == 254) {
        printf("test-netlink-link: cannot drop root, permission case "
               "skipped\n");
        return;
    }
    /* 253 would mean that the child's lookup failed. */
    CHECK(exited, "unprivileged child: status %#x", (unsigned int) status);
    CHECK_INT(code, EPERM);
}

/* Loopback of the fresh namespace, lookups by index, missing links. */
static void
test_loopback(void)
{
    struct netlink_link_info info, by_index;
    char *message;

    CHECK_INT(netlink_link_get("lo", &info), 0);
    check_against_ioctl("lo", &info);
    CHECK_STR(info.kind, "");
    CHECK_INT(info.mtu, 65536);
    CHECK(eth_addr_equals(info.mac, (struct eth_addr) { { 0 } }),
          "lo mac "ETH_ADDR_FMT, ETH_ADDR_ARGS(info.mac));
    CHECK(!info.admin_up && !info.oper_up && !info.promisc,
          "new namespace's lo: up %d running %d promisc %d", info.admin_up,
          info.oper_up, info.promisc);

    CHECK_INT(netlink_link_get_by_index(info.ifindex, &by_index), 0);
    CHECK_STR(by_index.name, "lo");
    CHECK_INT(by_index.ifindex, info.ifindex);
    CHECK_INT(netlink_link_get_by_index(INT_MAX, &by_index), ENODEV);

    CHECK_INT(netlink_link_get(MISSING, &info), ENODEV);
    CHECK_INT(netlink_link_get(NAME_15, &info), ENODEV);
    CHECK_INT(netlink_link_set_up(MISSING, true), ENODEV);
    CHECK_INT(netlink_link_set_promisc(MISSING, true), ENODEV);
    CHECK_INT(netlink_link_set_mtu(MISSING, 1500), ENODEV);
    CHECK_INT(netlink_link_delete(MISSING), ENODEV);

    message = netlink_link_strerror(MISSING,
                                    netlink_link_get(MISSING, &info));
    CHECK_STR(message, "interface " MISSING " does not exist");
    free(message);
}

/* Reads 'name' and checks it against the ioctl interface and against the
 * expected 'admin_up', 'promisc' and 'mtu'. */
static void
check_veth_end(const char *name, bool admin_up, bool promisc, int mtu)
{
    struct netlink_link_info info;
    int error = netlink_link_get(name, &info);

    CHECK(!error, "get(%s): %s", name, strerror(error));
    if (error) {
        return;
    }
    check_against_ioctl(name, &info);
    CHECK_STR(info.kind, "veth");
    CHECK(info.admin_up == admin_up, "%s admin_up %d", name, info.admin_up);
    CHECK(info.promisc == promisc, "%s promisc %d", name, info.promisc);
    CHECK_INT(info.mtu, mtu);
}

/* Waits up to OPER_WAIT_MS for 'name' to report oper_up as 'oper_up'
 * (the kernel sets the operational state asynchronously).  Returns true if
 * it did. */
static bool
wait_oper(const char *name, bool oper_up)
{
    long long deadline = time_msec() + OPER_WAIT_MS;
    struct netlink_link_info info;

    for (;;) {
        if (!netlink_link_get(name, &info) && info.oper_up == oper_up) {
            return true;
        }
        if (time_msec() >= deadline) {
            return false;
        }
        usleep(10 * 1000);
    }
}

enum change_op {
    OP_UP,
    OP_PROMISC,
    OP_MTU,
};

/* Changes applied in order to the pair, each with its expected result. */
static const struct change_step {
    const char *name;           /* Interface to change. */
    enum change_op op;
    int value;                  /* Boolean for OP_UP/OP_PROMISC, or MTU. */
    int error;                  /* Expected return value. */
} change_steps[] = {
    { VETH0, OP_UP, true, 0 },
    { VETH0, OP_UP, true, 0 },          /* Already up. */
    { VETH0, OP_PROMISC, true, 0 },
    { VETH0, OP_PROMISC, true, 0 },     /* Not counted twice... */
    { VETH0, OP_PROMISC, false, 0 },    /* ...so one "off" turns it off. */
    { VETH0, OP_PROMISC, false, 0 },
    { VETH0, OP_MTU, 9000, 0 },
    { VETH0, OP_MTU, 67, EINVAL },      /* Below the Ethernet minimum. */
    { VETH0, OP_MTU, 1000000, EINVAL }, /* Above veth's maximum. */
    { VETH0, OP_MTU, 0, EINVAL },
    { VETH0, OP_MTU, 1500, 0 },
    { VETH0, OP_MTU, 68, 0 },           /* The Ethernet minimum. */
    { VETH0, OP_MTU, 1500, 0 },
    { MISSING, OP_UP, true, ENODEV },
    { MISSING, OP_PROMISC, true, ENODEV },
    { MISSING, OP_MTU, 9000, ENODEV },
    { VETH0, OP_UP, false, 0 },
    { VETH0, OP_UP, false, 0 },         /* Already down. */
};

/* The state of VETH0 that 'change_steps' should produce. */
struct veth_model {
    bool admin_up;
    bool promisc;
    int mtu;
};

static int
run_step(const struct change_step *step, struct veth_model *model)
{
    int error;

    switch (step->op) {
    case OP_UP:
        error = netlink_link_set_up(step->name, step->value);
        if (!error) {
            model->admin_up = step->value;
        }
        return error;
    case OP_PROMISC:
        error = netlink_link_set_promisc(step->name, step->value);
        if (!error) {
            model->promisc = step->value;
        }
        return error;
    case OP_MTU:
        error = netlink_link_set_mtu(step->name, step->value);
        if (!error) {
            model->mtu = step->value;
        }
        return error;
    }
    return -1;
}

/* The whole life of a veth pair. */
static void
test_veth(void)
{
    static const char *const ops[] = { "up", "promisc", "mtu" };
    struct veth_model model = { false, false, 1500 };
    struct netlink_link_info info0, info1, by_index;
    int fd_before = lowest_free_fd();
    int error;

    /* In case an earlier run left the pair (impossible in a private
     * namespace, but the test may one day run outside one). */
    error = netlink_link_delete(VETH0);
    CHECK(!error || error == ENODEV, "delete at start: %s", strerror(error));

    CHECK_INT(netlink_link_create_veth(VETH0, VETH1), 0);
    CHECK_INT(netlink_link_get(VETH0, &info0), 0);
    CHECK_INT(netlink_link_get(VETH1, &info1), 0);
    CHECK(info0.ifindex > 0 && info1.ifindex > 0
          && info0.ifindex != info1.ifindex,
          "ifindexes %d and %d", info0.ifindex, info1.ifindex);
    CHECK(!info0.oper_up && !info1.oper_up, "new pair running");
    CHECK(!eth_addr_is_multicast(info0.mac)
          && !eth_addr_equals(info0.mac, (struct eth_addr) { { 0 } }),
          "veth mac "ETH_ADDR_FMT, ETH_ADDR_ARGS(info0.mac));
    check_veth_end(VETH0, false, false, 1500);
    check_veth_end(VETH1, false, false, 1500);

    CHECK_INT(netlink_link_get_by_index(info0.ifindex, &by_index), 0);
    CHECK_STR(by_index.name, VETH0);
    CHECK_STR(by_index.kind, "veth");
    CHECK(eth_addr_equals(by_index.mac, info0.mac), "mac by index");

    /* Either name in use is EEXIST, and nothing is created. */
    CHECK_INT(netlink_link_create_veth(VETH0, VETH1), EEXIST);
    CHECK_INT(netlink_link_create_veth(VETH0, OTHER), EEXIST);
    CHECK_INT(netlink_link_create_veth(OTHER, VETH1), EEXIST);
    CHECK_INT(netlink_link_delete(OTHER), ENODEV);

    for (size_t i = 0; i < ARRAY_SIZE(change_steps); i++) {
        const struct change_step *step = &change_steps[i];

        check_set_context("step %zu: %s %s %d", i, step->name, ops[step->op],
                          step->value);
        CHECK_INT(run_step(step, &model), step->error);
        check_veth_end(VETH0, model.admin_up, model.promisc, model.mtu);
        check_veth_end(VETH1, false, false, 1500);
    }
    check_set_context("%s", "");

    /* Carrier needs both ends up; down is immediate. */
    CHECK_INT(netlink_link_set_up(VETH0, true), 0);
    CHECK(wait_oper(VETH0, false), "running with its peer down");
    CHECK_INT(netlink_link_set_up(VETH1, true), 0);
    CHECK(wait_oper(VETH0, true) && wait_oper(VETH1, true),
          "not running %d ms after both ends came up", OPER_WAIT_MS);
    CHECK_INT(netlink_link_set_up(VETH0, false), 0);
    CHECK_INT(netlink_link_get(VETH0, &info0), 0);
    CHECK(!info0.admin_up && !info0.oper_up, "after down: up %d running %d",
          info0.admin_up, info0.oper_up);

    /* Deleting one end deletes both. */
    CHECK_INT(netlink_link_delete(VETH0), 0);
    CHECK_INT(netlink_link_get(VETH0, &info0), ENODEV);
    CHECK_INT(netlink_link_get(VETH1, &info0), ENODEV);
    CHECK_INT(netlink_link_get_by_index(by_index.ifindex, &info0), ENODEV);
    CHECK_INT(netlink_link_delete(VETH0), ENODEV);
    CHECK_INT(netlink_link_delete(VETH1), ENODEV);

    /* Every call closed its socket. */
    CHECK_INT(lowest_free_fd(), fd_before);

    /* At the end too, should a check above have failed early. */
    netlink_link_delete(VETH0);
}

/* What dump_find() looks for and finds. */
struct dump_find {
    const char *name;
    int n_seen;                 /* Interfaces dumped. */
    int n_found;                /* Of those, named 'name'. */
    char alias[256];            /* Alias of the one named 'name'. */
    char kind[NETLINK_LINK_KIND_SIZE];
};

static void
dump_find(const struct netlink_link_info *info, const char *alias,
          void *find_)
{
    struct dump_find *find = find_;

    find->n_seen++;
    if (!strcmp(info->name, find->name)) {
        find->n_found++;
        snprintf(find->alias, sizeof find->alias, "%s", alias);
        snprintf(find->kind, sizeof find->kind, "%s", info->kind);
    }
}

/* An interface's alias is set, read back in a dump, and cleared. */
static void
test_alias(void)
{
    struct dump_find find = { .name = VETH0 };
    char long_alias[300];
    int fd_before = lowest_free_fd();

    CHECK_INT(netlink_link_create_veth(VETH0, VETH1), 0);
    CHECK_INT(netlink_link_dump(dump_find, &find), 0);
    CHECK(find.n_seen >= 3, "dumped %d interfaces (lo and a veth pair)",
          find.n_seen);
    CHECK_INT(find.n_found, 1);
    CHECK_STR(find.alias, "");
    CHECK_STR(find.kind, "veth");

    CHECK_INT(netlink_link_set_alias(VETH0, "pmdswitchd pid=1 ctl=/x"), 0);
    memset(&find, 0, sizeof find);
    find.name = VETH0;
    CHECK_INT(netlink_link_dump(dump_find, &find), 0);
    CHECK_STR(find.alias, "pmdswitchd pid=1 ctl=/x");

    memset(long_alias, 'a', sizeof long_alias - 1);
    long_alias[sizeof long_alias - 1] = '\0';
    CHECK_INT(netlink_link_set_alias(VETH0, long_alias), EINVAL);
    CHECK_INT(netlink_link_set_alias(OTHER, "x"), ENODEV);
    CHECK_INT(netlink_link_set_alias(VETH0, ""), 0);
    memset(&find, 0, sizeof find);
    find.name = VETH0;
    CHECK_INT(netlink_link_dump(dump_find, &find), 0);
    CHECK_STR(find.alias, "");
    CHECK_INT(netlink_link_delete(VETH0), 0);
    CHECK_INT(lowest_free_fd(), fd_before);
}

/* Opens the calling thread's network namespace.  Returns an fd or -1. */
static int
open_own_netns(void)
{
    return open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
}

/* A veth pair whose peer is made in another namespace, with an MTU on both
 * ends, as the CNI plugin makes it.  The other namespace is a second
 * unshare() of this process; the test moves between the two with
 * setns(). */
static void
test_veth_ns(void)
{
    struct netlink_link_info info;
    int here, there;

    here = open_own_netns();
    if (here < 0 || unshare(CLONE_NEWNET)) {
        CHECK(false, "cannot make a second namespace: %s", strerror(errno));
        return;
    }
    there = open_own_netns();
    CHECK(there >= 0 && !setns(here, CLONE_NEWNET), "back to the first "
          "namespace: %s", strerror(errno));

    CHECK_INT(netlink_link_create_veth_ns(VETH0, VETH1, there, -1), EINVAL);
    CHECK_INT(netlink_link_create_veth_ns(VETH0, VETH1, there, 1400), 0);
    CHECK_INT(netlink_link_get(VETH0, &info), 0);
    CHECK_INT(info.mtu, 1400);
    CHECK_INT(netlink_link_get(VETH1, &info), ENODEV);
    /* Names clash where each end would go, and nothing is created. */
    CHECK_INT(netlink_link_create_veth_ns(VETH0, OTHER, there, 0), EEXIST);
    CHECK_INT(netlink_link_create_veth_ns(OTHER, VETH1, there, 0), EEXIST);
    CHECK_INT(netlink_link_get(OTHER, &info), ENODEV);

    CHECK(!setns(there, CLONE_NEWNET), "setns: %s", strerror(errno));
    CHECK_INT(netlink_link_get(VETH1, &info), 0);
    CHECK_INT(info.mtu, 1400);
    CHECK_STR(info.kind, "veth");
    CHECK_INT(netlink_link_get(VETH0, &info), ENODEV);
    CHECK(!setns(here, CLONE_NEWNET), "setns: %s", strerror(errno));

    /* Deleting the end here deletes the one there. */
    CHECK_INT(netlink_link_delete(VETH0), 0);
    CHECK(!setns(there, CLONE_NEWNET), "setns: %s", strerror(errno));
    CHECK_INT(netlink_link_get(VETH1, &info), ENODEV);
    CHECK(!setns(here, CLONE_NEWNET), "setns: %s", strerror(errno));
    close(there);
    close(here);
}

int
main(void)
{
    static const struct check_test rootless[] = {
        { "strerror", test_strerror },
        { "rejected-early", test_rejected_early },
    };
    static const struct check_test unprivileged[] = {
        { "unprivileged", test_unprivileged },
    };
    static const struct check_test rooted[] = {
        { "loopback", test_loopback },
        { "permission", test_permission },
        { "veth", test_veth },
        { "veth-ns", test_veth_ns },
        { "alias", test_alias },
    };

    setvbuf(stdout, NULL, _IOLBF, 0);
    check_run_tests(rootless, ARRAY_SIZE(rootless));
    if (geteuid()) {
        check_run_tests(unprivileged, ARRAY_SIZE(unprivileged));
        if (check_n_failed()) {
            return check_finish("test-netlink-link");
        }
        printf("test-netlink-link: needs root for the rest, skipped\n");
        return 77;
    }
    if (unshare(CLONE_NEWNET)) {
        printf("test-netlink-link: cannot make a network namespace (%s), "
               "skipped\n", strerror(errno));
        return check_n_failed() ? check_finish("test-netlink-link") : 77;
    }
    check_run_tests(rooted, ARRAY_SIZE(rooted));
    return check_finish("test-netlink-link");
}
