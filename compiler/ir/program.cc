// compiler/ir/program.cc - loading, saving and looking up ProgramDescs.
#include "compiler/ir/program.h"

#include <fmt/format.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <deque>
#include <fstream>
#include <sstream>
#include <unordered_set>

#include "compiler/ir/pir_json.h"
#include "compiler/ir/pir_translate.h"
#include "compiler/ir/sha256.h"

namespace fluidc {
namespace {

[[noreturn]] void file_error(const std::string& file, const std::string& message) {
  Location l;
  l.file = file;
  user_error(l, message);
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool looks_like_text_path(const std::string& path) {
  return ends_with(path, ".pbtxt") || ends_with(path, ".txt") || ends_with(path, ".prototxt");
}

// Collects protobuf text-format errors with their line and column.
class TextErrors : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    if (first.empty()) first = fmt::format("line {}, column {}: {}", line + 1, column + 1, message);
  }
  std::string first;
};

// The innermost frame of op_callstack that is the user's code rather than
// Paddle's own Python. Paddle stores each frame as a header string
// ('  File "train.py", line 12, in <module>') optionally followed by a
// string holding the source line; render "File "train.py", line 12, in
// <module>: y = fc(x)".
std::string python_line_of(const pb::OpDesc& op) {
  auto trim = [](const std::string& s) {
    auto b = s.find_first_not_of(" \n");
    auto e = s.find_last_not_of(" \n");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
  };
  for (const auto& attr : op.attrs()) {
    if (attr.name() != "op_callstack") continue;
    std::string best;
    const auto& frames = attr.strings();
    for (int i = 0; i < frames.size(); ++i) {
      std::string header = trim(frames[i]);
      if (header.rfind("File ", 0) != 0) continue;
      // Older releases put header and code in one string.
      std::string code;
      if (auto nl = header.find('\n'); nl != std::string::npos) {
        code = trim(header.substr(nl + 1));
        header = header.substr(0, nl);
      } else if (i + 1 < frames.size() && trim(frames[i + 1]).rfind("File ", 0) != 0) {
        code = trim(frames[i + 1]);
      }
      if (header.find("/paddle/") != std::string::npos || header.find("site-packages") != std::string::npos) continue;
      best = code.empty() ? header : header + ": " + code;
    }
    return best;
  }
  return "";
}

// A JSON file other than a PIR program is no ProgramDesc.
void reject_json(const std::string& bytes, const std::string& origin) {
  // '{' (0x7b) would open a group of field 15, which no ProgramDesc has.
  if (bytes.empty() || bytes[0] != '{') return;
  file_error(origin, "a JSON file, not a ProgramDesc (.pdmodel, __model__, or .pbtxt text) nor a Paddle 3 PIR "
                     "program (inference.json)");
}

}  // namespace

Program Program::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) file_error(path, "cannot open program file");
  std::stringstream buf;
  buf << in.rdbuf();
  return parse(buf.str(), path, looks_like_text_path(path));
}

Program Program::parse(const std::string& bytes, const std::string& origin, bool text) {
  Program p;
  p.origin_ = origin;
  p.sha256_ = sha256_hex(bytes);
  if (bytes.empty()) file_error(origin, "empty file, not a ProgramDesc");
  if (text) {
    google::protobuf::TextFormat::Parser parser;
    TextErrors errors;
    parser.RecordErrorsTo(&errors);
    if (!parser.ParseFromString(bytes, &p.desc_))
      file_error(origin, fmt::format("not a valid ProgramDesc in protobuf text format: {}", errors.first));
  } else if (pir::is_pir_json(bytes)) {
    // Paddle 3 writes PIR programs as JSON (inference.json): lowered to a
    // ProgramDesc here, so every later stage reads one form.
    p.desc_ = pir::translate(pir::read_json(bytes, origin), origin);
  } else {
    reject_json(bytes, origin);
    google::protobuf::io::ArrayInputStream stream(bytes.data(), static_cast<int>(bytes.size()));
    if (!p.desc_.ParsePartialFromZeroCopyStream(&stream))
      file_error(origin, fmt::format("not a valid binary ProgramDesc ({} bytes): the protobuf is truncated or corrupt",
                                     bytes.size()));
    if (!p.desc_.IsInitialized())
      file_error(origin, fmt::format("not a valid binary ProgramDesc: required fields missing: {}",
                             p.desc_.InitializationErrorString()));
  }
  if (p.desc_.blocks_size() == 0) file_error(origin, "program has no blocks");
  p.index();
  return p;
}

Program Program::from_desc(pb::ProgramDesc desc, std::string origin) {
  Program p;
  p.desc_ = std::move(desc);
  p.origin_ = std::move(origin);
  p.sha256_ = sha256_hex(p.desc_.SerializeAsString());
  p.index();
  return p;
}

void Program::index() {
  var_index_.assign(desc_.blocks_size(), {});
  resolved_.assign(desc_.blocks_size(), {});
  for (int b = 0; b < desc_.blocks_size(); ++b) {
    const auto& block = desc_.blocks(b);
    for (int v = 0; v < block.vars_size(); ++v) var_index_[b].emplace(block.vars(v).name(), v);
  }
}

void Program::save(const std::string& path) const {
  std::string bytes;
  if (looks_like_text_path(path)) {
    bytes = to_text();
  } else if (!desc_.SerializeToString(&bytes)) {
    internal_error("cannot serialize ProgramDesc for " + path);
  }
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) file_error(path, "cannot write");
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) file_error(path, "write failed");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) file_error(path, "cannot rename into place");
}

std::string Program::to_text() const {
  std::string s;
  google::protobuf::TextFormat::Printer printer;
  printer.PrintToString(desc_, &s);
  return s;
}

int Program::parent_of(int block) const {
  if (block < 0 || block >= desc_.blocks_size()) return -1;
  return desc_.blocks(block).parent_idx();
}

// The blocks visible from `block`, nearest first: itself; for a gradient
// block, the forward block it differentiates and that block's ancestors
// (Paddle runs gradient blocks in a scope under the forward step's scope);
// then its parent and the parent's visible blocks. Bounded: a corrupt
// program may have cycles.
int Program::search_visible(int block, const std::string& name) const {
  std::deque<int> todo = {block};
  std::unordered_set<int> seen;
  while (!todo.empty() && seen.size() <= static_cast<size_t>(desc_.blocks_size())) {
    int b = todo.front();
    todo.pop_front();
    if (b < 0 || b >= desc_.blocks_size() || !seen.insert(b).second) continue;
    if (var_index_[b].count(name)) return b;
    const auto& bd = desc_.blocks(b);
    if (bd.forward_block_idx() >= 0) todo.push_front(bd.forward_block_idx());
    if (b != 0) todo.push_back(bd.parent_idx());
  }
  return -1;
}

// Most lookups walk a plain parent chain (no gradient block on the way),
// where the answer for a block is the answer for its parent unless it
// declares the name itself. Those answers are memoised per block, so a
// program nested N deep costs O(N) per name instead of O(N) per lookup
// (10,000 nested blocks: cubic time before).
int Program::defining_block(int block, const std::string& name) const {
  std::vector<int> walked;
  int b = block, found = -1;
  for (size_t hops = 0; hops <= static_cast<size_t>(desc_.blocks_size()); ++hops) {
    if (b < 0 || b >= desc_.blocks_size()) break;
    if (var_index_[b].count(name)) {
      found = b;
      break;
    }
    if (auto it = resolved_[b].find(name); it != resolved_[b].end()) {
      found = it->second;
      break;
    }
    if (desc_.blocks(b).forward_block_idx() >= 0) {
      found = search_visible(b, name);
      walked.push_back(b);
      break;
    }
    walked.push_back(b);
    if (b == 0) break;
    b = desc_.blocks(b).parent_idx();
  }
  for (int w : walked) resolved_[w].emplace(name, found);
  return found;
}

const pb::VarDesc* Program::find_var(int block, const std::string& name, int* found_in) const {
  if (block < 0 || block >= desc_.blocks_size()) return nullptr;
  const int b = defining_block(block, name);
  if (b < 0) return nullptr;
  if (found_in) *found_in = b;
  return &desc_.blocks(b).vars(var_index_[b].at(name));
}

Location Program::loc(int block, int op, const std::string& var) const {
  Location l;
  l.file = origin_;
  l.block = block;
  l.parent = block > 0 ? parent_of(block) : -1;
  l.op = op;
  l.var = var;
  if (block >= 0 && block < desc_.blocks_size() && op >= 0 && op < desc_.blocks(block).ops_size()) {
    const auto& o = desc_.blocks(block).ops(op);
    l.op_type = o.type();
    l.python_line = python_line_of(o);
  }
  return l;
}

bool is_dense_tensor(const pb::VarDesc& var) { return var.type().type() == pb::VarType::LOD_TENSOR; }

const pb::VarDesc* find_block_var(const pb::BlockDesc& block, const std::string& name) {
  for (const auto& v : block.vars())
    if (v.name() == name) return &v;
  return nullptr;
}

pb::VarDesc* find_block_var(pb::BlockDesc& block, const std::string& name) {
  for (auto& v : *block.mutable_vars())
    if (v.name() == name) return &v;
  return nullptr;
}

pb::VarDesc& add_tensor_var(pb::BlockDesc& block, const std::string& name, pb::VarType::Type dtype,
                            const std::vector<int64_t>& dims) {
  auto* v = block.add_vars();
  v->set_name(name);
  v->mutable_type()->set_type(pb::VarType::LOD_TENSOR);
  auto* td = v->mutable_type()->mutable_lod_tensor()->mutable_tensor();
  td->set_data_type(dtype);
  for (int64_t d : dims) td->add_dims(d);
  return *v;
}

bool is_empty_var_name(const std::string& name) { return name.empty() || name == "@EMPTY@"; }

const pb::VarType::TensorDesc* tensor_desc(const pb::VarDesc& var) {
  const auto& t = var.type();
  switch (t.type()) {
    case pb::VarType::LOD_TENSOR:
      return t.has_lod_tensor() ? &t.lod_tensor().tensor() : nullptr;
    case pb::VarType::SELECTED_ROWS:
      return t.has_selected_rows() ? &t.selected_rows() : nullptr;
    case pb::VarType::LOD_TENSOR_ARRAY:
      return t.has_tensor_array() ? &t.tensor_array().tensor() : nullptr;
    default:
      return nullptr;
  }
}

std::string dtype_str(pb::VarType::Type t) {
  switch (t) {
    case pb::VarType::BOOL: return "bool";
    case pb::VarType::INT16: return "int16";
    case pb::VarType::INT32: return "int32";
    case pb::VarType::INT64: return "int64";
    case pb::VarType::FP16: return "float16";
    case pb::VarType::FP32: return "float32";
    case pb::VarType::FP64: return "float64";
    case pb::VarType::UINT8: return "uint8";
    case pb::VarType::INT8: return "int8";
    case pb::VarType::BF16: return "bfloat16";
    default: return pb::VarType::Type_Name(t);
  }
}

std::string dims_str(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

std::string dims_str(const google::protobuf::RepeatedField<int64_t>& dims) {
  return dims_str(std::vector<int64_t>(dims.begin(), dims.end()));
}

}  // namespace fluidc
