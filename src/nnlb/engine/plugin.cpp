#include "nnlb/engine/plugin.hpp"

#include <dlfcn.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "nnlb/engine/codec.hpp"
#include "nnlb/engine/own_process.hpp"
#include "nnlb/util/error.hpp"
#include "nnlb/version.hpp"

namespace nnlb {

namespace {

// A plugin file, loaded the first time it is needed and kept until the process ends.
class LazyPlugin {
 public:
  LazyPlugin(std::string engine, std::string path) : engine_(std::move(engine)), path_(std::move(path)) {}

  const EnginePlugin& get() {
    std::call_once(loaded_, [this] { plugin_ = load(); });
    return *plugin_;
  }
  const std::string& engine() const { return engine_; }

 private:
  const EnginePlugin* load() const {
    void* handle = ::dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) throw std::runtime_error("engine " + engine_ + ": cannot load its plugin: " + ::dlerror());
    const auto entry = reinterpret_cast<const EnginePlugin* (*)()>(::dlsym(handle, engine_plugin_symbol));
    if (entry == nullptr) throw std::runtime_error("engine " + engine_ + ": " + path_ + " is not an nnlb engine plugin");
    const EnginePlugin* p = entry();
    if (std::string_view(p->code_version) != code_version || p->run_size != sizeof(EngineRun) ||
        p->result_size != sizeof(RunResult) || p->platform_size != sizeof(Platform))
      throw std::runtime_error("engine " + engine_ + ": " + path_ + " is from another build of nnlb (" + p->code_version +
                               ", this one is " + code_version + "): rebuild or reinstall both");
    return p;
  }

  std::string engine_, path_;
  std::once_flag loaded_;
  const EnginePlugin* plugin_ = nullptr;
};

}  // namespace

bool attach_engine_plugin(std::string_view name, const std::vector<std::string>& candidates) {
  for (const std::string& path : candidates) {
    std::error_code error;
    if (path.empty() || !std::filesystem::is_regular_file(path, error)) continue;
    const auto plugin = std::make_shared<LazyPlugin>(std::string(name), path);
    attach_runner(name, [plugin](const EngineRun& r) {
      const EnginePlugin& p = plugin->get();
      try {
        return decode_result(answered_in_own_process([&] { return p.run(r); }));
      } catch (const ProcessDied& e) {
        throw ProcessDied("engine " + plugin->engine() + ": " + e.what());
      }
    });
    const auto read = [plugin](const PlatformFile& f, const Graph& g) {
      const EnginePlugin& p = plugin->get();
      open_answer(p.check_platform(f.path));
      try {
        return decode_platform(answered_in_own_process([&] { return p.read_platform(f, g); }, true));
      } catch (const ProcessDied& e) {
        throw InputError({}, "platform.file", f.path + ": " + p.died_reading_platform + " (" + e.what() + ")");
      }
    };
    attach_platform_reader(name, read, [plugin](const std::string& file) { return plugin->get().platform_hosts(file); });
    return true;
  }
  return false;
}

}  // namespace nnlb
