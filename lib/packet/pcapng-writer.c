/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * pcapng writer (pcapng-writer.h).  Every block is: type, total length,
 * body padded to 4 bytes, options (code, length, value padded to 4; code
 * 0 ends them), total length again.
 */
#include <autoconf.h>
#include "packet/pcapng-writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"

#define PCAPNG_BLOCK_SHB 0x0A0D0D0Au       /* Section Header Block. */
#define PCAPNG_BLOCK_IDB 0x00000001u       /* Interface Description. */
#define PCAPNG_BLOCK_EPB 0x00000006u       /* Enhanced Packet Block. */
#define PCAPNG_BYTE_ORDER_MAGIC 0x1A2B3C4Du

#define PCAPNG_OPT_END 0
#define PCAPNG_OPT_COMMENT 1
#define PCAPNG_OPT_SHB_USERAPPL 4
#define PCAPNG_OPT_IF_NAME 2
#define PCAPNG_OPT_IF_DESCRIPTION 3
#define PCAPNG_OPT_IF_TSRESOL 9
#define PCAPNG_OPT_EPB_FLAGS 2

#define PCAPNG_LINKTYPE_ETHERNET 1

/* Longest option value written: a comment is cut there. */
#define PCAPNG_MAX_OPTION 1024

/* A block being built in memory, written whole by block_finish__(). */
struct pcapng_block {
    uint8_t *buf;
    size_t len;
    size_t allocated;
};

struct pcapng_writer {
    FILE *stream;
    struct pcapng_block block;  /* Reused for every frame. */
};

static void
block_put__(struct pcapng_block *b, const void *p, size_t n)
{
    if (b->len + n > b->allocated) {
        b->allocated = MAX(b->allocated * 2, b->len + n + 64);
        b->buf = xrealloc(b->buf, b->allocated);
    }
    if (n) {                    /* 'p' may be NULL then. */
        memcpy(b->buf + b->len, p, n);
        b->len += n;
    }
}

static void
block_put32__(struct pcapng_block *b, uint32_t v)
{
    block_put__(b, &v, sizeof v);
}

static void
block_pad__(struct pcapng_block *b)
{
    static const uint8_t zeros[4];

    block_put__(b, zeros, -b->len & 3);
}

static void
block_start__(struct pcapng_block *b, uint32_t type)
{
    b->len = 0;
    block_put32__(b, type);
    block_put32__(b, 0);        /* Total length, set by block_finish__(). */
}

static void
block_option__(struct pcapng_block *b, uint16_t code, const void *value,
               size_t size)
{
    uint16_t hdr[2] = { code, MIN(size, PCAPNG_MAX_OPTION) };

    block_put__(b, hdr, sizeof hdr);
    block_put__(b, value, hdr[1]);
    block_pad__(b);
}

static void
block_option_string__(struct pcapng_block *b, uint16_t code, const char *s)
{
    if (s && s[0]) {
        block_option__(b, code, s, strlen(s));
    }
}

/* Ends the options and the block and writes it.  Returns 0 or an errno. */
static int
block_finish__(struct pcapng_block *b, FILE *stream)
{
    uint32_t total;

    block_option__(b, PCAPNG_OPT_END, NULL, 0);
    total = b->len + 4;
    memcpy(b->buf + 4, &total, sizeof total);
    block_put32__(b, total);
    return fwrite(b->buf, b->len, 1, stream) == 1 ? 0 : errno ? errno : EIO;
}

static int
write_headers__(FILE *stream, const char *if_name, const char *if_descr)
{
    struct pcapng_block b = { NULL, 0, 0 };
    uint16_t version[2] = { 1, 0 };
    uint64_t section_length = UINT64_MAX;       /* Not given. */
    uint16_t linktype[2] = { PCAPNG_LINKTYPE_ETHERNET, 0 };
    uint8_t tsresol = 9;                        /* Nanoseconds. */
    int error;

    block_start__(&b, PCAPNG_BLOCK_SHB);
    block_put32__(&b, PCAPNG_BYTE_ORDER_MAGIC);
    block_put__(&b, version, sizeof version);
    block_put__(&b, &section_length, sizeof section_length);
    block_option_string__(&b, PCAPNG_OPT_SHB_USERAPPL,
                          "pmdswitch " PACKAGE_VERSION);
    error = block_finish__(&b, stream);

    if (!error) {
        block_start__(&b, PCAPNG_BLOCK_IDB);
        block_put__(&b, linktype, sizeof linktype);
        block_put32__(&b, 0);                   /* No snapshot limit. */
        block_option_string__(&b, PCAPNG_OPT_IF_NAME, if_name);
        block_option_string__(&b, PCAPNG_OPT_IF_DESCRIPTION, if_descr);
        block_option__(&b, PCAPNG_OPT_IF_TSRESOL, &tsresol, 1);
        error = block_finish__(&b, stream);
    }
    free(b.buf);
    return error;
}

int
pcapng_writer_open(const char *path, const char *if_name,
                   const char *if_descr, struct pcapng_writer **pwp,
                   char **errp)
{
    FILE *stream;
    int error;
    int fd;

    *pwp = NULL;
    if (errp) {
        *errp = NULL;
    }
    /* Frames are tenants' data: readable by the daemon's user only, and
     * never written through a link someone else planted. */
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
              0600);
    stream = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!stream) {
        error = errno;
        if (fd >= 0) {
            close(fd);
        }
        if (errp) {
            *errp = xasprintf("%s: cannot create (%s)", path,
                              strerror(error));
        }
        return error;
    }
    error = write_headers__(stream, if_name, if_descr);
    if (!error && fflush(stream)) {
        error = errno ? errno : EIO;
    }
    if (error) {
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
pcapng_writer_write(struct pcapng_writer *pw, uint64_t ts_ns,
                    const void *data, size_t size, size_t orig_size,
                    enum pcapng_direction dir, const char *comment)
{
    struct pcapng_block *b = &pw->block;
    uint32_t flags = dir;

    block_start__(b, PCAPNG_BLOCK_EPB);
    block_put32__(b, 0);                       /* Interface 0. */
    block_put32__(b, ts_ns >> 32);
    block_put32__(b, ts_ns);
    block_put32__(b, size);
    block_put32__(b, MIN(orig_size, UINT32_MAX));
    block_put__(b, data, size);
    block_pad__(b);
    if (dir != PCAPNG_DIR_UNKNOWN) {
        block_option__(b, PCAPNG_OPT_EPB_FLAGS, &flags, sizeof flags);
    }
    block_option_string__(b, PCAPNG_OPT_COMMENT, comment);
    return block_finish__(b, pw->stream);
}

int
pcapng_writer_flush(struct pcapng_writer *pw)
{
    return fflush(pw->stream) ? errno : 0;
}

void
pcapng_writer_close(struct pcapng_writer *pw)
{
    if (pw) {
        fclose(pw->stream);
        free(pw->block.buf);
        free(pw);
    }
}
