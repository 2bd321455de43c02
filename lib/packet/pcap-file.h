/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Reader for classic libpcap capture files, as "tcpdump -w" writes them: a
 * 24-byte global header, then records, each a 16-byte header and the
 * captured bytes.  Both timestamp resolutions (magic 0xa1b2c3d4 for
 * microseconds, 0xa1b23c4d for nanoseconds) are read in either byte order.
 * Only Ethernet captures (LINKTYPE_ETHERNET) are accepted, because Ethernet
 * is what the datapath parses; pcapng files are not read.
 *
 * The reader trusts nothing in the file.  It never reads past the data
 * there is, it refuses a record that claims more than the snapshot length
 * or PCAP_FILE_MAX_RECORD bytes, and every error message starts with the
 * byte offset of the header at fault, for example
 *
 *     offset 40: file ends inside a record header (8 of 16 bytes)
 *
 * A capture can be read from a file or from memory (tests, fuzzing).  A
 * struct pcap_file is used by one thread at a time.
 *
 * The writer (struct pcap_writer, below) writes the same format, little
 * endian with microsecond timestamps, as the dummy port's "pcap" option
 * records what it transmits.
 */
#ifndef PCAP_FILE_H
#define PCAP_FILE_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PCAP_MAGIC_USEC 0xa1b2c3d4      /* Microsecond timestamps. */
#define PCAP_MAGIC_NSEC 0xa1b23c4d      /* Nanosecond timestamps. */
#define PCAP_GLOBAL_HEADER_SIZE 24
#define PCAP_RECORD_HEADER_SIZE 16
#define PCAP_LINKTYPE_ETHERNET 1

/* Largest record accepted, whatever the snapshot length says (libpcap's
 * own limit for Ethernet). */
#define PCAP_FILE_MAX_RECORD (256 * 1024)

/* pcap_file_read() at a clean end of the capture. */
#define PCAP_FILE_EOF EOF

/* The global header, in host byte order. */
struct pcap_header {
    uint32_t magic;             /* PCAP_MAGIC_USEC or PCAP_MAGIC_NSEC. */
    bool big_endian;            /* Byte order the file was written in. */
    uint16_t version_major;     /* Always 2. */
    uint16_t version_minor;     /* Usually 4. */
    int32_t thiszone;           /* GMT offset; 0 in practice. */
    uint32_t sigfigs;           /* Timestamp accuracy; 0 in practice. */
    uint32_t snaplen;           /* Snapshot length as written. */
    uint32_t linktype;          /* PCAP_LINKTYPE_ETHERNET. */
};

/* One captured frame. */
struct pcap_record {
    uint64_t offset;            /* File offset of the record header. */
    uint32_t ts_sec;            /* Capture time, seconds since the epoch. */
    uint32_t ts_nsec;           /* Nanoseconds (a microsecond file's
                                 * fraction times 1000, saturated). */
    uint32_t incl_len;          /* Bytes captured, at 'data'. */
    uint32_t orig_len;          /* Length of the frame on the wire; may
                                 * exceed 'incl_len' (short snapshot). */
    uint8_t *data;              /* 'incl_len' bytes owned by the reader:
                                 * valid, and writable, until the next
                                 * pcap_file_read() or pcap_file_close(). */
};

struct pcap_file;

/* Opens the capture file 'path' and reads its global header.  On success
 * stores a new reader in '*pfp' and returns 0.  On failure stores NULL in
 * '*pfp' and returns a positive errno value: the open(2) error, EIO for a
 * read error, EINVAL for a file that is not an Ethernet pcap file.  If
 * 'errp' is non-NULL, it receives NULL on success and otherwise a message
 * the caller must free(), such as "open failed: No such file or directory"
 * or "offset 0: not a pcap file: bad magic 0x0a0d0d0a (pcapng is not
 * supported)". */
int pcap_file_open(const char *path, struct pcap_file **pfp, char **errp);

/* Like pcap_file_open(), for the 'size' bytes at 'data', which must stay
 * valid and unchanged until pcap_file_close(). */
int pcap_file_open_mem(const void *data, size_t size, struct pcap_file **pfp,
                       char **errp);

/* Reads the next record of 'pf' into 'rec'.  Returns 0 on success,
 * PCAP_FILE_EOF if the capture ends cleanly after the previous record,
 * EINVAL if the file is truncated or corrupt, or EIO for a read error.
 * If 'errp' is non-NULL, it receives NULL unless an error is returned, and
 * then a message the caller must free(), e.g. "offset 1234: record claims
 * 70000 bytes, more than the snapshot length 65535".  After an error,
 * every later call returns the same error (and message). */
int pcap_file_read(struct pcap_file *pf, struct pcap_record *rec,
                   char **errp);

/* The global header of 'pf'. */
const struct pcap_header *pcap_file_header(const struct pcap_file *pf);

/* Closes 'pf' and frees it and the data of its last record.  Accepts
 * NULL. */
void pcap_file_close(struct pcap_file *pf);

/* Writer. */

struct pcap_writer;

/* Creates (or truncates) the capture file 'path' and writes its global
 * header: Ethernet, microsecond timestamps, snapshot length
 * PCAP_FILE_MAX_RECORD.  On success stores a new writer in '*pwp' and
 * returns 0.  On failure stores NULL in '*pwp', returns a positive errno
 * and, if 'errp' is non-NULL, a message to free() naming the file. */
int pcap_writer_open(const char *path, struct pcap_writer **pwp,
                     char **errp);

/* Appends a record of the 'size' bytes at 'data' (cut to
 * PCAP_FILE_MAX_RECORD), time-stamped now (wall clock).  The record may
 * sit in a stdio buffer until pcap_writer_flush().  Returns 0 or the
 * errno of a failed write. */
int pcap_writer_write(struct pcap_writer *pw, const void *data, size_t size);

/* Writes out what pcap_writer_write() buffered.  Returns 0 or an errno. */
int pcap_writer_flush(struct pcap_writer *pw);

/* Flushes and closes 'pw', and frees it.  Accepts NULL. */
void pcap_writer_close(struct pcap_writer *pw);

#endif /* pcap-file.h */
