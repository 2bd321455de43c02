#!/bin/bash
# Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
# Provider-independent.
#
# System test: the Debian package.  A copy of the tracked tree (what a
# fresh checkout holds, with the edits not yet committed) is built with
# "dpkg-buildpackage -us -uc -b", and the pmdswitch .deb it makes is
# unpacked with "dpkg -x" into a scratch root, where it must hold:
#
# - pmdswitchd, pmdswitch-appctl, pmdswitch-parse-pcap and the CNI plugin
#   (with its "pmdswitch" link), built with AF_XDP support;
# - the man pages pmdswitchd(8), pmdswitch-appctl(8), pmdswitch-cni(8),
#   pmdswitch-parse-pcap(1) and pmdswitch.json(5), gzipped, rendering
#   without warnings;
# - the systemd unit with /usr and /etc paths filled in, enabled and
#   started by the maintainer scripts;
# - the bash completion of pmdswitch-appctl;
# - the example config and the starting config (no bridges), both accepted
#   by the packaged "pmdswitchd --check-config", and the logrotate file,
#   all three conffiles;
# - a "pmdswitchd --version" that prints the version of configure.ac,
#   which is also the package's.
#
# Then the packaged daemon runs on the packaged starting config and the
# packaged logrotate file, its paths moved into a scratch directory, is
# run with "logrotate -f": the log must be rotated and compressed, and the
# daemon, told by the file's postrotate command, must go on logging into
# a new file under the old name.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ps_require_root
ps_require_cmds git tar dpkg-buildpackage dh dpkg-deb gzip logrotate
ps_setup sdeb

if ! git -C "$PS_SRC_DIR" rev-parse --git-dir >/dev/null 2>&1; then
    ps_skip "$PS_SRC_DIR is not a git checkout"
fi

WORK=$(mktemp -d /tmp/sdeb.XXXXXX)
ps_record_dir "$WORK"

# ---------------------------------------------------------------------------
ps_info "dpkg-buildpackage in a copy of the tree"
mkdir "$WORK/src"
(cd "$PS_SRC_DIR" &&
    git ls-files -co --exclude-standard | tar -cf - -T -) |
    tar -xf - -C "$WORK/src" || ps_fail "copying the tree failed"
rc=0
(cd "$WORK/src" &&
    DEB_BUILD_OPTIONS="nocheck parallel=2" dpkg-buildpackage -us -uc -b) \
    >"$PS_LOG_DIR/build.out" 2>&1 || rc=$?
if [[ $rc -ne 0 ]]; then
    tail -n 40 "$PS_LOG_DIR/build.out" >&2
    ps_fail "dpkg-buildpackage exited with status $rc"
fi
DEBS=("$WORK"/pmdswitch_*.deb)
[[ ${#DEBS[@]} -eq 1 && -f ${DEBS[0]} ]] ||
    ps_fail "expected one pmdswitch_*.deb, got: $(ls "$WORK")"
DEB=${DEBS[0]}
ps_info "built ${DEB##*/}"

AC_VERSION=$(sed -n 's/^AC_INIT(\[pmdswitch\], \[\([^]]*\)\].*/\1/p' \
    "$PS_SRC_DIR/configure.ac")
[[ -n "$AC_VERSION" ]] || ps_fail "no version in configure.ac's AC_INIT"
ps_assert_eq "package name" pmdswitch "$(dpkg-deb -f "$DEB" Package)"
ps_assert_eq "package version" "$AC_VERSION" "$(dpkg-deb -f "$DEB" Version)"
depends=$(dpkg-deb -f "$DEB" Depends)
grep -q 'libxdp' <<<"$depends" ||
    ps_fail "the package does not depend on libxdp (no AF_XDP?): $depends"

# ---------------------------------------------------------------------------
ps_info "the files"
ROOT=$WORK/root
dpkg -x "$DEB" "$ROOT"
(cd "$ROOT" && find . ! -type d | sort) >"$PS_LOG_DIR/files.txt"
sed 's/^/    /' "$PS_LOG_DIR/files.txt" >&2
for f in usr/sbin/pmdswitchd usr/bin/pmdswitch-appctl \
    usr/bin/pmdswitch-parse-pcap \
    usr/libexec/pmdswitch/cni/pmdswitch-cni; do
    [[ -f $ROOT/$f && -x $ROOT/$f ]] || ps_fail "no executable /$f"
done
ps_assert_eq "CNI plugin link" pmdswitch-cni \
    "$(readlink "$ROOT/usr/libexec/pmdswitch/cni/pmdswitch")"
if grep -Eq '^\./(usr/local|var/run|run)/' "$PS_LOG_DIR/files.txt"; then
    ps_fail "files where a package must not put them"
fi

for page in man8/pmdswitchd.8 man8/pmdswitch-appctl.8 man8/pmdswitch-cni.8 \
    man1/pmdswitch-parse-pcap.1 man5/pmdswitch.json.5; do
    gz=$ROOT/usr/share/man/$page.gz
    [[ -f $gz ]] || ps_fail "no /usr/share/man/$page.gz"
    gzip -t "$gz" || ps_fail "$page.gz is not gzip"
    if command -v groff >/dev/null 2>&1; then
        warnings=$(zcat "$gz" | groff -man -ww -z 2>&1 || true)
        [[ -z "$warnings" ]] || ps_fail "$page renders with warnings:
$warnings"
    fi
done
ps_info "ok: man pages"

UNIT=$ROOT/lib/systemd/system/pmdswitch.service
[[ -f $UNIT ]] || ps_fail "no /lib/systemd/system/pmdswitch.service"
grep -Eq '^ExecStart=/usr/sbin/pmdswitchd .*--config /etc/pmdswitch/pmdswitch\.json' \
    "$UNIT" || ps_fail "the unit's ExecStart is not /usr/sbin/pmdswitchd" \
    "with /etc/pmdswitch/pmdswitch.json"
grep -q '^ExecReload=/usr/bin/pmdswitch-appctl .*config/reload' "$UNIT" ||
    ps_fail "the unit's ExecReload is not /usr/bin/pmdswitch-appctl"
! grep -q '@[a-z]*@' "$UNIT" || ps_fail "the unit has @vars@ left"
dpkg-deb -e "$DEB" "$WORK/control"
grep -q 'deb-systemd-helper.*enable.*pmdswitch\.service' \
    "$WORK/control/postinst" ||
    ps_fail "postinst does not enable pmdswitch.service"
if ! grep -q 'deb-systemd-invoke .*pmdswitch\.service' \
    "$WORK/control/postinst" ||
    ! grep -q '_dh_action=start' "$WORK/control/postinst"; then
    ps_fail "postinst does not start pmdswitch.service"
fi
ps_info "ok: unit, enabled and started by postinst"
# Purging removes the logs and runtime state as well; the unit goes too.
grep -q '^    rm -rf /var/log/pmdswitch /run/pmdswitch /run/lock/pmdswitch$' \
    "$WORK/control/postrm" || ps_fail "postrm does not remove the logs on purge"
grep -q "deb-systemd-helper purge '*pmdswitch\.service" "$WORK/control/postrm" ||
    ps_fail "postrm does not purge the unit's state"

COMPLETION=$ROOT/usr/share/bash-completion/completions/pmdswitch-appctl
[[ -f $COMPLETION ]] || ps_fail "no bash completion"
# shellcheck disable=SC2016
bash -c '. "$1" && complete -p pmdswitch-appctl' _ "$COMPLETION" \
    >/dev/null || ps_fail "the completion does not register for the command"

DAEMON=$ROOT/usr/sbin/pmdswitchd
APPCTL=$ROOT/usr/bin/pmdswitch-appctl
ps_assert_eq "packaged pmdswitchd --version" \
    "pmdswitchd (pmdswitch) $AC_VERSION" "$("$DAEMON" --version)"
for conf in pmdswitch.json pmdswitch.json.example; do
    [[ -f $ROOT/etc/pmdswitch/$conf ]] || ps_fail "no /etc/pmdswitch/$conf"
    "$DAEMON" --check-config "$ROOT/etc/pmdswitch/$conf" >&2 ||
        ps_fail "packaged pmdswitchd --check-config $conf failed"
done
ps_assert_eq "starting config" "0 bridges, 0 ports" \
    "$("$DAEMON" --check-config "$ROOT/etc/pmdswitch/pmdswitch.json" |
        sed -n 's/.*: valid (\(.*\))$/\1/p')"

LOGROTATE=$ROOT/etc/logrotate.d/pmdswitch
[[ -f $LOGROTATE ]] || ps_fail "no /etc/logrotate.d/pmdswitch"
grep -q '/usr/bin/pmdswitch-appctl -t /run/pmdswitch/pmdswitchd.ctl .*vlog/reopen' \
    "$LOGROTATE" || ps_fail "logrotate's postrotate does not run vlog/reopen"
for conf in /etc/pmdswitch/pmdswitch.json /etc/pmdswitch/pmdswitch.json.example \
    /etc/logrotate.d/pmdswitch; do
    grep -qx "$conf" "$WORK/control/conffiles" ||
        ps_fail "$conf is not a conffile"
done
ps_info "ok: completion, configs, logrotate file, conffiles"

# ---------------------------------------------------------------------------
ps_info "logrotate with the packaged file, paths moved, and the daemon"
RUN=$WORK/run
mkdir -p "$RUN/log"
CTL=$RUN/pmdswitchd.ctl
LOG=$RUN/log/pmdswitchd.log
cp "$ROOT/etc/pmdswitch/pmdswitch.json" "$RUN/pmdswitch.json"
sed -e "s|/var/log/pmdswitch/|$RUN/log/|g" \
    -e "s|/run/pmdswitch/pmdswitchd.ctl|$CTL|g" \
    -e "s|/usr/bin/pmdswitch-appctl|$APPCTL|g" \
    "$LOGROTATE" >"$RUN/logrotate.conf"
logrotate -d -s "$RUN/logrotate.state" "$RUN/logrotate.conf" \
    >"$PS_LOG_DIR/logrotate-d.out" 2>&1 ||
    ps_fail "logrotate -d rejects the file: $(cat "$PS_LOG_DIR/logrotate-d.out")"

rc=0
"$DAEMON" --config "$RUN/pmdswitch.json" --detach \
    --pidfile="$RUN/pmdswitchd.pid" --unixctl "$CTL" --log-file="$LOG" \
    >"$PS_LOG_DIR/start.out" 2>&1 || rc=$?
[[ -s $RUN/pmdswitchd.pid ]] && ps_record_pid "$(<"$RUN/pmdswitchd.pid")"
if [[ $rc -ne 0 ]]; then
    cat "$PS_LOG_DIR/start.out" >&2
    ps_fail "the packaged daemon did not start on the starting config"
fi
DPID=$(<"$RUN/pmdswitchd.pid")
grep -q 'pmdswitchd running: 0 port' "$LOG" ||
    ps_fail "the daemon did not log that it runs"

logrotate -f -s "$RUN/logrotate.state" "$RUN/logrotate.conf" \
    >"$PS_LOG_DIR/logrotate.out" 2>&1 ||
    ps_fail "logrotate -f failed: $(cat "$PS_LOG_DIR/logrotate.out")"
[[ -f $LOG.1.gz ]] || ps_fail "no $LOG.1.gz after logrotate"
zcat "$LOG.1.gz" | grep -q 'pmdswitchd running' ||
    ps_fail "the rotated log does not hold the daemon's lines"
# The daemon reopens on vlog/reopen, before logrotate returns.
[[ -f $LOG ]] || ps_fail "the daemon did not start a new log after rotation"
"$APPCTL" -t "$CTL" --timeout 5 exit >/dev/null
ps_wait_until 5 ps_exited "$DPID" || ps_fail "the daemon did not exit"
grep -q 'pmdswitchd exiting' "$LOG" ||
    ps_fail "the daemon's later lines did not reach the new log"
ps_info "ok: rotated, compressed, and the daemon logs into a new file"

{ zcat "$LOG.1.gz"; cat "$LOG"; } >"$PS_LOG_DIR/pmdswitchd-1.log"
ps_check_log
ps_info "PASS"
