#!/usr/bin/env bash
# Fetches the PREEMPT_RT kernels rtlat's guest tests boot (tests/rt_guest), from Debian:
#
#   x86_64/6.1   linux-image-6.1.0-N-rt-amd64-unsigned     (what linux-image-rt-amd64 names)
#   x86_64/6.12  linux-image-6.12.N+deb12-rt-amd64-unsigned (what linux-image-6.12-rt-amd64 names)
#   aarch64/6.1  linux-image-6.1.0-N-rt-arm64-unsigned     (what linux-image-rt-arm64 names)
#   aarch64/busybox  busybox-static for arm64 (the arm64 guest's shell)
#
# Usage: fetch-kernels.sh CACHE_DIR
#
# Each package is fetched with `apt-get download` and only /boot is taken from it (vmlinuz,
# config), and for x86_64 the one module the tests load: the msr driver (msr.ko, which
# CONFIG_X86_MSR=m builds; decompressed where the package has it as msr.ko.xz), for the SMI
# counter's tests. The arm64 packages come through a
# private apt state under CACHE_DIR (its own lists, APT::Architecture=arm64): the host's dpkg
# architectures and apt lists are left as they are. A kernel already in CACHE_DIR is kept
# (CI fetches once per run). Needs apt-get, apt-cache and dpkg-deb (Debian and its
# derivatives) and the network; prints one line per kernel.
set -euo pipefail
cache=${1:?usage: fetch-kernels.sh CACHE_DIR}
mkdir -p "$cache"
cache=$(realpath "$cache")
debs="$cache/debs"
mkdir -p "$debs"

# The package a metapackage depends on (its first Depends: line), e.g. linux-image-6.1.0-57-rt-amd64.
depends_of() {
  apt-cache "${@:2}" depends "$1" 2>/dev/null | awk '/^  Depends:/ { print $2; exit }'
}

# extract DEB DIR: the kernel image and config of DEB's /boot into DIR, and its version.
extract() {
  local deb=$1 dir=$2 tmp
  tmp=$(mktemp -d "$cache/.extract.XXXXXX")
  dpkg-deb --fsys-tarfile "$deb" | tar -C "$tmp" -x ./boot
  mkdir -p "$dir.new"
  mv "$tmp"/boot/vmlinuz-* "$dir.new/vmlinuz"
  mv "$tmp"/boot/config-* "$dir.new/config"
  if [ "${dir##*/x86_64/}" != "$dir" ]; then
    dpkg-deb --fsys-tarfile "$deb" | tar -C "$tmp" -x --wildcards './lib/modules/*/kernel/arch/x86/kernel/msr.ko*'
    module=$(find "$tmp/lib/modules" -name 'msr.ko*' | head -1)
    case "$module" in
      *.ko) mv "$module" "$dir.new/msr.ko" ;;
      *.ko.xz) xz -dc "$module" >"$dir.new/msr.ko" ;;
      *) echo "fetch-kernels.sh: no msr.ko in $deb" >&2; return 1 ;;
    esac
  fi
  dpkg-deb -f "$deb" Package Version >"$dir.new/package"
  rm -rf "$tmp" "$dir"
  mv "$dir.new" "$dir"
}

# fetch ARCH SERIES METAPACKAGE [apt options]
fetch() {
  local arch=$1 series=$2 meta=$3
  shift 3
  local dir="$cache/$arch/$series"
  # x86_64's also keeps its msr.ko (a cache from before that is fetched again).
  if [ -s "$dir/vmlinuz" ] && [ -s "$dir/package" ] && { [ "$arch" != x86_64 ] || [ -s "$dir/msr.ko" ]; }; then
    echo "$arch $series: $(sed -n 's/^Package: //p' "$dir/package") (cached)"
    return
  fi
  local image
  image=$(depends_of "$meta" "$@")
  if [ -z "$image" ]; then
    echo "fetch-kernels.sh: apt-cache knows no $meta (run apt-get update)" >&2
    return 1
  fi
  (cd "$debs" && apt-get "$@" download "$image-unsigned" >/dev/null 2>&1) || {
    echo "fetch-kernels.sh: apt-get download $image-unsigned failed" >&2
    return 1
  }
  mkdir -p "$cache/$arch"
  extract "$(ls -t "$debs/$image-unsigned"_*.deb | head -1)" "$dir"
  rm -f "$debs/$image-unsigned"_*.deb
  echo "$arch $series: $image-unsigned"
}

# Refresh the host's lists once if they do not know the kernels (a fresh machine).
if [ -z "$(depends_of linux-image-rt-amd64)" ]; then
  apt-get update -qq
fi
fetch x86_64 6.1 linux-image-rt-amd64
fetch x86_64 6.12 linux-image-6.12-rt-amd64

# arm64, through a private apt state: the host's own is not touched.
state="$cache/apt-arm64"
mkdir -p "$state/lists/partial" "$state/cache/archives/partial"
arm64=(-o APT::Architecture=arm64 -o 'APT::Architectures::=arm64'
  -o "Dir::State::Lists=$state/lists" -o "Dir::Cache=$state/cache" -o Debug::NoLocking=1)
if [ ! -s "$cache/aarch64/6.1/vmlinuz" ] || [ ! -x "$cache/aarch64/busybox" ]; then
  apt-get "${arm64[@]}" update -qq
fi
fetch aarch64 6.1 linux-image-rt-arm64 "${arm64[@]}"
if [ ! -x "$cache/aarch64/busybox" ]; then
  (cd "$debs" && apt-get "${arm64[@]}" download busybox-static >/dev/null 2>&1)
  tmp=$(mktemp -d "$cache/.extract.XXXXXX")
  dpkg-deb --fsys-tarfile "$(ls -t "$debs"/busybox-static_*_arm64.deb | head -1)" | tar -C "$tmp" -x ./bin/busybox
  mv "$tmp/bin/busybox" "$cache/aarch64/busybox"
  rm -rf "$tmp" "$debs"/busybox-static_*_arm64.deb
  echo "aarch64 busybox: busybox-static (arm64)"
fi
