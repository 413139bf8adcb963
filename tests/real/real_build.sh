# SPDX-License-Identifier: MIT
# real_build.sh: sourced by the build_*.sh scripts of the real programs
# (Debian sources built with XRay sleds); what they all do alike.
#   real_build_start NAME OUTDIR   sets `tag` (for messages) and `out`
#                                  (OUTDIR, made absolute), or dies
#   real_build_fresh BIN RECIPE    true when BIN exists, built by RECIPE
#   debian_source PKG SRC_ROOT DIR_GLOB MARKER
#                                  makes sure SRC_ROOT holds Debian 12's
#                                  source of PKG (apt-get source) in a
#                                  directory matching DIR_GLOB holding the
#                                  file MARKER, and sets `srcdir` to it
#   real_build_install BUILT BIN RECIPE
#                                  checks BUILT has sleds and moves it to
#                                  BIN, its recipe beside it

die() {
	echo "$tag: $*" >&2
	exit 1
}

real_build_start() {
	tag=$1
	[ $# -eq 2 ] || die "usage: $tag.sh OUTDIR"
	mkdir -p "$2" || die "cannot create $2"
	out=$(cd "$2" && pwd)
}

real_build_fresh() {
	[ -x "$1" ] && [ -f "$1.recipe" ] && [ "$(cat "$1.recipe")" = "$2" ]
}

debian_source() {
	local pkg=$1 src_root=$2 glob=$3 marker=$4 spec specs fetched=

	command -v dpkg-source >/dev/null || die "dpkg-source not found (install dpkg-dev)"
	srcdir=$(find "$src_root" -mindepth 1 -maxdepth 1 -type d -name "$glob" 2>/dev/null | head -n1 || true)
	[ -n "$srcdir" ] && [ -f "$srcdir/$marker" ] && return 0
	# The source index exists only with deb-src enabled (scripts/bootstrap)
	# and after an apt-get update.
	if [ -z "$(apt-cache showsrc "$pkg" 2>/dev/null)" ]; then
		echo "$tag: no source index for $pkg; running apt-get update" >&2
		apt-get update -q >&2 || die "apt-get update failed"
		[ -n "$(apt-cache showsrc "$pkg" 2>/dev/null)" ] ||
			die "no deb-src entry provides $pkg (run scripts/bootstrap to enable deb-src)"
	fi
	rm -rf "$src_root"
	mkdir -p "$src_root"
	# Newest version first, then every other version the index lists (a
	# mirror may lack the newest one's files, e.g. a security update's).
	specs=$(apt-cache showsrc "$pkg" 2>/dev/null | sed -n "s/^Version: /$pkg=/p" | sort -r -V -u)
	for spec in ${specs:-$pkg}; do
		if (cd "$src_root" && apt-get source -q "$spec" >"$src_root/apt-source.log" 2>&1); then
			fetched=$spec
			break
		fi
		echo "$tag: 'apt-get source $spec' failed; trying another version" >&2
		rm -rf "${src_root:?}"/*
	done
	[ -n "$fetched" ] || die "apt-get source $pkg failed for every listed version (see $src_root/apt-source.log)"
	srcdir=$(find "$src_root" -mindepth 1 -maxdepth 1 -type d -name "$glob" | head -n1)
	[ -n "$srcdir" ] && [ -f "$srcdir/$marker" ] ||
		die "apt-get source $fetched did not unpack a $pkg source tree in $src_root"
	echo "$tag: fetched $fetched into $srcdir" >&2
}

real_build_install() {
	local built=$1 bin=$2 recipe=$3

	[ -x "$built" ] || die "the build succeeded but $built is missing"
	# (grep reads whole outputs: -q would SIGPIPE the producer under pipefail.)
	[ "$(readelf -S "$built" | grep -c xray_instr_map)" -ge 1 ] ||
		die "$built has no xray_instr_map section"
	[ "$(nm "$built" | grep -c ' __xray_init$')" -ge 1 ] ||
		die "$built does not link the XRay runtime"
	cp "$built" "$bin.tmp"
	mv "$bin.tmp" "$bin"
	printf '%s\n' "$recipe" >"$bin.recipe"
	echo "$tag: built $bin" >&2
}
