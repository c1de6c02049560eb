#include "python_policy.hpp"

#include <cmath>

#include "nnlb/util/error.hpp"

namespace py = pybind11;

namespace nnlb::python {

PythonPolicy::PythonPolicy(py::object policy)
    : decide_(policy.attr("decide")), name_("python:" + py::str(py::type::of(policy).attr("__name__")).cast<std::string>()) {}

PythonPolicy::~PythonPolicy() {
  py::gil_scoped_acquire gil;
  decide_ = py::object();
}

void PythonPolicy::decide(const LocalView& view, std::vector<Transfer>& out) const {
  py::gil_scoped_acquire gil;
  const std::size_t n = view.neighbors.size();
  py::list loads(n);
  for (std::size_t k = 0; k < n; ++k) PyList_SET_ITEM(loads.ptr(), k, PyFloat_FromDouble(view.neighbors[k].load));
  const py::object amounts = decide_(view.load, loads);
  const std::string source = "policy " + name_;
  if (!py::isinstance<py::sequence>(amounts) || py::isinstance<py::str>(amounts))
    throw InputError(source, {}, "decide returned " + py::repr(amounts).cast<std::string>() + ", not a list of amounts, one per neighbour");
  const py::sequence seq = amounts;
  if (seq.size() != n)
    throw InputError(source, {}, "decide returned " + std::to_string(seq.size()) + " amounts for " + std::to_string(n) +
                                     " neighbours (one per neighbour, in the order of neighbor_loads)");
  for (std::size_t k = 0; k < n; ++k) {
    const py::object item = seq[k];
    const double x = PyFloat_AsDouble(item.ptr());
    if (x == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      throw InputError(source, {}, "decide returned " + py::repr(item).cast<std::string>() + " for neighbour " + std::to_string(k) + ": not a number");
    }
    if (!(x >= 0) || !std::isfinite(x))
      throw InputError(source, {}, "decide returned " + py::repr(item).cast<std::string>() + " for neighbour " + std::to_string(k) +
                                       ": an amount to send is a finite number >= 0");
    if (x > 0) out.push_back({static_cast<std::uint32_t>(k), x});
  }
}

}  // namespace nnlb::python
