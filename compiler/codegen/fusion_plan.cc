// compiler/codegen/fusion_plan.cc - the fuse pass over all blocks, and its side-table text format.
#include "compiler/codegen/fusion_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "compiler/ops/registry.h"

namespace fluidc {
namespace {

std::vector<std::string> op_types(const Program& main, int block, const FusedChain& c) {
  std::vector<std::string> types;
  for (int i : c.ops) types.push_back(main.block(block).ops(i).type());
  return types;
}

// "3,4,5" -> {3, 4, 5}; false on anything else.
bool parse_ints(const std::string& s, std::vector<int>& out) {
  std::istringstream in(s);
  for (std::string item; std::getline(in, item, ',');) {
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos || item.size() > 9) return false;
    out.push_back(std::stoi(item));
  }
  return !out.empty();
}

}  // namespace

const std::vector<FusedChain>& FusionPlan::chains(int block) const {
  static const std::vector<FusedChain> kNone;
  auto it = blocks.find(block);
  return it == blocks.end() ? kNone : it->second;
}

size_t FusionPlan::num_chains() const {
  size_t n = 0;
  for (const auto& [b, chains] : blocks) n += chains.size();
  return n;
}

FusionPlan plan_fusion(const Program& main, const ProgramInfo& info) {
  FusionPlan plan;
  plan.blocks = find_fused_chains(main, info);
  return plan;
}

std::string fusion_plan_text(const FusionPlan& plan, const Program& main) {
  std::string out = fmt::format(
      "# fluidc fusion plan for {}\n"
      "# one chain of elementwise ops per line, written as one loop by codegen\n",
      main.origin());
  for (const auto& [b, chains] : plan.blocks)
    for (const auto& c : chains) {
      std::vector<int> rows, swaps;
      for (OperandFit f : c.fits) rows.push_back(static_cast<int>(f));
      for (bool s : c.value_is_y) swaps.push_back(s);
      // swap= only where some op takes the value as Y: older plans have none and mean all 0.
      const bool any_swap = std::find(swaps.begin(), swaps.end(), 1) != swaps.end();
      out += fmt::format("chain block={} ops={} dtype={} rows={}{}  # {}\n", b, fmt::join(c.ops, ","),
                         pb::VarType::Type_Name(c.dtype), fmt::join(rows, ","),
                         any_swap ? fmt::format(" swap={}", fmt::join(swaps, ",")) : "",
                         fmt::join(op_types(main, b, c), " -> "));
    }
  return out;
}

FusionPlan read_fusion_plan(const std::string& text, const std::string& path, const Program& main) {
  FusionPlan plan;
  std::istringstream in(text);
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    auto bad = [&](const std::string& why) {
      user_error(fmt::format("{}:{}: {}: {}", path, line_no, why, line));
    };
    std::string types;
    if (auto hash = line.find('#'); hash != std::string::npos) {
      types = line.substr(hash + 1);
      line = line.substr(0, hash);
    }
    std::istringstream words(line);
    std::string word;
    if (!(words >> word)) continue;  // blank or comment
    if (word != "chain") bad("expected `chain block=B ops=I,J,.. dtype=T rows=R,..`");
    std::map<std::string, std::string> fields;
    while (words >> word) {
      auto eq = word.find('=');
      if (eq == std::string::npos) bad("expected key=value");
      fields[word.substr(0, eq)] = word.substr(eq + 1);
    }
    std::vector<int> block, ops, rows, swaps;
    FusedChain c;
    if (!parse_ints(fields["block"], block) || block.size() != 1 || block[0] >= main.num_blocks())
      bad("block= names no block of the program");
    if (!parse_ints(fields["ops"], ops) || ops.size() < 2) bad("ops= needs two or more op indices");
    if (!parse_ints(fields["rows"], rows) || rows.size() != ops.size() ||
        std::any_of(rows.begin(), rows.end(), [](int r) { return r > static_cast<int>(OperandFit::kScalar); }))
      bad("rows= needs one 0 (same shape), 1 (row) or 2 (one element) per op");
    if (!fields.count("swap")) swaps.assign(ops.size(), 0);
    else if (!parse_ints(fields["swap"], swaps) || swaps.size() != ops.size() ||
             std::any_of(swaps.begin(), swaps.end(), [](int s) { return s > 1; }))
      bad("swap= needs one 0/1 per op");
    if (!pb::VarType::Type_Parse(fields["dtype"], &c.dtype) ||
        (c.dtype != pb::VarType::FP32 && c.dtype != pb::VarType::FP64))
      bad("dtype= must be FP32 or FP64");
    const auto& blk = main.block(block[0]);
    for (size_t n = 0; n < ops.size(); ++n) {
      if (ops[n] >= blk.ops_size() || (n > 0 && ops[n] != ops[n - 1] + 1)) bad("ops= must be consecutive ops of the block");
      const ops::OpDef* def = ops::find_op(blk.ops(ops[n]).type());
      if (!def || def->pointwise.empty()) bad(fmt::format("op {} ({}) is not elementwise", ops[n], blk.ops(ops[n]).type()));
      if (swaps[n] && !def->input("Y")) bad(fmt::format("op {} ({}) has no Y to take the value", ops[n], blk.ops(ops[n]).type()));
      c.fits.push_back(static_cast<OperandFit>(rows[n]));
      c.value_is_y.push_back(swaps[n] != 0);
    }
    c.ops = ops;
    std::string recorded = fmt::format("{}", fmt::join(op_types(main, block[0], c), " -> "));
    if (types.find_first_not_of(' ') != std::string::npos && types.substr(types.find_first_not_of(' ')) != recorded)
      bad(fmt::format("the program's ops are {}: the plan was made for another program", recorded));
    plan.blocks[block[0]].push_back(std::move(c));
  }
  return plan;
}

std::string describe_fusion_plan(const FusionPlan& plan, const Program& main) {
  std::string out;
  for (const auto& [b, chains] : plan.blocks)
    for (const auto& c : chains)
      out += fmt::format("block {}, ops {}-{}: {} ({})\n", b, c.ops.front(), c.ops.back(),
                         fmt::join(op_types(main, b, c), " -> "), pb::VarType::Type_Name(c.dtype));
  return out;
}

}  // namespace fluidc
