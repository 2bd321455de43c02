/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for packet/pcapng-writer.c: the file it writes is walked block by
 * block here (lengths at both ends, 32-bit alignment, options) and each
 * frame comes back with its timestamp, lengths, direction and comment.
 * tests/system/test-capture.sh reads such files with tcpdump and tshark.
 */
#include <autoconf.h>
#include "packet/pcapng-writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "base/util.h"

struct frame {
    uint64_t ts_ns;
    uint32_t caplen, orig_len;
    uint8_t data[64];
    uint32_t flags;
    char comment[1100];
};

static uint32_t
get32(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof v);
    return v;
}

/* Walks the options at 'p' (of 'n' bytes) of an EPB into 'f'; returns
 * false if they are malformed. */
static bool
read_epb_options(const uint8_t *p, size_t n, struct frame *f)
{
    while (n >= 4) {
        uint16_t code, len;

        memcpy(&code, p, 2);
        memcpy(&len, p + 2, 2);
        if (code == 0) {
            return len == 0;
        }
        if (4 + ((len + 3u) & ~3u) > n) {
            return false;
        }
        if (code == 2 && len == 4) {
            f->flags = get32(p + 4);
        } else if (code == 1 && len < sizeof f->comment) {
            memcpy(f->comment, p + 4, len);
            f->comment[len] = '\0';
        }
        p += 4 + ((len + 3u) & ~3u);
        n -= 4 + ((len + 3u) & ~3u);
    }
    return false;
}

/* Reads 'path' back: returns the number of frames put in 'frames' (at most
 * 'max'), or -1 if the file is malformed. */
static int
read_back(const char *path, struct frame *frames, int max)
{
    FILE *stream = fopen(path, "rb");
    uint8_t *buf = xmalloc(1 << 20);
    size_t size = stream ? fread(buf, 1, 1 << 20, stream) : 0;
    int n_frames = 0, n_blocks = 0;
    size_t off = 0;

    if (stream) {
        fclose(stream);
    }
    while (off + 12 <= size) {
        uint32_t type = get32(buf + off), len = get32(buf + off + 4);

        if (len < 12 || len % 4 || off + len > size
            || get32(buf + off + len - 4) != len) {
            n_frames = -1;
            break;
        }
        if (n_blocks == 0 && (type != 0x0A0D0D0A
                              || get32(buf + off + 8) != 0x1A2B3C4D)) {
            n_frames = -1;
            break;
        }
        if (n_blocks == 1 && (type != 1 || buf[off + 8] != 1)) {
            n_frames = -1;      /* Not an Ethernet interface block. */
            break;
        }
        if (type == 6 && n_frames < max) {
            struct frame *f = &frames[n_frames++];
            const uint8_t *b = buf + off + 8;
            size_t padded;

            memset(f, 0, sizeof *f);
            f->ts_ns = (uint64_t) get32(b + 4) << 32 | get32(b + 8);
            f->caplen = get32(b + 12);
            f->orig_len = get32(b + 16);
            padded = (f->caplen + 3u) & ~3u;
            if (28 + padded + 4 > len) {
                n_frames = -1;
                break;
            }
            memcpy(f->data, b + 20, MIN(f->caplen, sizeof f->data));
            if (!read_epb_options(b + 20 + padded, len - 12 - 20 - padded,
                                  f)) {
                n_frames = -1;
                break;
            }
        }
        off += len;
        n_blocks++;
    }
    CHECK_INT(off, size);
    free(buf);
    return n_frames;
}

static void
test_round_trip(void)
{
    char path[] = "/tmp/test-pcapng-XXXXXX";
    int fd = mkstemp(path);
    struct pcapng_writer *pw;
    struct frame frames[4];
    uint8_t data[60];
    char long_comment[2000];
    char *error;

    CHECK(fd >= 0, "mkstemp");
    close(fd);
    for (size_t i = 0; i < sizeof data; i++) {
        data[i] = i;
    }
    memset(long_comment, 'c', sizeof long_comment - 1);
    long_comment[sizeof long_comment - 1] = '\0';

    CHECK_INT(pcapng_writer_open(path, "p1", "port p1", &pw, &error), 0);
    CHECK_INT(pcapng_writer_write(pw, 1700000000123456789ULL, data, 60, 60,
                                  PCAPNG_DIR_INBOUND, "received on p1"), 0);
    /* 13 bytes: padded to 16; truncated: orig_len above caplen. */
    CHECK_INT(pcapng_writer_write(pw, 5, data, 13, 9000,
                                  PCAPNG_DIR_OUTBOUND, NULL), 0);
    CHECK_INT(pcapng_writer_write(pw, 6, data, 1, 1, PCAPNG_DIR_UNKNOWN,
                                  long_comment), 0);
    pcapng_writer_close(pw);

    CHECK_INT(read_back(path, frames, 4), 3);
    CHECK(frames[0].ts_ns == 1700000000123456789ULL, "timestamp");
    CHECK_INT(frames[0].caplen, 60);
    CHECK(!memcmp(frames[0].data, data, 60), "frame bytes");
    CHECK_INT(frames[0].flags, 1);
    CHECK_STR(frames[0].comment, "received on p1");
    CHECK_INT(frames[1].caplen, 13);
    CHECK_INT(frames[1].orig_len, 9000);
    CHECK_INT(frames[1].flags, 2);
    CHECK_STR(frames[1].comment, "");
    CHECK_INT(frames[2].flags, 0);
    CHECK_INT(strlen(frames[2].comment), 1024);     /* Cut there. */
    unlink(path);
}

static void
test_open_errors(void)
{
    struct pcapng_writer *pw;
    char *error;

    CHECK(pcapng_writer_open("/nonexistent/dir/x.pcapng", NULL, NULL, &pw,
                             &error) != 0, "opening a bad path fails");
    CHECK(pw == NULL, "no writer");
    CHECK(error && strstr(error, "/nonexistent/dir/x.pcapng: cannot create"),
          "error: %s", error ? error : "(none)");
    free(error);
}

/* A symbolic link planted at the path is not followed. */
static void
test_no_symlink(void)
{
    char target[] = "/tmp/test-pcapng-target-XXXXXX";
    int fd = mkstemp(target);
    struct pcapng_writer *pw;
    char link_path[64];
    struct stat st;
    char *error;

    CHECK(fd >= 0, "mkstemp");
    close(fd);
    snprintf(link_path, sizeof link_path, "%s.link", target);
    CHECK_INT(symlink(target, link_path), 0);
    CHECK(pcapng_writer_open(link_path, NULL, NULL, &pw, &error) != 0,
          "writing through a symbolic link fails");
    free(error);
    CHECK(stat(target, &st) == 0 && st.st_size == 0, "target untouched");
    unlink(link_path);
    unlink(target);
}

int
main(void)
{
    test_round_trip();
    test_open_errors();
    test_no_symlink();
    return check_finish("test-pcapng-writer");
}
