// test/fuzz/replay_main.cc - runs a fuzz target's LLVMFuzzerTestOneInput over files, without libFuzzer.
//
// usage: <target>_replay FILE|DIR...   (a directory: every regular file in it)
// Built in every configuration (test/fuzz/CMakeLists.txt), so the normal and
// sanitizer suites replay the seed corpus and every input a fuzzing run ever
// found (test/fuzz/regressions/<target>/): a fixed bug stays fixed. A crash
// or abort fails the test; the harness's own checks decide the rest.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const fs::path p = argv[i];
    if (fs::is_directory(p)) {
      for (const auto& e : fs::directory_iterator(p))
        if (e.is_regular_file()) files.push_back(e.path());
    } else if (fs::exists(p)) {
      files.push_back(p);
    }
  }
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("%zu inputs replayed without a crash\n", files.size());
  return files.empty() ? 1 : 0;  // nothing to replay means the test is not testing anything
}
