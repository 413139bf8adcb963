#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# build_zstd.sh OUTDIR: fetch Debian 12's zstd source (apt-get source) into
# OUTDIR and build its `zstd` CLI with clang XRay sleds on every function and
# the XRay runtime linked in, so the same binary can be traced by sledtrace
# and by LLVM's own XRay basic mode.  Leaves OUTDIR/zstd; does nothing when
# a binary built with the same recipe is already there.
set -euo pipefail
# shellcheck source=real_build.sh
. "$(dirname "${BASH_SOURCE[0]}")/real_build.sh"
real_build_start build_zstd "$@"

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
real_build_fresh "$bin" "$recipe" && exit 0

command -v "$cc" >/dev/null || die "$cc not found (install clang)"
command -v make >/dev/null || die "make not found"
debian_source zstd "$out/src" 'libzstd-*' programs/Makefile

log=$out/build.log
echo "$tag: building $srcdir/programs/zstd with $cc XRay (log: $log)" >&2
make -C "$srcdir/programs" clean >"$log" 2>&1 || true
if ! make -j"$(nproc)" -C "$srcdir/programs" zstd CC="$cc" CFLAGS="$cflags" \
	LDFLAGS="$ldflags" "${make_opts[@]}" >>"$log" 2>&1; then
	tail -n 30 "$log" >&2
	die "make failed (full log: $log)"
fi
"$srcdir/programs/zstd" -V >/dev/null 2>&1 || die "$srcdir/programs/zstd does not run"
real_build_install "$srcdir/programs/zstd" "$bin" "$recipe"
