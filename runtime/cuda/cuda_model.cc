// runtime/cuda/cuda_model.cc - device tensors, the caching allocator, the per-step copies and the CUDA graph of a step.
#include "runtime/cuda/cuda_model.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/cuda/device_feeds.h"
#include "runtime/error.h"
#include "runtime/finite_check.h"
#include "runtime/op_profile.h"

namespace fluidc::cu {

Options& options() {
  static Options o;
  return o;
}

Stats& stats() {
  static Stats s;
  return s;
}

void check(int err, const char* what) {
  if (err == cudaSuccess) return;
  throw rt::Error(std::string("CUDA error in ") + what + ": " + cudaGetErrorName(static_cast<cudaError_t>(err)) +
                  " (" + cudaGetErrorString(static_cast<cudaError_t>(err)) + ")");
}

void check_cublas(int status, const char* what) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw rt::Error(std::string("cuBLAS error in ") + what + ": status " + std::to_string(status));
}

namespace {

// Size classes: 512-byte granules up to 1 MiB, then powers of two, so a
// block released by one tensor fits the next of a similar size.
size_t size_class(size_t bytes) {
  if (bytes == 0) bytes = 1;
  if (bytes <= (1u << 20)) return (bytes + 511) / 512 * 512;
  size_t c = 1u << 20;
  while (c < bytes) c <<= 1;
  return c;
}

struct Cache {
  std::mutex mu;
  std::multimap<size_t, void*> free;  ///< released blocks by capacity
};
Cache& cache() {
  static Cache* c = new Cache;  // never destroyed: tensors of static instances may release late
  return *c;
}

thread_local Context* t_current = nullptr;

}  // namespace

void* device_alloc(size_t bytes, size_t* capacity) {
  const size_t cls = size_class(bytes);
  Cache& c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mu);
    auto it = c.free.find(cls);
    if (it != c.free.end()) {
      void* p = it->second;
      c.free.erase(it);
      *capacity = cls;
      return p;
    }
  }
  if (t_current && t_current->capturing)
    throw rt::Error("internal: a device allocation during CUDA graph capture (the step was expected to allocate nothing)");
  void* p = nullptr;
  check(cudaMalloc(&p, cls), "cudaMalloc");
  ++stats().device_allocs;
  stats().device_bytes += static_cast<int64_t>(cls);
  *capacity = cls;
  return p;
}

void device_release(void* ptr, size_t capacity) {
  if (!ptr) return;
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  c.free.emplace(capacity, ptr);
}

DTensor::DTensor() noexcept = default;

DTensor::~DTensor() {
  if (dev_.raw()) device_release(dev_.raw(), dev_.capacity());
}

void DTensor::dresize(const rt::Shape& shape, rt::DType dtype) {
  const size_t bytes = rt::tensor_bytes(shape, dtype);
  if (!dev_.raw() || bytes > dev_.capacity()) {
    size_t cap = 0;
    void* p = device_alloc(bytes, &cap);
    if (dev_.raw()) device_release(dev_.raw(), dev_.capacity());
    dev_.view(p, cap, rt::Device::kCUDA);
  }
  dev_.resize(shape, dtype);
}

void DTensor::release() {
  static_cast<rt::Tensor&>(*this) = rt::Tensor();
  if (dev_.raw()) device_release(dev_.raw(), dev_.capacity());
  dev_ = rt::Tensor();
}

void DTensor::upload() {
  if (!initialized()) return;
  dresize(shape(), dtype());
  if (nbytes())
    check(cudaMemcpyAsync(dev_.raw(), raw(), nbytes(), cudaMemcpyHostToDevice, current().stream),
          "cudaMemcpyAsync (host to device)");
}

void DTensor::download_async() {
  if (!dev_.initialized()) return;
  resize(dev_.shape(), dev_.dtype());
  if (nbytes())
    check(cudaMemcpyAsync(raw(), dev_.raw(), nbytes(), cudaMemcpyDeviceToHost, current().stream),
          "cudaMemcpyAsync (device to host)");
}

void* Context::scratch(size_t bytes) {
  if (bytes > scratch_cap_) {
    if (scratch_) device_release(scratch_, scratch_cap_);
    scratch_ = device_alloc(bytes, &scratch_cap_);
  }
  return scratch_;
}

Context& current() {
  if (!t_current) throw rt::Error("internal: a CUDA kernel ran outside a step (no current context)");
  return *t_current;
}

void launched(const char* what) {
  ++stats().kernel_launches;
  check(cudaGetLastError(), what);
}

namespace {

// Sets the thread's current context for a scope (instances may run on several threads).
struct Use {
  Context* prev;
  explicit Use(Context* c) : prev(t_current) { t_current = c; }
  ~Use() { t_current = prev; }
};

constexpr size_t kWorkspaceBytes = 32u << 20;  // cuBLAS's recommended workspace for Hopper

}  // namespace

CudaModel::CudaModel(const rt::ModelInfo& info, rt::Tensor* const* slots) : rt::Model(info, slots) {}

void make_context(Context& ctx) {
  check(cudaSetDevice(options().device), "cudaSetDevice");
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  ctx.stream = s;
  cublasHandle_t h = nullptr;
  check_cublas(cublasCreate(&h), "cublasCreate");
  ctx.cublas = h;
  check_cublas(cublasSetStream(h, s), "cublasSetStream");
  check(cudaMalloc(&ctx.workspace, kWorkspaceBytes), "cudaMalloc (cuBLAS workspace)");
  ctx.workspace_bytes = kWorkspaceBytes;
  check_cublas(cublasSetWorkspace(h, ctx.workspace, kWorkspaceBytes), "cublasSetWorkspace");
  // Products in full fp32 (no TF32): the outputs are compared with the CPU binary at 1e-5.
  check_cublas(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
}

void destroy_context(Context& ctx) {
  if (ctx.scratch_) device_release(ctx.scratch_, ctx.scratch_cap_);
  if (ctx.cublas) cublasDestroy(ctx.cublas);
  if (ctx.workspace) cudaFree(ctx.workspace);
  if (ctx.stream) cudaStreamDestroy(ctx.stream);
  ctx = Context{};
}

ContextScope::ContextScope() : prev_(t_current) {
  make_context(ctx_);
  t_current = &ctx_;
}

ContextScope::~ContextScope() {
  t_current = prev_;
  destroy_context(ctx_);
}

void ContextScope::sync() { check(cudaStreamSynchronize(ctx_.stream), "cudaStreamSynchronize"); }

// The device context is made at the first step, not in the constructor:
// an instance without a GPU can still answer --help.
void CudaModel::init_context() {
  if (!ctx_.stream) make_context(ctx_);
}

CudaModel::~CudaModel() {
  drop_graph();
  destroy_context(ctx_);
}

void CudaModel::drop_graph() {
  if (graph_) cudaGraphExecDestroy(graph_);
  graph_ = nullptr;
}

bool CudaModel::gather_feed(int feed, const rt::Tensor& data, const int64_t* rows, int64_t count) {
  if (!options().device_feeds || feed < 0 || feed >= info().num_feeds) return false;
  init_context();
  Use use(&ctx_);
  if (device_feeds_.size() < static_cast<size_t>(info().num_feeds)) device_feeds_.resize(info().num_feeds);
  auto& d = device_feeds_[feed];
  if (!d) d = std::make_unique<DeviceFeed>();
  const int64_t allocs = stats().device_allocs;
  const bool was = d->on_device();
  const bool staged = d->stage(data, rows, count, slot(info().feeds[feed]));
  // A captured graph holds the old pointers, or gathers a feed that is now copied up (or the reverse).
  if (stats().device_allocs != allocs || staged != was) drop_graph();
  return staged;
}

bool CudaModel::staged_on_device(int feed) const {
  return static_cast<size_t>(feed) < device_feeds_.size() && device_feeds_[feed] && device_feeds_[feed]->pending();
}

void CudaModel::run_step() {
  const rt::ModelInfo& m = info();
  for (size_t i = 0; i < device_feeds_.size(); ++i)
    if (staged_on_device(static_cast<int>(i))) device_feeds_[i]->gather(slot(m.feeds[i]));
  step();
}

void CudaModel::upload_persistables() {
  const rt::ModelInfo& m = info();
  for (int i = 0; i < m.num_persistables; ++i) slot(m.persistables[i]).upload();
  host_state_changed_ = false;
}

bool CudaModel::feeds_match_capture() const {
  const rt::ModelInfo& m = info();
  for (int i = 0; i < m.num_feeds && i < 16; ++i)
    if (const_cast<CudaModel*>(this)->slot(m.feeds[i]).shape() != captured_[i]) return false;
  return true;
}

void CudaModel::startup() {
  startup_step();  // host kernels on the host mirrors
  host_state_changed_ = true;
}

void CudaModel::run() {
  init_context();
  Use use(&ctx_);
  Stats& st = stats();
  ++st.steps;
  const int64_t allocs0 = st.device_allocs, launches0 = st.kernel_launches;
  const rt::ModelInfo& m = info();
  if (host_state_changed_) {
    upload_persistables();
    drop_graph();  // load-time ops (if any) run again, eagerly
    last_eager_clean_ = false;
  }
  bool same_feeds = m.num_feeds <= 16;
  for (int i = 0; i < m.num_feeds; ++i) {
    DTensor& f = slot(m.feeds[i]);
    if (!staged_on_device(i)) f.upload();
    if (i < 16) same_feeds = same_feeds && f.shape() == last_feeds_[i];
  }
  if (graph_ && !feeds_match_capture()) drop_graph();  // tensors hold other shapes now: capture again later
  const bool grew = st.device_allocs != allocs0;  // a feed grew: the graph's pointers are stale
  if (grew) drop_graph();
  if (graph_) {
    check(cudaGraphLaunch(graph_, ctx_.stream), "cudaGraphLaunch");
    ++st.graph_launches;
  } else if (options().graphs && !check_nan_ && last_eager_clean_ && same_feeds && !grew) {
    // The previous step ran with these shapes and allocated nothing, so this
    // one takes the same host decisions: capture it, then launch it.
    cudaGraph_t g = nullptr;
    check(cudaStreamBeginCapture(ctx_.stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    ctx_.capturing = true;
    try {
      run_step();
    } catch (...) {
      ctx_.capturing = false;
      cudaStreamEndCapture(ctx_.stream, &g);
      if (g) cudaGraphDestroy(g);
      throw;
    }
    ctx_.capturing = false;
    check(cudaStreamEndCapture(ctx_.stream, &g), "cudaStreamEndCapture");
    cudaGraphExec_t exec = nullptr;
    const cudaError_t e = cudaGraphInstantiate(&exec, g, 0);
    cudaGraphDestroy(g);
    check(e, "cudaGraphInstantiate");
    graph_ = exec;
    for (int i = 0; i < m.num_feeds && i < 16; ++i) captured_[i] = slot(m.feeds[i]).shape();
    ++st.captures;
    check(cudaGraphLaunch(graph_, ctx_.stream), "cudaGraphLaunch");
    ++st.graph_launches;
  } else {
    ctx_.host_work = false;
    run_step();
    // A step with host work (an op without a CUDA kernel, a condition read
    // back) is never captured: the graph would leave that work out.
    last_eager_clean_ = st.device_allocs == allocs0 && !ctx_.host_work;
  }
  for (auto& d : device_feeds_)  // gathered by run_step, or by the graph's replay of it
    if (d && d->pending()) ++st.device_gathers, d->done();
  for (int i = 0; i < m.num_feeds && i < 16; ++i) last_feeds_[i] = slot(m.feeds[i]).shape();
  for (int i = 0; i < m.num_fetches; ++i) slot(m.fetches[i]).download_async();
  if (m.loss) slot(*m.loss).download_async();
  rt::g_current_op = nullptr;  // a failure from here on is the step's, reported by the synchronisation
  check(cudaStreamSynchronize(ctx_.stream), "the step (cudaStreamSynchronize; rerun with CUDA_LAUNCH_BLOCKING=1 to locate)");
  st.last_step_allocs = st.device_allocs - allocs0;
  st.last_step_launches = st.kernel_launches - launches0;
}

void CudaModel::sync_to_host() {
  // Never stepped, or loaded since: the host mirrors hold the state.
  if (!ctx_.stream || host_state_changed_) return;
  Use use(&ctx_);
  const rt::ModelInfo& m = info();
  for (int i = 0; i < m.num_persistables; ++i) slot(m.persistables[i]).download_async();
  check(cudaStreamSynchronize(ctx_.stream), "copying persistables to the host");
}

void print_cuda_stats() {
  const Stats& s = stats();
  std::fprintf(stderr,
               "cuda-stats: %lld steps, %lld graph launches (%lld captures), %lld kernel launches issued, "
               "%lld cudaMalloc calls (%lld bytes), %lld ops run on the host, %lld feeds gathered on the device; "
               "last step: %lld cudaMalloc calls, %lld kernel launches%s\n",
               static_cast<long long>(s.steps), static_cast<long long>(s.graph_launches),
               static_cast<long long>(s.captures), static_cast<long long>(s.kernel_launches),
               static_cast<long long>(s.device_allocs), static_cast<long long>(s.device_bytes),
               static_cast<long long>(s.host_ops), static_cast<long long>(s.device_gathers),
               static_cast<long long>(s.last_step_allocs), static_cast<long long>(s.last_step_launches),
               s.graph_launches && s.last_step_launches == 0 ? " (a graph replay)" : "");
}

int take_cuda_flags(int argc, char** argv, std::vector<char*>& rest) {
  rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--no-cuda-graph") {
      options().graphs = false;
    } else if (a == "--feeds-from-host") {
      options().device_feeds = false;
    } else if (a == "--cuda-stats") {
      options().stats = true;
    } else if (a == "--profile") {  // per-op times: each op waited for, so no graph (runtime/op_profile.h)
      options().graphs = false;
      rt::g_profile_sync = [] { cudaDeviceSynchronize(); };
      rest.push_back(argv[i]);
    } else if (a == "--device" || a.rfind("--device=", 0) == 0) {
      std::string v = a == "--device" ? (i + 1 < argc ? argv[++i] : "") : a.substr(9);
      char* end = nullptr;
      const long d = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end || d < 0 || d > 1024) {
        std::fprintf(stderr, "%s: error: --device needs a device number, got '%s'\n", argv[0], v.c_str());
        return 2;
      }
      options().device = static_cast<int>(d);
      options().device_given = true;
    } else {
      rest.push_back(argv[i]);
    }
  }
  return 0;
}

void print_cuda_help() {
  std::printf("\nCUDA (this binary was built with --target cuda):\n"
              "  --device N          the CUDA device to run on (default 0)\n"
              "  --no-cuda-graph     run every step's kernels eagerly instead of replaying a captured graph\n"
              "  --feeds-from-host   copy each training batch up from host memory (default: the data set\n"
              "                      is kept on the device when it fits and batches are gathered there)\n"
              "  --cuda-stats        at exit, print graph launches, kernel launches, cudaMalloc calls and\n"
              "                      host-run ops to stderr\n");
}

int check_cuda_device(const char* argv0) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::fprintf(stderr, "%s: no CUDA device (%s): this binary was built with --target cuda and needs an NVIDIA GPU; "
                 "exiting with 77 (skipped)\n",
                 argv0, e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    return 77;
  }
  if (options().device >= count) {
    std::fprintf(stderr, "%s: error: --device %d, but this machine has %d CUDA device%s\n", argv0,
                 options().device, count, count == 1 ? "" : "s");
    return 2;
  }
  return 0;
}

int run_cuda_model_main(int argc, char** argv, const rt::ModelInfo& info) {
  std::vector<char*> rest;
  if (const int rc = take_cuda_flags(argc, argv, rest)) return rc;
  bool info_only = false, help = false;
  for (size_t i = 1; i < rest.size(); ++i) {
    const std::string a = rest[i];
    if (a == "--help" || a == "-h" || a == "--version") info_only = true;
    if (a == "--help" || a == "-h") help = true;
  }
  rest.push_back(nullptr);
  const int n = static_cast<int>(rest.size()) - 1;
  if (info_only) {
    const int rc = rt::run_model_main(n, rest.data(), info);
    if (help) print_cuda_help();
    return rc;
  }
  if (const int rc = check_cuda_device(argv[0])) return rc;
  const int rc = rt::run_model_main(n, rest.data(), info);
  if (options().stats) print_cuda_stats();
  return rc;
}

}  // namespace fluidc::cu

namespace fluidc::rt {

void check_op_output_if(bool enabled, const OpSite& site, const cu::DTensor& t, const char* name) {
  if (!enabled) return;
  if (!t.dinit()) return check_op_output_if(enabled, site, static_cast<const Tensor&>(t), name);  // host (startup)
  Tensor host;
  host.resize(t.dshape(), t.ddtype());
  cu::check(cudaMemcpyAsync(host.raw(), t.dev().raw(), host.nbytes(), cudaMemcpyDeviceToHost, cu::current().stream),
            "--check-nan copy");
  cu::check(cudaStreamSynchronize(cu::current().stream), "--check-nan synchronisation");
  check_op_output_if(enabled, site, host, name);
}

}  // namespace fluidc::rt
