// test/unit/transpilers/distribute_structure_test.cc - `fluidc opt ... distribute` against what Paddle 2.6.2's transpilers wrote.
//
// usage: distribute_structure_test FLUIDC CASE_DIR WORK_DIR
// (CASE_DIR/source, when present, names the fixture directory holding the input.)
// Runs `fluidc opt CASE_DIR/main.pdmodel --startup CASE_DIR/startup.pdmodel
// --passes=distribute <CASE_DIR/args>` into WORK_DIR, then for every
// CASE_DIR/expected/<program>.txt (tools/fixtures_distribute.py: Paddle's
// DistributeTranspiler or GradAllReduce on the same input) loads the
// program fluidc wrote and compares describe_program's text line by line.
// Exit 0 when every program matches; otherwise the differing lines.
#include <fmt/format.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "test/unit/transpilers/program_describe.h"

namespace fs = std::filesystem;
using namespace fluidc;

namespace {

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Prints the lines that differ (at most 20) and returns whether any did.
bool differs(const std::string& what, const std::string& want, const std::string& got) {
  if (want == got) return false;
  const auto w = lines(want), g = lines(got);
  fmt::print("{}: differs from Paddle's ({} lines expected, {} written)\n", what, w.size(), g.size());
  int shown = 0;
  for (size_t i = 0; i < std::max(w.size(), g.size()) && shown < 20; ++i) {
    const std::string a = i < w.size() ? w[i] : "<none>", b = i < g.size() ? g[i] : "<none>";
    if (a == b) continue;
    fmt::print("  line {}\n    paddle: {}\n    fluidc: {}\n", i + 1, a, b);
    ++shown;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    fmt::print(stderr, "usage: {} FLUIDC CASE_DIR WORK_DIR\n", argv[0]);
    return 2;
  }
  const fs::path fluidc = argv[1], dir = argv[2], work = argv[3];
  // A case may take its input from another fixture (`source`: a directory of test/fixtures).
  fs::path input = dir;
  if (fs::exists(dir / "source")) input = dir.parent_path().parent_path() / lines(read(dir / "source")).at(0);
  fs::remove_all(work);
  fs::create_directories(work);
  std::string cmd = fmt::format("{} opt {} --startup {} --passes=distribute -o {} --startup-out {}", quote(fluidc),
                                quote((input / "main.pdmodel").string()), quote((input / "startup.pdmodel").string()),
                                quote((work / "trainer.pdmodel").string()),
                                quote((work / "trainer.startup.pdmodel").string()));
  for (const auto& a : lines(read(dir / "args")))
    if (!a.empty()) cmd += " " + quote(a);
  fmt::print("{}\n", cmd);
  std::fflush(stdout);
  const int status = std::system(cmd.c_str());
  if (status != 0) {
    fmt::print("fluidc failed (status {})\n", status);
    return 1;
  }
  std::vector<fs::path> expected;
  for (const auto& e : fs::directory_iterator(dir / "expected")) expected.push_back(e.path());
  std::sort(expected.begin(), expected.end());
  if (expected.empty()) {
    fmt::print("{}: no expected programs\n", dir.string());
    return 1;
  }
  int bad = 0;
  for (const auto& e : expected) {
    // trainer -> OUT, trainer.startup -> --startup-out, pserverI[.startup] -> OUT.pserverI[.startup]
    const std::string prog = e.stem().string();
    const fs::path out = work / ((prog.rfind("trainer", 0) == 0 ? prog : "trainer." + prog) + ".pdmodel");
    if (!fs::exists(out)) {
      fmt::print("{}: fluidc wrote no {}\n", prog, out.string());
      ++bad;
      continue;
    }
    const std::string got = test::describe_program(Program::load(out.string()).desc());
    if (differs(prog, read(e), got)) ++bad;
    else fmt::print("{}: matches Paddle's\n", prog);
  }
  // Nothing more than Paddle wrote either (e.g. a server too many), but for the
  // programs `not_compared` lists with its reason.
  std::string not_compared = fs::exists(dir / "not_compared") ? read(dir / "not_compared") : "";
  for (const auto& f : fs::directory_iterator(work)) {
    const std::string name = f.path().filename().string();
    const std::string stem = name.substr(0, name.size() - std::string(".pdmodel").size());
    const std::string prog = stem == "trainer" || stem == "trainer.startup" ? stem : stem.substr(std::string("trainer.").size());
    if (not_compared.find(prog + ":") != std::string::npos) {
      fmt::print("{}: not compared ({})\n", prog, not_compared.substr(not_compared.find(prog + ":")));
    } else if (!fs::exists(dir / "expected" / (prog + ".txt"))) {
      fmt::print("fluidc wrote {}, which Paddle did not\n", name);
      ++bad;
    }
  }
  return bad == 0 ? 0 : 1;
}
