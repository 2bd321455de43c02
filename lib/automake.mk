# libpmdswitch: everything but main(), in layers, lowest first.  A layer
# includes only from the layers before it (tests/check-layering.sh).
noinst_LIBRARIES += lib/libpmdswitch.a
lib_libpmdswitch_a_SOURCES =
include lib/base/automake.mk
include lib/packet/automake.mk
include lib/classifier/automake.mk
include lib/netdev/automake.mk
include lib/ofproto/automake.mk
include lib/config/automake.mk
include lib/dp/automake.mk
include lib/control/automake.mk
