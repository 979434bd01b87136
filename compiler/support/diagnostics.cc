// compiler/support/diagnostics.cc - rendering and collecting located diagnostics.
#include "compiler/support/diagnostics.h"

#include <fmt/format.h>

namespace fluidc {

std::string printable(std::string_view text) {
  std::string out;
  for (unsigned char ch : text) {
    if (ch < 0x20 || ch == 0x7f || ch == '\\') out += fmt::format("\\x{:02x}", ch);
    else out += static_cast<char>(ch);
  }
  return out;
}

std::string Location::str() const {
  std::string s = printable(file);
  std::string where;
  auto add = [&](const std::string& part) {
    if (!where.empty()) where += ", ";
    where += part;
  };
  if (block >= 0)
    add(parent >= 0 && block != 0 ? fmt::format("block {} (parent {})", block, parent)
                                  : fmt::format("block {}", block));
  if (op >= 0) add(op_type.empty() ? fmt::format("op {}", op) : fmt::format("op {} ({})", op, printable(op_type)));
  if (!var.empty()) add(fmt::format("variable '{}'", printable(var)));
  if (!where.empty()) s += s.empty() ? where : ": " + where;
  return s;
}

std::string Diagnostic::str() const {
  std::string where = loc.str();
  std::string s = where.empty() ? "" : where + ": ";
  s += is_warning ? "warning: " : "error: ";
  s += message;
  s += "\n";
  if (!loc.python_line.empty()) s += "    defined at " + printable(loc.python_line) + "\n";
  return s;
}

void Diagnostics::error(Location loc, std::string message) {
  diags_.push_back({std::move(loc), std::move(message), false});
}

void Diagnostics::warning(Location loc, std::string message) {
  diags_.push_back({std::move(loc), std::move(message), true});
}

bool Diagnostics::has_errors() const {
  for (const auto& d : diags_)
    if (!d.is_warning) return true;
  return false;
}

std::string Diagnostics::str() const {
  std::string s;
  for (const auto& d : diags_) s += d.str();
  return s;
}

void Diagnostics::throw_if_errors() const {
  if (!has_errors()) return;
  std::string s;
  for (const auto& d : diags_)
    if (!d.is_warning) s += d.str();
  if (!s.empty() && s.back() == '\n') s.pop_back();
  throw UserError(s);
}

void user_error(const Location& loc, const std::string& message) {
  Diagnostic d{loc, message, false};
  std::string s = d.str();
  s.pop_back();
  throw UserError(s);
}

void user_error(const std::string& message) { throw UserError("error: " + message); }

void internal_error(const std::string& message) {
  throw InternalError("internal error (a fluidc bug, please report it): " + message);
}

}  // namespace fluidc
