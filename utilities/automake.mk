dist_noinst_SCRIPTS += utilities/pmdswitch-demo
