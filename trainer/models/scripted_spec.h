// trainer/models/scripted_spec.h: the spec of a TorchScript model, torch-free.
//
// On the command line a user names the file and describes its input with flags:
//   gcu train --model torchscript:net.pt --input-shape 3x224x224 [--dtype float32]
//             [--classes 1000] [--loss cross_entropy] [--vocab N]
// compose_scripted_spec() folds the flags into one spec string, which is what the rest of
// gcu passes around (gcu validate hands it to the gcu train and gcu calibrate it runs;
// profiles and logs record it):
//   torchscript:net.pt|classes=1000,dtype=float32,input=3x224x224,loss=cross_entropy
// The options follow the last '|', so a path may hold any character. A TorchScript file is
// code: make_net() loads one only from a spec given on the command line, never from a
// profile, a log or a checkpoint (nothing in gcu builds a net from a spec it read from a file).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gcu::trainer {

inline constexpr const char* kScriptedPrefix = "torchscript:";

struct ScriptedSpec {
  std::string path;                  // the .pt file, as given
  std::vector<int64_t> input_shape;  // one sample's shape, e.g. {3, 224, 224}; batch is prepended
  std::string dtype = "float32";     // float32, float64, float16, bfloat16 or int64 (token ids)
  int64_t classes = 0;               // cross_entropy: the output's classes (0: read from the model)
  std::string loss = "cross_entropy";  // cross_entropy (output [batch, classes]), mse (to 0), mean
  int64_t vocab = 0;                 // int64 inputs: ids are drawn from [0, vocab)

  // "torchscript:PATH|classes=..,dtype=..,input=..,loss=..[,vocab=..]", keys sorted;
  // classes only once known (> 0), vocab only for int64 inputs.
  std::string canonical() const;
};

// Whether `spec` names a TorchScript model ("torchscript:...").
bool is_scripted_spec(const std::string& spec);

// Parses "torchscript:PATH[|key=value,...]". Throws ModelError naming the problem: no path,
// an unknown key, a bad shape ("3x224x224": 1 to 6 positive dimensions, at most 2^31 elements
// per sample), an unknown dtype or loss, int64 input without a vocab >= 2, a non-positive
// count. Reads no file.
ScriptedSpec parse_scripted_spec(const std::string& spec);

// The command-line flags, as given (empty / 0: not given).
struct ScriptedFlags {
  std::string input_shape, dtype, loss;
  int64_t classes = 0, vocab = 0;
  bool any() const { return !input_shape.empty() || !dtype.empty() || !loss.empty() || classes != 0 || vocab != 0; }
};

// `model` with the flags folded in: a TorchScript spec becomes its canonical form (the
// flags override keys the spec already has); any other model is returned unchanged, and
// flags given with one are an error (ModelError: they describe a TorchScript model's input).
std::string compose_scripted_spec(const std::string& model, const ScriptedFlags& flags);

}  // namespace gcu::trainer
