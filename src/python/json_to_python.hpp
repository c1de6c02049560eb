#pragma once
// JSON values as Python objects: objects as dicts, arrays as lists, null as None.
#include <pybind11/pybind11.h>

#include <nlohmann/json.hpp>

namespace nnlb::python {

pybind11::object to_python(const nlohmann::json& j);
// A Python scalar (str, bool, int, float) as JSON; TypeError naming `key` for anything else.
nlohmann::json scalar_json(const pybind11::handle& value, const std::string& key);

}  // namespace nnlb::python
