// compiler/ops/fill.cc - tensor creation and copies: fill_constant, *_like, assign, cast, random init.
#include <fmt/format.h>

#include "compiler/ir/attrs.h"
#include "compiler/ops/registry.h"
#include "compiler/shape_infer.h"

namespace fluidc::ops {
namespace {

pb::VarType::Type dtype_attr(ShapeCtx& c, const char* name, pb::VarType::Type fallback) {
  int64_t code = attr_int(c.op(), name, -1);
  if (code < 0) return fallback;
  if (!pb::VarType::Type_IsValid(static_cast<int>(code))) {
    c.error(fmt::format("attribute {} = {} is not a Paddle dtype code", name, code));
    return fallback;
  }
  return static_cast<pb::VarType::Type>(code);
}

// Ops that create a tensor from a `shape` and `dtype` attribute.
void infer_from_shape_attr(ShapeCtx& c) {
  TensorType out;
  out.known = true;
  out.dtype = dtype_attr(c, "dtype", pb::VarType::FP32);
  out.dims = attr_ints(c.op(), "shape");
  for (int64_t d : out.dims)
    if (d < 0) {
      c.error(fmt::format("shape {} has a negative dim; a run-time shape tensor is not supported yet",
                          dims_str(out.dims)));
      return;
    }
  c.set_output("Out", out);
}

void infer_fill_any_like(ShapeCtx& c) {
  TensorType out = c.input("X");
  out.dtype = dtype_attr(c, "dtype", out.dtype);
  c.set_output("Out", out);
}

void infer_cast(ShapeCtx& c) {
  TensorType out = c.input("X");
  out.dtype = dtype_attr(c, "out_dtype", out.dtype);
  c.set_output("Out", out);
}

}  // namespace

void add_fill_ops(std::vector<OpDef>& t) {
  t.push_back({.type = "fill_constant",
               .family = "fill",
               .outputs = {{"Out"}},
               .attrs = {{"shape", pb::LONGS}, {"dtype", pb::INT, true}, {"value", pb::FLOAT}, {"str_value", pb::STRING}},
               .attrs_struct = "FillConstantAttrs",
               .infer_shape = infer_from_shape_attr});
  t.push_back({.type = "fill_any_like", .family = "fill", .inputs = {{"X"}}, .outputs = {{"Out"}},
               .attrs = {{"value", pb::FLOAT}, {"dtype", pb::INT}}, .attrs_struct = "FillAnyLikeAttrs",
               .infer_shape = infer_fill_any_like});
  t.push_back({.type = "fill_zeros_like", .family = "fill", .inputs = {{"X"}}, .outputs = {{"Out"}},
               .infer_shape = shape_rules::same_as_x});
  t.push_back({.type = "assign", .family = "fill", .inputs = {{"X"}}, .outputs = {{"Out"}}, .grad = "assign",
               .infer_shape = shape_rules::same_as_x});
  t.push_back({.type = "cast", .family = "fill", .inputs = {{"X"}}, .outputs = {{"Out"}},
               .attrs = {{"in_dtype", pb::INT}, {"out_dtype", pb::INT, true}}, .attrs_struct = "CastAttrs",
               .grad = "cast", .infer_shape = infer_cast});
  t.push_back({.type = "uniform_random",
               .family = "fill",
               .outputs = {{"Out"}},
               .attrs = {{"shape", pb::LONGS}, {"min", pb::FLOAT}, {"max", pb::FLOAT}, {"seed", pb::INT},
                         {"dtype", pb::INT}},
               .attrs_struct = "UniformRandomAttrs",
               .traits = kRandom,
               .infer_shape = infer_from_shape_attr});
  t.push_back({.type = "gaussian_random",
               .family = "fill",
               .outputs = {{"Out"}},
               .attrs = {{"shape", pb::LONGS}, {"mean", pb::FLOAT}, {"std", pb::FLOAT}, {"seed", pb::INT},
                         {"dtype", pb::INT}},
               .attrs_struct = "GaussianRandomAttrs",
               .traits = kRandom,
               .infer_shape = infer_from_shape_attr});
}

}  // namespace fluidc::ops
