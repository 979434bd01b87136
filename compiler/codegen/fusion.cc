// compiler/codegen/fusion.cc - finds fusable elementwise chains and writes each as one loop over kernels/fused.h.
#include "compiler/codegen/fusion.h"

#include <fmt/format.h>

#include <algorithm>
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
  std::string value, operand, out;  // operand empty for unary ops
  OperandFit fit = OperandFit::kFull;
  bool value_is_y = false;
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
      Link l;
      if (!link(i, "", c.dtype, l)) continue;
      for (int j = i;; ++j) {
        c.ops.push_back(j);
        c.fits.push_back(l.fit);
        c.value_is_y.push_back(l.value_is_y);
        const std::string value = l.out;  // link() resets l
        if (c.ops.size() == kMaxChainOps || j + 1 >= ops.size() || !intermediate(value) ||
            !link(j + 1, value, c.dtype, l))
          break;
      }
      if (c.ops.size() < 2) continue;
      i = c.ops.back();
      chains.push_back(std::move(c));
    }
    return chains;
  }

 private:
  // Element type and declared dims of a dense tensor variable seen from the block.
  bool tensor(const std::string& name, pb::VarType::Type& dtype, std::vector<int64_t>& dims) const {
    const pb::VarDesc* v = prog_.find_var(block_, name);
    if (!v || !is_dense_tensor(*v) || !tensor_desc(*v)) return false;
    dtype = tensor_desc(*v)->data_type();
    dims.assign(tensor_desc(*v)->dims().begin(), tensor_desc(*v)->dims().end());
    return true;
  }

  // A same-rank operand that may broadcast to the value: each dim can equal the value's (-1: any) or is 1.
  static bool may_broadcast_to(const std::vector<int64_t>& op, const std::vector<int64_t>& value) {
    for (size_t d = 0; d < op.size(); ++d)
      if (op[d] != value[d] && op[d] != 1 && op[d] >= 0 && value[d] >= 0) return false;
    return true;
  }

  // A same-rank operand declared 1 where the value's dim is not known to be 1: a broadcast.
  static bool ones_where_not(const std::vector<int64_t>& op, const std::vector<int64_t>& value) {
    if (op.size() != value.size()) return false;
    for (size_t d = 0; d < op.size(); ++d)
      if (op[d] == 1 && value[d] != 1) return true;
    return false;
  }

  static bool one_element(const std::vector<int64_t>& dims) {
    return std::all_of(dims.begin(), dims.end(), [](int64_t d) { return d == 1; });
  }

  // Op i as a chain member of element type `dtype` (set by the first op)
  // that reads `value` (empty for a chain's first op: its larger input,
  // X when the ranks are equal).
  bool link(int i, const std::string& value, pb::VarType::Type& dtype, Link& l) const {
    l = Link{};
    const pb::OpDesc& op = prog_.block(block_).ops(i);
    const ops::OpDef* def = ops::find_op(op.type());
    if (!def || def->pointwise.empty()) return false;
    const bool binary = def->input("Y") != nullptr;
    for (const auto& in : op.inputs())  // inputs the scalar function would not see
      if (in.parameter() != "X" && !(binary && in.parameter() == "Y") && in.arguments_size() > 0) return false;
    const std::string x = single(op_inputs(op, "X")), y = binary ? single(op_inputs(op, "Y")) : "";
    l.out = single(op_outputs(op, "Out"));
    if (x.empty() || l.out.empty() || (binary && y.empty())) return false;
    pb::VarType::Type tx, tout, ty = pb::VarType::RAW;
    std::vector<int64_t> dx, dout, dy;
    if (!tensor(x, tx, dx) || !tensor(l.out, tout, dout)) return false;
    if (binary && (!tensor(y, ty, dy) || ty != tx)) return false;
    if (tx != tout || (tx != pb::VarType::FP32 && tx != pb::VarType::FP64)) return false;
    if (dtype != pb::VarType::RAW && dtype != tx) return false;
    // The value enters as Y when X is the broadcast operand: f(x, value) keeps the op's argument order.
    l.value_is_y = binary && (value.empty() ? dy.size() > dx.size() : value != x && value == y);
    l.value = l.value_is_y ? y : x;
    if (!value.empty() && l.value != value) return false;
    if (binary) {
      l.operand = l.value_is_y ? x : y;
      const auto& dv = l.value_is_y ? dy : dx;
      const auto& dop = l.value_is_y ? dx : dy;
      if (dop.size() > dv.size()) return false;
      if (one_element(dop) && !one_element(dv)) l.fit = OperandFit::kScalar;
      else if (dop.size() < dv.size() || ones_where_not(dop, dv)) l.fit = OperandFit::kRow;  // [N, C, 1, 1]
      // Declared dims that differ would fail the run-time check and send the whole chain to its
      // fallback: end the chain before the op instead.
      if (dop.size() == dv.size() && !may_broadcast_to(dop, dv)) return false;
    }
    dtype = tx;
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
    std::string args = "v";
    if (def.input("Y")) {
      const std::string& y = env.var(op_inputs(op, chain.value_is_y[n] ? "X" : "Y").at(0));
      const std::string name = fmt::format("y{}", operands.size());
      static const char* const kKinds[] = {"kFull", "kRow", "kScalar"};
      operands.push_back(fmt::format("{{&{}, k::Bcast::{}, {}.axis}}", y, kKinds[static_cast<int>(chain.fits[n])],
                                     env.attrs(i)));
      // A one-element operand is read once, before the loop.
      std::string operand;
      if (chain.fits[n] == OperandFit::kScalar) {
        pointers.push_back(fmt::format("    const {0} {1} = {2}.data<{0}>()[0];\n", ct, name, y));
        operand = name;
      } else {
        pointers.push_back(fmt::format("    const {0}* {1} = {2}.data<{0}>();\n", ct, name, y));
        operand = fmt::format("{}[{}]", name, chain.fits[n] == OperandFit::kRow ? "j" : "i");
      }
      args = chain.value_is_y[n] ? operand + ", v" : "v, " + operand;
    } else if (!def.attrs_struct.empty()) {
      args += ", " + env.attrs(i);
    }
    steps.push_back(fmt::format("      v = k::pw::{}::f({});\n", def.pointwise, args));
  }
  const pb::OpDesc& head = ops.Get(chain.ops.front());
  const std::string& x = env.var(op_inputs(head, chain.value_is_y.front() ? "Y" : "X").at(0));
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
  body << fmt::format(
      "    k::fused_for(f, [&](int64_t i, [[maybe_unused]] int64_t j) __attribute__((always_inline)) {{\n      {} v = x[i];\n",
      ct);
  for (const auto& s : steps) body << s;
  body << "      out[i] = v;\n    });\n  } else {\n";
  std::istringstream fallback(env.fallback);
  for (std::string line; std::getline(fallback, line);) body << "  " << line << "\n";
  body << "  }\n";
}

}  // namespace fluidc
