# lib/dp: the datapath: ports, PMD threads, the pipeline, action execution.
lib_libpmdswitch_a_SOURCES += \
	lib/dp/dp-actions-execute.c \
	lib/dp/dp-actions-execute.h \
	lib/dp/dp-iface.c \
	lib/dp/dp-link.c \
	lib/dp/dp-port.c \
	lib/dp/dp-private.h \
	lib/dp/dp.c \
	lib/dp/dp-capture.c \
	lib/dp/dp-capture.h \
	lib/dp/tx-gro.c \
	lib/dp/tx-gro.h \
	lib/dp/tx-gso.c \
	lib/dp/tx-gso.h \
	lib/dp/dp.h \
	lib/dp/pipeline.c \
	lib/dp/pipeline.h \
	lib/dp/pmd-perf.c \
	lib/dp/pmd-perf.h \
	lib/dp/pmd-reval.c \
	lib/dp/pmd-reval.h \
	lib/dp/pmd-wake.c \
	lib/dp/pmd-wake.h \
	lib/dp/pmd.c \
	lib/dp/pmd.h
