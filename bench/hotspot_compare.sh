#!/usr/bin/env bash
# The benchmark of docs/mpi.md ("Locality against Zoltan", issue 41): example hotspot (an n x n
# grid of cells, a hot spot of 8x cost jumping every 20 iterations) on P ranks, without balancing,
# under each policy of the MPI library without and with locality, and repartitioned by Zoltan's
# RCB and HSFC every N iterations for each N given (hotspot_zoltan, built when Debian's
# libtrilinos-zoltan-dev is installed); the median of R runs of each metric.
#   bench/hotspot_compare.sh [build dir=build] [P=4] [n=32] [iterations=200] [R=3] [N list="1 5 10 20 7"]
set -euo pipefail
build=${1:-build} ranks=${2:-4} n=${3:-32} iterations=${4:-200} repeats=${5:-3} every=${6:-"1 5 10 20 7"}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl=self,vader
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
variants=("--no-balance")
for p in best-effort bt fos; do variants+=("--policy $p" "--policy $p --locality"); done
if [ -x "$build/examples/hotspot_zoltan" ]; then
  for m in rcb hsfc; do for e in $every; do variants+=("--zoltan $m --every $e"); done; done
else
  echo "(no $build/examples/hotspot_zoltan: install libtrilinos-zoltan-dev, scripts/deps --bench, and rebuild)" >&2
fi
echo "| variant | time per iteration, ms | work imbalance | halo, cells | in flight, cells | cells moved |"
echo "|---|---|---|---|---|---|"
for v in "${variants[@]}"; do
  program="$build/examples/hotspot"
  [[ $v == --zoltan* ]] && program="$build/examples/hotspot_zoltan"
  t=() i=() h=() f=() m=()
  for ((k = 0; k < repeats; ++k)); do
    # shellcheck disable=SC2086
    out=$(mpiexec -np "$ranks" "$program" "$n" "$iterations" $v)
    line=$(grep "time per iteration" <<<"$out")
    t+=("$(sed -n 's/.*time per iteration \([0-9.]*\) ms.*/\1/p' <<<"$line")")
    i+=("$(sed -n 's/.*work imbalance \([0-9.]*\),.*/\1/p' <<<"$line")")
    h+=("$(sed -n 's/.*halo \([0-9.]*\) cells.*/\1/p' <<<"$line")")
    f+=("$(sed -n 's/.*in flight \([0-9.]*\) cells.*/\1/p' <<<"$line")")
    m+=("$(sed -n 's/.*cells moved \([0-9]*\),.*/\1/p' <<<"$out")")
  done
  echo "| ${v//--/} | $(printf '%s\n' "${t[@]}" | median) | $(printf '%s\n' "${i[@]}" | median) | $(printf '%s\n' "${h[@]}" | median) |" \
       "$(printf '%s\n' "${f[@]}" | median) | $(printf '%s\n' "${m[@]}" | median) |"
done
