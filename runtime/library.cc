// runtime/library.cc - LibraryInstance: the state and checks behind a generated library class.
#include "runtime/library.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "runtime/driver_util.h"
#include "runtime/finite_check.h"
#include "runtime/lod.h"
#include "runtime/parallel.h"
#include "runtime/tensor_record.h"

namespace fluidc::rt {
namespace {

bool all_fixed(const VarBinding& b) {
  for (int d = 0; d < b.rank; ++d)
    if (b.dims[d] < 0) return false;
  return true;
}

// The header gives ranks at compile time; a mismatch is a bug in the
// generated code, not bad input, but still no reason to crash.
void check_rank(const VarBinding& b, int rank) {
  if (rank != b.rank)
    fail("'" + std::string(b.name) + "' has rank " + std::to_string(b.rank) + ", the caller passed " +
         std::to_string(rank) + " dims");
}

}  // namespace

LibraryInstance::LibraryInstance(const ModelInfo& info) : info_(info), model_(info.create()) {
  g_current_op = nullptr;
  if (info_.has_startup) model_->startup();
  g_current_op = nullptr;  // later errors are not the startup program's last op
  if (info_.embedded_params) load_embedded_params(*model_);
  bool complete = true;
  for (int i = 0; i < info_.num_persistables; ++i) complete &= model_->tensor(info_.persistables[i]).initialized();
  if (complete) check_state(info_.embedded_params ? "the params embedded at build time" : "the startup program");
  for (int i = 0; i < info_.num_feeds; ++i) {
    const VarBinding& b = info_.feeds[i];
    if (!all_fixed(b)) continue;
    Tensor& t = model_->tensor(b);
    t.resize(Shape::from(b.dims, b.rank), b.dtype);
    t.zero();
  }
}

LibraryInstance::~LibraryInstance() = default;

void* LibraryInstance::feed_data(int i) {
  Tensor& t = model_->tensor(info_.feeds[i]);
  return t.initialized() ? t.raw() : nullptr;
}

void LibraryInstance::feed_shape(int i, int64_t* out, int rank) const {
  const VarBinding& b = info_.feeds[i];
  check_rank(b, rank);
  const Tensor& t = model_->tensor(b);
  for (int d = 0; d < rank; ++d) out[d] = t.initialized() ? t.dim(d) : b.dims[d];
}

void LibraryInstance::resize_feed(int i, const int64_t* dims, int rank) {
  const VarBinding& b = info_.feeds[i];
  check_rank(b, rank);
  const Shape shape = Shape::from(dims, rank);
  for (int d = 0; d < rank; ++d)
    if (dims[d] < 0 || (b.dims[d] >= 0 && dims[d] != b.dims[d]))
      fail("input '" + std::string(b.name) + "': shape " + shape.str() + " does not fit its declared " +
           declared_str(b) + " (dim " + std::to_string(d) + ")");
  Tensor& t = model_->tensor(b);
  t.resize(shape, b.dtype);
  t.clear_lod();  // offsets of the rows it had
}

void LibraryInstance::set_feed_lod(int i, const Lod& lod) {
  const VarBinding& b = info_.feeds[i];
  const std::string what = "input '" + std::string(b.name) + "'";
  if (static_cast<int>(lod.size()) > b.lod_level)
    fail(what + ": " + std::to_string(lod.size()) + " LoD levels given, it declares lod_level " +
         std::to_string(b.lod_level));
  Tensor& t = model_->tensor(b);
  if (lod.empty()) return t.clear_lod();
  if (!t.initialized() || t.rank() == 0) fail(what + ": give it its data (a shape) before its LoD");
  check_lod(lod, t.dim(0), what + " LoD");
  t.mutable_lod() = lod;
}

Lod LibraryInstance::feed_lod(int i) const {
  const Tensor& t = model_->tensor(info_.feeds[i]);
  return t.lod() ? *t.lod() : Lod();
}

void LibraryInstance::set_feed(int i, const void* data, const int64_t* dims, int rank) {
  resize_feed(i, dims, rank);
  Tensor& t = model_->tensor(info_.feeds[i]);
  if (t.nbytes() == 0) return;
  if (!data) fail("input '" + std::string(info_.feeds[i].name) + "': null data for a non-empty shape");
  std::memcpy(t.raw(), data, t.nbytes());
}

const void* LibraryInstance::fetch_data(int i) const {
  const Tensor& t = model_->tensor(info_.fetches[i]);
  if (!t.initialized()) return nullptr;
  if (t.dtype() != info_.fetches[i].dtype)
    fail("output '" + std::string(info_.fetches[i].name) + "' is " + dtype_name(t.dtype()) + ", declared " +
         declared_str(info_.fetches[i]));
  return t.raw();
}

void LibraryInstance::fetch_shape(int i, int64_t* out, int rank) const {
  const VarBinding& b = info_.fetches[i];
  const Tensor& t = model_->tensor(b);
  if (!t.initialized()) {
    check_rank(b, rank);
    for (int d = 0; d < rank; ++d) out[d] = b.dims[d];
    return;
  }
  if (t.rank() != rank)
    fail("output '" + std::string(b.name) + "' has shape " + t.shape().str() + ", not of the declared rank " +
         std::to_string(rank));
  for (int d = 0; d < rank; ++d) out[d] = t.dim(d);
}

Lod LibraryInstance::fetch_lod(int i) const {
  const Tensor& t = model_->tensor(info_.fetches[i]);
  return t.initialized() && t.lod() ? *t.lod() : Lod();
}

void LibraryInstance::run() {
  g_current_op = nullptr;
  if (!ready_)
    fail(std::string("the model's state is incomplete: ") +
         (info_.has_startup ? "its startup program did not set every persistable; call load(PATH)"
                            : "it was built without --params or a startup program; call load(PATH) first"));
  for (int i = 0; i < info_.num_feeds; ++i) {
    const VarBinding& b = info_.feeds[i];
    const Tensor& t = model_->tensor(b);
    if (!t.initialized()) fail("input '" + std::string(b.name) + "' (" + declared_str(b) + ") was never set");
    check_against_declared(b, t, "the input", false);  // (its LoD was checked when set; a new shape drops it)
  }
  model_->run();
  g_current_op = nullptr;
}

double LibraryInstance::step() {
  if (!info_.loss) fail("this program has no loss: it is not a trainer");
  run();
  return scalar_value(model_->tensor(*info_.loss), info_.loss->name);
}

void LibraryInstance::load(const std::string& path) {
  g_current_op = nullptr;
  load_params_from(*model_, path);
  check_state(path);
}

void LibraryInstance::save(const std::string& path) {
  g_current_op = nullptr;
  std::vector<const Tensor*> state;
  for (int i = 0; i < info_.num_persistables; ++i) {
    const Tensor& t = model_->tensor(info_.persistables[i]);
    if (!t.initialized()) fail("not saving: persistable '" + std::string(info_.persistables[i].name) + "' has no value");
    check_finite(t, "not saving: '" + std::string(info_.persistables[i].name) + "'");
    state.push_back(&t);
  }
  write_combined_params(path, binding_names(info_.persistables, info_.num_persistables), state);
}

const VarBinding& LibraryInstance::persistable(const char* name) const {
  for (int i = 0; i < info_.num_persistables; ++i)
    if (std::strcmp(info_.persistables[i].name, name) == 0) return info_.persistables[i];
  fail("no persistable named '" + std::string(name) + "'");
}

float LibraryInstance::get_scalar(const char* name) {
  const VarBinding& b = persistable(name);
  return static_cast<float>(scalar_value(model_->tensor(b), b.name));
}

void LibraryInstance::set_scalar(const char* name, float value) {
  const VarBinding& b = persistable(name);
  Tensor& t = model_->tensor(b);
  if (!t.initialized() || t.numel() != 1 || t.dtype() != DType::kFP32)
    fail("'" + std::string(name) + "' is not a float32 value with one element");
  t.data<float>()[0] = value;
  model_->parameters_changed();
}

void LibraryInstance::set_check_nan(bool on) { model_->set_check_nan(on); }

void LibraryInstance::check_state(const std::string& source) {
  ready_ = false;
  for (int i = 0; i < info_.num_persistables; ++i) {
    const VarBinding& b = info_.persistables[i];
    const Tensor& t = model_->tensor(b);
    if (!t.initialized()) fail("persistable '" + std::string(b.name) + "' (" + declared_str(b) + ") has no value after loading " + source);
    check_against_declared(b, t, source, false);
  }
  model_->parameters_changed();
  ready_ = true;
}

std::string located_message(const Error& e) {
  const OpSite* site = g_current_op;
  g_current_op = nullptr;
  if (!site) return e.what();
  return "block " + std::to_string(site->block) + ", op " + std::to_string(site->op) + " (" + site->type + "): " +
         e.what();
}

void library_set_num_threads(int n) {
  if (n < 1) fail("the thread count must be at least 1");
  set_num_threads(n);
}

}  // namespace fluidc::rt
