// runtime/cuda/cuda_model.h - device tensors, the per-instance CUDA context and the base of generated CUDA models.
//
// A generated CUDA program (fluidc build --target cuda) declares every
// variable as a DTensor: an rt::Tensor (the host mirror, which the trainer
// and inference drivers read and write by name: feeds, fetches,
// checkpoints) plus device storage, which is where the values live during a
// step. Copies between the two happen only at feeds, fetches, parameter
// loads and checkpoints (CudaModel::run, sync_to_host). Device memory comes
// from a caching allocator and only grows, so a steady-state step allocates
// nothing; such a step is captured once into a CUDA graph and replayed.
// This header needs no CUDA headers: the generated model.cu includes it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/model.h"
#include "runtime/tensor.h"

struct CUstream_st;
struct cublasContext;
struct CUgraphExec_st;

namespace fluidc::cu {

class DeviceFeed;

/// Process-wide settings from the binary's command line (run_cuda_model_main).
struct Options {
  int device = 0;          ///< --device N
  bool device_given = false;  ///< --device was on the command line
  bool graphs = true;      ///< --no-cuda-graph turns capture off
  bool stats = false;      ///< --cuda-stats: print the counters below at exit
  bool device_feeds = true;  ///< --feeds-from-host: copy each batch up instead (device_feeds.h)
};
Options& options();

/// Counters for --cuda-stats (process-wide, all instances).
struct Stats {
  int64_t steps = 0;            ///< CudaModel::run calls
  int64_t graph_launches = 0;   ///< steps replayed as one graph launch
  int64_t captures = 0;         ///< graphs captured
  int64_t kernel_launches = 0;  ///< kernels and cuBLAS calls issued eagerly or into a capture
  int64_t device_allocs = 0;    ///< cudaMalloc calls (the caching allocator's misses)
  int64_t device_bytes = 0;     ///< bytes cudaMalloc'd
  int64_t last_step_allocs = 0; ///< cudaMalloc calls during the last step
  int64_t last_step_launches = 0;  ///< kernel launches issued by the last step (0 when it was a replay)
  int64_t host_ops = 0;         ///< ops run on the host for want of a CUDA kernel (runtime/cuda/host_ops.h)
  int64_t device_gathers = 0;   ///< feeds gathered from a data set on the device (device_feeds.h)
};
Stats& stats();

/// Throws rt::Error "CUDA error in WHAT: <reason>" for a failed runtime call;
/// the driver prefixes the op that was running (g_current_op).
void check(int cuda_error, const char* what);
/// The same for a cuBLAS status.
void check_cublas(int status, const char* what);

/// Device memory, cached: release() keeps a block for the next alloc() of a
/// size in its class, so after the first step nothing reaches cudaMalloc.
void* device_alloc(size_t bytes, size_t* capacity);
void device_release(void* ptr, size_t capacity);

/// A program variable: the host mirror (this rt::Tensor) plus device storage.
class DTensor : public rt::Tensor {
 public:
  DTensor() noexcept;
  ~DTensor();
  DTensor(DTensor&&) = delete;
  /// The device side: a view (Device::kCUDA) of memory from device_alloc.
  const rt::Tensor& dev() const { return dev_; }
  /// Sets the device shape and dtype, growing the device storage through
  /// the caching allocator when needed (contents then unspecified).
  void dresize(const rt::Shape& shape, rt::DType dtype);
  /// Frees the host mirror and gives the device storage back to the cache
  /// (a load-time temporary no later op reads).
  void release();
  /// Host mirror -> device (stream-ordered, on the current context's stream).
  void upload();
  /// Device -> host mirror, stream-ordered; the caller synchronises.
  void download_async();

  const rt::Shape& dshape() const { return dev_.shape(); }
  int64_t dnumel() const { return dev_.numel(); }
  rt::DType ddtype() const { return dev_.dtype(); }
  bool dinit() const { return dev_.initialized(); }
  template <class T> T* dptr() { return dev_.data<T>(); }
  template <class T> const T* dptr() const { return dev_.data<T>(); }

 private:
  rt::Tensor dev_;
};

/// What kernels run on: the instance's stream and cuBLAS handle, set as the
/// thread's current context for the duration of a step.
struct Context {
  CUstream_st* stream = nullptr;
  cublasContext* cublas = nullptr;
  void* workspace = nullptr;  ///< cuBLAS workspace (set explicitly: graph capture allows no allocation)
  size_t workspace_bytes = 0;
  bool capturing = false;
  /// The step ran an op on the host (host_ops.h): it cannot be captured.
  bool host_work = false;
  /// Scratch device memory for kernels (grows, never shrinks).
  void* scratch(size_t bytes);
  void* scratch_ = nullptr;
  size_t scratch_cap_ = 0;
};
/// Makes a context (stream, cuBLAS handle and workspace on options().device)
/// and releases one.
void make_context(Context& ctx);
void destroy_context(Context& ctx);
/// A context current on this thread for the scope (kernel tests, tools):
/// what CudaModel::run does around a step.
class ContextScope {
 public:
  ContextScope();
  ~ContextScope();
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;
  /// Waits for the queued work (and reports its errors).
  void sync();

 private:
  Context ctx_;
  Context* prev_;
};
/// The calling thread's current context; throws when no step is running.
Context& current();
/// Counts one launch and checks the launch error (no synchronisation).
void launched(const char* what);

/// The base of every generated CUDA model. run() wraps the generated step():
/// uploads feeds (and persistables after the host changed them), runs or
/// replays the step, downloads fetches and the loss.
class CudaModel : public rt::Model {
 public:
  ~CudaModel() override;
  void run() final;
  /// The startup program runs once on the host kernels (its values are
  /// uploaded at the first step, like loaded parameters).
  void startup() final;
  void sync_to_host() override;
  /// Keeps the data set on the device and gathers the rows there, inside the step (device_feeds.h).
  bool gather_feed(int feed, const rt::Tensor& data, const int64_t* rows, int64_t count) override;

 protected:
  CudaModel(const rt::ModelInfo& info, rt::Tensor* const* slots);
  /// Block 0 of the main program on the device (generated).
  virtual void step() = 0;
  /// The startup program on the host (generated).
  virtual void startup_step() = 0;

 private:
  void init_context();
  void upload_persistables();
  bool feeds_match_capture() const;
  void drop_graph();
  /// The feeds' device gathers (if staged), then step(): what an eager run or a capture executes.
  void run_step();
  bool staged_on_device(int feed) const;
  DTensor& slot(const rt::VarBinding& b) { return static_cast<DTensor&>(tensor(b)); }

  Context ctx_;
  CUgraphExec_st* graph_ = nullptr;
  rt::Shape captured_[16];       ///< feed shapes the graph was captured with (first 16 feeds)
  rt::Shape last_feeds_[16];     ///< feed shapes of the previous eager step
  bool last_eager_clean_ = false;  ///< the previous step ran eagerly, allocated nothing, same feeds
  std::vector<std::unique_ptr<DeviceFeed>> device_feeds_;  ///< per feed, made by gather_feed
};

/// Takes the CUDA flags (--device N, --no-cuda-graph, --feeds-from-host,
/// --cuda-stats; --profile is also passed on) into options(); argv[0] and
/// every other argument go to `rest`. 0, or 2 after printing a bad flag.
int take_cuda_flags(int argc, char** argv, std::vector<char*>& rest);
/// The CUDA flags' part of --help.
void print_cuda_help();
/// 0 when options().device exists; else prints why and returns 77 (no CUDA
/// device: CTest's skip code) or 2 (no such device).
int check_cuda_device(const char* argv0);
/// --cuda-stats: the counters (stats()) on stderr.
void print_cuda_stats();

/// main() of a CUDA binary: takes --device N, --no-cuda-graph and
/// --cuda-stats, returns 77 with a clear message when there is no CUDA
/// device (CTest's skip code), else runs rt::run_model_main.
int run_cuda_model_main(int argc, char** argv, const rt::ModelInfo& info);

}  // namespace fluidc::cu

namespace fluidc::rt {
/// --check-nan on a CUDA model: checks the device values (copied back).
void check_op_output_if(bool enabled, const OpSite& site, const cu::DTensor& t, const char* name);
}  // namespace fluidc::rt
