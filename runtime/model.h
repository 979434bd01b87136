// runtime/model.h - the contract between a generated program and the runtime's drivers.
//
// Generated code defines one `Model` describing its variables and entry
// points and calls run_model_main() from main(). Keep this header light:
// every generated file includes it, and compile time of `fluidc build`
// matters.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/tensor.h"

namespace fluidc::rt {

/// A program variable the driver reaches by name (feeds, fetches, state).
struct VarBinding {
  const char* name;       ///< the program's variable name
  Tensor* tensor;         ///< the generated code's storage for it
  DType dtype;            ///< declared element type
  int rank;               ///< declared rank
  const int64_t* dims;    ///< declared dims; -1 = any size (resolved at run time)
};

/// Where the generated code is: set before each op so a kernel's error can
/// be reported as "block 0, op 12 (mul): ...".
struct OpSite {
  int block;
  int op;
  const char* type;
};
extern const OpSite* g_current_op;

struct Model {
  const char* program;          ///< main program file it was compiled from
  const char* program_sha256;
  const char* fluidc_version;
  bool is_trainer;
  const VarBinding* feeds;
  int num_feeds;
  const VarBinding* fetches;
  int num_fetches;
  const VarBinding* persistables;  ///< sorted by name: the order of combined param files
  int num_persistables;
  const VarBinding* parameters;    ///< the trained subset of persistables, sorted
  int num_parameters;
  const VarBinding* loss;          ///< trainer only; nullptr otherwise
  void (*run)();                   ///< block 0 of the main program
  void (*startup)();               ///< the startup program; nullptr when none was given
  const unsigned char* embedded_params;  ///< combined params given at build time, or nullptr
  size_t embedded_params_size;
};

/// main() of every generated binary: parses flags and runs the trainer or
/// the inference driver. Returns the process exit code.
int run_model_main(int argc, char** argv, const Model& model);

}  // namespace fluidc::rt
