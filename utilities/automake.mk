dist_noinst_SCRIPTS += utilities/pmdswitch-demo

bin_PROGRAMS += utilities/pmdswitch-appctl
utilities_pmdswitch_appctl_SOURCES = utilities/pmdswitch-appctl.c
utilities_pmdswitch_appctl_LDADD = $(PMD_LIBS)
