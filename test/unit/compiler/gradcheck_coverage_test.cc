// test/unit/compiler/gradcheck_coverage_test.cc - every op with a gradient rule has a passing finite-difference check.
//
// The kernel tests record each forward op whose gradient passed
// CHECK_GRADCHECK_OP (test/unit/kernels/gradcheck.h) in a log per test
// executable; CTest runs them first (a fixture). This test walks the op
// table and lists every differentiable op no log names.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "compiler/ops/registry.h"

using namespace fluidc;

TEST_CASE("every differentiable op has a passing finite-difference check", "[ops][coverage]") {
  std::set<std::string> covered;
  int logs = 0;
  for (const auto& e : std::filesystem::directory_iterator(FLUIDC_GRADCHECK_DIR)) {
    if (e.path().extension() != ".txt") continue;
    ++logs;
    std::ifstream in(e.path());
    for (std::string op; std::getline(in, op);) covered.insert(op);
  }
  REQUIRE(logs > 0);  // the kernel tests did not run: nothing to compare
  std::string missing;
  for (const auto& def : ops::all_ops())
    if ((!def.grad.empty() || def.make_grad) && !covered.count(def.type)) missing += "  " + def.type + "\n";
  INFO("ops with a gradient rule but no passing gradcheck:\n" << missing);
  CHECK(missing.empty());
  // A name no table entry has is a typo in a test: it would cover nothing.
  for (const auto& op : covered) {
    INFO("gradcheck recorded for an op the table lacks: " << op);
    CHECK(ops::find_op(op) != nullptr);
  }
}
