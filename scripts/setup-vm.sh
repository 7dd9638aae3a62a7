#!/bin/sh
# Installs what the vm backend needs and fetches the Debian kernels it boots.
# Run as root (CI: once per runner). Idempotent.
#
#   sudo scripts/setup-vm.sh            # QEMU, compilers, the 7.3 images
#   sudo scripts/setup-vm.sh --source   # also the 7.3 source subset the importer
#                                       # and the assembler's kernel-asm test read,
#                                       # and clang-19, llvm-19 and cpp, which read it;
#                                       # and each image's vmlinux BTF, and the
#                                       # vmlinux.h of its build (linux-bpf-dev)
#
# Host packages (from the machine's own apt sources): QEMU for x86_64 and
# arm64, and a C compiler with static libc for each guest arch (the guest
# loader, harness/guest/loader.c, is built on first use).
#
# Kernels: linux-binary-<version>-{amd64,arm64} (vmlinuz) and
# linux-base-<version>-{amd64,arm64} (its .config) from Debian (with --source
# also linux-bpf-dev:{amd64,arm64} of the same build: vmlinux.h), through a
# private apt configuration under the cache (/etc/apt is not touched, no
# foreign dpkg architecture is added).
#
# Environment:
#   BPF_SELFTEST_VM_KERNEL   kernel version (default 7.3.4+deb13)
#   BPF_SELFTEST_CACHE       cache root (default /var/cache/bpf-selftest);
#                            images go to $BPF_SELFTEST_CACHE/kernels/<version>-<arch>/,
#                            with --source their BTF and vmlinux.h to
#                            $BPF_SELFTEST_CACHE/btf/<version>-<arch>/
#   BPF_SELFTEST_MIRROR      Debian mirror (default http://deb.debian.org/debian;
#                            once the version has left trixie-backports use e.g.
#                            http://snapshot.debian.org/archive/debian/20261129T000000Z)
#   BPF_SELFTEST_SUITE       suite (default trixie-backports)
#   BPF_SELFTEST_SKIP_APT=1  do not install host packages
set -eu

want_source=0
[ "${1:-}" = --source ] && want_source=1

version=${BPF_SELFTEST_VM_KERNEL:-7.3.4+deb13}
cache=${BPF_SELFTEST_CACHE:-/var/cache/bpf-selftest}
mirror=${BPF_SELFTEST_MIRROR:-http://deb.debian.org/debian}
suite=${BPF_SELFTEST_SUITE:-trixie-backports}

say() { echo "setup-vm: $*"; }
die() { echo "setup-vm: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (it installs packages and writes $cache)"

# --- host packages ---------------------------------------------------------
if [ "${BPF_SELFTEST_SKIP_APT:-0}" != 1 ]; then
    case $(uname -m) in
    x86_64) cross="gcc-aarch64-linux-gnu libc6-dev-arm64-cross" ;;
    aarch64) cross="gcc-x86-64-linux-gnu libc6-dev-amd64-cross" ;;
    *) die "unsupported host arch $(uname -m) (x86_64 or aarch64)" ;;
    esac
    pkgs="qemu-system-x86 qemu-system-arm gcc libc6-dev $cross ca-certificates"
    # with --source: what reads the sources (cpp for the importer; clang-19
    # compiles the kernel's C selftests; llvm-mc-19 and llvm-objdump-19
    # re-check the assembler, the goldens and the JIT disassembly; zstd and
    # python3 for record-vmlinux-btf.py, which reads the x86_64 bzImage)
    [ "$want_source" = 1 ] && pkgs="$pkgs cpp clang-19 llvm-19 zstd python3"
    missing=
    for p in $pkgs; do
        dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
    done
    if [ -n "$missing" ]; then
        say "installing$missing"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        # shellcheck disable=SC2086 # word splitting intended
        apt-get install -y -qq --no-install-recommends $missing
    else
        say "host packages present"
    fi
fi

# --- kernels ---------------------------------------------------------------
apt_dir=$cache/apt
apt_opts() {
    # a private apt: own sources, lists, archives and status; both arches
    echo "-o Dir::Etc::SourceList=$apt_dir/sources.list -o Dir::Etc::SourceParts=$apt_dir/empty" \
         "-o Dir::Etc::Preferences=$apt_dir/empty/none -o Dir::Etc::PreferencesParts=$apt_dir/empty" \
         "-o Dir::State=$apt_dir/state -o Dir::State::Status=$apt_dir/state/status" \
         "-o Dir::Cache=$apt_dir/cache -o APT::Architecture=amd64" \
         "-o APT::Architectures::=amd64 -o APT::Architectures::=arm64" \
         "-o Debug::NoLocking=1 -o APT::Sandbox::User=root -q"
}
apt_ready=
apt_update() {
    [ -n "$apt_ready" ] && return
    mkdir -p "$apt_dir/empty" "$apt_dir/state/lists/partial" "$apt_dir/cache/archives/partial"
    : >"$apt_dir/state/status"
    echo "deb $mirror $suite main" >"$apt_dir/sources.list"
    say "apt update ($mirror $suite)"
    # shellcheck disable=SC2046
    apt-get $(apt_opts) update >/dev/null
    apt_ready=1
}

fetch() { # fetch ARCH: vmlinuz and config of $version-ARCH into $cache/kernels
    arch=$1
    rel=$version-$arch
    dest=$cache/kernels/$rel
    if [ -s "$dest/vmlinuz" ]; then
        say "$rel: $dest/vmlinuz present"
        return
    fi
    apt_update
    work=$(mktemp -d)
    (
        cd "$work"
        # shellcheck disable=SC2046
        apt-get $(apt_opts) download "linux-binary-$rel:$arch" "linux-base-$rel:$arch" >/dev/null
        for deb in ./*.deb; do
            dpkg-deb -x "$deb" root
        done
        # 7.3 packages ship usr/lib/modules/<release>/{vmlinuz,config}; older
        # ones boot/{vmlinuz,config}-<release>
        vmlinuz= config=
        for f in "root/usr/lib/modules/$rel/vmlinuz" "root/boot/vmlinuz-$rel"; do
            [ -s "$f" ] && vmlinuz=$f && break
        done
        for f in "root/usr/lib/modules/$rel/config" "root/boot/config-$rel"; do
            [ -s "$f" ] && config=$f && break
        done
        [ -n "$vmlinuz" ] || die "linux-binary-$rel has no vmlinuz"
        mkdir -p "$dest.tmp"
        cp "$vmlinuz" "$dest.tmp/vmlinuz"
        [ -z "$config" ] || cp "$config" "$dest.tmp/config"
        for deb in ./*.deb; do
            dpkg-deb -W --showformat='${Package} ${Version} ${Architecture}\n' "$deb"
        done >"$dest.tmp/PACKAGES"
    )
    rm -rf "$work" "$dest"
    mv "$dest.tmp" "$dest"
    say "$rel: $(sha256sum "$dest/vmlinuz" | cut -c1-16)… $dest/vmlinuz"
}

fetch amd64
fetch arm64

# --- kernel source (selftests, uapi headers, libbpf) --------------------------
# linux-source-<series> ships the tree as a tarball; only the parts the project
# reads are kept (source_parts). The list is written to the tree's SUBSET file:
# a tree extracted with another list is extracted again. libbpf's generated
# bpf_helper_defs.h is made in tools/lib/bpf, where bpf_helpers.h includes it.
source_parts="tools/testing/selftests/bpf tools/lib/bpf tools/include tools/arch/x86/include
tools/arch/arm64/include include/uapi arch/x86/include/uapi arch/arm64/include/uapi kernel/bpf net/bpf
scripts/bpf_doc.py"
fetch_source() {
    series=$(echo "$version" | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')
    dest=$cache/linux-$series
    if [ -d "$dest/tools/testing/selftests/bpf/progs" ] && [ "$(cat "$dest/SUBSET" 2>/dev/null)" = "$source_parts" ]; then
        say "linux-$series source: $dest present"
        return
    fi
    apt_update
    work=$(mktemp -d)
    (
        cd "$work"
        # shellcheck disable=SC2046
        apt-get $(apt_opts) download "linux-source-$series" >/dev/null
        dpkg-deb -x ./linux-source-*.deb root
        tarball=$(find root -name "linux-source-$series.tar.*" | head -1)
        [ -n "$tarball" ] || die "linux-source-$series has no tarball"
        mkdir -p "$dest.tmp"
        # shellcheck disable=SC2086 # one member per part
        tar -xf "$tarball" -C "$dest.tmp" --strip-components=1 \
            $(for p in $source_parts; do echo "linux-source-$series/$p"; done)
        # libbpf's bpf_helper_defs.h, generated as tools/lib/bpf/Makefile does
        python3 "$dest.tmp/scripts/bpf_doc.py" --header \
            --file "$dest.tmp/tools/include/uapi/linux/bpf.h" >"$dest.tmp/tools/lib/bpf/bpf_helper_defs.h"
        printf '%s' "$source_parts" >"$dest.tmp/SUBSET"
    )
    rm -rf "$work" "$dest"
    mv "$dest.tmp" "$dest"
    say "linux-$series source: $dest"
}
[ "$want_source" = 1 ] && fetch_source

# --- vmlinux BTF and vmlinux.h of each image -----------------------------------
# $cache/btf/<version>-<arch>/vmlinux.btf: the image's whole .BTF section (the
# bytes the guest's /sys/kernel/btf/vmlinux holds), checked and written by
# record-vmlinux-btf.py --blob. vmlinux.h beside it: the one Debian's
# linux-bpf-dev of the same build (the version in the image's PACKAGES) ships,
# which that build dumped from this BTF with the 7.3 tree's own bpftool, as the
# selftests' Makefile does (bookworm's bpftool 7.1 dumps the types alike but
# no kfunc prototypes, which some selftests need; the 7.3 one needs glibc 2.38).
# Each is made again when the image is newer (a refetched image).
vmlinux_btf() {
    arch=$1 deb=$2
    rel=$version-$deb
    dir=$cache/btf/$rel
    image=$cache/kernels/$rel/vmlinuz
    if [ ! -s "$dir/vmlinux.btf" ] || [ "$image" -nt "$dir/vmlinux.btf" ]; then
        BPF_SELFTEST_CACHE=$cache BPF_SELFTEST_VM_KERNEL=$version \
            python3 "$(dirname "$0")/record-vmlinux-btf.py" --blob --arch "$arch"
        touch "$dir/vmlinux.btf"
    fi
    if [ -s "$dir/vmlinux.h" ] && [ "$dir/vmlinux.h" -nt "$image" ]; then
        say "$rel: $dir/vmlinux.btf and vmlinux.h present"
        return
    fi
    pkgver=$(awk -v p="linux-binary-$rel" '$1 == p { print $2 }' "$cache/kernels/$rel/PACKAGES")
    [ -n "$pkgver" ] || die "$cache/kernels/$rel/PACKAGES names no linux-binary-$rel"
    apt_update
    work=$(mktemp -d)
    (
        cd "$work"
        # shellcheck disable=SC2046
        apt-get $(apt_opts) download "linux-bpf-dev:$deb=$pkgver" >/dev/null
        dpkg-deb -x ./linux-bpf-dev_*.deb root
        h=$(find root/usr/include -path '*/linux/bpf/vmlinux.h' | head -1)
        [ -n "$h" ] || die "linux-bpf-dev $pkgver ($deb) has no vmlinux.h"
        cp "$h" "$dir/vmlinux.h.tmp"
        dpkg-deb -W --showformat='${Package} ${Version} ${Architecture}\n' ./linux-bpf-dev_*.deb >"$dir/PACKAGES"
    )
    rm -rf "$work"
    mv "$dir/vmlinux.h.tmp" "$dir/vmlinux.h"
    say "$rel: $dir/vmlinux.h (linux-bpf-dev $pkgver, $(wc -l <"$dir/vmlinux.h") lines)"
}
if [ "$want_source" = 1 ]; then
    vmlinux_btf x86_64 amd64
    vmlinux_btf arm64 arm64
fi

# --- check the guest compilers ---------------------------------------------
probe=$(mktemp -d)
printf 'int main(void) { return 0; }\n' >"$probe/t.c"
case $(uname -m) in
x86_64) ccs="gcc aarch64-linux-gnu-gcc" ;;
*) ccs="gcc x86_64-linux-gnu-gcc" ;;
esac
for cc in $ccs; do
    "$cc" -static -o "$probe/t" "$probe/t.c" || die "$cc cannot link a static program (static libc missing?)"
done
rm -rf "$probe"
say "ready: qemu $(qemu-system-x86_64 --version | head -1 | sed 's/.*version //'), kernels $version-{amd64,arm64}"
