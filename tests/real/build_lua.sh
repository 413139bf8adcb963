#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# build_lua.sh OUTDIR: fetch Debian 12's Lua 5.4 source (apt-get source)
# into OUTDIR and build its `lua` interpreter with clang XRay sleds on every
# function and the XRay runtime linked in, so the same binary can be traced
# by sledtrace and by LLVM's own XRay basic mode.  Leaves OUTDIR/lua; does
# nothing when a binary built with the same recipe is already there.
#
# Lua seeds its string hashes from the time and from addresses (ASLR), so
# the layout of its tables, and with it how often some of its functions
# are called, differs between two runs of one script.  The build fixes the
# seed (luai_makeseed, Lua's own configuration hook) so that every run of
# a deterministic script makes exactly the same calls: what an exact
# comparison of call counts, and diff's count rules, need.
set -euo pipefail
# shellcheck source=real_build.sh
. "$(dirname "${BASH_SOURCE[0]}")/real_build.sh"
real_build_start build_lua "$@"

cc=${CC_XRAY:-clang}
cflags="-O2 -g -fxray-instrument -fxray-instruction-threshold=1 -DLUA_USE_LINUX"
cflags="$cflags -Dluai_makeseed(L)=0x5eedu"
# -fxray-instrument at link time links the XRay runtime.
ldflags="-fxray-instrument -lm -ldl"
recipe="cc=$cc cflags=$cflags ldflags=$ldflags"
bin=$out/lua
real_build_fresh "$bin" "$recipe" && exit 0

command -v "$cc" >/dev/null || die "$cc not found (install clang)"
debian_source lua5.4 "$out/src" 'lua5.4-*' src/lvm.c

# Debian's luaconf.h includes a header its packaging generates with the
# multiarch triplet (the C module search path); write it beside the build.
inc=$out/include
mkdir -p "$inc"
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
printf '#define DEB_HOST_MULTIARCH "%s"\n' "$triplet" >"$inc/lua5.4-deb-multiarch.h"

log=$out/build.log
echo "$tag: building $srcdir/src/lua with $cc XRay (log: $log)" >&2
sources=()
for f in "$srcdir"/src/*.c; do
	[ "$(basename "$f")" = luac.c ] || sources+=("$f")
done
# shellcheck disable=SC2086 # the flags are words
if ! "$cc" $cflags -I"$inc" -o "$out/lua.built" "${sources[@]}" $ldflags >"$log" 2>&1; then
	tail -n 30 "$log" >&2
	die "the build failed (full log: $log)"
fi
"$out/lua.built" -e 'assert(1 + 1 == 2)' || die "$out/lua.built does not run"
real_build_install "$out/lua.built" "$bin" "$recipe"
rm -f "$out/lua.built"
