#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# build_zstd.sh OUTDIR: fetch Debian 12's zstd source (apt-get source) into
# OUTDIR and build its `zstd` CLI with clang XRay sleds on every function and
# the XRay runtime linked in, so the same binary can be traced by sledtrace
# and by LLVM's own XRay basic mode.  Leaves OUTDIR/zstd; does nothing when
# a binary built with the same recipe is already there.
set -euo pipefail

die() {
	echo "build_zstd: $*" >&2
	exit 1
}

[ $# -eq 1 ] || die "usage: build_zstd.sh OUTDIR"
mkdir -p "$1" || die "cannot create $1"
out=$(cd "$1" && pwd)

cc=${CC_XRAY:-clang}
cflags="-O2 -g -fxray-instrument -fxray-instruction-threshold=1"
# -fxray-instrument at link time makes clang link the XRay runtime
# (the recipe deliberately omits -fnoxray-link-deps).
ldflags="-fxray-instrument"
# Single-threaded CLI, no gzip/xz/lz4 back ends: fewer moving parts, and
# the build does not depend on which -dev packages happen to be installed.
make_opts=(HAVE_THREAD=0 HAVE_ZLIB=0 HAVE_LZMA=0 HAVE_LZ4=0)
recipe="cc=$cc cflags=$cflags ldflags=$ldflags opts=${make_opts[*]}"

bin=$out/zstd
stamp=$out/zstd.recipe
if [ -x "$bin" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$recipe" ]; then
	exit 0
fi

command -v "$cc" >/dev/null || die "$cc not found (install clang)"
command -v dpkg-source >/dev/null || die "dpkg-source not found (install dpkg-dev)"
command -v make >/dev/null || die "make not found"

# The source index exists only with deb-src enabled (scripts/bootstrap) and
# after an apt-get update.
if [ -z "$(apt-cache showsrc zstd 2>/dev/null)" ]; then
	echo "build_zstd: no source index for zstd; running apt-get update" >&2
	apt-get update -q >&2 || die "apt-get update failed"
	[ -n "$(apt-cache showsrc zstd 2>/dev/null)" ] ||
		die "no deb-src entry provides zstd (run scripts/bootstrap to enable deb-src)"
fi

src_root=$out/src
srcdir=$(find "$src_root" -mindepth 1 -maxdepth 1 -type d -name 'libzstd-*' 2>/dev/null | head -n1 || true)
if [ -z "$srcdir" ] || [ ! -f "$srcdir/programs/Makefile" ]; then
	rm -rf "$src_root"
	mkdir -p "$src_root"
	# Newest version first, then every other version the index lists (a
	# mirror may lack the newest one's files, e.g. a security update's).
	specs=$(apt-cache showsrc zstd 2>/dev/null | sed -n 's/^Version: /zstd=/p' | sort -r -V -u)
	fetched=
	for spec in ${specs:-zstd}; do
		if (cd "$src_root" && apt-get source -q "$spec" >"$src_root/apt-source.log" 2>&1); then
			fetched=$spec
			break
		fi
		echo "build_zstd: 'apt-get source $spec' failed; trying another version" >&2
		rm -rf "${src_root:?}"/*
	done
	[ -n "$fetched" ] || die "apt-get source zstd failed for every listed version (see $src_root/apt-source.log)"
	srcdir=$(find "$src_root" -mindepth 1 -maxdepth 1 -type d -name 'libzstd-*' | head -n1)
	[ -n "$srcdir" ] && [ -f "$srcdir/programs/Makefile" ] ||
		die "apt-get source $fetched did not unpack a libzstd source tree in $src_root"
	echo "build_zstd: fetched $fetched into $srcdir" >&2
fi

log=$out/build.log
echo "build_zstd: building $srcdir/programs/zstd with $cc XRay (log: $log)" >&2
make -C "$srcdir/programs" clean >"$log" 2>&1 || true
if ! make -j"$(nproc)" -C "$srcdir/programs" zstd CC="$cc" CFLAGS="$cflags" \
	LDFLAGS="$ldflags" "${make_opts[@]}" >>"$log" 2>&1; then
	tail -n 30 "$log" >&2
	die "make failed (full log: $log)"
fi

built=$srcdir/programs/zstd
[ -x "$built" ] || die "make succeeded but $built is missing"
# (grep reads whole outputs: -q would SIGPIPE the producer under pipefail.)
[ "$(readelf -S "$built" | grep -c xray_instr_map)" -ge 1 ] ||
	die "$built has no xray_instr_map section"
[ "$(nm "$built" | grep -c ' __xray_init$')" -ge 1 ] ||
	die "$built does not link the XRay runtime"
"$built" -V >/dev/null 2>&1 || die "$built does not run"

cp "$built" "$bin.tmp"
mv "$bin.tmp" "$bin"
printf '%s\n' "$recipe" >"$stamp"
echo "build_zstd: built $bin" >&2
