/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * pmdswitch-parse-pcap: prints the flow key of every frame in a pcap file,
 * one line per frame, in the syntax of "ovs-ofctl parse-pcap" (see
 * lib/packet/flow-format.h).  Each frame goes through miniflow_extract(), the
 * parser the datapath runs, so the lines show exactly what the datapath
 * would match on, including for frames it cannot take apart completely.
 * A capture has no input port, so the lines have no "in_port=" (where
 * ovs-ofctl, which uses OFPP_ANY, shows "in_port=ANY").
 *
 * Exit status: 0 when the whole file was read; 1 for a usage error, a
 * file that cannot be opened, or a corrupt or truncated file, in which case
 * the lines of the frames before the damage are still printed and stderr
 * says "pmdswitch-parse-pcap: FILE: offset N: ...".
 */
#include <autoconf.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "packet/dp-packet.h"
#include "packet/flow-format.h"
#include "packet/miniflow.h"
#include "packet/pcap-file.h"

static const char *program_name = "pmdswitch-parse-pcap";

static void
usage(void)
{
    printf("%s: print the flow of each frame in a pcap file\n"
           "usage: %s [OPTIONS] FILE\n"
           "\n"
           "FILE is a classic pcap capture of Ethernet frames (not pcapng),\n"
           "in either byte order, with micro- or nanosecond timestamps.\n"
           "Each frame is parsed as the datapath parses it and printed on\n"
           "one line as \"ovs-ofctl parse-pcap\" would print it.\n"
           "\n"
           "Options:\n"
           "  -h, --help              print this help and exit\n"
           "  -V, --version           print the version and exit\n"
           "\n"
           "Exit status: 0 success, 1 usage error or an unreadable, corrupt\n"
           "or truncated file (frames before the damage are printed).\n",
           program_name, program_name);
}

/* Prints the flow line of the frame in 'rec'. */
static void
print_record(const struct pcap_record *rec)
{
    char line[FLOW_FORMAT_BUFSIZE];
    struct netdev_flow_key key;
    struct dp_packet packet;
    struct flow flow;

    const char *rest;

    /* A capture has no input port: 0, which the formatter leaves out, and
     * which Open vSwitch's parse-pcap prints as "in_port=ANY" right after
     * the protocol shorthand. */
    dp_packet_init(&packet, rec->data, rec->incl_len, 0);
    miniflow_extract(&packet, &key);
    miniflow_expand(&key.mf, &flow);
    flow_format_packet(&flow, line, sizeof line);
    rest = strchr(line, ',');
    if (rest && !memchr(line, '=', rest - line)) {
        printf("%.*s,in_port=ANY%s\n", (int) (rest - line), line, rest);
    } else if (line[0]) {
        printf("in_port=ANY,%s\n", line);
    } else {
        puts("in_port=ANY");
    }
}

/* Prints every frame of 'path'.  Returns the exit status. */
static int
parse_pcap(const char *path)
{
    struct pcap_file *pf;
    struct pcap_record rec;
    char *msg;
    int error;

    error = pcap_file_open(path, &pf, &msg);
    while (!error) {
        error = pcap_file_read(pf, &rec, &msg);
        if (!error) {
            print_record(&rec);
        }
    }
    pcap_file_close(pf);

    /* Lines first, so that the message follows the last good frame when
     * both streams go to one place. */
    if (fflush(stdout) || ferror(stdout)) {
        fprintf(stderr, "%s: write error on standard output\n",
                program_name);
        free(msg);
        return 1;
    }
    if (error != PCAP_FILE_EOF) {
        fprintf(stderr, "%s: %s: %s\n", program_name, path, msg);
        free(msg);
        return 1;
    }
    return 0;
}

int
main(int argc, char *argv[])
{
    static const struct option long_options[] = {
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };

    for (;;) {
        int c = getopt_long(argc, argv, "hV", long_options, NULL);

        if (c == -1) {
            break;
        }
        switch (c) {
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
    if (argc - optind != 1) {
        fprintf(stderr, "%s: %s; use --help for help\n", program_name,
                optind >= argc ? "missing FILE" : "exactly one FILE expected");
        return 1;
    }
    return parse_pcap(argv[optind]);
}
