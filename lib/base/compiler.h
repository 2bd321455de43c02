/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Compiler helpers used across the tree: branch hints, prefetch, forced
 * inlining, build-time assertions and cache-line alignment.
 */
#ifndef COMPILER_H
#define COMPILER_H 1

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#define ALWAYS_INLINE __attribute__((always_inline))
#define NO_INLINE __attribute__((noinline))
#define PRINTF_FORMAT(FMT, ARG1) __attribute__((format(printf, FMT, ARG1)))
#define NO_RETURN __attribute__((noreturn))
#define WARN_UNUSED_RESULT __attribute__((warn_unused_result))
#define OVS_UNUSED __attribute__((unused))

#define CACHE_LINE_SIZE 64
#define CACHE_ALIGNED __attribute__((aligned(CACHE_LINE_SIZE)))

#define PREFETCH(addr) __builtin_prefetch((addr), 0, 3)
#define PREFETCH_WRITE(addr) __builtin_prefetch((addr), 1, 3)

#define BUILD_ASSERT(EXPR) _Static_assert(EXPR, #EXPR)
#define BUILD_ASSERT_DECL(EXPR) _Static_assert(EXPR, #EXPR)

#endif /* compiler.h */
