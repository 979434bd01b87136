// test/lib/lod_app.cc - a LoD (sequence) program as a library: sequences in through set_input_*_lod, out through output_*_lod.
//
// usage: lod_app FIXTURES_DIR
// The BiGRU-CRF tagger (tools/fixtures_crf_tagger.py) on its two input sets, the ragged one with an empty
// sentence among five: the tags and their offsets must equal Paddle's exactly, the emissions within the
// e2e test's 1e-5 relative (1e-7 absolute). Then the LoD checks: offsets that do not end at the rows, that
// decrease, that come before the data, or more levels than declared all throw fluidc::Error, and a new
// shape drops the old offsets.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "npy_lite.h"
#include "tagger.h"

namespace {

using Lod = std::vector<std::vector<uint64_t>>;
using app::Tagger;

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "FAIL: %s\n", what.c_str());
    ++failures;
  }
}

Lod lod_of(const npy_lite::ArrayOf<int64_t>& offsets) {
  return {std::vector<uint64_t>(offsets.data.begin(), offsets.data.end())};
}

// Runs f, which must throw fluidc::Error whose message holds `needle`.
template <class F>
void expect_error(F&& f, const std::string& needle, const std::string& what) {
  try {
    f();
  } catch (const fluidc::Error& e) {
    expect(std::string(e.what()).find(needle) != std::string::npos,
           what + ": message '" + e.what() + "' lacks '" + needle + "'");
    return;
  }
  expect(false, what + ": no fluidc::Error");
}

void check_set(Tagger& tagger, const std::string& fix, const std::string& set) {
  const std::string in = fix + "/inputs/words_" + set, out = fix + "/expected/save_infer_model_scale_";
  const auto words = npy_lite::load_i64(in + ".npy");
  tagger.set_input_words(words.data.data(), {words.shape[0], words.shape[1]});
  tagger.set_input_words_lod(lod_of(npy_lite::load_i64(in + ".lod0.npy")));
  expect(tagger.input_words_lod() == lod_of(npy_lite::load_i64(in + ".lod0.npy")), set + ": input LoD read back");
  tagger.run();

  const auto paths = npy_lite::load_i64(out + "0.tmp_0_" + set + ".npy");
  const int64_t* got_paths = tagger.output_save_infer_model_scale_0_tmp_0();
  expect(tagger.output_save_infer_model_scale_0_tmp_0_size() == static_cast<int64_t>(paths.data.size()),
         set + ": tag count");
  for (size_t i = 0; got_paths && i < paths.data.size(); ++i)
    expect(got_paths[i] == paths.data[i], set + ": tag " + std::to_string(i));
  expect(tagger.output_save_infer_model_scale_0_tmp_0_lod() == lod_of(npy_lite::load_i64(out + "0.tmp_0_" + set + ".lod0.npy")),
         set + ": the tags' offsets");

  const auto emission = npy_lite::load(out + "1.tmp_0_" + set + ".npy");
  const float* got = tagger.output_save_infer_model_scale_1_tmp_0();
  expect(tagger.output_save_infer_model_scale_1_tmp_0_size() == static_cast<int64_t>(emission.data.size()),
         set + ": emission size");
  for (size_t i = 0; got && i < emission.data.size(); ++i)
    expect(std::fabs(got[i] - emission.data[i]) <= 1e-7 + 1e-5 * std::fabs(emission.data[i]),
           set + ": emission " + std::to_string(i));
  expect(tagger.output_save_infer_model_scale_1_tmp_0_lod() == lod_of(npy_lite::load_i64(out + "1.tmp_0_" + set + ".lod0.npy")),
         set + ": the emissions' offsets");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: lod_app FIXTURES_DIR\n");
    return 2;
  }
  const std::string fix = std::string(argv[1]) + "/crf_tagger_infer";
  try {
    Tagger tagger;
    check_set(tagger, fix, "b5");  // five sentences of 3, 0, 7, 1 and 5 words
    check_set(tagger, fix, "b1");  // the same instance, another batch

    const int64_t ids[4] = {1, 2, 3, 4};
    expect_error([&] { Tagger().set_input_words_lod({{0, 4}}); }, "before its LoD", "LoD before the data");
    tagger.set_input_words(ids, {4, 1});
    expect(tagger.input_words_lod().empty(), "a new shape keeps the old offsets");
    expect_error([&] { tagger.set_input_words_lod({{0, 2, 3}}); }, "LoD", "offsets ending before the rows");
    expect_error([&] { tagger.set_input_words_lod({{0, 3, 2, 4}}); }, "LoD", "decreasing offsets");
    expect_error([&] { tagger.set_input_words_lod({{0, 2, 4}, {0, 1, 2, 3, 4}}); }, "lod_level 1",
                 "two levels for a lod_level 1 input");
    tagger.set_input_words_lod({{0, 1, 4}});  // the instance still works after the errors
    tagger.run();
    expect(tagger.output_save_infer_model_scale_0_tmp_0_lod() == Lod{{0, 1, 4}}, "tags' offsets of a set batch");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAIL: unexpected exception: %s\n", e.what());
    return 1;
  }
  if (failures) return 1;
  std::printf("ok: LoD in and out of the tagger library, equal to Paddle's; bad offsets throw\n");
  return 0;
}
