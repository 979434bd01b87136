// runtime/launch_flags.h - the flags of a distributed binary's launch layer, each with the environment variable it overrides.
#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

namespace fluidc::rt {

/// A launch setting: `--flag V` or `--flag=V`, else the variable `env` (Paddle's launch
/// variables: PADDLE_TRAINER_ID, ...). `help` is its line in --help.
struct LaunchFlag {
  const char* flag;
  const char* env;
  const char* help;
};

/// The settings given, by flag name: the variables first, the flags over them. The flags are
/// taken out of argv; everything else (argv[0] first) is appended to `rest` for the driver.
std::map<std::string, std::string> read_launch_flags(std::span<const LaunchFlag> flags, int argc, char** argv,
                                                     std::vector<char*>& rest);

/// `v` as a non-negative integer; otherwise an Error naming `what`.
long long launch_int(const std::string& what, const std::string& v);

/// One --help line per flag, with its variable.
void print_launch_flags(std::span<const LaunchFlag> flags);

}  // namespace fluidc::rt
