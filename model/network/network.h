// A described network: the model part of a profile generated from a spec instead of
// measured. One generator per family (transformer.cpp, resnet.cpp, vgg.cpp), a tensor-list
// file reader (tensor_list.cpp) and named presets (presets.cpp), behind one registry
// (registry.cpp): make_network("transformer:layers=12,hidden=768,...") / ("gpt2") /
// ("tensors:FILE.csv").
//
// A Network lists its leaf layers in FORWARD EXECUTION order, each with the parameters
// it owns (registration order, PyTorch/HuggingFace/torchvision names and shapes) and the
// work of one sample through it. Gradients become ready in reverse execution order, which
// is the order DDP buckets them once it has seen one backward (model/buckets.h): the
// tensors' backward order is the reverse of the layers' parameters. A parameter shared by
// two layers (tied embeddings) is owned by the layer that runs first and ready when that
// layer's backward ends (its gradient accumulator fires after the last use); the other
// layer lists it in `uses` only.
//
// Work counts are per sample (one image, or one sequence of `seq` tokens) and in
// elements, not bytes: the compute dtype is chosen by whoever costs the network
// (roofline.h). Units: FLOPs (2 per multiply-accumulate), elements. What each layer kind
// counts (linear, conv, attention core, norm, embedding) is the note in family.h: the
// conventions of data/layer_costs.py, which generated the shipped profiles' ready times.
#pragma once

#include "model/profile.h"  // TensorInfo
#include "model/units.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gcu::model::net {

// Thrown for bad specs and files: the message names the field ("transformer: hidden=770
// is not divisible by heads=12") or, for an unknown family or preset, lists the known ones.
struct NetworkError : ModelError {
  using ModelError::ModelError;
};

enum class LayerKind { Linear, Conv2d, Norm, Embedding, Attention, Other };
const char* layer_kind_name(LayerKind k);  // "linear", "conv2d", "norm", "embedding", "attention", "other"

struct Layer {
  std::string name;                 // "bert.encoder.layer.0.attention.self.query"
  LayerKind kind = LayerKind::Other;
  std::vector<TensorInfo> params;   // owned, registration order; full names ("...query.weight")
  std::vector<std::string> uses;    // parameters owned by another layer and used here (tied)
  // Per sample:
  double forward_flops = 0;         // 2 x MACs of the forward pass
  double backward_flops = 0;        // weight gradient + input gradient (none for the first
                                    // layer: the input needs no gradient)
  double activation_elements = 0;   // elements the backward reads and writes that scale with
                                    // the batch (inputs, outputs, their gradients)
  // Per step, independent of the batch: weights read, weight gradients written.
  double weight_elements = 0;
  int kernels = 1;                  // backward kernel launches
};

struct Network {
  std::string spec;                 // canonical: family and every key, or the preset's name
  std::string family;               // "transformer", "resnet", "vgg", "tensors"
  std::string description;          // one line: "GPT-2 (124M): 12 layers, hidden 768, ..."
  std::string sample;               // what one sample is: "1 sequence of 1024 tokens", "1 image 3x224x224"
  std::vector<Layer> layers;        // forward execution order
  // False for a tensor list without per-layer FLOPs: a roofline cannot cost it (the user
  // gives --step-time); ready times then follow parameter counts.
  bool has_work = true;
  // Per-GPU batch (samples) `gcu simulate --model` uses when --batch is not given:
  // transformers 32 sequences up to 512 tokens (fine-tuning), else 8; images 32
  // (torchvision's reference recipe); tensor lists 8.
  int batch_size = 8;
  std::vector<std::string> notes;   // what the generator assumed (e.g. "lm_head tied to wte")

  int64_t parameters() const;                       // sum of owned parameters' elements
  std::vector<TensorInfo> tensors_backward() const;  // reverse of the owned parameters
  double forward_flops() const;                     // per sample, all layers
  double backward_flops() const;
};

// The registry: "FAMILY:key=value,...", a preset name ("gpt2", "llama-7b", ...; presets
// take key overrides: "gpt2:seq=512"), or "tensors:PATH" (a CSV or JSON tensor list; the
// path is read as given and nothing in the file is executed or followed).
// Throws NetworkError.
Network make_network(const std::string& spec);

struct FamilyInfo {
  std::string name;     // "transformer"
  std::string usage;    // "transformer:layers=N,hidden=N,heads=N[,kv_heads=N,ffn=N,...]"
  std::string help;     // what each key means and its default
};
std::vector<FamilyInfo> families();
struct PresetInfo {
  std::string name;     // "llama-7b"
  std::string spec;     // the family spec it stands for
  std::string source;   // where its dimensions come from (paper / model card)
  int64_t parameters = 0;
};
std::vector<PresetInfo> presets();

// A tensor list's TEXT (what "tensors:PATH" reads from the file; tensor_list.cpp): CSV with
// a header `name,shape[,forward_flops][,layer]` or JSON {"tensors": [{"name", "shape",
// ...}]}, chosen by the first non-blank character ('{' = JSON). Rows in BACKWARD order,
// as gcu profiles list them. `label` names the input in messages ("model.csv"); errors
// name the line (CSV) or the JSON pointer and the field. No file is touched.
Network parse_tensor_list(const std::string& text, const std::string& label);

}  // namespace gcu::model::net
