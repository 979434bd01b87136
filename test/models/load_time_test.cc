// test/models/load_time_test.cc - load-time ops (folded batch_norm) run once per parameter load: the Model API contract.
//
// usage: load_time_test X.npy
// The program (conv_bn.pbtxt, weights embedded) folds its batch_norm into
// the convolution; the folded weights are computed on the first run() and
// kept. Changing a parameter from outside without parameters_changed()
// keeps the old folded weights (the documented contract, checked here so a
// change of it is noticed); after parameters_changed() the next run() uses
// the new value, and restoring it gives the first result bit for bit.
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "runtime/driver_util.h"
#include "runtime/error.h"
#include "runtime/model.h"

namespace test_models::convbn {
const fluidc::rt::ModelInfo& model_info();
}

namespace {

using fluidc::rt::Model;
using fluidc::rt::Tensor;

std::vector<float> values(const Tensor& t) { return {t.data<float>(), t.data<float>() + t.numel()}; }

Tensor& persistable(Model& m, const char* name) {
  for (int i = 0; i < m.info().num_persistables; ++i)
    if (std::strcmp(m.info().persistables[i].name, name) == 0) return m.tensor(m.info().persistables[i]);
  throw fluidc::rt::Error(std::string("no persistable ") + name);
}

int failures = 0;
void check(bool ok, const char* what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what);
  failures += !ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s X.npy\n", argv[0]);
    return 2;
  }
  try {
    std::unique_ptr<Model> m(test_models::convbn::model_info().create());
    std::string prog = m->info().program, feed = std::string("x=") + argv[1];
    std::vector<char*> args = {prog.data(), const_cast<char*>("--feed"), feed.data(), nullptr};
    if (fluidc::rt::run_inference(*m, 3, args.data()) != 0) return 1;  // loads the embedded weights, runs once
    const Tensor& out = m->tensor(m->info().fetches[0]);
    const std::vector<float> first = values(out);

    Tensor& scale = persistable(*m, "scale");
    const std::vector<float> saved = values(scale);
    for (int64_t i = 0; i < scale.numel(); ++i) scale.data<float>()[i] *= 2.0f;
    m->run();
    check(values(out) == first, "without parameters_changed() the folded weights are kept");
    m->parameters_changed();
    m->run();
    check(values(out) != first, "after parameters_changed() the doubled batch-norm scale shows");
    std::memcpy(scale.data<float>(), saved.data(), saved.size() * sizeof(float));
    m->parameters_changed();
    m->run();
    check(values(out) == first, "restored parameters give the first result bit for bit");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "load_time_test: %s\n", e.what());
    return 1;
  }
  return failures ? 1 : 0;
}
