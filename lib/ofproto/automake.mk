# lib/ofproto: the slow path: bridges, translation, rules, MAC learning, bonds.
lib_libpmdswitch_a_SOURCES += \
	lib/ofproto/bond.c \
	lib/ofproto/bond.h \
	lib/ofproto/change-log.c \
	lib/ofproto/change-log.h \
	lib/ofproto/mac-learning.c \
	lib/ofproto/mac-learning.h \
	lib/ofproto/match-parse.c \
	lib/ofproto/match-parse.h \
	lib/ofproto/mirror.c \
	lib/ofproto/mirror.h \
	lib/ofproto/ofpact.c \
	lib/ofproto/ofpact.h \
	lib/ofproto/ofproto.c \
	lib/ofproto/ofproto.h \
	lib/ofproto/ofproto-private.h \
	lib/ofproto/ofproto-rules.c \
	lib/ofproto/ofproto-rules.h \
	lib/ofproto/upcall.c \
	lib/ofproto/upcall.h \
	lib/ofproto/xlate.c \
	lib/ofproto/xlate.h \
	lib/ofproto/xlate-mirror.c \
	lib/ofproto/xlate-patch.c \
	lib/ofproto/xlate-private.h
