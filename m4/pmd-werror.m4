# pmdswitch build option: -Werror.

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
