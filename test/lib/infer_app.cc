// test/lib/infer_app.cc - two inference libraries (`fluidc build --emit lib`) in one program, through their headers only.
//
// usage: infer_app FIXTURES_DIR threads|errors
//   threads: two instances of the MLP, one per thread, each running its own input set many times,
//            and the fit-a-line library (no embedded weights: load()) beside them; every result is
//            compared with Paddle's expected output.
//   errors:  bad input shapes, an unset input, missing weights, a bad weight file and a NaN caught
//            inside the program (naming the op) all throw fluidc::Error, and the instance still
//            works afterwards (nothing exited).
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "fit.h"
#include "mlp.h"
#include "npy_lite.h"

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "FAIL: %s\n", what.c_str());
    ++failures;
  }
}

// The e2e tests' tolerance: 1e-4 relative, 1e-5 absolute.
bool close(const float* got, const npy_lite::Array& want, int64_t n) {
  if (n != static_cast<int64_t>(want.data.size())) return false;
  for (int64_t i = 0; i < n; ++i)
    if (!(std::fabs(got[i] - want.data[i]) <= 1e-5 + 1e-4 * std::fabs(want.data[i]))) return false;
  return true;
}

// The header's static description of the MLP.
static_assert(fluidc_models::Mlp::kNumInputs == 1 && fluidc_models::Mlp::kNumOutputs == 1);
static_assert(!fluidc_models::Mlp::kIsTrainer && fluidc_models::Mlp::kHasEmbeddedParams);
static_assert(fluidc_models::Mlp::input_x_declared_dims() == std::array<int64_t, 2>{-1, 64});
static_assert(std::is_same_v<decltype(std::declval<fluidc_models::Mlp&>().input_x()), float*>);
static_assert(!app::FitLine::kHasEmbeddedParams);

// One MLP instance on its own thread: `reps` runs of one input set.
void run_mlp(const std::string& fix, const std::string& set, int reps, bool* ok) {
  const auto x = npy_lite::load(fix + "/infer_mlp/x_" + set + ".npy");
  const auto want = npy_lite::load(fix + "/infer_mlp/expected_" + set + ".npy");
  fluidc_models::Mlp mlp;
  *ok = true;
  for (int r = 0; r < reps; ++r) {
    mlp.set_input_x(x.data.data(), {x.shape[0], x.shape[1]});
    mlp.run();
    const auto shape = mlp.output_save_infer_model_scale_0_tmp_0_shape();
    *ok &= shape[0] == x.shape[0] && shape[1] == 10;
    *ok &= close(mlp.output_save_infer_model_scale_0_tmp_0(), want, mlp.output_save_infer_model_scale_0_tmp_0_size());
  }
}

int threads(const std::string& fix) {
  expect(std::string(fluidc_models::Mlp::kInputNames[0]) == "x", "input name");
  expect(std::string(fluidc_models::Mlp::kOutputNames[0]) == "save_infer_model/scale_0.tmp_0", "output name");
  expect(std::string(fluidc_models::Mlp::kInputDtypes[0]) == "float32", "input dtype");
  bool ok_a = false, ok_b = false;
  std::thread a(run_mlp, fix, "b64", 200, &ok_a);
  std::thread b(run_mlp, fix, "b1", 200, &ok_b);
  // Meanwhile, on this thread, the other library: weights loaded at run time.
  app::FitLine fit;
  fit.load(fix + "/infer_fit_a_line/model.pdiparams");
  for (const char* set : {"b102", "b1"}) {
    const auto x = npy_lite::load(fix + "/infer_fit_a_line/x_" + set + ".npy");
    const auto want = npy_lite::load(fix + "/infer_fit_a_line/expected_" + set + ".npy");
    // Through the buffer accessor this time: give the shape, then write in place.
    fit.resize_input_x({x.shape[0], 13});
    expect(fit.input_x_shape() == std::array<int64_t, 2>{x.shape[0], 13}, "input shape after resize");
    std::copy(x.data.begin(), x.data.end(), fit.input_x());
    fit.run();
    expect(close(fit.output_save_infer_model_scale_0_tmp_0(), want, fit.output_save_infer_model_scale_0_tmp_0_size()),
           std::string("fit_a_line ") + set + " against Paddle");
  }
  a.join();
  b.join();
  expect(ok_a, "mlp b64 on thread a against Paddle");
  expect(ok_b, "mlp b1 on thread b against Paddle");
  return failures;
}

template <class F>
std::string thrown(F&& f) {
  try {
    f();
  } catch (const fluidc::Error& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

int errors(const std::string& fix) {
  const auto x = npy_lite::load(fix + "/infer_mlp/x_b1.npy");
  const auto want = npy_lite::load(fix + "/infer_mlp/expected_b1.npy");
  fluidc_models::Mlp mlp;
  std::string e = thrown([&] { mlp.run(); });
  expect(contains(e, "'x'") && contains(e, "never set"), "run() before the input is set: " + e);
  e = thrown([&] { mlp.set_input_x(x.data.data(), {1, 63}); });
  expect(contains(e, "'x'") && contains(e, "[1, 63]") && contains(e, "float32[-1, 64]"), "a wrong dim: " + e);
  e = thrown([&] { mlp.resize_input_x({-3, 64}); });
  expect(contains(e, "[-3, 64]"), "a negative dim: " + e);
  e = thrown([&] { mlp.load(fix + "/no/such/file.pdiparams"); });
  expect(contains(e, "no/such/file.pdiparams"), "a missing weight file: " + e);
  e = thrown([&] { mlp.load(fix + "/infer_fit_a_line/model.pdiparams"); });
  expect(!e.empty(), "another model's weights");
  // Still usable: the failed calls changed nothing.
  mlp.set_input_x(x.data.data(), {1, 64});
  mlp.run();
  expect(close(mlp.output_save_infer_model_scale_0_tmp_0(), want, 10), "a run after the errors");
  // An error inside the program names the op: --check-nan's, on a NaN input.
  mlp.set_check_nan(true);
  std::vector<float> nans(64, std::nanf(""));
  mlp.set_input_x(nans.data(), {1, 64});
  e = thrown([&] { mlp.run(); });
  expect(contains(e, "block 0, op ") && contains(e, "nan"), "a NaN inside the program, located: " + e);
  mlp.set_check_nan(false);
  // No weights compiled in and none loaded: run() says so.
  app::FitLine fit;
  fit.resize_input_x({2, 13});
  e = thrown([&] { fit.run(); });
  expect(contains(e, "load("), "run() without weights: " + e);
  expect(fit.output_save_infer_model_scale_0_tmp_0() == nullptr && fit.output_save_infer_model_scale_0_tmp_0_size() == 0,
         "no output before a run");
  e = thrown([] { fluidc_models::Mlp::set_num_threads(0); });
  expect(!e.empty(), "zero threads");
  return failures;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s FIXTURES_DIR threads|errors\n", argv[0]);
    return 2;
  }
  const std::string mode = argv[2];
  const int failed = mode == "threads" ? threads(argv[1]) : errors(argv[1]);
  std::printf("%s: %s\n", mode.c_str(), failed ? "FAILED" : "ok");
  return failed ? 1 : 0;
}
