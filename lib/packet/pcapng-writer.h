/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Writer of pcapng capture files (the format of IETF draft
 * "PCAP Next Generation Dump File Format", which tcpdump, tshark and
 * Wireshark read): one section, one Ethernet interface with nanosecond
 * timestamps, then an Enhanced Packet Block per frame.  Unlike classic
 * pcap, each frame can carry its direction (epb_flags: received or sent)
 * and a comment, which is where a dropped frame's reason goes.  Little
 * endian, as the host writes it.  One thread at a time.
 */
#ifndef PCAPNG_WRITER_H
#define PCAPNG_WRITER_H 1

#include <stddef.h>
#include <stdint.h>

struct pcapng_writer;

/* Direction of a frame, in its epb_flags. */
enum pcapng_direction {
    PCAPNG_DIR_UNKNOWN = 0,
    PCAPNG_DIR_INBOUND = 1,
    PCAPNG_DIR_OUTBOUND = 2,
};

/* Creates (or truncates) 'path', mode 0600 (a symbolic link there is
 * refused), and writes the section and interface
 * headers, naming the interface 'if_name' and its description 'if_descr'
 * (either may be NULL).  Returns 0 and the writer in '*pwp', or an errno
 * with a message in '*errp' (may be NULL) for the caller to free. */
int pcapng_writer_open(const char *path, const char *if_name,
                       const char *if_descr, struct pcapng_writer **pwp,
                       char **errp);

/* Appends a frame of 'orig_size' bytes of which 'data' holds the first
 * 'size', taken at 'ts_ns' (nanoseconds since the epoch), with 'dir' and
 * 'comment' (NULL for none).  Buffered until pcapng_writer_flush().
 * Returns 0 or an errno. */
int pcapng_writer_write(struct pcapng_writer *, uint64_t ts_ns,
                        const void *data, size_t size, size_t orig_size,
                        enum pcapng_direction dir, const char *comment);

/* Writes out what was buffered.  Returns 0 or an errno. */
int pcapng_writer_flush(struct pcapng_writer *);

/* Flushes and closes (accepts NULL). */
void pcapng_writer_close(struct pcapng_writer *);

#endif /* pcapng-writer.h */
