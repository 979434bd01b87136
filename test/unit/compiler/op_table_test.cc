// test/unit/compiler/op_table_test.cc - walks the op table: every entry complete and consistent.
#include <catch2/catch.hpp>

#include "compiler/ops/registry.h"

using namespace fluidc;

TEST_CASE("every op in the table is complete", "[ops]") {
  const auto& table = ops::all_ops();
  REQUIRE_FALSE(table.empty());
  for (const auto& def : table) {
    INFO("op " << def.type);
    bool io = def.has(ops::kFeed) || def.has(ops::kFetch);
    // A CPU path: a kernel family (generic call), an emit hook, or bound by the driver.
    // Communication ops: an emit hook into runtime/dist (family "dist", the parameter-server
    // ops) or runtime/coll (family "coll", the collective ops), or none at all (build refuses them, listed).
    const bool comm = def.has(ops::kCommunication);
    CHECK((io || comm || !def.family.empty() || def.emit_cpu != nullptr));
    if (comm)
      CHECK((((def.family == "dist" || def.family == "coll") && def.emit_cpu != nullptr) ||
             (def.family.empty() && def.emit_cpu == nullptr)));
    if (comm) CHECK(def.has(ops::kSideEffect));
    // Every op but feed/fetch infers its outputs' types; an op that runs a
    // sub-block leaves that to the ops inside it.
    if (!io && !def.has(ops::kOwnsBlock)) CHECK(def.infer_shape != nullptr);
    // listen_and_serv has no outputs (Paddle's neither): a server's block 0 only serves.
    if (!comm) CHECK_FALSE(def.outputs.empty());
    if (!def.attrs_struct.empty()) CHECK_FALSE(def.attrs.empty());
    // The gradient op named by a forward op is itself in the table.
    if (!def.grad.empty()) CHECK(ops::find_op(def.grad) != nullptr);
    // Gradient kernels take every output as an optional pointer: Paddle drops
    // the gradients nobody needs (e.g. of a fed input).
    if (def.type.size() > 5 && def.type.ends_with("_grad"))
      for (const auto& s : def.outputs) CHECK(s.optional);
    // Optimizers declare what the optimizer pass needs, and every slot and
    // attribute the declaration names is one the op has.
    if (def.has(ops::kOptimizer)) {
      REQUIRE(def.optimizer != nullptr);
      const ops::OptimizerDef& o = *def.optimizer;
      for (const auto& slot : {o.param, o.grad, o.learning_rate}) CHECK(def.input(slot) != nullptr);
      CHECK(def.output(o.param_out) != nullptr);
      for (const auto& s : o.state) {
        CHECK(def.input(s.input) != nullptr);
        CHECK(def.output(s.output) != nullptr);
        CHECK_FALSE(s.suffix.empty());
        bool declared = s.init_attr.empty();
        for (const auto& a : o.attrs) declared |= a.name == s.init_attr;
        CHECK(declared);
      }
      if (!o.l2_coeff_attr.empty()) CHECK(def.attr(o.l2_coeff_attr) != nullptr);
    }
    CHECK((def.optimizer == nullptr || def.has(ops::kOptimizer)));
  }
}

TEST_CASE("the table is sorted and lookups find each entry", "[ops]") {
  const auto& table = ops::all_ops();
  for (size_t i = 1; i < table.size(); ++i) CHECK(table[i - 1].type < table[i].type);
  for (const auto& def : table) CHECK(ops::find_op(def.type) == &def);
  CHECK(ops::find_op("no_such_op") == nullptr);
  CHECK(ops::find_op("") == nullptr);
}

TEST_CASE("the ops of the foundation issue are all present", "[ops]") {
  for (const char* type :
       {"feed", "fetch", "fill_constant", "assign", "uniform_random", "gaussian_random", "scale", "cast", "mul",
        "matmul", "matmul_v2", "elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div", "relu",
        "sigmoid", "tanh", "softmax", "softmax_with_cross_entropy", "cross_entropy2", "mean", "reduce_mean",
        "reduce_sum", "square", "sum", "fill_any_like", "fill_zeros_like", "sgd", "momentum", "adam"}) {
    INFO(type);
    CHECK(ops::find_op(type) != nullptr);
  }
}
