// compiler/ops/repeat_put.cc - repeat_interleave (paddle.repeat_interleave) and put_along_axis with their gradients.
#include <fmt/format.h>

#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/repeat_put.h"

namespace fluidc::ops {
namespace {

bool is_index_dtype(pb::VarType::Type t) { return t == pb::VarType::INT32 || t == pb::VarType::INT64; }

// With a RepeatsTensor the repeated dim is its sum: -1 here, sized by the kernel.
void infer_repeat_interleave(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs, rs, os;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  const bool has_r = c.has_input("RepeatsTensor");
  if (has_r) {
    const TensorType& r = c.input("RepeatsTensor");
    if (!r.known || !shape_rules::to_shape(c, r, rs)) return;
    if (!is_index_dtype(r.dtype)) {
      c.error(fmt::format("RepeatsTensor is {}: it must be int32 or int64", r.str()));
      return;
    }
  }
  int axis = 0;
  const auto a = parse_attrs<kernels::RepeatInterleaveAttrs>(c.op());
  if (std::string e = shapes::repeat_interleave_shape(xs, has_r ? &rs : nullptr, a, axis, os); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType t = x;
  t.dims = shape_rules::from_shape(os);
  c.set_output("Out", t);
}

void infer_put_along_axis(ShapeCtx& c) {
  const TensorType& in = c.input("Input");
  const TensorType& idx = c.input("Index");
  const TensorType& v = c.input("Value");
  rt::Shape is, xs, vs;
  if (!in.known || !idx.known || !v.known || !shape_rules::to_shape(c, in, is) || !shape_rules::to_shape(c, idx, xs) ||
      !shape_rules::to_shape(c, v, vs))
    return;
  if (!is_index_dtype(idx.dtype)) {
    c.error(fmt::format("Index is {}: it must be int32 or int64", idx.str()));
    return;
  }
  if (v.dtype != in.dtype) {
    c.error(fmt::format("Value is {} but Input is {}: they must have one dtype", v.str(), in.str()));
    return;
  }
  int axis = 0;
  if (std::string e = shapes::put_along_axis_check(is, xs, vs, parse_attrs<kernels::PutAlongAxisAttrs>(c.op()), axis);
      !e.empty()) {
    c.error(e);
    return;
  }
  c.set_output("Result", in);
}

}  // namespace

void add_repeat_put_ops(std::vector<OpDef>& t) {
  const auto ri = kernel_attrs<kernels::RepeatInterleaveAttrs>();
  t.push_back({.type = "repeat_interleave", .family = "repeat_put", .inputs = {{"X"}, {"RepeatsTensor", true}},
               .outputs = {{"Out"}}, .attrs = ri, .attrs_struct = "RepeatInterleaveAttrs",
               .grad = "repeat_interleave_grad", .infer_shape = infer_repeat_interleave});
  t.push_back({.type = "repeat_interleave_grad", .family = "repeat_put",
               .inputs = {{"X"}, {"RepeatsTensor", true}, {"Out@GRAD"}}, .outputs = {{"X@GRAD", true}}, .attrs = ri,
               .attrs_struct = "RepeatInterleaveAttrs", .infer_shape = shape_rules::grads_like_inputs});
  const auto pa = kernel_attrs<kernels::PutAlongAxisAttrs>();
  t.push_back({.type = "put_along_axis", .family = "repeat_put", .inputs = {{"Input"}, {"Index"}, {"Value"}},
               .outputs = {{"Result"}}, .attrs = pa, .attrs_struct = "PutAlongAxisAttrs", .grad = "put_along_axis_grad",
               .infer_shape = infer_put_along_axis});
  t.push_back({.type = "put_along_axis_grad", .family = "repeat_put",
               .inputs = {{"Input"}, {"Index"}, {"Value"}, {"Result"}, {"Result@GRAD"}},
               .outputs = {{"Input@GRAD", true}, {"Value@GRAD", true}}, .attrs = pa, .attrs_struct = "PutAlongAxisAttrs",
               .infer_shape = shape_rules::grads_like_inputs});
}

}  // namespace fluidc::ops
