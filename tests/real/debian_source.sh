# SPDX-License-Identifier: MIT
# debian_source.sh: sourced by the build_*.sh scripts of real programs.
# debian_source PKG SRC_ROOT DIR_GLOB MARKER: makes sure SRC_ROOT holds
# Debian 12's source of PKG (apt-get source), unpacked in a directory
# matching DIR_GLOB that contains the file MARKER, and sets `srcdir` to it.
# Fetches only when that is not there yet.  Needs `die` and `tag` (the
# caller's name for messages) from the caller.

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
