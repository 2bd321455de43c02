/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The supervisor of daemon-monitor.h.  The monitor is single-threaded and
 * keeps every signal it cares about blocked, taking them one at a time
 * with sigwaitinfo(), so there are no handlers and no races with the
 * daemon's exit.
 */
#include <autoconf.h>
#include "base/daemon-monitor.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "base/util.h"
#include "base/vlog.h"

VLOG_DEFINE_THIS_MODULE(daemon_monitor);

/* The signals the monitor takes with sigwaitinfo(). */
static const int monitor_signals[] = { SIGCHLD, SIGTERM, SIGINT, SIGHUP };

/* Returns true if dying from 'signo' is a crash worth a restart. */
static bool
is_crash_signal__(int signo)
{
    switch (signo) {
    case SIGSEGV:
    case SIGBUS:
    case SIGABRT:
    case SIGFPE:
    case SIGILL:
    case SIGSYS:
    case SIGTRAP:
    case SIGXCPU:
    case SIGXFSZ:
        return true;
    default:
        return false;
    }
}

static long long
now_sec__(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec;
}

/* Forks a daemon.  In the daemon: restores 'old_mask', sets up its death
 * signal and returns 0.  In the monitor: returns the daemon's pid. */
static pid_t
fork_daemon__(const sigset_t *old_mask)
{
    pid_t pid = fork();

    if (pid < 0) {
        VLOG_FATAL("fork: %s", strerror(errno));
    }
    if (!pid) {
        sigprocmask(SIG_SETMASK, old_mask, NULL);
        /* The daemon must not outlive a monitor killed with SIGKILL. */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
    }
    return pid;
}

/* Moves the standard streams to /dev/null and the working directory to
 * "/", as a detached process does. */
static void
monitor_detach__(void)
{
    int null = open("/dev/null", O_RDWR);

    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        if (null > STDERR_FILENO) {
            close(null);
        }
    }
    if (chdir("/")) {
        VLOG_WARN("chdir /: %s", strerror(errno));
    }
}

/* Waits for the first daemon to report on 'ready_rd', passes its status
 * byte to 'upstream' (if not -1) and detaches if there was one.  Returns
 * false if the daemon died before it was running. */
static bool
monitor_wait_ready__(int ready_rd, int upstream)
{
    char status;
    ssize_t n;

    do {
        n = read(ready_rd, &status, 1);
    } while (n < 0 && errno == EINTR);
    close(ready_rd);
    if (n != 1) {
        return false;
    }
    if (upstream >= 0) {
        if (write(upstream, &status, 1) != 1) {
            VLOG_WARN("could not report start-up to the parent process");
        }
        close(upstream);
        monitor_detach__();
    }
    return true;
}

/* Exits with the status that a shell would give for 'wstatus'. */
static NO_RETURN void
exit_like__(int wstatus)
{
    if (WIFEXITED(wstatus)) {
        exit(WEXITSTATUS(wstatus));
    }
    exit(EXIT_FAILURE);
}

int
daemon_monitor_start(int *ready_fd)
{
    long long restarts[DAEMON_MONITOR_MAX_RESTARTS];
    int upstream = *ready_fd;
    long long started;
    bool stopping = false;
    sigset_t mask, old_mask;
    int n_restarts = 0;
    int ready[2];
    pid_t pid;

    sigemptyset(&mask);
    for (size_t i = 0; i < ARRAY_SIZE(monitor_signals); i++) {
        sigaddset(&mask, monitor_signals[i]);
    }
    sigprocmask(SIG_BLOCK, &mask, &old_mask);

    if (pipe2(ready, O_CLOEXEC)) {
        VLOG_FATAL("pipe: %s", strerror(errno));
    }
    started = now_sec__();
    pid = fork_daemon__(&old_mask);
    if (!pid) {
        close(ready[0]);
        if (upstream >= 0) {
            close(upstream);
        }
        *ready_fd = ready[1];
        return 0;
    }
    close(ready[1]);
    prctl(PR_SET_NAME, "pmdswitchd-mon");
    VLOG_INFO("monitoring pmdswitchd, pid %ld", (long) pid);
    if (!monitor_wait_ready__(ready[0], upstream)) {
        int wstatus;

        /* The daemon said why on stderr; pass on its exit status. */
        while (waitpid(pid, &wstatus, 0) < 0) {
            if (errno != EINTR) {
                exit(EXIT_FAILURE);
            }
        }
        exit_like__(wstatus);
    }

    for (;;) {
        siginfo_t info;
        int wstatus;
        int signo;

        signo = sigwaitinfo(&mask, &info);
        if (signo < 0) {
            continue;           /* EINTR from a signal we do not take. */
        }
        if (signo == SIGTERM || signo == SIGINT) {
            VLOG_INFO("%s received, stopping pmdswitchd (pid %ld)",
                      signo == SIGTERM ? "SIGTERM" : "SIGINT", (long) pid);
            stopping = true;
            kill(pid, signo);
            continue;
        } else if (signo == SIGHUP) {
            kill(pid, SIGHUP);
            continue;
        }

        /* SIGCHLD. */
        if (waitpid(pid, &wstatus, WNOHANG) != pid) {
            continue;
        }
        if (WIFEXITED(wstatus)) {
            VLOG_INFO("pmdswitchd (pid %ld) exited with status %d",
                      (long) pid, WEXITSTATUS(wstatus));
            exit_like__(wstatus);
        }
        if (!WIFSIGNALED(wstatus)) {
            continue;
        }
        signo = WTERMSIG(wstatus);
        if (stopping || !is_crash_signal__(signo)) {
            VLOG_ERR("pmdswitchd (pid %ld) killed by signal %d (%s), not "
                     "restarting", (long) pid, signo, strsignal(signo));
            exit(EXIT_FAILURE);
        }
        if (n_restarts >= DAEMON_MONITOR_MAX_RESTARTS
            && (now_sec__()
                - restarts[n_restarts % DAEMON_MONITOR_MAX_RESTARTS]
                < DAEMON_MONITOR_WINDOW_SEC)) {
            VLOG_ERR("pmdswitchd (pid %ld) died from signal %d (%s); it "
                     "was restarted %d times in %d seconds, giving up",
                     (long) pid, signo, strsignal(signo),
                     DAEMON_MONITOR_MAX_RESTARTS, DAEMON_MONITOR_WINDOW_SEC);
            exit(EXIT_FAILURE);
        }
        if (now_sec__() - started < 1) {
            /* A daemon that crashes at once would otherwise spin. */
            sleep(1);
        }
        restarts[n_restarts % DAEMON_MONITOR_MAX_RESTARTS] = now_sec__();
        n_restarts++;
        started = now_sec__();
        pid = fork_daemon__(&old_mask);
        if (!pid) {
            *ready_fd = -1;
            return n_restarts;
        }
        VLOG_ERR("pmdswitchd died from signal %d (%s), restarted as pid "
                 "%ld (restart %d)", signo, strsignal(signo), (long) pid,
                 n_restarts);
    }
}
