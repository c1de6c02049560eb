#!/usr/bin/env bash
# Record and replay on example (2) (docs/mpi.md): the stencil (C columns, I iterations, P real
# ranks) is run under each policy with --trace; each trace is replayed on des under every policy,
# with the stencil's item choice (line-blocks). For each pair, the time to balance: the first
# balancing step at which every rank's load is within the band (stop.band, and the heaviest
# column), in steps and in seconds of the recorded run's clock. The replay of a trace under its
# own policy checks the simulation against the real run; under another policy it predicts that
# policy, and the real run of that policy checks the prediction. Both ways of firing the recorded
# steps are run (load.trace_steps): lock-step (the default) and at their recorded times.
#   bench/replay_stencil.sh [build=build] [P=4] [C=96] [I=400] [band=0.1] [out=results/replay]
# Writes OUT/replay.csv, OUT/replay.md (the table) and OUT/replay.png (gnuplot, when installed).
set -euo pipefail
build=${1:-build} ranks=${2:-4} columns=${3:-96} iterations=${4:-400} band=${5:-0.1} out=${6:-results/replay}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl=self,vader
mkdir -p "$out"
policies=(best-effort bertsekas-tsitsiklis fos)
field() { sed -n "s/^ *\"$1\": \([^,]*\),*$/\1/p" "$2" | head -1; }
for p in "${policies[@]}"; do
  mpiexec -np "$ranks" "$build/examples/stencil" "$columns" "$iterations" --policy "$p" --trace "$out/$p.trace" >"$out/$p.out"
  grep -q "equal to the serial run's" "$out/$p.out" || { echo "stencil --policy $p: wrong grid" >&2; exit 1; }
done
echo "recorded,replayed,recorded_step,recorded_s,replayed_step,replayed_s,recorded_wall_s,replayed_step_recorded_timing,replayed_s_recorded_timing" >"$out/replay.csv"
for rec in "${policies[@]}"; do
  wall=$(sed -n 's/.*: \([0-9.]*\) s; busiest.*/\1/p' "$out/$rec.out")
  for rep in "${policies[@]}"; do
    row="$rec,$rep"
    for steps in lockstep recorded; do
      json="$out/$rec-$rep-$steps.json"
      "$build/nnlb" run --set engine=des --set load.trace="$out/$rec.trace" --set algorithm="$rep" --set load.trace_choice=line-blocks \
        --set load.trace_steps=$steps --set stop.band="$band" --format json >"$json"
      [ "$(field max_conservation_error "$json")" = "0.0" ] || { echo "$rec replayed under $rep: not conserved" >&2; exit 1; }
      [ $steps = lockstep ] && row+=",$(field trace_balanced_step "$json"),$(field trace_balanced_at "$json"),$(field replay_balanced_step "$json"),$(field replay_balanced_at "$json"),$wall"
      [ $steps = recorded ] && row+=",$(field replay_balanced_step "$json"),$(field replay_balanced_at "$json")"
    done
    echo "$row" >>"$out/replay.csv"
  done
done
{
  echo "| recorded under | wall time | its time to balance | replayed under | predicted (lock-step) | predicted (recorded timing) | real run of that policy |"
  echo "|---|---|---|---|---|---|---|"
  awk -F, 'NR > 1 { real[$1] = $3 " (" $4 " s)" } NR > 1 { row[NR] = $0 }
           END { for (k = 2; k <= NR; ++k) { split(row[k], f, ","); printf "| %s | %s s | step %s (%s s) | %s | step %s (%s s) | step %s (%s s) | step %s |\n", f[1], f[7], f[3], f[4], f[2], f[5], f[6], f[8], f[9], real[f[2]] } }' "$out/replay.csv"
} >"$out/replay.md"
cat "$out/replay.md"
if command -v gnuplot >/dev/null; then
  awk -F, 'NR > 1 && $1 == "best-effort" { print $2, $5 } ' "$out/replay.csv" >"$out/predicted.dat"
  awk -F, 'NR > 1 && $1 == $2 { print $1, $3 }' "$out/replay.csv" >"$out/real.dat"
  gnuplot -e "set terminal pngcairo size 720,420; set output '$out/replay.png'; set style data histograms; set style fill solid 0.8;
    set ylabel 'steps to balance (band $band)'; set title 'stencil ${columns}x64, $iterations iterations, $ranks ranks: replayed from the best-effort trace vs real';
    plot '$out/predicted.dat' using 2:xtic(1) title 'predicted (des replay)', '$out/real.dat' using 2 title 'real run'"
fi
