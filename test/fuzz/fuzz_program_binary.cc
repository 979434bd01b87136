// test/fuzz/fuzz_program_binary.cc - libFuzzer target: Program::parse of binary ProgramDescs (.pdmodel, __model__).
#include <cstddef>
#include <cstdint>
#include <string>

#include "test/fuzz/fuzz_program_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fluidc::fuzz::parse_program(std::string(reinterpret_cast<const char*>(data), size), /*text=*/false);
  return 0;
}
