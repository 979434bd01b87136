// compiler/codegen/memory_plan_text.cc - the memory plan as a side-table file, read back, and as a report.
#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "compiler/codegen/arena_placement.h"
#include "compiler/codegen/memory_plan.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/escape.h"

namespace fluidc {
namespace {

const char* arena_name(ArenaKind k) { return k == ArenaKind::kStatic ? "static" : "batch"; }

bool parse_int(const std::string& s, int64_t& out) {
  if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string::npos) return false;
  out = std::stoll(s);
  return true;
}

// Size, lower bound and peak of one arena, from its variables.
void recompute(MemoryPlan& plan, ArenaKind kind) {
  ArenaStats& s = kind == ArenaKind::kStatic ? plan.fixed : plan.batch;
  for (const auto& v : plan.vars)
    if (v.arena == kind) {
      s.size = std::max(s.size, v.offset + v.bytes);
      s.unplanned += v.bytes;
    }
  const Placement lb = lower_bound(arena_buffers(plan, kind, nullptr));
  s.lower_bound = lb.lower_bound;
  s.peak_op = lb.peak;
  std::vector<std::pair<int64_t, std::string>> peak;
  for (const auto& v : plan.vars)
    if (v.arena == kind && v.first <= lb.peak && lb.peak <= v.last) peak.emplace_back(v.bytes, v.name);
  std::stable_sort(peak.begin(), peak.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& p : peak) s.peak_vars.push_back(p.second);
}

std::string ratio(int64_t a, int64_t b) { return b > 0 ? fmt::format("{:.3f}", static_cast<double>(a) / b) : "-"; }

std::string arena_lines(const MemoryPlan& plan, ArenaKind kind, const Program& main) {
  const ArenaStats& s = kind == ArenaKind::kStatic ? plan.fixed : plan.batch;
  const size_t n = std::count_if(plan.vars.begin(), plan.vars.end(), [&](const PlannedVar& v) { return v.arena == kind; });
  if (n == 0) return "";
  const std::string unit = kind == ArenaKind::kStatic ? "" : " x N";
  std::string out = fmt::format(
      "  {} arena: {} bytes{} for {} variable{}\n"
      "    without a plan {} bytes{}, lower bound {} bytes{}, arena/lower bound {}, fragmentation {} bytes{}\n",
      kind == ArenaKind::kStatic ? "static" : "per-batch", s.size, unit, n, n == 1 ? "" : "s", s.unplanned, unit,
      s.lower_bound, unit, ratio(s.size, s.lower_bound), s.size - s.lower_bound, unit);
  if (kind == ArenaKind::kPerBatch)
    out += fmt::format("    N = dim 0 of the feeds {}\n", printable(fmt::format("{}", fmt::join(plan.batch_feeds, ", "))));
  if (s.peak_op >= 0 && s.peak_op < main.block(0).ops_size()) {
    std::vector<std::string> shown;
    for (size_t i = 0; i < s.peak_vars.size() && i < 8; ++i) shown.push_back(printable(s.peak_vars[i]));
    if (s.peak_vars.size() > 8) shown.push_back(fmt::format("... ({} more)", s.peak_vars.size() - 8));
    out += fmt::format("    peak at block 0, op {} ({}): {}\n", s.peak_op, main.block(0).ops(s.peak_op).type(),
                       fmt::join(shown, ", "));
  }
  return out;
}

}  // namespace

std::string memory_plan_text(const MemoryPlan& plan, const Program& main) {
  std::string out = fmt::format(
      "# fluidc memory plan for {}\n"
      "# one planned block-0 variable per line: arena, byte offset and capacity (batch: per unit of N),\n"
      "# live range in block-0 op positions, in-place group (variables that take one another's bytes at an op);\n"
      "# a sub-block's local: block= and its live range in that block's op positions (sub=)\n"
      "# static {} bytes, per-batch {} bytes x N\n",
      cpp_comment_text(main.origin()), plan.fixed.size, plan.batch.size);
  out += fmt::format("owned {}\n", plan.owned);
  for (const auto& f : plan.batch_feeds) out += fmt::format("batch_feed name={}\n", f);
  for (const auto& v : plan.vars)
    out += fmt::format("var arena={} offset={} bytes={} live={}-{}{}{} name={}\n", arena_name(v.arena), v.offset,
                       v.bytes, v.first, v.last, v.group > 0 ? fmt::format(" group={}", v.group) : "",
                       v.block > 0 ? fmt::format(" block={} sub={}-{}", v.block, v.sub_first, v.sub_last) : "",
                       v.name);
  return out;
}

MemoryPlan read_memory_plan(const std::string& text, const std::string& path, const Program& main) {
  MemoryPlan plan;
  std::istringstream in(text);
  int line_no = 0;
  const int n_ops = main.block(0).ops_size();
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    auto bad = [&](const std::string& why) { user_error(fmt::format("{}:{}: {}: {}", path, line_no, why, printable(line))); };
    if (line.empty() || line[0] == '#') continue;
    // The name is the rest of the line after "name=" (names may hold spaces).
    std::string name;
    if (auto at = line.find(" name="); at != std::string::npos) name = line.substr(at + 6), line = line.substr(0, at);
    std::istringstream words(line);
    std::string kind, word;
    words >> kind;
    if (kind == "owned") {
      int64_t n = 0;
      if (!(words >> word) || !parse_int(word, n) || (words >> word)) bad("expected `owned COUNT`");
      plan.owned = static_cast<int>(n);
      continue;
    }
    std::map<std::string, std::string> f;
    while (words >> word) {
      auto eq = word.find('=');
      if (eq == std::string::npos) bad("expected key=value");
      f[word.substr(0, eq)] = word.substr(eq + 1);
    }
    const pb::VarDesc* var = name.empty() ? nullptr : main.find_var(0, name);
    if (kind == "batch_feed") {
      if (!var) bad("names no block-0 variable of the program: the plan was made for another program");
      plan.batch_feeds.push_back(name);
    } else if (kind == "var") {
      PlannedVar v;
      if (f.count("block")) {  // a sub-block's local: declared in that very block
        int64_t blk = 0, first = 0, last = 0;
        const std::string sub = f["sub"];
        const auto dash = sub.find('-');
        if (!parse_int(f["block"], blk) || blk < 1 || blk >= main.num_blocks() || dash == std::string::npos ||
            !parse_int(sub.substr(0, dash), first) || !parse_int(sub.substr(dash + 1), last) || first > last ||
            last >= main.block(static_cast<int>(blk)).ops_size())
          bad("block= must name a sub-block of the program and sub= a range of its ops");
        int found = -1;
        var = name.empty() ? nullptr : main.find_var(static_cast<int>(blk), name, &found);
        if (found != blk) var = nullptr;
        v.block = static_cast<int>(blk), v.sub_first = static_cast<int>(first), v.sub_last = static_cast<int>(last);
      }
      if (!var || !is_dense_tensor(*var) || var->persistable())
        bad("names no non-persistable tensor of that block of the program: the plan was made for another program");
      v.name = name;
      if (f["arena"] == "static") v.arena = ArenaKind::kStatic;
      else if (f["arena"] == "batch") v.arena = ArenaKind::kPerBatch;
      else bad("arena= must be static or batch");
      int64_t first = 0, last = 0;
      const std::string live = f["live"];
      const auto dash = live.find('-');
      if (!parse_int(f["offset"], v.offset) || !parse_int(f["bytes"], v.bytes) || dash == std::string::npos ||
          !parse_int(live.substr(0, dash), first) || !parse_int(live.substr(dash + 1), last))
        bad("expected `var arena=A offset=O bytes=B live=FIRST-LAST name=NAME`");
      if (last >= n_ops || first > last) bad("live= is not a range of block-0 ops of the program");
      if (f.count("group")) {
        int64_t group = 0;
        if (!parse_int(f["group"], group) || group < 1 || group > n_ops) bad("group= must be a group number from 1");
        v.group = static_cast<int>(group);
      }
      v.first = static_cast<int>(first), v.last = static_cast<int>(last);
      if (plan.find(name)) bad("the variable is planned twice");
      plan.vars.push_back(v);
    } else {
      bad("expected `owned`, `batch_feed` or `var`");
    }
  }
  recompute(plan, ArenaKind::kStatic);
  recompute(plan, ArenaKind::kPerBatch);
  std::string why = validate_memory_plan(plan);
  if (why.empty()) why = validate_in_place(plan, main);
  if (!why.empty()) user_error(fmt::format("{}: unsound memory plan: {}", path, why));
  return plan;
}

std::string memory_report(const MemoryPlan& plan, const Program& main) {
  std::string out = fmt::format("memory plan for {} (block 0 and the sub-blocks its ops run, in block-0 op positions)\n",
                                printable(main.origin()));
  if (plan.empty()) out += "  no variable planned\n";
  out += arena_lines(plan, ArenaKind::kStatic, main);
  out += arena_lines(plan, ArenaKind::kPerBatch, main);
  out += fmt::format("  owned storage: {} other block-0 tensor{} (persistable, fed, fetched, read before written, "
                     "or of a size the plan cannot bound)\n",
                     plan.owned, plan.owned == 1 ? "" : "s");
  if (plan.planning_ms >= 0) out += fmt::format("  planned in {:.1f} ms (CPU time)\n", plan.planning_ms);
  return out;
}

}  // namespace fluidc
