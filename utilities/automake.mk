dist_noinst_SCRIPTS += utilities/pmdswitch-demo

bin_PROGRAMS += utilities/pmdswitch-appctl
utilities_pmdswitch_appctl_SOURCES = utilities/pmdswitch-appctl.c
utilities_pmdswitch_appctl_LDADD = $(PMD_LIBS)

bin_PROGRAMS += utilities/pmdswitch-parse-pcap
utilities_pmdswitch_parse_pcap_SOURCES = utilities/pmdswitch-parse-pcap.c
utilities_pmdswitch_parse_pcap_LDADD = $(PMD_LIBS)
