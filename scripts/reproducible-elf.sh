#!/usr/bin/env bash
# Rewrites, in place and at the same size, the two parts of a stripped imgprep binary whose bytes depend
# on where it was built, for scripts/build-deb.sh:
# - .swift_modhash: swiftc's hash of each object's LLVM module, which differs between build folders even
#   with -file-prefix-map (the module names its output file, the debug info its module cache's PCMs).
#   Only the compiler reads it, to skip rewriting an unchanged object; nothing reads it at run time. Zeroed.
# - .note.gnu.build-id: the linker's hash of the output, so of those hashes too. Made again the same way
#   from the result: SHA-1 of the file with the ID zeroed.
set -euo pipefail
elf=${1:?usage: reproducible-elf.sh BINARY}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

size_of() {   # a section's size in bytes, or nothing when the binary has no such section
  objdump -h "$elf" | awk -v name="$1" '$2 == name { print $3 }' | { read -r hex && echo $((16#$hex)); } || true
}
gnu_note() {   # an NT_GNU_BUILD_ID note: namesz 4, descsz 20, type 3, "GNU\0", then the 20 bytes given in hex
  printf '\x04\x00\x00\x00\x14\x00\x00\x00\x03\x00\x00\x00GNU\x00'
  printf "$(sed 's/../\\x&/g' <<<"$1")"
}

modhash=$(size_of .swift_modhash)
if [ -n "$modhash" ]; then
  head -c "$modhash" /dev/zero >"$work/zeros"
  objcopy --update-section .swift_modhash="$work/zeros" "$elf"
fi
[ "$(size_of .note.gnu.build-id)" = 36 ] || { echo "reproducible-elf: $elf has no 20-byte GNU build ID" >&2; exit 1; }
gnu_note "$(printf '%040d' 0)" >"$work/note"
objcopy --update-section .note.gnu.build-id="$work/note" "$elf"
gnu_note "$(sha1sum "$elf" | cut -c1-40)" >"$work/note"
objcopy --update-section .note.gnu.build-id="$work/note" "$elf"
