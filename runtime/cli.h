// runtime/cli.h - the small flag parser generated binaries use (no dependencies).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace fluidc::rt {

/// Parsed command line: `--name value`, `--name=value`, repeatable flags and
/// switches. Unknown flags are an Error that lists the known ones.
class Flags {
 public:
  /// `valued`: flags that take a value; `repeatable` ⊆ valued; `switches`:
  /// flags without a value.
  Flags(int argc, char** argv, const std::set<std::string>& valued, const std::set<std::string>& repeatable,
        const std::set<std::string>& switches);

  bool has(const std::string& name) const;
  std::string get(const std::string& name, const std::string& fallback = "") const;
  /// Integer value; an Error names the flag when it is not a non-negative integer.
  long long get_int(const std::string& name, long long fallback) const;
  const std::vector<std::string>& all(const std::string& name) const;

  /// Splits "NAME=FILE" values of a repeatable flag; an Error names the flag
  /// when '=' is missing or a NAME repeats.
  std::map<std::string, std::string> pairs(const std::string& name) const;

 private:
  std::map<std::string, std::vector<std::string>> values_;
};

}  // namespace fluidc::rt
