# Microbenchmarks: built by plain `make` so that they cannot rot, never
# installed, never run by `make check` (bench/micro-run.sh runs them).
noinst_PROGRAMS += bench/micro-caches bench/micro-pipeline \
	bench/micro-tx-socket
bench_micro_caches_SOURCES = bench/micro-caches.c
bench_micro_caches_LDADD = $(PMD_LIBS)
bench_micro_pipeline_SOURCES = bench/micro-pipeline.c tests/dp-test.h
bench_micro_pipeline_LDADD = $(PMD_LIBS)
bench_micro_tx_socket_SOURCES = bench/micro-tx-socket.c
bench_micro_tx_socket_LDADD = $(PMD_LIBS)
dist_noinst_SCRIPTS += bench/micro-run.sh
