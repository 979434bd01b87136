// test/fuzz/fuzz_tensor_record.cc - libFuzzer target: Paddle tensor records and combined parameter files.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/error.h"
#include "runtime/tensor.h"
#include "runtime/tensor_record.h"

using fluidc::rt::Tensor;

namespace {
// Enough variables for any seed checkpoint; the count only shapes how the
// combined reader splits the bytes, so more would add nothing.
constexpr size_t kMaxRecords = 64;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);

  // Record by record, keeping the LoD, as read_param_dir reads one file.
  size_t records = 0;
  {
    std::istringstream in(bytes);
    try {
      while (records < kMaxRecords && in.peek() != std::char_traits<char>::eof()) {
        Tensor t;
        fluidc::rt::Lod lod;
        fluidc::rt::read_tensor_record(in, t, "fuzz record", &lod);
        ++records;
        // What was read must write back; a record is a round trip in Paddle's format.
        std::ostringstream out;
        fluidc::rt::write_tensor_record(out, t, &lod);
      }
    } catch (const fluidc::rt::Error&) {
    }
  }

  // The same bytes as a combined file of one more variable than the records
  // that parsed: the reader must then report the file short, or extra bytes.
  const size_t n = records + 1;
  std::vector<std::string> names;
  std::vector<Tensor> tensors(n);
  std::vector<Tensor*> outs;
  for (size_t i = 0; i < n; ++i) {
    names.push_back("v" + std::to_string(i));
    outs.push_back(&tensors[i]);
  }
  for (size_t expected : {records, n}) {
    if (expected == 0) continue;
    std::istringstream in(bytes);
    try {
      fluidc::rt::read_combined_params(in, "fuzz.pdiparams", {names.begin(), names.begin() + expected},
                                       {outs.begin(), outs.begin() + expected});
    } catch (const fluidc::rt::Error&) {
    }
  }
  return 0;
}
