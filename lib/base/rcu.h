/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * RCU as pmdswitch uses it: liburcu's QSBR flavour, through wrappers that
 * also tell ThreadSanitizer what a grace period guarantees.
 *
 * liburcu is not built with ThreadSanitizer, so TSan cannot see that
 * synchronize_rcu() returns only after every reader has passed a
 * quiescent state, and it reports the writer's free() of an old snapshot
 * as racing with the readers' earlier loads.  Each reader therefore
 * "releases" a shared sync object just before it announces a quiescent
 * state (or goes offline, or unregisters), and the writer "acquires" it
 * once the grace period is over (after synchronize_rcu(), or at the start
 * of a call_rcu() callback): TSan then orders every read-side access
 * before the free, as RCU does.  Without TSan the annotations compile to
 * nothing and these are the plain liburcu calls.
 *
 * Pointers are published with rcu_publish() and read with rcu_read(),
 * C11 release and acquire, for the same reason: liburcu's
 * rcu_assign_pointer() and rcu_dereference() order memory in ways TSan
 * does not model.  Use these, never the liburcu calls they wrap, so that
 * the annotations cannot be forgotten in one place.
 */
#ifndef RCU_H
#define RCU_H 1

#include <urcu-qsbr.h>

#if defined(__SANITIZE_THREAD__)
#define RCU_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RCU_TSAN 1
#endif
#endif

#ifdef RCU_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);

/* The sync object (rcu.c): its address is what matters. */
extern char rcu_tsan_grace;

#define RCU_TSAN_RELEASE() __tsan_release(&rcu_tsan_grace)
#define RCU_TSAN_ACQUIRE() __tsan_acquire(&rcu_tsan_grace)
#else
#define RCU_TSAN_RELEASE() ((void) 0)
#define RCU_TSAN_ACQUIRE() ((void) 0)
#endif

/* Publishes 'VALUE' in the RCU-protected pointer 'PTR' (an lvalue): every
 * store that initialised *VALUE happens before a reader sees it.  Like
 * rcu_assign_pointer(), but with a C11 release store that ThreadSanitizer
 * understands (on x86 both are a plain store). */
#define rcu_publish(PTR, VALUE) \
    __atomic_store_n(&(PTR), (VALUE), __ATOMIC_RELEASE)

/* Reads the RCU-protected pointer 'PTR' (an lvalue), pairing with
 * rcu_publish(). */
#define rcu_read(PTR) __atomic_load_n(&(PTR), __ATOMIC_ACQUIRE)

/* A reader announces that it holds no RCU-protected pointer. */
static inline void
rcu_quiesce(void)
{
    RCU_TSAN_RELEASE();
    rcu_quiescent_state();
}

/* A reader stops reading for a while (its quiescent state lasts until
 * rcu_online()). */
static inline void
rcu_offline(void)
{
    RCU_TSAN_RELEASE();
    rcu_thread_offline();
}

static inline void
rcu_online(void)
{
    rcu_thread_online();
}

/* A reader thread is done with RCU. */
static inline void
rcu_unregister(void)
{
    RCU_TSAN_RELEASE();
    rcu_unregister_thread();
}

/* Waits for a grace period: every reader that may hold a pointer
 * published before the call has passed a quiescent state. */
static inline void
rcu_synchronize(void)
{
    synchronize_rcu();
    RCU_TSAN_ACQUIRE();
}

/* The first statement of every call_rcu() callback: it runs after a grace
 * period, like the code after rcu_synchronize(). */
static inline void
rcu_callback_begin(void)
{
    RCU_TSAN_ACQUIRE();
}

#endif /* rcu.h */
