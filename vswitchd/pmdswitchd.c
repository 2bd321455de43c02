/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * pmdswitchd: the daemon.  It parses the command line and the config,
 * builds the datapath (ports and PMD threads), then runs the control loop
 * (libevent) until SIGTERM or SIGINT, and shuts down cleanly: PMDs joined,
 * ports closed, pidfile removed, counters logged.  With --monitor a
 * supervisor process (daemon-monitor.h) restarts it after a crash; the
 * crash handler (backtrace.h) logs every thread's backtrace first.
 */
#include <autoconf.h>

#include <errno.h>
#include <event2/event.h>
#include <event2/thread.h>
#include <fcntl.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <urcu-qsbr.h>

#include "base/backtrace.h"
#include "config/config.h"
#include "config/config-check.h"
#include "control/config-apply.h"
#include "control/metrics.h"
#include "control/service.h"
#include "base/coverage.h"
#include "base/daemon-monitor.h"
#include "base/pidfile.h"
#include "dp/dp.h"
#include "netdev/netdev-dummy.h"
#include "netdev/link-monitor.h"
#include "control/appctl.h"
#include "control/unixctl.h"
#include "base/util.h"
#include "base/vlog.h"

VLOG_DEFINE_THIS_MODULE(pmdswitchd);

#define DEFAULT_PIDFILE "/run/pmdswitch/pmdswitchd.pid"
#define DEFAULT_LOGFILE "/var/log/pmdswitch/pmdswitchd.log"

struct options {
    const char *config;
    const char *check_config;   /* --check-config FILE: validate, exit. */
    const char *pidfile;        /* NULL: none. */
    const char *log_file;       /* NULL: stderr only. */
    const char *unixctl;        /* Control socket path. */
    bool detach;
    bool monitor;               /* --monitor: restart after a crash. */
    bool enable_dummy;          /* --enable-dummy: dummy ports, the test
                                 * clock. */
    struct unixctl_limits appctl; /* --appctl-max-clients and
                                   * --appctl-idle-timeout. */
};

/* Prints 'error' (which it frees) and exits with status 1.  Freeing first
 * keeps the sanitizer builds' leak check quiet on every error path. */
static NO_RETURN void
exit_with_error(char *error)
{
    fprintf(stderr, "pmdswitchd: %s\n", error);
    free(error);
    exit(EXIT_FAILURE);
}

static void
usage(void)
{
    printf("pmdswitchd: a poll-mode software switch\n"
           "usage: pmdswitchd --config FILE [OPTIONS]\n"
           "       pmdswitchd --check-config FILE\n"
           "\n"
           "  --config FILE         JSON configuration (required)\n"
           "  --check-config FILE   validate FILE as --config would, change\n"
           "                        nothing, and exit (0 if valid)\n"
           "  --pidfile[=FILE]      write the pid to FILE once running\n"
           "                        (default " DEFAULT_PIDFILE ")\n"
           "  --detach              run in the background once running\n"
           "  --monitor             restart the daemon if it crashes\n"
           "  --unixctl PATH        serve pmdswitch-appctl on PATH\n"
           "                        (default " UNIXCTL_DEFAULT_PATH ")\n"
           "  --appctl-max-clients=N   serve at most N appctl clients at\n"
           "                        once (default %d)\n"
           "  --appctl-idle-timeout=SECS  close an appctl client idle for\n"
           "                        SECS seconds (default %d)\n"
           "  --log-file[=FILE]     also log to FILE\n"
           "                        (default " DEFAULT_LOGFILE ")\n"
           "  --enable-dummy        allow dummy ports and serve\n"
           "                        netdev-dummy/* and time/warp;\n"
           "                        for tests only\n"
           "  -v, --verbose=MODULE:LEVEL  set a log level (repeatable);\n"
           "                        -v syslog:info also logs to syslog\n"
           "  -h, --help            print this help and exit\n"
           "  -V, --version         print the version and exit\n",
           UNIXCTL_DEFAULT_MAX_CLIENTS,
           UNIXCTL_DEFAULT_IDLE_TIMEOUT_MS / 1000);
}

/* Parses 'arg', the argument of option 'name', as an integer from 'min' to
 * 'max', or exits with an error. */
static int
parse_int_option(const char *name, const char *arg, int min, int max)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(arg, &end, 10);
    if (errno || end == arg || *end || v < min || v > max) {
        ovs_fatal(0, "pmdswitchd: --%s must be an integer from %d to %d "
                  "(got \"%s\")", name, min, max, arg);
    }
    return v;
}

static void
parse_options(int argc, char *argv[], struct options *opts)
{
    enum { OPT_CONFIG = 256, OPT_PIDFILE, OPT_DETACH, OPT_LOG_FILE,
           OPT_UNIXCTL, OPT_MONITOR, OPT_ENABLE_DUMMY, OPT_CHECK_CONFIG,
           OPT_APPCTL_MAX_CLIENTS, OPT_APPCTL_IDLE_TIMEOUT };
    static const struct option long_options[] = {
        { "config", required_argument, NULL, OPT_CONFIG },
        { "check-config", required_argument, NULL, OPT_CHECK_CONFIG },
        { "pidfile", optional_argument, NULL, OPT_PIDFILE },
        { "detach", no_argument, NULL, OPT_DETACH },
        { "monitor", no_argument, NULL, OPT_MONITOR },
        { "log-file", optional_argument, NULL, OPT_LOG_FILE },
        { "unixctl", required_argument, NULL, OPT_UNIXCTL },
        { "enable-dummy", no_argument, NULL, OPT_ENABLE_DUMMY },
        { "appctl-max-clients", required_argument, NULL,
          OPT_APPCTL_MAX_CLIENTS },
        { "appctl-idle-timeout", required_argument, NULL,
          OPT_APPCTL_IDLE_TIMEOUT },
        { "verbose", required_argument, NULL, 'v' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };
    int c;

    memset(opts, 0, sizeof *opts);
    opts->unixctl = UNIXCTL_DEFAULT_PATH;
    opts->appctl = (struct unixctl_limits) UNIXCTL_LIMITS_DEFAULT;
    while ((c = getopt_long(argc, argv, "v:hV", long_options, NULL)) != -1) {
        char *error;

        switch (c) {
        case OPT_CONFIG:
            opts->config = optarg;
            break;
        case OPT_CHECK_CONFIG:
            opts->check_config = optarg;
            break;
        case OPT_PIDFILE:
            opts->pidfile = optarg ? optarg : DEFAULT_PIDFILE;
            break;
        case OPT_DETACH:
            opts->detach = true;
            break;
        case OPT_MONITOR:
            opts->monitor = true;
            break;
        case OPT_UNIXCTL:
            opts->unixctl = optarg;
            break;
        case OPT_ENABLE_DUMMY:
            opts->enable_dummy = true;
            break;
        case OPT_APPCTL_MAX_CLIENTS:
            opts->appctl.max_clients = parse_int_option(
                "appctl-max-clients", optarg, 1, 65536);
            break;
        case OPT_APPCTL_IDLE_TIMEOUT:
            opts->appctl.idle_timeout_ms = parse_int_option(
                "appctl-idle-timeout", optarg, 1, 86400) * 1000;
            break;
        case OPT_LOG_FILE:
            opts->log_file = optarg ? optarg : DEFAULT_LOGFILE;
            break;
        case 'v':
            error = vlog_set_levels_from_string(optarg);
            if (error) {
                ovs_fatal(0, "pmdswitchd: -v %s: %s", optarg, error);
            }
            break;
        case 'h':
            usage();
            exit(EXIT_SUCCESS);
        case 'V':
            printf("pmdswitchd (pmdswitch) %s\n", PACKAGE_VERSION);
            exit(EXIT_SUCCESS);
        default:
            fprintf(stderr, "Try 'pmdswitchd --help' for more "
                    "information.\n");
            exit(EXIT_FAILURE);
        }
    }
    if (optind < argc) {
        ovs_fatal(0, "pmdswitchd: unexpected argument \"%s\"", argv[optind]);
    }
    if (!opts->config && !opts->check_config) {
        ovs_fatal(0, "pmdswitchd: --config FILE is required "
                  "(try --help)");
    }
}

/* --check-config FILE: every check that needs nothing of the system (the
 * schema, the rules, what this build supports), then exits. */
static NO_RETURN void
check_config_and_exit(const char *path)
{
    struct pmd_config *cfg;
    char *error = NULL;
    size_t n_ports = 0;

    cfg = config_parse_file(path, &error);
    if (cfg) {
        error = config_check_rules(cfg, path);
    }
    if (cfg && !error) {
        error = dp_check_config(cfg);
    }
    if (error) {
        config_destroy(cfg);
        exit_with_error(error);
    }
    for (size_t i = 0; i < cfg->n_bridges; i++) {
        n_ports += cfg->bridges[i].n_ports;
    }
    printf("%s: valid (%zu bridge%s, %zu port%s)\n", path, cfg->n_bridges,
           cfg->n_bridges == 1 ? "" : "s", n_ports, n_ports == 1 ? "" : "s");
    config_destroy(cfg);
    exit(EXIT_SUCCESS);
}

/* True if some port of 'cfg' needs the kernel (any but a dummy port). */
static bool
config_has_kernel_ports(const struct pmd_config *cfg)
{
    for (size_t i = 0; i < cfg->n_bridges; i++) {
        for (size_t j = 0; j < cfg->bridges[i].n_ports; j++) {
            if (cfg->bridges[i].ports[j].type != CONFIG_PORT_DUMMY) {
                return true;
            }
        }
    }
    return false;
}

/* Returns NULL if this process may open packet sockets, or if 'cfg' has
 * only dummy ports (which need no privilege), else a message (to free)
 * with the reason, so that it fails early and clearly. */
static char *
check_packet_socket_permission(const struct pmd_config *cfg)
{
    int fd;

    if (!config_has_kernel_ports(cfg)) {
        return NULL;
    }
    fd = socket(AF_PACKET, SOCK_RAW, 0);

    if (fd < 0) {
        if (errno == EPERM || errno == EACCES) {
            return xasprintf("cannot open packet sockets: %s; pmdswitchd "
                             "must run as root or with CAP_NET_RAW",
                             strerror(errno));
        }
        return xasprintf("cannot open a packet socket: %s",
                         strerror(errno));
    }
    close(fd);
    return NULL;
}

/* Makes the directory that holds 'path', mode 0755, if missing. */
static void
make_parent_dir(const char *path)
{
    char *dir = xstrdup(path);
    char *slash = strrchr(dir, '/');

    if (slash && slash != dir) {
        *slash = '\0';
        mkdir(dir, 0755);
    }
    free(dir);
}

/* Opens the log file named by --log-file, if any.  Returns NULL or an error
 * message to free. */
static char *
open_log_file(const char *path)
{
    int err;

    if (!path) {
        return NULL;
    }
    make_parent_dir(path);
    err = vlog_set_log_file(path);
    return err ? xasprintf("cannot open log file %s: %s", path,
                           strerror(err)) : NULL;
}

/* Returns 'path' made absolute against the working directory (to free):
 * a detached or restarted daemon runs in "/". */
static char *
absolute_path(const char *path)
{
    char *cwd;
    char *abs;

    if (path[0] == '/') {
        return xstrdup(path);
    }
    cwd = getcwd(NULL, 0);
    if (!cwd) {
        ovs_fatal(errno, "pmdswitchd: getcwd");
    }
    abs = xasprintf("%s/%s", cwd, path);
    free(cwd);
    return abs;
}

/* Makes the paths in 'opts' that name files absolute; 'owned' keeps the
 * new strings (free them with free_paths()). */
static void
make_paths_absolute(struct options *opts, char *owned[3])
{
    const char **paths[3] = { &opts->pidfile, &opts->unixctl,
                              &opts->log_file };

    for (int i = 0; i < 3; i++) {
        owned[i] = *paths[i] ? absolute_path(*paths[i]) : NULL;
        if (owned[i]) {
            *paths[i] = owned[i];
        }
    }
}

static void
free_paths(char *owned[3])
{
    for (int i = 0; i < 3; i++) {
        free(owned[i]);
    }
}

/* --detach: the parent waits until the child is running (or failed) and
 * exits with its status, so errors still reach the terminal.  Returns the
 * fd the child writes its one status byte to. */
static int
detach_start(void)
{
    int fds[2];
    pid_t pid;
    char status;

    if (pipe(fds)) {
        ovs_fatal(errno, "pmdswitchd: pipe");
    }
    pid = fork();
    if (pid < 0) {
        ovs_fatal(errno, "pmdswitchd: fork");
    }
    if (pid > 0) {
        /* _exit(): what this process holds (the parsed config) is the
         * child's now, and nothing here is to be flushed or checked for
         * leaks. */
        close(fds[1]);
        if (read(fds[0], &status, 1) != 1) {
            int wstatus;

            waitpid(pid, &wstatus, 0);
            _exit(EXIT_FAILURE);
        }
        _exit(status ? EXIT_FAILURE : EXIT_SUCCESS);
    }
    close(fds[0]);
    setsid();
    return fds[1];
}

/* Reports "running" on 'fd' (from detach_start() or the monitor) and, if
 * 'detach', moves the standard streams to /dev/null and the working
 * directory to "/". */
static void
detach_finish(int fd, bool detach)
{
    char ok = 0;
    int null;

    if (write(fd, &ok, 1) != 1) {
        VLOG_WARN("could not report start-up to the parent process");
    }
    close(fd);
    if (!detach) {
        return;
    }
    null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        close(null);
    }
    if (chdir("/")) {
        VLOG_WARN("chdir /: %s", strerror(errno));
    }
}

/* A terminating signal (its number) or SIGHUP that came during start-up,
 * before the control loop took over the signals; 0: none. */
static volatile sig_atomic_t early_stop;
static volatile sig_atomic_t early_hup;

static void
on_early_signal(int sig)
{
    if (sig == SIGHUP) {
        early_hup = 1;
    } else {
        early_stop = sig;
    }
}

/* Until the control loop runs, SIGTERM, SIGINT and SIGHUP only set a flag,
 * so that start-up is never cut short with half of it done: the daemon
 * then stops (or reloads) as soon as it has got that far. */
static void
catch_early_signals(void)
{
    static const int signals[] = { SIGTERM, SIGINT, SIGHUP };
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_early_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < ARRAY_SIZE(signals); i++) {
        sigaction(signals[i], &sa, NULL);
    }
}

static void
on_signal(evutil_socket_t sig, short events OVS_UNUSED, void *base_)
{
    struct event_base *base = base_;

    VLOG_INFO("%s received, shutting down", strsignal(sig));
    event_base_loopbreak(base);
}

static void
on_sighup(evutil_socket_t sig OVS_UNUSED, short events OVS_UNUSED,
          void *reload)
{
    char *summary;
    char *error;

    VLOG_INFO("SIGHUP received: reloading the config");
    error = config_reload(reload, &summary);  /* Logs the outcome. */
    free(summary);
    free(error);
}

static void
on_link_event(const struct link_event *ev, void *dp)
{
    dp_link_event(dp, ev);
}

static void
on_tick(evutil_socket_t fd OVS_UNUSED, short events OVS_UNUSED, void *dp_)
{
    dp_run(dp_);
    coverage_run();             /* Samples every 5 s for coverage/show. */
}

static void
unixctl_version(struct unixctl_conn *conn, int argc OVS_UNUSED,
                const char *argv[] OVS_UNUSED, void *aux OVS_UNUSED)
{
    unixctl_command_reply(conn, "pmdswitchd (pmdswitch) " PACKAGE_VERSION);
}

static void
unixctl_exit(struct unixctl_conn *conn, int argc OVS_UNUSED,
             const char *argv[] OVS_UNUSED, void *base_)
{
    VLOG_INFO("exit requested through appctl, shutting down");
    unixctl_command_reply(conn, "");
    event_base_loopbreak(base_);
}

/* The file descriptors pmdswitchd asks for: each port takes one per rx
 * queue (two with TPACKET_V3) and two per PMD (its tx queue's sockets), so
 * this covers a full port table of 2,048 ports with up to 15 PMDs, and
 * appctl clients besides. */
#define PMDSWITCHD_NOFILE 65536

/* Raises the soft descriptor limit to PMDSWITCHD_NOFILE, or to the hard
 * limit if lower, and logs what it got. */
static void
raise_nofile_limit(void)
{
    unsigned long long before, after, hard;
    int error = raise_fd_limit(PMDSWITCHD_NOFILE, &before, &after, &hard);

    if (error) {
        VLOG_WARN("cannot raise the file descriptor limit (RLIMIT_NOFILE) "
                  "from %llu: %s", before, strerror(error));
    } else if (after != before) {
        VLOG_INFO("file descriptor limit (RLIMIT_NOFILE) raised from %llu "
                  "to %llu (hard limit %llu%s)", before, after, hard,
                  after < PMDSWITCHD_NOFILE ? ", 65536 wanted" : "");
    } else {
        VLOG_INFO("file descriptor limit (RLIMIT_NOFILE): %llu%s", after,
                  after < PMDSWITCHD_NOFILE
                  ? " (the hard limit; 65536 wanted)" : "");
    }
}

/* Registers every appctl command the daemon serves, and with
 * 'enable_dummy' those of dummy ports and the test clock. */
static void
register_commands(struct event_base *base, struct dp *dp, bool enable_dummy)
{
    unixctl_command_register("version", "", 0, 0, unixctl_version, NULL);
    unixctl_command_register("exit", "", 0, 0, unixctl_exit, base);
    appctl_register_commands(dp);
    if (enable_dummy) {
        netdev_dummy_register_commands(dp);
        time_register_commands();
        service_register_test_commands(dp);
    }
}

/* Runs the control loop on 'base' until a terminating signal or "exit". */
static void
run_control_loop(struct event_base *base, struct dp *dp,
                 struct config_reload *reload)
{
    struct timeval tick = { .tv_sec = 0, .tv_usec = 1000 };
    struct event *ev_term, *ev_int, *ev_hup, *ev_tick;
    ev_term = evsignal_new(base, SIGTERM, on_signal, base);
    ev_int = evsignal_new(base, SIGINT, on_signal, base);
    ev_hup = evsignal_new(base, SIGHUP, on_sighup, reload);
    ev_tick = event_new(base, -1, EV_PERSIST, on_tick, dp);
    event_add(ev_term, NULL);
    event_add(ev_int, NULL);
    event_add(ev_hup, NULL);
    event_add(ev_tick, &tick);

    /* Signals are libevent's now; one that came before still counts. */
    if (early_hup) {
        on_sighup(SIGHUP, 0, reload);
    }
    if (early_stop) {
        VLOG_INFO("%s received during start-up, shutting down",
                  strsignal(early_stop));
    } else {
        event_base_dispatch(base);
    }

    event_free(ev_tick);
    event_free(ev_hup);
    event_free(ev_int);
    event_free(ev_term);
}

int
main(int argc, char *argv[])
{
    struct config_reload reload;
    struct service_watchdog *watchdog = NULL;
    struct metrics_server *metrics;
    struct link_monitor *monitor;
    struct unixctl_server *unixctl;
    struct event_base *base;
    struct pmd_config *cfg;
    struct pidfile *pidfile = NULL;
    struct options opts;
    char *config_path = NULL;
    char *paths[3];
    int detach_fd = -1;
    char *error = NULL;
    struct dp *dp;

    /* A port's buffers are large (a receive batch of 64 KB frames, a dummy
     * port's ring).  With a fixed threshold they are always mmap()ed and
     * go back to the system with their port; glibc's moving threshold
     * would soon serve them from the heap, which a thousand ports added
     * and removed leave grown. */
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    parse_options(argc, argv, &opts);
    if (opts.check_config) {
        check_config_and_exit(opts.check_config);
    }
    catch_early_signals();
    make_paths_absolute(&opts, paths);
    if (opts.enable_dummy) {
        netdev_dummy_enable();
    }
    signal(SIGPIPE, SIG_IGN);
    evthread_use_pthreads();

    cfg = config_parse_file(opts.config, &error);
    if (!cfg) {
        exit_with_error(error);
    }
    /* Rules are checked against the ports, so after the whole file. */
    error = config_check_rules(cfg, opts.config);
    if (!error) {
        error = check_packet_socket_permission(cfg);
    }
    if (!error) {
        error = open_log_file(opts.log_file);
    }
    if (error) {
        config_destroy(cfg);
        exit_with_error(error);
    }
    if (opts.monitor) {
        /* A restarted daemon reads the file again, from "/" if detached. */
        config_path = realpath(opts.config, NULL);
        if (config_path) {
            opts.config = config_path;
        }
    }
    if (opts.detach) {
        detach_fd = detach_start();
    }
    if (opts.monitor && daemon_monitor_start(&detach_fd) > 0) {
        /* A restart after a crash: the config may have changed since. */
        config_destroy(cfg);
        cfg = config_parse_file(opts.config, &error);
        if (!cfg) {
            if (opts.log_file) {
                VLOG_ERR("%s", error);
            }
            exit_with_error(error);
        }
        error = config_check_rules(cfg, opts.config);
        if (error) {
            if (opts.log_file) {
                VLOG_ERR("%s", error);
            }
            config_destroy(cfg);
            exit_with_error(error);
        }
    }
    backtrace_install("pmdswitchd");

    VLOG_INFO("pmdswitchd %s starting with %s", PACKAGE_VERSION,
              opts.config);
    raise_nofile_limit();
    /* The control socket comes first: a second instance must stop here,
     * before it touches a port. */
    base = event_base_new();
    if (!base) {
        config_destroy(cfg);
        ovs_fatal(0, "pmdswitchd: cannot create the event loop");
    }
    unixctl = unixctl_server_create(base, opts.unixctl, &error);
    if (!unixctl) {
        config_destroy(cfg);
        event_base_free(base);
        exit_with_error(error);
    }
    unixctl_server_set_limits(unixctl, &opts.appctl);
    error = opts.pidfile ? pidfile_check(opts.pidfile) : NULL;
    if (error) {
        config_destroy(cfg);
        unixctl_server_destroy(unixctl);
        event_base_free(base);
        exit_with_error(error);
    }
    /* The socket's lock is ours: no other run of this instance is alive,
     * and what an earlier one left is ours to clean up. */
    dp_set_instance(opts.unixctl);
    dp_sweep_interfaces(cfg);
    dp_set_stop_flag(&early_stop);
    dp = dp_create(cfg, &error);
    dp_set_stop_flag(NULL);
    if (!dp && early_stop) {
        /* Not a failure: asked to stop, it has undone its start. */
        VLOG_INFO("%s received during start-up, shutting down",
                  strsignal(early_stop));
        free(error);
        config_destroy(cfg);
        unixctl_server_destroy(unixctl);
        event_base_free(base);
        free(config_path);
        free_paths(paths);
        dp_set_instance(NULL);
        VLOG_INFO("pmdswitchd exiting");
        return EXIT_SUCCESS;
    }
    if (!dp) {
        config_destroy(cfg);
        if (opts.log_file) {
            VLOG_ERR("%s", error);    /* The console gets it just below. */
        }
        unixctl_server_destroy(unixctl);
        event_base_free(base);
        exit_with_error(error);
    }
    register_commands(base, dp, opts.enable_dummy);
    config_reload_init(&reload, dp, opts.config, cfg);
    bridge_ctl_register_commands(&reload);
    monitor = link_monitor_create(base, on_link_event, dp, &error);
    if (!monitor) {
        /* dp_run() still checks the ports that fail, only more slowly. */
        VLOG_WARN("link monitor: %s; port changes are found by polling",
                  error);
        free(error);
    }
    metrics = metrics_server_create(base, dp);
    error = metrics_server_set_address(metrics, dp->other.metrics_address);
    if (!error && opts.pidfile && !early_stop) {
        pidfile = pidfile_create(opts.pidfile, &error);
    }
    if (error) {
        /* The ports are open: close them, and everything else, first. */
        VLOG_ERR("%s", error);
        metrics_server_destroy(metrics);
        link_monitor_destroy(monitor);
        dp_destroy(dp);
        config_reload_uninit(&reload);
        unixctl_server_destroy(unixctl);
        event_base_free(base);
        exit_with_error(error);
    }
    metrics_server_follow_config(metrics, dp);
    if (!early_stop) {
        VLOG_INFO("pmdswitchd running: %d port(s), %d pmd thread(s)",
                  dp->n_ports, dp->n_pmds);
        if (detach_fd >= 0) {
            detach_finish(detach_fd, opts.detach);
        }
        service_notify_ready(dp);
        watchdog = service_watchdog_start(base, dp);
    }

    run_control_loop(base, dp, &reload);

    service_notify_stopping();
    service_watchdog_stop(watchdog);

    metrics_server_destroy(metrics);
    link_monitor_destroy(monitor);
    dp_stop_pmds(dp);
    dp_log_stats(dp);
    dp_destroy(dp);
    config_reload_uninit(&reload);
    /* Last, once the interfaces are gone: a new run of this instance may
     * start as soon as the socket's lock is free. */
    unixctl_server_destroy(unixctl);
    event_base_free(base);
    pidfile_remove(pidfile);
    free(config_path);
    free_paths(paths);
    dp_set_instance(NULL);
    VLOG_INFO("pmdswitchd exiting");
    return EXIT_SUCCESS;
}
