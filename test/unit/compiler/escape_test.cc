// test/unit/compiler/escape_test.cc - hostile strings stay inert in generated code (codegen/escape.h).
#include <catch2/catch.hpp>

#include <string>

#include "compiler/support/escape.h"

namespace fluidc {
namespace {

const std::string kHostile[] = {
    "plain",
    "a\nint p = system(\"x\");",  // a line break would end a // comment
    "ends with backslash\\",       // would splice the next line into the comment
    "*/ /* \" ' ??/ ??=",          // comment terminators, quotes, trigraph-like sequences
    std::string("nul\0byte", 8),
    "\r\f\v\t\x1b[2J\x7f",
    "\xc3\xa9\xe2\x80\xa8",        // UTF-8, including U+2028 (a line separator to some tools)
};

TEST_CASE("comment text never holds a line break, a backslash or a non-ASCII byte") {
  for (const auto& s : kHostile) {
    const std::string c = cpp_comment_text(s);
    for (unsigned char ch : c) {
      CHECK(ch >= 0x20);
      CHECK(ch < 0x7f);
    }
    // Every backslash in the output starts an \xNN of ours, so none is last.
    for (size_t i = 0; i < c.size(); ++i)
      if (c[i] == '\\') CHECK((i + 3 < c.size() && c[i + 1] == 'x'));
    CHECK((c.empty() || c.back() != '\\'));
  }
  CHECK(cpp_comment_text("a\nb\\") == "a\\x0ab\\x5c");
  CHECK(cpp_comment_text("fc_0.w_0") == "fc_0.w_0");
}

// Decodes a literal as a C++ compiler would (only the escapes we write).
std::string decode_literal(const std::string& lit) {
  REQUIRE(lit.size() >= 2);
  REQUIRE(lit.front() == '"');
  REQUIRE(lit.back() == '"');
  std::string out;
  for (size_t i = 1; i + 1 < lit.size(); ++i) {
    char ch = lit[i];
    REQUIRE(ch != '"');  // an unescaped quote would end the literal early
    REQUIRE(static_cast<unsigned char>(ch) >= 0x20);
    REQUIRE(static_cast<unsigned char>(ch) < 0x7f);
    if (ch != '\\') {
      out += ch;
      continue;
    }
    char next = lit.at(++i);
    if (next == '"' || next == '\\') {
      out += next;
      continue;
    }
    REQUIRE(i + 2 < lit.size() - 1);
    out += static_cast<char>(std::stoi(lit.substr(i, 3), nullptr, 8));
    i += 2;
  }
  return out;
}

TEST_CASE("string literals are printable ASCII and decode to the original bytes") {
  for (const auto& s : kHostile) {
    const std::string lit = cpp_string_literal(s);
    CHECK(lit.find('?') == std::string::npos);
    CHECK(decode_literal(lit) == s);
  }
  CHECK(cpp_string_literal("a\"b\\\n1") == "\"a\\\"b\\\\\\0121\"");
}

TEST_CASE("identifiers keep only [A-Za-z0-9_] and start with v_") {
  for (const auto& s : kHostile) {
    const std::string id = cpp_identifier(s);
    CHECK(id.rfind("v_", 0) == 0);
    for (char ch : id) CHECK((std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'));
  }
  CHECK(cpp_identifier("fc_0.w_0") == "v_fc_0_w_0");
}

}  // namespace
}  // namespace fluidc
