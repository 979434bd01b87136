// runtime/model.h - the contract between a generated program and the runtime: a description table and instances.
//
// Generated code defines, in its own namespace, a class `Model` deriving
// from rt::Model (the program's variables are its members, its blocks are
// methods) and a function `model_info()` returning the program's ModelInfo:
// its variables by name and a factory. One process may hold any number of
// instances of any number of programs. Keep this header light: every
// generated file includes it, and compile time of `fluidc build` matters.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/tensor.h"

// On the lambdas that build a generated program's kernel-attribute constants:
// they run once at start-up, so optimising them is wasted compile time (it
// was a third of clang's CPU time on the ResNet-18 trainer, all of them
// inlined into one huge static initialiser). g++ (--cxx) has no optnone.
#if defined(__clang__)
#define FLUIDC_INIT_ONCE __attribute__((noinline, optnone, cold))
#else
#define FLUIDC_INIT_ONCE __attribute__((noinline, cold))
#endif

namespace fluidc::rt {

class Model;

/// A program variable the driver reaches by name (feeds, fetches, state).
/// The tensor belongs to an instance: Model::tensor(binding) finds it.
struct VarBinding {
  const char* name;       ///< the program's variable name
  int slot;               ///< index into the instance's bound tensors
  DType dtype;            ///< element type (inferred, else declared)
  int rank;               ///< rank (inferred, else declared)
  const int64_t* dims;    ///< dims; -1 = any size (resolved at run time)
  int lod_level = 0;      ///< declared LoD levels (sequence feeds); 0 = dense
  /// A weight only integer-storage slots read (a quantized weight): its
  /// record may hold integers where `dtype` says float (compiler/ops/op_def.h).
  bool integer_storage = false;
};

/// Where the generated code is: set before each op so a kernel's error can
/// be reported as "block 0, op 12 (mul): ...". One per thread, so threads
/// running instances side by side each report their own op; the driver
/// reads it on the thread that caught the error. constinit: generated code
/// writes it directly, without a call to a TLS initialiser.
struct OpSite {
  int block;
  int op;
  const char* type;
};
extern thread_local constinit const OpSite* g_current_op;

/// What is known about a compiled program without an instance of it.
struct ModelInfo {
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
  bool has_startup;                ///< a startup program was compiled in
  const unsigned char* embedded_params;  ///< combined params given at build time, or nullptr
  size_t embedded_params_size;
  /// A new instance with no state (run startup() or load params); the
  /// caller owns it and deletes it through Model's virtual destructor.
  Model* (*create)();
};

/// One instance of a compiled program: all its variables and control-flow
/// state. Not copyable (bindings point into it); instances share nothing
/// mutable, so each may run on its own thread. The kernels' thread pool is
/// process-wide: while one instance's GEMM has the workers, another
/// thread's runs on that thread alone (see parallel_for).
class Model {
 public:
  virtual ~Model() = default;
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const ModelInfo& info() const { return info_; }
  /// Block 0 of the main program: one training step or one inference.
  virtual void run() = 0;
  /// The startup program (parameter initialisation); nothing when none.
  virtual void startup() = 0;
  /// This instance's tensor for a binding of its ModelInfo.
  Tensor& tensor(const VarBinding& b) { return *slots_[b.slot]; }
  /// --check-nan: after every op, check its float outputs and throw at the
  /// first NaN or Inf (runtime/finite_check.h). Off: one branch per op.
  void set_check_nan(bool on) { check_nan_ = on; }
  /// Values an inference program computes from parameters alone (its
  /// load-time ops, e.g. batch-norm-folded weights) are computed on the
  /// first run() and kept; call this after changing any persistable tensor
  /// from outside (loading other parameters) so the next run() recomputes them.
  void parameters_changed() {
    load_time_done_ = false;
    host_state_changed_ = true;
  }
  /// Device targets (runtime/cuda) copy every persistable back into the
  /// tensors tensor() returns; the drivers call it before reading them for
  /// a checkpoint. On the CPU they are the state itself: nothing to do.
  virtual void sync_to_host() {}
  /// The trainer's batch: rows rows[0..count) of `data` into feed `feed` (index into info().feeds) before
  /// run(). A device target may take it over (runtime/cuda keeps the data set on the device and gathers the
  /// rows there); false, as on the CPU: the caller copies the rows into tensor(feed) itself.
  virtual bool gather_feed(int /*feed*/, const Tensor& /*data*/, const int64_t* /*rows*/, int64_t /*count*/) {
    return false;
  }

 protected:
  /// `slots` lists the instance's tensors in VarBinding::slot order.
  Model(const ModelInfo& info, Tensor* const* slots) : info_(info), slots_(slots) {}
  /// Read by the generated code after each op (per instance, so one
  /// instance may be checked while another runs at full speed).
  bool check_nan_ = false;
  /// The load-time ops have run since the parameters last changed.
  bool load_time_done_ = false;
  /// Persistables were written from outside since parameters_changed() was
  /// last acted on (a device target uploads them before the next step).
  bool host_state_changed_ = true;

 private:
  const ModelInfo& info_;
  Tensor* const* slots_;
};

/// main() of every generated binary: makes one instance, parses flags and
/// runs the trainer or the inference driver. Returns the process exit code.
int run_model_main(int argc, char** argv, const ModelInfo& info);

}  // namespace fluidc::rt
