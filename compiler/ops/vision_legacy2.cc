// compiler/ops/vision_legacy2.cc - Fluid 1.x OCR / detection / speech ops: ctc_align, im2sequence, crop, crop_tensor, density_prior_box, row_conv, unique.
#include <fmt/format.h>

#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/vision_legacy2.h"

namespace fluidc::ops {
namespace {

using namespace kernels;

bool known_shape(ShapeCtx& c, const char* slot, TensorType& t, rt::Shape& s) {
  t = c.input(slot);
  return t.known && shape_rules::to_shape(c, t, s);
}

bool is_int(const TensorType& t) { return t.dtype == pb::VarType::INT32 || t.dtype == pb::VarType::INT64; }

// LoD form: [rows known at run time, 1]; padded form: Input's and InputLength's types.
void infer_ctc_align(ShapeCtx& c) {
  TensorType in;
  rt::Shape s;
  if (!known_shape(c, "Input", in, s)) return;
  if (!is_int(in)) return c.error(fmt::format("Input {} must be int32 or int64 tokens", in.str()));
  if (!c.has_input("InputLength")) {
    in.dims = {-1, 1};
    return c.set_output("Output", in);
  }
  if (s.rank != 2) return c.error(fmt::format("Input {} must be [batch, max_len] with InputLength", in.str()));
  const TensorType& len = c.input("InputLength");
  if (len.known && len.dtype != in.dtype)
    return c.error(fmt::format("InputLength {} must have Input {}'s dtype", len.str(), in.str()));
  c.set_output("Output", in);
  if (c.has_output("OutputLength")) c.set_output("OutputLength", TensorType{in.dtype, {s.d[0], 1}, true});
}

// [N * OH * OW, C * kh * kw]; with Y the rows depend on Y's values.
void infer_im2sequence(ShapeCtx& c) {
  TensorType x;
  rt::Shape s;
  if (!known_shape(c, "X", x, s)) return;
  const auto a = parse_attrs<Im2SequenceAttrs>(c.op());
  shapes::Im2SeqGeom g;
  if (std::string e = shapes::im2sequence_geom(s, a, g); !e.empty()) return c.error(e);
  const int64_t oh = g.grid(s.d[2], true), ow = g.grid(s.d[3], false);
  const bool rows_known = !c.has_input("Y") && s.d[0] >= 0 && oh >= 0 && ow >= 0;
  x.dims = {rows_known ? s.d[0] * oh * ow : -1, g.features(s.d[1])};
  c.set_output("Out", x);
}

// Y's dims, else the shape attribute (a -1 first dim is X's).
void infer_crop(ShapeCtx& c) {
  TensorType x;
  rt::Shape s;
  if (!known_shape(c, "X", x, s)) return;
  const auto a = parse_attrs<CropAttrs>(c.op());
  rt::Shape box = s;
  if (c.has_input("Y")) {
    TensorType y;
    if (!known_shape(c, "Y", y, box)) return;
  } else {
    if (static_cast<int>(a.shape.size()) != s.rank)
      return c.error(fmt::format("shape has {} values, X {} has rank {}", a.shape.size(), x.str(), s.rank));
    for (int i = 0; i < s.rank; ++i) box.d[i] = i == 0 && a.shape[i] == -1 ? s.d[0] : a.shape[i];
  }
  if (c.has_input("Offsets") && !a.offsets.empty())
    return c.error("give offsets as the Offsets input or the attribute, not both");
  if (!c.has_input("Offsets")) {
    if (std::string e = shapes::crop_box(s, {a.offsets.begin(), a.offsets.end()}, box); !e.empty()) return c.error(e);
  }
  x.dims = shape_rules::from_shape(box);
  c.set_output("Out", x);
}

// The attribute shape when no tensor gives it; a -1 needs the offsets' values.
void infer_crop_tensor(ShapeCtx& c) {
  TensorType x;
  rt::Shape s;
  if (!known_shape(c, "X", x, s)) return;
  const auto a = parse_attrs<CropTensorAttrs>(c.op());
  const bool shape_given = c.has_input("Shape") || c.has_input("ShapeTensor");
  const bool offsets_given = c.has_input("Offsets") || c.has_input("OffsetsTensor");
  rt::Shape box = s;
  if (shape_given) {
    for (int i = 0; i < s.rank; ++i) box.d[i] = -1;
  } else {
    std::vector<int64_t> off(a.offsets.begin(), a.offsets.end());
    if (offsets_given) off.clear();  // run-time values: a -1 dim stays unknown
    if (std::string e = shapes::crop_tensor_shape(s, {a.shape.begin(), a.shape.end()}, off, box); !e.empty())
      return c.error(e);
    if (!offsets_given)
      if (std::string e = shapes::crop_box(s, off, box); !e.empty()) return c.error(e);
  }
  x.dims = shape_rules::from_shape(box);
  c.set_output("Out", x);
}

void infer_density_prior_box(ShapeCtx& c) {
  TensorType in, img;
  rt::Shape is, ms, bs, vs;
  if (!known_shape(c, "Input", in, is) || !known_shape(c, "Image", img, ms)) return;
  if (std::string e = shapes::density_prior_shape(is, ms, parse_attrs<DensityPriorBoxAttrs>(c.op()), bs, vs);
      !e.empty())
    return c.error(e);
  in.dims = shape_rules::from_shape(bs);
  c.set_output("Boxes", in);
  in.dims = shape_rules::from_shape(vs);
  c.set_output("Variances", in);
}

void infer_row_conv(ShapeCtx& c) {
  TensorType x, f;
  rt::Shape xs, fs;
  if (!known_shape(c, "X", x, xs) || !known_shape(c, "Filter", f, fs)) return;
  if (std::string e = shapes::row_conv_check(xs, fs); !e.empty()) return c.error(e);
  c.set_output("Out", x);
}

// Data-dependent lengths: Out [-1] (or X's dims with the axis dim -1), the
// index outputs [-1] in `dtype`.
void infer_unique(ShapeCtx& c) {
  TensorType x;
  rt::Shape s;
  if (!known_shape(c, "X", x, s)) return;
  const auto a = parse_attrs<UniqueAttrs>(c.op());
  if (a.dtype != 2 && a.dtype != 3) return c.error(fmt::format("dtype {} must be 2 (int32) or 3 (int64)", a.dtype));
  if (!a.is_sorted && s.rank > 1)
    return c.error(fmt::format("X {} must be 1-D without is_sorted (Fluid 1.x's unique)", x.str()));
  TensorType out = x;
  if (a.is_sorted && !a.axis.empty()) {
    const int axis = a.axis[0] < 0 ? a.axis[0] + s.rank : a.axis[0];
    if (a.axis.size() != 1 || axis < 0 || axis >= s.rank)
      return c.error(fmt::format("axis must be one axis of X {}", x.str()));
    out.dims[axis] = -1;
  } else {
    out.dims = {-1};
  }
  c.set_output("Out", out);
  const TensorType ints{a.dtype == 2 ? pb::VarType::INT32 : pb::VarType::INT64, {-1}, true};
  for (const char* o : {"Indices", "Index", "Counts"})
    if (c.has_output(o)) c.set_output(o, ints);
}

template <class S>
OpDef def(std::string type, const char* attrs_struct, std::vector<SlotDef> in, std::vector<SlotDef> out,
          std::string grad, InferShapeFn infer) {
  return {.type = std::move(type), .family = "vision_legacy2", .inputs = std::move(in), .outputs = std::move(out),
          .attrs = kernel_attrs<S>(), .attrs_struct = attrs_struct, .grad = std::move(grad), .infer_shape = infer};
}

}  // namespace

void add_vision_legacy2_ops(std::vector<OpDef>& t) {
  // Slots in kernel order; gradient slots as Paddle 2.6.2's backward writes them.
  t.push_back(def<CtcAlignAttrs>("ctc_align", "CtcAlignAttrs", {{"Input"}, {"InputLength", true}},
                                 {{"Output"}, {"OutputLength", true}}, "", infer_ctc_align));
  t.push_back(def<Im2SequenceAttrs>("im2sequence", "Im2SequenceAttrs", {{"X"}, {"Y", true}}, {{"Out"}},
                                    "im2sequence_grad", infer_im2sequence));
  t.push_back(def<Im2SequenceAttrs>("im2sequence_grad", "Im2SequenceAttrs", {{"X"}, {"Out@GRAD"}},
                                    {{"X@GRAD", true}}, "", shape_rules::grads_like_inputs));
  t.push_back(def<CropAttrs>("crop", "CropAttrs", {{"X"}, {"Y", true}, {"Offsets", true}}, {{"Out"}}, "crop_grad",
                             infer_crop));
  t.push_back(def<CropAttrs>("crop_grad", "CropAttrs", {{"X"}, {"Offsets", true}, {"Out@GRAD"}}, {{"X@GRAD", true}},
                             "", shape_rules::grads_like_inputs));
  t.push_back(def<CropTensorAttrs>("crop_tensor", "CropTensorAttrs",
                                   {{"X"},
                                    {"Shape", true},
                                    {.name = "ShapeTensor", .optional = true, .duplicable = true},
                                    {"Offsets", true},
                                    {.name = "OffsetsTensor", .optional = true, .duplicable = true}},
                                   {{"Out"}}, "crop_tensor_grad", infer_crop_tensor));
  t.push_back(def<CropTensorAttrs>(
      "crop_tensor_grad", "CropTensorAttrs",
      {{"X"}, {"Offsets", true}, {.name = "OffsetsTensor", .optional = true, .duplicable = true}, {"Out@GRAD"}},
      {{"X@GRAD", true}}, "", shape_rules::grads_like_inputs));
  t.push_back(def<DensityPriorBoxAttrs>("density_prior_box", "DensityPriorBoxAttrs", {{"Input"}, {"Image"}},
                                        {{"Boxes"}, {"Variances"}}, "", infer_density_prior_box));
  t.push_back({.type = "row_conv", .family = "vision_legacy2", .inputs = {{"X"}, {"Filter"}}, .outputs = {{"Out"}},
               .grad = "row_conv_grad", .infer_shape = infer_row_conv, .share_lod = "X"});
  t.push_back({.type = "row_conv_grad", .family = "vision_legacy2", .inputs = {{"X"}, {"Filter"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}, {"Filter@GRAD", true}}, .infer_shape = shape_rules::grads_like_inputs,
               .share_lod = kShareLodNone});  // Paddle's row_conv_grad gives X@GRAD no LoD
  t.push_back(def<UniqueAttrs>("unique", "UniqueAttrs", {{"X"}},
                               {{"Out"}, {"Indices", true}, {"Index"}, {"Counts", true}}, "", infer_unique));
}

}  // namespace fluidc::ops
