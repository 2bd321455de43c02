/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The daemon's pidfile; see pidfile.h.
 */
#include <autoconf.h>
#include "base/pidfile.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/lockfile.h"
#include "base/util.h"

struct pidfile {
    char *path;
    int fd;                     /* The file written, flock()ed. */
};

/* The pid that the pidfile at 'path' names if a live process holds its
 * lock (-1 if that process wrote no pid), else 0. */
static long
pidfile_holder__(const char *path)
{
    char buf[32];
    long pid = 0;
    ssize_t n;
    int fd;

    fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        return 0;
    }
    if (!flock(fd, LOCK_SH | LOCK_NB)) {
        close(fd);
        return 0;
    }
    n = pread(fd, buf, sizeof buf - 1, 0);
    if (n > 0) {
        buf[n] = '\0';
        pid = strtol(buf, NULL, 10);
    }
    close(fd);
    return pid > 0 ? pid : -1;
}

/* An error message for 'path', held by 'pid' (see pidfile_holder__()). */
static char *
pidfile_held_error__(const char *path, long pid)
{
    return (pid > 0
            ? xasprintf("pidfile %s is held by another pmdswitchd (pid "
                        "%ld)", path, pid)
            : xasprintf("pidfile %s is held by another process", path));
}

char *
pidfile_check(const char *path)
{
    long pid = pidfile_holder__(path);

    return pid ? pidfile_held_error__(path, pid) : NULL;
}

/* Writes the pidfile as pidfile_create() does, into directory 'dir' that
 * the caller has locked against other writers of pidfiles.  Returns the
 * file's fd, or -1 with '*errp'. */
static int
pidfile_write__(const char *path, const char *dir, char **errp)
{
    char *tmp = xasprintf("%s/.pidfile.XXXXXX", dir);
    char pid[32];
    long holder;
    int fd, len;

    holder = pidfile_holder__(path);
    if (holder) {
        *errp = pidfile_held_error__(path, holder);
        free(tmp);
        return -1;
    }
    fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        *errp = xasprintf("cannot create a file in %s: %s", dir,
                          strerror(errno));
        free(tmp);
        return -1;
    }
    len = snprintf(pid, sizeof pid, "%ld\n", (long) getpid());
    if (fchmod(fd, 0644) || write(fd, pid, len) != len
        || flock(fd, LOCK_EX | LOCK_NB) || rename(tmp, path)) {
        *errp = xasprintf("cannot write pidfile %s: %s", path,
                          strerror(errno));
        unlink(tmp);
        close(fd);
        fd = -1;
    }
    free(tmp);
    return fd;
}

struct pidfile *
pidfile_create(const char *path, char **errp)
{
    char *copy = xstrdup(path);
    char *dir = dirname(copy);
    struct pidfile *pf = NULL;
    int error, dirfd, fd;

    *errp = NULL;
    error = lockfile_make_dirs(dir);
    if (error) {
        *errp = xasprintf("cannot create directory %s: %s", dir,
                          strerror(error));
        free(copy);
        return NULL;
    }
    dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0) {
        *errp = xasprintf("%s: %s", dir, strerror(errno));
        free(copy);
        return NULL;
    }
    /* Two daemons starting at once must not both find the pidfile free
     * and both rename theirs over it: the check and the rename happen
     * under a lock on the directory, held only that long. */
    flock(dirfd, LOCK_EX);
    fd = pidfile_write__(path, dir, errp);
    close(dirfd);
    if (fd >= 0) {
        pf = xzalloc(sizeof *pf);
        pf->path = xstrdup(path);
        pf->fd = fd;
    }
    free(copy);
    return pf;
}

void
pidfile_remove(struct pidfile *pf)
{
    struct stat a, b;

    if (!pf) {
        return;
    }
    if (!fstat(pf->fd, &a) && !lstat(pf->path, &b)
        && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
        unlink(pf->path);
    }
    close(pf->fd);
    free(pf->path);
    free(pf);
}
