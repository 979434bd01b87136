// compiler/support/escape.h - the one way a string from the program (or the command line) reaches generated code.
//
// A program file is untrusted input (docs/security.md). Every name,
// attribute string or file name that the code generator writes into
// generated source goes through one of these functions, so nothing of the
// input's making can become code: string literals escape everything but
// printable ASCII, comment text cannot end a comment or splice a line, and
// identifiers keep only [A-Za-z0-9_].
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fluidc {

/// A C++ string literal with its quotes: printable ASCII except `"` and `\`
/// is kept, every other byte becomes an octal escape ("a\nb" -> "a\012b").
std::string cpp_string_literal(std::string_view text);

/// Text safe inside a `//` comment: printable ASCII is kept except `\`;
/// every other byte (newline, carriage return, form feed, NUL, non-ASCII)
/// and the backslash (which would splice the next line into the comment)
/// become `\xNN`. The result never contains a line break.
std::string cpp_comment_text(std::string_view text);

/// A C++ identifier for a program variable name: "fc_0.w_0" -> "v_fc_0_w_0".
/// Always starts with "v_" (never a keyword or a reserved name) and holds
/// only [A-Za-z0-9_]; distinct names may map to one identifier, so callers
/// make them unique.
std::string cpp_identifier(std::string_view var_name);

/// True for a name a user may give a generated namespace or class: letters,
/// digits and '_', not starting with a digit, nothing the implementation
/// reserves ("__", "_X"), no C++ keyword.
bool plain_identifier(std::string_view s);

/// "a::b::C" -> {"a", "b", "C"} (empty parts kept, for plain_identifier to refuse).
std::vector<std::string> qualified_name_parts(const std::string& qualified);

}  // namespace fluidc
