// test/models/multi_model_test.cc - three compiled programs in one binary: side by side, and one of them twice on two threads.
//
// Each program is `fluidc emit --no-main --namespace test_models::NAME`; the
// runtime's drivers run on instances (rt::Model), exactly as in the
// standalone binaries, so side_by_side.sh compares the files written here
// with theirs byte for byte.
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "runtime/driver_util.h"
#include "runtime/error.h"
#include "runtime/model.h"

namespace test_models {
namespace fit { const fluidc::rt::ModelInfo& model_info(); }
namespace mlp { const fluidc::rt::ModelInfo& model_info(); }
namespace rnn { const fluidc::rt::ModelInfo& model_info(); }
}  // namespace test_models

namespace {

using fluidc::rt::Model;
using fluidc::rt::ModelInfo;

std::unique_ptr<Model> make(const ModelInfo& info) { return std::unique_ptr<Model>(info.create()); }

// Runs a driver on `model` with the given command line, as main() would.
int drive(Model& model, std::vector<std::string> args) {
  args.insert(args.begin(), model.info().program);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int argc = static_cast<int>(args.size());
  try {
    return model.info().is_trainer ? fluidc::rt::run_trainer(model, argc, argv.data())
                                   : fluidc::rt::run_inference(model, argc, argv.data());
  } catch (const fluidc::rt::Error& e) {
    std::fprintf(stderr, "%s: %s\n", model.info().program, e.what());
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s FIXTURES_DIR OUT_DIR\n", argv[0]);
    return 2;
  }
  const std::string fix = argv[1], out = argv[2];
  // Two different inference programs, both alive, run in turns on two
  // input sets each: neither may disturb the other's state. Their weights
  // are embedded (two params.S in one binary, each under its own symbol).
  auto fit = make(test_models::fit::model_info());
  auto mlp = make(test_models::mlp::model_info());
  if (!fit->info().embedded_params || !mlp->info().embedded_params ||
      fit->info().embedded_params == mlp->info().embedded_params)
    return 1;
  int rc = 0;
  const std::pair<std::string, std::string> turns[] = {{"b102", "b64"}, {"b1", "b1"}};  // (fit, mlp) input sets
  for (const auto& [fit_set, mlp_set] : turns) {
    rc |= drive(*fit, {"--feed", "x=" + fix + "/infer_fit_a_line/x_" + fit_set + ".npy", "--fetch-dir",
                       out + "/fit_" + fit_set});
    rc |= drive(*mlp, {"--feed", "x=" + fix + "/infer_mlp/x_" + mlp_set + ".npy", "--fetch-dir",
                       out + "/mlp_" + mlp_set});
  }
  // One trainer with control flow (while + while_grad keep per-iteration
  // state in members) twice at once, on two threads, each its own instance.
  const std::string rnn = fix + "/control_flow/rnn_while";
  auto train = [&](Model& m, const std::string& tag) {
    return drive(m, {"--data", "x=" + rnn + "/data/x.npy", "--data", "y=" + rnn + "/data/y.npy", "--params",
                     rnn + "/init.pdiparams", "--batch-size", "8", "--steps", "20", "--no-shuffle", "--log-every",
                     "20", "--losses-out", out + "/rnn_losses_" + tag + ".npy", "--save",
                     out + "/rnn_final_" + tag + ".pdiparams"});
  };
  auto a = make(test_models::rnn::model_info());
  auto b = make(test_models::rnn::model_info());
  int rc_a = 0, rc_b = 0;
  std::thread ta([&] { rc_a = train(*a, "thread_a"); });
  std::thread tb([&] { rc_b = train(*b, "thread_b"); });
  ta.join();
  tb.join();
  return rc | rc_a | rc_b;
}
