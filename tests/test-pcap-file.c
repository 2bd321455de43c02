/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for the pcap reader (lib/packet/pcap-file.c) and for the flow lines that
 * pmdswitch-parse-pcap prints (lib/packet/flow-format.c, flow_format_packet()).
 *
 * Reader cases are pcap images built in memory, one table row each: both
 * magics in both byte orders, a capture with no records, and every way a
 * file can be short or wrong, each with the exact error text.  Every case
 * is read twice, from memory (an exact-size heap copy, so that
 * AddressSanitizer sees any read past the end) and from a temporary file,
 * and both must give the same records and the same final result.  A sweep
 * over every prefix of a valid capture checks that a cut ends in a clean
 * end of file exactly at record boundaries and otherwise in an error that
 * names where the cut record starts.
 *
 * Flow cases build one frame for each protocol miniflow_extract() knows,
 * plus frames it cannot take apart, write them all into one capture, read
 * it back and turn each record into a line the way the utility does
 * (dp_packet_init(), miniflow_extract(), miniflow_expand(),
 * flow_format_packet()).  Each line must equal, character for character,
 * the text Open vSwitch prints for the same key (syntax of "ovs-ofctl
 * parse-pcap", without its "in_port=ANY").  The values are our parser's:
 * where it differs from OVS's flow_extract(), as for an IPv4 frame cut
 * short of its total length, which it parses as far as it goes, so do
 * the lines.
 */
#include <autoconf.h>
#include "packet/pcap-file.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "packet/dp-packet.h"
#include "packet/flow-format.h"
#include "packet/miniflow.h"
#include "packet/packets.h"
#include "base/util.h"

/* Pcap images. */

#define IMAGE_MAX 8192
#define IMAGE_MAX_RECORDS 32

/* A pcap image under construction and what a reader must get from it. */
struct image {
    uint8_t data[IMAGE_MAX];
    size_t size;
    bool big_endian;            /* Byte order of the fields written. */
    bool nsec;                  /* Nanosecond magic written. */
    struct pcap_header header;  /* Header as written. */
    struct pcap_record records[IMAGE_MAX_RECORDS];  /* Complete records,
                                 * 'data' pointing into 'data' above. */
    int n_records;
};

static void
img_put(struct image *img, const void *p, size_t n)
{
    if (img->size + n > IMAGE_MAX) {
        fprintf(stderr, "image too big\n");
        exit(1);
    }
    memcpy(img->data + img->size, p, n);
    img->size += n;
}

static void
img_u16(struct image *img, uint16_t v)
{
    uint8_t b[2];

    if (img->big_endian) {
        b[0] = v >> 8;
        b[1] = v;
    } else {
        b[0] = v;
        b[1] = v >> 8;
    }
    img_put(img, b, sizeof b);
}

static void
img_u32(struct image *img, uint32_t v)
{
    uint8_t b[4];
    int i;

    for (i = 0; i < 4; i++) {
        b[img->big_endian ? 3 - i : i] = v >> (8 * i);
    }
    img_put(img, b, sizeof b);
}

/* Starts 'img' with a global header. */
static void
img_header(struct image *img, uint32_t magic, bool big_endian,
           uint16_t major, uint32_t snaplen, uint32_t linktype)
{
    memset(img, 0, sizeof *img);
    img->big_endian = big_endian;
    img->nsec = magic == PCAP_MAGIC_NSEC;
    img_u32(img, magic);
    img_u16(img, major);
    img_u16(img, 4);
    img_u32(img, 0);
    img_u32(img, 0);
    img_u32(img, snaplen);
    img_u32(img, linktype);

    img->header.magic = magic;
    img->header.big_endian = big_endian;
    img->header.version_major = major;
    img->header.version_minor = 4;
    img->header.snaplen = snaplen;
    img->header.linktype = linktype;
}

/* The usual header: microseconds, little-endian, snaplen 65535. */
static void
img_le_header(struct image *img)
{
    img_header(img, PCAP_MAGIC_USEC, false, 2, 65535,
               PCAP_LINKTYPE_ETHERNET);
}

/* Appends a record header claiming 'incl_len' bytes. */
static void
img_record_header(struct image *img, uint32_t sec, uint32_t frac,
                  uint32_t incl_len, uint32_t orig_len)
{
    img_u32(img, sec);
    img_u32(img, frac);
    img_u32(img, incl_len);
    img_u32(img, orig_len);
}

/* Appends a complete record of the 'size' bytes at 'data' and expects a
 * reader to return it. */
static void
img_record(struct image *img, uint32_t sec, uint32_t frac,
           const void *data, size_t size, uint32_t orig_len)
{
    struct pcap_record *rec = &img->records[img->n_records++];

    ovs_assert(img->n_records <= IMAGE_MAX_RECORDS);
    rec->offset = img->size;
    rec->ts_sec = sec;
    rec->ts_nsec = img->nsec ? frac : frac * 1000;
    rec->incl_len = size;
    rec->orig_len = orig_len;
    img_record_header(img, sec, frac, size, orig_len);
    rec->data = img->data + img->size;
    img_put(img, data, size);
}

/* A recognisable payload: byte i of payload 'seed' is seed + 7 * i. */
static void
img_payload_record(struct image *img, uint32_t sec, uint32_t frac,
                   size_t size, uint8_t seed)
{
    uint8_t buf[1600];
    size_t i;

    ovs_assert(size <= sizeof buf);
    for (i = 0; i < size; i++) {
        buf[i] = seed + 7 * i;
    }
    img_record(img, sec, frac, buf, size, size + 4);
}

/* Reader cases. */

static void
build_usec_le(struct image *img)
{
    img_le_header(img);
    img_payload_record(img, 1700000000, 999999, 60, 1);
    img_payload_record(img, 1700000001, 0, 0, 2);
    img_payload_record(img, 1700000002, 123456, 1514, 3);
}

static void
build_usec_be(struct image *img)
{
    img_header(img, PCAP_MAGIC_USEC, true, 2, 262144,
               PCAP_LINKTYPE_ETHERNET);
    img_payload_record(img, 1700000000, 5, 60, 4);
    img_payload_record(img, 0xfffffffe, 999999, 98, 5);
}

static void
build_nsec_le(struct image *img)
{
    img_header(img, PCAP_MAGIC_NSEC, false, 2, 65535,
               PCAP_LINKTYPE_ETHERNET);
    img_payload_record(img, 1700000000, 999999999, 64, 6);
    img_payload_record(img, 1700000000, 1, 1, 7);
}

static void
build_nsec_be(struct image *img)
{
    img_header(img, PCAP_MAGIC_NSEC, true, 2, 96, PCAP_LINKTYPE_ETHERNET);
    img_payload_record(img, 42, 500000000, 96, 8);
}

static void
build_header_only(struct image *img)
{
    img_le_header(img);
}

/* A capture whose snapshot length 0 means "no limit": a record of exactly
 * PCAP_FILE_MAX_RECORD bytes is accepted (and here cut short). */
static void
build_snaplen_zero_max(struct image *img)
{
    img_header(img, PCAP_MAGIC_USEC, false, 2, 0, PCAP_LINKTYPE_ETHERNET);
    img_payload_record(img, 1, 0, 60, 9);
    img_record_header(img, 2, 0, PCAP_FILE_MAX_RECORD, 300000);
    img_put(img, "0123456789", 10);
}

static void
build_empty(struct image *img)
{
    img_le_header(img);
    img->size = 0;
}

static void
build_3_bytes(struct image *img)
{
    img_le_header(img);
    img->size = 3;
}

static void
build_short_header(struct image *img)
{
    img_header(img, PCAP_MAGIC_NSEC, true, 2, 65535,
               PCAP_LINKTYPE_ETHERNET);
    img->size = 10;
}

static void
build_23_bytes(struct image *img)
{
    img_le_header(img);
    img->size = 23;
}

static void
build_elf(struct image *img)
{
    static const uint8_t elf[] = { 0x7f, 'E', 'L', 'F', 2, 1, 1, 0 };

    memset(img, 0, sizeof *img);
    img_put(img, elf, sizeof elf);
}

static void
build_pcapng(struct image *img)
{
    img_header(img, 0x0a0d0d0a, true, 2, 65535, PCAP_LINKTYPE_ETHERNET);
}

/* The bytes of a nanosecond magic with its middle swapped: close, but
 * not a pcap file. */
static void
build_near_magic(struct image *img)
{
    img_header(img, 0xa1b24d3c, false, 2, 65535, PCAP_LINKTYPE_ETHERNET);
}

static void
build_version_3(struct image *img)
{
    img_header(img, PCAP_MAGIC_USEC, false, 3, 65535,
               PCAP_LINKTYPE_ETHERNET);
}

static void
build_linux_sll(struct image *img)
{
    img_header(img, PCAP_MAGIC_USEC, false, 2, 65535, 113);
    img_payload_record(img, 1, 0, 60, 10);
}

static void
build_raw_ip_be(struct image *img)
{
    img_header(img, PCAP_MAGIC_NSEC, true, 2, 65535, 101);
}

static void
build_short_record_header(struct image *img)
{
    img_le_header(img);
    img_payload_record(img, 1, 0, 60, 11);
    img_record_header(img, 2, 0, 60, 60);
    img->size -= 8;
}

static void
build_short_record_data(struct image *img)
{
    img_le_header(img);
    img_payload_record(img, 1, 0, 60, 12);
    img_record_header(img, 2, 0, 60, 60);
    img_put(img, "0123456789abcdefghij", 20);
}

static void
build_over_snaplen(struct image *img)
{
    img_le_header(img);
    img_record_header(img, 1, 0, 70000, 70000);
    img_put(img, "data", 4);
}

/* Exactly the snapshot length is fine, one more byte is not. */
static void
build_snaplen_edge(struct image *img)
{
    img_header(img, PCAP_MAGIC_USEC, true, 2, 64, PCAP_LINKTYPE_ETHERNET);
    img_payload_record(img, 1, 0, 64, 13);
    img_record_header(img, 2, 0, 65, 65);
}

static void
build_over_limit(struct image *img)
{
    img_header(img, PCAP_MAGIC_USEC, false, 2, 0x7fffffff,
               PCAP_LINKTYPE_ETHERNET);
    img_record_header(img, 1, 0, PCAP_FILE_MAX_RECORD + 1, 1);
}

struct reader_case {
    const char *name;
    void (*build)(struct image *);
    int open_error;             /* From pcap_file_open*(), 0 if none. */
    int end;                    /* After the records: PCAP_FILE_EOF or an
                                 * error. */
    const char *msg;            /* Message of the open or final error. */
};

static const struct reader_case reader_cases[] = {
    /* Good captures. */
    { "usec little-endian", build_usec_le, 0, PCAP_FILE_EOF, NULL },
    { "usec big-endian", build_usec_be, 0, PCAP_FILE_EOF, NULL },
    { "nsec little-endian", build_nsec_le, 0, PCAP_FILE_EOF, NULL },
    { "nsec big-endian", build_nsec_be, 0, PCAP_FILE_EOF, NULL },
    { "header only", build_header_only, 0, PCAP_FILE_EOF, NULL },

    /* Bad global headers. */
    { "empty file", build_empty, EINVAL, 0,
      "offset 0: file ends inside the global header (0 of 24 bytes)" },
    { "3 bytes", build_3_bytes, EINVAL, 0,
      "offset 0: file ends inside the global header (3 of 24 bytes)" },
    { "short global header", build_short_header, EINVAL, 0,
      "offset 0: file ends inside the global header (10 of 24 bytes)" },
    { "23 bytes", build_23_bytes, EINVAL, 0,
      "offset 0: file ends inside the global header (23 of 24 bytes)" },
    { "bad magic", build_elf, EINVAL, 0,
      "offset 0: not a pcap file: bad magic 0x7f454c46" },
    { "pcapng", build_pcapng, EINVAL, 0,
      "offset 0: not a pcap file: bad magic 0x0a0d0d0a "
      "(pcapng is not supported)" },
    { "near magic", build_near_magic, EINVAL, 0,
      "offset 0: not a pcap file: bad magic 0x3c4db2a1" },
    { "version 3", build_version_3, EINVAL, 0,
      "offset 4: unsupported pcap version 3.4 (2.x expected)" },
    { "linktype linux sll", build_linux_sll, EINVAL, 0,
      "offset 20: link type 113 is not Ethernet (LINKTYPE_ETHERNET, 1)" },
    { "linktype raw big-endian", build_raw_ip_be, EINVAL, 0,
      "offset 20: link type 101 is not Ethernet (LINKTYPE_ETHERNET, 1)" },

    /* Bad records, after the good ones before them. */
    { "short record header", build_short_record_header, 0, EINVAL,
      "offset 100: file ends inside a record header (8 of 16 bytes)" },
    { "short record data", build_short_record_data, 0, EINVAL,
      "offset 100: file ends inside the record data (20 of 60 bytes)" },
    { "incl_len over snaplen", build_over_snaplen, 0, EINVAL,
      "offset 24: record claims 70000 bytes, more than the snapshot "
      "length 65535" },
    { "snaplen edge", build_snaplen_edge, 0, EINVAL,
      "offset 104: record claims 65 bytes, more than the snapshot "
      "length 64" },
    { "snaplen 0, record at the limit", build_snaplen_zero_max, 0, EINVAL,
      "offset 100: file ends inside the record data (10 of 262144 "
      "bytes)" },
    { "incl_len over the limit", build_over_limit, 0, EINVAL,
      "offset 24: record claims 262145 bytes, more than the limit of "
      "262144" },
};

/* Writes 'size' bytes of 'data' to a new temporary file and returns its
 * name, for the caller to unlink() and free(). */
static char *
write_temp_file(const void *data, size_t size)
{
    char *path = xstrdup("/tmp/test-pcap-file-XXXXXX");
    int fd = mkstemp(path);

    if (fd < 0 || write(fd, data, size) != (ssize_t) size || close(fd)) {
        fprintf(stderr, "temporary file: %s\n", strerror(errno));
        exit(1);
    }
    return path;
}

/* Opens the 'size' bytes at 'data' from memory or, if 'path' is non-NULL,
 * from the file 'path' holding them. */
static int
open_image(const uint8_t *data, size_t size, const char *path,
           struct pcap_file **pfp, char **msg)
{
    return (path
            ? pcap_file_open(path, pfp, msg)
            : pcap_file_open_mem(data, size, pfp, msg));
}

static void
check_record(const struct pcap_record *got, const struct pcap_record *want)
{
    CHECK_INT(got->offset, want->offset);
    CHECK_INT(got->ts_sec, want->ts_sec);
    CHECK_INT(got->ts_nsec, want->ts_nsec);
    CHECK_INT(got->incl_len, want->incl_len);
    CHECK_INT(got->orig_len, want->orig_len);
    CHECK(!memcmp(got->data, want->data, want->incl_len),
          "record at offset %"PRIu64": data differs", want->offset);
}

static void
run_reader_case(const struct reader_case *c, bool from_file)
{
    struct image *img = xmalloc(sizeof *img);
    const struct pcap_header *h;
    struct pcap_record rec;
    struct pcap_file *pf;
    const char *want;
    uint8_t *copy;
    char *path = NULL;
    char *msg;
    int error, i;

    c->build(img);
    check_set_context("%s, from %s", c->name, from_file ? "file" : "memory");
    copy = xmemdup(img->data, MAX(img->size, 1));
    if (from_file) {
        path = write_temp_file(img->data, img->size);
    }

    error = open_image(copy, img->size, path, &pf, &msg);
    CHECK_INT(error, c->open_error);
    want = c->open_error ? c->msg : NULL;
    CHECK_STR(msg, want);
    free(msg);
    if (error) {
        CHECK(!pf, "no reader after an open error");
        goto out;
    }

    h = pcap_file_header(pf);
    CHECK_INT(h->magic, img->header.magic);
    CHECK_INT(h->big_endian, img->header.big_endian);
    CHECK_INT(h->version_major, img->header.version_major);
    CHECK_INT(h->version_minor, img->header.version_minor);
    CHECK_INT(h->snaplen, img->header.snaplen);
    CHECK_INT(h->linktype, img->header.linktype);

    for (i = 0; i < img->n_records; i++) {
        error = pcap_file_read(pf, &rec, &msg);
        CHECK(!error, "record %d: error %d (%s)", i, error, msg);
        free(msg);
        if (error) {
            break;
        }
        check_record(&rec, &img->records[i]);
    }

    /* The end, twice: it is where the reader stays. */
    for (i = 0; i < 2; i++) {
        error = pcap_file_read(pf, &rec, &msg);
        CHECK_INT(error, c->end);
        want = c->end == PCAP_FILE_EOF ? NULL : c->msg;
        CHECK_STR(msg, want);
        free(msg);
    }
    /* A NULL 'errp' is allowed. */
    CHECK_INT(pcap_file_read(pf, &rec, NULL), c->end);
    pcap_file_close(pf);

out:
    if (path) {
        unlink(path);
        free(path);
    }
    free(copy);
    free(img);
    check_set_context("%s", "");
}

static void
test_reader_cases(void)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE(reader_cases); i++) {
        run_reader_case(&reader_cases[i], false);
        run_reader_case(&reader_cases[i], true);
    }
}

static void
test_open_errors(void)
{
    struct pcap_file *pf = (struct pcap_file *) &pf;
    char *msg;
    int error;

    error = pcap_file_open("/nonexistent/test-pcap-file.pcap", &pf, &msg);
    CHECK_INT(error, ENOENT);
    CHECK_STR(msg, "open failed: No such file or directory");
    CHECK(!pf, "no reader");
    free(msg);

    /* A directory opens but cannot be read. */
    error = pcap_file_open("/", &pf, &msg);
    CHECK_INT(error, EIO);
    CHECK_STR(msg, "offset 0: read failed: Is a directory");
    free(msg);

    CHECK_INT(pcap_file_open_mem(NULL, 0, &pf, NULL), EINVAL);
    pcap_file_close(NULL);
}

/* Returns the number of records of 'img' wholly inside its first 'len'
 * bytes. */
static int
n_whole(const struct image *img, size_t len)
{
    int n = 0;

    while (n < img->n_records
           && (img->records[n].offset + PCAP_RECORD_HEADER_SIZE
               + img->records[n].incl_len) <= len) {
        n++;
    }
    return n;
}

/* Every prefix of a valid capture: a clean end exactly at the record
 * boundaries, otherwise an error naming the start of the cut record. */
static void
test_prefixes(void)
{
    struct image *img = xmalloc(sizeof *img);
    size_t len;

    img_le_header(img);
    img_payload_record(img, 1, 0, 60, 20);
    img_payload_record(img, 2, 0, 0, 21);
    img_payload_record(img, 3, 0, 33, 22);

    for (len = 0; len <= img->size; len++) {
        uint8_t *copy = xmemdup(img->data, MAX(len, 1));
        struct pcap_record rec;
        struct pcap_file *pf;
        char *want, *msg;
        int error, n;

        check_set_context("prefix of %zu bytes", len);
        error = pcap_file_open_mem(copy, len, &pf, &msg);
        if (len < PCAP_GLOBAL_HEADER_SIZE) {
            want = xasprintf("offset 0: file ends inside the global header "
                             "(%zu of 24 bytes)", len);
            CHECK_INT(error, EINVAL);
            CHECK_STR(msg, want);
            free(want);
            free(msg);
            free(copy);
            continue;
        }
        CHECK_INT(error, 0);

        for (n = 0; !(error = pcap_file_read(pf, &rec, &msg)); n++) {
            CHECK(n < n_whole(img, len), "record %d is not whole", n);
            if (n >= img->n_records) {
                break;
            }
            check_record(&rec, &img->records[n]);
        }
        CHECK_INT(n, n_whole(img, len));
        /* The record after the whole ones, if any, is cut. */
        if (n == img->n_records || len == img->records[n].offset) {
            CHECK_INT(error, PCAP_FILE_EOF);
            CHECK_STR(msg, NULL);
        } else {
            const struct pcap_record *cut = &img->records[n];
            size_t have = len - cut->offset;

            if (have < PCAP_RECORD_HEADER_SIZE) {
                want = xasprintf("offset %"PRIu64": file ends inside a "
                                 "record header (%zu of 16 bytes)",
                                 cut->offset, have);
            } else {
                want = xasprintf("offset %"PRIu64": file ends inside the "
                                 "record data (%zu of %"PRIu32" bytes)",
                                 cut->offset,
                                 have - PCAP_RECORD_HEADER_SIZE,
                                 cut->incl_len);
            }
            CHECK_INT(error, EINVAL);
            CHECK_STR(msg, want);
            free(want);
        }
        free(msg);
        pcap_file_close(pf);
        free(copy);
    }
    check_set_context("%s", "");
    free(img);
}

/* Frames. */

#define FRAME_MAX 256

/* A frame under construction. */
struct frame {
    uint8_t data[FRAME_MAX];
    size_t size;
    size_t l3;                  /* Offset of the IP header. */
    bool ipv6;                  /* IP header is IPv6. */
};

static const uint8_t mac1[6] = { 0x50, 0x54, 0x00, 0x00, 0x00, 0x01 };
static const uint8_t mac2[6] = { 0x50, 0x54, 0x00, 0x00, 0x00, 0x02 };
static const uint8_t mac_bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t mac_zero[6];
static const uint8_t mac_ns[6] = { 0x33, 0x33, 0xff, 0x00, 0x00, 0x02 };

static void
fr_put(struct frame *f, const void *p, size_t n)
{
    ovs_assert(f->size + n <= FRAME_MAX);
    memcpy(f->data + f->size, p, n);
    f->size += n;
}

static void
fr_u8(struct frame *f, uint8_t v)
{
    fr_put(f, &v, 1);
}

static void
fr_u16(struct frame *f, uint16_t v)
{
    ovs_be16 x = htons(v);

    fr_put(f, &x, 2);
}

static void
fr_u32(struct frame *f, uint32_t v)
{
    ovs_be32 x = htonl(v);

    fr_put(f, &x, 4);
}

static void
fr_zeros(struct frame *f, size_t n)
{
    while (n--) {
        fr_u8(f, 0);
    }
}

static void
fr_ip6_addr(struct frame *f, const char *s)
{
    struct in6_addr a;

    ovs_assert(inet_pton(AF_INET6, s, &a) == 1);
    fr_put(f, &a, sizeof a);
}

/* Starts 'f' with the MAC addresses; the caller adds tags and type. */
static void
fr_macs(struct frame *f, const uint8_t *dst, const uint8_t *src)
{
    memset(f, 0, sizeof *f);
    fr_put(f, dst, 6);
    fr_put(f, src, 6);
}

/* Ethernet from mac1 to mac2 with 'type'. */
static void
fr_eth(struct frame *f, uint16_t type)
{
    fr_macs(f, mac2, mac1);
    fr_u16(f, type);
}

/* IPv4 10.0.0.1 -> 10.0.0.2 with 'n_opt' bytes of NOP options; the total
 * length is set by fr_ip_end(). */
static void
fr_ipv4(struct frame *f, uint8_t tos, uint8_t ttl, uint16_t frag_off,
        uint8_t proto, size_t n_opt)
{
    f->l3 = f->size;
    f->ipv6 = false;
    fr_u8(f, 0x40 | (IP_HEADER_LEN + n_opt) / 4);
    fr_u8(f, tos);
    fr_u16(f, 0);
    fr_u16(f, 0x4321);
    fr_u16(f, frag_off);
    fr_u8(f, ttl);
    fr_u8(f, proto);
    fr_u16(f, 0);
    fr_u32(f, 0x0a000001);
    fr_u32(f, 0x0a000002);
    while (n_opt--) {
        fr_u8(f, 1);
    }
}

/* IPv6 from 'src' to 'dst'; the payload length is set by fr_ip_end(). */
static void
fr_ipv6(struct frame *f, uint8_t tclass, uint32_t label, uint8_t nxt,
        uint8_t hlim, const char *src, const char *dst)
{
    f->l3 = f->size;
    f->ipv6 = true;
    fr_u32(f, (6u << 28) | ((uint32_t) tclass << 20) | label);
    fr_u16(f, 0);
    fr_u8(f, nxt);
    fr_u8(f, hlim);
    fr_ip6_addr(f, src);
    fr_ip6_addr(f, dst);
}

/* Sets the IP length fields to cover everything after the header. */
static void
fr_ip_end(struct frame *f)
{
    size_t len = f->size - f->l3;
    ovs_be16 x;

    if (f->ipv6) {
        x = htons(len - IPV6_HEADER_LEN);
        memcpy(f->data + f->l3 + 4, &x, 2);
    } else {
        x = htons(len);
        memcpy(f->data + f->l3 + 2, &x, 2);
    }
}

static void
fr_tcp(struct frame *f, uint16_t src, uint16_t dst, uint16_t flags)
{
    fr_u16(f, src);
    fr_u16(f, dst);
    fr_u32(f, 1000);
    fr_u32(f, flags & TCP_ACK ? 2000 : 0);
    fr_u16(f, (5 << 12) | flags);
    fr_u16(f, 65535);
    fr_u16(f, 0);
    fr_u16(f, 0);
}

static void
fr_udp(struct frame *f, uint16_t src, uint16_t dst, size_t n_payload)
{
    fr_u16(f, src);
    fr_u16(f, dst);
    fr_u16(f, UDP_HEADER_LEN + n_payload);
    fr_u16(f, 0);
    fr_zeros(f, n_payload);
}

static void
fr_sctp(struct frame *f, uint16_t src, uint16_t dst)
{
    fr_u16(f, src);
    fr_u16(f, dst);
    fr_u32(f, 0xdeadbeef);
    fr_u32(f, 0);
    /* An INIT chunk header. */
    fr_u8(f, 1);
    fr_u8(f, 0);
    fr_u16(f, 4);
}

/* ICMP or ICMPv6 echo header, then 8 bytes of data. */
static void
fr_icmp_echo(struct frame *f, uint8_t type)
{
    fr_u8(f, type);
    fr_u8(f, 0);
    fr_u16(f, 0);
    fr_u16(f, 0x1234);
    fr_u16(f, 1);
    fr_zeros(f, 8);
}

/* Neighbor solicitation or advertisement for 'target' with one link-layer
 * address option of 'opt_type' carrying 'mac'. */
static void
fr_nd(struct frame *f, uint8_t type, uint32_t flags, const char *target,
      uint8_t opt_type, const uint8_t *mac)
{
    fr_u8(f, type);
    fr_u8(f, 0);
    fr_u16(f, 0);
    fr_u32(f, flags);
    fr_ip6_addr(f, target);
    fr_u8(f, opt_type);
    fr_u8(f, 1);
    fr_put(f, mac, 6);
}

static void
fr_arp(struct frame *f, uint16_t op, const uint8_t *sha, uint32_t spa,
       const uint8_t *tha, uint32_t tpa)
{
    fr_u16(f, ARP_HTYPE_ETH);
    fr_u16(f, ETH_TYPE_IP);
    fr_u8(f, 6);
    fr_u8(f, 4);
    fr_u16(f, op);
    fr_put(f, sha, 6);
    fr_u32(f, spa);
    fr_put(f, tha, 6);
    fr_u32(f, tpa);
}

/* Pads 'f' to the Ethernet minimum of 60 bytes, as a NIC would. */
static void
fr_pad(struct frame *f)
{
    if (f->size < 60) {
        fr_zeros(f, 60 - f->size);
    }
}

/* Frame builders, one per case.  Each sets '*orig_len' only when the
 * frame stands for a capture cut short of the wire length. */

static void
build_lldp(struct frame *f)
{
    fr_eth(f, 0x88cc);
    fr_zeros(f, 46);
}

static void
build_8023(struct frame *f)
{
    fr_eth(f, 46);
    fr_u8(f, 0x42);             /* STP over LLC. */
    fr_u8(f, 0x42);
    fr_u8(f, 0x03);
    fr_pad(f);
}

static void
build_runt(struct frame *f)
{
    fr_eth(f, ETH_TYPE_IP);
    f->size = 10;
}

static void
build_vlan_udp(struct frame *f)
{
    fr_macs(f, mac2, mac1);
    fr_u16(f, ETH_TYPE_VLAN_8021Q);
    fr_u16(f, (5 << VLAN_PCP_SHIFT) | 100);
    fr_u16(f, ETH_TYPE_IP);
    fr_ipv4(f, 0, 64, 0, IP_PROTO_UDP, 0);
    fr_udp(f, 1234, 53, 20);
    fr_ip_end(f);
}

static void
build_qinq_tcp(struct frame *f)
{
    fr_macs(f, mac2, mac1);
    fr_u16(f, ETH_TYPE_VLAN_8021AD);
    fr_u16(f, 10);
    fr_u16(f, ETH_TYPE_VLAN_8021Q);
    fr_u16(f, (3 << VLAN_PCP_SHIFT) | 20);
    fr_u16(f, ETH_TYPE_IP);
    fr_ipv4(f, 0, 64, 0, IP_PROTO_TCP, 0);
    fr_tcp(f, 1234, 80, TCP_ACK);
    fr_ip_end(f);
}

static void
build_vlan_arp(struct frame *f)
{
    fr_macs(f, mac_bcast, mac1);
    fr_u16(f, ETH_TYPE_VLAN_8021Q);
    fr_u16(f, 4094);
    fr_u16(f, ETH_TYPE_ARP);
    fr_arp(f, ARP_OP_REQUEST, mac1, 0x0a000001, mac_zero, 0x0a000002);
    fr_pad(f);
}

static void
build_arp_request(struct frame *f)
{
    fr_macs(f, mac_bcast, mac1);
    fr_u16(f, ETH_TYPE_ARP);
    fr_arp(f, ARP_OP_REQUEST, mac1, 0x0a000001, mac_zero, 0x0a000002);
    fr_pad(f);
}

static void
build_arp_reply(struct frame *f)
{
    fr_macs(f, mac1, mac2);
    fr_u16(f, ETH_TYPE_ARP);
    fr_arp(f, ARP_OP_REPLY, mac2, 0x0a000002, mac1, 0x0a000001);
    fr_pad(f);
}

static void
build_tcp_syn(struct frame *f)
{
    fr_eth(f, ETH_TYPE_IP);
    fr_ipv4(f, 0, 64, IP_DONT_FRAGMENT, IP_PROTO_TCP, 0);
    fr_tcp(f, 1234, 80, TCP_SYN);
    fr_ip_end(f);
    fr_pad(f);
}

static void
build_tcp_options(struct frame *f)
{
    fr_eth(f, ETH_TYPE_IP);
    fr_ipv4(f, 0x10, 128, 0, IP_PROTO_TCP, 8);
    fr_tcp(f, 443, 50000, TCP_PSH | TCP_ACK | TCP_FIN);
    fr_ip_end(f);
}

static void
build_udp(struct frame *f)
{
    fr_eth(f, ETH_TYPE_IP);
    fr_ipv4(f, 0xb9, 3, 0, IP_PROTO_UDP, 0);
    fr_udp(f, 5353, 5353, 12);
    fr_ip_end(f);
}

static void
build_sctp(struct frame *f)
{
    fr_eth(f, ETH_TYPE_IP);
    fr_ipv4(f, 0, 64, 0, IP_PROTO_SCTP, 0);
    fr_sctp(f, 5000, 5001);
    fr_ip_end(f);
}

static void
build_icmp_echo(struct frame *f)
{
    fr_eth(f, ETH_TYPE_IP);
    fr_ipv4(f, 0, 64, 0, IP_PROTO_ICMP, 0);
    fr_icmp_echo(f, 8);
    fr_ip_end(f);
}

static void
build_first_fragment(struct frame *f)
{
    fr_eth(f, ETH_TYPE_IP);
    fr_ipv4(f, 0, 64, IP_MORE_FRAGMENTS, IP_PROTO_UDP, 0);
    fr_udp(f, 1234, 53, 32);
    fr_ip_end(f);
}

static void
build_later_fragment(struct frame *f)
{
    fr_eth(f, ETH_TYPE_IP);
    fr_ipv4(f, 0, 64, 185, IP_PROTO_UDP, 0);
    fr_zeros(f, 40);
    fr_ip_end(f);
}

static void
build_gre(struct frame *f)
{
    fr_eth(f, ETH_TYPE_IP);
    fr_ipv4(f, 0, 255, 0, 47, 0);
    fr_zeros(f, 4);
    fr_ip_end(f);
    fr_pad(f);
}

static void
build_tcp6(struct frame *f)
{
    fr_eth(f, ETH_TYPE_IPV6);
    fr_ipv6(f, 0, 0x12345, IP_PROTO_TCP, 64, "2001:db8::1",
            "2001:db8::2");
    fr_tcp(f, 1234, 80, TCP_SYN | TCP_ACK);
    fr_ip_end(f);
}

static void
build_udp6(struct frame *f)
{
    fr_eth(f, ETH_TYPE_IPV6);
    fr_ipv6(f, 0x2a, 0, IP_PROTO_UDP, 1, "2001:db8::1", "2001:db8::2");
    fr_udp(f, 546, 547, 4);
    fr_ip_end(f);
}

static void
build_icmp6_echo(struct frame *f)
{
    fr_eth(f, ETH_TYPE_IPV6);
    fr_ipv6(f, 0, 0, IP_PROTO_ICMPV6, 64, "2001:db8::1", "2001:db8::2");
    fr_icmp_echo(f, 128);
    fr_ip_end(f);
}

static void
build_nd_ns(struct frame *f)
{
    fr_macs(f, mac_ns, mac1);
    fr_u16(f, ETH_TYPE_IPV6);
    fr_ipv6(f, 0, 0, IP_PROTO_ICMPV6, 255, "fe80::1", "ff02::1:ff00:2");
    fr_nd(f, ICMP6_NEIGHBOR_SOLICIT, 0, "fe80::2", ND_OPT_SOURCE_LINKADDR,
          mac1);
    fr_ip_end(f);
}

static void
build_nd_na(struct frame *f)
{
    fr_macs(f, mac1, mac2);
    fr_u16(f, ETH_TYPE_IPV6);
    fr_ipv6(f, 0, 0, IP_PROTO_ICMPV6, 255, "fe80::2", "fe80::1");
    fr_nd(f, ICMP6_NEIGHBOR_ADVERT, 0x60000000, "fe80::2",
          ND_OPT_TARGET_LINKADDR, mac2);
    fr_ip_end(f);
}

static void
build_hopopts_udp6(struct frame *f)
{
    fr_eth(f, ETH_TYPE_IPV6);
    fr_ipv6(f, 0, 0, IPV6_NEXT_HOPOPTS, 64, "2001:db8::1", "2001:db8::2");
    fr_u8(f, IP_PROTO_UDP);     /* Hop-by-hop: next header, length 0, */
    fr_u8(f, 0);
    fr_u8(f, 1);                /* and a PadN option of 4 bytes. */
    fr_u8(f, 4);
    fr_zeros(f, 4);
    fr_udp(f, 1234, 53, 8);
    fr_ip_end(f);
}

static void
build_first_fragment6(struct frame *f)
{
    fr_eth(f, ETH_TYPE_IPV6);
    fr_ipv6(f, 0, 0, IPV6_NEXT_FRAGMENT, 64, "2001:db8::1",
            "2001:db8::2");
    fr_u8(f, IP_PROTO_UDP);
    fr_u8(f, 0);
    fr_u16(f, IPV6_FRAG_MORE);
    fr_u32(f, 0xabcd);
    fr_udp(f, 1234, 53, 24);
    fr_ip_end(f);
}

static void
build_later_fragment6(struct frame *f)
{
    fr_eth(f, ETH_TYPE_IPV6);
    fr_ipv6(f, 0, 0, IPV6_NEXT_FRAGMENT, 64, "2001:db8::1",
            "2001:db8::2");
    fr_u8(f, IP_PROTO_ICMPV6);
    fr_u8(f, 0);
    fr_u16(f, 1448);            /* Offset 181 units, no more fragments. */
    fr_u32(f, 0xabcd);
    fr_zeros(f, 16);
    fr_ip_end(f);
}

static void
build_truncated_ipv4(struct frame *f)
{
    build_tcp_syn(f);
    f->size = ETH_HEADER_LEN + 10;
}

static void
build_truncated_tcp(struct frame *f)
{
    build_tcp_syn(f);
    f->size = ETH_HEADER_LEN + IP_HEADER_LEN + 10;
}

static void
build_ipv4_version_6(struct frame *f)
{
    build_tcp_syn(f);
    f->data[ETH_HEADER_LEN] = 0x65;
}

static void
build_truncated_ipv6(struct frame *f)
{
    build_tcp6(f);
    f->size = ETH_HEADER_LEN + IPV6_HEADER_LEN - 1;
}

struct flow_case {
    const char *name;
    void (*build)(struct frame *);
    const char *line;           /* What "ovs-ofctl parse-pcap" prints. */
};

static const struct flow_case flow_cases[] = {
    { "ethernet only", build_lldp,
      "vlan_tci=0x0000,dl_src=50:54:00:00:00:01,dl_dst=50:54:00:00:00:02,"
      "dl_type=0x88cc" },
    { "802.3 length field", build_8023,
      "vlan_tci=0x0000,dl_src=50:54:00:00:00:01,dl_dst=50:54:00:00:00:02,"
      "dl_type=0x05ff" },
    { "runt", build_runt,
      "vlan_tci=0x0000,dl_src=00:00:00:00:00:00,dl_dst=00:00:00:00:00:00,"
      "dl_type=0x0000" },
    { "vlan udp", build_vlan_udp,
      "udp,dl_vlan=100,dl_vlan_pcp=5,vlan_tci1=0x0000,"
      "dl_src=50:54:00:00:00:01,dl_dst=50:54:00:00:00:02,"
      "nw_src=10.0.0.1,nw_dst=10.0.0.2,nw_tos=0,nw_ecn=0,nw_ttl=64,"
      "nw_frag=no,tp_src=1234,tp_dst=53" },
    { "double-tagged tcp", build_qinq_tcp,
      "tcp,dl_vlan=10,dl_vlan_pcp=0,dl_vlan1=20,dl_vlan_pcp1=3,"
      "dl_src=50:54:00:00:00:01,dl_dst=50:54:00:00:00:02,"
      "nw_src=10.0.0.1,nw_dst=10.0.0.2,nw_tos=0,nw_ecn=0,nw_ttl=64,"
      "nw_frag=no,tp_src=1234,tp_dst=80,tcp_flags=ack" },
    { "vlan arp", build_vlan_arp,
      "arp,dl_vlan=4094,dl_vlan_pcp=0,vlan_tci1=0x0000,"
      "dl_src=50:54:00:00:00:01,dl_dst=ff:ff:ff:ff:ff:ff,"
      "arp_spa=10.0.0.1,arp_tpa=10.0.0.2,arp_op=1,"
      "arp_sha=50:54:00:00:00:01,arp_tha=00:00:00:00:00:00" },
    { "arp request", build_arp_request,
      "arp,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,"
      "dl_dst=ff:ff:ff:ff:ff:ff,arp_spa=10.0.0.1,arp_tpa=10.0.0.2,"
      "arp_op=1,arp_sha=50:54:00:00:00:01,arp_tha=00:00:00:00:00:00" },
    { "arp reply", build_arp_reply,
      "arp,vlan_tci=0x0000,dl_src=50:54:00:00:00:02,"
      "dl_dst=50:54:00:00:00:01,arp_spa=10.0.0.2,arp_tpa=10.0.0.1,"
      "arp_op=2,arp_sha=50:54:00:00:00:02,arp_tha=50:54:00:00:00:01" },
    { "tcp syn", build_tcp_syn,
      "tcp,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,"
      "dl_dst=50:54:00:00:00:02,nw_src=10.0.0.1,nw_dst=10.0.0.2,nw_tos=0,"
      "nw_ecn=0,nw_ttl=64,nw_frag=no,tp_src=1234,tp_dst=80,"
      "tcp_flags=syn" },
    { "tcp, ip options", build_tcp_options,
      "tcp,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,"
      "dl_dst=50:54:00:00:00:02,nw_src=10.0.0.1,nw_dst=10.0.0.2,"
      "nw_tos=16,nw_ecn=0,nw_ttl=128,nw_frag=no,tp_src=443,tp_dst=50000,"
      "tcp_flags=fin|psh|ack" },
    { "udp", build_udp,
      "udp,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,"
      "dl_dst=50:54:00:00:00:02,nw_src=10.0.0.1,nw_dst=10.0.0.2,"
      "nw_tos=184,nw_ecn=1,nw_ttl=3,nw_frag=no,tp_src=5353,tp_dst=5353" },
    { "sctp", build_sctp,
      "sctp,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,"
      "dl_dst=50:54:00:00:00:02,nw_src=10.0.0.1,nw_dst=10.0.0.2,nw_tos=0,"
      "nw_ecn=0,nw_ttl=64,nw_frag=no,tp_src=5000,tp_dst=5001" },
    { "icmp echo", build_icmp_echo,
      "icmp,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,"
      "dl_dst=50:54:00:00:00:02,nw_src=10.0.0.1,nw_dst=10.0.0.2,nw_tos=0,"
      "nw_ecn=0,nw_ttl=64,nw_frag=no,icmp_type=8,icmp_code=0" },
    { "first fragment", build_first_fragment,
      "udp,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,"
      "dl_dst=50:54:00:00:00:02,nw_src=10.0.0.1,nw_dst=10.0.0.2,nw_tos=0,"
      "nw_ecn=0,nw_ttl=64,nw_frag=first,tp_src=1234,tp_dst=53" },
    { "later fragment", build_later_fragment,
      "udp,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,"
      "dl_dst=50:54:00:00:00:02,nw_src=10.0.0.1,nw_dst=10.0.0.2,nw_tos=0,"
      "nw_ecn=0,nw_ttl=64,nw_frag=later" },
    { "other ip protocol", build_gre,
      "ip,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,"
      "dl_dst=50:54:00:00:00:02,nw_src=10.0.0.1,nw_dst=10.0.0.2,"
      "nw_proto=47,nw_tos=0,nw_ecn=0,nw_ttl=255,nw_frag=no" },
    { "tcp6", build_tcp6,
      "tcp6,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,"
      "dl_dst=50:54:00:00:00:02,ipv6_src=2001:db8::1,"
      "ipv6_dst=2001:db8::2,ipv6_label=0x12345,nw_tos=0,nw_ecn=0,"
      "nw_ttl=64,nw_frag=no,tp_src=1234,tp_dst=80,tcp_flags=syn|ack" },
    { "udp6", build_udp6,
      "udp6,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,"
      "dl_dst=50:54:00:00:00:02,ipv6_src=2001:db8::1,"
      "ipv6_dst=2001:db8::2,ipv6_label=0x00000,nw_tos=40,nw_ecn=2,"
      "nw_ttl=1,nw_frag=no,tp_src=546,tp_dst=547" },
    { "icmp6 echo", build_icmp6_echo,
      "icmp6,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,"
      "dl_dst=50:54:00:00:00:02,ipv6_src=2001:db8::1,"
      "ipv6_dst=2001:db8::2,ipv6_label=0x00000,nw_tos=0,nw_ecn=0,"
      "nw_ttl=64,nw_frag=no,icmp_type=128,icmp_code=0" },
    { "nd solicitation", build_nd_ns,
      "icmp6,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,"
      "dl_dst=33:33:ff:00:00:02,ipv6_src=fe80::1,ipv6_dst=ff02::1:ff00:2,"
      "ipv6_label=0x00000,nw_tos=0,nw_ecn=0,nw_ttl=255,nw_frag=no,"
      "icmp_type=135,icmp_code=0,nd_target=fe80::2,"
      "nd_sll=50:54:00:00:00:01,nd_tll=00:00:00:00:00:00" },
    { "nd advertisement", build_nd_na,
      "icmp6,vlan_tci=0x0000,dl_src=50:54:00:00:00:02,"
      "dl_dst=50:54:00:00:00:01,ipv6_src=fe80::2,ipv6_dst=fe80::1,"
      "ipv6_label=0x00000,nw_tos=0,nw_ecn=0,nw_ttl=255,nw_frag=no,"
      "icmp_type=136,icmp_code=0,nd_target=fe80::2,"
      "nd_sll=00:00:00:00:00:00,nd_tll=50:54:00:00:00:02" },
    { "hop-by-hop udp6", build_hopopts_udp6,
      "udp6,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,"
      "dl_dst=50:54:00:00:00:02,ipv6_src=2001:db8::1,"
      "ipv6_dst=2001:db8::2,ipv6_label=0x00000,nw_tos=0,nw_ecn=0,"
      "nw_ttl=64,nw_frag=no,tp_src=1234,tp_dst=53" },
    { "ipv6 first fragment", build_first_fragment6,
      "udp6,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,"
      "dl_dst=50:54:00:00:00:02,ipv6_src=2001:db8::1,"
      "ipv6_dst=2001:db8::2,ipv6_label=0x00000,nw_tos=0,nw_ecn=0,"
      "nw_ttl=64,nw_frag=first,tp_src=1234,tp_dst=53" },
    /* A later IPv6 fragment's protocol is the Fragment header's own, as
     * in OVS: what follows it is not a header. */
    { "ipv6 later fragment of icmp6", build_later_fragment6,
      "ipv6,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,"
      "dl_dst=50:54:00:00:00:02,ipv6_src=2001:db8::1,"
      "ipv6_dst=2001:db8::2,ipv6_label=0x00000,nw_proto=44,nw_tos=0,"
      "nw_ecn=0,nw_ttl=64,nw_frag=later" },

    /* Frames the parser cannot take apart: the fields it did not reach
     * read as zeros. */
    { "ipv4 header cut short", build_truncated_ipv4,
      "ip,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,"
      "dl_dst=50:54:00:00:00:02,nw_src=0.0.0.0,nw_dst=0.0.0.0,nw_proto=0,"
      "nw_tos=0,nw_ecn=0,nw_ttl=0,nw_frag=no" },
    { "tcp header cut short", build_truncated_tcp,
      "ip,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,"
      "dl_dst=50:54:00:00:00:02,nw_src=0.0.0.0,nw_dst=0.0.0.0,nw_proto=0,"
      "nw_tos=0,nw_ecn=0,nw_ttl=0,nw_frag=no" },
    /* OVS does not check the version nibble. */
    { "ipv4 version 6", build_ipv4_version_6,
      "tcp,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,"
      "dl_dst=50:54:00:00:00:02,nw_src=10.0.0.1,nw_dst=10.0.0.2,nw_tos=0,"
      "nw_ecn=0,nw_ttl=64,nw_frag=no,tp_src=1234,tp_dst=80,tcp_flags=syn" },
    { "ipv6 header cut short", build_truncated_ipv6,
      "ipv6,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,"
      "dl_dst=50:54:00:00:00:02,ipv6_src=::,ipv6_dst=::,"
      "ipv6_label=0x00000,nw_proto=0,nw_tos=0,nw_ecn=0,nw_ttl=0,"
      "nw_frag=no" },
};

/* Formats the flow of the 'size' bytes at 'data' into 'line' the way
 * pmdswitch-parse-pcap does. */
static void
flow_line(uint8_t *data, size_t size, uint16_t in_port, char *line,
          size_t line_size)
{
    struct netdev_flow_key key;
    struct dp_packet packet;
    struct flow flow;

    dp_packet_init(&packet, data, size, in_port);
    miniflow_extract(&packet, &key);
    miniflow_expand(&key.mf, &flow);
    flow_format_packet(&flow, line, line_size);
}

/* All the frames in one capture, read back and formatted. */
static void
test_flow_lines(void)
{
    struct image *img = xmalloc(sizeof *img);
    struct pcap_record rec;
    struct pcap_file *pf;
    size_t i;
    char *msg;
    int error;

    img_header(img, PCAP_MAGIC_NSEC, true, 2, 65535,
               PCAP_LINKTYPE_ETHERNET);
    for (i = 0; i < ARRAY_SIZE(flow_cases); i++) {
        struct frame f;

        flow_cases[i].build(&f);
        img_record(img, 1000 + i, 0, f.data, f.size, MAX(f.size, 60));
    }

    error = pcap_file_open_mem(img->data, img->size, &pf, &msg);
    CHECK(!error, "open: %s", msg);
    if (error) {
        free(msg);
        free(img);
        return;
    }
    for (i = 0; i < ARRAY_SIZE(flow_cases); i++) {
        char line[FLOW_FORMAT_BUFSIZE];

        error = pcap_file_read(pf, &rec, &msg);
        CHECK(!error, "record %zu: %s", i, msg);
        if (error) {
            free(msg);
            break;
        }
        flow_line(rec.data, rec.incl_len, 0, line, sizeof line);
        CHECK(!strcmp(line, flow_cases[i].line),
              "%s:\n  got  %s\n  want %s", flow_cases[i].name, line,
              flow_cases[i].line);
    }
    CHECK_INT(pcap_file_read(pf, &rec, NULL), PCAP_FILE_EOF);
    pcap_file_close(pf);
    free(img);
}

/* A port number appears after the shorthand; a short buffer truncates. */
static void
test_flow_format_packet(void)
{
    char line[FLOW_FORMAT_BUFSIZE];
    char small[12];
    struct frame f;

    build_tcp_syn(&f);
    flow_line(f.data, f.size, 7, line, sizeof line);
    CHECK_STR(line,
              "tcp,in_port=7,vlan_tci=0x0000,dl_src=50:54:00:00:00:01,"
              "dl_dst=50:54:00:00:00:02,nw_src=10.0.0.1,nw_dst=10.0.0.2,"
              "nw_tos=0,nw_ecn=0,nw_ttl=64,nw_frag=no,tp_src=1234,"
              "tp_dst=80,tcp_flags=syn");

    memset(small, 'x', sizeof small);
    flow_line(f.data, f.size, 7, small, sizeof small);
    CHECK_STR(small, "tcp,in_port");
    memset(small, 'x', sizeof small);
    flow_line(f.data, f.size, 7, small, 0);
    CHECK(small[0] == 'x', "zero-size buffer untouched");
}

int
main(void)
{
    static const struct check_test tests[] = {
        { "reader cases", test_reader_cases },
        { "open errors", test_open_errors },
        { "prefixes", test_prefixes },
        { "flow lines", test_flow_lines },
        { "flow_format_packet", test_flow_format_packet },
    };

    check_run_tests(tests, ARRAY_SIZE(tests));
    return check_finish("test-pcap-file");
}
