#!/usr/bin/env bash
# Sets up what the tests need and runs them: the README's test command.
# tmux is for the end-to-end test of the demo (DemoWindowTests); postgresql is for the tests of
# SharedStatePostgres, which start servers of their own (initdb, pg_ctl); libgtk-4-dev builds
# SharedStateGLib and shared-demo-gtk, whose test runs two windows under Xvfb, clicks with
# xdotool and takes a screenshot with xwd (x11-apps) and ImageMagick; strace holds the demo
# between two system calls in InPlaceWriteRaceTests.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/ensure-system-packages.sh libinotifytools0-dev tmux postgresql strace \
  libgtk-4-dev xvfb xdotool x11-apps imagemagick
swift build --build-tests
swift test --skip-build "$@"
