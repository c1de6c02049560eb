#include "nnlb/policy/domain_policy.hpp"

#include <stdexcept>
#include <string>

namespace nnlb {

void decide_checked(const DomainPolicy& policy, const DomainView& view, std::vector<Migration>& out) {
  policy.decide(view, out);
  for (const Migration& m : out)
    if (m.from >= view.hosts.size() || m.to >= view.hosts.size() || m.jobs < 0 || m.from == m.to)
      throw std::logic_error("policy " + policy.name() + " decided an impossible migration");
}

namespace {

// Index of the first least (most) loaded host, in breadth-first order: the nearest wins ties.
std::uint32_t least(std::span<const DomainHost> h) {
  std::uint32_t k = 0;
  for (std::uint32_t i = 1; i < h.size(); ++i)
    if (h[i].jobs < h[k].jobs) k = i;
  return k;
}
std::uint32_t most(std::span<const DomainHost> h) {
  std::uint32_t k = 0;
  for (std::uint32_t i = 1; i < h.size(); ++i)
    if (h[i].jobs > h[k].jobs) k = i;
  return k;
}

void extended_neighbor_step(const DomainView& v, std::vector<Migration>& out) {
  const auto& h = v.hosts;
  const std::uint32_t lo = least(h);
  if (h[0].jobs > h[lo].jobs) {
    if (const std::int64_t n = (h[0].jobs - h[lo].jobs) / 2; n > 0) out.push_back({0, lo, n});
  } else {
    const std::uint32_t hi = most(h);
    if (const std::int64_t n = (h[hi].jobs - h[0].jobs) / 2; n > 0) out.push_back({hi, 0, n});
  }
}

class ExtendedNeighbor final : public DomainPolicy {
 public:
  explicit ExtendedNeighbor(std::uint32_t x) : x_(x) {}
  std::string name() const override { return "en " + std::to_string(x_); }
  std::uint32_t radius() const override { return x_; }
  void decide(const DomainView& v, std::vector<Migration>& out) const override { extended_neighbor_step(v, out); }

 private:
  std::uint32_t x_;
};

class Dasud final : public DomainPolicy {
 public:
  std::string name() const override { return "dasud"; }
  void decide(const DomainView& v, std::vector<Migration>& out) const override {
    const std::uint32_t hi = most(v.hosts), lo = least(v.hosts);
    if (const std::int64_t n = (v.hosts[hi].jobs - v.hosts[lo].jobs) / 2; n > 0) out.push_back({hi, lo, n});
  }
};

class ProbabilisticMigration final : public DomainPolicy {
 public:
  explicit ProbabilisticMigration(double x) : x_(x) {}
  std::string name() const override { return "pm " + std::to_string(x_); }
  void decide(const DomainView& v, std::vector<Migration>& out) const override {
    const std::size_t before = out.size();
    extended_neighbor_step(v, out);
    if (out.size() != before || x_ <= 0) return;  // PM 0 draws nothing: it is EN 1, draw for draw
    const std::uint32_t lo = least(v.hosts);
    if (v.hosts[0].jobs - v.hosts[lo].jobs == 1 && v.rng->uniform() < x_) out.push_back({0, lo, 1});
  }

 private:
  double x_;
};

class SenderInitiated final : public DomainPolicy {
 public:
  std::string name() const override { return "sid"; }
  void decide(const DomainView& v, std::vector<Migration>& out) const override {
    const std::uint32_t lo = least(v.hosts);
    if (v.hosts[0].jobs > v.hosts[lo].jobs) out.push_back({0, lo, (v.hosts[0].jobs - v.hosts[lo].jobs + 1) / 2});
  }
};

class RandomPush final : public DomainPolicy {
 public:
  explicit RandomPush(double t) : t_(t) {}
  std::string name() const override { return "push"; }
  DomainKind domain() const override { return DomainKind::random_host; }
  void decide(const DomainView& v, std::vector<Migration>& out) const override {
    const auto& h = v.hosts;
    if (h.size() == 2 && static_cast<double>(h[0].jobs) > t_ && h[0].jobs - h[1].jobs >= 2) out.push_back({0, 1, 1});
  }

 private:
  double t_;
};

class RandomPull final : public DomainPolicy {
 public:
  explicit RandomPull(double t) : t_(t) {}
  std::string name() const override { return "pull"; }
  DomainKind domain() const override { return DomainKind::random_host; }
  void decide(const DomainView& v, std::vector<Migration>& out) const override {
    const auto& h = v.hosts;
    if (h.size() == 2 && static_cast<double>(h[0].jobs) < t_ && h[1].jobs - h[0].jobs >= 2) out.push_back({1, 0, 1});
  }

 private:
  double t_;
};

}  // namespace

std::unique_ptr<DomainPolicy> make_extended_neighbor(std::uint32_t x) { return std::make_unique<ExtendedNeighbor>(x); }
std::unique_ptr<DomainPolicy> make_dasud() { return std::make_unique<Dasud>(); }
std::unique_ptr<DomainPolicy> make_probabilistic_migration(double x) { return std::make_unique<ProbabilisticMigration>(x); }
std::unique_ptr<DomainPolicy> make_sender_initiated() { return std::make_unique<SenderInitiated>(); }
std::unique_ptr<DomainPolicy> make_random_push(double threshold) { return std::make_unique<RandomPush>(threshold); }
std::unique_ptr<DomainPolicy> make_random_pull(double threshold) { return std::make_unique<RandomPull>(threshold); }

}  // namespace nnlb
