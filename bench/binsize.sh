#!/usr/bin/env bash
# bench/binsize.sh - what the offsetctl binary is made of, by Go module.
#
#   bench/binsize.sh            # the working tree
#   TOP=30 bench/binsize.sh     # more rows
#
# Builds offsetctl twice (as released: plain `go build`; and stripped with
# -ldflags='-s -w', which drops the symbol table and DWARF), prints both
# sizes, then attributes the unstripped build's symbols (functions, type
# descriptors, read-only and initialised data: everything `go tool nm -size`
# places in a file-backed section, .debug_* left out) to the module that
# owns their package. The runtime's function tables (pclntab, funcdata)
# grow with the code but are not per symbol: they are reported as one line.
# What a module costs is about its share of the attributed bytes times the
# stripped size; removing it outright (a build without the code that
# imports it) is the exact figure, see bench/binsize.md.
set -euo pipefail
TOP=${TOP:-20}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/oc" . && go build -ldflags='-s -w' -o "$work/oc-s" .)
(cd "$root" && go list -deps -f '{{with .Module}}{{.Path}}{{end}}' . | sort -u) >"$work/mods"
echo "go: $(go env GOVERSION) $(go env GOOS)/$(go env GOARCH)"
echo "offsetctl: $(stat -c %s "$work/oc") bytes as built, $(stat -c %s "$work/oc-s") stripped (-ldflags='-s -w')"
echo
python3 - "$work/oc" "$work/mods" "$TOP" <<'PY'
import collections, re, subprocess, sys
binf, modsf, top = sys.argv[1], sys.argv[2], int(sys.argv[3])
mods = sorted((l.strip() for l in open(modsf) if l.strip()), key=len, reverse=True)
secs = []
for l in subprocess.run(["readelf", "-S", "-W", binf], capture_output=True, text=True, check=True).stdout.splitlines():
    m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", l)
    if m and m.group(2) != "NOBITS" and int(m.group(3), 16) and not m.group(1).startswith(".debug"):
        lo = int(m.group(3), 16)
        secs.append((lo, lo + int(m.group(5), 16)))
def owner(sym):
    s = sym
    for pre in ("type:.eq.", "type:.hash.", "type:", "go:itab.", "go:string.", "go:"):
        if s.startswith(pre):
            s = s[len(pre):]
            break
    s = s.lstrip("*[]")
    cut = re.split(r"[\[(,;]", s, 1)[0]
    j = cut.find(".", cut.rfind("/") + 1)
    pkg = cut[:j] if j > 0 else cut
    for m in mods:
        if pkg == m or pkg.startswith(m + "/"):
            return m
    return "Go standard library and runtime"
by, tables = collections.Counter(), 0
nm = subprocess.run(["go", "tool", "nm", "-size", binf], capture_output=True, text=True, check=True).stdout
for line in nm.splitlines():
    f = line.split(None, 3)
    if len(f) < 4:
        continue
    addr, size, name = int(f[0], 16), int(f[1]), f[3].strip()
    if not any(lo <= addr < hi for lo, hi in secs):
        continue  # bss (e.g. FIPS DRBG's 32 MiB buffer) takes no file space
    if name.startswith("go:func.") or name in ("runtime.pclntab", "runtime.findfunctab", "runtime.typelink", "runtime.itablink"):
        tables += size
        continue
    by[owner(name)] += size
total = sum(by.values())
print("| module | attributed MB | share |")
print("|---|---|---|")
for k, v in by.most_common(top):
    print(f"| {k} | {v/1e6:.2f} | {100*v/total:.1f} % |")
rest = total - sum(v for _, v in by.most_common(top))
print(f"| (other {max(len(by)-top, 0)} modules) | {rest/1e6:.2f} | {100*rest/total:.1f} % |")
print(f"| attributed total | {total/1e6:.2f} | 100 % |")
print(f"\nfunction tables not attributed per symbol: {tables/1e6:.2f} MB")
PY
