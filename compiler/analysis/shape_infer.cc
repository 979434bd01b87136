// compiler/analysis/shape_infer.cc - runs every op's shape rule over all blocks, sub-blocks where their op runs them.
#include "compiler/analysis/shape_infer.h"

#include <atomic>
#include <vector>

#include "compiler/ir/attrs.h"
#include "compiler/ops/registry.h"

namespace fluidc {
namespace {

std::atomic<bool> g_strict{false};

struct Inferer {
  Inferer(const Program& prog, bool strict, std::map<std::string, TensorType>& types)
      : prog_(prog), strict_(strict), types_(types), seen_(prog.num_blocks(), false), active_(prog.num_blocks(), false) {}

  // Infers block b's ops in order. `replace` and `widened` as in ShapePolicy.
  void block(int b, Diagnostics& diags, bool replace, bool* widened) {
    seen_[b] = true;
    active_[b] = true;
    const auto& blk = prog_.block(b);
    for (int i = 0; i < blk.ops_size(); ++i) {
      const ops::OpDef* def = ops::find_op(blk.ops(i).type());
      if (!def) continue;
      if (def->infer_shape) {
        ShapeCtx ctx(prog_, b, i, types_, diags, ShapePolicy{strict_, replace, widened});
        def->infer_shape(ctx);
      }
      if (def->has(ops::kOwnsBlock)) sub_block(static_cast<int>(attr_int(blk.ops(i), "sub_block", -1)), diags, widened);
    }
    active_[b] = false;
  }

  // A sub-block is inferred where its op runs it, so the ops after the op
  // see what the body wrote. When the body changed the shape of a variable
  // of an enclosing block, that variable now has -1 dims and the body's
  // first pass saw its initial shape: the body is inferred again from the
  // widened types (its errors were reported by the first pass).
  void sub_block(int sub, Diagnostics& diags, bool* outer_widened) {
    if (sub <= 0 || sub >= prog_.num_blocks() || active_[sub]) return;  // the verifier reports bad indices
    bool widened = false;
    block(sub, diags, false, &widened);
    if (!widened) return;
    if (outer_widened) *outer_widened = true;  // the enclosing body may read what widened
    Diagnostics again;
    block(sub, again, true, nullptr);
  }

  const Program& prog_;
  bool strict_;
  std::map<std::string, TensorType>& types_;
  std::vector<bool> seen_, active_;
};

}  // namespace

void set_strict_shapes(bool strict) { g_strict = strict; }
bool strict_shapes() { return g_strict; }

std::map<std::string, TensorType> infer_shapes(const Program& prog, Diagnostics& diags) {
  return infer_shapes(prog, diags, strict_shapes());
}

std::map<std::string, TensorType> infer_shapes(const Program& prog, Diagnostics& diags, bool strict) {
  std::map<std::string, TensorType> types;
  for (int b = 0; b < prog.num_blocks(); ++b)
    for (const auto& v : prog.block(b).vars()) types.emplace(v.name(), declared_type(v));
  Inferer inf(prog, strict, types);
  // Blocks no op runs (or that only a later block's op runs) in index order.
  for (int b = 0; b < prog.num_blocks(); ++b)
    if (!inf.seen_[b]) inf.block(b, diags, false, nullptr);
  return types;
}

}  // namespace fluidc
