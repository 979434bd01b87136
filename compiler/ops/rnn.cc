// compiler/ops/rnn.cc - Paddle's fused recurrent op `rnn` (LSTM, GRU, simple RNN), rnn_grad, and the startup's coalesce_tensor.
#include <fmt/format.h>

#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/rnn.h"

namespace fluidc::ops {
namespace {

// Out, every State and Reserve from Input's dims (kernels/shapes/rnn.h).
// Reserve is declared uint8 by Paddle but holds Input's dtype, as Paddle's
// own CPU kernel writes it.
void infer_rnn(ShapeCtx& c) {
  const TensorType& x = c.input("Input");
  rt::Shape xs, os, ss, rs;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  const auto a = parse_attrs<kernels::RnnAttrs>(c.op());
  if (std::string e = shapes::rnn_shape(xs, a, os, ss, rs); !e.empty()) {
    c.error(e);
    return;
  }
  const int states = shapes::rnn_gates(a.mode) == 4 ? 2 : 1;
  if (c.num_inputs("PreState") != states) {
    c.error(fmt::format("mode {} takes {} PreState tensors, got {}", a.mode, states, c.num_inputs("PreState")));
    return;
  }
  const int64_t cells = int64_t{a.num_layers} * (a.is_bidirec ? 2 : 1);
  if (c.num_inputs("WeightList") != 4 * cells) {
    c.error(fmt::format("WeightList has {} tensors, expected {} (4 per layer and direction)",
                        c.num_inputs("WeightList"), 4 * cells));
    return;
  }
  TensorType t = x;
  t.dims = shape_rules::from_shape(os);
  c.set_output("Out", t);
  t.dims = shape_rules::from_shape(ss);
  c.set_output("State", t);
  if (c.has_output("Reserve")) {
    t.dims = shape_rules::from_shape(rs);
    c.set_output("Reserve", t);
  }
}

// Input@GRAD like Input, PreState@GRAD like PreState (all one shape);
// WeightList@GRAD entries keep their declared types (each like its weight).
void infer_rnn_grad(ShapeCtx& c) {
  if (c.has_output("Input@GRAD")) c.set_output("Input@GRAD", c.input("Input"));
  if (c.has_output("PreState@GRAD") && c.has_input("PreState")) c.set_output("PreState@GRAD", c.input("PreState"));
}

// FusedOutput: every Input flattened and joined; each Output is its Input.
void infer_coalesce_tensor(ShapeCtx& c) {
  const int n = c.num_inputs("Input");
  if (n == 0) return;
  int64_t total = 0;
  for (int i = 0; i < n; ++i) {
    const TensorType& x = c.input("Input", i);
    if (!x.known) return;
    int64_t numel = 1;
    for (int64_t d : x.dims) numel = d < 0 || numel < 0 ? -1 : numel * d;
    total = total < 0 || numel < 0 ? -1 : total + numel;
  }
  TensorType t = c.input("Input", 0);
  t.dims = {total};
  c.set_output("FusedOutput", t);
}

}  // namespace

void add_rnn_ops(std::vector<OpDef>& t) {
  const std::vector<AttrDef> attrs = kernel_attrs<kernels::RnnAttrs>();
  t.push_back({.type = "rnn", .family = "rnn",
               .inputs = {{"Input"}, {"PreState", false, true}, {"WeightList", false, true},
                          {"SequenceLength", true}},
               .outputs = {{"Out"}, {"State", false, true}, {"Reserve", true}, {"DropoutState", true}},
               .attrs = attrs, .attrs_struct = "RnnAttrs", .grad = "rnn_grad", .infer_shape = infer_rnn});
  t.push_back({.type = "rnn_grad", .family = "rnn",
               .inputs = {{"Input"}, {"PreState", false, true}, {"WeightList", false, true},
                          {"SequenceLength", true}, {"Out"}, {"Reserve"}, {"DropoutState", true},
                          {"Out@GRAD", true}, {"State@GRAD", true, true}},
               .outputs = {{"Input@GRAD", true}, {"PreState@GRAD", true, true}, {"WeightList@GRAD", true, true}},
               .attrs = attrs, .attrs_struct = "RnnAttrs", .infer_shape = infer_rnn_grad});
  // The startup program of paddle.nn.LSTM/GRU/SimpleRNN copies the cells'
  // weights into one flat parameter with it.
  t.push_back({.type = "coalesce_tensor", .family = "rnn", .inputs = {{"Input", false, true}},
               .outputs = {{"Output", false, true}, {"FusedOutput"}},
               .attrs = kernel_attrs<kernels::CoalesceTensorAttrs>(), .attrs_struct = "CoalesceTensorAttrs",
               .infer_shape = infer_coalesce_tensor});
}

}  // namespace fluidc::ops
