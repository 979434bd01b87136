// compiler/ops/linalg_lu.cc - inverse, determinant, slogdeterminant and matrix_power with their gradients.
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/rule_infer.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/linalg_lu.h"

namespace fluidc::ops {
namespace {

/// A float Input checked by `rule`: Out keeps Input's dtype with the rule's dims.
template <class Rule>
void infer_square(ShapeCtx& c, const char* in, const char* out, Rule rule) {
  const TensorType& x = c.input(in);
  if (x.known && x.dtype != pb::VarType::FP32 && x.dtype != pb::VarType::FP64) {
    c.error(std::string(in) + " must be float32 or float64");
    return;
  }
  rt::Shape xs, os;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  if (std::string e = rule(xs, os); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType t = x;
  t.dims = shape_rules::from_shape(os);
  c.set_output(out, t);
}

void infer_inverse(ShapeCtx& c) {
  infer_square(c, "Input", "Output",
               [](const rt::Shape& x, rt::Shape& o) { return shapes::same_square_shape(x, "Input", o); });
}

void infer_inverse_grad(ShapeCtx& c) {
  if (c.has_output("Input@GRAD")) c.set_output("Input@GRAD", c.input("Output"));
}

// Paddle 2.6.2's own infer-shape declares Out with Input's dims; the true
// dims (the batch, or [2, batch]) come from the kernels' rules.
void infer_determinant(ShapeCtx& c) { infer_square(c, "Input", "Out", shapes::determinant_shape); }

void infer_slogdeterminant(ShapeCtx& c) { infer_square(c, "Input", "Out", shapes::slogdeterminant_shape); }

void infer_matrix_power(ShapeCtx& c) {
  infer_square(c, "X", "Out", [](const rt::Shape& x, rt::Shape& o) { return shapes::same_square_shape(x, "X", o); });
}

}  // namespace

void add_linalg_lu_ops(std::vector<OpDef>& t) {
  const std::string f = "linalg_lu";
  t.push_back({.type = "inverse", .family = f, .inputs = {{"Input"}}, .outputs = {{"Output"}},
               .grad = "inverse_grad", .infer_shape = infer_inverse});
  t.push_back({.type = "inverse_grad", .family = f, .inputs = {{"Output"}, {"Output@GRAD"}},
               .outputs = {{"Input@GRAD", true}}, .infer_shape = infer_inverse_grad});
  for (const auto& [type, infer] : {std::pair{"determinant", &infer_determinant},
                                    std::pair{"slogdeterminant", &infer_slogdeterminant}}) {
    t.push_back({.type = type, .family = f, .inputs = {{"Input"}}, .outputs = {{"Out"}},
                 .grad = std::string(type) + "_grad", .infer_shape = infer});
    t.push_back({.type = std::string(type) + "_grad", .family = f, .inputs = {{"Input"}, {"Out"}, {"Out@GRAD"}},
                 .outputs = {{"Input@GRAD", true}}, .infer_shape = shape_rules::grads_like_inputs});
  }
  const auto mp_attrs = kernel_attrs<kernels::MatrixPowerAttrs>();
  t.push_back({.type = "matrix_power", .family = f, .inputs = {{"X"}}, .outputs = {{"Out"}}, .attrs = mp_attrs,
               .attrs_struct = "MatrixPowerAttrs", .grad = "matrix_power_grad", .infer_shape = infer_matrix_power});
  t.push_back({.type = "matrix_power_grad", .family = f, .inputs = {{"X"}, {"Out"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = mp_attrs, .attrs_struct = "MatrixPowerAttrs",
               .infer_shape = shape_rules::grads_like_inputs});
}

}  // namespace fluidc::ops
