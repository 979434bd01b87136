// test/unit/kernels/rnn_test.cc - the fused rnn op: hand-computed cells, masking, direction identities, gradients.
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>

#include "kernels/rnn.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;

namespace {

double sig(double v) { return 1.0 / (1.0 + std::exp(-v)); }

int gates_of(const std::string& mode) { return mode == "LSTM" ? 4 : mode == "GRU" ? 3 : 1; }

// Inputs of one rnn call with random values, in the kernel's layout.
struct Rnn {
  kernels::RnnAttrs a;
  int64_t T, B;
  Tensor x, lens;
  std::vector<Tensor> pre, w;
  bool use_lens = false;

  Rnn(const std::string& mode, int64_t T_, int64_t B_, int I, int H, int L, bool bidirec, DType dt, uint32_t seed)
      : T(T_), B(B_) {
    a.mode = mode;
    a.input_size = I;
    a.hidden_size = H;
    a.num_layers = L;
    a.is_bidirec = bidirec;
    const int64_t D = bidirec ? 2 : 1, G = gates_of(mode);
    std::mt19937 rng(seed);
    x = random(Shape{T, B, I}, dt, rng);
    for (int i = 0; i < (mode == "LSTM" ? 2 : 1); ++i) pre.push_back(random(Shape{L * D, B, H}, dt, rng));
    std::vector<Tensor> bs;
    for (int l = 0; l < L; ++l)
      for (int d = 0; d < D; ++d) {
        w.push_back(random(Shape{G * H, l == 0 ? I : D * H}, dt, rng, -0.6, 0.6));
        w.push_back(random(Shape{G * H, H}, dt, rng, -0.6, 0.6));
        bs.push_back(random(Shape{G * H}, dt, rng, -0.6, 0.6));
        bs.push_back(random(Shape{G * H}, dt, rng, -0.6, 0.6));
      }
    for (auto& b : bs) w.push_back(std::move(b));
  }
  std::vector<const Tensor*> ptrs(const std::vector<Tensor>& v) const {
    std::vector<const Tensor*> p;
    for (auto& t : v) p.push_back(&t);
    return p;
  }
  void forward(Tensor& out, std::vector<Tensor>& state, Tensor* reserve) const {
    state.resize(pre.size());
    std::vector<Tensor*> sp;
    for (auto& s : state) sp.push_back(&s);
    auto pp = ptrs(pre), wp = ptrs(w);
    Tensor drop;
    kernels::rnn(x, pp.data(), static_cast<int>(pp.size()), wp.data(), static_cast<int>(wp.size()),
                 use_lens ? &lens : nullptr, out, sp.data(), static_cast<int>(sp.size()), reserve, &drop, a);
  }
  // Out and every State flattened into one tensor, for gradcheck.
  void forward_flat(Tensor& flat) const {
    Tensor out, reserve;
    std::vector<Tensor> state;
    forward(out, state, &reserve);
    int64_t n = out.numel();
    for (auto& s : state) n += s.numel();
    flat.resize(Shape{n}, x.dtype());
    int64_t k = 0;
    for (int64_t i = 0; i < out.numel(); ++i) set(flat, k++, get(out, i));
    for (auto& s : state)
      for (int64_t i = 0; i < s.numel(); ++i) set(flat, k++, get(s, i));
  }
  // Gradients of (x, pre states..., weights...) for a flat output gradient.
  void backward_flat(const Tensor& dflat, std::vector<Tensor*>& g) const {
    Tensor out, reserve;
    std::vector<Tensor> state;
    forward(out, state, &reserve);
    Tensor dout;
    dout.resize(out.shape(), out.dtype());
    std::vector<Tensor> dstate(state.size());
    int64_t k = 0;
    for (int64_t i = 0; i < out.numel(); ++i) set(dout, i, get(dflat, k++));
    for (size_t s = 0; s < state.size(); ++s) {
      dstate[s].resize(state[s].shape(), out.dtype());
      for (int64_t i = 0; i < state[s].numel(); ++i) set(dstate[s], i, get(dflat, k++));
    }
    auto pp = ptrs(pre), wp = ptrs(w), sgp = ptrs(dstate);
    std::vector<Tensor*> dpre(g.begin() + 1, g.begin() + 1 + static_cast<long>(pre.size()));
    std::vector<Tensor*> dw(g.begin() + 1 + static_cast<long>(pre.size()), g.end());
    kernels::rnn_grad(x, pp.data(), static_cast<int>(pp.size()), wp.data(), static_cast<int>(wp.size()),
                      use_lens ? &lens : nullptr, out, reserve, nullptr, &dout, sgp.data(),
                      static_cast<int>(sgp.size()), g[0], dpre.data(), static_cast<int>(dpre.size()), dw.data(),
                      static_cast<int>(dw.size()), a);
  }
  std::vector<Tensor*> wrt() {
    std::vector<Tensor*> v{&x};
    for (auto& t : pre) v.push_back(&t);
    for (auto& t : w) v.push_back(&t);
    return v;
  }
};

}  // namespace

TEST_CASE("rnn LSTM one step matches the cell formulas", "[rnn]") {
  // H = 1, I = 1: gates i, f, c~, o from w_ih * x + w_hh * h0 + b_ih + b_hh.
  Rnn r("LSTM", 1, 1, 1, 1, 1, false, DType::kFP32, 1);
  const double x = get(r.x, 0), h0 = get(r.pre[0], 0), c0 = get(r.pre[1], 0);
  double pre[4];
  for (int g = 0; g < 4; ++g)
    pre[g] = get(r.w[0], g) * x + get(r.w[1], g) * h0 + get(r.w[2], g) + get(r.w[3], g);
  const double c = sig(pre[1]) * c0 + sig(pre[0]) * std::tanh(pre[2]);
  const double h = sig(pre[3]) * std::tanh(c);
  Tensor out;
  std::vector<Tensor> st;
  r.forward(out, st, nullptr);
  REQUIRE(out.shape() == Shape{1, 1, 1});
  CHECK(get(out, 0) == Approx(h).epsilon(1e-5));
  CHECK(get(st[0], 0) == Approx(h).epsilon(1e-5));
  CHECK(get(st[1], 0) == Approx(c).epsilon(1e-5));
}

TEST_CASE("rnn GRU one step applies the reset gate to the hidden projection", "[rnn]") {
  Rnn r("GRU", 1, 1, 1, 1, 1, false, DType::kFP64, 2);
  const double x = get(r.x, 0), h0 = get(r.pre[0], 0);
  auto xp = [&](int g) { return get(r.w[0], g) * x + get(r.w[2], g); };
  auto hp = [&](int g) { return get(r.w[1], g) * h0 + get(r.w[3], g); };
  const double rg = sig(xp(0) + hp(0)), z = sig(xp(1) + hp(1));
  const double n = std::tanh(xp(2) + rg * hp(2));
  const double h = z * h0 + (1 - z) * n;
  Tensor out;
  std::vector<Tensor> st;
  r.forward(out, st, nullptr);
  CHECK(get(out, 0) == Approx(h).epsilon(1e-12));
  CHECK(get(st[0], 0) == Approx(h).epsilon(1e-12));
}

TEST_CASE("rnn backward direction is the forward cell run on the reversed sequence", "[rnn]") {
  Rnn bi("GRU", 4, 2, 3, 3, 1, true, DType::kFP64, 3);
  Rnn fw("GRU", 4, 2, 3, 3, 1, false, DType::kFP64, 3);
  // fw: the reversed input, bi's backward-direction weights and initial state.
  for (int64_t t = 0; t < 4; ++t)
    for (int64_t i = 0; i < 6; ++i) set(fw.x, t * 6 + i, get(bi.x, (3 - t) * 6 + i));
  for (int64_t i = 0; i < 6; ++i) set(fw.pre[0], i, get(bi.pre[0], 6 + i));
  const int from[4] = {2, 3, 6, 7};  // bi's WeightList: w_ih0 w_hh0 w_ih1 w_hh1 b_ih0 b_hh0 b_ih1 b_hh1
  for (int k = 0; k < 4; ++k) fw.w[k].copy_from(bi.w[from[k]]);
  Tensor ob, of;
  std::vector<Tensor> sb, sf;
  bi.forward(ob, sb, nullptr);
  fw.forward(of, sf, nullptr);
  for (int64_t t = 0; t < 4; ++t)
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t j = 0; j < 3; ++j)
        CHECK(get(ob, (t * 2 + b) * 6 + 3 + j) == Approx(get(of, ((3 - t) * 2 + b) * 3 + j)).epsilon(1e-12));
  for (int64_t i = 0; i < 6; ++i) CHECK(get(sb[0], 6 + i) == Approx(get(sf[0], i)).epsilon(1e-12));
}

TEST_CASE("rnn SequenceLength: padded steps output zeros and keep the state", "[rnn]") {
  Rnn r("LSTM", 5, 2, 3, 4, 1, true, DType::kFP64, 4);
  r.lens = i64(Shape{2}, {5, 2});
  r.use_lens = true;
  Tensor out;
  std::vector<Tensor> st;
  r.forward(out, st, nullptr);
  // Sequence 1 alone, its first two steps only, gives the same results.
  Rnn s("LSTM", 2, 1, 3, 4, 1, true, DType::kFP64, 4);
  for (int64_t t = 0; t < 2; ++t)
    for (int64_t i = 0; i < 3; ++i) set(s.x, t * 3 + i, get(r.x, (t * 2 + 1) * 3 + i));
  for (size_t k = 0; k < 2; ++k)
    for (int64_t d = 0; d < 2; ++d)
      for (int64_t j = 0; j < 4; ++j) set(s.pre[k], d * 4 + j, get(r.pre[k], (d * 2 + 1) * 4 + j));
  for (size_t k = 0; k < r.w.size(); ++k) s.w[k].copy_from(r.w[k]);
  Tensor os;
  std::vector<Tensor> ss;
  s.forward(os, ss, nullptr);
  for (int64_t t = 0; t < 5; ++t)
    for (int64_t j = 0; j < 8; ++j) {
      const double got = get(out, (t * 2 + 1) * 8 + j);
      CHECK(got == Approx(t < 2 ? get(os, t * 8 + j) : 0.0).epsilon(1e-12).margin(1e-15));
    }
  for (size_t k = 0; k < 2; ++k)
    for (int64_t d = 0; d < 2; ++d)
      for (int64_t j = 0; j < 4; ++j)
        CHECK(get(st[k], (d * 2 + 1) * 4 + j) == Approx(get(ss[k], d * 4 + j)).epsilon(1e-12));
}

TEST_CASE("rnn rejects bad weights and training-mode dropout", "[rnn]") {
  Rnn r("LSTM", 3, 2, 3, 4, 2, false, DType::kFP32, 5);
  Tensor out;
  std::vector<Tensor> st;
  r.w.pop_back();
  CHECK_THROWS(r.forward(out, st, nullptr));
  Rnn d("LSTM", 3, 2, 3, 4, 2, false, DType::kFP32, 5);
  d.a.dropout_prob = 0.5f;
  CHECK_THROWS(d.forward(out, st, nullptr));
  d.a.is_test = true;
  CHECK_NOTHROW(d.forward(out, st, nullptr));
  Rnn m("LSTM", 3, 2, 3, 4, 1, false, DType::kFP32, 5);
  m.a.mode = "SRU";
  CHECK_THROWS(m.forward(out, st, nullptr));
}

TEST_CASE("rnn_grad matches finite differences", "[rnn][grad][gradcheck]") {
  for (DType dt : {DType::kFP32, DType::kFP64})
    for (const char* mode : {"LSTM", "GRU", "RNN_TANH", "RNN_RELU"})
      for (bool bidirec : {false, true}) {
        // fp32's step (1e-2) crosses relu's kink at some pre-activations;
        // fp64's (1e-6) does not.
        if (dt == DType::kFP32 && std::string(mode) == "RNN_RELU") continue;
        INFO(rt::dtype_name(dt) << " " << mode << " bidirec " << bidirec);
        Rnn r(mode, 3, 2, 3, 2, 2, bidirec, dt, 6);
        CHECK_GRADCHECK_OP("rnn", r.wrt(), [&](Tensor& y) { r.forward_flat(y); },
                           [&](const Tensor& dy, std::vector<Tensor*>& g) { r.backward_flat(dy, g); });
        r.lens = i64(Shape{2}, {3, 1});
        r.use_lens = true;
        CHECK_GRADCHECK_OP("rnn", r.wrt(), [&](Tensor& y) { r.forward_flat(y); },
                           [&](const Tensor& dy, std::vector<Tensor*>& g) { r.backward_flat(dy, g); });
      }
}

TEST_CASE("coalesce_tensor joins its inputs into one flat tensor", "[rnn][coalesce_tensor]") {
  Tensor a = f32(Shape{2, 2}, {1, 2, 3, 4}), b = f32(Shape{3}, {5, 6, 7});
  const Tensor* in[2] = {&a, &b};
  Tensor* out[2] = {&a, &b};  // Paddle's startup names each Output like its Input
  Tensor fused;
  kernels::CoalesceTensorAttrs at;
  at.use_align = false;
  at.copy_data = true;
  kernels::coalesce_tensor(in, 2, out, 2, fused, at);
  REQUIRE(fused.shape() == Shape{7});
  CHECK(values(fused) == std::vector<double>{1, 2, 3, 4, 5, 6, 7});
  CHECK(values(a) == std::vector<double>{1, 2, 3, 4});
  at.copy_data = false;
  at.set_constant = true;
  at.constant = 0.5f;
  kernels::coalesce_tensor(in, 2, out, 2, fused, at);
  CHECK(values(fused) == std::vector<double>(7, 0.5));
  CHECK(values(b) == std::vector<double>(3, 0.5));
  at.use_align = true;
  CHECK_THROWS(kernels::coalesce_tensor(in, 2, out, 2, fused, at));
}
