#!/usr/bin/env bash
# Sets up what the tests need and runs them: the README's test command.
# tmux is for the end-to-end test of the demo (DemoWindowTests); postgresql is for the tests of
# SharedStatePostgres, which start servers of their own (initdb, pg_ctl).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/ensure-system-packages.sh libinotifytools0-dev tmux postgresql
swift build --build-tests
swift test --skip-build "$@"
