// Tests for trainer/models/torchscript.cpp and scripted_spec.cpp: a TorchScript model as
// a trainer Net. The modules are scripted here with torch::jit::Module::define and saved
// to a temporary file, so the test needs no Python.
#include "trainer/models/registry.h"
#include "trainer/models/scripted_spec.h"

#include <gtest/gtest.h>
#include <torch/script.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

namespace gcu::trainer {
namespace {

std::string ts_temp_path(const std::string& name) {
  return "/tmp/gcu_ts_test_" + std::to_string(::getpid()) + "_" + name + ".pt";
}

// root: scale [6] (trainable), frozen [6] (requires_grad false), fc { weight [4, 6], bias [4] },
// tied = fc.weight (the same tensor), a buffer `seen`; forward: fc(x * scale * frozen).
std::string ts_save_linear(const std::string& name, const std::string& forward_body = "") {
  torch::jit::Module fc("Fc");
  fc.register_parameter("weight", torch::randn({4, 6}).requires_grad_(), false);
  fc.register_parameter("bias", torch::zeros({4}).requires_grad_(), false);
  fc.define(R"(
def forward(self, x):
    return torch.matmul(x, self.weight.t()) + self.bias
)");
  torch::jit::Module m("Root");
  m.register_parameter("scale", torch::ones({6}).requires_grad_(), false);
  m.register_parameter("frozen", torch::ones({6}), false);
  m.register_module("fc", fc);
  m.register_parameter("tied", fc.attr("weight").toTensor(), false);
  m.register_buffer("seen", torch::zeros({1}));
  m.define(forward_body.empty() ? R"(
def forward(self, x):
    return self.fc.forward(x * self.scale * self.frozen)
)"
                                : forward_body);
  const std::string path = ts_temp_path(name);
  m.save(path);
  return path;
}

std::string ts_error_of(const std::string& spec) {
  try {
    make_net(spec);
  } catch (const ModelError& e) {
    return e.what();
  }
  return "";
}

TEST(TorchScriptSpec, ParsesAndComposesCanonically) {
  const auto s = parse_scripted_spec("torchscript:/a|b.pt|loss=mse,input=3x32x32,dtype=float16");
  EXPECT_EQ(s.path, "/a|b.pt");  // the options follow the last '|'
  EXPECT_EQ(s.input_shape, (std::vector<int64_t>{3, 32, 32}));
  EXPECT_EQ(s.dtype, "float16");
  EXPECT_EQ(s.loss, "mse");
  EXPECT_EQ(s.canonical(), "torchscript:/a|b.pt|dtype=float16,input=3x32x32,loss=mse");
  EXPECT_EQ(parse_scripted_spec(s.canonical()).canonical(), s.canonical());

  ScriptedFlags f;
  f.input_shape = "128";
  f.dtype = "int64";
  f.vocab = 1000;
  f.classes = 3;
  EXPECT_EQ(compose_scripted_spec("torchscript:m.pt", f),
            "torchscript:m.pt|classes=3,dtype=int64,input=128,loss=cross_entropy,vocab=1000");
  f = {};
  f.input_shape = "8";
  EXPECT_EQ(compose_scripted_spec("torchscript:m.pt|input=3x4", f), "torchscript:m.pt|dtype=float32,input=8,loss=cross_entropy");
  EXPECT_EQ(compose_scripted_spec("cnn:classes=10", {}), "cnn:classes=10");
}

TEST(TorchScriptSpec, RejectsWhatIsWrongByName) {
  const auto err = [](const std::string& spec) {
    try {
      parse_scripted_spec(spec);
    } catch (const ModelError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(err("torchscript:m.pt").find("--input-shape"), std::string::npos);
  EXPECT_NE(err("torchscript:|input=3").find("no file"), std::string::npos);
  EXPECT_NE(err("torchscript:m.pt|input=3x0x2").find("input=0"), std::string::npos);
  EXPECT_NE(err("torchscript:m.pt|input=3x").find("3x224x224"), std::string::npos);
  EXPECT_NE(err("torchscript:m.pt|input=65536x65536").find("2^31"), std::string::npos);
  EXPECT_NE(err("torchscript:m.pt|input=3,dtype=int8").find("dtype=int8"), std::string::npos);
  EXPECT_NE(err("torchscript:m.pt|input=3,loss=l1").find("loss=l1"), std::string::npos);
  EXPECT_NE(err("torchscript:m.pt|input=3,dtype=int64").find("--vocab"), std::string::npos);
  EXPECT_NE(err("torchscript:m.pt|input=3,colour=red").find("unknown option 'colour=red'"), std::string::npos);
  EXPECT_NE(err("torchscript:m.pt|input=3,input=4").find("twice"), std::string::npos);
  EXPECT_NE(err("torchscript:m.pt|input=3,loss=mse,classes=4").find("cross_entropy"), std::string::npos);
  ScriptedFlags f;
  f.input_shape = "3x32x32";
  try {
    compose_scripted_spec("resnet18", f);
    FAIL() << "flags with a built-in model were accepted";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("'resnet18' is a built-in model"), std::string::npos) << e.what();
  }
}

TEST(TorchScriptNet, AdoptsTheScriptsTensorsByNameOnce) {
  torch::manual_seed(0);
  const std::string path = ts_save_linear("adopt");
  const auto net = make_net("torchscript:" + path + "|input=6,loss=mse");
  const auto params = net->parameter_list();
  std::vector<std::string> names;
  for (const auto& p : params) names.push_back(p.name);
  // The trainable parameters in the script's order, the tied one once, the frozen one not.
  EXPECT_EQ(names, (std::vector<std::string>{"scale", "fc.weight", "fc.bias"}));
  EXPECT_EQ(params[1].shape, (std::vector<int64_t>{4, 6}));
  EXPECT_EQ(net->num_parameters(), 6 + 24 + 4);
  std::vector<std::string> buffers;
  for (const auto& b : net->named_buffers()) buffers.push_back(b.key());
  EXPECT_EQ(buffers, (std::vector<std::string>{"frozen", "seen"}));
  EXPECT_EQ(net->spec(), "torchscript:" + path + "|dtype=float32,input=6,loss=mse");
  EXPECT_EQ(net->input_shape(5), (std::vector<int64_t>{5, 6}));
  std::remove(path.c_str());
}

TEST(TorchScriptNet, TrainingMovesTheScriptsOwnTensors) {
  torch::manual_seed(1);
  const std::string path = ts_save_linear("train");
  const auto net = make_net("torchscript:" + path + "|input=6");
  EXPECT_EQ(net->num_classes(), 4);  // cross-entropy's classes, read from the output [batch, 4]
  const Batch b = net->make_synthetic_batch(8, torch::kCPU, 3);
  const torch::Tensor before = net->forward(b.input).detach().clone();
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.5));
  opt.zero_grad();
  net->loss_on(b).backward();
  for (const auto& p : net->parameters()) ASSERT_TRUE(p.grad().defined());
  opt.step();
  // The optimizer stepped the nn::Module's parameters; the script's forward sees the change.
  EXPECT_GT((net->forward(b.input) - before).abs().max().item<double>(), 1e-4);
  // .to() moves the same tensors in place: the script now runs in float64.
  net->to(torch::kFloat64);
  EXPECT_EQ(net->forward(b.input.to(torch::kFloat64)).scalar_type(), torch::kFloat64);
  std::remove(path.c_str());
}

TEST(TorchScriptNet, LossesAndInputTypes) {
  torch::manual_seed(2);
  const std::string path = ts_save_linear("loss");
  for (const char* loss : {"mse", "mean", "cross_entropy"}) {
    const auto net = make_net("torchscript:" + path + "|input=6,loss=" + std::string(loss));
    const Batch b = net->make_synthetic_batch(4, torch::kCPU, 0);
    const auto l = net->loss_on(b);
    EXPECT_EQ(l.dim(), 0) << loss;
    EXPECT_TRUE(std::isfinite(l.item<double>())) << loss;
  }
  EXPECT_NE(ts_error_of("torchscript:" + path + "|input=6,classes=7").find("returns 4 classes, --classes is 7"),
            std::string::npos);
  // Token ids: an embedding table indexed by int64 inputs, the first element of a tuple.
  torch::jit::Module m("Tokens");
  m.register_parameter("table", torch::randn({50, 3}).requires_grad_(), false);
  m.define(R"(
def forward(self, ids):
    return (torch.embedding(self.table, ids).mean(1), ids)
)");
  const std::string tokens = ts_temp_path("tokens");
  m.save(tokens);
  const auto net = make_net("torchscript:" + tokens + "|input=10,dtype=int64,vocab=50");
  const Batch b = net->make_synthetic_batch(4, torch::kCPU, 0);
  EXPECT_EQ(b.input.scalar_type(), torch::kInt64);
  EXPECT_LT(b.input.max().item<int64_t>(), 50);
  EXPECT_EQ(net->num_classes(), 3);
  net->loss_on(b).backward();
  EXPECT_TRUE(net->parameters()[0].grad().defined());
  EXPECT_NE(ts_error_of("torchscript:" + tokens + "|input=10,dtype=int64,vocab=51").find("rejects"), std::string::npos);
  std::remove(tokens.c_str());
  std::remove(path.c_str());
}

TEST(TorchScriptNet, BadFilesAndInputsAreNamed) {
  const std::string path = ts_save_linear("bad");
  std::string msg = ts_error_of("torchscript:" + path + "|input=5");
  EXPECT_NE(msg.find("rejects an input of shape [2, 5] (float32)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--input-shape"), std::string::npos) << msg;
  msg = ts_error_of("torchscript:/nonexistent/m.pt|input=5");
  EXPECT_NE(msg.find("cannot open '/nonexistent/m.pt'"), std::string::npos) << msg;
  const std::string junk = ts_temp_path("junk");
  std::ofstream(junk) << "{\"not\": \"a TorchScript archive\"}";
  msg = ts_error_of("torchscript:" + junk + "|input=5");
  EXPECT_NE(msg.find("does not load as a TorchScript module"), std::string::npos) << msg;
  std::remove(junk.c_str());
  // A forward that returns a dict, and one with an output cross-entropy cannot take.
  const std::string dict = ts_save_linear("dict", R"(
def forward(self, x):
    return {"logits": self.fc.forward(x)}
)");
  msg = ts_error_of("torchscript:" + dict + "|input=6");
  EXPECT_NE(msg.find("not a tensor"), std::string::npos) << msg;
  const std::string flat = ts_save_linear("flat", R"(
def forward(self, x):
    return self.fc.forward(x).sum(1)
)");
  msg = ts_error_of("torchscript:" + flat + "|input=6");
  EXPECT_NE(msg.find("returns shape [2]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--loss mse"), std::string::npos) << msg;
  EXPECT_EQ(ts_error_of("torchscript:" + flat + "|input=6,loss=mean"), "");
  for (const auto& p : {path, dict, flat}) std::remove(p.c_str());
}

}  // namespace
}  // namespace gcu::trainer
