// test/unit/runtime/tensor_record_test.cc - Paddle tensor records: layout, round trips, Paddle's own files.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "runtime/atomic_file.h"
#include "runtime/error.h"
#include "runtime/tensor_record.h"
#include "test_util.h"

using namespace fluidc::rt;
using namespace fluidc::rt::test;
using Catch::Matchers::Contains;

namespace {

/// A record built from the layout, field by field, with `desc` as the
/// TensorDesc bytes.
std::string record(const std::string& desc, const std::string& data, uint32_t version = 0,
                   uint32_t tensor_version = 0) {
  return le<uint32_t>(version) + le<uint64_t>(0) + le<uint32_t>(tensor_version) +
         le<int32_t>(static_cast<int32_t>(desc.size())) + desc + data;
}

std::string floats(std::initializer_list<float> v) {
  std::string s;
  for (float f : v) s += le(f);
  return s;
}

std::string to_bytes(const Tensor& t, const Lod* lod = nullptr) {
  std::ostringstream os;
  write_tensor_record(os, t, lod);
  return os.str();
}

std::string error_of(const std::string& bytes, const std::string& where = "w.pdiparams") {
  std::istringstream in(bytes);
  Tensor t;
  try {
    read_tensor_record(in, t, where);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

/// A stream that cannot seek or tell its size, like a pipe.
class PipeBuf : public std::streambuf {
 public:
  explicit PipeBuf(std::string s) : s_(std::move(s)) { setg(s_.data(), s_.data(), s_.data() + s_.size()); }

 private:
  std::string s_;
};

Tensor make(const Shape& shape, DType dt, unsigned seed) {
  Tensor t;
  t.resize(shape, dt);
  fill_pattern(t, seed);
  return t;
}

}  // namespace

TEST_CASE("tensor record bytes match the layout built by hand", "[tensor_record]") {
  Tensor t;
  t.resize({2, 3}, DType::kFP32);
  for (int i = 0; i < 6; ++i) t.data<float>()[i] = static_cast<float>(i + 1);
  const std::string want = record("\x08\x05\x10\x02\x10\x03", floats({1, 2, 3, 4, 5, 6}));
  CHECK(to_bytes(t) == want);

  Tensor back;
  std::istringstream in(want);
  read_tensor_record(in, back, "hand");
  CHECK(same_bytes(back, t));
  CHECK(in.peek() == std::char_traits<char>::eof());

  // Multi-byte varints: dtype int64 (3), dims 300 and 0.
  Tensor v;
  v.resize({300, 0}, DType::kInt64);
  CHECK(to_bytes(v) == record(std::string("\x08\x03\x10\xac\x02\x10\x00", 7), ""));
  // Rank 0: no dims at all.
  Tensor s;
  s.resize({}, DType::kFP64);
  s.data<double>()[0] = -1.0;
  CHECK(to_bytes(s) == record("\x08\x06", le(-1.0)));
}

TEST_CASE("tensor record round trip: every dtype, ranks 0 to 4, and LoD", "[tensor_record]") {
  const Shape shapes[] = {{}, {7}, {3, 2}, {2, 3, 4}, {1, 2, 3, 2}, {0, 5}};
  unsigned seed = 0;
  for (DType dt : kAllDTypes)
    for (const Shape& shape : shapes) {
      INFO(dtype_name(dt) << " " << shape.str());
      Tensor t = make(shape, dt, ++seed);
      std::istringstream in(to_bytes(t));
      Tensor back;
      read_tensor_record(in, back, "rt");
      CHECK(same_bytes(back, t));
    }

  Tensor t = make({5, 2}, DType::kFP32, 9);
  const Lod lod = {{0, 2, 5}, {0, 1, 2, 3, 4, 5}};
  std::string bytes = to_bytes(t, &lod);
  // uint64 level count, then per level a byte size and uint64 offsets.
  CHECK(bytes.substr(4, 8) == le<uint64_t>(2));
  CHECK(bytes.substr(12, 8) == le<uint64_t>(24));
  CHECK(bytes.substr(20, 8) == le<uint64_t>(0));
  CHECK(bytes.substr(28, 8) == le<uint64_t>(2));
  std::istringstream in(bytes);
  Tensor back;
  Lod got;
  read_tensor_record(in, back, "lod", &got);
  CHECK(got == lod);
  CHECK(same_bytes(back, t));
  CHECK(back.lod() == nullptr);  // asked for separately: the tensor stays dense
  std::istringstream again(bytes);
  read_tensor_record(again, back, "lod");  // otherwise the tensor carries it, and writes it back
  CHECK(same_bytes(back, t));
  REQUIRE(back.lod());
  CHECK(*back.lod() == lod);
  CHECK(to_bytes(back) == bytes);
  // Offsets that do not end at the row count are refused, naming the record.
  const Lod bad = {{0, 2, 4}};
  std::istringstream wrong(to_bytes(t, &bad));
  CHECK_THROWS_WITH(read_tensor_record(wrong, back, "w.pdiparams"),
                    Contains("w.pdiparams: LoD level 0 ends at 4, but the tensor has 5 rows"));
}

TEST_CASE("tensor record reader accepts packed dims and skips unknown fields", "[tensor_record]") {
  Tensor t;
  std::istringstream packed(record(std::string("\x08\x05\x12\x02\x02\x03", 6), floats({1, 2, 3, 4, 5, 6})));
  read_tensor_record(packed, t, "packed");
  CHECK(t.shape() == Shape{2, 3});
  CHECK(t.data<float>()[5] == 6);

  // Unknown fields of every wire type, before and after the known ones.
  std::string desc = std::string("\x18\x07", 2) + "\x22\x03" "abc" + "\x10\x02" + "\x2d" + le<uint32_t>(1) +
                     "\x08\x02" + "\x31" + le<uint64_t>(2);
  std::istringstream unknown(record(desc, le<int32_t>(7) + le<int32_t>(8)));
  read_tensor_record(unknown, t, "unknown");
  CHECK(t.shape() == Shape{2});
  CHECK(t.dtype() == DType::kInt32);
  CHECK(t.data<int32_t>()[1] == 8);
}

TEST_CASE("tensor record errors name the place and the problem", "[tensor_record]") {
  const std::string desc("\x08\x05\x10\x02\x10\x03", 6);
  const std::string data = floats({1, 2, 3, 4, 5, 6});
  const std::string where = "w.pdiparams, record 2 of 3 (variable 'fc_0.w_0')";

  CHECK(error_of(record(desc, data).substr(0, 40), where) ==
        where + ": truncated: the data of shape [2, 3] float32 needs 24 bytes but only 14 remain");
  CHECK(error_of(record(desc, data).substr(0, 2)) ==
        "w.pdiparams: truncated: the version field needs 4 bytes but only 2 remain");
  CHECK(error_of(record(desc, data).substr(0, 24)) ==
        "w.pdiparams: truncated: the TensorDesc needs 6 bytes but only 4 remain");
  CHECK(error_of("") == "w.pdiparams: truncated: the version field needs 4 bytes but only 0 remain");
  CHECK(error_of(record(desc, data, 1)) == "w.pdiparams: unsupported tensor record version 1 (expected 0)");
  CHECK(error_of(record(desc, data, 0, 2)) == "w.pdiparams: unsupported tensor version 2 (expected 0)");
  CHECK_THAT(error_of(std::string("\x80\x04\x95\x10\x00\x00\x00\x00", 8)),
             Contains("w.pdiparams: not a tensor record: this looks like a Python pickle"));

  // Negative dim: -1 as a 10-byte varint.
  std::string neg = std::string("\x08\x05\x10", 3) + std::string(9, '\xff') + "\x01";
  CHECK(error_of(record(neg, "")) == "w.pdiparams: negative dimension -1 at index 0 in the TensorDesc");
  CHECK_THAT(error_of(record("\x08\x16\x10\x02", "xxxx")),
             Contains("w.pdiparams: unsupported data type code 22 (BF16)"));
  CHECK_THAT(error_of(record("\x08\x07\x10\x02", "xxxx")),
             Contains("unsupported data type code 7 (not an element type)"));
  CHECK(error_of(record("\x10\x02", "")) == "w.pdiparams: malformed TensorDesc: it has no data_type (field 1)");
  CHECK_THAT(error_of(record("\x08\x05\x10", "")), Contains("malformed TensorDesc: a varint runs past"));
  CHECK_THAT(error_of(record("\x08\x05\x12\x05\x02", "")), Contains("packed dims run past the end"));
  CHECK_THAT(error_of(record("\x08\x05\x0b", "")), Contains("wire type 3"));
  std::string rank10 = "\x08\x05";
  for (int i = 0; i < 10; ++i) rank10 += "\x10\x01";
  CHECK_THAT(error_of(record(rank10, data)), Contains("more than 9 dims"));

  std::string bad_size = le<uint32_t>(0) + le<uint64_t>(0) + le<uint32_t>(0) + le<int32_t>(-5);
  CHECK_THAT(error_of(bad_size), Contains("w.pdiparams: implausible TensorDesc size -5"));
  std::string many_levels = le<uint32_t>(0) + le<uint64_t>(1000000);
  CHECK_THAT(error_of(many_levels), Contains("implausible lod_level 1000000"));
  std::string odd_level = le<uint32_t>(0) + le<uint64_t>(1) + le<uint64_t>(12) + std::string(12, '\0');
  CHECK_THAT(error_of(odd_level), Contains("LoD level 0 has 12 bytes, not a multiple of 8"));
  std::string huge_level = le<uint32_t>(0) + le<uint64_t>(1) + le<uint64_t>(uint64_t{1} << 60);
  CHECK_THAT(error_of(huge_level), Contains("truncated: LoD level 0 needs 1152921504606846976 bytes"));
  // A huge shape in a short file is caught before any allocation.
  CHECK(error_of(record("\x08\x05\x10\x80\x80\x40\x10\x80\x80\x40", "")) ==
        "w.pdiparams: truncated: the data of shape [1048576, 1048576] float32 needs 4398046511104 "
        "bytes but only 0 remain");
  CHECK(error_of(record("\x08\x06\x10\x80\x80\x80\x80\x80\x01\x10\x80\x80\x80\x80\x10", "")) ==
        "w.pdiparams: shape [34359738368, 4294967296] is too large");
}

TEST_CASE("tensor record truncation is caught on a stream that cannot seek", "[tensor_record]") {
  PipeBuf buf(record("\x08\x05\x10\x02\x10\x03", floats({1, 2, 3})));
  std::istream in(&buf);
  Tensor t;
  CHECK_THROWS_WITH(read_tensor_record(in, t, "pipe"),
                    "pipe: truncated: the data of shape [2, 3] float32 needs 24 bytes but only 12 remain");
}

TEST_CASE("combined params: byte-wise sorted order, round trip, early end, trailing bytes",
          "[tensor_record]") {
  CHECK(combined_params_order({"b", "a_b", "a.b", "B", "a"}) == std::vector<size_t>{3, 4, 2, 1, 0});
  CHECK_THROWS_WITH(combined_params_order({"x", "y", "x"}), Contains("'x' is listed twice"));

  TempDir dir;
  const std::string path = dir.file("model.pdiparams");
  Tensor w = make({3, 2}, DType::kFP32, 1), b = make({2}, DType::kFP32, 2), step = make({1}, DType::kInt64, 3);
  const std::vector<std::string> names = {"fc_0.w_0", "fc_0.b_0", "@LR_DECAY_COUNTER@"};
  write_combined_params(path, names, {&w, &b, &step});

  // The file is the three records in sorted name order: '@' < 'f', ".b" < ".w".
  const std::string bytes = read_file(path);
  CHECK(bytes == to_bytes(step) + to_bytes(b) + to_bytes(w));

  Tensor w2, b2, step2;
  read_combined_params(path, {"fc_0.b_0", "@LR_DECAY_COUNTER@", "fc_0.w_0"}, {&b2, &step2, &w2});
  CHECK(same_bytes(w2, w));
  CHECK(same_bytes(b2, b));
  CHECK(same_bytes(step2, step));

  // From memory (as paddle.static.serialize_persistables returns it).
  std::istringstream in(bytes);
  read_combined_params(in, "mem", names, {&w2, &b2, &step2});
  CHECK(same_bytes(w2, w));

  // Ends at a record boundary, one record short.
  const size_t two = to_bytes(step).size() + to_bytes(b).size();
  write_file_atomically(path, std::string_view(bytes).substr(0, two));
  CHECK_THROWS_WITH(read_combined_params(path, names, {&w2, &b2, &step2}),
                    path + ": ends early: expected 3 tensor records (one per variable, in sorted name "
                           "order) but found only 2; the first missing is variable 'fc_0.w_0'");
  // Ends inside a record.
  write_file_atomically(path, std::string_view(bytes).substr(0, bytes.size() - 3));
  CHECK_THROWS_WITH(read_combined_params(path, names, {&w2, &b2, &step2}),
                    path + ", record 3 of 3 (variable 'fc_0.w_0'): truncated: the data of shape [3, 2] "
                           "float32 needs 24 bytes but only 21 remain");
  // Trailing bytes.
  write_file_atomically(path, bytes + std::string(10, '\0'));
  CHECK_THROWS_WITH(read_combined_params(path, names, {&w2, &b2, &step2}),
                    path + ": 10 bytes of trailing data after the 3 expected tensor records: the file "
                           "holds more (or larger) variables than the 3 given");
  // Fewer names than records: also trailing data.
  write_file_atomically(path, bytes);
  CHECK_THROWS_WITH(read_combined_params(path, {"@LR_DECAY_COUNTER@", "fc_0.b_0"}, {&step2, &b2}),
                    Contains("bytes of trailing data after the 2 expected tensor records"));
  CHECK_THROWS_WITH(read_combined_params(dir.file("absent.pdiparams"), names, {&w2, &b2, &step2}),
                    Contains(dir.file("absent.pdiparams") + ": cannot open"));
  CHECK_THROWS_WITH(write_combined_params(path, names, {&w, &b}), Contains("3 names but 2 tensors"));
  Tensor none;
  CHECK_THROWS_WITH(write_combined_params(path, names, {&w, &b, &none}),
                    Contains("variable '@LR_DECAY_COUNTER@'") && Contains("holds no value"));
  CHECK(read_file(path) == bytes);  // refused writes leave the file alone
}

TEST_CASE("per-variable parameter directories", "[tensor_record]") {
  TempDir dir;
  const std::string pdir = dir.file("ckpt/epoch_1");
  Tensor a = make({4}, DType::kInt32, 5), c = make({2, 2}, DType::kFP64, 6);
  write_param_dir(pdir, {"a", "conv1.w"}, {&a, &c});
  CHECK(read_file(pdir + "/conv1.w") == to_bytes(c));
  Tensor a2, c2;
  read_param_dir(pdir, {"conv1.w", "a"}, {&c2, &a2});
  CHECK(same_bytes(a2, a));
  CHECK(same_bytes(c2, c));
  CHECK_THROWS_WITH(read_param_dir(pdir, {"a", "missing_var"}, {&a2, &c2}),
                    pdir + "/missing_var: cannot open the parameter file of variable 'missing_var': "
                           "No such file or directory");
  write_file_atomically(pdir + "/a", to_bytes(a) + "x");
  CHECK_THROWS_WITH(read_param_dir(pdir, {"a"}, {&a2}),
                    pdir + "/a (variable 'a'): 1 bytes of trailing data after its tensor record");
}

TEST_CASE("files written by Paddle 2.6.2 read correctly and re-write byte-identically", "[tensor_record]") {
  // Values from tools/make_runtime_io_fixtures.py.
  const std::vector<std::string> names = {"fc_0.w_0", "fc_0.b_0", "fc_0_scale", "Emb_table",
                                          "step",     "mask",     "lr"};
  std::vector<Tensor> ts(names.size());
  std::vector<Tensor*> outs;
  for (Tensor& t : ts) outs.push_back(&t);
  const std::string combined = fixtures() + "/params.pdiparams";
  read_combined_params(combined, names, outs);

  auto check_values = [&](const std::vector<Tensor>& ts, bool with_mask) {
    const Tensor& w = ts[0];
    REQUIRE(w.dtype() == DType::kFP32);
    REQUIRE(w.shape() == Shape{3, 2});
    for (int i = 0; i < 6; ++i) CHECK(w.data<float>()[i] == i * 0.5f - 1.0f);
    REQUIRE(ts[1].shape() == Shape{2});
    CHECK(ts[1].data<float>()[0] == 0.25f);
    CHECK(ts[1].data<float>()[1] == -0.75f);
    REQUIRE(ts[2].dtype() == DType::kFP16);
    CHECK(ts[2].data<uint16_t>()[0] == 0x3e00);  // 1.5
    CHECK(ts[2].data<uint16_t>()[1] == 0xc000);  // -2.0
    REQUIRE(ts[3].dtype() == DType::kFP64);
    REQUIRE(ts[3].shape() == Shape{2, 2});
    for (int i = 0; i < 4; ++i) CHECK(ts[3].data<double>()[i] == i / 3.0);
    REQUIRE(ts[4].dtype() == DType::kInt64);
    CHECK(ts[4].data<int64_t>()[0] == 1234567890123);
    if (with_mask) {
      REQUIRE(ts[5].dtype() == DType::kBool);
      REQUIRE(ts[5].shape() == Shape{3});
      CHECK(ts[5].data<uint8_t>()[0] == 1);
      CHECK(ts[5].data<uint8_t>()[1] == 0);
      CHECK(ts[5].data<uint8_t>()[2] == 1);
    }
    REQUIRE(ts[6].rank() == 0);  // a 0-D tensor: no dims in its TensorDesc
    CHECK(ts[6].data<float>()[0] == 0.125f);
  };
  check_values(ts, true);

  TempDir dir;
  std::vector<const Tensor*> ins(outs.begin(), outs.end());
  write_combined_params(dir.file("again.pdiparams"), names, ins);
  CHECK(read_file(dir.file("again.pdiparams")) == read_file(combined));

  // The per-variable directory (Paddle's `save` op has no bool kernel, so no "mask").
  std::vector<std::string> dnames = names;
  dnames.erase(dnames.begin() + 5);
  std::vector<Tensor> ds(names.size());
  std::vector<Tensor*> douts = {&ds[0], &ds[1], &ds[2], &ds[3], &ds[4], &ds[6]};
  read_param_dir(fixtures() + "/params_dir", dnames, douts);
  check_values(ds, false);
  std::vector<const Tensor*> dins(douts.begin(), douts.end());
  write_param_dir(dir.file("dir"), dnames, dins);
  for (const std::string& n : dnames) {
    INFO(n);
    CHECK(read_file(dir.file("dir/" + n)) == read_file(fixtures() + "/params_dir/" + n));
  }
}
