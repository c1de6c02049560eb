#!/usr/bin/env bash
# Builds `nnlb` with profile-guided optimization (GCC) into build-pgo/ (or the first argument): an
# instrumented build, training runs of the discrete-event engine, then the build that uses their
# profiles (CMakeLists.txt, NNLB_PROFILE). Results are the same as the plain build's, bit for bit;
# docs/benchmarks.md gives the times. Takes about twice a plain build.
#   bench/pgo-build.sh [build=build-pgo]    then    bench/scale.sh build-pgo "12 16 18 20"
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-pgo}
mkdir -p "$dir"
profiles="$(cd "$dir" && pwd)/profile"
rm -rf "$profiles"
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DNNLB_BUILD_TESTS=OFF -DNNLB_BUILD_BENCH=OFF \
  -DNNLB_PROFILE=generate -DNNLB_PROFILE_DIR="$profiles" >/dev/null
cmake --build "$dir" --target nnlb --parallel "$(nproc)"
# Training: the scale benchmark's scenario at 32,768 nodes, and best effort from one loaded node.
"$dir/nnlb" run --set engine=des --set topology=hypercube:15 --set algorithm=bertsekas-tsitsiklis \
  --set async.virtual_load=true --set load.init=uniform:0,2000 --set output.series_every=0 >/dev/null
"$dir/nnlb" run --set engine=des --set topology=hypercube:10 --set algorithm=best-effort \
  --set 'load.init=single:0,1000*N' >/dev/null
cmake -S . -B "$dir" -DNNLB_PROFILE=use >/dev/null
cmake --build "$dir" --target nnlb --parallel "$(nproc)"
echo "built $dir/nnlb with the profiles in $profiles"
