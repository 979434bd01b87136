// kernels/attr_fields.h - the convention by which a kernel attribute struct lists its fields for the compiler.
//
// Every `<Op>Attrs` struct in kernels/*.h names its fields once, with
// Paddle's attribute names:
//
//   template <class F> static void fields(F&& f) {
//     f("dim", &ReduceAttrs::dim);
//     f("out_dtype", &CastAttrs::out_dtype, kRequiredAttr);
//   }
//
// The compiler derives an op's attribute list (names, types, required) from
// it and parses an OpDesc into the struct itself (compiler/ops/attr_struct.h),
// so the defaults a program sees at compile time are the struct's member
// initialisers the kernel sees at run time. Kept free of compiler includes:
// generated programs include the kernel headers.
#pragma once

namespace fluidc::kernels {

/// Third argument of a field entry: a program without this attribute is
/// rejected by the verifier (the struct's default would be meaningless).
constexpr bool kRequiredAttr = true;

}  // namespace fluidc::kernels
