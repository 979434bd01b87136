// compiler/support/diagnostics.h - located user errors (bad input) versus internal errors (our bugs).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fluidc {

/// Where in a program a diagnostic points. Fields left at -1 / empty are
/// omitted from the rendered message.
struct Location {
  std::string file;
  int block = -1;
  int parent = -1;  ///< parent block index, shown for sub-blocks
  int op = -1;
  std::string op_type;
  std::string var;
  std::string python_line;  ///< from the op_callstack attribute, when present

  /// "main.pdmodel: block 2 (parent 1), op 3 (mul), variable 'x'"
  std::string str() const;
};

struct Diagnostic {
  Location loc;
  std::string message;
  bool is_warning = false;
  /// "file: block 0, op 3 (mul): message" plus an indented Python line.
  std::string str() const;
};

/// Collects diagnostics so a pass can report every problem at once.
class Diagnostics {
 public:
  void error(Location loc, std::string message);
  void warning(Location loc, std::string message);
  bool has_errors() const;
  const std::vector<Diagnostic>& all() const { return diags_; }
  /// All diagnostics, one per line (each ends in '\n').
  std::string str() const;
  /// Throws UserError with every collected error when there is any.
  void throw_if_errors() const;

 private:
  std::vector<Diagnostic> diags_;
};

/// Bad input: a program, a flag, a file. Caught by the driver, printed, exit 1.
class UserError : public std::runtime_error {
 public:
  explicit UserError(const std::string& msg) : std::runtime_error(msg) {}
};

/// A broken invariant inside fluidc. Printed with a request to report it.
class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string& msg) : std::logic_error(msg) {}
};

/// `text` safe to print on a terminal: control bytes (newline, escape
/// sequences, ...) and the backslash become `\xNN`. Names from a program
/// file go through it before they reach a message.
std::string printable(std::string_view text);

[[noreturn]] void user_error(const Location& loc, const std::string& message);
[[noreturn]] void user_error(const std::string& message);
[[noreturn]] void internal_error(const std::string& message);

}  // namespace fluidc
