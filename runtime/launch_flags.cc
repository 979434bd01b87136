// runtime/launch_flags.cc - reads a distributed binary's launch flags and their environment variables.
#include "runtime/launch_flags.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>

#include "runtime/error.h"

namespace fluidc::rt {

std::map<std::string, std::string> read_launch_flags(std::span<const LaunchFlag> flags, int argc, char** argv,
                                                     std::vector<char*>& rest) {
  std::map<std::string, std::string> v;
  for (const auto& f : flags)
    if (const char* e = std::getenv(f.env); e && *e) v[f.flag] = e;
  rest.push_back(argv[0]);
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    bool taken = false;
    for (const auto& f : flags) {
      const std::string name = std::string("--") + f.flag;
      if (arg == name) {
        if (i + 1 >= argc) fail(name + " needs a value");
        v[f.flag] = argv[++i];
        taken = true;
      } else if (arg.rfind(name + "=", 0) == 0) {
        v[f.flag] = arg.substr(name.size() + 1);
        taken = true;
      }
    }
    if (!taken) rest.push_back(argv[i]);
  }
  return v;
}

long long launch_int(const std::string& what, const std::string& v) {
  char* end = nullptr;
  const long long n = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end || n < 0) fail(fmt::format("{} expects a non-negative integer, got '{}'", what, v));
  return n;
}

void print_launch_flags(std::span<const LaunchFlag> flags) {
  for (const auto& f : flags) std::printf("  --%-20s $%s: %s\n", f.flag, f.env, f.help);
}

}  // namespace fluidc::rt
