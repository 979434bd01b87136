// test/fuzz/fuzz_cli.cc - libFuzzer target: the generated binaries' flag parser (runtime/cli Flags).
//
// The input is an argv: arguments separated by NUL bytes (argv[0] is added).
// Each one is parsed with the trainer's and with the inference binary's
// flag sets, then every accessor those binaries call is exercised.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "runtime/cli.h"
#include "runtime/error.h"

namespace {

struct FlagSet {
  std::set<std::string> valued, repeatable, switches;
};

// Kept equal to runtime/trainer.cc and runtime/inference.cc, plus a switch
// and a repeatable flag in both, so every branch of the parser is reachable.
const FlagSet kSets[] = {
    {{"data", "batch-size", "epochs", "steps", "params", "resume", "save", "save-dir", "save-every", "seed",
      "log-every", "losses-out", "threads"},
     {"data"},
     {"no-shuffle"}},
    {{"params", "feed", "fetch-dir", "repeat", "threads"}, {"feed"}, {}},
};

void exercise(const FlagSet& s, int argc, char** argv) {
  try {
    fluidc::rt::Flags f(argc, argv, s.valued, s.repeatable, s.switches);
    for (const auto& name : s.valued) {
      (void)f.has(name);
      (void)f.get(name);
      (void)f.all(name);
      try {
        (void)f.get_int(name, 0);
      } catch (const fluidc::rt::Error&) {
      }
    }
    for (const auto& name : s.repeatable) (void)f.pairs(name);
  } catch (const fluidc::rt::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args = {"model"};
  std::string cur;
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      args.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(static_cast<char>(data[i]));
    }
  }
  if (!cur.empty()) args.push_back(cur);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);  // argv[argc] is null, as main's is
  for (const auto& s : kSets) exercise(s, static_cast<int>(args.size()), argv.data());
  return 0;
}
