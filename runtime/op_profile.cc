// runtime/op_profile.cc - --profile's bookkeeping and its table (runtime/op_profile.h).
#include "runtime/op_profile.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace fluidc::rt {

constinit bool g_profile_ops = false;
constinit ProfileSync g_profile_sync = nullptr;

namespace {

struct OpTime {
  double seconds = 0;
  long long entries = 0;
};

using Clock = std::chrono::steady_clock;

// Keyed by the site's address: one OpSite constant per op in generated code.
std::map<const OpSite*, OpTime>& op_times() {
  static std::map<const OpSite*, OpTime> times;
  return times;
}

const OpSite* g_open = nullptr;  // the op whose time is running
Clock::time_point g_opened;

}  // namespace

void profile_op(const OpSite* site) noexcept {
  if (g_profile_sync) g_profile_sync();
  const Clock::time_point now = Clock::now();
  if (g_open) {
    OpTime& t = op_times()[g_open];
    t.seconds += std::chrono::duration<double>(now - g_opened).count();
    ++t.entries;
  }
  g_open = site;
  g_opened = site ? Clock::now() : now;  // the map's own time is not the next op's
}

void print_op_profile(std::FILE* out, long long runs, const char* unit) {
  if (runs < 1 || op_times().empty()) return;
  std::vector<std::pair<const OpSite*, OpTime>> ops(op_times().begin(), op_times().end());
  std::sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.second.seconds > b.second.seconds; });
  double total = 0;
  std::map<std::string, OpTime> by_type;
  for (const auto& [site, t] : ops) {
    total += t.seconds;
    OpTime& sum = by_type[site->type];
    sum.seconds += t.seconds;
    sum.entries += t.entries;
  }
  const double per_run_ms = 1e3 / static_cast<double>(runs);
  auto per_run = [&](long long calls) { return static_cast<double>(calls) / static_cast<double>(runs); };
  auto share = [&](double s) { return total > 0 ? 100.0 * s / total : 0.0; };
  std::fprintf(out, "profile over %lld %ss: %.4f ms per %s in ops\n", runs, unit, total * per_run_ms, unit);
  std::fprintf(out, "  %10s %6s %9s  %s\n", (std::string("ms/") + unit).c_str(), "%", (std::string("calls/") + unit).c_str(),
               "op (block, index)");
  const size_t shown = std::min<size_t>(ops.size(), 30);
  for (size_t i = 0; i < shown; ++i) {
    const auto& [site, t] = ops[i];
    std::fprintf(out, "  %10.4f %6.1f %9.2f  %s (block %d, op %d)\n", t.seconds * per_run_ms, share(t.seconds),
                 per_run(t.entries), site->type, site->block, site->op);
  }
  if (shown < ops.size()) std::fprintf(out, "  ... %zu more ops\n", ops.size() - shown);
  std::vector<std::pair<std::string, OpTime>> types(by_type.begin(), by_type.end());
  std::sort(types.begin(), types.end(), [](const auto& a, const auto& b) { return a.second.seconds > b.second.seconds; });
  std::fprintf(out, "by op type:\n");
  for (const auto& [type, t] : types)
    std::fprintf(out, "  %10.4f %6.1f %9.2f  %s\n", t.seconds * per_run_ms, share(t.seconds), per_run(t.entries),
                 type.c_str());
}

}  // namespace fluidc::rt
