// test/unit/codegen/memory_plan_test.cc - the memory plan: best-fit placement, its checker, liveness and the pass.
#include <catch2/catch.hpp>

#include <random>

#include "compiler/analysis/program_info.h"
#include "compiler/analysis/shape_infer.h"
#include "compiler/codegen/arena_placement.h"
#include "compiler/codegen/liveness.h"
#include "compiler/codegen/memory_plan.h"

namespace fluidc {
namespace {

std::string var(const std::string& name, const std::string& dims, bool persistable = false) {
  return "vars { name: \"" + name + "\" type { type: LOD_TENSOR lod_tensor { tensor { data_type: FP32 " + dims +
         " } } }" + (persistable ? " persistable: true" : "") + " }\n";
}
std::string unary(const std::string& type, const std::string& x, const std::string& out) {
  return "ops { type: \"" + type + "\" inputs { parameter: \"X\" arguments: \"" + x +
         "\" } outputs { parameter: \"Out\" arguments: \"" + out + "\" } }\n";
}
const char* kFeedFetchVars =
    "vars { name: \"feed\" type { type: FEED_MINIBATCH } persistable: true }\n"
    "vars { name: \"fetch\" type { type: FETCH_LIST } persistable: true }\n";
std::string feed(const std::string& x) {
  return "ops { type: \"feed\" inputs { parameter: \"X\" arguments: \"feed\" } outputs { parameter: \"Out\" arguments: \"" +
         x + "\" } attrs { name: \"col\" type: INT i: 0 } }\n";
}
std::string fetch(const std::string& x) {
  return "ops { type: \"fetch\" inputs { parameter: \"X\" arguments: \"" + x +
         "\" } outputs { parameter: \"Out\" arguments: \"fetch\" } attrs { name: \"col\" type: INT i: 0 } }\n";
}

// x -> relu -> tanh -> sigmoid -> exp -> out (fetched), each [4, 16] or [-1, 16].
Program chain(const std::string& dims) {
  std::string t = "blocks { idx: 0 parent_idx: -1\n";
  t += kFeedFetchVars;
  for (const char* n : {"x", "t1", "t2", "t3", "out"}) t += var(n, dims);
  t += feed("x") + unary("relu", "x", "t1") + unary("tanh", "t1", "t2") + unary("sigmoid", "t2", "t3") +
       unary("exp", "t3", "out") + fetch("out") + "}\n";
  return Program::parse(t, "chain", true);
}

MemoryPlan plan_of(const Program& p) {
  Diagnostics diags;
  auto types = infer_shapes(p, diags);
  ProgramInfo info = analyze_program(p, "", diags);
  REQUIRE(!diags.has_errors());
  return plan_memory(p, nullptr, info, types, FusionPlan{}, {});
}

TEST_CASE("best fit reuses the bytes of dead buffers and meets the lower bound on a chain") {
  std::vector<LiveBuffer> bufs = {{256, 0, 1}, {256, 1, 2}, {256, 2, 3}, {256, 3, 4}};
  Placement p = place_buffers(bufs, 64);
  CHECK(p.lower_bound == 512);
  CHECK(p.arena == 512);
  CHECK(bufs[0].offset == bufs[2].offset);
  CHECK(bufs[0].offset != bufs[1].offset);
  CHECK(check_placement(bufs, p.arena, 64) == "");
}

TEST_CASE("the checker catches shared bytes, misalignment and overflow") {
  std::vector<LiveBuffer> bufs = {{128, 0, 2}, {128, 2, 4}};
  bufs[0].offset = 0, bufs[1].offset = 64;
  CHECK(check_placement(bufs, 256, 64).find("share bytes") != std::string::npos);
  bufs[1].offset = 128;
  CHECK(check_placement(bufs, 256, 64) == "");
  CHECK(check_placement(bufs, 255, 64).find("past the arena") != std::string::npos);
  bufs[1].offset = 160;
  CHECK(check_placement(bufs, 512, 64).find("not aligned") != std::string::npos);
  // Disjoint live ranges may share bytes.
  bufs[1] = {128, 3, 4, 0};
  CHECK(check_placement(bufs, 256, 64) == "");
}

TEST_CASE("random live ranges: placements are sound and never below the lower bound") {
  std::mt19937 rng(12);
  for (int round = 0; round < 200; ++round) {
    std::vector<LiveBuffer> bufs(1 + rng() % 40);
    for (auto& b : bufs) {
      b.first = static_cast<int>(rng() % 30);
      b.last = b.first + static_cast<int>(rng() % 10);
      b.size = 64 * (1 + static_cast<int64_t>(rng() % 16));
    }
    Placement p = place_buffers(bufs, 64);
    REQUIRE(check_placement(bufs, p.arena, 64) == "");
    CHECK(p.arena >= p.lower_bound);
    CHECK(p.arena <= 2 * p.lower_bound);
  }
}

TEST_CASE("liveness: a static chain shares buffers; feeds and fetches are never planned") {
  Program p = chain("dims: 4 dims: 16");
  auto live = block0_liveness(p);
  CHECK(live.at("t1").first == 1);
  CHECK(live.at("t1").last == 2);
  CHECK(live.at("t1").defined_first);
  MemoryPlan m = plan_of(p);
  REQUIRE(validate_memory_plan(m) == "");
  CHECK(m.find("x") == nullptr);
  CHECK(m.find("out") == nullptr);
  REQUIRE(m.find("t1"));
  REQUIRE(m.find("t3"));
  CHECK(m.find("t1")->offset == m.find("t3")->offset);
  // In place (OpDef::in_place): tanh and sigmoid each write their result
  // over the input that dies there, so t1, t2, t3 are one buffer.
  CHECK(m.find("t1")->group > 0);
  CHECK(m.find("t2")->group == m.find("t1")->group);
  CHECK(m.find("t3")->group == m.find("t1")->group);
  CHECK(m.find("t2")->offset == m.find("t1")->offset);
  CHECK(m.fixed.size == 256);
  CHECK(m.fixed.unplanned == 768);
  CHECK(m.fixed.lower_bound == 256);
  CHECK(m.batch_feeds.empty());
  CHECK(validate_in_place(m, p) == "");
}

TEST_CASE("a broadcast X never takes Out's bytes, even at the same rounded capacity") {
  // t1 [1, 3] (12 bytes) + y [5, 3] -> t2 [5, 3] (60 bytes): both round up to one
  // 64-byte unit, but t2[3..5] would be written over t1 while still read.
  std::string t = "blocks { idx: 0 parent_idx: -1\n";
  t += kFeedFetchVars;
  t += var("x", "dims: 1 dims: 3") + var("t1", "dims: 1 dims: 3") + var("y", "dims: 5 dims: 3") +
       var("t2", "dims: 5 dims: 3") + var("out", "dims: 5 dims: 3");
  t += feed("x") + feed("y") + unary("relu", "x", "t1");
  t += "ops { type: \"elementwise_add\" inputs { parameter: \"X\" arguments: \"t1\" } inputs { parameter: \"Y\" "
       "arguments: \"y\" } outputs { parameter: \"Out\" arguments: \"t2\" } attrs { name: \"axis\" type: INT i: -1 } }\n";
  t += unary("exp", "t2", "out") + fetch("out") + "}\n";
  Program p = Program::parse(t, "broadcast", true);
  MemoryPlan m = plan_of(p);
  REQUIRE(validate_memory_plan(m) == "");
  REQUIRE(m.find("t1"));
  REQUIRE(m.find("t2"));
  CHECK(m.find("t1")->bytes == m.find("t2")->bytes);
  CHECK(m.find("t2")->group == 0);
  CHECK(m.find("t1")->offset != m.find("t2")->offset);
}

TEST_CASE("an op without an in-place definition never writes over its input") {
  // softmax reads a whole row before writing it: not in the table's in_place.
  std::string t = "blocks { idx: 0 parent_idx: -1\n";
  t += kFeedFetchVars;
  for (const char* n : {"x", "t1", "t2", "out"}) t += var(n, "dims: 4 dims: 16");
  t += feed("x") + unary("relu", "x", "t1") + unary("softmax", "t1", "t2") + unary("exp", "t2", "out") + fetch("out") +
       "}\n";
  Program p = Program::parse(t, "softmax", true);
  MemoryPlan m = plan_of(p);
  REQUIRE(validate_memory_plan(m) == "");
  REQUIRE(m.find("t1"));
  REQUIRE(m.find("t2"));
  CHECK(m.find("t1")->group == 0);
  CHECK(m.find("t2")->group == 0);
  CHECK(m.find("t1")->offset != m.find("t2")->offset);
  // Claiming the hand-over anyway is refused by the program check.
  for (auto& v : m.vars) v.group = 1, v.offset = 0;
  CHECK(validate_memory_plan(m) == "");
  CHECK(validate_in_place(m, p).find("op 2 (softmax) may not write t2 into t1's bytes") != std::string::npos);
}

TEST_CASE("a -1 batch gives a per-batch arena planned per unit of N") {
  MemoryPlan m = plan_of(chain("dims: -1 dims: 16"));
  REQUIRE(validate_memory_plan(m) == "");
  REQUIRE(m.find("t2"));
  CHECK(m.find("t2")->arena == ArenaKind::kPerBatch);
  CHECK(m.find("t2")->bytes == 64);  // 16 floats per row
  CHECK(m.batch.size == 64);          // t1, t2, t3: one in-place buffer
  CHECK(m.batch_feeds == std::vector<std::string>{"x"});
}

TEST_CASE("a variable read before it is written in a step keeps its storage") {
  std::string t = "blocks { idx: 0 parent_idx: -1\n";
  t += kFeedFetchVars;
  for (const char* n : {"x", "acc", "t1", "out"}) t += var(n, "dims: 4");
  // acc is read by op 1 before op 2 writes it: it carries a value across steps.
  t += feed("x") + unary("relu", "acc", "t1") + unary("tanh", "x", "acc") + unary("exp", "t1", "out") + fetch("out") + "}\n";
  Program p = Program::parse(t, "carry", true);
  CHECK_FALSE(block0_liveness(p).at("acc").defined_first);
  MemoryPlan m = plan_of(p);
  CHECK(m.find("acc") == nullptr);
  CHECK(m.find("t1") != nullptr);
}

TEST_CASE("a variable a sub-block reads lives for the whole op that runs it") {
  // op 2 (conditional_block) reads t1 inside block 1; t2 is written at op 3.
  std::string t = "blocks { idx: 0 parent_idx: -1\n";
  t += kFeedFetchVars;
  t += "vars { name: \"c\" type { type: LOD_TENSOR lod_tensor { tensor { data_type: BOOL dims: 1 } } } }\n";
  for (const char* n : {"x", "t1", "t2", "out"}) t += var(n, "dims: 4");
  t += feed("x") + unary("relu", "x", "t1");
  t += "ops { type: \"conditional_block\" inputs { parameter: \"Cond\" arguments: \"c\" } inputs { parameter: \"Input\" arguments: \"t1\" }"
       " outputs { parameter: \"Out\" arguments: \"out\" } outputs { parameter: \"Scope\" arguments: \"scope\" }"
       " attrs { name: \"sub_block\" type: BLOCK block_idx: 1 } attrs { name: \"is_scalar_condition\" type: BOOLEAN b: true } }\n";
  t += fetch("out") + "}\n";
  t += "blocks { idx: 1 parent_idx: 0\n" + unary("tanh", "t1", "out") + "}\n";
  Program p = Program::parse(t, "cond", true);
  auto live = block0_liveness(p);
  CHECK(live.at("t1").last == 2);
  CHECK_FALSE(live.at("out").defined_first);  // written only when the branch runs
}

TEST_CASE("the side table round-trips and a tampered one is refused") {
  Program p = chain("dims: 4 dims: 16");
  MemoryPlan m = plan_of(p);
  const std::string text = memory_plan_text(m, p);
  MemoryPlan back = read_memory_plan(text, "m.memory", p);
  REQUIRE(back.vars.size() == m.vars.size());
  CHECK(back.fixed.size == m.fixed.size);
  CHECK(back.fixed.lower_bound == m.fixed.lower_bound);
  CHECK(memory_plan_text(back, p) == text);
  // t2 taken out of t1's in-place group: then they share bytes while both
  // are live (at op 2, which reads t1 and writes t2).
  std::string bad = text;
  const auto at = bad.find(" name=t2");
  REQUIRE(at != std::string::npos);
  const auto group = bad.rfind(" group=", at);
  REQUIRE(group != std::string::npos);
  bad.erase(group, at - group);
  CHECK_THROWS_AS(read_memory_plan(bad, "m.memory", p), UserError);
  CHECK_THROWS_AS(read_memory_plan("var arena=static offset=0 bytes=64 live=0-1 name=nope\n", "m.memory", p), UserError);
}

}  // namespace
TEST_CASE("a sub-block's locals are checked by their ranges in the block, as one region in block 0") {
  // Two locals of block 1 (run by block-0 op 3) and a block-0 variable live across op 3.
  MemoryPlan m;
  m.vars = {{"a", ArenaKind::kStatic, 0, 64, 3, 3}, {"b", ArenaKind::kStatic, 0, 64, 3, 3},
            {"c", ArenaKind::kStatic, 64, 64, 1, 5}};
  m.vars[0].block = 1, m.vars[0].sub_first = 0, m.vars[0].sub_last = 2;
  m.vars[1].block = 1, m.vars[1].sub_first = 3, m.vars[1].sub_last = 6;
  m.fixed.size = 128;
  CHECK(validate_memory_plan(m) == "");  // a and b never meet in the block: one region [0, 64)
  m.vars[1].sub_first = 2;               // now both live at the block's op 2
  CHECK(validate_memory_plan(m).find("block 1: ") != std::string::npos);
  m.vars[1].sub_first = 3;
  m.vars[2].offset = 0;  // c is live at op 3, where the region is
  CHECK(validate_memory_plan(m).find("share bytes") != std::string::npos);
  m.vars[2].offset = 64;
  m.vars[1].last = 4;  // a local lives at the one op that runs its block
  CHECK(validate_memory_plan(m).find("must be live at one block-0 op") != std::string::npos);
}

}  // namespace fluidc
