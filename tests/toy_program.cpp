// A toy node program, registered from the tests alone: what adding a program takes. Once, at the
// start, each node sends every neighbour it knows to hold less a third of the difference divided
// by its degree plus one (a first-order diffusion step on the initial loads), takes what reaches
// it, and ends (Context::finished) once it heard from every neighbour.
#include <memory>
#include <vector>

#include "nnlb/engine/registry.hpp"
#include "nnlb/experiment/programs.hpp"

namespace nnlb {
namespace {

class OneStep final : public Agent {
 public:
  void start(Context& ctx) override {
    const double mine = ctx.load();
    std::vector<double> give(ctx.degree(), 0.0);
    for (Port p = 0; p < ctx.degree(); ++p) {
      const double theirs = ctx.initial_load(p);
      if (theirs < mine) give[p] = (mine - theirs) / (3.0 * (ctx.degree() + 1));
    }
    for (Port p = 0; p < ctx.degree(); ++p) ctx.send(p, Channel::data, 0, {}, 0, Cargo{give[p], {}});
    if (ctx.degree() == 0) ctx.finished();
  }
  void arrived(Context& ctx, Channel channel) override {
    heard_ += ctx.take(channel).size();
    if (heard_ == ctx.degree()) ctx.finished();
  }

 private:
  std::size_t heard_ = 0;
};

class OneStepProgram final : public Program {
 public:
  std::string name() const override { return "toy-one-step"; }
  std::unique_ptr<Agent> make_agent(NodeId) const override { return std::make_unique<OneStep>(); }
};

const bool toy_program_registered = [] {
  register_program({.name = "toy-one-step",
                    .summary = "tests only: one diffusion step on the initial loads, then the end",
                    .label = "one diffusion step",
                    .needs = messages,
                    .application = true,
                    .make = [](const ProgramSetup&) -> std::unique_ptr<Program> { return std::make_unique<OneStepProgram>(); }});
  return true;
}();

}  // namespace
}  // namespace nnlb
