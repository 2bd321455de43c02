dist_noinst_SCRIPTS += utilities/pmdswitch-demo

bin_PROGRAMS += utilities/pmdswitch-appctl
utilities_pmdswitch_appctl_SOURCES = utilities/pmdswitch-appctl.c
utilities_pmdswitch_appctl_LDADD = $(PMD_LIBS)

bin_PROGRAMS += utilities/pmdswitch-parse-pcap
utilities_pmdswitch_parse_pcap_SOURCES = utilities/pmdswitch-parse-pcap.c
utilities_pmdswitch_parse_pcap_LDADD = $(PMD_LIBS)

dist_man_MANS += utilities/pmdswitch-appctl.8
dist_man_MANS += utilities/pmdswitch-parse-pcap.1

# The example config, and a starting config with no bridges, so that the
# unit runs straight after "make install": the starting config becomes
# $(sysconfdir)/pmdswitch/pmdswitch.json only when there is none, since
# that file is the administrator's (and the daemon's, which writes runtime
# changes back to it) and is never installed over.  "make uninstall"
# removes it only while it is still the starting config.
pmdswitchconfdir = $(sysconfdir)/pmdswitch
dist_pmdswitchconf_DATA = utilities/pmdswitch.json.example
EXTRA_DIST += utilities/pmdswitch.json.initial
install-data-local: install-initial-config install-logrotate
uninstall-local: uninstall-initial-config uninstall-logrotate
install-initial-config:
	@conf=$(DESTDIR)$(pmdswitchconfdir)/pmdswitch.json; \
	if test -e "$$conf" || test -h "$$conf"; then \
	    echo "keeping the existing $$conf"; \
	else \
	    $(MKDIR_P) $(DESTDIR)$(pmdswitchconfdir) && \
	    echo " $(INSTALL_DATA) utilities/pmdswitch.json.initial $$conf" && \
	    $(INSTALL_DATA) $(srcdir)/utilities/pmdswitch.json.initial "$$conf"; \
	fi
uninstall-initial-config:
	@conf=$(DESTDIR)$(pmdswitchconfdir)/pmdswitch.json; \
	if cmp -s $(srcdir)/utilities/pmdswitch.json.initial "$$conf"; then \
	    echo " rm -f $$conf"; rm -f "$$conf"; \
	elif test -e "$$conf"; then \
	    echo "keeping $$conf: it is no longer the starting config"; \
	fi
.PHONY: install-initial-config uninstall-initial-config

# Log rotation for the unit's log file, with the install directories
# filled in, installed as $(sysconfdir)/logrotate.d/pmdswitch.
EXTRA_DIST += utilities/pmdswitch.logrotate.in
CLEANFILES += utilities/pmdswitch.logrotate
noinst_DATA = utilities/pmdswitch.logrotate
utilities/pmdswitch.logrotate: utilities/pmdswitch.logrotate.in Makefile
	$(AM_V_GEN)$(MKDIR_P) utilities && \
	sed -e 's|@bindir[@]|$(bindir)|g' \
	    -e 's|@sysconfdir[@]|$(sysconfdir)|g' \
	    $(srcdir)/utilities/pmdswitch.logrotate.in >$@.tmp && \
	mv $@.tmp $@
logrotatedir = $(sysconfdir)/logrotate.d
install-logrotate: utilities/pmdswitch.logrotate
	$(MKDIR_P) $(DESTDIR)$(logrotatedir)
	$(INSTALL_DATA) utilities/pmdswitch.logrotate \
	    $(DESTDIR)$(logrotatedir)/pmdswitch
uninstall-logrotate:
	rm -f $(DESTDIR)$(logrotatedir)/pmdswitch
.PHONY: install-logrotate uninstall-logrotate

# The systemd unit, with the install directories filled in.
EXTRA_DIST += utilities/pmdswitch.service.in
CLEANFILES += utilities/pmdswitch.service
if HAVE_SYSTEMD_UNIT_DIR
systemdsystemunit_DATA = utilities/pmdswitch.service
endif
utilities/pmdswitch.service: utilities/pmdswitch.service.in Makefile
	$(AM_V_GEN)$(MKDIR_P) utilities && \
	sed -e 's|@sbindir[@]|$(sbindir)|g' -e 's|@bindir[@]|$(bindir)|g' \
	    -e 's|@sysconfdir[@]|$(sysconfdir)|g' \
	    $(srcdir)/utilities/pmdswitch.service.in >$@.tmp && \
	mv $@.tmp $@

# Completion for pmdswitch-appctl, installed under the command's name as
# bash-completion expects.
if HAVE_BASH_COMPLETION_DIR
dist_bashcompletion_DATA = utilities/bash-completion/pmdswitch-appctl
else
EXTRA_DIST += utilities/bash-completion/pmdswitch-appctl
endif
EXTRA_DIST += utilities/install-deps.sh

# The CNI plugin.  Runtimes look for it by the network config's "type",
# "pmdswitch", in their plugin directories (usually /opt/cni/bin), where the
# administrator links or copies it; see pmdswitch-cni(8).  The "pmdswitch"
# link beside it lets cniexecdir itself be one of those directories.
cniexecdir = $(libexecdir)/pmdswitch/cni
cniexec_PROGRAMS = utilities/pmdswitch-cni
dist_man_MANS += utilities/pmdswitch-cni.8
utilities_pmdswitch_cni_SOURCES = \
	utilities/pmdswitch-cni.c \
	utilities/cni.h \
	utilities/cni-conf.c \
	utilities/cni-ipam.c \
	utilities/cni-netns.c \
	utilities/cni-switch.c
utilities_pmdswitch_cni_LDADD = $(PMD_LIBS)
install-exec-hook: install-cni-link
uninstall-hook: uninstall-cni-link
install-cni-link:
	cd $(DESTDIR)$(cniexecdir) && ln -sf pmdswitch-cni pmdswitch
uninstall-cni-link:
	rm -f $(DESTDIR)$(cniexecdir)/pmdswitch
.PHONY: install-cni-link uninstall-cni-link
