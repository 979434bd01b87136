// compiler/ops/shape_ctx.cc - ShapeCtx, declared types and the shape rules shared by op families.
#include "compiler/ops/shape_ctx.h"

#include <fmt/format.h>

#include "compiler/ir/attrs.h"
#include "compiler/ir/op_role.h"
#include "compiler/ops/registry.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc {

std::string TensorType::str() const {
  if (!known) return "<unknown>";
  return dtype_str(dtype) + dims_str(dims);
}

ShapeCtx::ShapeCtx(const Program& prog, int block, int op_index, std::map<std::string, TensorType>& types,
                   Diagnostics& diags, const ShapePolicy& policy)
    : prog_(prog), block_(block), op_index_(op_index), op_(prog.block(block).ops(op_index)),
      types_(types), diags_(diags), policy_(policy) {}

bool ShapeCtx::has_input(const std::string& slot) const { return !op_inputs(op_, slot).empty(); }

int ShapeCtx::num_inputs(const std::string& slot) const { return static_cast<int>(op_inputs(op_, slot).size()); }

const TensorType& ShapeCtx::input(const std::string& slot, int i) {
  auto args = op_inputs(op_, slot);
  if (i >= static_cast<int>(args.size())) {
    error(fmt::format("input slot {} has no variable #{}", slot, i));
    return unknown_;
  }
  auto it = types_.find(args[i]);
  return it == types_.end() ? unknown_ : it->second;
}

bool ShapeCtx::has_output(const std::string& slot) const { return !op_outputs(op_, slot).empty(); }

void ShapeCtx::set_output(const std::string& slot, const TensorType& t) {
  if (!t.known) return;
  for (const auto& name : op_outputs(op_, slot)) merge_output(slot, name, t);
}

void ShapeCtx::set_output_at(const std::string& slot, int i, const TensorType& t) {
  const std::vector<std::string> names = op_outputs(op_, slot);
  if (t.known && i >= 0 && i < static_cast<int>(names.size())) merge_output(slot, names[i], t);
}

void ShapeCtx::merge_output(const std::string& slot, const std::string& name, const TensorType& t) {
  {
    TensorType& cur = types_[name];
    int defined_in = block_;
    const pb::VarDesc* var = prog_.find_var(block_, name, &defined_in);
    const bool outer = var && defined_in != block_;
    if (!cur.known || cur.dims.size() != t.dims.size() || (policy_.replace && !outer)) {
      // A rank disagreement with the VarDesc is common in real programs
      // (Paddle writes [1] for 0-D results of older releases): the inferred
      // type wins because it is what the kernels will produce.
      cur = t;
      return;
    }
    if (outer) {
      // The enclosing block's variable holds its old shape when the body
      // does not run and the new one after it did (a loop variable may
      // change shape every iteration): only the dims both agree on stay.
      for (size_t d = 0; d < t.dims.size(); ++d) {
        if (t.dims[d] >= 0 && cur.dims[d] >= 0 && t.dims[d] != cur.dims[d]) {
          cur.dims[d] = -1;
          if (policy_.widened) *policy_.widened = true;
        } else if (cur.dims[d] < 0 && t.dims[d] >= 0 && !policy_.replace) {
          cur.dims[d] = t.dims[d];  // first written here: the body's dim is all it ever holds
        }
      }
      cur.dtype = t.dtype;
      return;
    }
    TensorType had = cur;
    bool conflict = false;
    // The inferred dims replace the declared ones, unknown ones included: a
    // dim the rule cannot know depends on the feeds, and a VarDesc's number
    // there is no evidence. Paddle's own compile-time rules multiply unknown
    // dims (-1 * -1 = 1): PP-OCRv4's recogniser declares layer_norm's Mean
    // [1] for X [-1, -1, 120], which planned 4 bytes for 40 floats.
    for (size_t d = 0; d < t.dims.size(); ++d) {
      conflict |= t.dims[d] >= 0 && cur.dims[d] >= 0 && t.dims[d] != cur.dims[d];
      cur.dims[d] = t.dims[d];
    }
    cur.dtype = t.dtype;
    if (!conflict) return;
    // Paddle's executor recomputes shapes at run time, so a declaration is a
    // hint: the kernels will produce the inferred shape.
    const bool declared = var && declared_type(*var).dims == had.dims;
    std::string msg = fmt::format("output {} is inferred as {} but {} {}", slot, t.str(),
                                  declared ? "the program declares" : "an earlier op made it", had.str());
    Location l = prog_.loc(block_, op_index_, name);
    if (policy_.strict)
      diags_.error(l, msg + " (--strict-shapes)");
    else
      diags_.warning(l, msg + "; using the inferred shape (--strict-shapes makes this an error)");
  }
}

void ShapeCtx::error(const std::string& message) { diags_.error(prog_.loc(block_, op_index_), message); }

TensorType declared_type(const pb::VarDesc& var) {
  TensorType t;
  const auto* td = tensor_desc(var);
  if (!td) return t;
  t.known = true;
  t.dtype = td->data_type();
  t.dims.assign(td->dims().begin(), td->dims().end());
  return t;
}

namespace shape_rules {

void same_as_x(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  for (const auto& out : c.op().outputs()) c.set_output(out.parameter(), x);
}

void grads_like_inputs(ShapeCtx& c) {
  const std::string& kSuffix = kGradSuffix;
  for (const auto& out : c.op().outputs()) {
    const std::string& slot = out.parameter();
    if (slot.size() <= kSuffix.size() || slot.compare(slot.size() - kSuffix.size(), kSuffix.size(), kSuffix))
      continue;
    std::string fwd = slot.substr(0, slot.size() - kSuffix.size());
    if (c.has_input(fwd))
      c.set_output(slot, c.input(fwd));
    else if (c.has_input("Out"))
      c.set_output(slot, c.input("Out"));
  }
}

void outs_like_inputs(ShapeCtx& c) {
  for (const auto& out : c.op().outputs()) {
    const std::string& slot = out.parameter();
    if (slot.size() > 3 && slot.compare(slot.size() - 3, 3, "Out") == 0) {
      std::string in = slot.substr(0, slot.size() - 3);
      if (c.has_input(in)) c.set_output(slot, c.input(in));
    }
  }
}

bool dims_agree(int64_t a, int64_t b) { return shapes::dims_agree(a, b); }

bool to_shape(ShapeCtx& c, const TensorType& t, rt::Shape& s) {
  if (t.dims.size() > static_cast<size_t>(rt::Shape::kMaxRank)) {
    c.error(fmt::format("{} has rank {}; at most {} is supported", t.str(), t.dims.size(), rt::Shape::kMaxRank));
    return false;
  }
  s = rt::Shape::from(t.dims.data(), static_cast<int>(t.dims.size()));
  return true;
}

std::vector<int64_t> from_shape(const rt::Shape& s) { return std::vector<int64_t>(s.d, s.d + s.rank); }

bool input_shapes(ShapeCtx& c, const std::string& slot, std::vector<rt::Shape>& shapes) {
  const int n = c.num_inputs(slot);
  shapes.assign(static_cast<size_t>(n), rt::Shape{});
  for (int i = 0; i < n; ++i) {
    const TensorType& t = c.input(slot, i);
    if (!t.known || !to_shape(c, t, shapes[static_cast<size_t>(i)])) return false;
  }
  return true;
}

void set_xshape(ShapeCtx& c, const TensorType& x) {
  if (!c.has_output("XShape")) return;
  TensorType xshape = x;
  xshape.dims.insert(xshape.dims.begin(), 0);
  c.set_output("XShape", xshape);
}

void grad_from_xshape(ShapeCtx& c) {
  TensorType x = c.input("XShape");
  if (!x.known || x.dims.empty()) return;
  x.dims.erase(x.dims.begin());
  x.dtype = c.input("Out@GRAD").dtype;
  c.set_output("X@GRAD", x);
}

std::string broadcast(const std::vector<int64_t>& x, const std::vector<int64_t>& y, int axis,
                      std::vector<int64_t>& out) {
  if (x.size() > static_cast<size_t>(rt::Shape::kMaxRank) || y.size() > static_cast<size_t>(rt::Shape::kMaxRank))
    return "rank above 9";
  rt::Shape xs = rt::Shape::from(x.data(), static_cast<int>(x.size()));
  rt::Shape ys = rt::Shape::from(y.data(), static_cast<int>(y.size()));
  rt::Shape xa, ya, os;
  std::string e = shapes::broadcast_paddle(xs, ys, axis, xa, ya, os);
  if (e.empty()) out = from_shape(os);
  return e;
}

}  // namespace shape_rules
}  // namespace fluidc
