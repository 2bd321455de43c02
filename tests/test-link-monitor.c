/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for the link monitor.  Without root: link_monitor_parse() on a
 * table of hand-built datagrams, well-formed and malformed (counted,
 * logged rate-limited, never fatal), and monitor creation, its socket
 * options and its failure path.  With root (exits 77 without, once the
 * rootless checks have passed): the test moves itself into network
 * namespace "tmon-ns", so that no other link changes reach it, and drives
 * the monitor's event base with EVLOOP_NONBLOCK in a poll loop while it
 * changes veth pairs tmon0/tmon1 and tmon2/tmon3 with "ip": creation, up,
 * carrier, down, rename and deletion give the right events; an overflowed
 * socket gives one RESYNC after the queued events; messages forged by a
 * process are dropped.  The namespace and every tmon* link are removed
 * before the run, at exit and on a fatal signal.
 */
#include <autoconf.h>
#include "netdev/link-monitor.h"

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <linux/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <poll.h>
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
#include "check.h"
#include "base/coverage.h"
#include "base/util.h"
#include "base/vlog.h"

#define NS_NAME "tmon-ns"
#define WAIT_MS 5000        /* Longest wait for expected events. */
#define QUIET_MS 300        /* No events for this long: settled. */
#define SETTLE_MS 2000      /* Longest wait for settling. */
#define MAX_EVENTS 1024
#define N_FLAPS 20          /* Up/down cycles of the overflow test. */
#define FORGED_IFINDEX 4242

/* Recording callback. */

struct recorder {
    struct link_event events[MAX_EVENTS];
    int n;                      /* Events stored. */
    int n_seen;                 /* Events seen, stored or not. */
};

static void
record_cb(const struct link_event *event, void *rec_)
{
    struct recorder *rec = rec_;

    if (rec->n < MAX_EVENTS) {
        rec->events[rec->n++] = *event;
    }
    rec->n_seen++;
}

static const char *
event_type_name(enum link_event_type type)
{
    return (type == LINK_EVENT_NEW ? "NEW"
            : type == LINK_EVENT_DEL ? "DEL"
            : type == LINK_EVENT_RESYNC ? "RESYNC"
            : "?");
}

/* Prints events 'from' and later of 'rec', after a failure. */
static void
dump_events(const struct recorder *rec, int from)
{
    for (int i = from; i < rec->n; i++) {
        const struct link_event *e = &rec->events[i];

        printf("    event %d: %s ifindex=%d name=\"%s\" admin_up=%d "
               "oper_up=%d\n", i, event_type_name(e->type), e->ifindex,
               e->name, e->admin_up, e->oper_up);
    }
}

static uint64_t
n_malformed(void)
{
    return coverage_get("link_monitor_malformed");
}

/* Parser. */

/* What is wrong with a built message (or, for DEFECT_NEW_ATTR, unusual). */
enum defect {
    DEFECT_NONE,
    DEFECT_ATTR_CUT,            /* 'nlmsg_len' ends inside IFLA_IFNAME. */
    DEFECT_LAST_ATTR_CUT,       /* ...inside an IFLA_MTU after it. */
    DEFECT_ATTR_STUB,           /* 2 bytes after the last attribute. */
    DEFECT_ATTR_LEN_SMALL,      /* An attribute with 'nla_len' 2. */
    DEFECT_NAME_NO_NUL,         /* IFLA_IFNAME without its NUL. */
    DEFECT_OPERSTATE_U32,       /* IFLA_OPERSTATE of 4 bytes. */
    DEFECT_SHORT_IFI,           /* 8 bytes of payload, no ifinfomsg. */
    DEFECT_DUMP_INTR,           /* NLM_F_DUMP_INTR set. */
    DEFECT_NEW_ATTR,            /* An attribute type above IFLA_MAX. */
};

/* One message of a test datagram; 'type' 0 means none. */
struct msg_spec {
    uint16_t type;              /* nlmsg_type. */
    uint8_t family;             /* ifi_family. */
    int ifindex;                /* ifi_index. */
    unsigned int flags;         /* ifi_flags. */
    const char *ifname;         /* IFLA_IFNAME, or NULL for none. */
    int operstate;              /* IFLA_OPERSTATE, or -1 for none. */
    enum defect defect;
};

struct parse_case {
    const char *name;
    struct msg_spec msgs[2];
    int cut;                    /* Bytes removed from the datagram's end. */
    int junk;                   /* 0xff bytes appended to the datagram. */
    int ret;                    /* Expected return value. */
    int n_events;               /* Expected events (up to 2)... */
    struct link_event events[2]; /* ...and what they are. */
    int n_malformed;            /* Expected increase of the counter. */
};

#define UP IFF_UP
#define RUN IFF_RUNNING
#define MSG(TYPE, FAMILY, IFINDEX, FLAGS, NAME, OPERSTATE, DEFECT)      \
    { TYPE, FAMILY, IFINDEX, FLAGS, NAME, OPERSTATE, DEFECT_##DEFECT }
#define NEWLINK(IFINDEX, FLAGS, NAME, OPERSTATE, DEFECT)                \
    MSG(RTM_NEWLINK, AF_UNSPEC, IFINDEX, FLAGS, NAME, OPERSTATE, DEFECT)
#define EV(TYPE, IFINDEX, NAME, ADMIN_UP, OPER_UP)                      \
    { .type = LINK_EVENT_##TYPE, .ifindex = IFINDEX, .name = NAME,      \
      .admin_up = ADMIN_UP, .oper_up = OPER_UP }
#define GOOD NEWLINK(7, UP | RUN, "tmonp0", IF_OPER_UP, NONE)
#define GOOD_EV EV(NEW, 7, "tmonp0", true, true)

static const struct parse_case parse_cases[] = {
    /* Well-formed, and the flags. */
    { "up, running", { GOOD }, 0, 0, 1, 1, { GOOD_EV }, 0 },
    { "down", { NEWLINK(7, 0, "tmonp0", IF_OPER_DOWN, NONE) }, 0, 0,
      1, 1, { EV(NEW, 7, "tmonp0", false, false) }, 0 },
    { "up, no carrier",
      { NEWLINK(7, UP, "tmonp0", IF_OPER_LOWERLAYERDOWN, NONE) }, 0, 0,
      1, 1, { EV(NEW, 7, "tmonp0", true, false) }, 0 },
    { "up, operstate unknown",
      { NEWLINK(7, UP, "tmonp0", IF_OPER_UNKNOWN, NONE) }, 0, 0,
      1, 1, { EV(NEW, 7, "tmonp0", true, true) }, 0 },
    { "up, operstate up without IFF_RUNNING",
      { NEWLINK(7, UP, "tmonp0", IF_OPER_UP, NONE) }, 0, 0,
      1, 1, { EV(NEW, 7, "tmonp0", true, true) }, 0 },
    { "up, dormant", { NEWLINK(7, UP, "tmonp0", IF_OPER_DORMANT, NONE) },
      0, 0, 1, 1, { EV(NEW, 7, "tmonp0", true, false) }, 0 },
    { "running but not up", { NEWLINK(7, RUN, "tmonp0", IF_OPER_UP, NONE) },
      0, 0, 1, 1, { EV(NEW, 7, "tmonp0", false, false) }, 0 },
    { "up, running, no operstate", { NEWLINK(7, UP | RUN, "tmonp0", -1,
                                             NONE) },
      0, 0, 1, 1, { EV(NEW, 7, "tmonp0", true, true) }, 0 },
    { "up, no operstate", { NEWLINK(7, UP, "tmonp0", -1, NONE) },
      0, 0, 1, 1, { EV(NEW, 7, "tmonp0", true, false) }, 0 },
    { "deleted", { MSG(RTM_DELLINK, AF_UNSPEC, 9, 0, "tmonp1", IF_OPER_DOWN,
                       NONE) },
      0, 0, 1, 1, { EV(DEL, 9, "tmonp1", false, false) }, 0 },
    { "name of 15 characters",
      { NEWLINK(7, UP | RUN, "tmonabcdefghijk", IF_OPER_UP, NONE) }, 0, 0,
      1, 1, { EV(NEW, 7, "tmonabcdefghijk", true, true) }, 0 },
    { "attribute newer than IFLA_MAX skipped",
      { NEWLINK(7, UP | RUN, "tmonp0", IF_OPER_UP, NEW_ATTR) }, 0, 0,
      1, 1, { GOOD_EV }, 0 },

    /* Skipped. */
    { "RTM_NEWADDR skipped",
      { MSG(RTM_NEWADDR, AF_UNSPEC, 7, 0, "tmonp0", -1, NONE) }, 0, 0,
      0, 0, { }, 0 },
    { "AF_BRIDGE RTM_DELLINK skipped",
      { MSG(RTM_DELLINK, AF_BRIDGE, 7, UP, "tmonp0", -1, NONE) }, 0, 0,
      0, 0, { }, 0 },
    { "NLMSG_ERROR does not stop the datagram",
      { MSG(NLMSG_ERROR, AF_UNSPEC, 0, 0, NULL, -1, NONE), GOOD }, 0, 0,
      1, 1, { GOOD_EV }, 0 },
    { "NLMSG_DONE does not stop the datagram",
      { MSG(NLMSG_DONE, AF_UNSPEC, 0, 0, NULL, -1, NONE), GOOD }, 0, 0,
      1, 1, { GOOD_EV }, 0 },
    { "two messages in order",
      { GOOD, MSG(RTM_DELLINK, AF_UNSPEC, 9, 0, "tmonp1", -1, NONE) }, 0, 0,
      2, 2, { GOOD_EV, EV(DEL, 9, "tmonp1", false, false) }, 0 },
    { "empty datagram", { }, 0, 0, 0, 0, { }, 0 },

    /* Malformed. */
    { "truncated attribute",
      { NEWLINK(7, UP | RUN, "tmonp0", IF_OPER_UP, ATTR_CUT) }, 0, 0,
      -1, 0, { }, 1 },
    { "truncated attribute after the name",
      { NEWLINK(7, UP | RUN, "tmonp0", IF_OPER_UP, LAST_ATTR_CUT) }, 0, 0,
      -1, 0, { }, 1 },
    { "stray bytes after the attributes",
      { NEWLINK(7, UP | RUN, "tmonp0", IF_OPER_UP, ATTR_STUB) }, 0, 0,
      -1, 0, { }, 1 },
    { "attribute shorter than its header",
      { NEWLINK(7, UP | RUN, "tmonp0", IF_OPER_UP, ATTR_LEN_SMALL) }, 0, 0,
      -1, 0, { }, 1 },
    { "name without NUL",
      { NEWLINK(7, UP | RUN, "tmonp0", IF_OPER_UP, NAME_NO_NUL) }, 0, 0,
      -1, 0, { }, 1 },
    { "name of 16 characters",
      { NEWLINK(7, UP | RUN, "tmonabcdefghijkl", IF_OPER_UP, NONE) }, 0, 0,
      -1, 0, { }, 1 },
    { "empty name", { NEWLINK(7, UP | RUN, "", IF_OPER_UP, NONE) }, 0, 0,
      -1, 0, { }, 1 },
    { "no name", { NEWLINK(7, UP | RUN, NULL, IF_OPER_UP, NONE) }, 0, 0,
      -1, 0, { }, 1 },
    { "operstate of 4 bytes",
      { NEWLINK(7, UP | RUN, "tmonp0", IF_OPER_UP, OPERSTATE_U32) }, 0, 0,
      -1, 0, { }, 1 },
    { "payload shorter than ifinfomsg",
      { NEWLINK(7, UP | RUN, "tmonp0", IF_OPER_UP, SHORT_IFI) }, 0, 0,
      -1, 0, { }, 1 },
    { "ifindex 0", { NEWLINK(0, UP | RUN, "tmonp0", IF_OPER_UP, NONE) },
      0, 0, -1, 0, { }, 1 },
    { "negative ifindex",
      { NEWLINK(-3, UP | RUN, "tmonp0", IF_OPER_UP, NONE) }, 0, 0,
      -1, 0, { }, 1 },
    { "NLM_F_DUMP_INTR",
      { NEWLINK(7, UP | RUN, "tmonp0", IF_OPER_UP, DUMP_INTR) }, 0, 0,
      -1, 0, { }, 1 },
    { "message cut by the datagram's end", { GOOD }, 4, 0,
      -1, 0, { }, 1 },
    { "datagram shorter than a header", { }, 0, 10, -1, 0, { }, 1 },
    { "junk after a message", { GOOD }, 0, 8, -1, 1, { GOOD_EV }, 1 },
    { "malformed message, then a good one",
      { NEWLINK(8, UP, "tmonp1", IF_OPER_UP, ATTR_CUT), GOOD }, 0, 0,
      -1, 1, { GOOD_EV }, 1 },
    { "two malformed messages",
      { NEWLINK(8, UP, "tmonp1", IF_OPER_UP, ATTR_CUT),
        NEWLINK(0, UP, "tmonp0", IF_OPER_UP, NONE) }, 0, 0,
      -1, 0, { }, 2 },
};

/* Builds the message described by 'spec' at 'buf' and returns its
 * 'nlmsg_len'. */
static size_t
build_msg(void *buf, const struct msg_spec *spec)
{
    struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
    struct ifinfomsg *ifi;

    nlh->nlmsg_type = spec->type;
    if (spec->defect == DEFECT_SHORT_IFI) {
        mnl_nlmsg_put_extra_header(nlh, 8);
        return nlh->nlmsg_len;
    }
    ifi = mnl_nlmsg_put_extra_header(nlh, sizeof *ifi);
    ifi->ifi_family = spec->family;
    ifi->ifi_index = spec->ifindex;
    ifi->ifi_flags = spec->flags;
    if (spec->operstate >= 0) {
        if (spec->defect == DEFECT_OPERSTATE_U32) {
            mnl_attr_put_u32(nlh, IFLA_OPERSTATE, spec->operstate);
        } else {
            mnl_attr_put_u8(nlh, IFLA_OPERSTATE, spec->operstate);
        }
    }
    if (spec->defect == DEFECT_NEW_ATTR) {
        mnl_attr_put_u32(nlh, IFLA_MAX + 1, 12345);
    }
    if (spec->ifname) {
        if (spec->defect == DEFECT_NAME_NO_NUL) {
            mnl_attr_put(nlh, IFLA_IFNAME, strlen(spec->ifname),
                         spec->ifname);
        } else {
            mnl_attr_put_strz(nlh, IFLA_IFNAME, spec->ifname);
        }
    }

    switch (spec->defect) {
    case DEFECT_ATTR_CUT:
        /* IFLA_IFNAME "tmonp0" is last: 11 bytes, padded to 12. */
        nlh->nlmsg_len -= 4;
        break;
    case DEFECT_LAST_ATTR_CUT:
        mnl_attr_put_u32(nlh, IFLA_MTU, 1500);
        nlh->nlmsg_len -= 2;
        break;
    case DEFECT_ATTR_STUB: {
        uint8_t *tail = mnl_nlmsg_get_payload_tail(nlh);

        tail[0] = tail[1] = 0;
        nlh->nlmsg_len += 2;
        break;
    }
    case DEFECT_ATTR_LEN_SMALL: {
        struct nlattr *attr = mnl_nlmsg_get_payload_tail(nlh);

        attr->nla_len = 2;
        attr->nla_type = IFLA_MTU;
        nlh->nlmsg_len += sizeof *attr;
        break;
    }
    case DEFECT_DUMP_INTR:
        nlh->nlmsg_flags |= NLM_F_DUMP_INTR;
        break;
    case DEFECT_NONE:
    case DEFECT_NAME_NO_NUL:
    case DEFECT_OPERSTATE_U32:
    case DEFECT_SHORT_IFI:
    case DEFECT_NEW_ATTR:
        break;
    }
    return nlh->nlmsg_len;
}

/* Fixed time for vlog's rate limiting: no refill during the test. */
static long long
frozen_clock(void)
{
    return 1000000;
}

static void
test_parse(void)
{
    static union {
        struct nlmsghdr nlh;
        uint8_t bytes[4096];
    } dgram;
    unsigned long long warnings_before = vlog_n_warnings();
    int total_malformed = 0;
    struct recorder *rec = xmalloc(sizeof *rec);

    vlog_set_clock(frozen_clock);
    for (size_t i = 0; i < ARRAY_SIZE(parse_cases); i++) {
        const struct parse_case *c = &parse_cases[i];
        uint64_t malformed_before = n_malformed();
        size_t size = 0;
        int ret;

        check_set_context("parse: %s", c->name);
        memset(&dgram, 0, sizeof dgram);
        for (size_t j = 0; j < ARRAY_SIZE(c->msgs) && c->msgs[j].type; j++) {
            size = MNL_ALIGN(size);
            size += build_msg(dgram.bytes + size, &c->msgs[j]);
        }
        memset(dgram.bytes + size, 0xff, c->junk);
        size += c->junk;
        size -= c->cut;

        rec->n = rec->n_seen = 0;
        ret = link_monitor_parse(dgram.bytes, size, record_cb, rec);
        CHECK_INT(ret, c->ret);
        CHECK_INT(rec->n, c->n_events);
        CHECK_INT(n_malformed() - malformed_before, c->n_malformed);
        for (int j = 0; j < rec->n && j < c->n_events; j++) {
            const struct link_event *e = &rec->events[j];
            const struct link_event *x = &c->events[j];

            CHECK_INT(e->type, x->type);
            CHECK_INT(e->ifindex, x->ifindex);
            CHECK_STR(e->name, x->name);
            CHECK_INT(e->admin_up, x->admin_up);
            CHECK_INT(e->oper_up, x->oper_up);
        }
        total_malformed += c->n_malformed;
    }
    check_set_context("%s", "");

    /* Every malformed message is logged, but at a bounded rate: with the
     * clock stopped only the first burst gets through. */
    CHECK(vlog_n_warnings() > warnings_before
          && vlog_n_warnings() - warnings_before < total_malformed,
          "%llu warnings for %d malformed messages",
          vlog_n_warnings() - warnings_before, total_malformed);
    vlog_set_clock(NULL);
    free(rec);
}

/* Creation. */

static void
test_create_destroy(void)
{
    struct event_base *base = event_base_new();
    struct recorder *rec = xzalloc(sizeof *rec);
    struct link_monitor *monitor;
    struct rlimit old_limit, no_fds;
    static char not_touched;
    char *error = &not_touched;
    int value, fd;
    socklen_t len;

    monitor = link_monitor_create(base, record_cb, rec, &error);
    CHECK(monitor, "link_monitor_create failed: %s", error);
    CHECK(!error, "error set on success");
    free(error);
    if (monitor) {
        fd = link_monitor_get_fd(monitor);
        CHECK(fd >= 0 && fcntl(fd, F_GETFL) & O_NONBLOCK,
              "socket %d is not non-blocking", fd);

        value = -1;
        len = sizeof value;
        CHECK(!getsockopt(fd, SOL_NETLINK, NETLINK_NO_ENOBUFS, &value, &len)
              && !value, "NETLINK_NO_ENOBUFS is %d", value);
        if (!geteuid()) {
            /* The kernel reports double the size it was given. */
            value = 0;
            len = sizeof value;
            CHECK(!getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &value, &len)
                  && value >= LINK_MONITOR_RCVBUF_SIZE,
                  "SO_RCVBUF is %d", value);
        }
        CHECK_INT(event_base_loop(base, EVLOOP_NONBLOCK), 0);
    }
    link_monitor_destroy(monitor);
    link_monitor_destroy(NULL);

    /* With no file descriptors left, creation fails cleanly. */
    CHECK(!getrlimit(RLIMIT_NOFILE, &old_limit), "getrlimit: %s",
          strerror(errno));
    no_fds = old_limit;
    no_fds.rlim_cur = 0;
    CHECK(!setrlimit(RLIMIT_NOFILE, &no_fds), "setrlimit: %s",
          strerror(errno));
    monitor = link_monitor_create(base, record_cb, rec, &error);
    CHECK(!monitor && error && strstr(error, strerror(EMFILE)),
          "creation without fds: %s", error ? error : "(no error)");
    free(error);
    monitor = link_monitor_create(base, record_cb, rec, NULL);
    CHECK(!monitor, "creation without fds succeeded");
    CHECK(!setrlimit(RLIMIT_NOFILE, &old_limit), "setrlimit: %s",
          strerror(errno));
    CHECK_INT(rec->n_seen, 0);

    free(rec);
    event_base_free(base);
}

/* Namespace and clean-up. */

/* Runs "ip ARGS..." quietly and waits for it.  Async-signal-safe, for
 * clean-up from a signal handler.  Returns the exit status, or -1. */
static int
ip_quiet(const char *arg0, ...)
{
    char *argv[8];
    int status, argc = 0;
    va_list args;
    pid_t pid;

    argv[argc++] = (char *) "ip";
    va_start(args, arg0);
    for (const char *arg = arg0; arg && argc < ARRAY_SIZE(argv) - 1;
         arg = va_arg(args, const char *)) {
        argv[argc++] = (char *) arg;
    }
    va_end(args);
    argv[argc] = NULL;

    pid = fork();
    if (pid < 0) {
        return -1;
    }
    if (!pid) {
        int null = open("/dev/null", O_WRONLY);

        if (null >= 0) {
            dup2(null, STDOUT_FILENO);
            dup2(null, STDERR_FILENO);
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

/* Deletes every link the test may have made, in the current namespace,
 * and the test namespace.  Errors are ignored.  Async-signal-safe. */
static void
cleanup(void)
{
    static const char *const links[] = {
        "tmon0", "tmon1", "tmonx", "tmon2", "tmon3",
    };

    for (size_t i = 0; i < ARRAY_SIZE(links); i++) {
        ip_quiet("link", "del", links[i], NULL);
    }
    ip_quiet("netns", "del", NS_NAME, NULL);
}

static void
fatal_signal(int sig)
{
    cleanup();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Removes leftovers of an earlier run, arranges clean-up at exit and on
 * fatal signals, makes NS_NAME and moves the test into it.  Returns false,
 * having said why, on failure. */
static bool
enter_namespace(void)
{
    static const int signals[] = {
        SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGABRT, SIGSEGV, SIGBUS,
    };
    int fd;

    cleanup();
    atexit(cleanup);
    for (size_t i = 0; i < ARRAY_SIZE(signals); i++) {
        signal(signals[i], fatal_signal);
    }
    if (ip_quiet("netns", "add", NS_NAME, NULL)) {
        printf("\"ip netns add %s\" failed\n", NS_NAME);
        return false;
    }
    fd = open("/run/netns/" NS_NAME, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || setns(fd, CLONE_NEWNET)) {
        printf("cannot enter namespace %s: %s\n", NS_NAME, strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return false;
    }
    close(fd);
    return true;
}

/* Runs shell command 'format' and checks that it succeeded. */
static bool PRINTF_FORMAT(1, 2)
shell(const char *format, ...)
{
    va_list args;
    char *command;
    int status;

    va_start(args, format);
    command = xvasprintf(format, args);
    va_end(args);
    status = system(command);
    CHECK(status == 0, "\"%s\" exited with status %d", command, status);
    free(command);
    return status == 0;
}

/* The live test. */

/* Runs 'base' until 'done(arg)' or until 'ms' milliseconds have passed,
 * sleeping in poll() on the monitor sockets 'fds'.  Returns 'done(arg)'. */
static bool
run_loop(struct event_base *base, const int fds[], int n_fds, int ms,
         bool (*done)(const void *), const void *arg)
{
    long long deadline = time_msec() + ms;

    for (;;) {
        struct pollfd pfds[4];
        long long left;

        event_base_loop(base, EVLOOP_NONBLOCK);
        if (done(arg)) {
            return true;
        }
        left = deadline - time_msec();
        if (left <= 0) {
            return false;
        }
        for (int i = 0; i < n_fds; i++) {
            pfds[i].fd = fds[i];
            pfds[i].events = POLLIN;
        }
        poll(pfds, n_fds, MIN(left, 50));
    }
}

/* Runs 'base' until 'rec' has had no new event for QUIET_MS, at most
 * SETTLE_MS, so that a step's late notifications are not counted in the
 * next one. */
static void
settle(struct event_base *base, int fd, const struct recorder *rec)
{
    long long deadline = time_msec() + SETTLE_MS;
    long long quiet_since = time_msec();
    int n = rec->n_seen;

    while (time_msec() < deadline && time_msec() - quiet_since < QUIET_MS) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };

        poll(&pfd, 1, 20);
        event_base_loop(base, EVLOOP_NONBLOCK);
        if (rec->n_seen != n) {
            n = rec->n_seen;
            quiet_since = time_msec();
        }
    }
}

/* Links of the step table: tmon0 (renamed tmonx) and its peer tmon1. */
enum { L0, L1, N_LINKS };
#define ANY -1

struct expect {
    enum link_event_type type;
    int link;                   /* L0 or L1. */
    const char *name;
    int admin_up;               /* 0, 1 or ANY. */
    int oper_up;                /* 0, 1 or ANY. */
    bool every;                 /* Every event of 'link' in the step must
                                 * match, not just one and the last. */
};

struct step {
    const char *command;
    struct expect expects[2];
};

#define NEW_X(LINK, NAME, ADMIN, OPER, EVERY)                           \
    { LINK_EVENT_NEW, LINK, NAME, ADMIN, OPER, EVERY }
#define DEL_X(LINK, NAME) { LINK_EVENT_DEL, LINK, NAME, ANY, ANY, false }

static const struct step steps[] = {
    { "ip link add tmon0 type veth peer name tmon1",
      { NEW_X(L0, "tmon0", 0, 0, true), NEW_X(L1, "tmon1", 0, 0, true) } },
    /* Up, but no carrier while the peer is down. */
    { "ip link set tmon0 up", { NEW_X(L0, "tmon0", 1, 0, true) } },
    { "ip link set tmon1 up",
      { NEW_X(L0, "tmon0", 1, 1, false), NEW_X(L1, "tmon1", 1, 1, false) } },
    /* Down: the peer, still up, loses its carrier. */
    { "ip link set tmon0 down",
      { NEW_X(L0, "tmon0", 0, 0, false), NEW_X(L1, "tmon1", 1, 0, false) } },
    { "ip link set tmon0 name tmonx", { NEW_X(L0, "tmonx", 0, 0, false) } },
    { "ip link del tmonx", { DEL_X(L0, "tmonx"), DEL_X(L1, "tmon1") } },
};

static int ifindexes[N_LINKS];

static bool
expect_matches(const struct expect *x, const struct link_event *e)
{
    return (e->type == x->type
            && e->ifindex == ifindexes[x->link]
            && !strcmp(e->name, x->name)
            && (x->admin_up == ANY || e->admin_up == x->admin_up)
            && (x->oper_up == ANY || e->oper_up == x->oper_up));
}

/* A step in progress, for run_loop(). */
struct step_wait {
    const struct step *step;
    const struct recorder *rec;
    int from;                   /* First event of the step. */
};

static bool
step_done(const void *wait_)
{
    const struct step_wait *wait = wait_;

    for (size_t i = 0; i < ARRAY_SIZE(wait->step->expects); i++) {
        const struct expect *x = &wait->step->expects[i];
        bool found = false;

        if (!x->name) {
            continue;
        }
        for (int j = wait->from; j < wait->rec->n && !found; j++) {
            found = expect_matches(x, &wait->rec->events[j]);
        }
        if (!found) {
            return false;
        }
    }
    return true;
}

/* Checks the events 'from' and later of 'rec' against 'step'. */
static void
check_step(const struct step *step, const struct recorder *rec, int from)
{
    bool del_expected = false;

    for (size_t i = 0; i < ARRAY_SIZE(step->expects); i++) {
        const struct expect *x = &step->expects[i];
        const struct link_event *last = NULL;

        if (!x->name) {
            continue;
        }
        del_expected |= x->type == LINK_EVENT_DEL;
        for (int j = from; j < rec->n; j++) {
            const struct link_event *e = &rec->events[j];

            if (e->ifindex == ifindexes[x->link]) {
                last = e;
                CHECK(!x->every || expect_matches(x, e),
                      "event %d of link %s does not match", j, x->name);
            }
        }
        CHECK(last && expect_matches(x, last),
              "last event of link %s does not match", x->name);
    }
    for (int j = from; j < rec->n; j++) {
        const struct link_event *e = &rec->events[j];

        CHECK(e->type != LINK_EVENT_RESYNC, "event %d: RESYNC", j);
        CHECK(e->type != LINK_EVENT_DEL || del_expected,
              "event %d: unexpected DEL", j);
        CHECK(e->ifindex == ifindexes[L0] || e->ifindex == ifindexes[L1],
              "event %d: unexpected ifindex %d", j, e->ifindex);
    }
}

static void
test_steps(struct event_base *base, struct link_monitor *monitor,
           struct recorder *rec)
{
    int fd = link_monitor_get_fd(monitor);

    for (size_t i = 0; i < ARRAY_SIZE(steps); i++) {
        const struct step *step = &steps[i];
        struct step_wait wait = { step, rec, rec->n };
        int failed_before = check_n_failed();
        bool done;

        check_set_context("step \"%s\"", step->command);
        if (!shell("%s", step->command)) {
            break;
        }
        if (i == 0) {
            ifindexes[L0] = if_nametoindex("tmon0");
            ifindexes[L1] = if_nametoindex("tmon1");
            CHECK(ifindexes[L0] > 0 && ifindexes[L1] > 0
                  && ifindexes[L0] != ifindexes[L1],
                  "ifindexes %d and %d", ifindexes[L0], ifindexes[L1]);
        }
        done = run_loop(base, &fd, 1, WAIT_MS, step_done, &wait);
        CHECK(done, "expected events missing after %d ms", WAIT_MS);
        settle(base, fd, rec);
        check_step(step, rec, wait.from);
        CHECK(rec->n < MAX_EVENTS, "recorder full");
        if (check_n_failed() != failed_before) {
            dump_events(rec, wait.from);
            break;
        }
    }
    check_set_context("%s", "");
}

static bool
has_resync(const void *rec_)
{
    const struct recorder *rec = rec_;

    for (int i = 0; i < rec->n; i++) {
        if (rec->events[i].type == LINK_EVENT_RESYNC) {
            return true;
        }
    }
    return false;
}

/* Counts the events of 'rec' of 'type' for 'ifindex' (0: any). */
static int
count_events(const struct recorder *rec, enum link_event_type type,
             int ifindex)
{
    int n = 0;

    for (int i = 0; i < rec->n; i++) {
        n += (rec->events[i].type == type
              && (!ifindex || rec->events[i].ifindex == ifindex));
    }
    return n;
}

/* A second monitor with a tiny receive queue overflows while the test
 * flaps tmon2 without running the loop; the main monitor, with its large
 * queue, loses nothing. */
static void
test_overflow(struct event_base *base, struct link_monitor *monitor,
              struct recorder *rec)
{
    struct recorder *small_rec = xzalloc(sizeof *small_rec);
    uint64_t resyncs_before = coverage_get("link_monitor_resync");
    struct link_monitor *small;
    int failed_before = check_n_failed();
    int fds[2], tiny = 1, ifindex;
    char *error;

    check_set_context("overflow");
    small = link_monitor_create(base, record_cb, small_rec, &error);
    CHECK(small, "link_monitor_create: %s", error);
    if (!small) {
        free(error);
        free(small_rec);
        return;
    }
    fds[0] = link_monitor_get_fd(monitor);
    fds[1] = link_monitor_get_fd(small);
    CHECK(!setsockopt(fds[1], SOL_SOCKET, SO_RCVBUF, &tiny, sizeof tiny),
          "SO_RCVBUF: %s", strerror(errno));

    rec->n = rec->n_seen = 0;
    if (shell("ip link add tmon2 type veth peer name tmon3 && "
              "for i in $(seq %d); do ip link set tmon2 up && "
              "ip link set tmon2 down || exit 1; done", N_FLAPS)) {
        ifindex = if_nametoindex("tmon2");
        CHECK(run_loop(base, fds, 2, WAIT_MS, has_resync, small_rec),
              "no RESYNC after %d ms", WAIT_MS);
        settle(base, fds[0], rec);
        settle(base, fds[1], small_rec);

        CHECK_INT(count_events(small_rec, LINK_EVENT_RESYNC, 0), 1);
        CHECK(small_rec->n > 1
              && small_rec->events[small_rec->n - 1].type
                 == LINK_EVENT_RESYNC,
              "RESYNC is not last, after the queued events");
        if (small_rec->n) {
            const struct link_event *e = &small_rec->events[small_rec->n - 1];

            CHECK(e->ifindex == 0 && !e->name[0] && !e->admin_up
                  && !e->oper_up, "RESYNC carries link data");
        }
        CHECK_INT(coverage_get("link_monitor_resync") - resyncs_before, 1);

        /* Every up and every down reached the large queue. */
        CHECK_INT(count_events(rec, LINK_EVENT_RESYNC, 0), 0);
        CHECK(count_events(rec, LINK_EVENT_NEW, ifindex) >= 2 * N_FLAPS,
              "%d NEW events for tmon2, expected at least %d",
              count_events(rec, LINK_EVENT_NEW, ifindex), 2 * N_FLAPS);
        CHECK(rec->n && rec->events[rec->n - 1].ifindex == ifindex
              && !rec->events[rec->n - 1].admin_up,
              "tmon2 does not end down");
        if (check_n_failed() != failed_before) {
            printf("  small queue:\n");
            dump_events(small_rec, 0);
        }
    }
    link_monitor_destroy(small);
    shell("ip link del tmon2");
    settle(base, fds[0], rec);
    free(small_rec);
    check_set_context("%s", "");
}

/* A process with CAP_NET_ADMIN may send to RTNLGRP_LINK itself; the
 * monitor takes only what the kernel sends. */
static void
test_forged(struct event_base *base, struct link_monitor *monitor,
            struct recorder *rec)
{
    static union {
        struct nlmsghdr nlh;
        uint8_t bytes[256];
    } buf;
    static const struct msg_spec forged = NEWLINK(FORGED_IFINDEX, UP | RUN,
                                                  "tmonfake", IF_OPER_UP,
                                                  NONE);
    struct sockaddr_nl group = {
        .nl_family = AF_NETLINK,
        .nl_groups = 1u << (RTNLGRP_LINK - 1),
    };
    uint64_t malformed_before = n_malformed();
    int fd = link_monitor_get_fd(monitor);
    int sock;
    size_t size;

    check_set_context("forged");
    rec->n = rec->n_seen = 0;
    sock = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    CHECK(sock >= 0, "socket: %s", strerror(errno));
    if (sock < 0) {
        return;
    }
    /* Not NLM_F_REQUEST, so the kernel's own copy is ignored. */
    size = build_msg(buf.bytes, &forged);
    CHECK(sendto(sock, buf.bytes, size, 0, (struct sockaddr *) &group,
                 sizeof group) == (ssize_t) size,
          "sendto: %s", strerror(errno));
    close(sock);

    settle(base, fd, rec);
    CHECK_INT(n_malformed() - malformed_before, 1);
    CHECK_INT(count_events(rec, LINK_EVENT_NEW, FORGED_IFINDEX), 0);
    check_set_context("%s", "");
}

static void
test_live(void)
{
    struct event_base *base = event_base_new();
    struct recorder *rec = xzalloc(sizeof *rec);
    struct link_monitor *monitor;
    char *error;

    monitor = link_monitor_create(base, record_cb, rec, &error);
    CHECK(monitor, "link_monitor_create: %s", error);
    if (monitor) {
        test_steps(base, monitor, rec);
        test_overflow(base, monitor, rec);
        test_forged(base, monitor, rec);
    } else {
        free(error);
    }
    link_monitor_destroy(monitor);
    event_base_free(base);
    free(rec);
}

int
main(void)
{
    static const struct check_test tests[] = {
        { "parse", test_parse },
        { "create-destroy", test_create_destroy },
    };
    static const struct check_test live_tests[] = {
        { "live", test_live },
    };

    setvbuf(stdout, NULL, _IOLBF, 0);
    check_run_tests(tests, ARRAY_SIZE(tests));
    if (geteuid()) {
        printf("test-link-monitor: live tests need root, skipped\n");
        return check_n_failed() ? check_finish("test-link-monitor") : 77;
    }
    if (!enter_namespace()) {
        printf("test-link-monitor: cannot make namespace %s, live tests "
               "skipped\n", NS_NAME);
        cleanup();
        return check_n_failed() ? check_finish("test-link-monitor") : 77;
    }

    check_run_tests(live_tests, ARRAY_SIZE(live_tests));
    return check_finish("test-link-monitor");
}
