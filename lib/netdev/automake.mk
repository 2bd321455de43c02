# lib/netdev: the port layer: the netdev contract, its providers, netlink.
lib_libpmdswitch_a_SOURCES += \
	lib/netdev/link-monitor.c \
	lib/netdev/link-monitor.h \
	lib/netdev/netdev-dummy.c \
	lib/netdev/netdev-dummy.h \
	lib/netdev/netdev-linux.c \
	lib/netdev/netdev-mmsg-rx.c \
	lib/netdev/netdev-mmsg-rx.h \
	lib/netdev/netdev-mmsg.c \
	lib/netdev/netdev-offload-info.c \
	lib/netdev/netdev-offload-info.h \
	lib/netdev/netdev-provider.h \
	lib/netdev/netdev-tap.c \
	lib/netdev/netdev-vxlan-fdb.c \
	lib/netdev/netdev-vxlan-fdb.h \
	lib/netdev/netdev-vxlan-private.h \
	lib/netdev/netdev-vxlan-tx.c \
	lib/netdev/netdev-vxlan.c \
	lib/netdev/netdev-vxlan.h \
	lib/netdev/netdev-tpacket-policy.c \
	lib/netdev/netdev-tpacket-policy.h \
	lib/netdev/netdev-tpacket-steer.c \
	lib/netdev/netdev-tpacket-steer.h \
	lib/netdev/netdev.c \
	lib/netdev/netdev.h \
	lib/netdev/netlink-link.c \
	lib/netdev/netlink-link.h
if HAVE_AFXDP
lib_libpmdswitch_a_SOURCES += lib/netdev/netdev-afxdp.c
endif
if HAVE_TPACKET_V3
lib_libpmdswitch_a_SOURCES += \
	lib/netdev/netdev-tpacket-private.h \
	lib/netdev/netdev-tpacket-rx.c \
	lib/netdev/netdev-tpacket-tx.c \
	lib/netdev/netdev-tpacket.c
endif
