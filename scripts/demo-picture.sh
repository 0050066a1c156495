#!/bin/sh
# demo-picture.sh: make docs/demo.png, the picture of `zkx demo` in the
# README. It runs the demo in tmux at 120x40 on the embedded server, waits
# until every lane has counted a few hundred acquisitions, captures the
# screen with its colours, turns it into HTML (aha) and screenshots that
# with headless Chromium.
#
# Needs: go, tmux, aha, chromium (Debian: apt-get install tmux aha chromium).
# Usage: scripts/demo-picture.sh [OUT.png]   (default docs/demo.png)
set -eu

cd "$(dirname "$0")/.."
out=${1:-docs/demo.png}
for tool in go tmux aha chromium; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "demo-picture: $tool is missing (Debian: apt-get install tmux aha chromium)" >&2
		exit 1
	fi
done

work=$(mktemp -d)
sock="zkx-picture-$$"
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

go build -o "$work/zkx" .
# Truecolor, so the capture carries the palette's exact colours.
tmux -L "$sock" new-session -d -s demo -x 120 -y 40 \
	"env -u NO_COLOR COLORTERM=truecolor $work/zkx demo 2>$work/stderr; echo \$? >$work/exit"

# Wait (at most 90s) until the counters mean something: every lane past
# 600 acquisitions (the "acq" row), so the sparklines and ratios have settled.
deadline=$(( $(date +%s) + 90 ))
while :; do
	screen=$(tmux -L "$sock" capture-pane -p -t demo 2>/dev/null || true)
	ready=$(printf '%s\n' "$screen" | awk '
		/(^| )acq / {
			n = 0
			for (i = 1; i <= NF; i++) if ($i ~ /^[0-9,]+$/) { v = $i; gsub(",", "", v); if (v + 0 >= 600) n++ }
			if (n >= 4) ok = 1
		}
		END { print ok ? "yes" : "no" }')
	[ "$ready" = yes ] && break
	if [ "$(date +%s)" -ge "$deadline" ]; then
		echo "demo-picture: the demo did not get going within 90s; screen:" >&2
		printf '%s\n' "$screen" >&2
		cat "$work/stderr" >&2 || true
		exit 1
	fi
	sleep 0.5
done

# Lanes hand over many times a second: take a moment when each lane has a
# holder on screen (a few tries at most), so the picture shows one.
tries=0
while :; do
	tmux -L "$sock" capture-pane -e -p -t demo >"$work/screen.ansi"
	holders=$(sed 's/\x1b\[[0-9;:]*m//g' "$work/screen.ansi" | grep -o ' holding' | wc -l)
	tries=$((tries + 1))
	{ [ "$holders" -ge 4 ] || [ "$tries" -ge 50 ]; } && break
	sleep 0.1
done
aha --black --title "zkx demo" <"$work/screen.ansi" >"$work/screen.html"
# A monospace font that has the box-drawing and arrow glyphs.
sed -i 's|<pre>|<pre style="font-family: DejaVu Sans Mono, monospace; font-size: 14px; line-height: 17px; margin: 0">|; s|<body style="|<body style="margin: 14px; |' "$work/screen.html"
mkdir -p "$(dirname "$out")"
chromium --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --no-first-run --hide-scrollbars --window-size=1042,708 \
	--screenshot="$PWD/$out" "file://$work/screen.html" >/dev/null 2>&1

# Leave the demo page, then quit; the demo cleans up after itself.
tmux -L "$sock" send-keys -t demo q
tmux -L "$sock" send-keys -t demo q
deadline=$(( $(date +%s) + 60 ))
while [ ! -f "$work/exit" ] && [ "$(date +%s)" -lt "$deadline" ]; do sleep 0.2; done
echo "demo-picture: wrote $out"
