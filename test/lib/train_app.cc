// test/lib/train_app.cc - a trainer library (`fluidc build --emit lib` of a training program) driven through its header.
//
// usage: train_app FIXTURE_DIR BINARY_LOSSES.npy OUT_DIR
// Trains 20 steps from the fixture's initial weights on its data (batch 20, rows in order, as the
// binary trainer with --no-shuffle does), checks every loss against the binary trainer's and
// Paddle's, saves OUT_DIR/final.pdiparams (the script compares it with the binary's), then checks
// that a second instance loading that file steps exactly like the first, and the learning rate.
#include <cmath>
#include <cstdio>
#include <string>

#include "fit_train.h"
#include "npy_lite.h"

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "FAIL: %s\n", what.c_str());
    ++failures;
  }
}

using Trainer = train::FitALine;
static_assert(Trainer::kIsTrainer && Trainer::kNumInputs == 2);

// Rows [begin, begin + n) of a row-major array.
const float* rows(const npy_lite::Array& a, int64_t begin) { return a.data.data() + begin * a.row_size(); }

double step(Trainer& t, const npy_lite::Array& x, const npy_lite::Array& y, int64_t begin, int64_t n) {
  return t.step(rows(x, begin), {n, 13}, rows(y, begin), {n, 1});
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s FIXTURE_DIR BINARY_LOSSES.npy OUT_DIR\n", argv[0]);
    return 2;
  }
  const std::string fix = argv[1], out = argv[3];
  const auto x = npy_lite::load(fix + "/data/x.npy"), y = npy_lite::load(fix + "/data/y.npy");
  const auto binary = npy_lite::load(argv[2]), paddle = npy_lite::load(fix + "/losses.npy");
  const int64_t batch = 20, steps = 20;

  Trainer a;  // its startup program ran; the fixture's initial weights replace that
  a.load(fix + "/init.pdiparams");
  for (int64_t s = 0; s < steps; ++s) {
    const double loss = step(a, x, y, s * batch, batch);
    // Same generated code, same kernels: the binary trainer's losses to the bit.
    expect(static_cast<float>(loss) == binary.data[s],
           "step " + std::to_string(s + 1) + ": loss " + std::to_string(loss) + ", binary trainer " +
               std::to_string(binary.data[s]));
    expect(std::fabs(loss - paddle.data[s]) <= 1e-4 * std::fabs(paddle.data[s]), "step " + std::to_string(s + 1) + " against Paddle");
  }
  a.save(out + "/final.pdiparams");

  // Round trip: a fresh instance loading the checkpoint takes the same next steps.
  Trainer b;
  b.load(out + "/final.pdiparams");
  for (int64_t s = 0; s < 3; ++s) {
    const double la = step(a, x, y, s * batch, batch), lb = step(b, x, y, s * batch, batch);
    expect(la == lb, "after load, step " + std::to_string(s + 1) + ": " + std::to_string(la) + " vs " + std::to_string(lb));
  }

  // The learning rate: the program's, and with 0 a step changes nothing.
  expect(std::fabs(a.learning_rate() - 0.01f) < 1e-7f, "learning rate " + std::to_string(a.learning_rate()));
  a.set_learning_rate(0.0f);
  const double l1 = step(a, x, y, 0, batch), l2 = step(a, x, y, 0, batch);
  expect(l1 == l2, "lr 0: " + std::to_string(l1) + " then " + std::to_string(l2));
  b.set_learning_rate(0.05f);
  const double m1 = step(b, x, y, 0, batch), m2 = step(b, x, y, 0, batch);
  expect(m2 < m1, "lr 0.05 lowers the loss on the same batch");

  // A bad batch throws, and training goes on.
  bool threw = false;
  try {
    b.step(rows(x, 0), {batch, 12}, rows(y, 0), {batch, 1});
  } catch (const fluidc::Error& e) {
    threw = std::string(e.what()).find("'x'") != std::string::npos;
  }
  expect(threw, "a batch of 12 columns throws fluidc::Error naming x");
  expect(std::isfinite(step(b, x, y, 0, batch)), "a step after the error");
  std::printf("train: %s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
