#!/usr/bin/env bash
# The comparison of docs/mpi.md: wall time of example work_items (N items with data, 7 in 8 on
# rank 0) without balancing, as a task pool (master/worker: all items on rank 0, which computes
# none; CA), under each policy of the MPI library, and repartitioned once by
# Zoltan (work_items_zoltan, built when Debian's libtrilinos-zoltan-dev is installed), on P real
# ranks; the median of R runs each. Run with ranks <= cores for meaningful times.
#   bench/mpi_compare.sh [build dir=build] [P=2] [N=2000] [R=5]
set -euo pipefail
build=${1:-build} ranks=${2:-2} items=${3:-2000} repeats=${4:-5}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl=self,vader
program="$build/examples/work_items_zoltan"
[ -x "$program" ] || program="$build/examples/work_items"
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "| variant | median s ($repeats runs, $ranks ranks, $items items) | computed per rank (last run) |"
echo "|---|---|---|"
variants=("--no-balance" "--pool ms" "--pool ca" "--policy best-effort" "--policy bt" "--policy fos")
[ "$program" = "$build/examples/work_items_zoltan" ] && variants+=("--zoltan")
for v in "${variants[@]}"; do
  times=() per_rank=""
  for ((k = 0; k < repeats; ++k)); do
    # shellcheck disable=SC2086
    out=$(mpiexec -np "$ranks" "$program" "$items" $v)
    times+=("$(sed -n 's/.*, \([0-9.]*\) s$/\1/p' <<<"$out" | head -1)")
    per_rank=$(sed -n 's/.*computed per rank: //p' <<<"$out")
    grep -q "equal to the serial run's" <<<"$out" || { echo "$v: wrong checksum" >&2; exit 1; }
  done
  echo "| ${v#--} | $(printf '%s\n' "${times[@]}" | median) | $per_rank |"
done
