// compiler/support/escape.cc - string literals, comment text and identifiers for generated code.
#include "compiler/support/escape.h"

#include <set>

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

bool plain_identifier(std::string_view s) {
  static const std::set<std::string_view> kKeywords = {
      "alignas", "alignof", "and", "asm", "auto", "bool", "break", "case", "catch", "char", "class", "const",
      "constexpr", "continue", "default", "delete", "do", "double", "else", "enum", "explicit", "export", "extern",
      "false", "float", "for", "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new",
      "noexcept", "not", "nullptr", "operator", "or", "private", "protected", "public", "register", "return",
      "short", "signed", "sizeof", "static", "struct", "switch", "template", "this", "throw", "true", "try",
      "typedef", "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "while", "xor"};
  if (s.empty() || (s[0] >= '0' && s[0] <= '9') || s.find("__") != std::string_view::npos) return false;
  if (s[0] == '_' && s.size() > 1 && s[1] >= 'A' && s[1] <= 'Z') return false;
  for (char ch : s)
    if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_')) return false;
  return !kKeywords.count(s);
}

std::vector<std::string> qualified_name_parts(const std::string& qualified) {
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    const size_t sep = qualified.find("::", start);
    parts.push_back(qualified.substr(start, sep == std::string::npos ? std::string::npos : sep - start));
    if (sep == std::string::npos) break;
    start = sep + 2;
  }
  return parts;
}

}  // namespace fluidc
