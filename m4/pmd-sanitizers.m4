# pmdswitch build options: sanitizers and the libFuzzer targets.

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
