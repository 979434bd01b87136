// compiler/driver/dump.cc - readable listings of programs and of the op table.
#include "compiler/driver/dump.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/analysis/shape_infer.h"
#include "compiler/codegen/fusion_plan.h"
#include "compiler/codegen/memory_plan.h"
#include "compiler/driver/build.h"
#include "compiler/analysis/program_info.h"
#include "compiler/ir/attrs.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "compiler/analysis/verify.h"

namespace fluidc {
namespace {

std::string slot_list(const google::protobuf::RepeatedPtrField<pb::OpDesc::Var>& vars) {
  std::vector<std::string> parts;
  for (const auto& v : vars) {
    std::vector<std::string> args(v.arguments().begin(), v.arguments().end());
    if (args.empty()) continue;
    parts.push_back(args.size() == 1 ? fmt::format("{}={}", v.parameter(), args[0])
                                     : fmt::format("{}=[{}]", v.parameter(), fmt::join(args, ", ")));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string var_kind(const pb::VarDesc& v) {
  const auto* td = tensor_desc(v);
  std::string type = pb::VarType::Type_Name(v.type().type());
  if (td) type = fmt::format("{}{}", dtype_str(td->data_type()), dims_str(td->dims()));
  if (v.type().type() == pb::VarType::LOD_TENSOR_ARRAY) type = "array<" + type + ">";
  return type;
}

// The side tables `fluidc opt` wrote beside `path`, checked against the
// program and listed; none when there are none.
void dump_memory_plan(const std::string& path, const Program& prog) {
  const std::string plan_path = path + kMemoryPlanSuffix;
  if (!std::filesystem::exists(plan_path)) return;
  std::ifstream in(plan_path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  MemoryPlan plan = read_memory_plan(text.str(), plan_path, prog);
  fmt::print("\nside table: memory plan ({}), {} variable{}\n", plan_path, plan.vars.size(), plan.vars.size() == 1 ? "" : "s");
  std::istringstream lines(memory_report(plan, prog));
  for (std::string line; std::getline(lines, line);) fmt::print("  {}\n", line);
  for (const auto& v : plan.vars)
    fmt::print("    {} {:>10} +{:<8} ops {}-{}  {}{}\n", v.arena == ArenaKind::kStatic ? "static" : "batch ", v.offset,
               v.bytes, v.first, v.last, printable(v.name),
               v.block > 0 ? fmt::format("  (block {}, its ops {}-{})", v.block, v.sub_first, v.sub_last) : "");
}

void dump_side_tables(const std::string& path, const Program& prog) {
  const std::string plan_path = path + kFusionPlanSuffix;
  if (!std::filesystem::exists(plan_path)) return;
  std::ifstream in(plan_path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  FusionPlan plan = read_fusion_plan(text.str(), plan_path, prog);
  fmt::print("\nside table: fusion plan ({}), {} chain{}\n", plan_path, plan.num_chains(),
             plan.num_chains() == 1 ? "" : "s");
  std::istringstream lines(describe_fusion_plan(plan, prog));
  for (std::string line; std::getline(lines, line);) fmt::print("  {}\n", line);
}

}  // namespace

int dump_program(const std::string& path, bool all_attrs) {
  Program prog = Program::load(path);
  Diagnostics diags;
  verify_program(prog, diags);
  auto types = diags.has_errors() ? std::map<std::string, TensorType>{} : infer_shapes(prog, diags);
  ProgramInfo info = diags.has_errors() ? ProgramInfo{} : analyze_program(prog, "", diags);
  const auto& d = prog.desc();
  fmt::print("program {} (sha256 {})\n", path, prog.sha256());
  fmt::print("  version {}, {} block{}, {}\n", d.has_version() ? d.version().version() : 0, prog.num_blocks(),
             prog.num_blocks() == 1 ? "" : "s", info.is_trainer ? "trainer (has optimizer ops)" : "inference");
  if (!info.feeds.empty()) fmt::print("  feeds: {}\n", fmt::join(info.feeds, ", "));
  if (!info.fetches.empty()) fmt::print("  fetches: {}\n", fmt::join(info.fetches, ", "));
  if (!info.loss.empty()) fmt::print("  loss: {}\n", info.loss);
  for (int b = 0; b < prog.num_blocks(); ++b) {
    const auto& block = prog.block(b);
    fmt::print("\nblock {} (parent {}): {} vars, {} ops\n", b, block.parent_idx(), block.vars_size(), block.ops_size());
    for (const auto& v : block.vars()) {
      std::string flags;
      if (v.persistable()) flags += " persistable";
      if (v.is_parameter()) flags += " parameter";
      if (v.stop_gradient()) flags += " stop_gradient";
      std::string inferred;
      auto it = types.find(v.name());
      if (it != types.end() && it->second.known && tensor_desc(v) &&
          it->second.dims != std::vector<int64_t>(tensor_desc(v)->dims().begin(), tensor_desc(v)->dims().end()))
        inferred = " (inferred " + dims_str(it->second.dims) + ")";
      fmt::print("  var {:<40} {}{}{}\n", v.name(), var_kind(v), inferred, flags);
    }
    for (int i = 0; i < block.ops_size(); ++i) {
      const auto& op = block.ops(i);
      const ops::OpDef* def = ops::find_op(op.type());
      std::vector<std::string> attrs;
      for (const auto& a : op.attrs())
        if (all_attrs || (def && def->attr(a.name())) || a.type() == pb::BLOCK)
          attrs.push_back(fmt::format("{}={}", a.name(), attr_value_str(a)));
      fmt::print("  op {:>3}: {}({}) -> ({}){}{}\n", i, op.type(), slot_list(op.inputs()), slot_list(op.outputs()),
                 attrs.empty() ? "" : "  ", fmt::join(attrs, " "));
    }
  }
  if (!diags.has_errors()) dump_side_tables(path, prog);
  if (!diags.has_errors()) dump_memory_plan(path, prog);
  if (!diags.all().empty()) fmt::print(stderr, "\n{}", diags.str());
  return diags.has_errors() ? 1 : 0;
}

}  // namespace fluidc
