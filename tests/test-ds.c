/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for the text builders: the growing string and the bounded append,
 * including the edges (empty strings, exact fits, truncation, appending
 * to a full buffer).
 */
#include <autoconf.h>
#include "base/ds.h"

#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "base/util.h"

static void
test_growing(void)
{
    struct ds ds = DS_EMPTY_INITIALIZER;
    char *s;

    CHECK_STR(ds_cstr(&ds), "");
    ds_put_format(&ds, "%s", "");
    CHECK_INT(ds.length, 0);
    ds_put_format(&ds, "port %d: %s", 3, "p3");
    ds_put_format(&ds, ", %s", "up");
    CHECK_STR(ds_cstr(&ds), "port 3: p3, up");
    CHECK_INT(ds.length, strlen("port 3: p3, up"));

    /* Many appends: the string grows past any first allocation. */
    for (int i = 0; i < 1000; i++) {
        ds_put_format(&ds, "%c", 'a' + i % 26);
    }
    CHECK_INT(ds.length, strlen("port 3: p3, up") + 1000);
    CHECK_INT(strlen(ds_cstr(&ds)), ds.length);

    s = ds_steal_cstr(&ds);
    CHECK(!strncmp(s, "port 3: p3, upabc", 17), "stolen text: %.17s", s);
    CHECK(!ds.string && !ds.length, "stealing leaves the string empty");
    free(s);

    /* Stealing an empty string gives "", to be freed like any other. */
    s = ds_steal_cstr(&ds);
    CHECK_STR(s, "");
    free(s);

    ds_put_format(&ds, "x");
    ds_destroy(&ds);
    CHECK(!ds.string && !ds.length, "destroy leaves the string empty");
    ds_destroy(&ds);
}

static void
test_bounded(void)
{
    char buf[8];
    size_t len = 0;

    buf[0] = '\0';
    ds_put_bounded(buf, sizeof buf, &len, "%s", "abc");
    CHECK_STR(buf, "abc");
    CHECK_INT(len, 3);

    /* Exactly fills the buffer: 7 characters and the NUL. */
    ds_put_bounded(buf, sizeof buf, &len, "%d", 1234);
    CHECK_STR(buf, "abc1234");
    CHECK_INT(len, 7);

    /* Full: nothing more goes in, and the string stays terminated. */
    ds_put_bounded(buf, sizeof buf, &len, "%s", "zzz");
    CHECK_STR(buf, "abc1234");
    CHECK_INT(len, 7);

    /* Cut in the middle. */
    len = 0;
    ds_put_bounded(buf, sizeof buf, &len, "%s", "0123456789");
    CHECK_STR(buf, "0123456");
    CHECK_INT(len, 7);

    /* An empty piece changes nothing. */
    len = 2;
    buf[2] = '\0';
    ds_put_bounded(buf, sizeof buf, &len, "%s", "");
    CHECK_STR(buf, "01");
    CHECK_INT(len, 2);

    /* A one-byte buffer holds only the NUL. */
    {
        char one[1] = { 'q' };
        size_t n = 0;

        one[0] = '\0';
        ds_put_bounded(one, sizeof one, &n, "%s", "abc");
        CHECK_INT(n, 0);
        CHECK_INT(one[0], '\0');
    }
}

int
main(void)
{
    static const struct check_test tests[] = {
        { "growing", test_growing },
        { "bounded", test_bounded },
    };

    check_run_tests(tests, ARRAY_SIZE(tests));
    return check_finish("test-ds");
}
