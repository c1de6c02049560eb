#include "nnlb/util/parallel.hpp"

#include <omp.h>

namespace nnlb {

void set_thread_count(int threads) {
  if (threads > 0) omp_set_num_threads(threads);
}

int thread_count() { return omp_get_max_threads(); }

}  // namespace nnlb
