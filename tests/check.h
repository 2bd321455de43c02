/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Check macros shared by the unit test programs (tests/test-*.c).  Each test
 * is a single program, so this header keeps its counters in static variables
 * and needs no library: include it once, assert with CHECK(), CHECK_INT()
 * and CHECK_STR(), optionally run named groups of checks with
 * check_run_tests(), and end main() with 'return check_finish("test-xxx");'.
 *
 * A failed check prints "file:line: check failed: COND: message" and the
 * program carries on, so one run reports every broken case.  A program
 * that runs the same checks in several settings names the current one
 * with check_set_context(); failure lines then read "file:line: [CONTEXT]
 * check failed: ...".  Only the first
 * CHECK_MAX_REPORTED failures are printed; later ones are still counted.
 * The counters are updated atomically, so checks may also run in threads.
 */
#ifndef TESTS_CHECK_H
#define TESTS_CHECK_H 1

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "base/compiler.h"

#define CHECK_MAX_REPORTED 100

static int check_n_passed__;
static int check_n_failed__;
static char check_context__[128];

/* Names the setting of the checks that follow, printf-style, for their
 * failure lines; "" names none.  Not for use while checks run in other
 * threads. */
static inline void PRINTF_FORMAT(1, 2)
check_set_context(const char *format, ...)
{
    va_list args;

    va_start(args, format);
    vsnprintf(check_context__, sizeof check_context__, format, args);
    va_end(args);
}

/* Returns the setting named by the last check_set_context(), or "". */
static inline const char *
check_context(void)
{
    return check_context__;
}

/* Counts one check at 'file':'line' whose condition text is 'cond'.  For a
 * pass, returns false.  For a failure that is still to be printed, prints
 * the "file:line: check failed: COND: " prefix and returns true, with errno
 * as it was: the caller then prints the message and a new-line.  Announces
 * once that further failures go unprinted, and returns false for them. */
static inline bool
check_count__(bool ok, const char *file, int line, const char *cond)
{
    int n_failed;

    if (ok) {
        __atomic_fetch_add(&check_n_passed__, 1, __ATOMIC_RELAXED);
        return false;
    }
    n_failed = __atomic_fetch_add(&check_n_failed__, 1, __ATOMIC_RELAXED);
    if (n_failed < CHECK_MAX_REPORTED) {
        /* The message may quote strerror(errno), which printf() can
         * clobber (glibc sets ENOTTY when stdout is not a terminal). */
        int error = errno;

        printf("%s:%d: %s%s%scheck failed: %s: ", file, line,
               check_context__[0] ? "[" : "", check_context__,
               check_context__[0] ? "] " : "", cond);
        errno = error;
        return true;
    }
    if (n_failed == CHECK_MAX_REPORTED) {
        printf("%s:%d: more than %d checks failed; printing no more\n",
               file, line, CHECK_MAX_REPORTED);
    }
    return false;
}

/* Checks that 'COND' holds.  On failure prints the printf-style message in
 * the remaining arguments, which are evaluated only then (so they may use
 * what 'COND' has shown to be invalid only on success). */
#define CHECK(COND, ...)                                                \
    CHECK_AT(__FILE__, __LINE__, COND, __VA_ARGS__)

/* Like CHECK(), for a helper that reports at its caller's
 * 'FILE_NAME':'LINE'. */
#define CHECK_AT(FILE_NAME, LINE, COND, ...)                            \
    do {                                                                \
        if (check_count__(!!(COND), FILE_NAME, LINE, #COND)) {          \
            printf(__VA_ARGS__);                                        \
            putchar('\n');                                              \
        }                                                               \
    } while (0)

/* Checks that integers 'a' and 'b' are equal.  'cond' is the comparison's
 * source text and 'a_text' the source text of 'a'. */
static inline void
check_int_at__(long long a, long long b, const char *cond,
               const char *a_text, const char *file, int line)
{
    if (check_count__(a == b, file, line, cond)) {
        printf("%s is %lld, expected %lld\n", a_text, a, b);
    }
}

/* Checks that integer expressions 'A' and 'B' are equal after conversion
 * to long long.  Each is evaluated exactly once. */
#define CHECK_INT(A, B)                                                 \
    check_int_at__((long long) (A), (long long) (B), #A " == " #B, #A,   \
                   __FILE__, __LINE__)

/* Checks that strings 'a' and 'b' are equal or both NULL.  'cond' is the
 * comparison's source text and 'a_text' the source text of 'a'. */
static inline void
check_str_at__(const char *a, const char *b, const char *cond,
               const char *a_text, const char *file, int line)
{
    bool ok = a && b ? !strcmp(a, b) : a == b;

    if (check_count__(ok, file, line, cond)) {
        printf("%s is \"%s\", expected \"%s\"\n", a_text,
               a ? a : "(null)", b ? b : "(null)");
    }
}

/* Checks that strings 'A' and 'B' are equal or both NULL.  Each is
 * evaluated exactly once. */
#define CHECK_STR(A, B)                                                 \
    check_str_at__(A, B, #A " == " #B, #A, __FILE__, __LINE__)

/* Returns the number of failed checks so far, so that a test runner can
 * tell which of its cases failed. */
static inline int
check_n_failed(void)
{
    return __atomic_load_n(&check_n_failed__, __ATOMIC_RELAXED);
}

/* A named group of checks, for check_run_tests(). */
struct check_test {
    const char *name;           /* Printed when one of its checks fails. */
    void (*run)(void);          /* Runs the checks. */
};

/* Runs the 'n_tests' tests in 'tests' in order, printing "test NAME:
 * FAILED" after each one in which some check failed. */
static inline void
check_run_tests(const struct check_test *tests, size_t n_tests)
{
    for (size_t i = 0; i < n_tests; i++) {
        int before = check_n_failed();

        tests[i].run();
        if (check_n_failed() != before) {
            printf("test %s: FAILED\n", tests[i].name);
        }
    }
}

/* Prints the closing line "'program': N passed, M failed" and returns the
 * exit status for main(): 0 if no check failed, otherwise 1. */
static inline int
check_finish(const char *program)
{
    int n_passed = __atomic_load_n(&check_n_passed__, __ATOMIC_RELAXED);
    int n_failed = check_n_failed();

    printf("%s: %d passed, %d failed\n", program, n_passed, n_failed);
    fflush(stdout);
    return n_failed ? 1 : 0;
}

#endif /* tests/check.h */
