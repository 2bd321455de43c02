/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * pmdswitch-appctl: runs one command on a running pmdswitchd through its
 * control socket (see lib/control/unixctl.h) and prints the answer.  Exit status:
 * 0 on success (result on stdout), 2 if the daemon answered with an error
 * (on stderr), 1 if the daemon could not be reached or did not answer.
 */
#include <autoconf.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "control/unixctl.h"
#include "base/util.h"

static const char *program_name = "pmdswitch-appctl";

static void
usage(void)
{
    printf("%s: control a running pmdswitchd\n"
           "usage: %s [OPTIONS] COMMAND [ARG...]\n"
           "Run \"%s list-commands\" for the daemon's commands.\n"
           "\n"
           "Options:\n"
           "  -t, --target=SOCKET|PIDFILE  control socket (default %s);\n"
           "                          a regular file holding a pid (a\n"
           "                          pidfile) selects the default socket\n"
           "  -f, --format=text|json  output format (default text)\n"
           "  -T, --timeout=SECS      give up after SECS seconds (default:\n"
           "                          wait forever)\n"
           "  -h, --help              print this help and exit\n"
           "  -V, --version           print the version and exit\n"
           "\n"
           "Exit status: 0 success, 2 the command failed, 1 the daemon\n"
           "could not be reached.\n",
           program_name, program_name, program_name, UNIXCTL_DEFAULT_PATH);
}

/* Returns true if 'name' is a regular file whose content is a pid. */
static bool
is_pidfile(const char *name)
{
    struct stat st;
    long pid = 0;
    char extra;
    FILE *file;
    int n;

    if (stat(name, &st) || !S_ISREG(st.st_mode)) {
        return false;
    }
    file = fopen(name, "r");
    if (!file) {
        return false;
    }
    n = fscanf(file, "%ld %c", &pid, &extra);
    fclose(file);
    return n == 1 && pid > 0;
}

/* Returns the socket path that 'target' (from -t, or NULL) names. */
static const char *
target_to_socket(const char *target)
{
    if (!target) {
        return UNIXCTL_DEFAULT_PATH;
    }
    if (is_pidfile(target)) {
        return UNIXCTL_DEFAULT_PATH;
    }
    return target;
}

/* Parses a --timeout value: a non-negative integer number of seconds. */
static int
parse_timeout(const char *s)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 0 || v > 86400 * 365) {
        fprintf(stderr, "%s: invalid timeout \"%s\"\n", program_name, s);
        exit(1);
    }
    return v;
}

int
main(int argc, char *argv[])
{
    static const struct option long_options[] = {
        { "target", required_argument, NULL, 't' },
        { "format", required_argument, NULL, 'f' },
        { "timeout", required_argument, NULL, 'T' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };
    const char *target = NULL;
    const char *socket_path;
    char *result, *error;
    bool json = false;
    int timeout = 0;
    int err;

    for (;;) {
        /* '+': options end at COMMAND, so its arguments may start with
         * '-'. */
        int c = getopt_long(argc, argv, "+t:f:T:hV", long_options, NULL);

        if (c == -1) {
            break;
        }
        switch (c) {
        case 't':
            target = optarg;
            break;
        case 'f':
            if (!strcmp(optarg, "json")) {
                json = true;
            } else if (!strcmp(optarg, "text")) {
                json = false;
            } else {
                fprintf(stderr, "%s: unknown format \"%s\" (use text or "
                        "json)\n", program_name, optarg);
                return 1;
            }
            break;
        case 'T':
            timeout = parse_timeout(optarg);
            break;
        case 'h':
            usage();
            return 0;
        case 'V':
            printf("%s (pmdswitch) %s\n", program_name, PACKAGE_VERSION);
            return 0;
        default:
            fprintf(stderr, "Try '%s --help' for more information.\n",
                    program_name);
            return 1;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "%s: missing command name; use --help for help\n",
                program_name);
        return 1;
    }

    socket_path = target_to_socket(target);
    err = unixctl_client_transact(socket_path, argv[optind],
                                  argc - optind - 1,
                                  (const char **) &argv[optind + 1], json,
                                  timeout, &result, &error);
    if (err) {
        if (err == ENOENT || err == ECONNREFUSED || err == EACCES) {
            fprintf(stderr, "%s: cannot connect to %s: %s (is pmdswitchd "
                    "running?)\n", program_name, socket_path, strerror(err));
        } else {
            fprintf(stderr, "%s: transaction with %s failed: %s\n",
                    program_name, socket_path, strerror(err));
        }
        return 1;
    }
    if (error) {
        size_t len = strlen(error);

        fprintf(stderr, "%s%s", error,
                len && error[len - 1] == '\n' ? "" : "\n");
        fprintf(stderr, "%s: %s: server returned an error\n", program_name,
                socket_path);
        free(error);
        return 2;
    }
    fputs(result, stdout);
    if (result[0] && result[strlen(result) - 1] != '\n') {
        putchar('\n');
    }
    free(result);
    return fflush(stdout) ? 1 : 0;
}
