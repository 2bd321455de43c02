/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Growing strings and bounded appends (see ds.h).
 */
#include <autoconf.h>
#include "base/ds.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/util.h"

void
ds_put_format(struct ds *ds, const char *format, ...)
{
    va_list args;
    char *more;
    size_t n;

    va_start(args, format);
    more = xvasprintf(format, args);
    va_end(args);
    n = strlen(more);
    ds->string = xrealloc(ds->string, ds->length + n + 1);
    memcpy(ds->string + ds->length, more, n + 1);
    ds->length += n;
    free(more);
}

const char *
ds_cstr(const struct ds *ds)
{
    return ds->string ? ds->string : "";
}

char *
ds_steal_cstr(struct ds *ds)
{
    char *s = ds->string ? ds->string : xstrdup("");

    ds->string = NULL;
    ds->length = 0;
    return s;
}

void
ds_destroy(struct ds *ds)
{
    free(ds->string);
    ds->string = NULL;
    ds->length = 0;
}

void
ds_put_bounded(char *buf, size_t size, size_t *len, const char *format, ...)
{
    va_list args;
    int n;

    if (*len + 1 >= size) {
        return;
    }
    va_start(args, format);
    n = vsnprintf(buf + *len, size - *len, format, args);
    va_end(args);
    if (n > 0) {
        *len = MIN(*len + n, size - 1);
    }
}
