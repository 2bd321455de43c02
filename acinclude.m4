# pmdswitch autoconf checks.

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

dnl PMD_ENABLE_WERROR: --enable-werror turns warnings into errors.
AC_DEFUN([PMD_ENABLE_WERROR], [
  AC_ARG_ENABLE([werror],
    [AS_HELP_STRING([--enable-werror], [treat compiler warnings as errors])],
    [], [enable_werror=no])
  WERROR_CFLAGS=
  if test "$enable_werror" = yes; then
    WERROR_CFLAGS=-Werror
  fi
  AC_SUBST([WERROR_CFLAGS])
])

dnl PMD_ENABLE_SANITIZERS: --enable-sanitizers=address,undefined or =thread.
AC_DEFUN([PMD_ENABLE_SANITIZERS], [
  AC_ARG_ENABLE([sanitizers],
    [AS_HELP_STRING([--enable-sanitizers=LIST],
       [build with -fsanitize=LIST (address,undefined or thread)])],
    [], [enable_sanitizers=no])
  SANITIZER_CFLAGS=
  case "$enable_sanitizers" in
    no|"") ;;
    *thread*address*|*address*thread*)
      AC_MSG_ERROR([thread and address sanitizers cannot be combined]) ;;
    *)
      SANITIZER_CFLAGS="-fsanitize=$enable_sanitizers -fno-omit-frame-pointer -fno-sanitize-recover=all"
      ;;
  esac
  AC_SUBST([SANITIZER_CFLAGS])
  AM_CONDITIONAL([TSAN], [case "$enable_sanitizers" in *thread*) true ;; *) false ;; esac])
])

dnl PMD_ENABLE_FUZZING: --enable-fuzzing builds the libFuzzer targets
dnl tests/fuzz/fuzz-NAME.  Every object is then built with
dnl -fsanitize=fuzzer-no-link,address,undefined (coverage for libFuzzer,
dnl errors from the sanitizers) and the targets are linked with
dnl -fsanitize=fuzzer.  Needs clang with libFuzzer; replaces
dnl --enable-sanitizers.
AC_DEFUN([PMD_ENABLE_FUZZING], [
  AC_ARG_ENABLE([fuzzing],
    [AS_HELP_STRING([--enable-fuzzing],
       [build the libFuzzer targets in tests/fuzz (needs clang)])],
    [], [enable_fuzzing=no])
  FUZZER_LDFLAGS=
  if test "$enable_fuzzing" = yes; then
    case "$enable_sanitizers" in
      no|"") ;;
      *) AC_MSG_ERROR([--enable-fuzzing already builds with the address and
undefined sanitizers: drop --enable-sanitizers]) ;;
    esac
    AC_CACHE_CHECK([whether $CC can link a libFuzzer target],
      [pmd_cv_cc_fuzzer],
      [pmd_save_CFLAGS=$CFLAGS
       CFLAGS="$CFLAGS -fsanitize=fuzzer,address,undefined"
       AC_LINK_IFELSE(
         [AC_LANG_SOURCE([[#include <stddef.h>
                           #include <stdint.h>
                           int LLVMFuzzerTestOneInput(const uint8_t *,
                                                      size_t);
                           int LLVMFuzzerTestOneInput(const uint8_t *d,
                                                      size_t n)
                           { (void) d; (void) n; return 0; }]])],
         [pmd_cv_cc_fuzzer=yes], [pmd_cv_cc_fuzzer=no])
       CFLAGS=$pmd_save_CFLAGS])
    if test "$pmd_cv_cc_fuzzer" != yes; then
      AC_MSG_ERROR([--enable-fuzzing needs clang with libFuzzer.
Configure with CC=clang; on Debian 12 install clang and libclang-rt-14-dev.])
    fi
    SANITIZER_CFLAGS="-fsanitize=fuzzer-no-link,address,undefined"
    SANITIZER_CFLAGS="$SANITIZER_CFLAGS -fno-omit-frame-pointer"
    SANITIZER_CFLAGS="$SANITIZER_CFLAGS -fno-sanitize-recover=all"
    FUZZER_LDFLAGS=-fsanitize=fuzzer
  fi
  AC_SUBST([FUZZER_LDFLAGS])
  AM_CONDITIONAL([ENABLE_FUZZING], [test "$enable_fuzzing" = yes])
])

dnl PMD_CHECK_CC_OPTIONS: the warning set every file is built with.
AC_DEFUN([PMD_CHECK_CC_OPTIONS], [
  WARNING_CFLAGS=
  for flag in -Wall -Wextra -Wno-sign-compare -Wno-unused-parameter \
              -Wformat=2 -Wshadow -Wpointer-arith -Wstrict-prototypes \
              -Wmissing-prototypes -Wold-style-definition -Wvla \
              -Wno-missing-field-initializers; do
    AX_CHECK_COMPILE_FLAG([$flag], [WARNING_CFLAGS="$WARNING_CFLAGS $flag"])
  done
  AC_SUBST([WARNING_CFLAGS])

  dnl Miniflow and classifier code counts bits on every lookup; without
  dnl -mpopcnt, x86-64 compilers emit a library call for each count.
  dnl Enabled when the build machine's CPU has the instruction.
  ARCH_CFLAGS=
  if grep -qw popcnt /proc/cpuinfo 2>/dev/null; then
    AX_CHECK_COMPILE_FLAG([-mpopcnt], [ARCH_CFLAGS=-mpopcnt])
  fi
  AC_SUBST([ARCH_CFLAGS])
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
