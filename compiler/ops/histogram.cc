// compiler/ops/histogram.cc - bincount and histogram (no gradients).
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/histogram.h"

namespace fluidc::ops {
namespace {

// Out [-1]: its length is X's largest value + 1 (or minlength), known at run time.
void infer_bincount(ShapeCtx& c) {
  TensorType t;
  t.known = true;
  t.dims = {-1};
  t.dtype = pb::VarType::INT64;
  if (c.has_input("Weights") && c.input("Weights").known) {
    const auto w = c.input("Weights").dtype;
    t.dtype = w == pb::VarType::FP32 || w == pb::VarType::FP64 ? w : pb::VarType::FP64;
  }
  c.set_output("Out", t);
}

void infer_histogram(ShapeCtx& c) {
  TensorType t;
  t.known = true;
  t.dims = {parse_attrs<kernels::HistogramAttrs>(c.op()).bins};
  t.dtype = pb::VarType::INT64;
  c.set_output("Out", t);
}

}  // namespace

void add_histogram_ops(std::vector<OpDef>& t) {
  t.push_back({.type = "bincount", .family = "histogram", .inputs = {{"X"}, {"Weights", true}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<kernels::BincountAttrs>(), .attrs_struct = "BincountAttrs",
               .infer_shape = infer_bincount, .share_lod = kShareLodNone});
  t.push_back({.type = "histogram", .family = "histogram", .inputs = {{"X"}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<kernels::HistogramAttrs>(), .attrs_struct = "HistogramAttrs",
               .infer_shape = infer_histogram, .share_lod = kShareLodNone});
}

}  // namespace fluidc::ops
