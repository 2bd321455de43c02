/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Lock files: an exclusive flock() on a file that holds the pid of its
 * holder, kept for as long as the holder runs.  The kernel drops the lock
 * when the holder dies, however it dies, so a lock file that a crash left
 * behind is free to take: that a file exists says nothing by itself.
 *
 * pmdswitchd takes one beside its control socket (one daemon per socket)
 * and one per kernel interface it opens (one daemon per interface).
 * Within a process a path is locked once: taking it again adds a
 * reference to the same lock, so that a port that replaces another on
 * the same interface can take the lock before the old one lets go.
 *
 * Not thread-safe: control thread only.
 */
#ifndef LOCKFILE_H
#define LOCKFILE_H 1

#include <sys/types.h>

struct lockfile;

/* Takes the lock on 'path' (created with mode 0644 if missing, in a
 * directory that must exist; a symbolic link there is refused) and
 * writes this process's pid into it; or, if this process holds that lock
 * already, adds a reference to it.  Returns 0 with the lock in '*lockp';
 * EAGAIN if another process holds it, with that process's pid in
 * '*holderp' (0 if it has not written it yet); or another errno value,
 * with '*lockp' NULL. */
int lockfile_lock(const char *path, struct lockfile **lockp,
                  pid_t *holderp);

/* Adds a reference to 'lock' and returns it.  Accepts NULL. */
struct lockfile *lockfile_ref(struct lockfile *lock);

/* Drops a reference to 'lock'.  The last one removes the file and then
 * releases the lock.  Accepts NULL. */
void lockfile_unlock(struct lockfile *lock);

/* Makes directory 'dir' (mode 0755) and its missing parents.  Returns 0
 * or an errno value. */
int lockfile_make_dirs(const char *dir);

#endif /* lockfile.h */
