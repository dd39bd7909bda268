#!/usr/bin/env bash
# Packs imgprep_VERSION_amd64.deb from a release binary built with --static-swift-stdlib (make deb).
# The version comes from the binary (`imgprep --version`); Depends from dpkg-shlibdeps on the binary,
# so it lists exactly the Debian libraries the binary links, plus libheif, which it opens at first use.
# Reproducible: the same commit gives the same bytes wherever it is built (scripts/deb-reproducible.sh
# checks): every mtime is SOURCE_DATE_EPOCH (the last commit's time), owners root, modes set here, the
# Makefile's build maps the checkout's path out of the binary and scripts/reproducible-elf.sh evens out
# the hashes that still depend on it.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:?usage: build-deb.sh path/to/static/imgprep}
version=$("$bin" --version | sed -n '1s/^imgprep //p')
[ -n "$version" ] || { echo "build-deb: no version from $bin --version" >&2; exit 1; }
arch=$(dpkg --print-architecture)
deb=imgprep_${version}_${arch}.deb
work=.build/deb
# Everything in the package comes from the binary and this script: repack only when one changed.
if [ "$deb" -nt "$bin" ] && [ "$deb" -nt "$0" ] && [ "$deb" -nt Makefile ] && [ "$deb" -nt scripts/debian-copyright ] \
   && [ "$deb" -nt LICENSE ] && [ "$deb" -nt scripts/reproducible-elf.sh ]; then
  echo "$deb is up to date"
  exit 0
fi
root=$work/debian/imgprep   # where dpkg-shlibdeps expects the package's files
rm -rf "$work" imgprep_*_"$arch".deb  # an older version beside it would confuse the Dockerfile's COPY
mkdir -p "$root/DEBIAN" "$work/debian"

# The Swift runtime must be inside the binary: the toolchain is not on the machines this installs on.
if ldd "$bin" | grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime|/opt/swift'; then
  echo "build-deb: $bin links the Swift toolchain's libraries (build it with --static-swift-stdlib)" >&2
  exit 1
fi

make --no-print-directory install-files INSTALL_BIN="$bin" DESTDIR="$root" PREFIX=/usr \
  ZSHCOMPDIR=/usr/share/zsh/vendor-completions
strip --strip-unneeded "$root/usr/bin/imgprep"
bash scripts/reproducible-elf.sh "$root/usr/bin/imgprep"   # the bytes swiftc and the linker derive from the build folder
gzip -9n "$root/usr/share/man/man1/imgprep.1"
mkdir -p "$root/usr/share/doc/imgprep"
{ echo "imgprep $version, built from its sources with Swift's runtime linked in."
  echo "The full guide is README.md in imgprep's sources."; } > "$root/usr/share/doc/imgprep/README"
# Debian's machine-readable copyright file: scripts/debian-copyright, then imgprep's own licence from
# LICENSE (its text after the copyright line, as a License paragraph: lines indented, blank ones " .").
{ cat scripts/debian-copyright
  echo
  echo "License: Expat"
  sed -n '/^Permission is hereby granted/,$p' LICENSE | sed -e 's/^$/./' -e 's/^/ /'
} > "$root/usr/share/doc/imgprep/copyright"
grep -q '^ Permission is hereby granted' "$root/usr/share/doc/imgprep/copyright" \
  || { echo "build-deb: LICENSE has no MIT permission notice to copy" >&2; exit 1; }

# dpkg-shlibdeps reads the package names from debian/control and maps each NEEDED library to the
# package (and minimum version) that ships it, from dpkg's own records.
# (-e takes its file attached: with a space the file is read as a bare argument, with a warning.)
printf 'Source: imgprep\n\nPackage: imgprep\nArchitecture: any\n' > "$work/debian/control"
depends=$(cd "$work" && dpkg-shlibdeps -O -edebian/imgprep/usr/bin/imgprep | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "build-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
# libheif, libjxl and libcurl are opened at first use, not linked (Sources/CHeif/LazyHeif.c, Sources/CJXL/LazyJXL.c,
# Sources/CFetch/fetch.c),
# so dpkg-shlibdeps cannot see them: add each as its own shlibs file states it, as dpkg-shlibdeps would have.
opened_at_first_use() {   # PACKAGE LIBRARY SONAME-VERSION
  local entry
  entry=$(awk -v l="$2" -v v="$3" '$1 == l && $2 == v {sub(/^[^ ]+ [^ ]+ /, ""); print}' "$(dpkg-query --control-path "$1" shlibs)")
  [ -n "$entry" ] || { echo "build-deb: no shlibs entry for $2.so.$3 (is $1 installed?)" >&2; exit 1; }
  depends="$depends, $entry"
}
opened_at_first_use libheif1 libheif 1
opened_at_first_use libjxl0.7 libjxl 0.7
opened_at_first_use libcurl4 libcurl 4

cat > "$root/DEBIAN/control" <<CONTROL
Package: imgprep
Version: $version
Architecture: $arch
Maintainer: imgprep developers <imgprep@localhost>
Installed-Size: $(du -sk --apparent-size --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends
Section: graphics
Priority: optional
Description: prepare images for upload in batch
 Reads HEIC/HEIF, AVIF, JPEG, PNG and WebP; writes upright JPEG, PNG, WebP,
 AVIF or HEIC with the metadata kept, resized or fitted to a byte budget,
 many files at a time, each in an isolated worker process.
CONTROL

# Modes and times from here, not from the umask or the clock (dpkg-deb only clamps newer mtimes to
# SOURCE_DATE_EPOCH, so a file older than the commit would keep its own); dpkg-deb sorts the members.
find "$root" -type d -exec chmod 755 {} +
find "$root" -type f ! -path "$root/usr/bin/*" -exec chmod 644 {} +
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
# One xz thread: multi-threaded xz writes other bytes, and how many threads it takes depends on the machine.
dpkg-deb --root-owner-group -Zxz --threads-max=1 --build "$root" "$deb" >/dev/null
echo "wrote $deb ($(stat -c %s "$deb") bytes)"
echo "Depends: $depends"
