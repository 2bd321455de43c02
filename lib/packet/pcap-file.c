/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Classic pcap reader.  Both sources, a stdio stream and a memory buffer,
 * sit behind pcap_input__(), which copies up to the bytes asked for and
 * reports how many there were, so the parsing code sees one short read at
 * the end of the data whatever the source.  Multi-byte fields are decoded
 * byte by byte in the file's order, so the host's order never matters.
 * Each record's data goes into a heap block of exactly its size, so that
 * AddressSanitizer catches a parser that reads past a frame.
 */
#include <autoconf.h>
#include "packet/pcap-file.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include "base/util.h"

/* First four bytes of a pcapng file, named in the bad-magic message. */
#define PCAPNG_MAGIC 0x0a0d0d0a

struct pcap_file {
    FILE *stream;               /* Source file, or NULL for memory. */
    const uint8_t *mem;         /* Memory source... */
    size_t mem_size;            /* ...its size... */
    size_t mem_pos;             /* ...and the bytes of it consumed. */
    uint64_t offset;            /* Bytes consumed from the source. */
    struct pcap_header header;
    uint32_t max_record;        /* Largest 'incl_len' accepted. */
    uint8_t *buf;               /* Data of the last record read. */
    int error;                  /* First error, 0 if none... */
    char *error_msg;            /* ...and its message. */
};

/* Copies up to 'n' bytes of input into 'dst' and stores the number copied
 * in '*n_read', fewer than 'n' only at the end of the data.  Returns 0, or
 * the errno value of a read error. */
static int
pcap_input__(struct pcap_file *pf, void *dst, size_t n, size_t *n_read)
{
    size_t got;

    if (pf->stream) {
        got = fread(dst, 1, n, pf->stream);
        if (got < n && ferror(pf->stream)) {
            *n_read = 0;
            return errno ? errno : EIO;
        }
    } else {
        got = MIN(n, pf->mem_size - pf->mem_pos);
        if (got) {
            memcpy(dst, pf->mem + pf->mem_pos, got);
        }
        pf->mem_pos += got;
    }
    pf->offset += got;
    *n_read = got;
    return 0;
}

/* Records 'error' with the printf-style message as the sticky error of
 * 'pf', gives a copy of the message to '*errp' if 'errp' is non-NULL, and
 * returns 'error'. */
static int PRINTF_FORMAT(4, 5)
pcap_fail__(struct pcap_file *pf, int error, char **errp,
            const char *format, ...)
{
    va_list args;

    va_start(args, format);
    free(pf->error_msg);
    pf->error_msg = xvasprintf(format, args);
    va_end(args);
    pf->error = error;
    if (errp) {
        *errp = xstrdup(pf->error_msg);
    }
    return error;
}

/* Reports read error 'error' at offset 'offset'.  The caller sees EIO;
 * the message keeps the cause. */
static int
pcap_read_failed__(struct pcap_file *pf, int error, uint64_t offset,
                   char **errp)
{
    return pcap_fail__(pf, EIO, errp, "offset %"PRIu64": read failed: %s",
                       offset, strerror(error));
}

static uint32_t
pcap_be32__(const uint8_t *p)
{
    return ((uint32_t) p[0] << 24) | ((uint32_t) p[1] << 16)
           | ((uint32_t) p[2] << 8) | p[3];
}

static uint32_t
pcap_le32__(const uint8_t *p)
{
    return ((uint32_t) p[3] << 24) | ((uint32_t) p[2] << 16)
           | ((uint32_t) p[1] << 8) | p[0];
}

/* The 32-bit field at 'p', in the byte order of 'pf'. */
static uint32_t
pcap_get32__(const struct pcap_file *pf, const uint8_t *p)
{
    return pf->header.big_endian ? pcap_be32__(p) : pcap_le32__(p);
}

static uint16_t
pcap_get16__(const struct pcap_file *pf, const uint8_t *p)
{
    return pf->header.big_endian ? (p[0] << 8) | p[1] : (p[1] << 8) | p[0];
}

/* Reads and checks the global header of 'pf'.  Returns 0 or an error as
 * for pcap_file_open(). */
static int
pcap_read_header__(struct pcap_file *pf, char **errp)
{
    struct pcap_header *h = &pf->header;
    uint8_t raw[PCAP_GLOBAL_HEADER_SIZE];
    uint32_t magic;
    size_t n;
    int error;

    error = pcap_input__(pf, raw, sizeof raw, &n);
    if (error) {
        return pcap_read_failed__(pf, error, 0, errp);
    }

    /* The magic first: a short file that is not pcap at all should say
     * so, not that it is a truncated one. */
    if (n >= 4) {
        magic = pcap_be32__(raw);
        if (magic == PCAP_MAGIC_USEC || magic == PCAP_MAGIC_NSEC) {
            h->big_endian = true;
        } else if (pcap_le32__(raw) == PCAP_MAGIC_USEC
                   || pcap_le32__(raw) == PCAP_MAGIC_NSEC) {
            h->big_endian = false;
        } else {
            return pcap_fail__(pf, EINVAL, errp,
                               "offset 0: not a pcap file: bad magic "
                               "0x%08"PRIx32"%s", magic,
                               magic == PCAPNG_MAGIC
                               ? " (pcapng is not supported)" : "");
        }
    }
    if (n < sizeof raw) {
        return pcap_fail__(pf, EINVAL, errp, "offset 0: file ends inside "
                           "the global header (%zu of %d bytes)", n,
                           PCAP_GLOBAL_HEADER_SIZE);
    }

    h->magic = pcap_get32__(pf, raw);
    h->version_major = pcap_get16__(pf, raw + 4);
    h->version_minor = pcap_get16__(pf, raw + 6);
    h->thiszone = (int32_t) pcap_get32__(pf, raw + 8);
    h->sigfigs = pcap_get32__(pf, raw + 12);
    h->snaplen = pcap_get32__(pf, raw + 16);
    h->linktype = pcap_get32__(pf, raw + 20);

    if (h->version_major != 2) {
        return pcap_fail__(pf, EINVAL, errp, "offset 4: unsupported pcap "
                           "version %"PRIu16".%"PRIu16" (2.x expected)",
                           h->version_major, h->version_minor);
    }
    if (h->linktype != PCAP_LINKTYPE_ETHERNET) {
        return pcap_fail__(pf, EINVAL, errp, "offset 20: link type "
                           "%"PRIu32" is not Ethernet (LINKTYPE_ETHERNET, "
                           "%d)", h->linktype, PCAP_LINKTYPE_ETHERNET);
    }
    /* Like libpcap, a snapshot length of 0 means "no limit". */
    pf->max_record = (h->snaplen && h->snaplen <= PCAP_FILE_MAX_RECORD
                      ? h->snaplen : PCAP_FILE_MAX_RECORD);
    return 0;
}

/* Finishes opening 'pf': reads its header, then hands it to '*pfp' or, on
 * error, frees it. */
static int
pcap_open__(struct pcap_file *pf, struct pcap_file **pfp, char **errp)
{
    int error = pcap_read_header__(pf, errp);

    if (error) {
        pcap_file_close(pf);
        pf = NULL;
    }
    *pfp = pf;
    return error;
}

int
pcap_file_open(const char *path, struct pcap_file **pfp, char **errp)
{
    struct pcap_file *pf;
    FILE *stream;

    if (errp) {
        *errp = NULL;
    }
    stream = fopen(path, "rb");
    if (!stream) {
        int error = errno;

        if (errp) {
            *errp = xasprintf("open failed: %s", strerror(error));
        }
        *pfp = NULL;
        return error;
    }
    pf = xzalloc(sizeof *pf);
    pf->stream = stream;
    return pcap_open__(pf, pfp, errp);
}

int
pcap_file_open_mem(const void *data, size_t size, struct pcap_file **pfp,
                   char **errp)
{
    struct pcap_file *pf;

    if (errp) {
        *errp = NULL;
    }
    pf = xzalloc(sizeof *pf);
    pf->mem = data;
    pf->mem_size = size;
    return pcap_open__(pf, pfp, errp);
}

int
pcap_file_read(struct pcap_file *pf, struct pcap_record *rec, char **errp)
{
    uint8_t raw[PCAP_RECORD_HEADER_SIZE];
    uint64_t start = pf->offset;
    uint32_t frac, incl_len;
    size_t n;
    int error;

    if (errp) {
        *errp = NULL;
    }
    if (pf->error) {
        if (errp) {
            *errp = xstrdup(pf->error_msg);
        }
        return pf->error;
    }

    error = pcap_input__(pf, raw, sizeof raw, &n);
    if (error) {
        return pcap_read_failed__(pf, error, start, errp);
    }
    if (!n) {
        return PCAP_FILE_EOF;
    }
    if (n < sizeof raw) {
        return pcap_fail__(pf, EINVAL, errp, "offset %"PRIu64": file ends "
                           "inside a record header (%zu of %d bytes)",
                           start, n, PCAP_RECORD_HEADER_SIZE);
    }

    incl_len = pcap_get32__(pf, raw + 8);
    if (incl_len > pf->max_record) {
        if (pf->max_record == pf->header.snaplen) {
            return pcap_fail__(pf, EINVAL, errp, "offset %"PRIu64": record "
                               "claims %"PRIu32" bytes, more than the "
                               "snapshot length %"PRIu32, start, incl_len,
                               pf->header.snaplen);
        }
        return pcap_fail__(pf, EINVAL, errp, "offset %"PRIu64": record "
                           "claims %"PRIu32" bytes, more than the limit of "
                           "%d", start, incl_len, PCAP_FILE_MAX_RECORD);
    }

    /* An exact-size block, even for an empty record. */
    free(pf->buf);
    pf->buf = xmalloc(MAX(incl_len, 1));
    error = pcap_input__(pf, pf->buf, incl_len, &n);
    if (error) {
        return pcap_read_failed__(pf, error, start, errp);
    }
    if (n < incl_len) {
        return pcap_fail__(pf, EINVAL, errp, "offset %"PRIu64": file ends "
                           "inside the record data (%zu of %"PRIu32" "
                           "bytes)", start, n, incl_len);
    }

    frac = pcap_get32__(pf, raw + 4);
    rec->offset = start;
    rec->ts_sec = pcap_get32__(pf, raw);
    if (pf->header.magic == PCAP_MAGIC_NSEC) {
        rec->ts_nsec = frac;
    } else {
        rec->ts_nsec = MIN((uint64_t) frac * 1000, UINT32_MAX);
    }
    rec->incl_len = incl_len;
    rec->orig_len = pcap_get32__(pf, raw + 12);
    rec->data = pf->buf;
    return 0;
}

const struct pcap_header *
pcap_file_header(const struct pcap_file *pf)
{
    return &pf->header;
}

void
pcap_file_close(struct pcap_file *pf)
{
    if (!pf) {
        return;
    }
    if (pf->stream) {
        fclose(pf->stream);
    }
    free(pf->buf);
    free(pf->error_msg);
    free(pf);
}

/* Writer. */

struct pcap_writer {
    FILE *stream;
};

/* Stores 'v' at 'p' little endian. */
static void
pcap_put_le32__(uint8_t *p, uint32_t v)
{
    p[0] = v;
    p[1] = v >> 8;
    p[2] = v >> 16;
    p[3] = v >> 24;
}

int
pcap_writer_open(const char *path, struct pcap_writer **pwp, char **errp)
{
    uint8_t hdr[PCAP_GLOBAL_HEADER_SIZE];
    FILE *stream;
    int error;

    *pwp = NULL;
    if (errp) {
        *errp = NULL;
    }
    stream = fopen(path, "wbe");
    if (!stream) {
        error = errno;
        if (errp) {
            *errp = xasprintf("%s: cannot create (%s)", path,
                              strerror(error));
        }
        return error;
    }
    memset(hdr, 0, sizeof hdr);
    pcap_put_le32__(hdr, PCAP_MAGIC_USEC);
    hdr[4] = 2;                 /* Version 2.4, little endian. */
    hdr[6] = 4;
    pcap_put_le32__(hdr + 16, PCAP_FILE_MAX_RECORD);
    pcap_put_le32__(hdr + 20, PCAP_LINKTYPE_ETHERNET);
    if (fwrite(hdr, sizeof hdr, 1, stream) != 1 || fflush(stream)) {
        error = errno ? errno : EIO;
        fclose(stream);
        if (errp) {
            *errp = xasprintf("%s: cannot write (%s)", path,
                              strerror(error));
        }
        return error;
    }
    *pwp = xzalloc(sizeof **pwp);
    (*pwp)->stream = stream;
    return 0;
}

int
pcap_writer_write(struct pcap_writer *pw, const void *data, size_t size)
{
    uint8_t hdr[PCAP_RECORD_HEADER_SIZE];
    uint32_t incl = MIN(size, PCAP_FILE_MAX_RECORD);
    struct timeval tv;

    gettimeofday(&tv, NULL);
    pcap_put_le32__(hdr, tv.tv_sec);
    pcap_put_le32__(hdr + 4, tv.tv_usec);
    pcap_put_le32__(hdr + 8, incl);
    pcap_put_le32__(hdr + 12, MIN(size, UINT32_MAX));
    if (fwrite(hdr, sizeof hdr, 1, pw->stream) != 1
        || (incl && fwrite(data, incl, 1, pw->stream) != 1)) {
        return errno ? errno : EIO;
    }
    return 0;
}

int
pcap_writer_flush(struct pcap_writer *pw)
{
    return fflush(pw->stream) ? errno : 0;
}

void
pcap_writer_close(struct pcap_writer *pw)
{
    if (pw) {
        fclose(pw->stream);
        free(pw);
    }
}
