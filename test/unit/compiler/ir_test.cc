// test/unit/compiler/ir_test.cc - Program loading/saving, lookups, SHA-256 and the broadcast rule.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "compiler/ir/program.h"
#include "compiler/ir/sha256.h"
#include "compiler/ops/shape_ctx.h"

using namespace fluidc;

TEST_CASE("sha256 matches the FIPS 180-4 test vectors", "[ir]") {
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(sha256_hex(std::string(1000000, 'a')) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("a program round-trips through text and binary unchanged", "[ir]") {
  const std::string text = R"(
    blocks { idx: 0 parent_idx: -1
      vars { name: "x" type { type: LOD_TENSOR lod_tensor { tensor { data_type: FP32 dims: -1 dims: 4 } } } }
      ops { type: "relu" inputs { parameter: "X" arguments: "x" } outputs { parameter: "Out" arguments: "x" }
            attrs { name: "op_role" type: INT i: 0 } }
    }
    blocks { idx: 1 parent_idx: 0 }
    version { version: 2006002 })";
  Program p = Program::parse(text, "inline", true);
  REQUIRE(p.num_blocks() == 2);
  Program again = Program::parse(p.desc().SerializeAsString(), "bytes", false);
  CHECK(again.desc().SerializeAsString() == p.desc().SerializeAsString());
  CHECK(Program::parse(again.to_text(), "text", true).desc().SerializeAsString() == p.desc().SerializeAsString());
  // Sub-blocks see their ancestors' variables.
  int found = -1;
  CHECK(p.find_var(1, "x", &found) != nullptr);
  CHECK(found == 0);
  CHECK(p.find_var(1, "nope") == nullptr);
}

TEST_CASE("unknown fields survive a read-modify-write", "[ir]") {
  // Field 99 of OpDesc is unknown to every Paddle release; it must come back out.
  std::string bytes = Program::parse("blocks { idx: 0 parent_idx: -1 }", "t", true).desc().SerializeAsString();
  pb::ProgramDesc d;
  REQUIRE(d.ParseFromString(bytes));
  d.mutable_blocks(0)->mutable_unknown_fields()->AddVarint(99, 7);
  Program p = Program::parse(d.SerializeAsString(), "with-unknown", false);
  CHECK(p.desc().blocks(0).unknown_fields().field_count() == 1);
  CHECK(p.desc().SerializeAsString() == d.SerializeAsString());
}

TEST_CASE("corrupt input is a located UserError, not a crash", "[ir]") {
  CHECK_THROWS_AS(Program::parse("", "empty.pdmodel", false), UserError);
  CHECK_THROWS_WITH(Program::parse(std::string("\x0a\xff\xff\xff\x0f", 5), "bad.pdmodel", false),
                    Catch::Contains("bad.pdmodel: error: not a valid binary ProgramDesc"));
  CHECK_THROWS_WITH(Program::parse("blocks { idx: 0", "t.pbtxt", true), Catch::Contains("t.pbtxt: error:"));
  // Paddle 3's PIR programs are JSON and read (pir_test.cc); other JSON is named as such.
  CHECK_THROWS_WITH(Program::parse(R"({"a": 1})", "x.json", false), Catch::Contains("a JSON file, not a ProgramDesc"));
}

TEST_CASE("Paddle's elementwise broadcast rule with axis", "[shape]") {
  std::vector<int64_t> out;
  REQUIRE(shape_rules::broadcast({2, 3, 4}, {3}, 1, out).empty());
  CHECK(out == std::vector<int64_t>{2, 3, 4});
  REQUIRE(shape_rules::broadcast({-1, 8}, {8}, -1, out).empty());
  CHECK(out == std::vector<int64_t>{-1, 8});
  REQUIRE(shape_rules::broadcast({-1, 1}, {-1, 10}, -1, out).empty());
  CHECK(out == std::vector<int64_t>{-1, 10});
  CHECK_FALSE(shape_rules::broadcast({2, 3}, {4}, -1, out).empty());
  CHECK_FALSE(shape_rules::broadcast({2, 3}, {3}, 5, out).empty());
}
