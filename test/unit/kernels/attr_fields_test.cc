// test/unit/kernels/attr_fields_test.cc - every member of every kernel attribute struct is in its fields() list.
//
// The compiler learns an op's attributes only from fields() (kernels/
// attr_fields.h): a member left out would never be set from a program and
// silently keep its default. Members are counted by brace-initialising the
// aggregate with ever more convertible-to-anything values.
#include <catch2/catch.hpp>

#include <cstddef>
#include <string>
#include <typeinfo>

#include "kernels/activation.h"
#include "kernels/compare.h"
#include "kernels/control.h"
#include "kernels/conv.h"
#include "kernels/elementwise.h"
#include "kernels/fill.h"
#include "kernels/loss.h"
#include "kernels/matmul.h"
#include "kernels/optimizer.h"
#include "kernels/reduce.h"
#include "kernels/tensor_manip.h"

namespace {

struct Any {
  template <class T>
  operator T() const;  // never called: only used in unevaluated brace-initialisations
};

template <class T, class... A>
constexpr std::size_t member_count() {
  if constexpr (requires { T{A{}..., Any{}}; }) return member_count<T, A..., Any>();
  else return sizeof...(A);
}

template <class T>
std::size_t listed_count() {
  std::size_t n = 0;
  T::fields([&](const char*, auto, bool = false) { ++n; });
  return n;
}

template <class... T>
void check_all() {
  (
      [] {
        INFO(typeid(T).name());
        CHECK(listed_count<T>() == member_count<T>());
      }(),
      ...);
}

// A struct whose list forgets a member: what the test above must catch.
struct IncompleteList {
  int a = 0;
  std::string b;
  template <class F>
  static void fields(F&& f) {
    f("a", &IncompleteList::a);
  }
};

}  // namespace

TEST_CASE("every kernel attribute struct lists all its members", "[attrs]") {
  namespace k = fluidc::kernels;
  check_all<k::ScaleAttrs, k::SoftmaxAttrs, k::CompareAttrs, k::IncrementAttrs, k::ElementwiseAttrs,
            k::FillConstantAttrs, k::FillAnyLikeAttrs, k::CastAttrs, k::UniformRandomAttrs, k::GaussianRandomAttrs,
            k::SoftmaxWithCrossEntropyAttrs, k::CrossEntropy2Attrs, k::MulAttrs, k::MatmulAttrs, k::MatmulV2Attrs,
            k::MomentumAttrs, k::AdamAttrs, k::ReduceAttrs, k::Reshape2Attrs, k::SliceAttrs, k::ConcatAttrs>();
}

TEST_CASE("the member count sees a member missing from a list", "[attrs]") {
  CHECK(member_count<IncompleteList>() == 2);
  CHECK(listed_count<IncompleteList>() == 1);
}

TEST_CASE("the conv family's attribute structs list all their members", "[attrs]") {
  check_all<fluidc::kernels::ConvAttrs, fluidc::kernels::ConvTransposeAttrs>();
}
