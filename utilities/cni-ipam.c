/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * pmdswitch-cni: running the IPAM plugin, as section 4 of the CNI
 * specification has a plugin delegate: the executable named by
 * "ipam"."type", found in a directory of CNI_PATH, runs with the plugin's
 * own environment (CNI_COMMAND set to the operation), the whole network
 * config on stdin and its stderr on the plugin's; its stdout is the
 * result or an error object.  See cni.h.
 */
#include <autoconf.h>
#include "cni.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "base/ds.h"
#include "base/util.h"

/* Largest IPAM answer read, in bytes. */
#define CNI_IPAM_MAX_OUTPUT (1024 * 1024)

/* Finds plugin 'type' in the directories of 'path' (CNI_PATH) and returns
 * its file name, for the caller to free, or NULL. */
static char *
cni_ipam_find__(const char *path, const char *type)
{
    char *dirs = xstrdup(path);
    char *save = NULL;
    char *found = NULL;

    for (char *dir = strtok_r(dirs, ":", &save); dir && !found;
         dir = strtok_r(NULL, ":", &save)) {
        char *file = xasprintf("%s/%s", dir, type);
        struct stat st;

        if (!stat(file, &st) && S_ISREG(st.st_mode) && !access(file, X_OK)) {
            found = file;
        } else {
            free(file);
        }
    }
    free(dirs);
    return found;
}

/* Returns a file descriptor from which a child can read 'size' bytes of
 * 'text' from the start, or -1.  A memory file rather than a pipe, so that
 * the plugin never blocks writing while the IPAM plugin writes too. */
static int
cni_ipam_stdin__(const char *text, size_t size)
{
    int fd = memfd_create("pmdswitch-cni-config", MFD_CLOEXEC);

    if (fd < 0) {
        return -1;
    }
    for (size_t done = 0; done < size;) {
        ssize_t n = write(fd, text + done, size - done);

        if (n < 0 && errno != EINTR) {
            close(fd);
            return -1;
        }
        done += n > 0 ? n : 0;
    }
    if (lseek(fd, 0, SEEK_SET) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* In the child: runs 'file' with CNI_COMMAND 'command', stdin 'in_fd' and
 * stdout 'out_fd'.  Never returns. */
static void NO_RETURN
cni_ipam_exec__(const char *file, const char *command, int in_fd,
                int out_fd)
{
    char *argv[] = { (char *) file, NULL };

    if (dup2(in_fd, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0
        || setenv("CNI_COMMAND", command, 1)) {
        _exit(126);
    }
    execv(file, argv);
    fprintf(stderr, "pmdswitch-cni: cannot run %s: %s\n", file,
            strerror(errno));
    _exit(127);
}

/* Reads 'fd' to its end into 'out'.  Returns 0 or an errno value. */
static int
cni_ipam_read__(int fd, struct ds *out)
{
    char buf[4096];

    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);

        if (n == 0) {
            return 0;
        } else if (n < 0 && errno != EINTR) {
            return errno;
        } else if (n > 0) {
            if (out->length + n > CNI_IPAM_MAX_OUTPUT) {
                return EFBIG;
            }
            ds_put_format(out, "%.*s", (int) n, buf);
        }
    }
}

/* Runs 'file' as described for cni_ipam_run(), stores its stdout in 'out'
 * and its wait status in '*status'.  Returns 0 or an errno value. */
static int
cni_ipam_spawn__(const struct cni_request *req, const char *file,
                 const char *command, struct ds *out, int *status)
{
    int in_fd, pipe_fds[2], error;
    pid_t pid;

    in_fd = cni_ipam_stdin__(req->text, req->size);
    if (in_fd < 0) {
        return errno;
    }
    if (pipe2(pipe_fds, O_CLOEXEC)) {
        error = errno;
        close(in_fd);
        return error;
    }
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        cni_ipam_exec__(file, command, in_fd, pipe_fds[1]);
    }
    error = pid < 0 ? errno : 0;
    close(in_fd);
    close(pipe_fds[1]);
    if (!error) {
        error = cni_ipam_read__(pipe_fds[0], out);
    }
    close(pipe_fds[0]);
    while (pid > 0 && waitpid(pid, status, 0) < 0) {
        if (errno != EINTR) {
            return errno;
        }
    }
    return error;
}

/* Returns the error that an IPAM plugin reported with wait status
 * 'status' and output 'out': its own error object if it printed one,
 * otherwise one that says how it ended. */
static struct cni_error *
cni_ipam_failure__(const char *type, int status, const char *out)
{
    json_t *obj = json_loads(out, 0, NULL);
    const json_t *code = json_object_get(obj, "code");
    const json_t *msg = json_object_get(obj, "msg");
    const json_t *details = json_object_get(obj, "details");
    struct cni_error *error;

    if (json_is_integer(code) && json_is_string(msg)) {
        error = cni_error_create(json_integer_value(code),
                                 json_string_value(msg),
                                 "IPAM plugin %s: %s", type,
                                 json_is_string(details)
                                 ? json_string_value(details)
                                 : json_string_value(msg));
    } else if (WIFEXITED(status)) {
        error = cni_error_create(CNI_ERR_IPAM, "IPAM plugin failed",
                                 "IPAM plugin %s exited with status %d "
                                 "and no error object", type,
                                 WEXITSTATUS(status));
    } else {
        error = cni_error_create(CNI_ERR_IPAM, "IPAM plugin failed",
                                 "IPAM plugin %s was killed by signal %d",
                                 type, WTERMSIG(status));
    }
    json_decref(obj);
    return error;
}

bool
cni_ipam_exists(const struct cni_request *req)
{
    char *file = cni_ipam_find__(req->path, req->ipam_type);

    free(file);
    return file != NULL;
}

struct cni_error *
cni_ipam_run(const struct cni_request *req, const char *command,
             json_t **resultp)
{
    struct ds out = DS_EMPTY_INITIALIZER;
    struct cni_error *error = NULL;
    int status = 0, err;
    char *file;

    if (resultp) {
        *resultp = NULL;
    }
    file = cni_ipam_find__(req->path, req->ipam_type);
    if (!file) {
        return cni_error_create(CNI_ERR_IPAM, "IPAM plugin not found",
                                "no executable \"%s\" in CNI_PATH %s",
                                req->ipam_type, req->path);
    }
    err = cni_ipam_spawn__(req, file, command, &out, &status);
    if (err) {
        error = cni_error_create(CNI_ERR_IPAM, "cannot run the IPAM plugin",
                                 "%s: %s", file, strerror(err));
    } else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
        error = cni_ipam_failure__(req->ipam_type, status, ds_cstr(&out));
    } else if (resultp) {
        *resultp = json_loads(ds_cstr(&out), 0, NULL);
        if (!json_is_object(*resultp)) {
            json_decref(*resultp);
            *resultp = NULL;
            error = cni_error_create(CNI_ERR_IPAM, "invalid IPAM result",
                                     "IPAM plugin %s printed no JSON object "
                                     "for %s", req->ipam_type, command);
        }
    }
    ds_destroy(&out);
    free(file);
    return error;
}
