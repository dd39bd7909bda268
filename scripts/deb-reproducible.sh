#!/usr/bin/env bash
# Part of make deb-test: the .deb is reproducible. Clones HEAD into two folders whose paths differ (in
# length too), runs `make deb` in each, from scratch, and requires byte-identical packages. On a
# mismatch it says which ar member, which file and which bytes differ (and runs diffoscope if present).
# Two release builds from scratch: about 4 minutes each on a busy 2-core machine.
# Swift 6.3.1's release builds are not always deterministic (an open bug: swiftlang/swift#77168): in two
# runs of three here, one clone's GIFDecoder.composite had its registers chosen otherwise (2 and 20
# bytes), everything else being equal. The hint below names such a function.
#   KEEP=1   keep the clones (in .build/deb-reproducible/) for a look
set -euo pipefail
cd "$(dirname "$0")/.."
commit=$(git rev-parse HEAD)
[ -z "$(git status --porcelain --untracked-files=no)" ] \
  || echo "deb-reproducible: note: the working tree has uncommitted changes; this checks HEAD ($commit)"
work=$PWD/.build/deb-reproducible
started=$(date +%s)
rm -rf --one-file-system "$work"
mkdir -p "$work"
cleanup() { [ "${KEEP:-}" = 1 ] || rm -rf --one-file-system "$work/a" "$work/a-second-checkout-with-a-longer-path"; }
trap cleanup EXIT

debs=()
for clone in "$work/a" "$work/a-second-checkout-with-a-longer-path"; do
  # --no-checkout then the commit: a clone of a worktree would otherwise check out the main branch.
  git clone -q --no-checkout "$PWD" "$clone"
  git -C "$clone" checkout -q --detach "$commit"
  echo "deb-reproducible: make deb in $clone"
  built=$(date +%s)
  nice -n 5 make --no-print-directory -C "$clone" deb >"$clone.log" 2>&1 \
    || { tail -20 "$clone.log" >&2; echo "deb-reproducible: FAIL: make deb in $clone (log: $clone.log)" >&2; exit 1; }
  deb=$(ls "$clone"/imgprep_*.deb)
  cp "$deb" "$clone.deb"
  debs+=("$clone.deb")
  echo "deb-reproducible: $(basename "$deb") in $(( $(date +%s) - built )) s: $(sha256sum "$deb" | cut -d' ' -f1)"
done

one=${debs[0]} two=${debs[1]}
if cmp -s "$one" "$two"; then
  echo "deb-reproducible: passed in $(( $(date +%s) - started )) s: both builds gave the same bytes"
  exit 0
fi

echo "deb-reproducible: FAIL: the two packages differ" >&2
sha256sum "$one" "$two" >&2
for member in $(ar t "$one"); do
  cmp -s <(ar p "$one" "$member") <(ar p "$two" "$member") || echo "  ar member $member differs" >&2
done
diff <(dpkg-deb -c "$one") <(dpkg-deb -c "$two") | sed 's/^/  listing: /' >&2 || true
diff <(dpkg-deb -I "$one") <(dpkg-deb -I "$two") | sed 's/^/  control: /' >&2 || true
dpkg-deb -R "$one" "$work/one"
dpkg-deb -R "$two" "$work/two"
( cd "$work/one" && find . -type f | sort ) | while IFS= read -r file; do
  if ! cmp -s "$work/one/$file" "$work/two/$file"; then
    echo "  $file differs: $(cmp -l "$work/one/$file" "$work/two/$file" 2>/dev/null | wc -l) bytes, first: $(cmp "$work/one/$file" "$work/two/$file" 2>&1 | head -1)" >&2
  fi
done
# Where in the binary: the sections, and in .text the functions, by the unstripped binary's symbols
# (strip leaves the loaded sections where they were).
if ! cmp -s "$work/one/usr/bin/imgprep" "$work/two/usr/bin/imgprep" && command -v python3 >/dev/null; then
  python3 - "$work/one/usr/bin/imgprep" "$work/two/usr/bin/imgprep" "$work/a/.build/static/release/imgprep" <<'PYTHON' >&2
import bisect, re, subprocess, sys
one, two, unstripped = sys.argv[1:4]
a, b = open(one, "rb").read(), open(two, "rb").read()
offsets = [i for i in range(min(len(a), len(b))) if a[i] != b[i]]
sections = []
for line in subprocess.run(["readelf", "-S", "-W", one], capture_output=True, text=True).stdout.splitlines():
    m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", line)
    if m: sections.append((m.group(1), int(m.group(2), 16), int(m.group(3), 16), int(m.group(4), 16)))
symbols = sorted((int(f[0], 16), f[2]) for f in (l.split() for l in subprocess.run(
    ["nm", "--defined-only", unstripped], capture_output=True, text=True).stdout.splitlines()) if len(f) == 3)
starts = [s[0] for s in symbols]
where = {}
for offset in offsets:
    section = next(((n, offset - o + addr) for n, addr, o, size in sections if o <= offset < o + size), ("?", None))
    name = section[0]
    if name == ".text" and starts:
        i = bisect.bisect_right(starts, section[1]) - 1
        if i >= 0: name += " " + symbols[i][1]
    where[name] = where.get(name, 0) + 1
for name, count in sorted(where.items(), key=lambda item: -item[1])[:10]:
    print(f"    {count} bytes in {name}")
PYTHON
fi
if command -v diffoscope >/dev/null; then
  diffoscope "$one" "$two" | head -200 >&2 || true
else
  echo "  (the unpacked trees are in $work/one and $work/two; diffoscope would show more)" >&2
fi
KEEP=1
exit 1
