# Fuzz targets (see tests/fuzz/fuzz.h).  `make check` replays every saved
# input of each target through tests/fuzz/replay-NAME, built with the
# normal compiler; --enable-fuzzing also builds the libFuzzer binaries
# tests/fuzz/fuzz-NAME (run them with tests/fuzz/run-fuzzers.sh).
FUZZ_REPLAYS = \
	tests/fuzz/replay-appctl \
	tests/fuzz/replay-cni-conf \
	tests/fuzz/replay-config \
	tests/fuzz/replay-config-edit \
	tests/fuzz/replay-miniflow \
	tests/fuzz/replay-rules \
	tests/fuzz/replay-vxlan
check_PROGRAMS += $(FUZZ_REPLAYS)
TESTS += $(FUZZ_REPLAYS)
EXTRA_DIST += tests/fuzz/fuzz.h tests/fuzz/run-fuzzers.sh \
	tests/fuzz/make-corpus.py tests/fuzz/corpus tests/fuzz/crashes \
	tests/fuzz/config.dict tests/fuzz/rules.dict

tests_fuzz_replay_appctl_SOURCES = tests/fuzz/fuzz-replay.c \
	tests/fuzz/fuzz-appctl.c tests/fuzz/fuzz.h
tests_fuzz_replay_appctl_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_NAME='"appctl"'
tests_fuzz_replay_appctl_LDADD = $(PMD_LIBS)
tests_fuzz_replay_cni_conf_SOURCES = tests/fuzz/fuzz-replay.c \
	tests/fuzz/fuzz-cni-conf.c tests/fuzz/fuzz.h utilities/cni-conf.c
tests_fuzz_replay_cni_conf_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) \
	-DFUZZ_NAME='"cni-conf"'
tests_fuzz_replay_cni_conf_LDADD = $(PMD_LIBS)
tests_fuzz_replay_config_edit_SOURCES = tests/fuzz/fuzz-replay.c \
	tests/fuzz/fuzz-config-edit.c tests/fuzz/fuzz.h
tests_fuzz_replay_config_edit_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_NAME='"config-edit"'
tests_fuzz_replay_config_edit_LDADD = $(PMD_LIBS)
tests_fuzz_replay_config_SOURCES = tests/fuzz/fuzz-replay.c \
	tests/fuzz/fuzz-config.c tests/fuzz/fuzz.h
tests_fuzz_replay_config_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_NAME='"config"'
tests_fuzz_replay_config_LDADD = $(PMD_LIBS)
tests_fuzz_replay_miniflow_SOURCES = tests/fuzz/fuzz-replay.c \
	tests/fuzz/fuzz-miniflow.c tests/fuzz/fuzz.h
tests_fuzz_replay_miniflow_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_NAME='"miniflow"'
tests_fuzz_replay_miniflow_LDADD = $(PMD_LIBS)
tests_fuzz_replay_rules_SOURCES = tests/fuzz/fuzz-replay.c \
	tests/fuzz/fuzz-rules.c tests/fuzz/fuzz.h
tests_fuzz_replay_rules_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_NAME='"rules"'
tests_fuzz_replay_rules_LDADD = $(PMD_LIBS)
tests_fuzz_replay_vxlan_SOURCES = tests/fuzz/fuzz-replay.c \
	tests/fuzz/fuzz-vxlan.c tests/fuzz/fuzz.h
tests_fuzz_replay_vxlan_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_NAME='"vxlan"'
tests_fuzz_replay_vxlan_LDADD = $(PMD_LIBS)

if ENABLE_FUZZING
FUZZ_TARGETS = \
	tests/fuzz/fuzz-appctl \
	tests/fuzz/fuzz-cni-conf \
	tests/fuzz/fuzz-config \
	tests/fuzz/fuzz-config-edit \
	tests/fuzz/fuzz-miniflow \
	tests/fuzz/fuzz-rules \
	tests/fuzz/fuzz-vxlan
noinst_PROGRAMS += $(FUZZ_TARGETS)

tests_fuzz_fuzz_appctl_SOURCES = tests/fuzz/fuzz-appctl.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_appctl_LDFLAGS = $(AM_LDFLAGS) $(FUZZER_LDFLAGS)
tests_fuzz_fuzz_appctl_LDADD = $(PMD_LIBS)
tests_fuzz_fuzz_cni_conf_SOURCES = tests/fuzz/fuzz-cni-conf.c \
	tests/fuzz/fuzz.h utilities/cni-conf.c
tests_fuzz_fuzz_cni_conf_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)
tests_fuzz_fuzz_cni_conf_LDFLAGS = $(AM_LDFLAGS) $(FUZZER_LDFLAGS)
tests_fuzz_fuzz_cni_conf_LDADD = $(PMD_LIBS)
tests_fuzz_fuzz_config_edit_SOURCES = tests/fuzz/fuzz-config-edit.c \
	tests/fuzz/fuzz.h
tests_fuzz_fuzz_config_edit_LDFLAGS = $(AM_LDFLAGS) $(FUZZER_LDFLAGS)
tests_fuzz_fuzz_config_edit_LDADD = $(PMD_LIBS)
tests_fuzz_fuzz_config_SOURCES = tests/fuzz/fuzz-config.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_config_LDFLAGS = $(AM_LDFLAGS) $(FUZZER_LDFLAGS)
tests_fuzz_fuzz_config_LDADD = $(PMD_LIBS)
tests_fuzz_fuzz_miniflow_SOURCES = tests/fuzz/fuzz-miniflow.c \
	tests/fuzz/fuzz.h
tests_fuzz_fuzz_miniflow_LDFLAGS = $(AM_LDFLAGS) $(FUZZER_LDFLAGS)
tests_fuzz_fuzz_miniflow_LDADD = $(PMD_LIBS)
tests_fuzz_fuzz_rules_SOURCES = tests/fuzz/fuzz-rules.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_rules_LDFLAGS = $(AM_LDFLAGS) $(FUZZER_LDFLAGS)
tests_fuzz_fuzz_rules_LDADD = $(PMD_LIBS)
tests_fuzz_fuzz_vxlan_SOURCES = tests/fuzz/fuzz-vxlan.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_vxlan_LDFLAGS = $(AM_LDFLAGS) $(FUZZER_LDFLAGS)
tests_fuzz_fuzz_vxlan_LDADD = $(PMD_LIBS)
endif
