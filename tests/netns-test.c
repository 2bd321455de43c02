/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Network namespace and veth topology for the root-only port tests; see
 * netns-test.h.  Clean-up runs from signal handlers, so it only forks and
 * execs "ip" with names fixed at set-up.
 */
#include <autoconf.h>
#include "netns-test.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include "base/util.h"

/* The topology of netns_test_setup(), for clean-up and peer sockets. */
static const char *ns_name;
static const struct netns_test_veth *veths;
static size_t n_veths;

/* Runs 'argv' and waits for it; stdout and stderr go to /dev/null.  Only
 * async-signal-safe calls, so that clean-up can run in a signal handler.
 * Returns the exit status, or -1. */
static int
run_quiet(char *const argv[])
{
    int status;
    pid_t pid;

    pid = fork();
    if (pid < 0) {
        return -1;
    }
    if (!pid) {
        int null = open("/dev/null", O_WRONLY);

        if (null >= 0) {
            dup2(null, 1);
            dup2(null, 2);
        }
        execvp(argv[0], argv);
        _exit(127);
    }
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            return -1;
        }
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void
netns_test_cleanup(void)
{
    /* Deleting one end of a veth pair deletes both. */
    for (size_t i = 0; i < n_veths; i++) {
        char *del_link[] = { "ip", "link", "del", (char *) veths[i].here,
                             NULL };

        run_quiet(del_link);
    }
    if (ns_name) {
        char *del_ns[] = { "ip", "netns", "del", (char *) ns_name, NULL };

        run_quiet(del_ns);
    }
}

static void
fatal_signal(int sig)
{
    netns_test_cleanup();
    signal(sig, SIG_DFL);
    raise(sig);
}

bool
netns_test_shell(const char *format, ...)
{
    va_list args;
    char *cmd;
    bool ok;

    va_start(args, format);
    if (vasprintf(&cmd, format, args) < 0) {
        va_end(args);
        return false;
    }
    va_end(args);
    ok = system(cmd) == 0;
    if (!ok) {
        fprintf(stderr, "command failed: %s\n", cmd);
    }
    free(cmd);
    return ok;
}

/* Sets the MAC address of 'ifname' (in the test namespace if 'there') to
 * 'mac', if nonnull, and brings it up. */
static bool
link_up(const char *ifname, const char *mac, bool there)
{
    return netns_test_shell("ip %s%s link set %s%s%s up",
                            there ? "-n " : "", there ? ns_name : "",
                            ifname, mac ? " address " : "", mac ? mac : "");
}

bool
netns_test_add_veth(const struct netns_test_veth *veth)
{
    return (netns_test_shell("ip link add %s type veth peer name %s netns %s",
                             veth->here, veth->there, ns_name)
            && netns_test_shell("echo 1 > /proc/sys/net/ipv6/conf/%s/"
                                "disable_ipv6", veth->here)
            && netns_test_shell("ip netns exec %s sh -c 'echo 1 > "
                                "/proc/sys/net/ipv6/conf/%s/disable_ipv6'",
                                ns_name, veth->there)
            && link_up(veth->here, veth->here_mac, false)
            && link_up(veth->there, veth->there_mac, true));
}

bool
netns_test_setup(const char *ns, const struct netns_test_veth *v, size_t n)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGSEGV, SIGABRT,
                                SIGBUS, SIGFPE };

    ns_name = ns;
    veths = v;
    n_veths = n;
    netns_test_cleanup();
    atexit(netns_test_cleanup);
    for (size_t i = 0; i < ARRAY_SIZE(sigs); i++) {
        signal(sigs[i], fatal_signal);
    }

    if (!netns_test_shell("ip netns add %s", ns_name)) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (!netns_test_add_veth(&v[i])) {
            return false;
        }
    }
    return true;
}

int
netns_test_peer_socket(const char *ifname, bool rx, bool vnet)
{
    struct sockaddr_ll sll;
    int self, ns, fd, one = 1;
    char ns_path[128];

    snprintf(ns_path, sizeof ns_path, "/run/netns/%s", ns_name);
    self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    ns = open(ns_path, O_RDONLY | O_CLOEXEC);
    if (self < 0 || ns < 0 || setns(ns, CLONE_NEWNET)) {
        ovs_fatal(errno, "cannot enter namespace %s", ns_name);
    }

    fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0
        || (vnet && setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR,
                               &one, sizeof one))
        || (rx && setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING,
                             &one, sizeof one))) {
        ovs_fatal(errno, "cannot make packet socket on %s", ifname);
    }
    memset(&sll, 0, sizeof sll);
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = rx ? htons(ETH_P_ALL) : 0;
    sll.sll_ifindex = if_nametoindex(ifname);
    if (!sll.sll_ifindex || bind(fd, (struct sockaddr *) &sll, sizeof sll)) {
        ovs_fatal(errno, "cannot bind packet socket to %s", ifname);
    }

    if (setns(self, CLONE_NEWNET)) {
        ovs_fatal(errno, "cannot leave namespace %s", ns_name);
    }
    close(self);
    close(ns);
    return fd;
}

int
netns_test_count_fds(void)
{
    int n = 0;

    for (int fd = 0; fd < 4096; fd++) {
        n += fcntl(fd, F_GETFD) >= 0;
    }
    return n;
}

bool
netns_test_limit_free_fds(int n_free)
{
    struct rlimit rl;
    int limit = 0;

    for (int free_seen = 0; limit < 4096; limit++) {
        if (fcntl(limit, F_GETFD) < 0) {
            if (free_seen == n_free) {
                break;
            }
            free_seen++;
        }
    }
    if (getrlimit(RLIMIT_NOFILE, &rl)) {
        return false;
    }
    rl.rlim_cur = limit;
    return !setrlimit(RLIMIT_NOFILE, &rl);
}
