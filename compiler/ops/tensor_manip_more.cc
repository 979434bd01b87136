// compiler/ops/tensor_manip_more.cc - flip and reverse (Fluid 1.x), diagonal, diag_embed, tril_triu, split, stack, unstack, expand_v2, expand (Fluid 1.x), expand_as_v2, tile, shape, size, fill_constant_batch_size_like.
#include <fmt/format.h>

#include "compiler/ir/attrs.h"
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/grad_util.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/rule_infer.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/expand.h"
#include "kernels/shapes/flip_tril.h"
#include "kernels/shapes/split_stack.h"
#include "kernels/tensor_manip.h"

namespace fluidc::ops {
namespace {

using kernels::ExpandAsV2Attrs;
using kernels::ExpandV2Attrs;
using kernels::SplitAttrs;
using kernels::StackAttrs;
using kernels::TileAttrs;
using kernels::UnstackAttrs;
using kernels::DiagonalAttrs;
using kernels::FlipAttrs;
using kernels::TrilTriuAttrs;

// `rank` dims, each known only at run time.
TensorType unknown_dims(const TensorType& like, int rank) {
  TensorType t = like;
  t.dims.assign(static_cast<size_t>(rank), -1);
  return t;
}

void infer_split(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  const int n = static_cast<int>(op_outputs(c.op(), "Out").size());
  if (c.has_input("AxisTensor")) {  // the axis is a run-time value: only the rank is known
    c.set_output("Out", unknown_dims(x, xs.rank));
    return;
  }
  const auto a = parse_attrs<SplitAttrs>(c.op());
  int axis = 0;
  std::vector<rt::Shape> outs(static_cast<size_t>(n));
  std::string e = shapes::axis_in(a.axis, xs.rank, axis);
  if (e.empty())
    e = shapes::split_shapes(xs, axis, a.num, c.has_input("SectionsTensorList") ? nullptr : &a.sections, n,
                             outs.data());
  if (!e.empty()) {
    c.error(e);
    return;
  }
  for (int i = 0; i < n; ++i) {
    TensorType t = x;
    t.dims = shape_rules::from_shape(outs[i]);
    c.set_output_at("Out", i, t);
  }
}

// Paddle's gradient of split: concat of the Out gradients along the same
// axis (AxisTensor passed on). Every Out needs a gradient: autodiff hands
// zeros for an Out the loss does not reach, as Paddle's backward does.
bool split_grad(const pb::OpDesc& fwd, const std::function<std::string(const std::string&)>& grad_of,
                pb::OpDesc& grad) {
  if (!join_output_grads(fwd, grad_of, "concat", "Out", parse_attrs<SplitAttrs>(fwd).axis, grad)) return false;
  if (auto at = op_inputs(fwd, "AxisTensor"); !at.empty()) add_input(grad, "AxisTensor", at);
  return true;
}

void infer_stack(ShapeCtx& c) {
  std::vector<rt::Shape> xs;
  if (!shape_rules::input_shapes(c, "X", xs)) return;
  const int n = static_cast<int>(xs.size());
  rt::Shape ys;
  int axis = 0;
  if (std::string e = shapes::stack_shape(n, [&](int i) -> const rt::Shape& { return xs[i]; },
                                          parse_attrs<StackAttrs>(c.op()).axis, ys, axis);
      !e.empty()) {
    c.error(e);
    return;
  }
  TensorType y = c.input("X", 0);
  y.dims = shape_rules::from_shape(ys);
  c.set_output("Y", y);
}

// `from` without dim `axis_attr` (stack_grad's X@GRAD, unstack's Y).
void set_without_axis(ShapeCtx& c, const TensorType& from, int axis_attr, const char* slot) {
  rt::Shape s, part;
  if (!from.known || !shape_rules::to_shape(c, from, s)) return;
  int axis = 0;
  if (std::string e = shapes::unstack_shape(s, axis_attr, -1, part, axis); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType t = from;
  t.dims = shape_rules::from_shape(part);
  c.set_output(slot, t);
}

void infer_stack_grad(ShapeCtx& c) {
  set_without_axis(c, c.input("Y@GRAD"), parse_attrs<StackAttrs>(c.op()).axis, "X@GRAD");
}

void infer_unstack(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs, ys;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  int axis = 0;
  const int n = static_cast<int>(op_outputs(c.op(), "Y").size());
  if (std::string e = shapes::unstack_shape(xs, parse_attrs<UnstackAttrs>(c.op()).axis, n, ys, axis); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType y = x;
  y.dims = shape_rules::from_shape(ys);
  c.set_output("Y", y);
}

void infer_unstack_grad(ShapeCtx& c) {
  const int n = c.num_inputs("Y@GRAD");
  for (int i = 0; i < n; ++i) {
    const TensorType& g = c.input("Y@GRAD", i);
    rt::Shape gs, xs;
    if (!g.known || !shape_rules::to_shape(c, g, gs)) continue;
    int axis = 0;
    if (std::string e = shapes::stack_shape(1, [&](int) -> const rt::Shape& { return gs; },
                                            parse_attrs<UnstackAttrs>(c.op()).axis, xs, axis);
        !e.empty()) {
      c.error(e);
      return;
    }
    xs.d[axis] = n;
    TensorType t = g;
    t.dims = shape_rules::from_shape(xs);
    c.set_output("X@GRAD", t);
    return;
  }
}

// The rank a run-time int list gives: its tensor's length, or the number of
// 1-element tensors; -1 when not known.
int run_time_rank(ShapeCtx& c, const char* tensor_slot, const char* list_slot) {
  if (c.has_input(tensor_slot)) {
    const TensorType& t = c.input(tensor_slot);
    return t.known && t.dims.size() == 1 && t.dims[0] >= 0 ? static_cast<int>(t.dims[0]) : -1;
  }
  return c.num_inputs(list_slot);
}

void infer_expand_v2(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs, os;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  if (c.has_input("Shape") || c.has_input("expand_shapes_tensor")) {
    const int r = run_time_rank(c, "Shape", "expand_shapes_tensor");
    if (r >= 0) c.set_output("Out", unknown_dims(x, r));
    return;
  }
  if (std::string e = shapes::expand_shape(xs, parse_attrs<ExpandV2Attrs>(c.op()).shape, os); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType t = x;
  t.dims = shape_rules::from_shape(os);
  c.set_output("Out", t);
}

void infer_expand_as_v2(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs, os;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  std::vector<int64_t> target;
  if (c.has_input("Y")) {
    const TensorType& y = c.input("Y");
    if (!y.known) return;
    target = y.dims;
  } else {
    const auto a = parse_attrs<ExpandAsV2Attrs>(c.op());
    target.assign(a.target_shape.begin(), a.target_shape.end());
  }
  if (std::string e = shapes::expand_shape(xs, target, os); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType t = x;
  t.dims = shape_rules::from_shape(os);
  c.set_output("Out", t);
}

// broadcast_tensors: every Out[k] gets the inputs' common (numpy) shape in X[k]'s dtype.
void infer_broadcast_tensors(ShapeCtx& c) {
  std::vector<rt::Shape> shapes;
  if (!shape_rules::input_shapes(c, "X", shapes) || shapes.empty()) return;
  rt::Shape target = shapes[0];
  for (size_t k = 1; k < shapes.size(); ++k) {
    rt::Shape a, b, both;
    if (std::string e = shapes::broadcast_numpy(target, shapes[k], a, b, both); !e.empty()) {
      c.error(e);
      return;
    }
    target = both;
  }
  const int n = std::min(c.num_inputs("X"), static_cast<int>(op_outputs(c.op(), "Out").size()));
  for (int k = 0; k < n; ++k) {
    TensorType t = c.input("X", k);
    t.dims = shape_rules::from_shape(target);
    c.set_output_at("Out", k, t);
  }
}

// broadcast_tensors_grad: X@GRAD[k] like X[k].
void infer_broadcast_tensors_grad(ShapeCtx& c) {
  const int n = std::min(c.num_inputs("X"), static_cast<int>(op_outputs(c.op(), "X@GRAD").size()));
  for (int k = 0; k < n; ++k) c.set_output_at("X@GRAD", k, c.input("X", k));
}

void infer_tile(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs, os;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  if (c.has_input("RepeatTimes") || c.has_input("repeat_times_tensor")) {
    const int r = run_time_rank(c, "RepeatTimes", "repeat_times_tensor");
    if (r >= 0) c.set_output("Out", unknown_dims(x, std::max(r, xs.rank)));
    return;
  }
  if (std::string e = shapes::tile_shape(xs, parse_attrs<TileAttrs>(c.op()).repeat_times, os); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType t = x;
  t.dims = shape_rules::from_shape(os);
  c.set_output("Out", t);
}

// Fluid 1.x's expand: tile's rule with one count per dim of X.
void infer_expand(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs, os;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  if (c.has_input("ExpandTimes") || c.has_input("expand_times_tensor")) {
    c.set_output("Out", unknown_dims(x, xs.rank));
    return;
  }
  if (std::string e = shapes::expand_v1_shape(xs, parse_attrs<kernels::ExpandAttrs>(c.op()).expand_times, os);
      !e.empty()) {
    c.error(e);
    return;
  }
  TensorType t = x;
  t.dims = shape_rules::from_shape(os);
  c.set_output("Out", t);
}

void infer_shape_op(ShapeCtx& c) {
  const TensorType& in = c.input("Input");
  if (!in.known) return;
  TensorType t;
  t.known = true;
  t.dtype = pb::VarType::INT32;
  t.dims = {static_cast<int64_t>(in.dims.size())};
  c.set_output("Out", t);
}

void infer_size(ShapeCtx& c) {
  TensorType t;
  t.known = true;
  t.dtype = pb::VarType::INT64;
  c.set_output("Out", t);
}

void infer_batch_size_like(ShapeCtx& c) {
  const TensorType& in = c.input("Input");
  rt::Shape is, os;
  if (!in.known || !shape_rules::to_shape(c, in, is)) return;
  const auto a = parse_attrs<kernels::FillConstantBatchSizeLikeAttrs>(c.op());
  if (std::string e = shapes::batch_size_like_shape(is, a.shape, a.input_dim_idx, a.output_dim_idx, os);
      !e.empty()) {
    c.error(e);
    return;
  }
  if (!rt::dtype_is_valid(a.dtype)) {
    c.error(fmt::format("dtype {} is not a dtype code", a.dtype));
    return;
  }
  TensorType t;
  t.known = true;
  t.dtype = static_cast<pb::VarType::Type>(a.dtype);
  t.dims = shape_rules::from_shape(os);
  c.set_output("Out", t);
}

// flip and tril_triu keep X's shape; the kernels' checks report bad attributes here.
void infer_flip(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  bool flipped[rt::Shape::kMaxRank];
  if (std::string e = shapes::flip_axes(xs, parse_attrs<kernels::FlipAttrs>(c.op()), flipped); !e.empty()) {
    c.error(e);
    return;
  }
  c.set_output("Out", x);
}

// diagonal: Input's other dims, then the diagonal (kernels/shapes/flip_tril.h).
void infer_diagonal(ShapeCtx& c) {
  infer_out_by_rule<kernels::DiagonalAttrs>(
      c,
      [](const rt::Shape& x, const kernels::DiagonalAttrs& a, rt::Shape& o) {
        int a1 = 0, a2 = 0;
        return shapes::diagonal_shape(x, a, a1, a2, o);
      },
      "Input");
}

// diag_embed: one dim more than Input (kernels/shapes/flip_tril.h).
void infer_diag_embed(ShapeCtx& c) {
  infer_out_by_rule<kernels::DiagEmbedAttrs>(
      c,
      [](const rt::Shape& x, const kernels::DiagEmbedAttrs& a, rt::Shape& o) {
        int a1 = 0, a2 = 0;
        return shapes::diag_embed_shape(x, a, a1, a2, o);
      },
      "Input");
}

void infer_tril_triu(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  if (std::string e = shapes::tril_triu_check(xs); !e.empty()) {
    c.error(e);
    return;
  }
  c.set_output("Out", x);
}

// X@GRAD is shaped like Out@GRAD (the grad op has no X).
void infer_tril_triu_grad(ShapeCtx& c) {
  const TensorType& g = c.input("Out@GRAD");
  if (g.known) c.set_output("X@GRAD", g);
}

}  // namespace

void add_tensor_manip_more_ops(std::vector<OpDef>& t) {
  const char* f = "tensor_manip";
  // flip's gradient is a flip of Out@GRAD (Paddle emits the same op type).
  t.push_back({.type = "flip", .family = f, .inputs = {{"X"}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<FlipAttrs>(), .attrs_struct = "FlipAttrs", .grad = "flip",
               .make_grad = unary_self_grad, .infer_shape = infer_flip});
  // Fluid 1.x's reverse: flip's kernel and rule; its gradient is itself too.
  t.push_back({.type = "reverse", .family = f, .inputs = {{"X"}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<FlipAttrs>(), .attrs_struct = "FlipAttrs", .grad = "reverse",
               .make_grad = unary_self_grad, .infer_shape = infer_flip});
  // paddle.diagonal; the gradient puts Out@GRAD back on the diagonals.
  t.push_back({.type = "diagonal", .family = f, .inputs = {{"Input"}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<DiagonalAttrs>(), .attrs_struct = "DiagonalAttrs", .grad = "diagonal_grad",
               .infer_shape = infer_diagonal, .share_lod = kShareLodNone});
  t.push_back({.type = "diagonal_grad", .family = f, .inputs = {{"Input"}, {"Out@GRAD"}},
               .outputs = {{"Input@GRAD", true}}, .attrs = kernel_attrs<DiagonalAttrs>(),
               .attrs_struct = "DiagonalAttrs", .infer_shape = shape_rules::grads_like_inputs});
  // paddle.diag_embed: no gradient (Paddle 2.6 writes none).
  t.push_back({.type = "diag_embed", .family = f, .inputs = {{"Input"}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<kernels::DiagEmbedAttrs>(), .attrs_struct = "DiagEmbedAttrs",
               .infer_shape = infer_diag_embed, .share_lod = kShareLodNone});
  t.push_back({.type = "tril_triu", .family = f, .inputs = {{"X"}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<TrilTriuAttrs>(), .attrs_struct = "TrilTriuAttrs", .grad = "tril_triu_grad",
               .infer_shape = infer_tril_triu});
  t.push_back({.type = "tril_triu_grad", .family = f, .inputs = {{"Out@GRAD"}}, .outputs = {{"X@GRAD", true}},
               .attrs = kernel_attrs<TrilTriuAttrs>(), .attrs_struct = "TrilTriuAttrs",
               .infer_shape = infer_tril_triu_grad});
  t.push_back({.type = "split", .family = f,
               .inputs = {{"X"}, {"AxisTensor", true}, {"SectionsTensorList", true, true}},
               .outputs = {{"Out", false, true}}, .attrs = kernel_attrs<SplitAttrs>(), .attrs_struct = "SplitAttrs",
               .grad = "concat", .make_grad = split_grad, .infer_shape = infer_split});
  t.push_back({.type = "stack", .family = f, .inputs = {{"X", false, true}}, .outputs = {{"Y"}},
               .attrs = kernel_attrs<StackAttrs>(), .attrs_struct = "StackAttrs", .grad = "stack_grad",
               .infer_shape = infer_stack});
  t.push_back({.type = "stack_grad", .family = f, .inputs = {{"X", true, true}, {"Y@GRAD"}},
               .outputs = {{"X@GRAD", true, true}}, .attrs = kernel_attrs<StackAttrs>(),
               .attrs_struct = "StackAttrs", .infer_shape = infer_stack_grad});
  t.push_back({.type = "unstack", .family = f, .inputs = {{"X"}}, .outputs = {{"Y", false, true}},
               .attrs = kernel_attrs<UnstackAttrs>(), .attrs_struct = "UnstackAttrs", .grad = "unstack_grad",
               .infer_shape = infer_unstack});
  t.push_back({.type = "unstack_grad", .family = f, .inputs = {{"Y@GRAD", false, true}},
               .outputs = {{"X@GRAD", true}}, .attrs = kernel_attrs<UnstackAttrs>(),
               .attrs_struct = "UnstackAttrs", .infer_shape = infer_unstack_grad});
  const std::vector<SlotDef> expand_in = {{"X"}, {"Shape", true}, {"expand_shapes_tensor", true, true}};
  std::vector<SlotDef> expand_grad_in = expand_in;
  expand_grad_in.push_back({"Out@GRAD"});
  t.push_back({.type = "expand_v2", .family = f, .inputs = expand_in, .outputs = {{"Out"}},
               .attrs = kernel_attrs<ExpandV2Attrs>(), .attrs_struct = "ExpandV2Attrs", .grad = "expand_v2_grad",
               .infer_shape = infer_expand_v2});
  t.push_back({.type = "expand_v2_grad", .family = f, .inputs = expand_grad_in, .outputs = {{"X@GRAD", true}},
               .attrs = kernel_attrs<ExpandV2Attrs>(), .attrs_struct = "ExpandV2Attrs",
               .infer_shape = shape_rules::grads_like_inputs});
  t.push_back({.type = "expand_as_v2", .family = f, .inputs = {{"X"}, {"Y", true}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<ExpandAsV2Attrs>(), .attrs_struct = "ExpandAsV2Attrs",
               .grad = "expand_as_v2_grad", .infer_shape = infer_expand_as_v2});
  t.push_back({.type = "expand_as_v2_grad", .family = f, .inputs = {{"X"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = kernel_attrs<ExpandAsV2Attrs>(),
               .attrs_struct = "ExpandAsV2Attrs", .infer_shape = shape_rules::grads_like_inputs});
  t.push_back({.type = "broadcast_tensors", .family = f, .inputs = {{"X", false, true}},
               .outputs = {{"Out", false, true}}, .grad = "broadcast_tensors_grad",
               .infer_shape = infer_broadcast_tensors});
  t.push_back({.type = "broadcast_tensors_grad", .family = f, .inputs = {{"X", false, true}, {"Out@GRAD", false, true}},
               .outputs = {{"X@GRAD", true, true}}, .infer_shape = infer_broadcast_tensors_grad});
  const std::vector<SlotDef> tile_in = {{"X"}, {"RepeatTimes", true}, {"repeat_times_tensor", true, true}};
  std::vector<SlotDef> tile_grad_in = tile_in;
  tile_grad_in.push_back({"Out@GRAD"});
  t.push_back({.type = "tile", .family = f, .inputs = tile_in, .outputs = {{"Out"}},
               .attrs = kernel_attrs<TileAttrs>(), .attrs_struct = "TileAttrs", .grad = "tile_grad",
               .infer_shape = infer_tile});
  t.push_back({.type = "tile_grad", .family = f, .inputs = tile_grad_in, .outputs = {{"X@GRAD", true}},
               .attrs = kernel_attrs<TileAttrs>(), .attrs_struct = "TileAttrs",
               .infer_shape = shape_rules::grads_like_inputs});
  const std::vector<SlotDef> expand_v1_in = {{"X"}, {"ExpandTimes", true}, {"expand_times_tensor", true, true}};
  std::vector<SlotDef> expand_v1_grad_in = expand_v1_in;
  expand_v1_grad_in.push_back({"Out@GRAD"});
  t.push_back({.type = "expand", .family = f, .inputs = expand_v1_in, .outputs = {{"Out"}},
               .attrs = kernel_attrs<kernels::ExpandAttrs>(), .attrs_struct = "ExpandAttrs", .grad = "expand_grad",
               .infer_shape = infer_expand});
  t.push_back({.type = "expand_grad", .family = f, .inputs = expand_v1_grad_in, .outputs = {{"X@GRAD", true}},
               .attrs = kernel_attrs<kernels::ExpandAttrs>(), .attrs_struct = "ExpandAttrs",
               .infer_shape = shape_rules::grads_like_inputs});
  // shape and size read only the dims: Input may be of any dtype.
  t.push_back({.type = "shape", .family = f, .inputs = {{"Input"}}, .outputs = {{"Out"}},
               .infer_shape = infer_shape_op});
  t.push_back({.type = "size", .family = f, .inputs = {{"Input"}}, .outputs = {{"Out"}}, .infer_shape = infer_size});
  t.push_back({.type = "fill_constant_batch_size_like", .family = f, .inputs = {{"Input"}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<kernels::FillConstantBatchSizeLikeAttrs>(),
               .attrs_struct = "FillConstantBatchSizeLikeAttrs", .infer_shape = infer_batch_size_like});
}

}  // namespace fluidc::ops
