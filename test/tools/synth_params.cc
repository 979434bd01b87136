// test/tools/synth_params.cc - writes a program's persistable float tensors from a fixed formula (real-model tests).
//
// usage: synth_params PROGRAM OUT.pdiparams
//        synth_params --parameters PROGRAM OUT.pdiparams   (only the variables marked is_parameter:
//                     a trainer's weights, its optimizer state left to the startup program)
//        synth_params --input NAME D0,D1,... OUT.npy   (a model input: u_i itself, in [0, 1))
// Real programs come without weights, and committing ResNet-sized weights
// would bloat the repository; instead the fixture script
// (tools/synth_weights.py) and the tests fill every persistable fp32
// tensor (and the integer tensors of quantized programs) with the same
// formula, exactly, in integers:
//   h    = FNV-1a 64 of the variable's name
//   u_i  = splitmix64(h + i) >> 40, divided by 2^24   (i: flat index; u in [0, 1))
//   rank >= 2: (2 u_i - 1) * sqrt(3 / fan_in), fan_in = numel / dims[0]
//              (variance 1/fan_in: activations keep their scale layer to layer)
//   rank <= 1: 0.5 + u_i   (biases, batch-norm scales, means and variances: positive)
//   inputs:    u_i         (image-like data; a video input is too large to commit)
//   int8:      floor(255 u_i) - 127, in [-127, 127]   (quantized weights, QuantWeightPass)
//   int32/64:  0   (zero points of quantize_linear, which no kernel reads)
// The two implementations are checked against each other by the real-model
// tests themselves (Paddle's outputs were computed from Python's values).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "compiler/ir/program.h"
#include "runtime/error.h"
#include "runtime/npy.h"
#include "runtime/tensor_record.h"

namespace {

uint64_t fnv1a64(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

double unit(uint64_t h, int64_t i) {
  return static_cast<double>(splitmix64(h + static_cast<uint64_t>(i)) >> 40) / 16777216.0;
}

void fill(const std::string& name, fluidc::rt::Tensor& t, bool input) {
  const uint64_t h = fnv1a64(name);
  const int64_t n = t.numel();
  if (t.dtype() == fluidc::rt::DType::kInt8) {
    for (int64_t i = 0; i < n; ++i) t.data<int8_t>()[i] = static_cast<int8_t>(std::floor(255.0 * unit(h, i)) - 127.0);
    return;
  }
  if (t.dtype() != fluidc::rt::DType::kFP32) {  // int32/int64 zero points
    if (t.nbytes()) std::memset(t.data<char>(), 0, t.nbytes());
    return;
  }
  const bool weight = !input && t.rank() >= 2;
  const double scale = weight ? std::sqrt(3.0 / static_cast<double>(n / t.dim(0))) : 1.0;
  float* p = t.data<float>();
  for (int64_t i = 0; i < n; ++i) {
    const double u = unit(h, i);
    p[i] = static_cast<float>(input ? u : weight ? (2.0 * u - 1.0) * scale : 0.5 + u);
  }
}

int write_input(const std::string& name, const std::string& dims, const std::string& out) {
  fluidc::rt::Shape s;
  size_t pos = 0;
  while (pos <= dims.size() && s.rank < fluidc::rt::Shape::kMaxRank) {
    const size_t comma = dims.find(',', pos);
    s.d[s.rank++] = std::stoll(dims.substr(pos, comma - pos));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  fluidc::rt::Tensor t;
  t.resize(s, fluidc::rt::DType::kFP32);
  fill(name, t, true);
  fluidc::rt::write_npy(out, t);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const bool input = argc == 5 && std::string(argv[1]) == "--input";
  const bool parameters_only = argc == 4 && std::string(argv[1]) == "--parameters";
  if (argc != 3 && !input && !parameters_only) {
    std::fprintf(stderr, "usage: synth_params [--parameters] PROGRAM OUT.pdiparams | --input NAME D0,D1,... OUT.npy\n");
    return 2;
  }
  try {
    if (input) return write_input(argv[2], argv[3], argv[4]);
    const char* program = argv[parameters_only ? 2 : 1];
    const char* out = argv[parameters_only ? 3 : 2];
    const auto prog = fluidc::Program::load(program);
    std::vector<std::string> names;
    std::vector<fluidc::rt::Tensor> tensors;
    for (const auto& v : prog.block(0).vars()) {
      if (!v.persistable() || !fluidc::is_dense_tensor(v) || (parameters_only && !v.is_parameter())) continue;
      const auto& td = v.type().lod_tensor().tensor();
      fluidc::rt::DType dt;
      switch (td.data_type()) {
        case fluidc::pb::VarType::FP32: dt = fluidc::rt::DType::kFP32; break;
        case fluidc::pb::VarType::INT8: dt = fluidc::rt::DType::kInt8; break;
        case fluidc::pb::VarType::INT32: dt = fluidc::rt::DType::kInt32; break;
        case fluidc::pb::VarType::INT64: dt = fluidc::rt::DType::kInt64; break;
        default:
          std::fprintf(stderr, "synth_params: %s is not float32, int8, int32 or int64\n", v.name().c_str());
          return 1;
      }
      fluidc::rt::Shape s;
      for (int64_t d : td.dims()) s.d[s.rank++] = d;
      names.push_back(v.name());
      tensors.emplace_back().resize(s, dt);
      fill(v.name(), tensors.back(), false);
    }
    std::vector<const fluidc::rt::Tensor*> ptrs;
    for (const auto& t : tensors) ptrs.push_back(&t);
    fluidc::rt::write_combined_params(out, names, ptrs);
    std::printf("%zu tensors written to %s\n", names.size(), out);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "synth_params: %s\n", e.what());
    return 1;
  }
  return 0;
}
