// compiler/ops/einsum.cc - einsum and einsum_grad: the equation is parsed and checked here with the kernels' rule.
#include <fmt/format.h>

#include "compiler/ir/attrs.h"
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/grad_util.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/einsum.h"
#include "kernels/shapes/einsum.h"

namespace fluidc::ops {
namespace {

// Out from the equation (kernels/shapes/einsum.h); a malformed equation is
// an error at the op. XShape[i] holds a copy of Operands[i] (Paddle's
// einsum_grad reads the operands from there).
void infer_einsum(ShapeCtx& c) {
  const int n = c.num_inputs("Operands");
  const auto a = parse_attrs<kernels::EinsumAttrs>(c.op());
  shapes::EinsumEquation e;
  if (std::string err = shapes::parse_einsum(a.equation, n, e); !err.empty()) {
    c.error(err);
    return;
  }
  rt::Shape xs[shapes::kEinsumMaxOperands];
  for (int k = 0; k < n; ++k) {
    const TensorType& t = c.input("Operands", k);
    if (!t.known || !shape_rules::to_shape(c, t, xs[k])) return;
  }
  shapes::EinsumPlan p;
  if (std::string err = shapes::plan_einsum(e, xs, n, p); !err.empty()) {
    c.error(err);
    return;
  }
  TensorType out = c.input("Operands", 0);
  out.dims = shape_rules::from_shape(p.out);
  c.set_output("Out", out);
  for (int k = 0; k < n && k < static_cast<int>(op_outputs(c.op(), "XShape").size()); ++k)
    c.set_output_at("XShape", k, c.input("Operands", k));
}

// Operands@GRAD[i] is shaped like the i-th operand (x_shape holds them).
void infer_einsum_grad(ShapeCtx& c) {
  const int n = c.num_inputs("x_shape");
  const int m = static_cast<int>(op_outputs(c.op(), "Operands@GRAD").size());
  for (int k = 0; k < n && k < m; ++k) c.set_output_at("Operands@GRAD", k, c.input("x_shape", k));
}

// einsum_grad reads the operands through x_shape: the forward's XShape
// copies when the program has them, else the operands themselves.
bool einsum_grad_maker(const pb::OpDesc& fwd, const std::function<std::string(const std::string&)>& grad_of,
                       pb::OpDesc& grad) {
  auto outs = op_outputs(fwd, "Out");
  auto xs = op_inputs(fwd, "Operands");
  if (outs.empty() || xs.empty()) return false;
  const std::string dout = grad_of(outs[0]);
  if (dout.empty()) return false;
  std::vector<std::string> dxs;
  bool any = false;
  for (const auto& x : xs) {
    std::string g = grad_of(x);
    any = any || !g.empty();
    dxs.push_back(g.empty() ? "@EMPTY@" : g);
  }
  if (!any) return false;
  auto copies = op_outputs(fwd, "XShape");
  grad.set_type("einsum_grad");
  add_input(grad, "x_shape", copies.size() == xs.size() ? copies : xs);
  add_input(grad, "Out@GRAD", {dout});
  add_output(grad, "Operands@GRAD", dxs);
  copy_semantic_attrs(fwd, grad);
  return true;
}

}  // namespace

void add_einsum_ops(std::vector<OpDef>& t) {
  t.push_back({.type = "einsum", .family = "einsum", .inputs = {{"Operands", false, true}},
               .outputs = {{"Out"}, {"InnerCache", true, true}, {"XShape", true, true}},
               .attrs = kernel_attrs<kernels::EinsumAttrs>(), .attrs_struct = "EinsumAttrs", .grad = "einsum_grad",
               .make_grad = einsum_grad_maker, .infer_shape = infer_einsum});
  t.push_back({.type = "einsum_grad", .family = "einsum",
               .inputs = {{"x_shape", false, true}, {"InnerCache", true, true}, {"Out@GRAD"}},
               .outputs = {{"Operands@GRAD", true, true}}, .attrs = kernel_attrs<kernels::EinsumAttrs>(),
               .attrs_struct = "EinsumAttrs", .infer_shape = infer_einsum_grad});
}

}  // namespace fluidc::ops
