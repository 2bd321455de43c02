/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Replays saved inputs through one fuzz target without libFuzzer, so that
 * `make check` (and its sanitizer build) runs every corpus and crash file.
 * Linked with one tests/fuzz/fuzz-NAME.c as tests/fuzz/replay-NAME.
 *
 * Usage: replay-NAME [DIR-OR-FILE...]
 * Without arguments it replays $srcdir/tests/fuzz/corpus/NAME and
 * $srcdir/tests/fuzz/crashes/NAME, NAME being FUZZ_NAME from the build.
 * Files whose names start with '.' or "README" are skipped.  A broken
 * invariant aborts; otherwise it prints how many inputs ran and exits 0.
 */
#include <autoconf.h>
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include "base/util.h"

#ifndef FUZZ_NAME
#error "FUZZ_NAME must name the target"
#endif

/* Runs the file at 'path' through the target.  Returns 0 or an errno. */
static int
replay_file(const char *path)
{
    uint8_t *data = NULL;
    size_t size = 0, allocated = 0;
    FILE *file;
    int error = 0;

    file = fopen(path, "rb");
    if (!file) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return errno;
    }
    for (;;) {
        size_t n;

        if (allocated - size < 4096) {
            allocated = allocated ? 2 * allocated : 8192;
            data = xrealloc(data, allocated);
        }
        n = fread(data + size, 1, allocated - size, file);
        size += n;
        if (n == 0) {
            break;
        }
    }
    if (ferror(file)) {
        fprintf(stderr, "%s: read error\n", path);
        error = EIO;
    }
    fclose(file);
    if (!error) {
        /* An exact-size copy, so that ASan catches reads past the end. */
        uint8_t *input = xmalloc(size ? size : 1);

        memcpy(input, data, size);
        LLVMFuzzerTestOneInput(input, size);
        free(input);
    }
    free(data);
    return error;
}

static int
replay_name_cmp(const void *a_, const void *b_)
{
    const char *const *a = a_;
    const char *const *b = b_;

    return strcmp(*a, *b);
}

/* Replays 'path', a file or a directory of files (in name order, not
 * recursing), adding the number of inputs run to '*n_inputs'.  A missing
 * directory counts as empty when 'optional'.  Returns 0 or an errno. */
static int
replay_path(const char *path, bool optional, size_t *n_inputs)
{
    size_t n_names = 0, allocated = 0;
    char **names = NULL;
    struct dirent *de;
    struct stat st;
    int error = 0;
    DIR *dir;

    if (stat(path, &st)) {
        if (optional && errno == ENOENT) {
            return 0;
        }
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return errno;
    }
    if (!S_ISDIR(st.st_mode)) {
        (*n_inputs)++;
        return replay_file(path);
    }

    dir = opendir(path);
    if (!dir) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return errno;
    }
    while ((de = readdir(dir)) != NULL) {
        if (de->d_name[0] == '.' || !strncmp(de->d_name, "README", 6)) {
            continue;
        }
        if (n_names == allocated) {
            allocated = allocated ? 2 * allocated : 64;
            names = xrealloc(names, allocated * sizeof *names);
        }
        names[n_names++] = xasprintf("%s/%s", path, de->d_name);
    }
    closedir(dir);
    if (n_names) {
        qsort(names, n_names, sizeof *names, replay_name_cmp);
    }
    for (size_t i = 0; i < n_names; i++) {
        int retval = replay_file(names[i]);

        error = error ? error : retval;
        (*n_inputs)++;
        free(names[i]);
    }
    free(names);
    return error;
}

int
main(int argc, char *argv[])
{
    size_t n_inputs = 0;
    int error = 0;

    if (argc > 1) {
        for (int i = 1; i < argc; i++) {
            int retval = replay_path(argv[i], false, &n_inputs);

            error = error ? error : retval;
        }
    } else {
        const char *srcdir = getenv("srcdir");
        char *corpus, *crashes;

        srcdir = srcdir && *srcdir ? srcdir : ".";
        corpus = xasprintf("%s/tests/fuzz/corpus/%s", srcdir, FUZZ_NAME);
        crashes = xasprintf("%s/tests/fuzz/crashes/%s", srcdir, FUZZ_NAME);
        error = replay_path(corpus, false, &n_inputs);
        if (!error) {
            error = replay_path(crashes, true, &n_inputs);
        }
        free(corpus);
        free(crashes);
        if (!error && !n_inputs) {
            fprintf(stderr, "no inputs for %s\n", FUZZ_NAME);
            error = ENOENT;
        }
    }
    printf("%s: replayed %zu inputs\n", FUZZ_NAME, n_inputs);
    return error ? 1 : 0;
}
