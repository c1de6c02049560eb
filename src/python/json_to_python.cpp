#include "json_to_python.hpp"

namespace py = pybind11;

namespace nnlb::python {

py::object to_python(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null:
      return py::none();
    case nlohmann::json::value_t::boolean:
      return py::bool_(j.get<bool>());
    case nlohmann::json::value_t::number_integer:
      return py::int_(j.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned:
      return py::int_(j.get<std::uint64_t>());
    case nlohmann::json::value_t::number_float:
      return py::float_(j.get<double>());
    case nlohmann::json::value_t::string:
      return py::str(j.get_ref<const std::string&>());
    case nlohmann::json::value_t::array: {
      py::list out(j.size());
      for (std::size_t i = 0; i < j.size(); ++i) out[i] = to_python(j[i]);
      return out;
    }
    case nlohmann::json::value_t::object: {
      py::dict out;
      for (const auto& [k, v] : j.items()) out[py::str(k)] = to_python(v);
      return out;
    }
    default:
      return py::none();
  }
}

nlohmann::json scalar_json(const py::handle& value, const std::string& key) {
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>();
  if (py::isinstance<py::int_>(value)) return value.cast<std::int64_t>();
  if (py::isinstance<py::float_>(value)) return value.cast<double>();
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  throw py::type_error("key '" + key + "': expected a str, bool, int or float, got " + py::repr(value).cast<std::string>());
}

}  // namespace nnlb::python
