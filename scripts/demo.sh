#!/usr/bin/env bash
# The demo: two windows of 'shared-demo ui' side by side in tmux, on one app-storage suite.
# A change made in either window appears in the other at once.
#
# usage: scripts/demo.sh [DIR]         (DIR: the suite directory; default: a fresh temporary one)
#        scripts/demo.sh --gtk [DIR]   the same as two GTK 4 windows (shared-demo-gtk)
#
# Installs what is missing (libinotifytools0-dev, and tmux when there is a terminal), builds
# in release mode, and opens the tmux session. Without a terminal it prints the two commands
# to run in two terminals instead. With --gtk it also installs libgtk-4-dev and opens two
# windows on the desktop (side by side when xdotool is there), or says how without a display.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--gtk" ]; then
  shift
  scripts/ensure-system-packages.sh libinotifytools0-dev libgtk-4-dev
  scratch=(${SWIFT_SCRATCH_PATH:+--scratch-path "$SWIFT_SCRATCH_PATH"})
  swift build "${scratch[@]}" -c release --product shared-demo-gtk >&2
  gtk_demo="$(swift build "${scratch[@]}" -c release --show-bin-path)/shared-demo-gtk"
  dir="${1:-$(mktemp -d "${TMPDIR:-/tmp}/shared-demo.XXXXXX")}"
  dir="$(cd "$(dirname "$dir")" && pwd)/$(basename "$dir")"
  command="$(printf '%q --suite %q' "$gtk_demo" "$dir")"
  if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
    echo "No display here (neither DISPLAY nor WAYLAND_DISPLAY is set). On a desktop, run twice:"
    echo
    echo "  $command &"
    echo
    echo "Or on a virtual display (apt-get install -y xvfb x11vnc, then view :99 with a VNC client):"
    echo
    echo "  Xvfb :99 -screen 0 1000x700x24 & x11vnc -display :99 &"
    echo "  DISPLAY=:99 GDK_BACKEND=x11 $command & DISPLAY=:99 GDK_BACKEND=x11 $command &"
    echo
    echo "Then click + in one window: the other follows, and so does 'shared-demo ui --suite $dir'."
    exit 0
  fi
  "$gtk_demo" --suite "$dir" & first=$!
  "$gtk_demo" --suite "$dir" & second=$!
  # Side by side on X11 when xdotool is there (GTK 4 leaves window positions to the desktop).
  if [ -n "${DISPLAY:-}" ] && command -v xdotool >/dev/null; then
    x=0
    for pid in "$first" "$second"; do
      window="$(xdotool search --sync --all --onlyvisible --pid "$pid" --name '^SharedState' | tail -1)"
      xdotool windowmove "$window" "$x" 40 || true
      x=$((x + 460))
    done
  fi
  echo "Two windows on the suite $dir: click + in one, the other follows. Close both to end."
  wait
  exit 0
fi

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
