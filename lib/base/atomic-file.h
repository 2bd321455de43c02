/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Replacing a file so that a reader, or the file system after a crash,
 * sees either all of the old contents or all of the new: the new text is
 * written to a temporary file in the same directory and synced, then
 * renamed over the old name, and the directory is synced.  The two steps
 * are separate so that a caller can make sure the file can be written
 * before it changes anything else, and commit only once it has.
 */
#ifndef ATOMIC_FILE_H
#define ATOMIC_FILE_H 1

#include <stddef.h>
#include "base/compiler.h"

struct atomic_file;

/* Writes the 'size' bytes of 'data' to a new temporary file beside 'path',
 * with the permissions (and, for root, the owner) of the file now at
 * 'path' (0644 if there is none), and syncs it.  Returns the pending replacement, or NULL with an error
 * message to free in '*errp'.  A file at 'path' that nobody may write
 * (no write bit in its mode) is refused, even for root: it says that the
 * file is not to be rewritten. */
struct atomic_file *atomic_file_prepare(const char *path, const void *data,
                                        size_t size, char **errp)
    WARN_UNUSED_RESULT;

/* Renames the temporary file of 'af' over its path, syncs the directory
 * and frees 'af'.  Returns NULL or an error message to free (then the
 * temporary file is removed and the old file stays). */
char *atomic_file_commit(struct atomic_file *af) WARN_UNUSED_RESULT;

/* Removes the temporary file of 'af' and frees 'af'.  Accepts NULL. */
void atomic_file_abort(struct atomic_file *af);

#endif /* atomic-file.h */
