/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for vlog: module registration and listing, level specifications
 * (valid and invalid), the line format in the log file, level filtering,
 * the warning count, rate limiting against a test clock and under
 * contention from several threads, log file reopening and whole lines
 * under concurrent logging.
 *
 * The console is switched off first so that the test's own output stays
 * readable; everything is checked through the log file.  The vlog/list and
 * vlog/set commands are run, as text and as JSON, through a real appctl
 * server that runs in its own thread on a socket in a temporary
 * directory.
 */
#include <autoconf.h>
#include "control/appctl.h"
#include "base/vlog.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "control/unixctl.h"
#include "unixctl-test.h"
#include "base/util.h"

VLOG_DEFINE_THIS_MODULE(test_vlog);

static char log_path[] = "/tmp/test-vlog-XXXXXX";

/* Returns the contents of the log file for the caller to free. */
static char *
read_log(void)
{
    FILE *file = fopen(log_path, "r");
    size_t size = 0, allocated = 4096;
    char *text = xmalloc(allocated);

    if (file) {
        size_t n;

        while ((n = fread(text + size, 1, allocated - size - 1, file)) > 0) {
            size += n;
            if (allocated - size < 2) {
                allocated *= 2;
                text = xrealloc(text, allocated);
            }
        }
        fclose(file);
    }
    text[size] = '\0';
    return text;
}

/* Empties the log file. */
static void
clear_log(void)
{
    CHECK(truncate(log_path, 0) == 0, "truncate: %s", strerror(errno));
}

/* Checks that 'line' (without newline) has the form
 * "YYYY-MM-DDTHH:MM:SS.mmmZ|NNNNN|module|LEVEL|text" and, if so, stores
 * the sequence number in '*seq' and returns a pointer to "module|...". */
static const char *
parse_line(const char *line, unsigned int *seq)
{
    static const char pattern[] = "dddd-dd-ddTdd:dd:dd.dddZ|";
    const char *p = line;

    for (size_t i = 0; i < sizeof pattern - 1; i++, p++) {
        bool ok = (pattern[i] == 'd' ? isdigit((unsigned char) *p)
                   : *p == pattern[i]);
        if (!ok) {
            return NULL;
        }
    }
    for (int i = 0; i < 5; i++) {
        if (!isdigit((unsigned char) p[i])) {
            return NULL;
        }
    }
    *seq = strtoul(p, NULL, 10);
    p += strspn(p, "0123456789");
    return *p == '|' ? p + 1 : NULL;
}

/* Checks that the log holds exactly the lines 'expected' (each "module|
 * LEVEL|text"), well formed and with consecutive sequence numbers. */
static void
check_log__(const char *file, int line, const char *const *expected,
            size_t n_expected)
{
    char *text = read_log();
    char *save = NULL;
    unsigned int prev_seq = 0;
    size_t n = 0;

    for (char *l = strtok_r(text, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save), n++) {
        unsigned int seq;
        const char *rest = parse_line(l, &seq);

        CHECK_AT(file, line, rest != NULL, "malformed log line: %s", l);
        if (!rest) {
            continue;
        }
        CHECK_AT(file, line, n >= n_expected || !strcmp(rest, expected[n]),
                 "log line %zu is \"%s\", expected \"%s\"", n, rest,
                 n < n_expected ? expected[n] : "");
        CHECK_AT(file, line, !n || seq == prev_seq + 1,
                 "sequence %u after %u", seq, prev_seq);
        prev_seq = seq;
    }
    CHECK_AT(file, line, n == n_expected, "log has %zu lines, expected %zu",
             n, n_expected);
    free(text);
    clear_log();
}

#define CHECK_LOG(...)                                                  \
    do {                                                                \
        static const char *const expected__[] = { __VA_ARGS__ };        \
        check_log__(__FILE__, __LINE__, expected__,                     \
                    ARRAY_SIZE(expected__));                            \
    } while (0)
#define CHECK_LOG_EMPTY() check_log__(__FILE__, __LINE__, NULL, 0)

static void
set_levels(const char *spec)
{
    char *error = vlog_set_levels_from_string(spec);

    CHECK(!error, "\"%s\": %s", spec, error);
    free(error);
}

static void
test_registration(void)
{
    struct vlog_module *m = vlog_module_from_name("test_vlog");
    char *list;

    CHECK(m != NULL, "module test_vlog is not registered");
    CHECK(vlog_module_from_name("TEST_VLOG") == m, "lookup ignores case");
    CHECK(!vlog_module_from_name("nope"), "unknown module found");

    list = vlog_list();
    CHECK(!strncmp(list, "                 console    syslog    file\n"
                   "                 -------    ------    ------\n", 88),
          "vlog_list header:\n%s", list);
    CHECK(strstr(list, "\ntest_vlog         INFO        OFF       INFO\n")
          != NULL, "vlog_list row:\n%s", list);
    free(list);
}

struct level_case {
    const char *spec;
    const char *error;          /* NULL: valid. */
    enum vlog_level console, syslog, file;  /* Of test_vlog, afterwards. */
};

static const struct level_case level_cases[] = {
    { "test_vlog:file:dbg", NULL, VLL_INFO, VLL_OFF, VLL_DBG },
    { "ANY:warn", NULL, VLL_WARN, VLL_WARN, VLL_WARN },
    { "TEST_VLOG:Console:ERR", NULL, VLL_ERR, VLL_WARN, VLL_WARN },
    { "syslog:off", NULL, VLL_ERR, VLL_OFF, VLL_WARN },
    { "test_vlog", NULL, VLL_DBG, VLL_DBG, VLL_DBG },
    { " info : test_vlog ", NULL, VLL_INFO, VLL_INFO, VLL_INFO },
    { "emer:any:any", NULL, VLL_EMER, VLL_EMER, VLL_EMER },
    { "", "empty log level specification" },
    { "  ", "empty log level specification" },
    { "nope:dbg", "\"nope:dbg\": \"nope\" is not a known module, destination "
      "(console, syslog, file) or level (off, emer, err, warn, info, dbg)" },
    { "test_vlog:loud", "\"test_vlog:loud\": \"loud\" is not a known "
      "module, destination (console, syslog, file) or level (off, emer, "
      "err, warn, info, dbg)" },
    { "test_vlog:dbg:info", "\"test_vlog:dbg:info\": more than one level" },
    { "console:file:dbg", "\"console:file:dbg\": more than one "
      "destination" },
    { "test_vlog:test_vlog", "\"test_vlog:test_vlog\": more than one "
      "module" },
    { "test_vlog:", "\"test_vlog:\": empty word in log level "
      "specification" },
    { "test_vlog:file dbg", "\"test_vlog:file dbg\": \"file dbg\" is not a "
      "known module, destination (console, syslog, file) or level (off, "
      "emer, err, warn, info, dbg)" },
};

static void
test_levels(void)
{
    struct vlog_module *m = vlog_module_from_name("test_vlog");
    enum vlog_level console = VLL_INFO, syslog = VLL_OFF, file = VLL_INFO;

    vlog_set_levels(NULL, VLF_ANY_DESTINATION, VLL_INFO);
    vlog_set_levels(NULL, VLF_SYSLOG, VLL_OFF);
    for (size_t i = 0; i < ARRAY_SIZE(level_cases); i++) {
        const struct level_case *c = &level_cases[i];
        char *error = vlog_set_levels_from_string(c->spec);

        if (c->error) {
            CHECK(error && !strcmp(error, c->error),
                  "\"%s\":\n    got      %s\n    expected %s", c->spec,
                  error ? error : "(success)", c->error);
        } else {
            CHECK(!error, "\"%s\": %s", c->spec, error);
            console = c->console;
            syslog = c->syslog;
            file = c->file;
        }
        /* A failed specification changes nothing. */
        CHECK(vlog_get_level(m, VLF_CONSOLE) == console
              && vlog_get_level(m, VLF_SYSLOG) == syslog
              && vlog_get_level(m, VLF_FILE) == file,
              "after \"%s\": levels %s %s %s, expected %s %s %s", c->spec,
              vlog_get_level_name(vlog_get_level(m, VLF_CONSOLE)),
              vlog_get_level_name(vlog_get_level(m, VLF_SYSLOG)),
              vlog_get_level_name(vlog_get_level(m, VLF_FILE)),
              vlog_get_level_name(console), vlog_get_level_name(syslog),
              vlog_get_level_name(file));
        free(error);
    }

    CHECK_INT(vlog_get_level_val("Warn"), VLL_WARN);
    CHECK_INT(vlog_get_level_val("warning"), VLL_N_LEVELS);
    CHECK_INT(vlog_get_destination_val("FILE"), VLF_FILE);
    CHECK_INT(vlog_get_destination_val("stderr"), VLF_N_DESTINATIONS);
}

static int n_evaluated;

static int
evaluated(void)
{
    return ++n_evaluated;
}

static void
test_log_file(void)
{
    unsigned long long n_warn;
    char *name;
    int error;

    set_levels("ANY:info");
    set_levels("console:off");
    set_levels("syslog:off");
    CHECK(!VLOG_IS_ENABLED(VLL_DBG), "DBG enabled");

    error = vlog_set_log_file("/nonexistent-dir/x.log");
    CHECK_INT(error, ENOENT);
    name = vlog_get_log_file();
    CHECK(!strcmp(name, log_path), "log file changed after a failure");
    free(name);

    n_warn = vlog_n_warnings();
    VLOG_INFO("hello %d", 42);
    VLOG_DBG("not written %d", evaluated());
    VLOG_WARN("careful");
    VLOG_ERR("broken: %s", "yes");
    CHECK_LOG("test_vlog|INFO|hello 42", "test_vlog|WARN|careful",
              "test_vlog|ERR|broken: yes");
    CHECK_INT(n_evaluated, 0);
    CHECK_INT(vlog_n_warnings() - n_warn, 2);

    /* The file's level filters; the count only counts what was written. */
    set_levels("file:err");
    n_warn = vlog_n_warnings();
    VLOG_INFO("no");
    VLOG_WARN("no");
    VLOG_ERR("yes");
    CHECK_LOG("test_vlog|ERR|yes");
    CHECK_INT(vlog_n_warnings() - n_warn, 1);

    set_levels("file:dbg");
    VLOG_DBG("debug %d", evaluated());
    CHECK_INT(n_evaluated, 1);
    CHECK_LOG("test_vlog|DBG|debug 1");

    /* Long messages are written whole. */
    {
        char big[5000];

        memset(big, 'x', sizeof big - 1);
        big[sizeof big - 1] = '\0';
        VLOG_INFO("%s", big);
        name = read_log();
        CHECK(strlen(name) > sizeof big && strstr(name, big),
              "long message cut");
        free(name);
        clear_log();
    }

    /* Reopening after a rotation starts a new file. */
    {
        char *rotated = xasprintf("%s.1", log_path);

        CHECK(rename(log_path, rotated) == 0, "rename: %s", strerror(errno));
        CHECK_INT(vlog_reopen_log_file(), 0);
        VLOG_INFO("after rotation");
        CHECK_LOG("test_vlog|INFO|after rotation");
        unlink(rotated);
        free(rotated);
    }
}

static long long fake_now;

static long long
fake_clock(void)
{
    return fake_now;
}

static void
test_rate_limit(void)
{
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 3);
    static struct vlog_rate_limit off_rl = VLOG_RATE_LIMIT_INIT(1, 1);

    set_levels("file:info");
    vlog_set_clock(fake_clock);
    fake_now = 1000;

    /* A burst of 3 passes, the rest is counted. */
    for (int i = 0; i < 10; i++) {
        VLOG_WARN_RL(&rl, "burst %d", i);
    }
    CHECK_LOG("test_vlog|WARN|burst 0", "test_vlog|WARN|burst 1",
              "test_vlog|WARN|burst 2");

    /* 2 seconds refill 2 tokens; the first message reports the drops. */
    fake_now = 3000;
    for (int i = 0; i < 3; i++) {
        VLOG_WARN_RL(&rl, "later %d", i);
    }
    CHECK_LOG("test_vlog|WARN|later 0 (7 similar messages suppressed in "
              "the last 2 seconds)", "test_vlog|WARN|later 1");

    /* Half a token is not enough. */
    fake_now = 3500;
    VLOG_WARN_RL(&rl, "half");
    CHECK_LOG_EMPTY();
    fake_now = 4000;
    VLOG_INFO_RL(&rl, "one");
    CHECK_LOG("test_vlog|INFO|one (2 similar messages suppressed in the "
              "last 1 second)");

    /* A long pause refills to the burst size, no more. */
    fake_now = 1000000000;
    for (int i = 0; i < 5; i++) {
        VLOG_ERR_RL(&rl, "again %d", i);
    }
    CHECK_LOG("test_vlog|ERR|again 0", "test_vlog|ERR|again 1",
              "test_vlog|ERR|again 2");

    /* A disabled level takes no token. */
    set_levels("file:off");
    VLOG_WARN_RL(&off_rl, "disabled");
    set_levels("file:info");
    VLOG_WARN_RL(&off_rl, "enabled");
    CHECK_LOG("test_vlog|WARN|enabled");

    vlog_set_clock(NULL);
}

/* Several threads take tokens from one bucket at once. */
#define RL_THREADS 4
#define RL_ATTEMPTS 100000

struct rl_hammer {
    struct vlog_rate_limit *rl;
    bool fixed_time;            /* All at 'fake_now', else the real clock. */
    pthread_barrier_t *start;
    unsigned long long emitted;   /* Tokens taken. */
    unsigned long long reported;  /* Drops reported by those messages. */
};

static void *
rl_hammer_thread(void *h_)
{
    struct rl_hammer *h = h_;

    pthread_barrier_wait(h->start);
    for (int i = 0; i < RL_ATTEMPTS; i++) {
        long long now = h->fixed_time ? fake_now : time_msec();
        unsigned int n_dropped;
        long long drop_msec;

        if (vlog_rate_limit_take(h->rl, now, &n_dropped, &drop_msec)) {
            h->emitted++;
            h->reported += n_dropped;
        }
    }
    return NULL;
}

/* Runs RL_THREADS threads of RL_ATTEMPTS attempts each on 'rl'.  Returns
 * the tokens taken, the drops reported by the messages let through plus
 * the ones a last message reports (so every attempt is accounted for) in
 * '*dropped', and the run's length in '*msec'. */
static unsigned long long
rl_hammer(struct vlog_rate_limit *rl, bool fixed_time,
          unsigned long long *dropped, long long *msec)
{
    struct rl_hammer h[RL_THREADS];
    pthread_t threads[RL_THREADS];
    pthread_barrier_t start;
    unsigned long long emitted = 0;
    unsigned int n_last;
    long long drop_msec, begin;

    pthread_barrier_init(&start, NULL, RL_THREADS + 1);
    for (int i = 0; i < RL_THREADS; i++) {
        h[i] = (struct rl_hammer) { .rl = rl, .fixed_time = fixed_time,
                                    .start = &start };
        pthread_create(&threads[i], NULL, rl_hammer_thread, &h[i]);
    }
    begin = time_msec();
    pthread_barrier_wait(&start);
    *dropped = 0;
    for (int i = 0; i < RL_THREADS; i++) {
        pthread_join(threads[i], NULL);
        emitted += h[i].emitted;
        *dropped += h[i].reported;
    }
    *msec = time_msec() - begin;
    pthread_barrier_destroy(&start);

    /* Much later the bucket is full, and the message reports the rest. */
    CHECK(vlog_rate_limit_take(rl, time_msec() + 1000000000LL, &n_last,
                               &drop_msec), "no token after a long pause");
    *dropped += n_last;
    return emitted;
}

/* The limiter under contention: at one instant exactly 'burst' messages
 * pass; on the real clock at most burst + rate * elapsed; and in both,
 * every attempt is either let through or reported as dropped, once. */
static void
test_rate_limit_threads(void)
{
    static struct vlog_rate_limit fixed_rl = VLOG_RATE_LIMIT_INIT(1, 20);
    static struct vlog_rate_limit real_rl = VLOG_RATE_LIMIT_INIT(1000, 50);
    unsigned long long attempts = (unsigned long long) RL_THREADS
                                  * RL_ATTEMPTS;
    unsigned long long emitted, dropped;
    long long msec;

    fake_now = 5000;
    emitted = rl_hammer(&fixed_rl, true, &dropped, &msec);
    CHECK_INT(emitted, 20);
    CHECK_INT(emitted + dropped, attempts);

    emitted = rl_hammer(&real_rl, false, &dropped, &msec);
    /* 'msec' spans every attempt, so it bounds the time between the
     * first and the last token taken; +1 for the clock's granularity. */
    CHECK(emitted >= 50 && emitted <= 50 + 1000 * (msec + 1) / 1000,
          "%llu messages in %lld ms at 1000/s, burst 50", emitted, msec);
    CHECK_INT(emitted + dropped, attempts);
}

#define N_THREADS 4
#define N_PER_THREAD 500

static void *
log_thread(void *arg)
{
    int id = (int) (intptr_t) arg;

    for (int i = 0; i < N_PER_THREAD; i++) {
        VLOG_INFO("thread %d line %d", id, i);
    }
    return NULL;
}

/* Lines from several threads must come out whole, each exactly once, with
 * strictly increasing sequence numbers. */
static void
test_threads(void)
{
    pthread_t threads[N_THREADS];
    int counts[N_THREADS] = { 0 };
    unsigned int prev_seq = 0;
    char *text, *save = NULL;
    size_t n = 0;

    for (int i = 0; i < N_THREADS; i++) {
        pthread_create(&threads[i], NULL, log_thread, (void *) (intptr_t) i);
    }
    for (int i = 0; i < N_THREADS; i++) {
        pthread_join(threads[i], NULL);
    }

    text = read_log();
    for (char *l = strtok_r(text, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save), n++) {
        unsigned int seq;
        const char *rest = parse_line(l, &seq);
        int id, idx;

        if (!rest || sscanf(rest, "test_vlog|INFO|thread %d line %d", &id,
                            &idx) != 2 || id < 0 || id >= N_THREADS) {
            CHECK(false, "malformed line: %s", l);
            continue;
        }
        CHECK(idx == counts[id], "thread %d: line %d after %d", id, idx,
              counts[id] - 1);
        counts[id] = idx + 1;
        CHECK(!n || seq == prev_seq + 1, "sequence %u after %u", seq,
              prev_seq);
        prev_seq = seq;
    }
    CHECK_INT(n, N_THREADS * N_PER_THREAD);
    free(text);
    clear_log();
}

static void
count_module(const char *name, const enum vlog_level *levels, void *aux)
{
    if (!strcmp(name, "test_vlog")) {
        int *found = aux;

        *found += 1;
        CHECK_INT(levels[VLF_CONSOLE], VLL_OFF);
        CHECK_INT(levels[VLF_FILE], VLL_INFO);
    }
}

static void
test_for_each(void)
{
    int found = 0;

    vlog_for_each_module(count_module, &found);
    CHECK_INT(found, 1);
}

static struct unixctl_test_server appctl_server;

/* Runs 'method' with 'arg' (NULL: no argument) on the test server, as JSON
 * if 'json'.  Stores the result and error in '*result' and '*error' for
 * the caller to free. */
static void
appctl(const char *method, const char *arg, bool json, char **result,
       char **error)
{
    int err = unixctl_client_transact(appctl_server.path, method,
                                      arg ? 1 : 0, &arg, json, 10, result,
                                      error);

    CHECK(!err, "%s: %s", method, strerror(err));
}

/* Runs 'method' with 'arg' as JSON and returns the decoded result, or NULL
 * after failing a check. */
static json_t *
appctl_json(const char *method, const char *arg)
{
    char *result, *error;
    json_t *json = NULL;

    appctl(method, arg, true, &result, &error);
    CHECK(result && !error, "%s %s: error %s", method, arg ? arg : "",
          error);
    if (result) {
        json = json_loads(result, JSON_DECODE_ANY, NULL);
        CHECK(json, "%s: not JSON: %s", method, result);
    }
    free(result);
    free(error);
    return json;
}

/* Checks that 'levels' is {"console": C, "syslog": S, "file": F} with the
 * level names of 'module' now, in lower case. */
static void
check_levels_json(const json_t *levels, const char *module)
{
    struct vlog_module *m = vlog_module_from_name(module);

    CHECK(json_is_object(levels) && json_object_size(levels) == 3,
          "%s: levels not an object of 3 members", module);
    for (int d = 0; m && d < VLF_N_DESTINATIONS; d++) {
        const char *name = vlog_get_destination_name(d);
        const char *got = json_string_value(json_object_get(levels, name));
        char want[16];

        snprintf(want, sizeof want, "%s",
                 vlog_get_level_name(vlog_get_level(m, d)));
        for (char *p = want; *p; p++) {
            *p = tolower((unsigned char) *p);
        }
        CHECK(got && !strcmp(got, want), "%s %s: %s, expected %s", module,
              name, got ? got : "(missing)", want);
    }
}

static void
count_modules(const char *name OVS_UNUSED,
              const enum vlog_level *levels OVS_UNUSED, void *n_)
{
    size_t *n = n_;

    (*n)++;
}

/* Counts, in '*n', the modules whose file level is not DBG. */
static void
count_file_not_dbg(const char *name OVS_UNUSED, const enum vlog_level *levels,
                   void *n_)
{
    size_t *n = n_;

    *n += levels[VLF_FILE] != VLL_DBG;
}

/* vlog/set cases, run in order as text and as JSON. */
static const struct set_case {
    const char *spec;
    const char *error;          /* NULL: valid. */
    const char *json;           /* Expected JSON result, if valid. */
} set_cases[] = {
    { "test_vlog:syslog:err", NULL,
      "{\"test_vlog\": {\"console\": \"off\", \"syslog\": \"err\", "
      "\"file\": \"info\"}}" },
    { "test_vlog:syslog:err", NULL, "{}" },
    { "TEST_VLOG:file:Warn", NULL,
      "{\"test_vlog\": {\"console\": \"off\", \"syslog\": \"err\", "
      "\"file\": \"warn\"}}" },
    { "syslog:off:test_vlog", NULL,
      "{\"test_vlog\": {\"console\": \"off\", \"syslog\": \"off\", "
      "\"file\": \"warn\"}}" },
    { "file:info", NULL,
      "{\"test_vlog\": {\"console\": \"off\", \"syslog\": \"off\", "
      "\"file\": \"info\"}}" },
    { "nope:dbg", "\"nope:dbg\": \"nope\" is not a known module, "
      "destination (console, syslog, file) or level (off, emer, err, warn, "
      "info, dbg)" },
    { "test_vlog:dbg:info", "\"test_vlog:dbg:info\": more than one level" },
    { "", "empty log level specification" },
};

static void
test_appctl_set(bool json)
{
    struct vlog_module *m = vlog_module_from_name("test_vlog");

    for (size_t i = 0; i < ARRAY_SIZE(set_cases); i++) {
        const struct set_case *c = &set_cases[i];
        char *result, *error;

        check_set_context("vlog/set %s (%s)", c->spec,
                          json ? "json" : "text");
        appctl("vlog/set", c->spec, json, &result, &error);
        if (c->error) {
            CHECK_STR(result, NULL);
            CHECK_STR(error, c->error);
        } else if (!json) {
            CHECK_STR(result, "");
            CHECK_STR(error, NULL);
        } else {
            json_t *got = result ? json_loads(result, 0, NULL) : NULL;
            json_t *want = json_loads(c->json, 0, NULL);

            CHECK_STR(error, NULL);
            CHECK(json_equal(got, want), "result %s, expected %s", result,
                  c->json);
            json_decref(got);
            json_decref(want);
        }
        free(result);
        free(error);
    }
    check_set_context("%s", "");

    /* Back to where the cases started; a failed spec changed nothing. */
    CHECK_INT(vlog_get_level(m, VLF_CONSOLE), VLL_OFF);
    CHECK_INT(vlog_get_level(m, VLF_FILE), VLL_INFO);
    CHECK_INT(vlog_get_level(m, VLF_SYSLOG), VLL_OFF);
}

static void
test_appctl(void)
{
    char *result, *error, *text;
    json_t *json, *levels;
    const char *name;
    size_t n = 0, n_not_dbg = 0;
    bool ok;

    ok = unixctl_test_server_start(&appctl_server, NULL);
    CHECK(ok, "%s", appctl_server.error);
    if (!ok) {
        return;
    }
    vlog_register_commands();

    /* vlog/list: the same text as vlog_list(), and every module with its
     * three levels as JSON. */
    appctl("vlog/list", NULL, false, &result, &error);
    text = vlog_list();
    CHECK_STR(result, text);
    CHECK_STR(error, NULL);
    free(text);
    free(result);
    free(error);

    json = appctl_json("vlog/list", NULL);
    vlog_for_each_module(count_modules, &n);
    CHECK(json_is_object(json) && json_object_size(json) == n,
          "vlog/list JSON: not an object of %zu modules", n);
    CHECK(json_object_get(json, "test_vlog"), "vlog/list JSON: no test_vlog");
    json_object_foreach (json, name, levels) {
        check_levels_json(levels, name);
    }
    json_decref(json);
    CHECK_INT(vlog_get_level(vlog_module_from_name("test_vlog"), VLF_CONSOLE),
              VLL_OFF);

    /* vlog/set. */
    test_appctl_set(false);
    test_appctl_set(true);

    /* Several specifications: applied in turn up to the first error. */
    {
        const char *args[] = { "test_vlog:file:err", "loud" };
        struct vlog_module *m = vlog_module_from_name("test_vlog");

        CHECK(!unixctl_client_transact(appctl_server.path, "vlog/set", 2,
                                       args, true, 10, &result, &error),
              "vlog/set two specs");
        CHECK_STR(result, NULL);
        CHECK_STR(error, "\"loud\": \"loud\" is not a known module, "
                  "destination (console, syslog, file) or level (off, emer, "
                  "err, warn, info, dbg)");
        CHECK_INT(vlog_get_level(m, VLF_FILE), VLL_ERR);
        free(result);
        free(error);
        set_levels("test_vlog:file:info");
    }

    /* ANY: each module whose level changed, once. */
    vlog_for_each_module(count_file_not_dbg, &n_not_dbg);
    json = appctl_json("vlog/set", "ANY:file:dbg");
    CHECK(json_is_object(json) && json_object_size(json) == n_not_dbg,
          "vlog/set ANY:file:dbg: not an object of %zu modules", n_not_dbg);
    json_object_foreach (json, name, levels) {
        check_levels_json(levels, name);
    }
    json_decref(json);
    set_levels("ANY:file:info");

    /* vlog/reopen after a rotation: the next message goes to a new file of
     * the same name, not to the moved one. */
    {
        char *rotated = xasprintf("%s.1", log_path);

        CHECK(rename(log_path, rotated) == 0, "rename: %s", strerror(errno));
        appctl("vlog/reopen", NULL, false, &result, &error);
        CHECK_STR(error, NULL);
        CHECK_STR(result, "");
        free(result);
        free(error);
        CHECK(access(log_path, F_OK) == 0, "vlog/reopen: no new %s",
              log_path);
        VLOG_INFO("after vlog/reopen");
        CHECK_LOG("test_vlog|INFO|after vlog/reopen");
        unlink(rotated);
        free(rotated);
    }

    /* Misuse. */
    appctl("vlog/set", NULL, true, &result, &error);
    CHECK_STR(error, "\"vlog/set\" command requires at least 1 arguments");
    CHECK_STR(result, NULL);
    free(result);
    free(error);
    appctl("vlog/list", "x", false, &result, &error);
    CHECK_STR(error, "\"vlog/list\" command takes at most 0 arguments");
    free(result);
    free(error);

    unixctl_test_server_stop(&appctl_server);
}

int
main(void)
{
    int fd = mkstemp(log_path);

    if (fd < 0) {
        printf("mkstemp: %s\n", strerror(errno));
        return 1;
    }
    close(fd);

    test_registration();
    test_levels();
    CHECK_INT(vlog_set_log_file(log_path), 0);
    test_log_file();
    test_rate_limit();
    test_rate_limit_threads();
    test_threads();
    test_for_each();
    signal(SIGPIPE, SIG_IGN);
    test_appctl();

    CHECK_INT(vlog_set_log_file(NULL), 0);
    CHECK(!vlog_get_log_file(), "log file still set");
    CHECK(!VLOG_IS_ENABLED(VLL_INFO), "INFO enabled with nowhere to go");
    unlink(log_path);

    return check_finish("test-vlog");
}
