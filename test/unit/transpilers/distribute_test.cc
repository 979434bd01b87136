// test/unit/transpilers/distribute_test.cc - the distribute pass's plan and checks, on hand-built programs.
#include <catch2/catch.hpp>

#include "compiler/ir/op_role.h"
#include "compiler/ops/grad_util.h"
#include "transpilers/distribute.h"
#include "transpilers/distribute_plan.h"

using namespace fluidc;

namespace {

// main: one mul per parameter writing its gradient, then one sgd per parameter.
pb::ProgramDesc sgd_program(const std::vector<std::pair<std::string, std::vector<int64_t>>>& params) {
  pb::ProgramDesc p;
  auto* b = p.add_blocks();
  b->set_idx(0);
  b->set_parent_idx(-1);
  add_tensor_var(*b, "learning_rate_0", pb::VarType::FP32, {}).set_persistable(true);
  for (const auto& [name, dims] : params) {
    add_tensor_var(*b, name, pb::VarType::FP32, dims).set_persistable(true);
    add_tensor_var(*b, name + "@GRAD", pb::VarType::FP32, dims);
    pb::OpDesc fill;
    fill.set_type("fill_constant");
    ops::add_output(fill, "Out", {name + "@GRAD"});
    ops::set_attr_longs(fill, "shape", dims);
    ops::set_attr_int(fill, "dtype", pb::VarType::FP32);
    ops::set_attr_int(fill, "op_role", kOpRoleBackward);
    *b->add_ops() = fill;
  }
  for (const auto& [name, dims] : params) {
    pb::OpDesc sgd;
    sgd.set_type("sgd");
    ops::add_input(sgd, "Param", {name});
    ops::add_input(sgd, "Grad", {name + "@GRAD"});
    ops::add_input(sgd, "LearningRate", {"learning_rate_0"});
    ops::add_output(sgd, "ParamOut", {name});
    ops::set_attr_int(sgd, "op_role", kOpRoleOptimize);
    *b->add_ops() = sgd;
  }
  return p;
}

DistributeOptions two_servers() {
  DistributeOptions o;
  o.mode = DistributeOptions::Mode::kPserver;
  o.pservers = {"127.0.0.1:6170", "127.0.0.1:6171"};
  o.trainers = 2;
  return o;
}

}  // namespace

TEST_CASE("block sizes follow Paddle's slice_variable", "[distribute]") {
  using V = std::vector<int64_t>;
  CHECK(dist::block_sizes({200, 100}, 2, 8192) == V{10000, 10000});
  // 25000 elements, 3 servers: ceil(25000/3) = 8334, rounded up to whole rows of 100.
  CHECK(dist::block_sizes({250, 100}, 3, 8192) == V{8400, 8400, 8200});
  CHECK(dist::block_sizes({200, 100}, 2, 16384) == V{20000});  // 20000 / 16384 < 2 blocks
  CHECK(dist::block_sizes({100}, 2, 8192) == V{100});
  CHECK(dist::block_sizes({30001}, 2, 8192) == V{15001, 15000});
  CHECK(dist::block_sizes({100000, 3}, 4, 8192) == V{75000, 75000, 75000, 75000});
  // 100000 elements over 8 servers: blocks of 12500 rounded up to 2 whole rows: 5 blocks, not 8.
  CHECK(dist::block_sizes({10, 10000}, 8, 8192) == V{20000, 20000, 20000, 20000, 20000});
}

TEST_CASE("slices go to the servers round robin over all blocks in order", "[distribute]") {
  pb::ProgramDesc p = sgd_program({{"a", {20000}}, {"b", {10}}, {"c", {300, 100}}});
  Diagnostics diags;
  const dist::Plan plan = dist::plan_pserver(p, "t", two_servers(), diags);
  REQUIRE_FALSE(diags.has_errors());
  REQUIRE(plan.params.size() == 3);
  REQUIRE(plan.params[0].slices.size() == 2);
  CHECK(plan.params[0].slices[0].param == "a.block0");
  CHECK(plan.params[0].slices[1].grad == "a@GRAD.block1.trainer_0");
  CHECK(plan.params[0].slices[1].server_grad == "a@GRAD.block1");
  CHECK(plan.params[0].slices[0].server == 0);
  CHECK(plan.params[0].slices[1].server == 1);
  REQUIRE(plan.params[1].slices.size() == 1);
  CHECK(plan.params[1].slices[0].param == "b");
  CHECK(plan.params[1].slices[0].grad == "b@GRAD.trainer_0");
  CHECK(plan.params[1].slices[0].server == 0);
  REQUIRE(plan.params[2].slices.size() == 2);
  CHECK(plan.params[2].slices[0].dims == std::vector<int64_t>{150, 100});
  CHECK(plan.params[2].slices[0].server == 1);
  CHECK(plan.params[2].slices[1].server == 0);
}

TEST_CASE("async mode and a single trainer keep gradient names", "[distribute]") {
  pb::ProgramDesc p = sgd_program({{"a", {20000}}});
  DistributeOptions o = two_servers();
  o.sync = false;
  Diagnostics diags;
  dist::Plan plan = dist::plan_pserver(p, "t", o, diags);
  CHECK(plan.params[0].slices[0].grad == "a@GRAD.block0");
  o.sync = true;
  o.trainers = 1;
  plan = dist::plan_pserver(p, "t", o, diags);
  CHECK(plan.params[0].slices[0].grad == "a@GRAD.block0");
}

TEST_CASE("the pass writes one server program per endpoint and removes the optimizer", "[distribute]") {
  pb::ProgramDesc p = sgd_program({{"a", {20000}}, {"b", {10}}});
  pb::ProgramDesc startup;
  Diagnostics diags;
  auto servers = distribute(p, startup, two_servers(), "t", diags);
  REQUIRE_FALSE(diags.has_errors());
  REQUIRE(servers.size() == 2);
  for (const auto& op : p.blocks(0).ops()) CHECK(op.type() != "sgd");
  CHECK(servers[0].main.blocks(0).ops(0).type() == "listen_and_serv");
  // Server 0 owns a.block0 and b; server 1 a.block1: one optimize block each.
  CHECK(servers[0].main.blocks_size() == 3);
  CHECK(servers[1].main.blocks_size() == 2);
}

TEST_CASE("optimize-role ops other than the update are refused, all listed", "[distribute]") {
  pb::ProgramDesc p = sgd_program({{"a", {10}}, {"b", {10}}});
  for (int k = 0; k < 2; ++k) {
    pb::OpDesc clip;
    clip.set_type("scale");
    ops::add_input(clip, "X", {k ? "b@GRAD" : "a@GRAD"});
    ops::add_output(clip, "Out", {k ? "b@GRAD" : "a@GRAD"});
    ops::set_attr_int(clip, "op_role", kOpRoleOptimize);
    *p.mutable_blocks(0)->add_ops() = clip;
  }
  pb::ProgramDesc startup;
  Diagnostics diags;
  distribute(p, startup, two_servers(), "t", diags);
  int errors = 0;
  for (const auto& d : diags.all()) errors += !d.is_warning && d.message.find("op_role Optimize") != std::string::npos;
  CHECK(errors == 2);
}

TEST_CASE("a program without optimizer ops is an error", "[distribute]") {
  pb::ProgramDesc p = sgd_program({});
  pb::ProgramDesc startup;
  Diagnostics diags;
  distribute(p, startup, two_servers(), "t", diags);
  REQUIRE(diags.has_errors());
  CHECK(diags.str().find("no optimizer op") != std::string::npos);
}

TEST_CASE("distribute options are checked", "[distribute]") {
  DistributeOptions o = two_servers();
  CHECK(check_distribute_options(o).empty());
  o.pservers = {"127.0.0.1:6170", "127.0.0.1:6170"};
  CHECK(check_distribute_options(o).find("twice") != std::string::npos);
  o.pservers = {"127.0.0.1"};
  CHECK(check_distribute_options(o).find("HOST:PORT") != std::string::npos);
  o.pservers = {"host:99999"};
  CHECK_FALSE(check_distribute_options(o).empty());
  o.pservers = {"a;b:1"};
  CHECK_FALSE(check_distribute_options(o).empty());
  o = two_servers();
  o.trainer_id = 2;
  CHECK(check_distribute_options(o).find("--trainer-id") != std::string::npos);
  o = two_servers();
  o.min_block_size = 100;
  CHECK(check_distribute_options(o).find("8192") != std::string::npos);
  DistributeOptions c;
  c.mode = DistributeOptions::Mode::kCollective;
  c.nranks = 1;
  CHECK(check_distribute_options(c).find("--nranks") != std::string::npos);
  c.nranks = 4;
  CHECK(check_distribute_options(c).empty());
}
