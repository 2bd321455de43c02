# Unit tests: one program per module, run by `make check` without root.
# Programs that need root (netdev) exit 77 (skipped) without it.
UNIT_TESTS = \
	tests/test-bond \
	tests/test-byte-ring \
	tests/test-cni-conf \
	tests/test-config \
	tests/test-config-diff \
	tests/test-config-edit \
	tests/test-coverage \
	tests/test-csum \
	tests/test-dp \
	tests/test-dpcls \
	tests/test-ds \
	tests/test-emc \
	tests/test-flow-compose \
	tests/test-gro \
	tests/test-gso \
	tests/test-dp-flow \
	tests/test-hash \
	tests/test-json-pos \
	tests/test-link-monitor \
	tests/test-lockfile \
	tests/test-mac-learning \
	tests/test-match-parse \
	tests/test-metrics \
	tests/test-miniflow \
	tests/test-netdev \
	tests/test-netdev-dummy \
	tests/test-netdev-tap \
	tests/test-netdev-tpacket-policy \
	tests/test-netdev-tpacket-steer \
	tests/test-netlink-link \
	tests/test-dp-actions-execute \
	tests/test-ofproto \
	tests/test-ofproto-rules \
	tests/test-pcap-file \
	tests/test-pcapng-writer \
	tests/test-pipeline \
	tests/test-pmd \
	tests/test-mirror \
	tests/test-pmd-perf \
	tests/test-pmd-wake \
	tests/test-port-check \
	tests/test-smc \
	tests/test-unixctl \
	tests/test-upcall \
	tests/test-vlog \
	tests/test-vxlan \
	tests/test-vxlan-fdb \
	tests/test-netdev-vxlan \
	tests/test-xlate
if HAVE_TPACKET_V3
UNIT_TESTS += tests/test-netdev-tpacket
endif
if HAVE_AFXDP
UNIT_TESTS += tests/test-netdev-afxdp
endif

check_PROGRAMS += $(UNIT_TESTS)
TESTS += $(UNIT_TESTS)
EXTRA_DIST += tests/check.h

# Tests of the command-line tools, run against this build.
TESTS += tests/test-parse-pcap.sh
EXTRA_DIST += tests/test-parse-pcap.sh

# The frame parser against Open vSwitch's, field by field.
TESTS += tests/test-parse-diff.sh
EXTRA_DIST += tests/test-parse-diff.sh tests/parse-corpus.py \
	tests/parse-compare.py tests/parse-diff-allow.txt

# Rootless datapath tests: the real daemon on dummy ports (no root).
DUMMY_TESTS = \
	tests/dummy/test-appctl-limits.sh \
	tests/dummy/test-bridges.sh \
	tests/dummy/test-check-config.sh \
	tests/dummy/test-conservation.sh \
	tests/dummy/test-coverage.sh \
	tests/dummy/test-expiry.sh \
	tests/dummy/test-fd-limits.sh \
	tests/dummy/test-forward-bpdu.sh \
	tests/dummy/test-instances.sh \
	tests/dummy/test-mac-flood.sh \
	tests/dummy/test-mirror.sh \
	tests/dummy/test-malformed-rules.sh \
	tests/dummy/test-normal.sh \
	tests/dummy/test-reconfig.sh \
	tests/dummy/test-revalidate-ack.sh \
	tests/dummy/test-rule-counters.sh \
	tests/dummy/test-service-notify.sh
TESTS += $(DUMMY_TESTS)
EXTRA_DIST += $(DUMMY_TESTS) tests/dummy/lib.sh \
	tests/dummy/appctl-hostile.py tests/dummy/notify-listener.py

# The layering of lib/: no include goes up a layer.
TESTS += tests/check-layering.sh
EXTRA_DIST += tests/check-layering.sh
AM_TESTS_ENVIRONMENT = PMDSWITCH_BUILD='$(abs_top_builddir)'; \
	export PMDSWITCH_BUILD; \
	TSAN_OPTIONS='suppressions=$(abs_top_srcdir)/tests/tsan.supp'; \
	export TSAN_OPTIONS;
EXTRA_DIST += tests/tsan.supp

tests_test_bond_SOURCES = tests/test-bond.c
tests_test_bond_LDADD = $(PMD_LIBS)
# The CNI plugin's request parsing, built from its own source.
tests_test_cni_conf_SOURCES = tests/test-cni-conf.c utilities/cni-conf.c \
	utilities/cni.h
tests_test_cni_conf_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)
tests_test_cni_conf_LDADD = $(PMD_LIBS)
tests_test_csum_SOURCES = tests/test-csum.c
tests_test_csum_LDADD = $(PMD_LIBS)
tests_test_vxlan_SOURCES = tests/test-vxlan.c
tests_test_vxlan_LDADD = $(PMD_LIBS)
tests_test_vxlan_fdb_SOURCES = tests/test-vxlan-fdb.c
tests_test_vxlan_fdb_LDADD = $(PMD_LIBS)
tests_test_netdev_vxlan_SOURCES = tests/test-netdev-vxlan.c tests/gso-test.h
tests_test_netdev_vxlan_LDADD = $(PMD_LIBS)
tests_test_gro_SOURCES = tests/test-gro.c tests/gso-test.h tests/dp-test.h
tests_test_gro_LDADD = $(PMD_LIBS)
tests_test_gso_SOURCES = tests/test-gso.c tests/gso-test.h
tests_test_gso_LDADD = $(PMD_LIBS)
tests_test_metrics_SOURCES = tests/test-metrics.c
tests_test_metrics_LDADD = $(PMD_LIBS)
tests_test_config_SOURCES = tests/test-config.c
tests_test_config_LDADD = $(PMD_LIBS)
tests_test_config_diff_SOURCES = tests/test-config-diff.c
tests_test_config_diff_LDADD = $(PMD_LIBS)
tests_test_config_edit_SOURCES = tests/test-config-edit.c
tests_test_config_edit_LDADD = $(PMD_LIBS)
tests_test_coverage_SOURCES = tests/test-coverage.c tests/unixctl-test.c \
	tests/unixctl-test.h
tests_test_coverage_LDADD = $(PMD_LIBS)
tests_test_dp_actions_execute_SOURCES = tests/test-dp-actions-execute.c
tests_test_dp_actions_execute_LDADD = $(PMD_LIBS)
tests_test_dpcls_SOURCES = tests/test-dpcls.c
tests_test_dpcls_LDADD = $(PMD_LIBS)
tests_test_ds_SOURCES = tests/test-ds.c
tests_test_ds_LDADD = $(PMD_LIBS)
tests_test_lockfile_SOURCES = tests/test-lockfile.c
tests_test_lockfile_LDADD = $(PMD_LIBS)
tests_test_emc_SOURCES = tests/test-emc.c
tests_test_emc_LDADD = $(PMD_LIBS)
tests_test_dp_flow_SOURCES = tests/test-dp-flow.c
tests_test_dp_flow_LDADD = $(PMD_LIBS)
tests_test_hash_SOURCES = tests/test-hash.c
tests_test_hash_LDADD = $(PMD_LIBS)
tests_test_json_pos_SOURCES = tests/test-json-pos.c
tests_test_json_pos_LDADD = $(PMD_LIBS)
tests_test_link_monitor_SOURCES = tests/test-link-monitor.c
tests_test_link_monitor_LDADD = $(PMD_LIBS)
tests_test_mac_learning_SOURCES = tests/test-mac-learning.c
tests_test_mac_learning_LDADD = $(PMD_LIBS)
tests_test_match_parse_SOURCES = tests/test-match-parse.c
tests_test_match_parse_LDADD = $(PMD_LIBS)
tests_test_miniflow_SOURCES = tests/test-miniflow.c
tests_test_miniflow_LDADD = $(PMD_LIBS)
tests_test_netdev_SOURCES = tests/test-netdev.c tests/netns-test.c \
	tests/netns-test.h
tests_test_netdev_LDADD = $(PMD_LIBS)
tests_test_byte_ring_SOURCES = tests/test-byte-ring.c
tests_test_byte_ring_LDADD = $(PMD_LIBS)
tests_test_flow_compose_SOURCES = tests/test-flow-compose.c
tests_test_flow_compose_LDADD = $(PMD_LIBS)
tests_test_netdev_dummy_SOURCES = tests/test-netdev-dummy.c
tests_test_netdev_dummy_LDADD = $(PMD_LIBS)
tests_test_netdev_tpacket_SOURCES = tests/test-netdev-tpacket.c \
	tests/netns-test.c tests/netns-test.h
tests_test_netdev_tpacket_LDADD = $(PMD_LIBS)
tests_test_netdev_tpacket_policy_SOURCES = \
	tests/test-netdev-tpacket-policy.c
tests_test_netdev_tpacket_policy_LDADD = $(PMD_LIBS)
tests_test_netdev_tpacket_steer_SOURCES = \
	tests/test-netdev-tpacket-steer.c
tests_test_netdev_tpacket_steer_LDADD = $(PMD_LIBS)
tests_test_netdev_afxdp_SOURCES = tests/test-netdev-afxdp.c \
	tests/netns-test.c tests/netns-test.h
tests_test_netdev_afxdp_LDADD = $(PMD_LIBS)
tests_test_netdev_tap_SOURCES = tests/test-netdev-tap.c \
	tests/netns-test.c tests/netns-test.h
tests_test_netdev_tap_LDADD = $(PMD_LIBS)
tests_test_netlink_link_SOURCES = tests/test-netlink-link.c
tests_test_netlink_link_LDADD = $(PMD_LIBS)
tests_test_ofproto_SOURCES = tests/test-ofproto.c tests/ofproto-test.h
tests_test_ofproto_LDADD = $(PMD_LIBS)
tests_test_ofproto_rules_SOURCES = tests/test-ofproto-rules.c
tests_test_ofproto_rules_LDADD = $(PMD_LIBS)
tests_test_pcapng_writer_SOURCES = tests/test-pcapng-writer.c
tests_test_pcapng_writer_LDADD = $(PMD_LIBS)
tests_test_pcap_file_SOURCES = tests/test-pcap-file.c
tests_test_pcap_file_LDADD = $(PMD_LIBS)
tests_test_dp_SOURCES = tests/test-dp.c
tests_test_dp_LDADD = $(PMD_LIBS)
tests_test_pipeline_SOURCES = tests/test-pipeline.c tests/dp-test.h
tests_test_pipeline_LDADD = $(PMD_LIBS)
# Counts the datapath's hash_rss() calls (see test_hash_once_and_flood()).
tests_test_pipeline_LDFLAGS = $(AM_LDFLAGS) -Wl,--wrap=hash_rss
tests_test_pmd_SOURCES = tests/test-pmd.c tests/dp-test.h
tests_test_pmd_LDADD = $(PMD_LIBS)
tests_test_pmd_perf_SOURCES = tests/test-pmd-perf.c
tests_test_pmd_perf_LDADD = $(PMD_LIBS)
tests_test_pmd_wake_SOURCES = tests/test-pmd-wake.c
tests_test_pmd_wake_LDADD = $(PMD_LIBS)
tests_test_port_check_SOURCES = tests/test-port-check.c
tests_test_port_check_LDADD = $(PMD_LIBS)
tests_test_smc_SOURCES = tests/test-smc.c
tests_test_smc_LDADD = $(PMD_LIBS)
tests_test_unixctl_SOURCES = tests/test-unixctl.c tests/unixctl-test.c \
	tests/unixctl-test.h
tests_test_unixctl_LDADD = $(PMD_LIBS)
tests_test_upcall_SOURCES = tests/test-upcall.c tests/ofproto-test.h
tests_test_upcall_LDADD = $(PMD_LIBS)
tests_test_vlog_SOURCES = tests/test-vlog.c tests/unixctl-test.c \
	tests/unixctl-test.h
tests_test_vlog_LDADD = $(PMD_LIBS)
tests_test_mirror_SOURCES = tests/test-mirror.c tests/ofproto-test.h
tests_test_mirror_LDADD = $(PMD_LIBS)
tests_test_xlate_SOURCES = tests/test-xlate.c tests/ofproto-test.h
tests_test_xlate_LDADD = $(PMD_LIBS)

# System tests: the real daemon in network namespaces (root).
EXTRA_DIST += tests/system tests/run-all.sh
system-check: all
	$(srcdir)/tests/system/run.sh
.PHONY: system-check
