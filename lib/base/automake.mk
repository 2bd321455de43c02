# lib/base: the base layer: helpers every layer may use (nothing below it).
lib_libpmdswitch_a_SOURCES += \
	lib/base/atomic-file.c \
	lib/base/atomic-file.h \
	lib/base/backtrace.c \
	lib/base/backtrace.h \
	lib/base/byte-ring.c \
	lib/base/byte-ring.h \
	lib/base/compiler.h \
	lib/base/coverage.c \
	lib/base/coverage.h \
	lib/base/daemon-monitor.c \
	lib/base/daemon-monitor.h \
	lib/base/ds.c \
	lib/base/ds.h \
	lib/base/lockfile.c \
	lib/base/lockfile.h \
	lib/base/pidfile.c \
	lib/base/pidfile.h \
	lib/base/rcu.c \
	lib/base/rcu.h \
	lib/base/util.c \
	lib/base/util.h \
	lib/base/vlog.c \
	lib/base/vlog.h
