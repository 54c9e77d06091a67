#!/usr/bin/env bash
# Builds the DocC documentation of the three library products (SharedState, SharedStatePostgres,
# SharedStateGLib) with swift-docc-plugin, and fails on any warning: a broken link, a symbol
# link that names nothing, a doc comment's parameter that the function does not have. Checks
# first that every relative link of README.md and BENCHMARKS.md names a file of the repository.
#
# usage: scripts/docs.sh [--output DIR] [TARGET...]
#   --output DIR   also keep the built archives, one TARGET.doccarchive each, in DIR
#   TARGET         the targets to document (default: all three)
#
# Called by .ci/run after the tests. Needs what the targets' builds need (libinotifytools0-dev,
# and GLib's headers for SharedStateGLib: libglib2.0-dev, which libgtk-4-dev brings).
set -euo pipefail
cd "$(dirname "$0")/.."

output=""
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --output) output="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "docs.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(SharedState SharedStatePostgres SharedStateGLib)

# The pages' relative links ('](path)' and '](path#anchor)'), which forges render as files.
broken=0
for page in README.md BENCHMARKS.md; do
  while IFS= read -r link; do
    if [ ! -e "$link" ]; then
      echo "docs.sh: $page links to '$link', which does not exist" >&2
      broken=1
    fi
  done < <(grep -o '](\([^)]*\))' "$page" | sed 's/^](//; s/)$//; s/#.*//' | grep -v '^[a-z]*:' | grep . | sort -u)
done
[ "$broken" -eq 0 ] || exit 1

scripts/ensure-system-packages.sh libinotifytools0-dev libglib2.0-dev
scratch=(${SWIFT_SCRATCH_PATH:+--scratch-path "$SWIFT_SCRATCH_PATH"})
failed=()
for target in "${targets[@]}"; do
  echo "== DocC: $target" >&2
  write=()
  out=()
  if [ -n "$output" ]; then
    mkdir -p "$output"
    write=(--allow-writing-to-directory "$output")
    out=(--output-path "$output/$target.doccarchive")
  fi
  # --warnings-as-errors: docc turns every warning into an error and exits non-zero, and the
  # plugin then fails.
  if ! swift package "${scratch[@]}" "${write[@]}" generate-documentation --target "$target" \
      "${out[@]}" --warnings-as-errors; then
    failed+=("$target")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "docs.sh: the documentation of ${failed[*]} has warnings or errors (above)" >&2
  exit 1
fi
echo "docs.sh: ${targets[*]}: built with no warnings" >&2
