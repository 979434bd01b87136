// compiler/ops/attr_struct.h - an op's attribute list and parsed attributes, both derived from its kernel struct.
//
// A kernel attribute struct names its fields once (kernels/attr_fields.h).
// kernel_attrs<S>() turns that list into the OpDef's AttrDefs, so the
// verifier checks exactly the names the generated code assigns; and
// parse_attrs<S>(op) reads an OpDesc into S, so a shape rule sees the
// kernel's defaults for every attribute the program leaves out.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "compiler/ir/attrs.h"
#include "compiler/ops/op_def.h"

namespace fluidc::ops {

namespace attr_detail {

// The Paddle attribute type a struct field of type T is read from.
template <class T> struct AttrTypeOf;
template <> struct AttrTypeOf<int> { static constexpr pb::AttrType value = pb::INT; };
template <> struct AttrTypeOf<int64_t> { static constexpr pb::AttrType value = pb::LONG; };
template <> struct AttrTypeOf<float> { static constexpr pb::AttrType value = pb::FLOAT; };
template <> struct AttrTypeOf<double> { static constexpr pb::AttrType value = pb::FLOAT64; };
template <> struct AttrTypeOf<bool> { static constexpr pb::AttrType value = pb::BOOLEAN; };
template <> struct AttrTypeOf<std::string> { static constexpr pb::AttrType value = pb::STRING; };
template <> struct AttrTypeOf<std::vector<int>> { static constexpr pb::AttrType value = pb::INTS; };
template <> struct AttrTypeOf<std::vector<int64_t>> { static constexpr pb::AttrType value = pb::LONGS; };
template <> struct AttrTypeOf<std::vector<float>> { static constexpr pb::AttrType value = pb::FLOATS; };

inline void read(const pb::OpDesc& op, const std::string& n, int& v) { v = static_cast<int>(attr_int(op, n, v)); }
inline void read(const pb::OpDesc& op, const std::string& n, int64_t& v) { v = attr_int(op, n, v); }
inline void read(const pb::OpDesc& op, const std::string& n, float& v) { v = static_cast<float>(attr_float(op, n, v)); }
inline void read(const pb::OpDesc& op, const std::string& n, double& v) { v = attr_float(op, n, v); }
inline void read(const pb::OpDesc& op, const std::string& n, bool& v) { v = attr_bool(op, n, v); }
inline void read(const pb::OpDesc& op, const std::string& n, std::string& v) { v = attr_string(op, n, v); }
template <class T>
void read(const pb::OpDesc& op, const std::string& n, std::vector<T>& v) {
  v.clear();
  if constexpr (std::is_integral_v<T>)
    for (int64_t x : attr_ints(op, n)) v.push_back(static_cast<T>(x));
  else
    for (double x : attr_floats(op, n)) v.push_back(static_cast<T>(x));
}

}  // namespace attr_detail

/// The AttrDefs of kernel struct S, in field order (the order the generated
/// code assigns them), each copied to the kernel.
template <class S>
std::vector<AttrDef> kernel_attrs() {
  std::vector<AttrDef> defs;
  S::fields([&](const char* name, auto member, bool required = false) {
    using T = std::remove_cv_t<std::remove_reference_t<decltype(std::declval<S&>().*member)>>;
    defs.push_back({name, attr_detail::AttrTypeOf<T>::value, required});
  });
  return defs;
}

/// `op`'s attributes as the kernel will see them: the struct's defaults,
/// overwritten by each attribute the op carries. Assumes verified types.
template <class S>
S parse_attrs(const pb::OpDesc& op) {
  S s;
  S::fields([&](const char* name, auto member, bool = false) {
    if (find_attr(op, name)) attr_detail::read(op, name, s.*member);
  });
  return s;
}

}  // namespace fluidc::ops
