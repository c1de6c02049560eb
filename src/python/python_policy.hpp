#pragma once
// A balancing policy written in Python: an object whose decide(load, neighbor_loads) returns the
// amounts to send to each neighbour (nnlb.Policy). Each decision takes the GIL, so the engines
// call it from one thread at a time (the module runs such runs single-threaded).
#include <pybind11/pybind11.h>

#include <string>

#include "nnlb/policy/policy.hpp"

namespace nnlb::python {

class PythonPolicy final : public Policy {
 public:
  explicit PythonPolicy(pybind11::object policy);  // called with the GIL held
  ~PythonPolicy() override;                        // takes the GIL: the last owner may be a run's thread
  std::string name() const override { return name_; }  // "python:ClassName"
  // An exception raised by the Python code ends the run with that exception; amounts that are
  // not one finite non-negative number per neighbour are an InputError naming the policy.
  void decide(const LocalView& view, std::vector<Transfer>& out) const override;

 private:
  pybind11::object decide_;
  std::string name_;
};

}  // namespace nnlb::python
