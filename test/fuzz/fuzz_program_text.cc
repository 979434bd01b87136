// test/fuzz/fuzz_program_text.cc - libFuzzer target: Program::parse of protobuf-text ProgramDescs (.pbtxt).
#include <cstddef>
#include <cstdint>
#include <string>

#include "test/fuzz/fuzz_program_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fluidc::fuzz::parse_program(std::string(reinterpret_cast<const char*>(data), size), /*text=*/true);
  return 0;
}
