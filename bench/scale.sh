#!/usr/bin/env bash
# The discrete-event engine at scale (docs/benchmarks.md, "The discrete-event engine at scale"):
# Bertsekas-Tsitsiklis with virtual load from uniform:0,2000 on hypercubes of 2^d nodes, series
# off, one run each. Prints a Markdown table: nodes, degree, peak RSS, the engine's memory
# estimate, wall time, events (handlers run), events/s, bytes a node, and the peak of messages
# held (on a wire or in a mailbox, not yet taken).
#   bench/scale.sh [build=build] [dims="12 16"] [max_memory=22G]
# The issue's sizes are dims="12 16 18 20" (20: 10-11 minutes and 3.7 GB on 2026-12-06, 25 minutes
# and 20 GB before the compact layout; do not run it on a shared machine).
set -euo pipefail
build=${1:-build} dims=${2:-"12 16"} max_memory=${3:-22G}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
field() { python3 -c "import json,sys; v=json.load(open(sys.argv[1])); [v := v[k] for k in sys.argv[2].split('.')]; print(v)" "$1" "$2"; }
echo "| nodes | degree | peak RSS (MB) | estimate (MB) | wall (s) | events | events/s | bytes a node | messages held (peak) |"
echo "|---|---|---|---|---|---|---|---|---|"
for d in $dims; do
  args=(run --set engine=des --set topology=hypercube:$d --set algorithm=bertsekas-tsitsiklis
        --set async.virtual_load=true --set load.init=uniform:0,2000 --set output.series_every=0 --format json)
  estimate=$("$build/nnlb" "${args[@]}" --max-memory 1K 2>&1 >/dev/null | sed -n 's/.* needs about \([0-9.e+]*\) \([KMG]\)iB.*/\1 \2/p' || true)
  /usr/bin/time -f "%M %e" -o "$out/time" "$build/nnlb" "${args[@]}" --max-memory "$max_memory" >"$out/run.json"
  read -r rss_kb wall <"$out/time"
  nodes=$((1 << d))
  events=$(field "$out/run.json" summary.events)
  held=$(field "$out/run.json" engine_info.messages_held_peak)
  python3 - "$nodes" "$d" "$rss_kb" "$wall" "$events" "$held" "$estimate" <<'EOF'
import sys
nodes, d, rss_kb, wall, events, held = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(float(sys.argv[5])), int(float(sys.argv[6]))
est = sys.argv[7].split()
scale = {"K": 1 / 1024, "M": 1, "G": 1024}
estimate = f"{float(est[0]) * scale[est[1]] * 1.048576:.0f}" if len(est) == 2 else "?"
print(f"| {nodes:,} | {d} | {rss_kb / 1000:.0f} | {estimate} | {wall:.1f} | {events:,} | {events / wall / 1e6:.2f} M | {rss_kb * 1024 / nodes:,.0f} | {held:,} |")
EOF
done
