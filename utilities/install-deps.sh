#!/bin/sh
# Installs what building and testing pmdswitch needs on Debian 12.
# Usage: utilities/install-deps.sh   (as root)
set -e
PACKAGES="build-essential autoconf automake autoconf-archive pkg-config
  libmnl-dev libnl-3-dev libnl-route-3-dev libjansson-dev libevent-dev
  liburcu-dev iproute2 iputils-ping iputils-arping iperf3 ethtool python3
  openvswitch-common openvswitch-switch
  procps util-linux jq tcpdump clang libclang-rt-14-dev
  libxdp-dev libbpf-dev libsystemd-dev
  tshark prometheus logrotate debhelper dpkg-dev fakeroot
  podman runc conmon catatonit containernetworking-plugins busybox-static"

missing=
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" \
        || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "installing:$missing"
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing
    # Open vSwitch is only a reference the tests compare against; they
    # start their own ovs-vswitchd.  Debian enables its service on install:
    # put that back the way it was, off.
    case " $missing " in
    *" openvswitch-switch "*)
        if [ -d /run/systemd/system ]; then
            echo "disabling the openvswitch-switch service just installed" \
                 "(the tests run their own ovs-vswitchd)"
            systemctl disable --now openvswitch-switch.service \
                ovs-vswitchd.service ovsdb-server.service || true
        fi
        ;;
    esac
    # Likewise Prometheus: the metrics test starts its own server.
    case " $missing " in
    *" prometheus "*)
        if [ -d /run/systemd/system ]; then
            echo "disabling the prometheus service just installed" \
                 "(the tests run their own prometheus)"
            systemctl disable --now prometheus.service \
                prometheus-node-exporter.service || true
        fi
        ;;
    esac
fi
