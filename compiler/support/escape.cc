// compiler/support/escape.cc - string literals, comment text and identifiers for generated code.
#include "compiler/support/escape.h"

#include <fmt/format.h>

namespace fluidc {
namespace {

bool printable_ascii(unsigned char ch) { return ch >= 0x20 && ch < 0x7f; }

}  // namespace

std::string cpp_string_literal(std::string_view text) {
  std::string out = "\"";
  for (unsigned char ch : text) {
    if (ch == '"' || ch == '\\') out += '\\', out += static_cast<char>(ch);
    // Octal escapes take at most three digits, so a following digit is never
    // swallowed (a hex escape would run on into it). '?' is escaped so no
    // trigraph-like sequence is ever formed, whatever the language mode.
    else if (!printable_ascii(ch) || ch == '?') out += fmt::format("\\{:03o}", ch);
    else out += static_cast<char>(ch);
  }
  return out + "\"";
}

std::string cpp_comment_text(std::string_view text) {
  std::string out;
  for (unsigned char ch : text) {
    if (!printable_ascii(ch) || ch == '\\' || ch == '?') out += fmt::format("\\x{:02x}", ch);
    else out += static_cast<char>(ch);
  }
  return out;
}

std::string cpp_identifier(std::string_view name) {
  std::string id = "v_";
  for (char ch : name) {
    const bool keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
    id += keep ? ch : '_';
  }
  return id;
}

}  // namespace fluidc
