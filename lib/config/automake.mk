# lib/config: the configuration: schema, checks, diff, other_config.
lib_libpmdswitch_a_SOURCES += \
	lib/config/config-check.c \
	lib/config/config-check.h \
	lib/config/config-diff.c \
	lib/config/config-edit.c \
	lib/config/config-edit.h \
	lib/config/config-mirror.c \
	lib/config/config-mirror.h \
	lib/config/config-diff.h \
	lib/config/config-other.c \
	lib/config/config-schema.c \
	lib/config/config-schema.h \
	lib/config/config-other.h \
	lib/config/config.c \
	lib/config/config.h \
	lib/config/config-vxlan.c \
	lib/config/config-vxlan.h \
	lib/config/json-pos.c \
	lib/config/json-pos.h
