# doc: design notes too long for a file header.
EXTRA_DIST += doc/netdev-tpacket.md doc/port-handover.md doc/vxlan.md
