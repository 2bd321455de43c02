# lib/control: the control plane: appctl server and commands, trace, config apply.
lib_libpmdswitch_a_SOURCES += \
	lib/control/appctl.h \
	lib/control/bond-appctl.c \
	lib/control/bridge-appctl.c \
	lib/control/capture-appctl.c \
	lib/control/config-apply.c \
	lib/control/config-apply.h \
	lib/control/coverage-appctl.c \
	lib/control/dp-appctl.c \
	lib/control/mirror-appctl.c \
	lib/control/metrics.c \
	lib/control/metrics.h \
	lib/control/netdev-dummy-appctl.c \
	lib/control/ofproto-appctl.c \
	lib/control/ofproto-trace.c \
	lib/control/port-check.c \
	lib/control/port-check.h \
	lib/control/service.c \
	lib/control/service.h \
	lib/control/time-appctl.c \
	lib/control/unixctl-client.c \
	lib/control/unixctl-private.h \
	lib/control/unixctl.c \
	lib/control/unixctl.h \
	lib/control/vlog-appctl.c
