// test/fuzz/fuzz_npy.cc - libFuzzer target: the .npy reader generated binaries use for --feed and --data.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "runtime/error.h"
#include "runtime/npy.h"
#include "runtime/tensor.h"

using fluidc::rt::Tensor;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Tensor t;
  try {
    fluidc::rt::read_npy_from_buffer(data, size, t, "fuzz.npy");
  } catch (const fluidc::rt::Error&) {
    return 0;  // rejected with a message: what a bad file should get
  }
  // Whatever the reader accepts, the writer must write and the reader take
  // back unchanged (an Error here escapes and is reported as a crash).
  std::ostringstream out;
  fluidc::rt::write_npy(out, t);
  const std::string bytes = out.str();
  Tensor back;
  fluidc::rt::read_npy_from_buffer(bytes.data(), bytes.size(), back, "fuzz-roundtrip.npy");
  if (back.shape() != t.shape() || back.dtype() != t.dtype() || back.nbytes() != t.nbytes() ||
      (t.nbytes() && std::memcmp(back.raw(), t.raw(), t.nbytes()) != 0))
    std::abort();
  return 0;
}
