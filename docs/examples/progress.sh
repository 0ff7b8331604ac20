#!/bin/sh
# Counts to $1 (default 5), reporting progress the way Herald reads it: one JSON object per line.
total=${1:-5}
i=0
while [ "$i" -lt "$total" ]; do
  i=$((i + 1))
  echo "working on item $i"                                    # a log line
  echo "{\"completed\": $i, \"total\": $total, \"message\": \"item $i\"}"
  sleep 0.1
done
echo "{\"result\": {\"items\": $total}}"
