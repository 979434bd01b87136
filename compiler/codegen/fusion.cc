// compiler/codegen/fusion.cc - finds fusable elementwise chains and writes each as one loop over kernels/fused.h.
#include "compiler/codegen/fusion.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "compiler/ir/attrs.h"
#include "compiler/ops/registry.h"

namespace fluidc {
namespace {

/// How often each variable name is read and written by any op of any block.
/// Names, not resolved variables: a same-named variable of another block
/// counts too, which can only make the analysis more cautious.
struct Uses {
  std::map<std::string, int> reads, writes;
};

Uses count_uses(const Program& prog) {
  Uses u;
  for (int b = 0; b < prog.num_blocks(); ++b)
    for (const auto& op : prog.block(b).ops()) {
      for (const auto& in : op.inputs())
        for (const auto& a : in.arguments()) ++u.reads[a];
      for (const auto& out : op.outputs())
        for (const auto& a : out.arguments()) ++u.writes[a];
    }
  return u;
}

std::string single(const std::vector<std::string>& names) { return names.size() == 1 ? names[0] : ""; }

/// One op of a chain, with the names it links by.
struct Link {
  std::string x, y, out;  // y empty for unary ops
  bool y_is_row = false;
};

/// The longest chain written as one loop; a longer run of fusable ops
/// becomes several loops. A 10,000-op chain as one loop took clang 565 s to
/// optimise (superlinear in the loop body); capped at 32 ops, 47 s; at 8,
/// 69 s (more loops, each with its fallback). A 32-op loop already does ~32
/// operations per element loaded, so longer loops gain nothing.
constexpr size_t kMaxChainOps = 32;

class ChainFinder {
 public:
  // Use counts and pinned names are computed once for the whole program:
  // per block they made a deeply nested program quadratic (10,000 blocks:
  // 115 s to emit).
  ChainFinder(const Program& prog, const ProgramInfo& info) : prog_(prog), uses_(count_uses(prog)) {
    for (const auto* list : {&info.feeds, &info.fetches, &info.persistables}) pinned_.insert(list->begin(), list->end());
    if (!info.loss.empty()) pinned_.insert(info.loss);
  }

  std::vector<FusedChain> run(int block) {
    block_ = block;
    std::vector<FusedChain> chains;
    const auto& ops = prog_.block(block_).ops();
    for (int i = 0; i < ops.size(); ++i) {
      FusedChain c;
      c.dtype = pb::VarType::RAW;  // not yet known
      Link first;
      if (!link(i, c.dtype, first)) continue;
      c.ops.push_back(i);
      c.y_is_row.push_back(first.y_is_row);
      std::string value = first.out;
      Link next;
      for (int j = i + 1; j < ops.size() && c.ops.size() < kMaxChainOps && intermediate(value) &&
                          link(j, c.dtype, next) && next.x == value;
           ++j) {
        c.ops.push_back(j);
        c.y_is_row.push_back(next.y_is_row);
        value = next.out;
      }
      if (c.ops.size() < 2) continue;
      i = c.ops.back();
      chains.push_back(std::move(c));
    }
    return chains;
  }

 private:
  // Element type and rank of a dense tensor variable seen from the block.
  bool tensor(const std::string& name, pb::VarType::Type& dtype, int& rank) const {
    const pb::VarDesc* v = prog_.find_var(block_, name);
    if (!v || !is_dense_tensor(*v) || !tensor_desc(*v)) return false;
    dtype = tensor_desc(*v)->data_type();
    rank = tensor_desc(*v)->dims_size();
    return true;
  }

  // Op i as a chain member of element type `dtype` (set by the first op).
  bool link(int i, pb::VarType::Type& dtype, Link& l) const {
    const pb::OpDesc& op = prog_.block(block_).ops(i);
    const ops::OpDef* def = ops::find_op(op.type());
    if (!def || def->pointwise.empty()) return false;
    const bool binary = def->input("Y") != nullptr;
    for (const auto& in : op.inputs())  // inputs the scalar function would not see
      if (in.parameter() != "X" && !(binary && in.parameter() == "Y") && in.arguments_size() > 0) return false;
    l.x = single(op_inputs(op, "X"));
    l.out = single(op_outputs(op, "Out"));
    l.y = binary ? single(op_inputs(op, "Y")) : "";
    if (l.x.empty() || l.out.empty() || (binary && l.y.empty())) return false;
    pb::VarType::Type tx, tout, ty = pb::VarType::RAW;
    int rx, rout, ry = 0;
    if (!tensor(l.x, tx, rx) || !tensor(l.out, tout, rout)) return false;
    if (binary && (!tensor(l.y, ty, ry) || ty != tx || ry > rx)) return false;
    if (tx != tout || (tx != pb::VarType::FP32 && tx != pb::VarType::FP64)) return false;
    if (dtype != pb::VarType::RAW && dtype != tx) return false;
    dtype = tx;
    l.y_is_row = binary && ry < rx;
    return true;
  }

  // A value passed from one op of a chain to the next, never materialised.
  bool intermediate(const std::string& name) const {
    auto count = [](const std::map<std::string, int>& m, const std::string& n) {
      auto it = m.find(n);
      return it == m.end() ? 0 : it->second;
    };
    return count(uses_.reads, name) == 1 && count(uses_.writes, name) == 1 && !pinned_.count(name);
  }

  const Program& prog_;
  int block_;
  Uses uses_;
  std::set<std::string> pinned_;
};

}  // namespace

std::map<int, std::vector<FusedChain>> find_fused_chains(const Program& prog, const ProgramInfo& info) {
  std::map<int, std::vector<FusedChain>> chains;
  ChainFinder finder(prog, info);
  for (int b = 0; b < prog.num_blocks(); ++b)
    if (auto found = finder.run(b); !found.empty()) chains[b] = std::move(found);
  return chains;
}

void emit_fused_chain(const Program& prog, int block, const FusedChain& chain, const FusedEmitEnv& env,
                      std::ostringstream& body) {
  const auto& ops = prog.block(block).ops();
  const bool fp32 = chain.dtype == pb::VarType::FP32;
  const char* ct = fp32 ? "float" : "double";
  std::vector<std::string> types, operands, pointers, steps;
  for (size_t n = 0; n < chain.ops.size(); ++n) {
    const int i = chain.ops[n];
    const pb::OpDesc& op = ops.Get(i);
    const ops::OpDef& def = *ops::find_op(op.type());
    types.push_back(op.type());
    std::string call = fmt::format("k::pw::{}::f(v", def.pointwise);
    if (def.input("Y")) {
      const std::string y = op_inputs(op, "Y").at(0);
      const bool row = chain.y_is_row[n];
      const std::string ptr = fmt::format("y{}", operands.size());
      operands.push_back(fmt::format("{{&{}, k::Bcast::{}, {}.axis}}", env.var(y), row ? "kRow" : "kFull",
                                     env.attrs(i)));
      pointers.push_back(fmt::format("    const {}* {} = {}.data<{}>();\n", ct, ptr, env.var(y), ct));
      call += fmt::format(", {}[{}]", ptr, row ? "j" : "i");
    } else if (!def.attrs_struct.empty()) {
      call += ", " + env.attrs(i);
    }
    steps.push_back(fmt::format("      v = {});\n", call));
  }
  const pb::OpDesc& head = ops.Get(chain.ops.front());
  const std::string& x = env.var(op_inputs(head, "X").at(0));
  const std::string& out = env.var(op_outputs(ops.Get(chain.ops.back()), "Out").at(0));
  body << fmt::format("  // block {}, ops {}-{} fused: {}\n", block, chain.ops.front(), chain.ops.back(),
                      fmt::join(types, " -> "));
  body << fmt::format("  fluidc::rt::enter_op({});\n", env.site(chain.ops.front()));
  // --check-nan checks every op's output: the chain runs op by op then.
  body << fmt::format("  if (const k::FusedPlan f = k::plan_fused({}, fluidc::rt::DType::{}, {{{}}}, {}); f.ok && !check_nan_) {{\n", x,
                      fp32 ? "kFP32" : "kFP64", fmt::join(operands, ", "), out);
  body << fmt::format("    const {0}* x = {1}.data<{0}>();\n", ct, x);
  for (const auto& p : pointers) body << p;
  body << fmt::format("    {0}* out = {1}.data<{0}>();\n", ct, out);
  body << fmt::format("    k::fused_for(f, [&](int64_t i, [[maybe_unused]] int64_t j) {{\n      {} v = x[i];\n", ct);
  for (const auto& s : steps) body << s;
  body << "      out[i] = v;\n    });\n  } else {\n";
  std::istringstream fallback(env.fallback);
  for (std::string line; std::getline(fallback, line);) body << "  " << line << "\n";
  body << "  }\n";
}

}  // namespace fluidc
