// test/unit/runtime/model_test.cc - the instance contract: bindings resolve per instance, op sites per thread.
#include <catch2/catch.hpp>

#include <memory>
#include <thread>

#include "runtime/model.h"

namespace {

using fluidc::rt::DType;
using fluidc::rt::Model;
using fluidc::rt::ModelInfo;
using fluidc::rt::OpSite;
using fluidc::rt::Shape;
using fluidc::rt::Tensor;
using fluidc::rt::VarBinding;

// What the emitter writes, by hand: two variables, one bound by name.
const int64_t kDims[] = {-1};
const VarBinding kFeeds[] = {{"x", 0, DType::kFP32, 1, kDims}};
const OpSite kSite{0, 1, "scale"};
const ModelInfo& doubler_info();  // not info(): inside the class that names Model::info()

class Doubler final : public Model {
 public:
  Doubler() : Model(doubler_info(), slots_) {}
  void run() override {
    fluidc::rt::g_current_op = &kSite;
    y_.resize(x_.shape(), DType::kFP32);
    for (int64_t i = 0; i < x_.numel(); ++i) y_.data<float>()[i] = 2 * x_.data<float>()[i];
  }
  void startup() override {}
  const Tensor& y() const { return y_; }

 private:
  Tensor x_, y_;
  Tensor* const slots_[1] = {&x_};
};

Model* create() { return new Doubler; }
const ModelInfo kInfo = {"doubler", "0", "test", false, kFeeds, 1, nullptr, 0, nullptr, 0, nullptr, 0,
                         nullptr, false, nullptr, 0, create};
const ModelInfo& doubler_info() { return kInfo; }

void feed(Model& m, float v) {
  Tensor& x = m.tensor(m.info().feeds[0]);
  x.resize(Shape{1}, DType::kFP32);
  x.data<float>()[0] = v;
}

}  // namespace

TEST_CASE("a binding resolves to each instance's own tensor", "[model]") {
  std::unique_ptr<Model> a(kInfo.create()), b(kInfo.create());
  REQUIRE(&a->tensor(kFeeds[0]) != &b->tensor(kFeeds[0]));
  feed(*a, 1.5f);
  feed(*b, -4.0f);
  a->run();
  b->run();
  REQUIRE(static_cast<Doubler&>(*a).y().data<float>()[0] == 3.0f);
  REQUIRE(static_cast<Doubler&>(*b).y().data<float>()[0] == -8.0f);
  REQUIRE(&a->info() == &kInfo);
}

TEST_CASE("the current op is per thread, so each thread reports its own error location", "[model]") {
  fluidc::rt::g_current_op = nullptr;
  const OpSite* seen_there = &kSite;
  std::thread t([&] {
    seen_there = fluidc::rt::g_current_op;  // a new thread starts with none
    std::unique_ptr<Model> m(kInfo.create());
    feed(*m, 1);
    m->run();
  });
  t.join();
  REQUIRE(seen_there == nullptr);
  REQUIRE(fluidc::rt::g_current_op == nullptr);  // the other thread's run left this thread's alone
}
