# pmdswitch build: the compiler flags every file is built with.

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
