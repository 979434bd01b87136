// test/unit/runtime/npy_test.cc - .npy round trips, hand-made headers, NumPy's own files, errors.
#include <catch2/catch.hpp>
#include <sstream>

#include "runtime/atomic_file.h"
#include "runtime/error.h"
#include "runtime/npy.h"
#include "test_util.h"

using namespace fluidc::rt;
using namespace fluidc::rt::test;
using Catch::Matchers::Contains;

namespace {

/// A complete .npy file: version `major`.0 with header `dict` (taken as is,
/// no padding added) followed by `data`.
std::string npy_bytes(const std::string& dict, const std::string& data, int major = 1) {
  std::string s("\x93NUMPY", 6);
  s += static_cast<char>(major);
  s += '\0';
  if (major == 1) s += le<uint16_t>(static_cast<uint16_t>(dict.size()));
  else s += le<uint32_t>(static_cast<uint32_t>(dict.size()));
  return s + dict + data;
}

std::string floats(std::initializer_list<float> v) {
  std::string s;
  for (float f : v) s += le(f);
  return s;
}

void read_buf(const std::string& bytes, Tensor& out, const std::string& name = "t.npy") {
  read_npy_from_buffer(bytes.data(), bytes.size(), out, name);
}

std::string error_of(const std::string& bytes, const std::string& name = "t.npy") {
  Tensor t;
  try {
    read_buf(bytes, t, name);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("npy round trip: every dtype, ranks 0 to 4", "[npy]") {
  TempDir dir;
  const Shape shapes[] = {{}, {5}, {2, 3}, {2, 3, 4}, {2, 1, 3, 2}, {3, 0, 2}};
  unsigned seed = 0;
  for (DType dt : kAllDTypes) {
    for (const Shape& shape : shapes) {
      INFO(dtype_name(dt) << " " << shape.str());
      Tensor t;
      t.resize(shape, dt);
      fill_pattern(t, ++seed);
      const std::string path = dir.file("a.npy");
      write_npy(path, t);
      std::string bytes = read_file(path);
      CHECK(bytes.compare(0, 8, std::string("\x93NUMPY\x01\x00", 8)) == 0);
      CHECK((bytes.size() - t.nbytes()) % 64 == 0);  // data starts at a multiple of 64
      CHECK(bytes[bytes.size() - t.nbytes() - 1] == '\n');

      Tensor from_file, from_buf;
      read_npy(path, from_file);
      CHECK(same_bytes(from_file, t));
      read_buf(bytes, from_buf);
      CHECK(same_bytes(from_buf, t));

      std::ostringstream os;
      write_npy(os, t);
      CHECK(os.str() == bytes);
    }
  }
}

TEST_CASE("npy writer matches numpy.save byte for byte", "[npy]") {
  struct Case {
    const char* file;
    DType dtype;
    Shape shape;
  };
  const Case cases[] = {{"numpy_f32_2x3.npy", DType::kFP32, {2, 3}},
                        {"numpy_i64_scalar.npy", DType::kInt64, {}},
                        {"numpy_bool_4.npy", DType::kBool, {4}},
                        {"numpy_f16_3.npy", DType::kFP16, {3}}};
  for (const Case& c : cases) {
    INFO(c.file);
    const std::string path = fixtures() + "/" + c.file;
    Tensor t;
    read_npy(path, t);
    CHECK(t.dtype() == c.dtype);
    CHECK(t.shape() == c.shape);
    std::ostringstream os;
    write_npy(os, t);
    CHECK(os.str() == read_file(path));
  }
  Tensor t;
  read_npy(fixtures() + "/numpy_f32_2x3.npy", t);
  const float want[] = {-2, -0.5, 1, 2.5, 4, 5.5};
  for (int i = 0; i < 6; ++i) CHECK(t.data<float>()[i] == want[i]);
  read_npy(fixtures() + "/numpy_i64_scalar.npy", t);
  CHECK(t.data<int64_t>()[0] == -42);
  read_npy(fixtures() + "/numpy_bool_4.npy", t);
  CHECK(t.data<uint8_t>()[0] == 1);
  CHECK(t.data<uint8_t>()[1] == 0);
  CHECK(t.data<uint8_t>()[3] == 1);
  read_npy(fixtures() + "/numpy_f16_3.npy", t);
  CHECK(t.data<uint16_t>()[0] == 0x3800);  // 0.5
  CHECK(t.data<uint16_t>()[2] == 0x7bff);  // 65504
}

TEST_CASE("npy headers with odd spacing, key order, quoting and versions", "[npy]") {
  Tensor t;
  const std::string data = floats({1, 2, 3, 4, 5, 6});

  read_buf(npy_bytes("{'shape':(2,3),'fortran_order':False,'descr':'<f4'}", data), t);
  CHECK(t.shape() == Shape{2, 3});
  CHECK(t.dtype() == DType::kFP32);
  CHECK(t.data<float>()[5] == 6);

  read_buf(npy_bytes("  {  \"descr\" :  \"=f4\" ,\n 'fortran_order':\tFalse , 'shape' : ( 6 , ) , }  \n",
                     data),
           t);
  CHECK(t.shape() == Shape{6});

  // Python 2 long literals, as very old NumPy wrote them.
  read_buf(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3L, 2L), }\n", data), t);
  CHECK(t.shape() == Shape{3, 2});

  // Versions 2.0 and 3.0 use a 4-byte header length.
  read_buf(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n", data, 2), t);
  CHECK(t.shape() == Shape{2, 3});
  read_buf(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 6), }\n", data, 3), t);
  CHECK(t.shape() == Shape{1, 6});

  // Scalar: shape ().
  read_buf(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (), }\n", le(2.5)), t);
  CHECK(t.rank() == 0);
  CHECK(t.data<double>()[0] == 2.5);

  // fortran_order True is harmless for rank 1: the layout is the same.
  read_buf(npy_bytes("{'descr': '<f4', 'fortran_order': True, 'shape': (6,), }\n", data), t);
  CHECK(t.shape() == Shape{6});
}

TEST_CASE("npy descr spellings map to the right dtype", "[npy]") {
  struct Case {
    const char* descr;
    DType dtype;
  };
  const Case cases[] = {{"<f2", DType::kFP16}, {"<f4", DType::kFP32},  {"<f8", DType::kFP64},
                        {"=f8", DType::kFP64}, {"<i2", DType::kInt16}, {"<i4", DType::kInt32},
                        {"<i8", DType::kInt64}, {"=i8", DType::kInt64}, {"|i1", DType::kInt8},
                        {"|u1", DType::kUInt8}, {"<u1", DType::kUInt8}, {">u1", DType::kUInt8},
                        {"|b1", DType::kBool}, {"?", DType::kBool}};
  for (const Case& c : cases) {
    INFO(c.descr);
    Tensor t;
    size_t n = dtype_size(c.dtype) * 2;
    read_buf(npy_bytes(std::string("{'descr': '") + c.descr + "', 'fortran_order': False, 'shape': (2,), }",
                       std::string(n, '\x01')),
             t);
    CHECK(t.dtype() == c.dtype);
    CHECK(t.shape() == Shape{2});
  }
}

TEST_CASE("npy: truncated data and trailing bytes are errors naming the file", "[npy]") {
  TempDir dir;
  const std::string path = dir.file("x.npy");
  Tensor big;
  big.resize({64, 13}, DType::kFP32);
  big.zero();
  write_npy(path, big);
  std::string bytes = read_file(path);
  size_t header = bytes.size() - big.nbytes();

  write_file_atomically(path, std::string_view(bytes).substr(0, header + 1000));
  Tensor t;
  CHECK_THROWS_WITH(read_npy(path, t),
                    path + ": truncated: header says shape [64, 13] float32 (3328 bytes of data) "
                           "but only 1000 bytes follow");
  CHECK_FALSE(t.initialized());  // rejected before touching the output

  write_file_atomically(path, bytes + "junk");
  CHECK_THROWS_WITH(read_npy(path, t),
                    path + ": 4 unexpected bytes after the data: header says shape [64, 13] float32 "
                           "(3328 bytes of data) but 3332 bytes follow");

  // The same checks on the in-memory reader.
  CHECK_THAT(error_of(bytes.substr(0, header), "mem.npy"),
             Contains("mem.npy: truncated") && Contains("only 0 bytes follow"));
  // The file ends inside the header.
  write_file_atomically(path, std::string_view(bytes).substr(0, 40));
  CHECK_THROWS_WITH(read_npy(path, t), Contains(path + ": truncated: the .npy header says it is"));
  // Missing file.
  CHECK_THROWS_WITH(read_npy(dir.file("nope.npy"), t),
                    dir.file("nope.npy") + ": cannot open: No such file or directory");
}

TEST_CASE("npy: rejected headers say what is wrong and name the file", "[npy]") {
  const std::string data = floats({1, 2, 3, 4, 5, 6});
  auto with = [&](const std::string& descr, const std::string& order, const std::string& shape) {
    return npy_bytes("{'descr': '" + descr + "', 'fortran_order': " + order + ", 'shape': " + shape +
                         ", }\n",
                     data);
  };
  CHECK_THAT(error_of("PK\x03\x04 not numpy at all", "feed.npy"),
             Contains("feed.npy: not a .npy file") && Contains("magic"));
  CHECK_THAT(error_of(std::string("\x93NUMPY", 6), "feed.npy"), Contains("feed.npy: truncated"));
  CHECK_THAT(error_of(npy_bytes("{}", "", 4), "v4.npy"),
             Contains("v4.npy: unsupported .npy format version 4.0"));
  CHECK_THAT(error_of(with("<f4", "True", "(2, 3)"), "f.npy"),
             Contains("f.npy: fortran_order True") && Contains("not supported"));
  CHECK_THAT(error_of(with(">f4", "False", "(2, 3)"), "be.npy"),
             Contains("be.npy: big-endian .npy data ('>f4') is not supported"));
  CHECK_THAT(error_of(with("<u4", "False", "(2, 3)"), "u.npy"),
             Contains("u.npy: unsupported .npy dtype '<u4'"));
  CHECK_THAT(error_of(with("<c8", "False", "(3,)"), "c.npy"), Contains("unsupported .npy dtype '<c8'"));
  CHECK_THAT(error_of(npy_bytes("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (6,), }",
                                data),
                      "s.npy"),
             Contains("s.npy: structured dtypes"));
  CHECK_THAT(error_of(with("<f4", "False", "(2, -3)"), "n.npy"),
             Contains("n.npy: negative dimension -3"));
  CHECK_THAT(error_of(with("<f4", "False", "(1, 1, 1, 1, 1, 1, 1, 1, 1, 6)"), "r.npy"),
             Contains("r.npy: .npy array has more than 9 dimensions"));
  CHECK_THAT(error_of(with("<f4", "Maybe", "(6,)"), "b.npy"),
             Contains("b.npy: malformed .npy header: expected True or False"));
  CHECK_THAT(error_of(npy_bytes("{'descr': '<f4', 'shape': (6,)}", data), "k.npy"),
             Contains("k.npy: malformed .npy header: no 'fortran_order' key"));
  CHECK_THAT(error_of(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), 'x': 1}", data),
                      "k.npy"),
             Contains("unexpected key 'x'"));
  CHECK_THAT(error_of(npy_bytes("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (6,)}",
                                data),
                      "k.npy"),
             Contains("duplicate key 'descr'"));
  CHECK_THAT(error_of(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (6,)} x", data), "k.npy"),
             Contains("unexpected text after the closing '}'"));
  CHECK_THAT(error_of(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (6 6)}", data), "k.npy"),
             Contains("expected ',' or ')'"));
  CHECK_THAT(error_of(npy_bytes("{'descr': '<f4, 'fortran_order': False, 'shape': (6,)}", data), "q.npy"),
             Contains("q.npy: malformed .npy header"));
  CHECK_THAT(error_of(with("<f4", "False", "(99999999999999999999, 2)"), "o.npy"),
             Contains("o.npy: malformed .npy header: dimension too large"));
  CHECK_THAT(error_of(with("<f8", "False", "(4294967296, 4294967296)"), "o.npy"),
             Contains("o.npy: header shape [4294967296, 4294967296] is too large"));
}

TEST_CASE("write_npy refuses a tensor that holds no value", "[npy]") {
  TempDir dir;
  Tensor empty;
  CHECK_THROWS_WITH(write_npy(dir.file("e.npy"), empty), Contains(dir.file("e.npy")));
  CHECK(dir.count() == 0);
}
