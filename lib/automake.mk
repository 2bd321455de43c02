noinst_LIBRARIES += lib/libpmdswitch.a
lib_libpmdswitch_a_SOURCES = \
	lib/backtrace.c lib/backtrace.h \
	lib/bond.c lib/bond.h \
	lib/bond-commands.c \
	lib/compiler.h \
	lib/config.c lib/config.h \
	lib/config-check.c lib/config-check.h \
	lib/config-apply.c lib/config-apply.h \
	lib/config-diff.c lib/config-diff.h \
	lib/config-other.c lib/config-other.h \
	lib/coverage.c lib/coverage.h \
	lib/daemon-monitor.c lib/daemon-monitor.h \
	lib/dp.c lib/dp.h \
	lib/dp-commands.c \
	lib/dp-link.c \
	lib/dp-port.c \
	lib/dp-private.h \
	lib/dp-batch.h \
	lib/dp-packet.c lib/dp-packet.h \
	lib/ds.c lib/ds.h \
	lib/dpcls.c lib/dpcls.h \
	lib/emc.c lib/emc.h \
	lib/flow.c lib/flow.h \
	lib/flow-format.c lib/flow-format.h \
	lib/hash.c lib/hash.h \
	lib/json-pos.c lib/json-pos.h \
	lib/link-monitor.c lib/link-monitor.h \
	lib/mac-learning.c lib/mac-learning.h \
	lib/match-parse.c lib/match-parse.h \
	lib/miniflow.c lib/miniflow.h \
	lib/netdev.c lib/netdev.h lib/netdev-provider.h \
	lib/netdev-linux.c \
	lib/netdev-mmsg-rx.c lib/netdev-mmsg-rx.h \
	lib/netdev-mmsg.c \
	lib/netdev-tap.c \
	lib/netdev-tpacket-policy.c lib/netdev-tpacket-policy.h \
	lib/netlink-link.c lib/netlink-link.h \
	lib/odp-execute.c lib/odp-execute.h \
	lib/odp-format.c lib/odp-format.h \
	lib/ofpact.c lib/ofpact.h \
	lib/ofproto-commands.c \
	lib/ofproto-rules.c lib/ofproto-rules.h \
	lib/ofproto-trace.c lib/ofproto-trace.h \
	lib/pcap-file.c lib/pcap-file.h \
	lib/packets.h \
	lib/pipeline.c lib/pipeline.h \
	lib/pmd.c lib/pmd.h \
	lib/pmd-perf.c lib/pmd-perf.h \
	lib/rcu.c lib/rcu.h \
	lib/smc.c lib/smc.h \
	lib/unixctl.c lib/unixctl.h \
	lib/upcall.c lib/upcall.h \
	lib/util.c lib/util.h \
	lib/vlog.c lib/vlog.h
if HAVE_TPACKET_V3
lib_libpmdswitch_a_SOURCES += lib/netdev-tpacket.c \
	lib/netdev-tpacket-steer.c lib/netdev-tpacket-steer.h
endif
if HAVE_AFXDP
lib_libpmdswitch_a_SOURCES += lib/netdev-afxdp.c
endif
