/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Logging with per-module levels: the module registry, level parsing, the
 * token-bucket rate limiter and the writers for stderr, the log file and
 * syslog.  One mutex ('vlog_mutex') serialises every write, so lines from
 * different threads never interleave and sequence numbers follow the order
 * of the lines in each destination.
 */
#include <autoconf.h>
#include "base/vlog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include "base/util.h"

/* Guards everything below, and every module's 'levels' and 'min_level'
 * against concurrent writers. */
static pthread_mutex_t vlog_mutex = PTHREAD_MUTEX_INITIALIZER;

/* Registered modules, sorted by name. */
static struct vlog_module *vlog_modules;

/* Levels given to modules registered from now on. */
static int default_levels[VLF_N_DESTINATIONS] = {
    VLOG_DEFAULT_CONSOLE_LEVEL,
    VLOG_DEFAULT_SYSLOG_LEVEL,
    VLOG_DEFAULT_FILE_LEVEL,
};

static int log_fd = -1;             /* The log file, or -1. */
static char *log_file_name;         /* Its name, or NULL. */
static bool syslog_opened;          /* openlog() has been called. */
static unsigned int msg_seq;        /* Sequence number of the last line. */

/* Messages of level WARN and more severe written so far.  Incremented under
 * 'vlog_mutex', read with a relaxed load by vlog_n_warnings(). */
static unsigned long long n_warnings;

/* Clock for rate limiting; replaceable by tests. */
static long long (*vlog_clock)(void) = time_msec;

static const char *const level_names[VLL_N_LEVELS] = {
    [VLL_OFF] = "OFF",
    [VLL_EMER] = "EMER",
    [VLL_ERR] = "ERR",
    [VLL_WARN] = "WARN",
    [VLL_INFO] = "INFO",
    [VLL_DBG] = "DBG",
};

/* EMER maps to LOG_ALERT rather than LOG_EMERG: the latter is broadcast to
 * every terminal, which is out of proportion for one daemon's troubles. */
static const int syslog_priorities[VLL_N_LEVELS] = {
    [VLL_OFF] = LOG_DEBUG,
    [VLL_EMER] = LOG_ALERT,
    [VLL_ERR] = LOG_ERR,
    [VLL_WARN] = LOG_WARNING,
    [VLL_INFO] = LOG_INFO,
    [VLL_DBG] = LOG_DEBUG,
};

static const char *const destination_names[VLF_N_DESTINATIONS] = {
    [VLF_CONSOLE] = "console",
    [VLF_SYSLOG] = "syslog",
    [VLF_FILE] = "file",
};

const char *
vlog_get_level_name(enum vlog_level level)
{
    return level < VLL_N_LEVELS ? level_names[level] : "?";
}

enum vlog_level
vlog_get_level_val(const char *name)
{
    for (int i = 0; i < VLL_N_LEVELS; i++) {
        if (!strcasecmp(name, level_names[i])) {
            return i;
        }
    }
    return VLL_N_LEVELS;
}

const char *
vlog_get_destination_name(enum vlog_destination destination)
{
    return (destination >= 0 && destination < VLF_N_DESTINATIONS
            ? destination_names[destination] : "?");
}

enum vlog_destination
vlog_get_destination_val(const char *name)
{
    for (int i = 0; i < VLF_N_DESTINATIONS; i++) {
        if (!strcasecmp(name, destination_names[i])) {
            return i;
        }
    }
    return VLF_N_DESTINATIONS;
}

/* True if messages sent to 'destination' can go anywhere at all. */
static bool
destination_active__(enum vlog_destination destination)
{
    return destination != VLF_FILE || log_fd >= 0;
}

/* Recomputes 'module->min_level'.  Caller holds 'vlog_mutex'. */
static void
update_min_level__(struct vlog_module *module)
{
    int min_level = VLL_OFF;

    for (int d = 0; d < VLF_N_DESTINATIONS; d++) {
        if (destination_active__(d)) {
            min_level = MAX(min_level, module->levels[d]);
        }
    }
    /* Pairs with the relaxed load in vlog_is_enabled(). */
    __atomic_store_n(&module->min_level, min_level, __ATOMIC_RELAXED);
}

static void
update_all_min_levels__(void)
{
    for (struct vlog_module *m = vlog_modules; m; m = m->next) {
        update_min_level__(m);
    }
}

void
vlog_register_module(struct vlog_module *module)
{
    struct vlog_module **p;

    pthread_mutex_lock(&vlog_mutex);
    for (int d = 0; d < VLF_N_DESTINATIONS; d++) {
        __atomic_store_n(&module->levels[d], default_levels[d],
                         __ATOMIC_RELAXED);
    }
    update_min_level__(module);
    for (p = &vlog_modules; *p; p = &(*p)->next) {
        if (strcasecmp((*p)->name, module->name) > 0) {
            break;
        }
    }
    module->next = *p;
    *p = module;
    pthread_mutex_unlock(&vlog_mutex);
}

struct vlog_module *
vlog_module_from_name(const char *name)
{
    struct vlog_module *m;

    pthread_mutex_lock(&vlog_mutex);
    for (m = vlog_modules; m; m = m->next) {
        if (!strcasecmp(m->name, name)) {
            break;
        }
    }
    pthread_mutex_unlock(&vlog_mutex);
    return m;
}

enum vlog_level
vlog_get_level(const struct vlog_module *module,
               enum vlog_destination destination)
{
    ovs_assert(destination >= 0 && destination < VLF_N_DESTINATIONS);
    return __atomic_load_n(&module->levels[destination], __ATOMIC_RELAXED);
}

/* Sets the levels of 'module' for 'destination' (or all).  Caller holds
 * 'vlog_mutex'. */
static void
set_module_levels__(struct vlog_module *module,
                    enum vlog_destination destination, enum vlog_level level)
{
    for (int d = 0; d < VLF_N_DESTINATIONS; d++) {
        if (destination == VLF_ANY_DESTINATION || destination == d) {
            /* Pairs with the relaxed load in vlog_get_level() and in the
             * writers. */
            __atomic_store_n(&module->levels[d], level, __ATOMIC_RELAXED);
        }
    }
    update_min_level__(module);
}

/* Applies 'level' to every module named 'name' (every module if 'name' is
 * NULL, and then to the defaults too).  Caller holds 'vlog_mutex'. */
static void
set_levels_by_name__(const char *name, enum vlog_destination destination,
                     enum vlog_level level)
{
    if (!name) {
        for (int d = 0; d < VLF_N_DESTINATIONS; d++) {
            if (destination == VLF_ANY_DESTINATION || destination == d) {
                default_levels[d] = level;
            }
        }
    }
    for (struct vlog_module *m = vlog_modules; m; m = m->next) {
        if (!name || !strcasecmp(m->name, name)) {
            set_module_levels__(m, destination, level);
        }
    }
}

void
vlog_set_levels(struct vlog_module *module, enum vlog_destination destination,
                enum vlog_level level)
{
    ovs_assert(level < VLL_N_LEVELS);
    ovs_assert(destination >= VLF_ANY_DESTINATION
               && destination < VLF_N_DESTINATIONS);

    pthread_mutex_lock(&vlog_mutex);
    if (module) {
        set_module_levels__(module, destination, level);
    } else {
        set_levels_by_name__(NULL, destination, level);
    }
    pthread_mutex_unlock(&vlog_mutex);
}

/* True if some registered module is named 'name'.  Caller holds
 * 'vlog_mutex'. */
static bool
module_exists__(const char *name)
{
    for (struct vlog_module *m = vlog_modules; m; m = m->next) {
        if (!strcasecmp(m->name, name)) {
            return true;
        }
    }
    return false;
}

/* Classifies one word of a level specification into '*module',
 * '*destination' or '*level'.  Returns NULL or an error message.  Caller
 * holds 'vlog_mutex'. */
static char *
parse_level_word__(const char *word, const char *spec, const char **module,
                   int *destination, int *level)
{
    enum vlog_destination d;
    enum vlog_level l;

    if (!*word) {
        return xasprintf("\"%s\": empty word in log level specification",
                         spec);
    }
    if (!strcasecmp(word, "ANY")) {
        return NULL;
    }
    d = vlog_get_destination_val(word);
    if (d != VLF_N_DESTINATIONS) {
        if (*destination != VLF_ANY_DESTINATION) {
            return xasprintf("\"%s\": more than one destination", spec);
        }
        *destination = d;
        return NULL;
    }
    l = vlog_get_level_val(word);
    if (l != VLL_N_LEVELS) {
        if (*level != VLL_N_LEVELS) {
            return xasprintf("\"%s\": more than one level", spec);
        }
        *level = l;
        return NULL;
    }
    if (module_exists__(word)) {
        if (*module) {
            return xasprintf("\"%s\": more than one module", spec);
        }
        *module = word;
        return NULL;
    }
    return xasprintf("\"%s\": \"%s\" is not a known module, destination "
                     "(console, syslog, file) or level (off, emer, err, "
                     "warn, info, dbg)", spec, word);
}

/* Returns 'word' without leading and trailing blanks, which it strips in
 * place. */
static char *
trim_blanks__(char *word)
{
    size_t len;

    word += strspn(word, " \t");
    len = strlen(word);
    while (len > 0 && (word[len - 1] == ' ' || word[len - 1] == '\t')) {
        word[--len] = '\0';
    }
    return word;
}

char *
vlog_set_levels_from_string(const char *spec)
{
    int destination = VLF_ANY_DESTINATION;
    int level = VLL_N_LEVELS;
    const char *module = NULL;
    char *copy, *word, *save;
    char *error = NULL;

    if (!spec || !spec[strspn(spec, " \t")]) {
        return xstrdup("empty log level specification");
    }

    copy = xstrdup(spec);
    pthread_mutex_lock(&vlog_mutex);
    word = copy;
    for (;;) {
        char *colon = strchr(word, ':');

        save = colon ? colon + 1 : NULL;
        if (colon) {
            *colon = '\0';
        }
        word = trim_blanks__(word);
        error = parse_level_word__(word, spec, &module, &destination, &level);
        if (error || !save) {
            break;
        }
        word = save;
    }
    if (!error) {
        set_levels_by_name__(module, destination,
                             level == VLL_N_LEVELS ? VLL_DBG : level);
    }
    pthread_mutex_unlock(&vlog_mutex);
    free(copy);
    return error;
}

/* Opens 'path' as a log file.  Returns the fd or a negative errno. */
static int
open_log_file__(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
    return fd >= 0 ? fd : -errno;
}

/* Makes 'fd' (or -1) and 'name' (owned) the log file.  Caller holds
 * 'vlog_mutex'. */
static void
replace_log_file__(int fd, char *name)
{
    if (log_fd >= 0) {
        close(log_fd);
    }
    free(log_file_name);
    /* Pairs with the relaxed load in vlog_get_log_fd(). */
    __atomic_store_n(&log_fd, fd, __ATOMIC_RELAXED);
    log_file_name = name;
    update_all_min_levels__();
}

int
vlog_set_log_file(const char *path)
{
    int fd = -1;

    if (path) {
        fd = open_log_file__(path);
        if (fd < 0) {
            return -fd;
        }
    }
    pthread_mutex_lock(&vlog_mutex);
    replace_log_file__(fd, path ? xstrdup(path) : NULL);
    pthread_mutex_unlock(&vlog_mutex);
    return 0;
}

int
vlog_reopen_log_file(void)
{
    char *name = vlog_get_log_file();
    int error;

    error = name ? vlog_set_log_file(name) : 0;
    free(name);
    return error;
}

char *
vlog_get_log_file(void)
{
    char *name;

    pthread_mutex_lock(&vlog_mutex);
    name = log_file_name ? xstrdup(log_file_name) : NULL;
    pthread_mutex_unlock(&vlog_mutex);
    return name;
}

char *
vlog_list(void)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *s = open_memstream(&buf, &size);

    if (!s) {
        ovs_fatal(0, "virtual memory exhausted");
    }
    fputs("                 console    syslog    file\n"
          "                 -------    ------    ------\n", s);
    pthread_mutex_lock(&vlog_mutex);
    for (struct vlog_module *m = vlog_modules; m; m = m->next) {
        fprintf(s, "%-16s  %4s       %4s       %4s\n", m->name,
                level_names[m->levels[VLF_CONSOLE]],
                level_names[m->levels[VLF_SYSLOG]],
                level_names[m->levels[VLF_FILE]]);
    }
    pthread_mutex_unlock(&vlog_mutex);
    if (fclose(s)) {
        ovs_fatal(0, "virtual memory exhausted");
    }
    return buf;
}

int
vlog_get_log_fd(void)
{
    /* Pairs with the store in replace_log_file__(); a crash handler may see
     * the old descriptor for a moment, which at worst loses its lines. */
    return __atomic_load_n(&log_fd, __ATOMIC_RELAXED);
}

void
vlog_for_each_module(vlog_module_cb *cb, void *aux)
{
    pthread_mutex_lock(&vlog_mutex);
    for (struct vlog_module *m = vlog_modules; m; m = m->next) {
        enum vlog_level levels[VLF_N_DESTINATIONS];

        for (int d = 0; d < VLF_N_DESTINATIONS; d++) {
            levels[d] = m->levels[d];
        }
        cb(m->name, levels, aux);
    }
    pthread_mutex_unlock(&vlog_mutex);
}

unsigned long long
vlog_n_warnings(void)
{
    /* Pairs with the increment under 'vlog_mutex' in emit__(). */
    return __atomic_load_n(&n_warnings, __ATOMIC_RELAXED);
}

void
vlog_set_clock(long long (*now_msec)(void))
{
    /* Pairs with the relaxed load in vlog_rate_limit(): a test sets it
     * while other threads may log. */
    __atomic_store_n(&vlog_clock, now_msec ? now_msec : time_msec,
                     __ATOMIC_RELAXED);
}

/* Formats the current UTC time as "2026-11-29T22:30:00.123Z" into 'buf'. */
static void
format_timestamp__(char *buf, size_t size)
{
    struct timespec ts;
    struct tm tm;
    size_t n;

    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    n = strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + n, size - n, ".%03ldZ", ts.tv_nsec / 1000000);
}

/* True if 'module' sends 'level' to 'destination' now.  Caller holds
 * 'vlog_mutex'. */
static bool
goes_to__(const struct vlog_module *module, enum vlog_level level,
          enum vlog_destination destination)
{
    return (destination_active__(destination)
            && (int) level <= module->levels[destination]);
}

/* Writes the formatted 'message' of 'level' from 'module' to every
 * destination that wants it. */
static void
emit__(const struct vlog_module *module, enum vlog_level level,
       const char *message)
{
    bool to_console, to_file, to_syslog;
    char stack[1024], timestamp[40];
    size_t size;
    char *line;
    int prefix_len;

    pthread_mutex_lock(&vlog_mutex);
    to_console = goes_to__(module, level, VLF_CONSOLE);
    to_file = goes_to__(module, level, VLF_FILE);
    to_syslog = goes_to__(module, level, VLF_SYSLOG);
    if (!to_console && !to_file && !to_syslog) {
        /* The level changed since the caller checked. */
        pthread_mutex_unlock(&vlog_mutex);
        return;
    }

    msg_seq++;
    if (level <= VLL_WARN) {
        n_warnings++;
    }
    format_timestamp__(timestamp, sizeof timestamp);
    size = strlen(timestamp) + strlen(module->name) + strlen(message) + 32;
    line = size <= sizeof stack ? stack : xmalloc(size);
    prefix_len = snprintf(line, size, "%s|", timestamp);
    size = prefix_len + snprintf(line + prefix_len, size - prefix_len,
                                 "%05u|%s|%s|%s\n", msg_seq, module->name,
                                 level_names[level], message);
    if (to_console) {
        write_fully(STDERR_FILENO, line, size);
    }
    if (to_file) {
        write_fully(log_fd, line, size);
    }
    if (to_syslog) {
        if (!syslog_opened) {
            openlog(NULL, LOG_PID | LOG_NDELAY, LOG_DAEMON);
            syslog_opened = true;
        }
        /* Syslog adds its own time stamp; drop ours and the newline. */
        syslog(syslog_priorities[level], "%.*s", (int) (size - prefix_len - 1),
               line + prefix_len);
    }
    pthread_mutex_unlock(&vlog_mutex);

    if (line != stack) {
        free(line);
    }
}

/* Formats 'format' and 'args' into 'stack' of 'size' bytes if it fits,
 * otherwise into a new heap buffer.  Returns the buffer. */
static char *format_message__(char *stack, size_t size, const char *format,
                              va_list args) PRINTF_FORMAT(3, 0);

static char *
format_message__(char *stack, size_t size, const char *format, va_list args)
{
    va_list copy;
    int n;

    va_copy(copy, args);
    n = vsnprintf(stack, size, format, copy);
    va_end(copy);
    if (n < 0) {
        snprintf(stack, size, "(unformattable message \"%s\")", format);
        return stack;
    }
    if ((size_t) n < size) {
        return stack;
    }

    char *heap = xmalloc(n + 1);
    vsnprintf(heap, n + 1, format, args);
    return heap;
}

void
vlog_valist(const struct vlog_module *module, enum vlog_level level,
            const char *format, va_list args)
{
    char stack[1024];
    char *message;

    if (!vlog_is_enabled(module, level)) {
        return;
    }
    message = format_message__(stack, sizeof stack, format, args);
    emit__(module, level, message);
    if (message != stack) {
        free(message);
    }
}

void
vlog(const struct vlog_module *module, enum vlog_level level,
     const char *format, ...)
{
    va_list args;

    va_start(args, format);
    vlog_valist(module, level, format, args);
    va_end(args);
}

/* The rate limiter is GCRA, the "virtual scheduling" form of a token
 * bucket: one word, 'tat', says when the bucket will be full again.  A
 * message at time 'now' may go if 'tat' is at most (burst - 1) periods
 * ahead of 'now', and then pushes 'tat' one period further.  One word of
 * state is what makes the limiter lock-free: a compare-and-swap moves it,
 * and a thread that loses the race retries with the winner's value. */
bool
vlog_rate_limit_take(struct vlog_rate_limit *rl, long long now_msec,
                     unsigned int *n_dropped, long long *drop_msec)
{
    unsigned long long rate = MAX(rl->rate, 1);
    unsigned long long burst = MAX(rl->burst, 1);
    /* A period rounded up, so that the rate is never exceeded. */
    unsigned long long period = (1000000 + rate - 1) / rate;
    unsigned long long tolerance = (burst - 1) * period;
    unsigned long long now = (unsigned long long) MAX(now_msec, 0) * 1000;
    unsigned long long tat, next;

    /* Relaxed is enough: 'tat' orders nothing but itself, and the
     * compare-and-swap makes each update build on the one before. */
    tat = __atomic_load_n(&rl->tat, __ATOMIC_RELAXED);
    do {
        unsigned long long start = MAX(tat, now);

        if (start - now > tolerance) {
            /* Dropped.  The first drop since the last message written
             * stamps the time.  A message written at that same moment
             * may read the stamp of the period before or after: that
             * skews only its "in the last N seconds", never the count. */
            if (!__atomic_fetch_add(&rl->n_dropped, 1, __ATOMIC_RELAXED)) {
                __atomic_store_n(&rl->first_dropped, now_msec,
                                 __ATOMIC_RELAXED);
            }
            return false;
        }
        next = start + period;
    } while (!__atomic_compare_exchange_n(&rl->tat, &tat, next, true,
                                          __ATOMIC_RELAXED,
                                          __ATOMIC_RELAXED));

    /* Takes every drop counted so far, so each is reported once. */
    *n_dropped = __atomic_exchange_n(&rl->n_dropped, 0, __ATOMIC_RELAXED);
    *drop_msec = (*n_dropped
                  ? MAX(0, now_msec - __atomic_load_n(&rl->first_dropped,
                                                      __ATOMIC_RELAXED))
                  : 0);
    return true;
}

void
vlog_rate_limit(const struct vlog_module *module, enum vlog_level level,
                struct vlog_rate_limit *rl, const char *format, ...)
{
    unsigned int n_dropped;
    long long drop_msec;
    char stack[1024];
    char *message;
    va_list args;

    if (!vlog_is_enabled(module, level)
        || !vlog_rate_limit_take(rl,
                                 __atomic_load_n(&vlog_clock,
                                                 __ATOMIC_RELAXED)(),
                                 &n_dropped, &drop_msec)) {
        return;
    }

    va_start(args, format);
    message = format_message__(stack, sizeof stack, format, args);
    va_end(args);
    if (n_dropped) {
        long long secs = MAX(1, (drop_msec + 999) / 1000);
        char *full = xasprintf("%s (%u similar message%s suppressed in the "
                               "last %lld second%s)", message, n_dropped,
                               n_dropped == 1 ? "" : "s", secs,
                               secs == 1 ? "" : "s");

        if (message != stack) {
            free(message);
        }
        message = full;
    }
    emit__(module, level, message);
    if (message != stack) {
        free(message);
    }
}

void
vlog_fatal(const struct vlog_module *module, const char *format, ...)
{
    va_list args;

    va_start(args, format);
    if (vlog_get_level(module, VLF_CONSOLE) >= VLL_EMER) {
        vlog_valist(module, VLL_EMER, format, args);
    } else {
        va_list copy;

        /* The reason for exiting must reach the user somewhere. */
        va_copy(copy, args);
        vlog_valist(module, VLL_EMER, format, copy);
        va_end(copy);
        vfprintf(stderr, format, args);
        fputc('\n', stderr);
    }
    va_end(args);
    exit(EXIT_FAILURE);
}
