#!/usr/bin/env bash
# Build the ns-3 side of the wired benchmark (idempotent).
#
#  1. bench/.ns3-venv: a private venv holding the `ns3` PyPI wheel, which ships
#     the ns-3 C++ libraries and headers (we never import ns3 from Python).
#  2. bench/build/ns3-wired: bench/ns3/wired.cc compiled against those
#     libraries; rebuilt only when the source is newer than the binary.
#
# The wheel's pkg-config files carry the prefix of the machine that built it,
# so include/library paths and the rpath are given explicitly here.
#
# Environment: PYTHON (default python3), CXX (default g++), NS3_FORCE_BUILD=1.
# Prints the path of the binary on the last line of stdout.
set -euo pipefail

NS3_VERSION="3.44.post0"
NS3_LIB_VERSION="3.44"
# Modules the program uses, in link order (dependents before dependencies).
NS3_MODULES=(applications internet traffic-control point-to-point bridge network stats core)

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bench="$(dirname "$here")"
venv="$bench/.ns3-venv"
src="$here/wired.cc"
out_dir="$bench/build"
bin="$out_dir/ns3-wired"
python="${PYTHON:-python3}"
cxx="${CXX:-g++}"

log() { echo "ns3-setup: $*" >&2; }

if [[ ! -x "$venv/bin/python" ]]; then
    log "creating $venv"
    "$python" -m venv "$venv"
fi

installed="$("$venv/bin/python" -m pip show ns3 2>/dev/null || true)"
if ! grep -qx "Version: $NS3_VERSION" <<<"$installed"; then
    log "installing ns3==$NS3_VERSION (large download, about 500 MB unpacked)"
    "$venv/bin/python" -m pip install --disable-pip-version-check -q "ns3==$NS3_VERSION"
fi

# Locate the installed package without importing it (importing is slow).
ns3_dir="$("$venv/bin/python" - <<'EOF'
import importlib.util
spec = importlib.util.find_spec("ns3")
locs = list(spec.submodule_search_locations or []) if spec else []
print(locs[0] if locs else "")
EOF
)"
if [[ -z "$ns3_dir" || ! -d "$ns3_dir/include/ns3" || ! -d "$ns3_dir/lib64" ]]; then
    log "cannot find the ns-3 headers and libraries in the installed ns3 package"
    exit 1
fi

if [[ "${NS3_FORCE_BUILD:-0}" == 1 || ! -x "$bin" || "$src" -nt "$bin" ]]; then
    mkdir -p "$out_dir"
    libs=()
    for m in "${NS3_MODULES[@]}"; do
        libs+=("-lns$NS3_LIB_VERSION-$m")
    done
    log "compiling $src"
    "$cxx" -O2 -std=c++20 -Wall \
        -isystem "$ns3_dir/include" \
        -o "$bin.tmp" "$src" \
        -L"$ns3_dir/lib64" "${libs[@]}" \
        -Wl,-rpath,"$ns3_dir/lib64"
    mv -f "$bin.tmp" "$bin"
else
    log "up to date"
fi

echo "$bin"
