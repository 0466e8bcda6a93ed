#!/usr/bin/env bash
# Build the ns-3 side of the benchmarks (idempotent).
#
#  1. bench/.ns3-venv: a private venv holding the `ns3` PyPI wheel, which ships
#     the ns-3 C++ libraries and headers (we never import ns3 from Python, so
#     the wheel's Python-binding dependencies are not installed).
#  2. bench/build/ns3-wired and bench/build/ns3-lte: bench/ns3/wired.cc and
#     bench/ns3/lte.cc compiled against those libraries; each is rebuilt only
#     when its source is newer than its binary.
#
# Usage: setup.sh [wired|lte]...   (no argument: both programs)
#
# The wheel's pkg-config files carry the prefix of the machine that built it,
# so include/library paths and the rpath are given explicitly here; only their
# `Requires:` lines are read, to link every module a program needs.
#
# Environment: PYTHON (default python3), CXX (default g++), NS3_FORCE_BUILD=1.
# Prints the path of each requested binary, one per line, last on stdout.
set -euo pipefail

NS3_VERSION="3.44.post0"
NS3_LIB_VERSION="3.44"
# The ns-3 modules each program uses directly; their dependencies are added
# from the wheel's pkg-config files.
declare -A NS3_ROOTS=(
    [wired]="applications point-to-point traffic-control"
    [lte]="lte mobility point-to-point applications internet"
)

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bench="$(dirname "$here")"
venv="$bench/.ns3-venv"
out_dir="$bench/build"
python="${PYTHON:-python3}"
cxx="${CXX:-g++}"

log() { echo "ns3-setup: $*" >&2; }

if [[ ! -x "$venv/bin/python" ]]; then
    log "creating $venv"
    "$python" -m venv "$venv"
fi

installed="$("$venv/bin/python" -m pip show ns3 2>/dev/null || true)"
if ! grep -qx "Version: $NS3_VERSION" <<<"$installed"; then
    log "installing ns3==$NS3_VERSION (about 70 MB to download, 330 MB unpacked)"
    "$venv/bin/python" -m pip install --disable-pip-version-check -q --no-deps "ns3==$NS3_VERSION"
fi

# Locate the installed package without importing it (importing is slow); -I keeps the
# working directory off sys.path, where bench/ns3 (these sources) would shadow it.
ns3_dir="$("$venv/bin/python" -I - <<'EOF'
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

pcdir="$ns3_dir/lib64/pkgconfig"

# Sets `libs` to the link flags for the given root modules and every module
# they require, dependents before their dependencies (a depth-first post-order
# over the `Requires:` lines, reversed).
declare -A seen_modules
module_order=()
visit_module() {
    local m="$1" pc="$pcdir/ns3-$1.pc" req
    [[ -n "${seen_modules[$m]:-}" ]] && return
    seen_modules[$m]=1
    if [[ ! -f "$pc" ]]; then
        log "no pkg-config file for ns-3 module $m ($pc)"
        exit 1
    fi
    for req in $(sed -n 's/^Requires:[[:space:]]*//p' "$pc"); do
        visit_module "${req#ns3-}"
    done
    module_order+=("$m")
}
resolve_libs() {
    seen_modules=()
    module_order=()
    local root i
    for root in "$@"; do
        visit_module "$root"
    done
    libs=()
    for ((i = ${#module_order[@]} - 1; i >= 0; i--)); do
        libs+=("-lns$NS3_LIB_VERSION-${module_order[i]}")
    done
}

build() {
    local name="$1" src="$here/$1.cc" bin="$out_dir/ns3-$1"
    # A binary whose libraries no longer resolve (built from another checkout, whose
    # venv the rpath names, since removed) is rebuilt too.
    if [[ "${NS3_FORCE_BUILD:-0}" == 1 || ! -x "$bin" || "$src" -nt "$bin" ]] \
        || ldd "$bin" 2>/dev/null | grep -q "not found"; then
        mkdir -p "$out_dir"
        # shellcheck disable=SC2086  # the roots are a word list
        resolve_libs ${NS3_ROOTS[$name]}
        log "compiling $src"
        # --allow-shlib-undefined: the wheel's config-store library calls GTK
        # (its optional GtkConfigStore) without listing GTK as a dependency;
        # those functions are never called here and bind lazily, if ever.
        "$cxx" -O2 -std=c++20 -Wall \
            -DRADIOTCP_NS3_VERSION="\"$NS3_VERSION\"" \
            -isystem "$ns3_dir/include" \
            -o "$bin.tmp" "$src" \
            -L"$ns3_dir/lib64" "${libs[@]}" \
            -Wl,-rpath,"$ns3_dir/lib64" -Wl,--allow-shlib-undefined
        mv -f "$bin.tmp" "$bin"
    else
        log "$bin up to date"
    fi
    built+=("$bin")
}

targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
    targets=(wired lte)
fi
built=()
for t in "${targets[@]}"; do
    if [[ -z "${NS3_ROOTS[$t]:-}" ]]; then
        log "unknown program '$t' (known: ${!NS3_ROOTS[*]})"
        exit 2
    fi
    build "$t"
done

printf '%s\n' "${built[@]}"
