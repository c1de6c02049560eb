// The compiled part of the Python module `nnlb` (python/nnlb/__init__.py is the API users see):
// runs, sweeps, analyses and studies over the experiment layer, errors as Python exceptions,
// policies written in Python. Every call that runs something releases the GIL (interruptible.hpp).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "interruptible.hpp"
#include "json_to_python.hpp"
#include "nnlb/catalog/registry.hpp"
#include "nnlb/engine/plugin.hpp"
#include "nnlb/engine/registry.hpp"
#include "nnlb/experiment/analysis_record.hpp"
#include "nnlb/experiment/run.hpp"
#include "nnlb/experiment/study.hpp"
#include "nnlb/experiment/sweep.hpp"
#include "nnlb/model/topology.hpp"
#include "nnlb/util/error.hpp"
#include "nnlb/util/memory.hpp"
#include "nnlb/util/parallel.hpp"
#include "nnlb/version.hpp"
#include "python_policy.hpp"

namespace py = pybind11;
using nlohmann::json;

namespace nnlb::python {

namespace {

using Keys = std::vector<std::pair<std::string, py::object>>;

// A scenario file (or none) with keys set on it as `--set KEY=VALUE` would set them: text as the
// CLI reads a value (a TOML value when it parses as one), numbers and booleans as they are.
Scenario make_scenario(const std::optional<std::string>& path, const Keys& keys) {
  if (path && std::filesystem::is_directory(*path)) throw InputError(*path, {}, "is a folder, not a scenario file");
  Scenario s = path ? Scenario::from_file(*path) : Scenario();
  for (const auto& [key, value] : keys) {
    const json v = scalar_json(value, key);
    if (v.is_string()) set_given(s, key + "=" + v.get<std::string>());
    else s.set(key, v, "--set " + key);
  }
  return s;
}

// One run's record, kept in C++ until a part of it is asked for.
struct Record {
  RunRecord run;

  json whole() const {
    json j = to_json(run);
    j["code_version"] = code_version;
    return j;
  }
  json summary() const {
    json j = summary_json(run.result.summary);
    j.update(run.summary_extra);
    return j;
  }
};

// A column of numbers: int64 when every entry is whole, else float64 (null: NaN).
py::array column(const json& values) {
  bool whole = true;
  for (const auto& v : values) whole = whole && v.is_number_integer();
  if (whole) {
    py::array_t<std::int64_t> a(static_cast<py::ssize_t>(values.size()));
    auto out = a.mutable_unchecked<1>();
    for (std::size_t i = 0; i < values.size(); ++i) out(static_cast<py::ssize_t>(i)) = values[i].get<std::int64_t>();
    return a;
  }
  py::array_t<double> a(static_cast<py::ssize_t>(values.size()));
  auto out = a.mutable_unchecked<1>();
  for (std::size_t i = 0; i < values.size(); ++i)
    out(static_cast<py::ssize_t>(i)) = values[i].is_number() ? values[i].get<double>() : std::nan("");
  return a;
}

py::dict series(const Record& r) {
  const json record = r.whole();
  py::dict out;
  for (const auto& [name, values] : record["series"].items()) out[py::str(name)] = column(values);
  return out;
}

py::array_t<double> final_loads(const Record& r) {
  const auto& loads = r.run.result.final_load;
  py::array_t<double> a(static_cast<py::ssize_t>(loads.size()));
  std::copy(loads.begin(), loads.end(), a.mutable_data());
  return a;
}

Record run(const std::optional<std::string>& path, const Keys& keys, std::optional<std::uint64_t> seed, const py::object& policy) {
  const Scenario s = make_scenario(path, keys);
  const std::uint64_t master = seed ? *seed : static_cast<std::uint64_t>(s.integer("seed"));
  RunHooks hooks;
  hooks.final_load = true;
  if (!policy.is_none()) hooks.policy = std::make_shared<PythonPolicy>(policy);
  const bool python_policy = hooks.policy != nullptr;
  return interruptible([&] {
    if (!python_policy) return Record{run_scenario(s, master, {}, hooks)};
    // Its decisions take the GIL one at a time: one thread, which holds the GIL through the run
    // (Python's switch interval still hands it to other threads, and to the signal check).
    set_thread_count(1);
    py::gil_scoped_acquire gil;
    return Record{run_scenario(s, master, {}, hooks)};
  });
}

// One axis value: a scalar, or a list of scalars for a zipped axis ("algorithm+leveling").
json axis_value(const py::handle& value, const std::string& key) {
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    json out = json::array();
    for (const py::handle item : value) out.push_back(scalar_json(item, key));
    return out;
  }
  return scalar_json(value, key);
}

py::list sweep(const std::optional<std::string>& path, const Keys& base, const std::vector<std::pair<std::string, py::list>>& grid,
               std::optional<int> jobs, const std::optional<std::string>& store_path, std::optional<std::uint64_t> seed,
               std::uint64_t repeat) {
  SweepSpec spec;
  spec.base = make_scenario(path, base);
  for (const auto& [key, values] : grid) {
    SweepAxis axis{key, {}};
    for (const py::handle v : values) axis.values.push_back(axis_value(v, key));
    spec.axes.push_back(std::move(axis));
  }
  spec.repeat = repeat;
  spec.master_seed = seed ? *seed : static_cast<std::uint64_t>(spec.base.integer("seed"));
  std::vector<std::string> notes;
  const auto records = interruptible([&] {
    const auto note = [&](const std::string& text) { notes.push_back(text); };
    std::optional<ResultStore> store;
    if (store_path) store.emplace(*store_path, note);
    SweepRun how;
    how.threads = jobs.value_or(0);
    how.store = store ? &*store : nullptr;
    how.note = note;
    return run_sweep(spec, how);
  });
  const py::object warn = py::module_::import("warnings").attr("warn");
  for (const auto& n : notes) warn(n, py::module_::import("builtins").attr("UserWarning"), 2);
  py::list out;
  for (const auto& r : records) out.append(to_python(r));
  return out;
}

py::list keys() {
  py::list out;
  for (const KeyInfo& k : scenario_keys()) {
    py::list readers;
    for (const EngineEntry& e : engines())
      if (e.honours_key(k.name)) readers.append(e.name);
    if (readers.empty())
      for (const EngineEntry& e : engines()) readers.append(e.name);
    py::dict d;
    d["name"] = k.name;
    d["default"] = to_python(k.default_value);
    d["help"] = k.doc;
    d["choices"] = k.choices;
    d["aliases"] = k.aliases;
    d["engines"] = readers;
    out.append(d);
  }
  return out;
}

py::list topologies() {
  py::list out;
  for (const auto& [spec, doc] : topology_catalog()) out.append(py::dict(py::arg("spec") = spec, py::arg("help") = doc));
  return out;
}

py::list policies() {
  py::list out;
  for (const PolicyEntry& p : policy_catalog().entries())
    out.append(py::dict(py::arg("name") = p.name, py::arg("aliases") = p.aliases, py::arg("summary") = p.summary,
                        py::arg("keys") = p.reads, py::arg("help") = p.help));
  return out;
}

py::list engine_list() {
  py::list out;
  for (const EngineEntry& e : engines())
    out.append(py::dict(py::arg("name") = e.name, py::arg("summary") = e.summary, py::arg("available") = static_cast<bool>(e.run) || !e.runs_programs));
  return out;
}

py::object analyze(const std::optional<std::string>& path, const Keys& keys, std::optional<double> initial, std::optional<double> target,
                   bool measure) {
  const Scenario s = make_scenario(path, keys);
  return to_python(interruptible([&] { return analyze_scenario(s, {initial, target, measure}); }));
}

std::vector<std::string> reproduce(const std::string& file, const std::string& name, bool quick, const std::string& out_dir,
                                   std::optional<int> jobs) {
  const Study study = load_study(file, name, quick);
  std::filesystem::create_directories(out_dir);
  return interruptible([&] {
    SweepRun how;
    how.threads = jobs.value_or(0);
    return run_study(study, out_dir, how).files;
  });
}

}  // namespace

}  // namespace nnlb::python

PYBIND11_MODULE(_nnlb, m) {
  using namespace nnlb;
  using namespace nnlb::python;
  m.doc() = "nnlb's compiled core; use the package nnlb";
#ifdef NNLB_HAVE_SIMGRID
  // Each run in a process of its own, SimGrid loaded there only, as from the CLI.
  attach_engine_plugin("simgrid", {NNLB_INSTALLED_SIMGRID_PLUGIN, NNLB_BUILT_SIMGRID_PLUGIN});
#endif
  static py::handle scenario_error = PyErr_NewException("nnlb.ScenarioError", PyExc_ValueError, nullptr);
  static py::handle memory_error = PyErr_NewException("nnlb.MemoryEstimateError", PyExc_MemoryError, nullptr);
  m.attr("ScenarioError") = scenario_error;
  m.attr("MemoryEstimateError") = memory_error;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const MemoryEstimateError& e) {
      PyErr_SetString(memory_error.ptr(), e.line().c_str());
    } catch (const InputError& e) {
      PyErr_SetString(scenario_error.ptr(), e.line().c_str());
    } catch (const Interrupted&) {
      PyErr_SetNone(PyExc_KeyboardInterrupt);
    }
  });
  py::class_<Record>(m, "Record")
      .def("summary", [](const Record& r) { return to_python(r.summary()); })
      .def("record", [](const Record& r) { return to_python(r.whole()); })
      .def("series", &series)
      .def("final_loads", &final_loads);
  m.def("run", &run, py::arg("path"), py::arg("keys"), py::arg("seed"), py::arg("policy"));
  m.def("sweep", &sweep, py::arg("path"), py::arg("base"), py::arg("grid"), py::arg("jobs"), py::arg("store"), py::arg("seed"),
        py::arg("repeat"));
  m.def("analyze", &analyze, py::arg("path"), py::arg("keys"), py::arg("initial"), py::arg("target"), py::arg("measure"));
  m.def("reproduce", &reproduce, py::arg("file"), py::arg("name"), py::arg("quick"), py::arg("out_dir"), py::arg("jobs"));
  m.def("keys", &keys);
  m.def("topologies", &topologies);
  m.def("policies", &policies);
  m.def("engines", &engine_list);
  m.attr("version") = version;
  m.attr("code_version") = code_version;
  m.attr("scenario_places") = std::vector<std::string>{NNLB_INSTALLED_SCENARIOS, NNLB_SOURCE_SCENARIOS};
}
