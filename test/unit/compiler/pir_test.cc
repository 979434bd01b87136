// test/unit/compiler/pir_test.cc - the Paddle 3 PIR front end: rules against the op table, lowering, located errors.
#include <catch2/catch.hpp>

#include <string>

#include "compiler/ir/attrs.h"
#include "compiler/ir/pir_ops.h"
#include "compiler/ir/program.h"
#include "compiler/ops/registry.h"

using namespace fluidc;

namespace {

// A PIR program around `ops` (the JSON of the top block's op list).
std::string pir_program(const std::string& ops) {
  return R"({"base_code":{"magic":"pir","trainable":true,"version":4},"program":{"regions":[{"#":"region_0",)"
         R"("blocks":[{"#":"block_0","args":[],"ops":[)" +
         ops + "]}]}]}}";
}

std::string tensor(const std::string& dtype, const std::string& dims) {
  return R"({"#":"0.t_dtensor","D":[{"#":"0.t_)" + dtype + R"("},)" + dims + R"(,"NCHW",[],0]})";
}

const std::string kParam = R"({"#":"p","A":[0,1,1,"fc.w"],"DA":[],"O":{"%":1,"TT":)" + tensor("f32", "[4,3]") +
                           R"(},"OA":[1,0,1],"QA":[]})";
const std::string kData = R"({"#":"1.data","A":[{"AT":{"#":"0.a_str","D":"x"},"N":"name"},)"
                          R"({"AT":{"#":"1.a_intarray","D":[-1,4]},"N":"shape"}],"I":[],"O":[{"%":2,"TT":)" +
                          tensor("f32", "[-1,4]") + "}]}";
const std::string kMatmul = R"({"#":"1.matmul","A":[{"AT":{"#":"0.a_bool","D":false},"N":"transpose_x"},)"
                            R"({"AT":{"#":"0.a_bool","D":true},"N":"transpose_y"}],"I":[{"%":2},{"%":1}],)"
                            R"("O":[{"%":3,"TT":)" + tensor("f32", "[-1,3]") + "}]}";
const std::string kFetch = R"({"#":"1.fetch","A":[{"AT":{"#":"0.a_str","D":"fetch_name_0"},"N":"name"},)"
                           R"({"AT":{"#":"0.a_i32","D":0},"N":"col"}],"I":[{"%":3}],"O":[{"%":4,"TT":)" +
                           tensor("f32", "[-1,3]") + "}]}";

std::string error_of(const std::string& bytes) {
  try {
    Program::parse(bytes, "inference.json", false);
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("every PIR rule names an op, slots and attributes the op table has", "[pir]") {
  for (const auto& rule : pir::all_rules()) {
    INFO("pd_op." << rule.pir << " -> " << rule.legacy);
    const ops::OpDef* def = ops::find_op(rule.legacy);
    REQUIRE(def);
    for (const auto& operand : rule.operands) {
      if (!operand.slot.empty()) CHECK(def->input(operand.slot));
      if (!operand.list_slot.empty()) CHECK(def->input(operand.list_slot));
      if (!operand.list_slot.empty() && def->input(operand.list_slot)) CHECK(def->input(operand.list_slot)->duplicable);
      if (!operand.attr.empty()) CHECK(def->attr(operand.attr));
    }
    for (const auto& slot : rule.results)
      if (!slot.empty()) CHECK(def->output(slot));
    // "*_values": assign_value's list, named by dtype (fp32_values, ...).
    for (const auto& [from, to] : rule.renamed_attrs) CHECK(def->attr(to == "*_values" ? "fp32_values" : to));
    for (const auto& [name, value] : rule.fixed_attrs) CHECK(def->attr(name));
  }
}

TEST_CASE("a PIR program lowers to feed, ops and fetch with named variables", "[pir]") {
  Program p = Program::parse(pir_program(kParam + "," + kData + "," + kMatmul + "," + kFetch), "inference.json", false);
  const auto& b = p.block(0);
  REQUIRE(b.ops_size() == 3);
  CHECK(b.ops(0).type() == "feed");
  CHECK(op_outputs(b.ops(0), "Out") == std::vector<std::string>{"x"});
  CHECK(b.ops(1).type() == "matmul_v2");
  CHECK(op_inputs(b.ops(1), "X") == std::vector<std::string>{"x"});
  CHECK(op_inputs(b.ops(1), "Y") == std::vector<std::string>{"fc.w"});
  // Renamed attribute, and the fetched value named after its fetch.
  CHECK(attr_bool(b.ops(1), "trans_y", false));
  CHECK(op_outputs(b.ops(1), "Out") == std::vector<std::string>{"fetch_name_0"});
  CHECK(b.ops(2).type() == "fetch");
  const pb::VarDesc* w = p.find_var(0, "fc.w");
  REQUIRE(w);
  CHECK(w->persistable());
  CHECK(w->type().lod_tensor().tensor().dims_size() == 2);
  const pb::VarDesc* x = p.find_var(0, "x");
  REQUIRE(x);
  CHECK_FALSE(x->persistable());
  CHECK(x->type().lod_tensor().tensor().dims(0) == -1);
}

TEST_CASE("PIR constants fold into attributes or become ops where read as tensors", "[pir]") {
  const std::string shape = R"({"#":"1.full_int_array","A":[{"AT":{"#":"0.a_array","D":[{"#":"0.a_i64","D":0},)"
                            R"({"#":"0.a_i64","D":-1}]},"N":"value"},{"AT":{"#":"1.a_dtype","D":"int64"},"N":"dtype"}],)"
                            R"("I":[],"O":[{"%":5,"TT":)" + tensor("i64", "[2]") + "}]}";
  const std::string reshape = R"({"#":"1.reshape","A":[],"I":[{"%":2},{"%":5}],"O":[{"%":6,"TT":)" +
                              tensor("f32", "[-1,4]") + "}]}";
  const std::string one = R"({"#":"1.full","A":[{"AT":{"#":"1.a_intarray","D":[1]},"N":"shape"},)"
                          R"({"AT":{"#":"0.a_f64","D":2.5},"N":"value"},{"AT":{"#":"1.a_dtype","D":"float32"},"N":"dtype"}],)"
                          R"("I":[],"O":[{"%":7,"TT":)" + tensor("f32", "[1]") + "}]}";
  const std::string add = R"({"#":"1.add","A":[],"I":[{"%":6},{"%":7}],"O":[{"%":8,"TT":)" + tensor("f32", "[-1,4]") + "}]}";
  Program p = Program::parse(pir_program(kData + "," + shape + "," + reshape + "," + one + "," + add), "m.json", false);
  const auto& b = p.block(0);
  REQUIRE(b.ops_size() == 4);
  CHECK(b.ops(1).type() == "reshape2");
  CHECK(attr_ints(b.ops(1), "shape") == std::vector<int64_t>{0, -1});
  CHECK(op_inputs(b.ops(1), "Shape").empty());
  CHECK(b.ops(2).type() == "fill_constant");  // the full is an addend: a tensor
  CHECK(attr_float(b.ops(2), "value", 0) == 2.5);
  CHECK(b.ops(3).type() == "elementwise_add");
}

TEST_CASE("bad PIR programs are located errors", "[pir]") {
  CHECK_THAT(error_of("{\"base_code\":{\"magic\":\"pir\",\"version\":1},\"program\":{}}"),
             Catch::Contains("inference.json: error: program.regions: expected a JSON array"));
  CHECK_THAT(error_of("{\"base_code\":{\"magic\":\"pir\"},\"program\":[1,"), Catch::Contains("not valid JSON"));
  // An operand nobody defined, a value defined twice, an unknown element type.
  CHECK_THAT(error_of(pir_program(kData + "," + kMatmul)),
             Catch::Contains("op 1 (pd_op.matmul): error: operand 1 is value 1, which no earlier op"));
  CHECK_THAT(error_of(pir_program(kParam + "," + kParam)), Catch::Contains("value 1 is defined twice"));
  std::string bad_type = kParam;
  bad_type.replace(bad_type.find("0.t_f32"), 7, "0.t_q99");
  CHECK_THAT(error_of(pir_program(bad_type)), Catch::Contains("unknown element type '0.t_q99'"));
  // Every unsupported op at once, with counts.
  const std::string odd = R"({"#":"1.frobnicate","A":[],"I":[{"%":2}],"O":[{"%":9,"TT":)" + tensor("f32", "[1]") + "}]}";
  std::string odd2 = odd;
  odd2.replace(odd2.find("\"%\":9"), 5, "\"%\":10");
  const std::string cond = R"({"#":"1.if","A":[],"I":[{"%":2}],"O":[],"regions":[]})";
  CHECK_THAT(error_of(pir_program(kData + "," + odd + "," + odd2 + "," + cond)),
             Catch::Contains("2 PIR op types not supported: pd_op.frobnicate (2), pd_op.if (1)"));
  // Control flow: a branch must end in cf.yield, and a value of one branch is not visible in the other.
  const std::string flag = R"({"#":"1.full","A":[{"AT":{"#":"1.a_intarray","D":[1]},"N":"shape"},)"
                           R"({"AT":{"#":"0.a_f64","D":1},"N":"value"},{"AT":{"#":"1.a_dtype","D":"bool"},"N":"dtype"}],)"
                           R"("I":[],"O":[{"%":20,"TT":)" + tensor("bool", "[1]") + "}]}";
  const std::string relu = R"({"#":"1.relu","A":[],"I":[{"%":2}],"O":[{"%":21,"TT":)" + tensor("f32", "[-1,4]") + "}]}";
  const std::string yield21 = R"({"#":"2.yield","A":[],"I":[{"%":21}],"O":[]})";
  const std::string yield2 = R"({"#":"2.yield","A":[],"I":[{"%":2}],"O":[]})";
  auto if_op = [&](const std::string& t, const std::string& f) {
    return R"({"#":"1.if","A":[],"I":[{"%":20}],"O":[{"%":22,"TT":)" + tensor("f32", "[-1,4]") +
           R"(}],"regions":[{"#":"region_1","blocks":[{"#":"block_1","args":[],"ops":[)" + t +
           R"(]}]},{"#":"region_2","blocks":[{"#":"block_2","args":[],"ops":[)" + f + "]}]}]}";
  };
  CHECK_NOTHROW(Program::parse(pir_program(kData + "," + flag + "," + if_op(relu + "," + yield21, yield2)), "ok.json", false));
  CHECK_THAT(error_of(pir_program(kData + "," + flag + "," + if_op(relu, yield2))),
             Catch::Contains("op 2 (pd_op.if): error: a region whose block does not end in cf.yield"));
  CHECK_THAT(error_of(pir_program(kData + "," + flag + "," + if_op(relu + "," + yield21, yield21))),
             Catch::Contains("block 1, op 0 (cf.yield): error: operand 0 is value 21, which no earlier op"));
  // A list attribute must hold one kind of scalar (a ProgramDesc list does): a bool beside a string was
  // written as a list of bools before.
  const std::string mixed = R"({"#":"1.relu","A":[{"AT":{"#":"0.a_array","D":[{"#":"0.a_bool","D":true},)"
                            R"({"#":"0.a_str","D":"x"}]},"N":"odd"}],"I":[{"%":2}],"O":[{"%":30,"TT":)" +
                            tensor("f32", "[-1,4]") + "}]}";
  CHECK_THAT(error_of(pir_program(kData + "," + mixed)),
             Catch::Contains("op 1 (pd_op.relu): error: attribute 'odd' mixes kinds of elements or nests lists"));
  // Nesting deeper than the parser allows is an error, not a stack overflow.
  CHECK_THAT(error_of(pir_program(std::string(100000, '['))), Catch::Contains("error"));
  // Names from the file reach messages escaped.
  CHECK_THAT(error_of(pir_program(R"({"#":"1.evil\u001b[31m","A":[],"I":[],"O":[]})")),
             Catch::Contains("pd_op.evil\\x1b[31m"));
}
