/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Lock files; see lockfile.h.
 */
#include <autoconf.h>
#include "base/lockfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"
#include "base/vlog.h"

VLOG_DEFINE_THIS_MODULE(lockfile);

struct lockfile {
    struct lockfile *next;      /* In 'locks'. */
    char *path;                 /* As given to lockfile_lock(). */
    int fd;                     /* Open, flock()ed. */
    int n_refs;
};

/* Every lock this process holds. */
static struct lockfile *locks;

/* Reads the pid that the lock file open on 'fd' names; 0 if none. */
static pid_t
lockfile_read_pid__(int fd)
{
    char buf[32];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    long pid;

    if (n <= 0) {
        return 0;
    }
    buf[n] = '\0';
    pid = strtol(buf, NULL, 10);
    return pid > 0 ? pid : 0;
}

/* Opens and locks 'path' into '*fdp'.  Returns 0, EAGAIN with the holder
 * in '*holderp', or an errno value. */
static int
lockfile_open__(const char *path, int *fdp, pid_t *holderp)
{
    for (;;) {
        struct stat a, b;
        int fd;

        fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0) {
            return errno;
        }
        if (flock(fd, LOCK_EX | LOCK_NB)) {
            int error = errno;

            if (error == EWOULDBLOCK) {
                *holderp = lockfile_read_pid__(fd);
                error = EAGAIN;
            }
            close(fd);
            return error;
        }
        /* The holder before us removes the file before it lets go: if it
         * did so between our open() and flock(), we hold a lock on a file
         * that nobody else can find, and must start again. */
        if (!fstat(fd, &a) && !stat(path, &b)
            && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
            *fdp = fd;
            return 0;
        }
        close(fd);
    }
}

int
lockfile_lock(const char *path, struct lockfile **lockp, pid_t *holderp)
{
    struct lockfile *lock;
    char pid[32];
    int error, len;
    int fd = -1;

    *lockp = NULL;
    *holderp = 0;
    for (lock = locks; lock; lock = lock->next) {
        if (!strcmp(lock->path, path)) {
            *lockp = lockfile_ref(lock);
            return 0;
        }
    }
    error = lockfile_open__(path, &fd, holderp);
    if (error) {
        return error;
    }
    len = snprintf(pid, sizeof pid, "%ld\n", (long) getpid());
    if (ftruncate(fd, 0) || pwrite(fd, pid, len, 0) != len) {
        /* The lock holds all the same; only messages that name the
         * holder will lack its pid. */
        VLOG_WARN("%s: cannot write the pid: %s", path, strerror(errno));
    }
    lock = xzalloc(sizeof *lock);
    lock->path = xstrdup(path);
    lock->fd = fd;
    lock->n_refs = 1;
    lock->next = locks;
    locks = lock;
    *lockp = lock;
    return 0;
}

struct lockfile *
lockfile_ref(struct lockfile *lock)
{
    if (lock) {
        lock->n_refs++;
    }
    return lock;
}

void
lockfile_unlock(struct lockfile *lock)
{
    struct lockfile **p;

    if (!lock || --lock->n_refs > 0) {
        return;
    }
    for (p = &locks; *p != lock; p = &(*p)->next) {
        continue;
    }
    *p = lock->next;
    /* Removed while still locked: see lockfile_open__(). */
    unlink(lock->path);
    close(lock->fd);
    free(lock->path);
    free(lock);
}

int
lockfile_make_dirs(const char *dir)
{
    char *copy = xstrdup(dir);
    int error = 0;

    for (char *p = copy + 1; ; p++) {
        if (*p == '/' || !*p) {
            char c = *p;

            *p = '\0';
            if (mkdir(copy, 0755) && errno != EEXIST) {
                error = errno;
                break;
            }
            *p = c;
            if (!c) {
                break;
            }
        }
    }
    free(copy);
    return error;
}
