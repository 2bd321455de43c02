# pmdswitch autoconf checks of the system pmdswitch runs on (the kernel
# headers and libraries of its port types).  The generic build options
# (warnings, sanitizers, fuzzing) are in m4/.

dnl PMD_CHECK_TPACKET_V3
dnl
dnl Defines HAVE_TPACKET_V3 when <linux/if_packet.h> declares
dnl struct tpacket3_hdr.  Without it ports use recvmmsg/sendmmsg only.
AC_DEFUN([PMD_CHECK_TPACKET_V3], [
  AC_CACHE_CHECK([whether linux/if_packet.h has TPACKET_V3],
    [pmd_cv_tpacket_v3],
    [AC_COMPILE_IFELSE(
       [AC_LANG_PROGRAM([[#include <linux/if_packet.h>]],
                        [[struct tpacket3_hdr h; struct tpacket_req3 r;
                          int v = TPACKET_V3;
                          (void) h; (void) r; (void) v;]])],
       [pmd_cv_tpacket_v3=yes], [pmd_cv_tpacket_v3=no])])
  if test "$pmd_cv_tpacket_v3" = yes; then
    AC_DEFINE([HAVE_TPACKET_V3], [1],
              [Define to 1 if linux/if_packet.h has TPACKET_V3.])
  fi
  AM_CONDITIONAL([HAVE_TPACKET_V3], [test "$pmd_cv_tpacket_v3" = yes])
])

dnl PMD_CHECK_AFXDP
dnl
dnl Looks for libxdp and libbpf with pkg-config and, when both are there
dnl and <xdp/xsk.h> compiles, defines HAVE_AFXDP, adds their flags to
dnl CPPFLAGS and LIBS (every program links the library, which then holds
dnl the "afxdp" port provider) and sets the HAVE_AFXDP conditional.
dnl --disable-afxdp skips the check; --enable-afxdp makes a missing
dnl library an error.  Without it, the port type "afxdp" is a config error.
AC_DEFUN([PMD_CHECK_AFXDP], [
  AC_ARG_ENABLE([afxdp],
    [AS_HELP_STRING([--disable-afxdp],
       [build without the AF_XDP port type (default: with it when libxdp
        and libbpf are found)])],
    [], [enable_afxdp=check])
  pmd_have_afxdp=no
  if test "$enable_afxdp" != no; then
    PKG_CHECK_MODULES([XDP], [libxdp libbpf],
      [pmd_save_CPPFLAGS=$CPPFLAGS
       CPPFLAGS="$CPPFLAGS $XDP_CFLAGS"
       AC_CHECK_HEADER([xdp/xsk.h], [pmd_have_afxdp=yes])
       CPPFLAGS=$pmd_save_CPPFLAGS],
      [:])
    if test "$pmd_have_afxdp" != yes && test "$enable_afxdp" = yes; then
      AC_MSG_ERROR([--enable-afxdp needs libxdp and libbpf (on Debian:
apt-get install libxdp-dev libbpf-dev)])
    fi
  fi
  AC_MSG_CHECKING([whether to build the AF_XDP port type])
  AC_MSG_RESULT([$pmd_have_afxdp])
  if test "$pmd_have_afxdp" = yes; then
    AC_DEFINE([HAVE_AFXDP], [1],
              [Define to 1 to build the AF_XDP ("afxdp") port provider.])
    CPPFLAGS="$CPPFLAGS $XDP_CFLAGS"
    LIBS="$XDP_LIBS $LIBS"
  fi
  AM_CONDITIONAL([HAVE_AFXDP], [test "$pmd_have_afxdp" = yes])
])
