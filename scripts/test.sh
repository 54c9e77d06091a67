#!/usr/bin/env bash
# Sets up what the tests need and runs them: the README's test command.
# tmux is for the end-to-end test of the demo (DemoWindowTests); postgresql is for the tests of
# SharedStatePostgres, which start servers of their own (initdb, pg_ctl); libgtk-4-dev builds
# SharedStateGLib and shared-demo-gtk, whose test runs two windows under Xvfb, clicks with
# xdotool and takes a screenshot with xwd (x11-apps) and ImageMagick; strace holds the demo
# between two system calls in InPlaceWriteRaceTests.
#
# With no arguments the tests run in two passes. The tests that time one operation against a
# bound (an increment while another process's observer sleeps: under 100 ms where waiting would
# take 2 s) run in the second pass, alone: on two cores, the first pass's fifty-odd suites in
# parallel make a single PostgreSQL transaction take over 100 ms now and then, which says
# nothing of the library. Arguments go to one `swift test` as they are.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/ensure-system-packages.sh libinotifytools0-dev tmux postgresql strace \
  libgtk-4-dev xvfb xdotool x11-apps imagemagick
swift build --build-tests
if [[ $# -gt 0 ]]; then
  exec swift test --skip-build "$@"
fi
timed='aSlowObserverInOneProcessHoldsUpNoOtherProcess'
swift test --skip-build --skip "$timed"
echo "== The timed tests, alone =="
swift test --skip-build --filter "$timed"
