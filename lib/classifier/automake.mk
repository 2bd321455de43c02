# lib/classifier: the classifier layer: EMC, SMC, dpcls and the megaflow table.
lib_libpmdswitch_a_SOURCES += \
	lib/classifier/dp-flow.c \
	lib/classifier/dp-flow.h \
	lib/classifier/dpcls.c \
	lib/classifier/dpcls.h \
	lib/classifier/emc.c \
	lib/classifier/emc.h \
	lib/classifier/smc.c \
	lib/classifier/smc.h
