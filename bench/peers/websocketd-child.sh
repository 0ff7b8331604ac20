#!/bin/sh
# The websocketd peer's per-connection program (websocketd runs one per connection and turns each
# line it prints into a message). A broadcast through a file: every connection follows the shared
# events file with `tail -F`; a `start` command from any connection launches wsd-ticker.py, which
# appends Herald-shaped events to that file. usage (by websocketd): websocketd-child.sh EVENTS_FILE
events="$1"
here=$(dirname "$0")
touch "$events"
printf '{"type":"snapshot","protocol":1,"reason":"connect","epoch":"wsd-peer","seq":%d,"jobs":[]}\n' "$(wc -l < "$events")"
# A background list in a non-interactive shell reads /dev/null, so the loop reads a copy of stdin.
exec 3<&0
(
  while IFS= read -r line; do
    case "$line" in
      *'"type":"start"'*) python3 "$here/wsd-ticker.py" "$line" "$events" </dev/null & ;;
    esac
  done <&3
) &
exec tail -n 0 -F "$events" 2>/dev/null
