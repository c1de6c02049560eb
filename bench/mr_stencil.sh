#!/usr/bin/env bash
# Relative-speed diffusion on measured speeds (docs/mpi.md): wall time of example stencil with the
# odd ranks at half speed (--slow), without balancing and under each policy of the MPI library; the
# median of R runs each, on P real ranks. Run with ranks <= cores for meaningful times.
#   bench/mr_stencil.sh [build dir=build] [P=2] [columns=96] [iterations=200] [R=5]
set -euo pipefail
build=${1:-build} ranks=${2:-2} columns=${3:-96} iterations=${4:-200} repeats=${5:-5}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl=self,vader
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "| variant | median wall s ($repeats runs, $ranks ranks, odd ranks at half speed) | busiest rank's compute s (median) |"
echo "|---|---|---|"
for v in "--no-balance" "--policy best-effort" "--policy bt" "--policy fos" "--policy mr"; do
  times=() busy=()
  for ((k = 0; k < repeats; ++k)); do
    # shellcheck disable=SC2086
    out=$(mpiexec -np "$ranks" "$build/examples/stencil" "$columns" "$iterations" --slow $v)
    grep -q "equal to the serial run's" <<<"$out" || { echo "$v: wrong grid" >&2; exit 1; }
    times+=("$(sed -n 's/.*balanced: \([0-9.]*\) s;.*/\1/p' <<<"$out" | head -1)")
    busy+=("$(sed -n 's/.*busiest rank computed \([0-9.]*\) s.*/\1/p' <<<"$out" | head -1)")
  done
  echo "| ${v#--} | $(printf '%s\n' "${times[@]}" | median) | $(printf '%s\n' "${busy[@]}" | median) |"
done
