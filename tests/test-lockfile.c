/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for lock files and the pidfile: a lock held by another process is
 * refused with that process's pid, and free once it exits; within a
 * process a lock is shared and the last reference removes the file; a
 * symbolic link is never followed.  The pidfile is written whole through
 * a new file, never through a link planted at its old temporary name or
 * at its own, refused while another process holds it, replaced once that
 * one is gone, and removed only if it is still the one written.
 */
#include <autoconf.h>
#include "base/lockfile.h"
#include "base/pidfile.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"
#include "base/util.h"

static char *dir;

/* A child process that holds what 'take' takes on 'path' until killed. */
struct holder {
    pid_t pid;
};

/* Forks a child that runs 'take'('path'), tells the parent, and waits. */
static struct holder
holder_start(const char *path, bool (*take)(const char *))
{
    struct holder h;
    int fds[2];
    char c;

    if (pipe(fds)) {
        ovs_fatal(errno, "pipe");
    }
    h.pid = fork();
    if (h.pid < 0) {
        ovs_fatal(errno, "fork");
    }
    if (!h.pid) {
        c = take(path) ? 1 : 0;
        if (write(fds[1], &c, 1) != 1) {
            _exit(1);
        }
        for (;;) {
            pause();
        }
    }
    close(fds[1]);
    if (read(fds[0], &c, 1) != 1 || !c) {
        ovs_fatal(0, "the child could not take %s", path);
    }
    close(fds[0]);
    return h;
}

static void
holder_stop(struct holder *h)
{
    int status;

    kill(h->pid, SIGKILL);
    waitpid(h->pid, &status, 0);
}

static bool
take_lock(const char *path)
{
    struct lockfile *lock;
    pid_t holder;

    return !lockfile_lock(path, &lock, &holder);
}

static bool
take_pidfile(const char *path)
{
    char *error;
    struct pidfile *pf = pidfile_create(path, &error);

    free(error);
    return pf != NULL;
}

static char *
read_file(const char *path)
{
    static char buf[64];
    FILE *f = fopen(path, "r");
    size_t n;

    if (!f) {
        return NULL;
    }
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void
write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    if (!f || fputs(text, f) < 0 || fclose(f)) {
        ovs_fatal(errno, "%s", path);
    }
}

static void
test_lock_other_process(void)
{
    char *path = xasprintf("%s/a.lock", dir);
    struct lockfile *lock;
    struct holder h;
    pid_t holder;

    h = holder_start(path, take_lock);
    CHECK_INT(lockfile_lock(path, &lock, &holder), EAGAIN);
    CHECK(!lock, "no lock on a refusal");
    CHECK_INT(holder, h.pid);
    holder_stop(&h);

    /* The dead holder's file is still there, its lock gone with it. */
    CHECK(!access(path, F_OK), "%s is left by the killed holder", path);
    CHECK_INT(lockfile_lock(path, &lock, &holder), 0);
    CHECK(lock != NULL, "lock taken over");
    lockfile_unlock(lock);
    CHECK(access(path, F_OK) && errno == ENOENT, "%s removed", path);
    free(path);
}

static void
test_lock_shared_in_process(void)
{
    char *path = xasprintf("%s/b.lock", dir);
    struct lockfile *a, *b;
    char *want = xasprintf("%ld\n", (long) getpid());
    pid_t holder;

    CHECK_INT(lockfile_lock(path, &a, &holder), 0);
    CHECK_STR(read_file(path), want);
    CHECK_INT(lockfile_lock(path, &b, &holder), 0);
    CHECK(a == b, "the same lock twice");
    lockfile_unlock(a);
    CHECK(!access(path, F_OK), "a reference is left: %s stays", path);
    lockfile_unlock(b);
    CHECK(access(path, F_OK) && errno == ENOENT, "%s removed", path);
    lockfile_unlock(NULL);
    free(want);
    free(path);
}

static void
test_lock_symlink(void)
{
    char *path = xasprintf("%s/c.lock", dir);
    char *victim = xasprintf("%s/victim-c", dir);
    struct lockfile *lock;
    pid_t holder;

    write_file(victim, "precious");
    if (symlink(victim, path)) {
        ovs_fatal(errno, "symlink");
    }
    CHECK_INT(lockfile_lock(path, &lock, &holder), ELOOP);
    CHECK_STR(read_file(victim), "precious");
    unlink(path);
    unlink(victim);
    free(victim);
    free(path);
}

static void
test_pidfile_links(void)
{
    char *path = xasprintf("%s/sub/d.pid", dir);
    char *tmp = xasprintf("%s.tmp", path);
    char *victim = xasprintf("%s/victim-d", dir);
    char *victim2 = xasprintf("%s/victim-d2", dir);
    char *want = xasprintf("%ld\n", (long) getpid());
    char *sub = xasprintf("%s/sub/x", dir);
    struct pidfile *pf;
    struct stat st;
    char *error;

    /* The links planted in the directory are not followed. */
    CHECK_INT(lockfile_make_dirs(sub), 0);
    free(sub);
    write_file(victim, "precious");
    write_file(victim2, "precious");
    CHECK(!symlink(victim, tmp) && !symlink(victim2, path), "symlinks");
    pf = pidfile_create(path, &error);
    CHECK(pf != NULL, "pidfile_create: %s", error);
    CHECK_STR(read_file(victim), "precious");
    CHECK_STR(read_file(victim2), "precious");
    CHECK(!lstat(path, &st) && S_ISREG(st.st_mode), "%s is a file", path);
    CHECK_INT(st.st_mode & 07777, 0644);
    CHECK_STR(read_file(path), want);
    pidfile_remove(pf);
    CHECK(access(path, F_OK) && errno == ENOENT, "%s removed", path);
    CHECK(!lstat(tmp, &st) && S_ISLNK(st.st_mode), "the link at .tmp stays");
    unlink(tmp);
    free(want);
    free(victim2);
    free(victim);
    free(tmp);
    free(path);
}

static void
test_pidfile_held(void)
{
    char *path = xasprintf("%s/e.pid", dir);
    char *other;
    char *want;
    struct pidfile *pf;
    struct holder h;
    char *error;

    h = holder_start(path, take_pidfile);
    want = xasprintf("pidfile %s is held by another pmdswitchd (pid %ld)",
                     path, (long) h.pid);
    error = pidfile_check(path);
    CHECK_STR(error, want);
    free(error);
    pf = pidfile_create(path, &error);
    CHECK(!pf, "a held pidfile taken");
    CHECK_STR(error, want);
    free(error);
    holder_stop(&h);
    free(want);

    /* Stale now: free to take. */
    error = pidfile_check(path);
    CHECK_STR(error, NULL);
    pf = pidfile_create(path, &error);
    CHECK(pf != NULL, "pidfile_create over a stale pidfile: %s", error);
    want = xasprintf("%ld\n", (long) getpid());
    CHECK_STR(read_file(path), want);

    /* Replaced by someone else: not ours to remove. */
    other = xasprintf("%s/other", dir);
    write_file(other, "1\n");
    CHECK(!rename(other, path), "rename");
    free(other);
    pidfile_remove(pf);
    CHECK_STR(read_file(path), "1\n");
    unlink(path);
    free(want);
    free(path);
}

int
main(void)
{
    static const struct check_test tests[] = {
        { "lock held by another process", test_lock_other_process },
        { "lock shared in a process", test_lock_shared_in_process },
        { "lock on a symlink", test_lock_symlink },
        { "pidfile and symlinks", test_pidfile_links },
        { "pidfile held", test_pidfile_held },
    };
    char template[] = "/tmp/test-lockfile.XXXXXX";
    int status;

    dir = mkdtemp(template);
    if (!dir) {
        ovs_fatal(errno, "mkdtemp");
    }
    check_run_tests(tests, ARRAY_SIZE(tests));
    status = check_finish("test-lockfile");
    if (!status) {
        char *cmd = xasprintf("rm -rf '%s'", dir);

        if (system(cmd)) {
            fprintf(stderr, "test-lockfile: cannot remove %s\n", dir);
        }
        free(cmd);
    }
    return status;
}
