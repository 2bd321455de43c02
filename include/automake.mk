EXTRA_DIST += include/linux/if_packet_compat.h
