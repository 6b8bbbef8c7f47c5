// cli/model_flags.cpp: --input-shape, --dtype, --classes, --loss, --vocab (model_flags.h).
#include "model_flags.h"

#include "command.h"
#include "trainer/models/registry.h"

namespace gcu::cli {

void add_scripted_model_flags(CLI::App* sub, trainer::ScriptedFlags* f) {
  const char* group = "Your TorchScript model (--model torchscript:FILE.pt)";
  sub->add_option("--input-shape", f->input_shape,
                  "One input sample's shape, e.g. 3x224x224 (images) or 128 (token ids); the batch is prepended")
      ->group(group);
  sub->add_option("--dtype", f->dtype, "The input's element type: float32 (default), float64, float16, bfloat16, "
                                       "or int64 token ids (with --vocab)")
      ->check(CLI::IsMember({"float32", "float64", "float16", "bfloat16", "int64"}))
      ->group(group);
  sub->add_option("--classes", f->classes,
                  "Classes of the cross-entropy targets (default: the model's output [batch, classes] tells)")
      ->check(CLI::Range(int64_t{2}, int64_t{1} << 40))
      ->group(group);
  sub->add_option("--loss", f->loss,
                  "cross_entropy (default: on [batch, classes] logits), mse (of the output to 0) or mean (of the "
                  "output, for a model that returns its own loss)")
      ->check(CLI::IsMember({"cross_entropy", "mse", "mean"}))
      ->group(group);
  sub->add_option("--vocab", f->vocab, "int64 inputs: token ids are drawn from [0, vocab)")
      ->check(CLI::Range(int64_t{2}, int64_t{1} << 40))
      ->group(group);
}

std::string model_spec_with_flags(const std::string& model, const trainer::ScriptedFlags& flags) {
  try {
    const std::string spec = trainer::compose_scripted_spec(model, flags);
    if (!trainer::is_scripted_spec(spec)) return spec;
    return trainer::make_net(spec)->spec();  // loads it once: the file and its input are fine
  } catch (const trainer::ModelError& e) {
    throw UsageError(std::string("--model: ") + e.what());
  }
}

}  // namespace gcu::cli
