# lib/packet: the packet layer: buffers, wire formats, parsing, hashing.
lib_libpmdswitch_a_SOURCES += \
	lib/packet/crc32c.c \
	lib/packet/csum.c \
	lib/packet/csum.h \
	lib/packet/crc32c.h \
	lib/packet/dp-actions.h \
	lib/packet/dp-actions-format.c \
	lib/packet/dp-actions-format.h \
	lib/packet/dp-batch.h \
	lib/packet/dp-packet.c \
	lib/packet/dp-packet.h \
	lib/packet/flow-compose.c \
	lib/packet/flow-compose.h \
	lib/packet/flow.h \
	lib/packet/flow-format.c \
	lib/packet/flow-format.h \
	lib/packet/gro.c \
	lib/packet/gro.h \
	lib/packet/gso.c \
	lib/packet/gso.h \
	lib/packet/hash.c \
	lib/packet/hash.h \
	lib/packet/miniflow.c \
	lib/packet/miniflow.h \
	lib/packet/packets.h \
	lib/packet/pcap-file.c \
	lib/packet/pcap-file.h \
	lib/packet/pcapng-writer.c \
	lib/packet/pcapng-writer.h \
	lib/packet/vxlan.c \
	lib/packet/vxlan.h \
	lib/packet/wire.h
