// test/unit/runtime/parallel_test.cc - parallel_for: every chunk once, back-to-back jobs, exceptions, thread counts.
#include <catch2/catch.hpp>

#include <atomic>
#include <set>
#include <stdexcept>
#include <thread>
#include <mutex>
#include <vector>

#include "runtime/parallel.h"

using fluidc::rt::parallel_for;
using fluidc::rt::set_num_threads;

TEST_CASE("parallel_for runs every chunk exactly once, job after job", "[parallel]") {
  set_num_threads(4);
  // Many short jobs in a row: a worker still finishing one must never take
  // a chunk of the next (each job counts into its own array).
  for (int job = 0; job < 2000; ++job) {
    const int64_t chunks = 1 + job % 9;
    std::vector<std::atomic<int>> hits(static_cast<size_t>(chunks));
    parallel_for(chunks, [&](int64_t i) { hits[static_cast<size_t>(i)].fetch_add(1); });
    for (auto& h : hits) REQUIRE(h.load() == 1);
  }
  set_num_threads(1);
}

TEST_CASE("parallel_for uses several threads, and only the caller with one", "[parallel]") {
  std::mutex mu;
  std::set<std::thread::id> seen;
  auto record = [&](int64_t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // long enough that one thread cannot take all
    std::lock_guard<std::mutex> lock(mu);
    seen.insert(std::this_thread::get_id());
  };
  set_num_threads(3);
  parallel_for(3, record);
  CHECK(seen.size() >= 2);
  seen.clear();
  set_num_threads(1);
  parallel_for(3, record);
  CHECK(seen == std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST_CASE("an exception in a chunk reaches the caller after all chunks ran", "[parallel]") {
  set_num_threads(3);
  std::atomic<int> ran{0};
  CHECK_THROWS_WITH(parallel_for(6,
                                 [&](int64_t i) {
                                   ran.fetch_add(1);
                                   if (i == 2) throw std::runtime_error("chunk 2 failed");
                                 }),
                    "chunk 2 failed");
  CHECK(ran.load() == 6);
  // The pool is still usable.
  std::atomic<int> again{0};
  parallel_for(5, [&](int64_t) { again.fetch_add(1); });
  CHECK(again.load() == 5);
  set_num_threads(1);
}

TEST_CASE("parallel_for from several threads at once: every chunk of every caller exactly once", "[parallel]") {
  // Model instances on their own threads call the GEMMs concurrently; the
  // workers hold one job, so a second caller must not overwrite the first's.
  set_num_threads(4);
  constexpr int kCallers = 3, kJobs = 500, kChunks = 7;
  std::vector<std::thread> callers;
  std::atomic<int> wrong{0};
  for (int c = 0; c < kCallers; ++c)
    callers.emplace_back([&] {
      for (int job = 0; job < kJobs; ++job) {
        std::vector<std::atomic<int>> hits(kChunks);
        parallel_for(kChunks, [&](int64_t i) { hits[static_cast<size_t>(i)].fetch_add(1); });
        for (auto& h : hits) wrong += h.load() != 1;
      }
    });
  for (auto& t : callers) t.join();
  set_num_threads(1);
  REQUIRE(wrong.load() == 0);
}

TEST_CASE("parallel_for with more threads than the pool's shares still runs every chunk once", "[parallel]") {
  // The pool keeps at most 256 shares (one per thread); a larger request is
  // clamped, never an overrun of the share table.
  set_num_threads(300);
  std::vector<std::atomic<int>> hits(1000);
  parallel_for(1000, [&](int64_t i) { hits[static_cast<size_t>(i)].fetch_add(1); });
  for (auto& h : hits) REQUIRE(h.load() == 1);
  set_num_threads(1);
}

TEST_CASE("a slow share is finished by the other threads", "[parallel]") {
  // The caller's share holds one slow chunk; the workers, done with theirs,
  // take the rest of it: every chunk once, and more than one thread in it.
  set_num_threads(2);
  std::mutex mu;
  std::set<std::thread::id> in_first_share;
  std::vector<std::atomic<int>> hits(64);
  parallel_for(64, [&](int64_t i) {
    if (i == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    hits[static_cast<size_t>(i)].fetch_add(1);
    if (i < 32) {
      std::lock_guard<std::mutex> lock(mu);
      in_first_share.insert(std::this_thread::get_id());
    }
  });
  for (auto& h : hits) REQUIRE(h.load() == 1);
  CHECK(in_first_share.size() == 2);
  set_num_threads(1);
}
