#!/usr/bin/env bash
# The demo: two windows of 'shared-demo ui' side by side in tmux, on one app-storage suite.
# A change made in either window appears in the other at once.
#
# usage: scripts/demo.sh [DIR]   (DIR: the suite directory; default: a fresh temporary one)
#
# Installs what is missing (libinotifytools0-dev, and tmux when there is a terminal), builds
# in release mode, and opens the tmux session. Without a terminal it prints the two commands
# to run in two terminals instead.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/ensure-system-packages.sh libinotifytools0-dev
# SWIFT_SCRATCH_PATH picks a build folder other than .build.
scratch=(${SWIFT_SCRATCH_PATH:+--scratch-path "$SWIFT_SCRATCH_PATH"})
swift build "${scratch[@]}" -c release --product shared-demo >&2
demo="$(swift build "${scratch[@]}" -c release --show-bin-path)/shared-demo"

dir="${1:-}"
fresh=no
if [ -z "$dir" ]; then
  dir="$(mktemp -d "${TMPDIR:-/tmp}/shared-demo.XXXXXX")"
  fresh=yes
fi
dir="$(cd "$(dirname "$dir")" && pwd)/$(basename "$dir")"
command="$(printf '%q ui --suite %q' "$demo" "$dir")"

if ! [ -t 0 ] || ! [ -t 1 ]; then
  echo "No terminal here. Run this in two terminals, side by side:"
  echo
  echo "  $command"
  echo
  echo "Then press + or - in one of them: the other follows. (q quits.)"
  exit 0
fi

scripts/ensure-system-packages.sh tmux
session="shared-demo-$$"
tmux new-session -d -s "$session" -x "$(tput cols)" -y "$(tput lines)" "$command"
tmux split-window -h -t "$session" "$command"
tmux set-option -t "$session" status-left "[shared-demo] " >/dev/null
if [ -n "${TMUX:-}" ]; then
  # Already inside tmux: switch to the demo's session rather than nest one.
  tmux switch-client -t "$session"
else
  tmux attach-session -t "$session"
fi
# Remove a fresh suite once both windows have quit (not when the session was only detached).
if [ "$fresh" = yes ] && ! tmux has-session -t "$session" 2>/dev/null; then
  rm -rf "$dir"
fi
