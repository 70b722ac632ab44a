#!/usr/bin/env bash
# Builds the Debian package from the release binary with Debian's own tools
# (dpkg-deb; dpkg-shlibdeps from dpkg-dev for the libraries it links):
#   target/debian/facemouse_VERSION-1_ARCH.deb
# What it installs is listed in packaging/files; its control file, and the
# postinst that applies the uinput rule, are in packaging/debian/.
#
# Usage: scripts/deb.sh [--no-strip] [--uncompressed] [--output DIR]
#   --no-strip  keep the binary's symbols (faster; the tests use it)
#   --uncompressed  no xz (the tests use it: 1 s instead of 11 s; the package is 26 MB, not 10)
#   --output    the folder the package is written to (default target/debian)
set -euo pipefail
umask 022
cd "$(dirname "$0")/.."

strip=yes
compress=()
out=target/debian
while [ $# -gt 0 ]; do
    case $1 in
        --no-strip) strip=no ;;
        --uncompressed) compress=(-Znone) ;;
        --output) out=${2:?--output needs a folder}; shift ;;
        *) echo "deb.sh: unknown argument $1 (usage: scripts/deb.sh [--no-strip] [--uncompressed] [--output DIR])" >&2; exit 2 ;;
    esac
    shift
done

fail() { echo "deb.sh: $*" >&2; exit 1; }
for tool in dpkg-deb dpkg-shlibdeps; do
    command -v "$tool" >/dev/null || fail "$tool is missing: install dpkg-dev (make deps does)"
done
[ -x target/release/facemouse ] || fail "target/release/facemouse is missing: run make build first"

# The [package] table's version, with Debian revision 1.
version=$(awk '/^\[/{p = ($0 == "[package]")} p && /^version *=/{gsub(/[" ]/, ""); sub(/^version=/, ""); print; exit}' Cargo.toml)
[ -n "$version" ] || fail "no version in Cargo.toml's [package] table"
arch=$(dpkg --print-architecture)

# dpkg-shlibdeps wants a source tree: debian/control, and the package's files under debian/PACKAGE.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/debian/facemouse
mkdir -p "$root/DEBIAN"
printf 'Source: facemouse\n\nPackage: facemouse\nArchitecture: any\n' >"$work/debian/control"

while read -r pattern dest mode; do
    case $pattern in ''|'#'*) continue ;; esac
    matched=0
    for file in $pattern; do
        [ -f "$file" ] || continue
        install -D -m "$mode" "$file" "$root/$dest$(basename "$file")"
        matched=1
    done
    [ $matched = 1 ] || fail "packaging/files: nothing matches $pattern"
done <packaging/files

[ $strip = no ] || strip --strip-unneeded "$root/usr/bin/facemouse"

shlibs=$(cd "$work" && dpkg-shlibdeps -O -e "debian/facemouse/usr/bin/facemouse" 2>"$work/shlibdeps.err") \
    || fail "dpkg-shlibdeps failed: $(head -n 3 "$work/shlibdeps.err")"
shlibs=${shlibs#shlibs:Depends=}
size=$(du -s -k --apparent-size "$root" | cut -f1)

{
    grep -v '^#' packaging/debian/control | while IFS= read -r line; do
        case $line in
            Package:*) printf '%s\nVersion: %s-1\nArchitecture: %s\n' "$line" "$version" "$arch" ;;
            Maintainer:*) printf '%s\nInstalled-Size: %s\n' "$line" "$size" ;;
            Depends:*) printf '%s\n' "${line/'${shlibs:Depends}'/$shlibs}" ;;
            *) printf '%s\n' "$line" ;;
        esac
    done
} >"$root/DEBIAN/control"
install -m 755 packaging/debian/postinst "$root/DEBIAN/postinst"
(cd "$root" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
find "$root" -type d -exec chmod 755 {} +

mkdir -p "$out"
deb=$out/facemouse_${version}-1_${arch}.deb
dpkg-deb --root-owner-group "${compress[@]}" --build "$root" "$deb.part" >/dev/null
mv -f "$deb.part" "$deb"
echo "$deb"
