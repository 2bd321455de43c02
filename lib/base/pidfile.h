/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The daemon's pidfile.  It appears whole or not at all: the pid goes to
 * a new file of a name nobody can predict (mkstemp) in the pidfile's
 * directory, which is then renamed over the pidfile, so a symbolic link
 * planted anywhere is never followed and never written through.  The
 * daemon keeps the file open and flock()ed for as long as it runs: a
 * second daemon given the same pidfile sees the lock and refuses, while
 * a pidfile left by a crash holds no lock and is replaced.
 *
 * Control thread only.
 */
#ifndef PIDFILE_H
#define PIDFILE_H 1

struct pidfile;

/* Returns NULL if 'path' is free to take (no file, or one that no live
 * process holds), else an error message to free that names the process
 * that holds it. */
char *pidfile_check(const char *path);

/* Writes this process's pid to 'path' as described above, making its
 * directory (mode 0755) if missing, unless another process holds the
 * pidfile there.  Returns the pidfile, or NULL with an error message to
 * free in '*errp'. */
struct pidfile *pidfile_create(const char *path, char **errp);

/* Removes the pidfile if it is still the one 'pf' wrote (not replaced by
 * someone else since), then lets go of its lock and frees 'pf'.  Accepts
 * NULL. */
void pidfile_remove(struct pidfile *pf);

#endif /* pidfile.h */
