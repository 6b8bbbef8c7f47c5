// trainer/models/bert.cpp: a BERT-style transformer encoder for sequence classification
// ("bert"), with the parameter names, shapes and order of Hugging Face's
// BertForSequenceClassification:
//   embeddings.{word,position,token_type}_embeddings, embeddings.LayerNorm
//   encoder.layer.<i>.attention.self.{query,key,value}
//   encoder.layer.<i>.attention.output.{dense,LayerNorm}
//   encoder.layer.<i>.intermediate.dense, encoder.layer.<i>.output.{dense,LayerNorm}
//   pooler.dense (tanh on the first token), classifier
// Attention is written with plain tensor ops (no nn::MultiheadAttention, whose packed
// in_proj would change the layout). Inputs are token ids [batch, seq]; token types are
// all 0 and there is no padding mask. Defaults = BERT-base with 2 labels:
// 109,483,778 parameters.
#include "trainer/models/builders.h"

#include <torch/torch.h>

#include <cmath>

namespace gcu::trainer::detail {
namespace {

namespace nn = torch::nn;

struct BertConfig {
  int64_t layers = 12, hidden = 768, heads = 12, intermediate = 3072;
  int64_t vocab = 30522, positions = 512, type_vocab = 2, labels = 2, seq = 128;
  double dropout = 0.1;
  double layer_norm_eps = 1e-12;
};

nn::LayerNorm layer_norm(const BertConfig& c) {
  return nn::LayerNorm(nn::LayerNormOptions({c.hidden}).eps(c.layer_norm_eps));
}

class Embeddings : public nn::Module {
 public:
  explicit Embeddings(const BertConfig& c) {
    word_ = register_module("word_embeddings", nn::Embedding(c.vocab, c.hidden));
    position_ = register_module("position_embeddings", nn::Embedding(c.positions, c.hidden));
    token_type_ = register_module("token_type_embeddings", nn::Embedding(c.type_vocab, c.hidden));
    norm_ = register_module("LayerNorm", layer_norm(c));
    dropout_ = register_module("dropout", nn::Dropout(c.dropout));
  }
  torch::Tensor forward(const torch::Tensor& ids) {
    const int64_t seq = ids.size(1);
    const auto positions = torch::arange(seq, ids.options().dtype(torch::kInt64));
    auto x = word_->forward(ids) + position_->forward(positions).unsqueeze(0) +
             token_type_->forward(torch::zeros_like(positions)).unsqueeze(0);
    return dropout_->forward(norm_->forward(x));
  }

 private:
  nn::Embedding word_{nullptr}, position_{nullptr}, token_type_{nullptr};
  nn::LayerNorm norm_{nullptr};
  nn::Dropout dropout_{nullptr};
};

// attention.self: scaled dot-product attention over `heads` heads.
class SelfAttention : public nn::Module {
 public:
  explicit SelfAttention(const BertConfig& c) : heads_(c.heads), head_dim_(c.hidden / c.heads) {
    query_ = register_module("query", nn::Linear(c.hidden, c.hidden));
    key_ = register_module("key", nn::Linear(c.hidden, c.hidden));
    value_ = register_module("value", nn::Linear(c.hidden, c.hidden));
    dropout_ = register_module("dropout", nn::Dropout(c.dropout));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    const int64_t batch = x.size(0), seq = x.size(1);
    auto split = [&](const torch::Tensor& t) {  // [B, S, H*D] -> [B, H, S, D]
      return t.view({batch, seq, heads_, head_dim_}).transpose(1, 2);
    };
    const auto q = split(query_->forward(x));
    const auto k = split(key_->forward(x));
    const auto v = split(value_->forward(x));
    auto scores = torch::matmul(q, k.transpose(-1, -2)) / std::sqrt(double(head_dim_));
    auto probs = dropout_->forward(torch::softmax(scores, -1));
    return torch::matmul(probs, v).transpose(1, 2).reshape({batch, seq, heads_ * head_dim_});
  }

 private:
  int64_t heads_, head_dim_;
  nn::Linear query_{nullptr}, key_{nullptr}, value_{nullptr};
  nn::Dropout dropout_{nullptr};
};

// dense + dropout + residual + LayerNorm (attention.output and output in HF).
class AddNorm : public nn::Module {
 public:
  AddNorm(const BertConfig& c, int64_t in) {
    dense_ = register_module("dense", nn::Linear(in, c.hidden));
    norm_ = register_module("LayerNorm", layer_norm(c));
    dropout_ = register_module("dropout", nn::Dropout(c.dropout));
  }
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& residual) {
    return norm_->forward(dropout_->forward(dense_->forward(x)) + residual);
  }

 private:
  nn::Linear dense_{nullptr};
  nn::LayerNorm norm_{nullptr};
  nn::Dropout dropout_{nullptr};
};

class Attention : public nn::Module {
 public:
  explicit Attention(const BertConfig& c) {
    self_ = register_module("self", std::make_shared<SelfAttention>(c));
    output_ = register_module("output", std::make_shared<AddNorm>(c, c.hidden));
  }
  torch::Tensor forward(const torch::Tensor& x) { return output_->forward(self_->forward(x), x); }

 private:
  std::shared_ptr<SelfAttention> self_;
  std::shared_ptr<AddNorm> output_;
};

class Intermediate : public nn::Module {
 public:
  explicit Intermediate(const BertConfig& c) {
    dense_ = register_module("dense", nn::Linear(c.hidden, c.intermediate));
  }
  torch::Tensor forward(const torch::Tensor& x) { return torch::gelu(dense_->forward(x)); }

 private:
  nn::Linear dense_{nullptr};
};

class Layer : public nn::Module {
 public:
  explicit Layer(const BertConfig& c) {
    attention_ = register_module("attention", std::make_shared<Attention>(c));
    intermediate_ = register_module("intermediate", std::make_shared<Intermediate>(c));
    output_ = register_module("output", std::make_shared<AddNorm>(c, c.intermediate));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    const auto a = attention_->forward(x);
    return output_->forward(intermediate_->forward(a), a);
  }

 private:
  std::shared_ptr<Attention> attention_;
  std::shared_ptr<Intermediate> intermediate_;
  std::shared_ptr<AddNorm> output_;
};

class Encoder : public nn::Module {
 public:
  explicit Encoder(const BertConfig& c) {
    auto list = nn::ModuleList();
    for (int64_t i = 0; i < c.layers; ++i) {
      layers_.push_back(std::make_shared<Layer>(c));
      list->push_back(layers_.back());
    }
    register_module("layer", list);
  }
  torch::Tensor forward(torch::Tensor x) {
    for (const auto& layer : layers_) x = layer->forward(x);
    return x;
  }

 private:
  std::vector<std::shared_ptr<Layer>> layers_;
};

class Bert : public Net {
 public:
  explicit Bert(const BertConfig& c) : config_(c) {
    embeddings_ = register_module("embeddings", std::make_shared<Embeddings>(c));
    encoder_ = register_module("encoder", std::make_shared<Encoder>(c));
    auto pooler = std::make_shared<nn::Module>();
    pooler_dense_ = pooler->register_module("dense", nn::Linear(c.hidden, c.hidden));
    register_module("pooler", pooler);
    dropout_ = register_module("dropout", nn::Dropout(c.dropout));
    classifier_ = register_module("classifier", nn::Linear(c.hidden, c.labels));
    init_weights();
  }

  torch::Tensor forward(const torch::Tensor& ids) override {
    const auto hidden = encoder_->forward(embeddings_->forward(ids));
    const auto pooled = torch::tanh(pooler_dense_->forward(hidden.select(1, 0)));
    return classifier_->forward(dropout_->forward(pooled));
  }

  std::vector<int64_t> input_shape(int64_t batch) const override { return {batch, config_.seq}; }
  InputKind input_kind() const override { return InputKind::kTokens; }
  int64_t num_classes() const override { return config_.labels; }
  int64_t vocab_size() const override { return config_.vocab; }

 private:
  // HF BERT: linear and embedding weights normal(0, 0.02), biases 0, LayerNorm 1/0.
  void init_weights() {
    torch::NoGradGuard no_grad;
    for (auto& module : modules(/*include_self=*/false)) {
      if (auto* l = module->as<nn::Linear>()) {
        nn::init::normal_(l->weight, 0.0, 0.02);
        nn::init::zeros_(l->bias);
      } else if (auto* e = module->as<nn::Embedding>()) {
        nn::init::normal_(e->weight, 0.0, 0.02);
      } else if (auto* n = module->as<nn::LayerNorm>()) {
        nn::init::ones_(n->weight);
        nn::init::zeros_(n->bias);
      }
    }
  }

  BertConfig config_;
  std::shared_ptr<Embeddings> embeddings_;
  std::shared_ptr<Encoder> encoder_;
  nn::Linear pooler_dense_{nullptr};
  nn::Dropout dropout_{nullptr};
  nn::Linear classifier_{nullptr};
};

}  // namespace

std::shared_ptr<Net> make_bert(const ModelArgs& args) {
  BertConfig c;
  c.layers = args.get_int("layers", c.layers);
  c.hidden = args.get_int("hidden", c.hidden);
  c.heads = args.get_int("heads", c.heads);
  c.intermediate = args.get_int("intermediate", 4 * c.hidden);
  c.vocab = args.get_int("vocab", c.vocab, 2);
  c.positions = args.get_int("positions", c.positions);
  c.type_vocab = args.get_int("type_vocab", c.type_vocab);
  c.labels = args.get_int("classes", c.labels, 2);
  c.seq = args.get_int("seq", c.seq);
  c.dropout = args.get_double("dropout", c.dropout, 0.0, 1.0);
  args.require_all_used(
      "layers, hidden, heads, intermediate, vocab, positions, type_vocab, classes, seq, dropout");
  if (c.hidden % c.heads != 0) {
    throw ModelError("bert: hidden=" + std::to_string(c.hidden) +
                     " is not a multiple of heads=" + std::to_string(c.heads));
  }
  if (c.seq > c.positions) {
    throw ModelError("bert: seq=" + std::to_string(c.seq) + " exceeds positions=" +
                     std::to_string(c.positions));
  }
  return std::make_shared<Bert>(c);
}

}  // namespace gcu::trainer::detail
