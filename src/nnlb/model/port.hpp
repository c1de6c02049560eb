#pragma once
// Communication model of a node (Xu et al. 1995, sec. 2): one-port, a node exchanges load with
// one neighbour per step; all-port, with all its neighbours in one step.

namespace nnlb {

enum class PortModel { all, one };

}  // namespace nnlb
