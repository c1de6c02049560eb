#include "nnlb/util/parallel.hpp"

#include <omp.h>

namespace nnlb {

namespace {
// The OpenMP default (OMP_NUM_THREADS or the core count), captured before anyone changes it.
const int default_threads = omp_get_max_threads();
}  // namespace

void set_thread_count(int threads) { omp_set_num_threads(threads > 0 ? threads : default_threads); }

int thread_count() { return omp_get_max_threads(); }

}  // namespace nnlb
