#!/usr/bin/env bash
# make deb-test: installs imgprep_VERSION_amd64.deb into a bare Debian 12 tree (debootstrap minbase, no
# Swift toolchain) with the Dockerfile's own COPY and RUN steps, then runs imgprep there: --version
# (also without /proc), HEIC -> JPEG keeping EXIF, AVIF and HEIC written and read back, a byte budget,
# `man imgprep`, the bash completion and the copyright file. Fails on any missing library. Needs root
# and Debian's mirrors.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:?usage: deb-test.sh path/to/static/imgprep}
version=$("$bin" --version | sed -n '1s/^imgprep //p')
deb=imgprep_${version}_$(dpkg --print-architecture).deb
[ -f "$deb" ] || { echo "deb-test: $deb missing (make deb)" >&2; exit 1; }
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
pristine=.build/debian-bookworm     # the debootstrap tree, made once and copied for every run
root=.build/deb-test-root
started=$(date +%s)

fail() { echo "deb-test: FAIL: $*" >&2; exit 1; }
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
unmount_all() {
  for mount in "$root/proc" "$root/sys"; do
    if mountpoint -q "$mount" 2>/dev/null; then umount "$mount" || umount -l "$mount"; fi
  done
}
trap unmount_all EXIT

if [ ! -f "$pristine/.complete" ]; then
  echo "deb-test: debootstrap --variant=minbase bookworm (once; cached in $pristine)"
  rm -rf --one-file-system "$pristine" "$pristine.tmp"
  debootstrap --variant=minbase bookworm "$pristine.tmp" "$mirror" >/dev/null
  # Package lists fetched once here; each run's `apt-get update` then only revalidates them.
  cp /etc/resolv.conf "$pristine.tmp/etc/resolv.conf"
  mount -t proc proc "$pristine.tmp/proc"
  chroot "$pristine.tmp" apt-get update -q >/dev/null || { umount "$pristine.tmp/proc"; fail "apt-get update in the new tree"; }
  umount "$pristine.tmp/proc"
  touch "$pristine.tmp/.complete"
  mv "$pristine.tmp" "$pristine"
fi

unmount_all
rm -rf --one-file-system "$root"
cp -a "$pristine" "$root"
cp /etc/resolv.conf "$root/etc/resolv.conf"
[ ! -e "$root/opt/swift" ] && ! in_root sh -c 'command -v swift' >/dev/null || fail "the tree has a Swift toolchain"

# The Dockerfile's steps, as written there: COPY SRC DEST, then every RUN (continuation lines joined).
copy=$(sed -n 's/^COPY[[:space:]]\+\([^[:space:]]\+\)[[:space:]]\+\([^[:space:]]\+\)[[:space:]]*$/\2/p' Dockerfile)
[ -n "$copy" ] || fail "no COPY line in the Dockerfile"
mkdir -p "$root$copy"
cp "$deb" "$root$copy"
run=$(sed -e ':join' -e '/\\$/{N;s/\\\n//;b join' -e '}' Dockerfile | sed -n 's/^RUN[[:space:]]\+//p')
[ -n "$run" ] || fail "no RUN line in the Dockerfile"
# As in a container: /proc and /sys mounted (x265 asks libnuma about the CPUs there).
mount -t proc proc "$root/proc"
mount -t sysfs -o ro sysfs "$root/sys"
echo "deb-test: the Dockerfile's RUN step: $run"
in_root env DEBIAN_FRONTEND=noninteractive sh -ec "$run" >.build/deb-test-apt.log 2>&1 \
  || { tail -20 .build/deb-test-apt.log; fail "the Dockerfile's RUN step failed (log: .build/deb-test-apt.log)"; }

echo "deb-test: libraries"
in_root ldd /usr/bin/imgprep | tee .build/deb-test-ldd.txt
! grep -q 'not found' .build/deb-test-ldd.txt || fail "missing libraries"
! grep -Eq 'libswift|libFoundation|libdispatch' .build/deb-test-ldd.txt || fail "links the Swift runtime dynamically"

echo "deb-test: the copyright file"
copyright=$root/usr/share/doc/imgprep/copyright
head -1 "$copyright" | grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' \
  || fail "no machine-readable /usr/share/doc/imgprep/copyright"
for license in Expat 'Apache-2.0 with Swift exception' Unicode-3.0; do
  grep -qx "License: $license" "$copyright" || fail "the copyright file has no '$license' licence text"
done

echo "deb-test: without /proc: --version works, a command says what is missing"
umount "$root/proc"
set +e
in_root imgprep --version >.build/deb-test-noproc.txt 2>&1
noproc=$?
in_root imgprep info /nonexistent.heic >.build/deb-test-noproc-info.txt 2>&1
noproc_info=$?
set -e
mount -t proc proc "$root/proc"
[ "$noproc" -eq 0 ] || { cat .build/deb-test-noproc.txt >&2; fail "imgprep --version exits $noproc without /proc"; }
[ "$noproc_info" -eq 2 ] && grep -q '/proc is not mounted' .build/deb-test-noproc-info.txt \
  || { cat .build/deb-test-noproc-info.txt >&2; fail "imgprep info without /proc exits $noproc_info without naming /proc"; }

echo "deb-test: --version"
in_root imgprep --version | tee .build/deb-test-version.txt
grep -q "^imgprep $version$" .build/deb-test-version.txt || fail "--version does not say $version"
grep -q '^libheif ' .build/deb-test-version.txt || fail "--version names no libheif"

work=$root/tmp/imgprep-test
mkdir -p "$work"
cp Tests/Fixtures/heic/gps-p3.heic "$work/in.heic"

echo "deb-test: HEIC -> JPEG keeps EXIF"
in_root imgprep convert /tmp/imgprep-test/in.heic --to jpeg -o /tmp/imgprep-test/out.jpg
[ "$(exiftool -s3 -Model "$work/out.jpg")" = "Fixture Cam 1" ] || fail "the JPEG lost the EXIF Model"
[ -n "$(exiftool -s3 -GPSLatitude "$work/out.jpg")" ] || fail "the JPEG lost the GPS position"

echo "deb-test: AVIF and HEIC written, then read back"
# A 1600x1200 picture with detail everywhere (ImageMagick's seeded plasma), far over the budget at q95.
convert -seed 7 -size 1600x1200 plasma:fractal "$work/big.png"
budget=60000
in_root imgprep compress --to avif --max-bytes "$budget" /tmp/imgprep-test/big.png -o /tmp/imgprep-test/small.avif
size=$(stat -c %s "$work/small.avif")
[ "$size" -le "$budget" ] || fail "compress --to avif --max-bytes $budget wrote $size bytes"
in_root imgprep convert /tmp/imgprep-test/in.heic --to heic -o /tmp/imgprep-test/out.heic
for written in small.avif out.heic; do
  in_root imgprep convert "/tmp/imgprep-test/$written" --to png -o "/tmp/imgprep-test/$written.png"
  [ "$(exiftool -s3 -FileType "$work/$written.png")" = PNG ] || fail "$written did not read back"
done
[ "$(exiftool -s3 -FileType "$work/small.avif")" = AVIF ] || fail "small.avif is not an AVIF file"
[ "$(exiftool -s3 -FileType "$work/out.heic")" = HEIC ] || fail "out.heic is not a HEIC file"

echo "deb-test: man imgprep"
# The Dockerfile's step removed the package lists, as an image should.
in_root sh -c 'apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends man-db' >>.build/deb-test-apt.log 2>&1 \
  || fail "apt-get install man-db (log: .build/deb-test-apt.log)"
in_root env MANPAGER=cat MANWIDTH=80 man imgprep >.build/deb-test-man.txt 2>&1 || { cat .build/deb-test-man.txt; fail "man imgprep"; }
grep -q 'IMGPREP CONVERT' .build/deb-test-man.txt || fail "the man page has no convert section"

echo "deb-test: bash completion of 'imgprep convert --to '"
formats=$(in_root bash -c 'source /usr/share/bash-completion/completions/imgprep
  COMP_WORDS=(imgprep convert --to ""); COMP_CWORD=3; _imgprep; echo "${COMPREPLY[*]}"')
[ "$formats" = "jpeg png webp avif heic" ] || fail "bash completion offered '$formats'"

echo "deb-test: passed in $(( $(date +%s) - started )) s ($deb, $(stat -c %s "$deb") bytes)"
