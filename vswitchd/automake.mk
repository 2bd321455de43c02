sbin_PROGRAMS += vswitchd/pmdswitchd
vswitchd_pmdswitchd_SOURCES = vswitchd/pmdswitchd.c
vswitchd_pmdswitchd_LDADD = $(PMD_LIBS)
dist_man_MANS += vswitchd/pmdswitchd.8
dist_man_MANS += vswitchd/pmdswitch.json.5
