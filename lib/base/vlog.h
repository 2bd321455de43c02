/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Logging with per-module levels.
 *
 * Each source file that logs names its module once, at file scope:
 *
 *     VLOG_DEFINE_THIS_MODULE(pipeline);
 *
 * and then logs with VLOG_ERR(), VLOG_WARN(), VLOG_INFO(), VLOG_DBG(), or
 * their rate-limited forms, which take a token bucket declared beside the
 * call:
 *
 *     static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 10);
 *     VLOG_WARN_RL(&rl, "%s: receive failed (%s)", name, strerror(error));
 *
 * A module has one level per destination (console = stderr, syslog, log
 * file); a message is written to each destination whose level is at least
 * as verbose as the message.  A disabled message costs one relaxed load:
 * its arguments are not evaluated.  The line written to the console and the
 * log file is
 *
 *     2026-11-29T22:30:00.123Z|00042|module|INFO|message
 *
 * (UTC time, per-process sequence number, module, level, text).
 *
 * Any thread may log.  PMD threads may only use the _RL forms: a message
 * takes a mutex and a write() syscall, which the hot path cannot afford
 * unbounded.  Levels and the log file are changed by the control thread.
 */
#ifndef VLOG_H
#define VLOG_H 1

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include "base/compiler.h"

/* Levels, from silent to most verbose.  A destination at level L logs
 * messages of level L and every level before it (except VLL_OFF). */
enum vlog_level {
    VLL_OFF,
    VLL_EMER,
    VLL_ERR,
    VLL_WARN,
    VLL_INFO,
    VLL_DBG,
    VLL_N_LEVELS
};

/* Where messages go. */
enum vlog_destination {
    VLF_CONSOLE,                /* stderr. */
    VLF_SYSLOG,                 /* syslog(3), facility daemon. */
    VLF_FILE,                   /* The file set by vlog_set_log_file(). */
    VLF_N_DESTINATIONS,
    VLF_ANY_DESTINATION = -1    /* Every destination, where accepted. */
};

/* Default levels of a newly registered module: console and file at INFO,
 * syslog off. */
#define VLOG_DEFAULT_CONSOLE_LEVEL VLL_INFO
#define VLOG_DEFAULT_SYSLOG_LEVEL VLL_OFF
#define VLOG_DEFAULT_FILE_LEVEL VLL_INFO

/* A log module.  Define one with VLOG_DEFINE_THIS_MODULE, never directly.
 * The levels are written by the control thread under the vlog mutex and
 * read by any thread with relaxed atomic loads. */
struct vlog_module {
    const char *name;                      /* As given to the macro. */
    int levels[VLF_N_DESTINATIONS];        /* enum vlog_level each. */
    int min_level;                         /* Most verbose level that some
                                            * active destination logs. */
    struct vlog_module *next;              /* Registry, sorted by name. */
};

#define VLOG_MODULE_INIT__(NAME)                                        \
    { (NAME),                                                           \
      { VLOG_DEFAULT_CONSOLE_LEVEL, VLOG_DEFAULT_SYSLOG_LEVEL,          \
        VLOG_DEFAULT_FILE_LEVEL },                                      \
      VLL_OFF, NULL }

/* Defines this file's log module 'MODULE' (a C identifier) and registers it
 * before main() runs, so that vlog_list() and vlog/set know it. */
#define VLOG_DEFINE_THIS_MODULE(MODULE)                                 \
    static struct vlog_module vlog_this_module =                        \
        VLOG_MODULE_INIT__(#MODULE);                                    \
    static void vlog_register_##MODULE##__(void)                        \
        __attribute__((constructor));                                   \
    static void                                                         \
    vlog_register_##MODULE##__(void)                                    \
    {                                                                   \
        vlog_register_module(&vlog_this_module);                        \
    }                                                                   \
    extern int vlog_module_decl__

/* A token bucket that limits how often one call site logs.  Declare it
 * 'static' beside the call with VLOG_RATE_LIMIT_INIT(RATE, BURST): up to
 * BURST messages at once, refilled at RATE messages per second.  Give each
 * cause of a message its own bucket, so that a flood of one cause cannot
 * silence the others.
 *
 * Safe to share between threads, and lock-free: taking a token is one
 * compare-and-swap loop on 'tat', counting a dropped message one atomic
 * add, so PMD threads may use it on the packet path. */
struct vlog_rate_limit {
    unsigned int rate;          /* Messages per second (>= 1). */
    unsigned int burst;         /* Bucket size, in messages (>= 1). */

    /* Any thread, atomically. */
    unsigned long long tat;     /* When the bucket is full again, in
                                 * microseconds (GCRA's "theoretical
                                 * arrival time"); 0 before the first
                                 * message. */
    unsigned int n_dropped;     /* Messages dropped since the last one
                                 * written. */
    long long first_dropped;    /* Time of the first of those, in msec. */
};

#define VLOG_RATE_LIMIT_INIT(RATE, BURST)                               \
    { .rate = (RATE), .burst = (BURST) }

/* Registers 'module'.  Called by VLOG_DEFINE_THIS_MODULE's constructor. */
void vlog_register_module(struct vlog_module *module);

/* Returns the module named 'name' (case-insensitive), or NULL. */
struct vlog_module *vlog_module_from_name(const char *name);

/* Level and destination names ("OFF", "EMER", "ERR", "WARN", "INFO", "DBG";
 * "console", "syslog", "file").  The _val functions match without regard to
 * case and return VLL_N_LEVELS or VLF_N_DESTINATIONS for an unknown name. */
const char *vlog_get_level_name(enum vlog_level);
enum vlog_level vlog_get_level_val(const char *name);
const char *vlog_get_destination_name(enum vlog_destination);
enum vlog_destination vlog_get_destination_val(const char *name);

/* True if a message of 'level' from 'module' would be written somewhere.
 * Any thread; one relaxed load. */
static inline bool
vlog_is_enabled(const struct vlog_module *module, enum vlog_level level)
{
    /* Pairs with the relaxed store in the level setters: a reader may see
     * an old level for a moment, which is harmless. */
    return level != VLL_OFF
           && (int) level <= __atomic_load_n(&module->min_level,
                                             __ATOMIC_RELAXED);
}

/* Returns the level of 'module' for 'destination'. */
enum vlog_level vlog_get_level(const struct vlog_module *module,
                               enum vlog_destination destination);

/* Sets the level of 'module' (NULL: every module, and the default for
 * modules registered later) for 'destination' (VLF_ANY_DESTINATION: all of
 * them) to 'level'.  Control thread. */
void vlog_set_levels(struct vlog_module *module,
                     enum vlog_destination destination,
                     enum vlog_level level);

/* Applies 'spec', a ':'-separated list of up to one module name, one
 * destination and one level in any order, for example "pipeline:dbg",
 * "pipeline:file:warn", "console:off" or "ANY:info".  A missing or "ANY"
 * module means every module, a missing or "ANY" destination every
 * destination, and a missing level DBG.  Returns NULL on success, or an
 * error message for the caller to free (nothing is changed then).  Control
 * thread. */
char *vlog_set_levels_from_string(const char *spec) WARN_UNUSED_RESULT;

/* Opens 'path' for appending (creating it if needed) and makes it the log
 * file, closing any previous one; NULL closes the log file.  Returns 0, or
 * a positive errno (the previous file stays in use then).  Control
 * thread. */
int vlog_set_log_file(const char *path);

/* Closes and reopens the log file, for log rotation.  Returns 0 (also when
 * there is no log file) or a positive errno. */
int vlog_reopen_log_file(void);

/* Returns a copy of the log file's name for the caller to free, or NULL if
 * there is none. */
char *vlog_get_log_file(void);

/* Returns the descriptor of the log file, or -1 if there is none.  For
 * writers that cannot take the vlog mutex, such as a crash handler: this
 * is one relaxed load, async-signal-safe.  Any thread. */
int vlog_get_log_fd(void);

/* Returns the module and level table in the layout of Open vSwitch's
 * "vlog/list", for the caller to free. */
char *vlog_list(void);

/* Calls 'cb' for each module, sorted by name, with its levels indexed by
 * enum vlog_destination. */
typedef void vlog_module_cb(const char *name, const enum vlog_level *levels,
                            void *aux);
void vlog_for_each_module(vlog_module_cb *cb, void *aux);

/* Number of EMER, ERR and WARN messages written so far (suppressed ones
 * are not counted). */
unsigned long long vlog_n_warnings(void);

/* Replaces the millisecond monotonic clock used by rate limiting (NULL
 * restores time_msec()).  For tests. */
void vlog_set_clock(long long (*now_msec)(void));

/* Writes a message.  Prefer the VLOG_* macros, which skip the formatting
 * when the level is disabled. */
void vlog(const struct vlog_module *, enum vlog_level, const char *format,
          ...) PRINTF_FORMAT(3, 4);
void vlog_valist(const struct vlog_module *, enum vlog_level,
                 const char *format, va_list) PRINTF_FORMAT(3, 0);

/* Writes a message unless 'rl' is exhausted, in which case the message is
 * counted and dropped; the next message written through 'rl' says how many
 * were dropped ("(N similar messages suppressed in the last S seconds)"). */
void vlog_rate_limit(const struct vlog_module *, enum vlog_level,
                     struct vlog_rate_limit *rl, const char *format, ...)
    PRINTF_FORMAT(4, 5);

/* Takes a token from 'rl' at time 'now_msec' (monotonic).  Returns true if
 * a message may be written, and then stores in '*n_dropped' how many
 * messages 'rl' dropped since the last one it let through and in
 * '*drop_msec' about how long ago the first of them was (0 if none);
 * returns false if the message is to be dropped, and counts it.  Every
 * dropped message is reported exactly once.  The messages let through in
 * any interval of D msec number at most BURST + RATE * D / 1000.  Any
 * thread; never blocks.  vlog_rate_limit() calls it; exposed for tests. */
bool vlog_rate_limit_take(struct vlog_rate_limit *rl, long long now_msec,
                          unsigned int *n_dropped, long long *drop_msec);

/* Logs at EMER and exits with status 1. */
NO_RETURN void vlog_fatal(const struct vlog_module *, const char *format,
                          ...) PRINTF_FORMAT(2, 3);

#define VLOG__(LEVEL, ...)                                              \
    do {                                                                \
        enum vlog_level vlog_level__ = (LEVEL);                         \
        if (vlog_is_enabled(&vlog_this_module, vlog_level__)) {         \
            vlog(&vlog_this_module, vlog_level__, __VA_ARGS__);         \
        }                                                               \
    } while (0)

#define VLOG_RL__(RL, LEVEL, ...)                                       \
    do {                                                                \
        enum vlog_level vlog_level__ = (LEVEL);                         \
        if (vlog_is_enabled(&vlog_this_module, vlog_level__)) {         \
            vlog_rate_limit(&vlog_this_module, vlog_level__, RL,        \
                            __VA_ARGS__);                               \
        }                                                               \
    } while (0)

#define VLOG_FATAL(...) vlog_fatal(&vlog_this_module, __VA_ARGS__)
#define VLOG_EMER(...) VLOG__(VLL_EMER, __VA_ARGS__)
#define VLOG_ERR(...) VLOG__(VLL_ERR, __VA_ARGS__)
#define VLOG_WARN(...) VLOG__(VLL_WARN, __VA_ARGS__)
#define VLOG_INFO(...) VLOG__(VLL_INFO, __VA_ARGS__)
#define VLOG_DBG(...) VLOG__(VLL_DBG, __VA_ARGS__)

#define VLOG_ERR_RL(RL, ...) VLOG_RL__(RL, VLL_ERR, __VA_ARGS__)
#define VLOG_WARN_RL(RL, ...) VLOG_RL__(RL, VLL_WARN, __VA_ARGS__)
#define VLOG_INFO_RL(RL, ...) VLOG_RL__(RL, VLL_INFO, __VA_ARGS__)
#define VLOG_DBG_RL(RL, ...) VLOG_RL__(RL, VLL_DBG, __VA_ARGS__)

/* True if this module logs 'LEVEL' anywhere; for skipping work that only
 * feeds a log message. */
#define VLOG_IS_ENABLED(LEVEL) vlog_is_enabled(&vlog_this_module, LEVEL)
#define VLOG_IS_DBG_ENABLED() VLOG_IS_ENABLED(VLL_DBG)

#endif /* vlog.h */
