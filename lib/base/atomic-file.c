/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Replacing a file atomically (see atomic-file.h).
 */
#include <autoconf.h>
#include "base/atomic-file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/util.h"

struct atomic_file {
    char *path;                 /* The file to replace. */
    char *tmp;                  /* The new contents, synced. */
};

/* Writes all 'size' bytes of 'data' to 'fd'.  Returns 0 or an errno. */
static int
atomic_file_write_all(int fd, const char *data, size_t size)
{
    while (size) {
        ssize_t n = write(fd, data, size);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            return errno;
        }
        data += n;
        size -= n;
    }
    return 0;
}

struct atomic_file *
atomic_file_prepare(const char *path, const void *data, size_t size,
                    char **errp)
{
    struct atomic_file *af;
    bool exists = false;
    mode_t mode = 0644;
    struct stat st;
    char *copy, *tmp;
    const char *base;
    int error;
    int fd;

    if (!stat(path, &st)) {
        if (!(st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH))) {
            *errp = xasprintf("%s is read-only (mode %04o)", path,
                              (unsigned int) (st.st_mode & 07777));
            return NULL;
        }
        mode = st.st_mode & 07777;
        exists = true;
    }
    base = strrchr(path, '/');
    base = base ? base + 1 : path;
    copy = xstrdup(path);
    tmp = xasprintf("%s/.%s.XXXXXX", dirname(copy), base);
    free(copy);
    fd = mkstemp(tmp);
    if (fd < 0) {
        *errp = xasprintf("cannot create a file beside %s: %s", path,
                          strerror(errno));
        free(tmp);
        return NULL;
    }
    error = atomic_file_write_all(fd, data, size);
    if (!error && fchmod(fd, mode)) {
        error = errno;
    }
    if (!error && exists && (st.st_uid != geteuid() || st.st_gid != getegid())
        && fchown(fd, st.st_uid, st.st_gid) && errno != EPERM) {
        /* Root keeps the file's owner; anyone else cannot, and the file
         * becomes theirs, as an editor saving it would make it. */
        error = errno;
    }
    if (!error && fsync(fd)) {
        error = errno;
    }
    if (close(fd) && !error) {
        error = errno;
    }
    if (error) {
        *errp = xasprintf("cannot write %s: %s", tmp, strerror(error));
        unlink(tmp);
        free(tmp);
        return NULL;
    }
    af = xmalloc(sizeof *af);
    af->path = xstrdup(path);
    af->tmp = tmp;
    return af;
}

char *
atomic_file_commit(struct atomic_file *af)
{
    char *error = NULL;
    char *copy;
    int fd;

    if (rename(af->tmp, af->path)) {
        error = xasprintf("cannot rename %s to %s: %s", af->tmp, af->path,
                          strerror(errno));
        unlink(af->tmp);
    } else {
        /* The rename itself lasts only once the directory is on disk. */
        copy = xstrdup(af->path);
        fd = open(dirname(copy), O_RDONLY | O_DIRECTORY);
        if (fd >= 0) {
            fsync(fd);
            close(fd);
        }
        free(copy);
    }
    free(af->path);
    free(af->tmp);
    free(af);
    return error;
}

void
atomic_file_abort(struct atomic_file *af)
{
    if (af) {
        unlink(af->tmp);
        free(af->path);
        free(af->tmp);
        free(af);
    }
}
