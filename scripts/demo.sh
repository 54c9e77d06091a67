#!/usr/bin/env bash
# Sets up what the demo needs and runs it: the README's first command.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/ensure-system-packages.sh libinotifytools0-dev
swift build --product shared-demo
exec "$(swift build --show-bin-path)/shared-demo" "$@"
