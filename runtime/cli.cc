// runtime/cli.cc - flag parsing for generated binaries.
#include "runtime/cli.h"

#include "runtime/error.h"

namespace fluidc::rt {

Flags::Flags(int argc, char** argv, const std::set<std::string>& valued, const std::set<std::string>& repeatable,
             const std::set<std::string>& switches) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) fail("unexpected argument '" + arg + "' (flags start with --; see --help)");
    std::string name = arg.substr(2), value;
    bool has_value = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    if (switches.count(name)) {
      if (has_value) fail("--" + name + " takes no value");
      values_[name].push_back("1");
      continue;
    }
    if (!valued.count(name)) fail("unknown flag --" + name + " (see --help)");
    if (!has_value) {
      if (i + 1 >= argc) fail("--" + name + " needs a value");
      value = argv[++i];
    }
    auto& slot = values_[name];
    if (!slot.empty() && !repeatable.count(name)) fail("--" + name + " given more than once");
    slot.push_back(value);
  }
}

bool Flags::has(const std::string& name) const { return values_.count(name) != 0; }

std::string Flags::get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second.back();
}

long long Flags::get_int(const std::string& name, long long fallback) const {
  if (!has(name)) return fallback;
  const std::string v = get(name);
  size_t used = 0;
  long long n = -1;
  try {
    n = std::stoll(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != v.size() || n < 0) fail("--" + name + " expects a non-negative integer, got '" + v + "'");
  return n;
}

const std::vector<std::string>& Flags::all(const std::string& name) const {
  static const std::vector<std::string> kNone;
  auto it = values_.find(name);
  return it == values_.end() ? kNone : it->second;
}

std::map<std::string, std::string> Flags::pairs(const std::string& name) const {
  std::map<std::string, std::string> out;
  for (const auto& v : all(name)) {
    auto eq = v.find('=');
    if (eq == std::string::npos || eq == 0)
      fail("--" + name + " expects NAME=FILE.npy, got '" + v + "'");
    if (!out.emplace(v.substr(0, eq), v.substr(eq + 1)).second)
      fail("--" + name + " names '" + v.substr(0, eq) + "' twice");
  }
  return out;
}

}  // namespace fluidc::rt
