// The transformer family: "transformer:layers=N,hidden=N,heads=N[,...]" with the parameter
// names, shapes and execution order of HuggingFace's BERT (BertForSequenceClassification /
// BertForMaskedLM), GPT-2 (GPT2LMHeadModel / GPT2ForSequenceClassification) or LLaMA
// (LlamaForCausalLM / LlamaForSequenceClassification), chosen by style=. Work per layer:
// family.h. The attention core (no parameters) is a layer of its own, named "<attn>.core".
#include "model/network/family.h"

#include <algorithm>

namespace gcu::model::net::detail {
namespace transformer_impl {

constexpr int64_t kMaxLayers = 10000, kMaxHidden = 1000000, kMaxFfn = 10000000, kMaxSeq = 16777216,
                  kMaxVocab = 100000000, kMaxClasses = 100000000, kMaxTypes = 1000000;

enum class Style { Bert, Gpt2, Llama };

struct Config {
  Style style = Style::Gpt2;
  int64_t layers = 0, hidden = 0, heads = 0, kv_heads = 0, ffn = 0, seq = 0, vocab = 0;
  int64_t max_pos = 0;  // 0: no learned position embeddings (pos=rope)
  int64_t types = 0, classes = 0;
  bool swiglu = false, rms = false, pooler = false, tied = false, bias = true;
  int64_t kv_out() const { return kv_heads * (hidden / heads); }
  int64_t up_out() const { return swiglu ? 2 * ffn : ffn; }  // fused gate+up for bert/gpt2 names
  double tokens() const { return static_cast<double>(seq); }
  double elements() const { return static_cast<double>(seq) * static_cast<double>(hidden); }
};

// LLaMA's default FFN width for SwiGLU (Meta's reference model.py): 2/3 of 4 x hidden, rounded
// up to a multiple of 256 (4096 -> 11008, 5120 -> 13824); 4 x hidden for GELU.
int64_t default_ffn(int64_t hidden, bool swiglu) {
  if (!swiglu) return 4 * hidden;
  const int64_t h = 2 * (4 * hidden) / 3;
  return 256 * ((h + 255) / 256);
}

// BertForSequenceClassification (classes > 0) or BertForMaskedLM (classes = 0). Post-norm.
void bert(const Config& c, Builder& b) {
  const double t = c.tokens(), e = c.elements();
  b.embedding("bert.embeddings.word_embeddings", c.vocab, c.hidden, t);
  if (c.max_pos > 0) b.embedding("bert.embeddings.position_embeddings", c.max_pos, c.hidden, t);
  if (c.types > 0) b.embedding("bert.embeddings.token_type_embeddings", c.types, c.hidden, t);
  b.norm("bert.embeddings.LayerNorm", c.hidden, e, !c.rms);
  for (int64_t i = 0; i < c.layers; ++i) {
    const std::string p = "bert.encoder.layer." + std::to_string(i) + ".";
    b.linear(p + "attention.self.query", c.hidden, c.hidden, t, c.bias);
    b.linear(p + "attention.self.key", c.hidden, c.kv_out(), t, c.bias);
    b.linear(p + "attention.self.value", c.hidden, c.kv_out(), t, c.bias);
    b.attention(p + "attention.self.core", c.seq, c.hidden, c.heads);
    b.linear(p + "attention.output.dense", c.hidden, c.hidden, t, c.bias);
    b.norm(p + "attention.output.LayerNorm", c.hidden, e, !c.rms);
    b.linear(p + "intermediate.dense", c.hidden, c.up_out(), t, c.bias);
    b.linear(p + "output.dense", c.ffn, c.hidden, t, c.bias);
    b.norm(p + "output.LayerNorm", c.hidden, e, !c.rms);
  }
  if (c.classes > 0) {  // the pooler and the classifier see the first token only
    if (c.pooler) b.linear("bert.pooler.dense", c.hidden, c.hidden, 1, true);
    b.linear("classifier", c.hidden, c.classes, 1, true);
    return;
  }
  b.linear("cls.predictions.transform.dense", c.hidden, c.hidden, t, true);
  b.norm("cls.predictions.transform.LayerNorm", c.hidden, e, !c.rms);
  b.linear("cls.predictions.decoder", c.hidden, c.vocab, t, true, false,
           c.tied ? "bert.embeddings.word_embeddings.weight" : "", "cls.predictions.bias");
}

// GPT2LMHeadModel (classes = 0) or GPT2ForSequenceClassification. Pre-norm; Conv1D weights
// are [in, out]; c_attn packs q, k and v.
void gpt2(const Config& c, Builder& b) {
  const double t = c.tokens(), e = c.elements();
  b.embedding("transformer.wte", c.vocab, c.hidden, t);
  if (c.max_pos > 0) b.embedding("transformer.wpe", c.max_pos, c.hidden, t);
  for (int64_t i = 0; i < c.layers; ++i) {
    const std::string p = "transformer.h." + std::to_string(i) + ".";
    b.norm(p + "ln_1", c.hidden, e, !c.rms);
    b.linear(p + "attn.c_attn", c.hidden, c.hidden + 2 * c.kv_out(), t, c.bias, true);
    b.attention(p + "attn.core", c.seq, c.hidden, c.heads);
    b.linear(p + "attn.c_proj", c.hidden, c.hidden, t, c.bias, true);
    b.norm(p + "ln_2", c.hidden, e, !c.rms);
    b.linear(p + "mlp.c_fc", c.hidden, c.up_out(), t, c.bias, true);
    b.linear(p + "mlp.c_proj", c.ffn, c.hidden, t, c.bias, true);
  }
  b.norm("transformer.ln_f", c.hidden, e, !c.rms);
  if (c.classes > 0) b.linear("score", c.hidden, c.classes, t, false);
  else b.linear("lm_head", c.hidden, c.vocab, t, false, false, c.tied ? "transformer.wte.weight" : "");
}

// LlamaForCausalLM (classes = 0) or LlamaForSequenceClassification. Pre-norm; q, k, v, o,
// gate, up, down are nn.Linear [out, in].
void llama(const Config& c, Builder& b) {
  const double t = c.tokens(), e = c.elements();
  b.embedding("model.embed_tokens", c.vocab, c.hidden, t);
  if (c.max_pos > 0) b.embedding("model.embed_positions", c.max_pos, c.hidden, t);
  for (int64_t i = 0; i < c.layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i) + ".";
    b.norm(p + "input_layernorm", c.hidden, e, !c.rms);
    b.linear(p + "self_attn.q_proj", c.hidden, c.hidden, t, c.bias);
    b.linear(p + "self_attn.k_proj", c.hidden, c.kv_out(), t, c.bias);
    b.linear(p + "self_attn.v_proj", c.hidden, c.kv_out(), t, c.bias);
    b.attention(p + "self_attn.core", c.seq, c.hidden, c.heads);
    b.linear(p + "self_attn.o_proj", c.hidden, c.hidden, t, c.bias);
    b.norm(p + "post_attention_layernorm", c.hidden, e, !c.rms);
    if (c.swiglu) b.linear(p + "mlp.gate_proj", c.hidden, c.ffn, t, c.bias);
    b.linear(p + "mlp.up_proj", c.hidden, c.ffn, t, c.bias);
    b.linear(p + "mlp.down_proj", c.ffn, c.hidden, t, c.bias);
  }
  b.norm("model.norm", c.hidden, e, !c.rms);
  if (c.classes > 0) b.linear("score", c.hidden, c.classes, t, false);
  else b.linear("lm_head", c.hidden, c.vocab, t, false, false, c.tied ? "model.embed_tokens.weight" : "");
}

const char* style_name(Style s) { return s == Style::Bert ? "bert" : s == Style::Gpt2 ? "gpt2" : "llama"; }

Config read_config(Args& a) {
  Config c;
  const std::string style = a.choice("style", "gpt2", {"bert", "gpt2", "llama"});
  c.style = style == "bert" ? Style::Bert : style == "gpt2" ? Style::Gpt2 : Style::Llama;
  const bool bert = c.style == Style::Bert, llama = c.style == Style::Llama;
  c.layers = a.integer("layers", std::nullopt, 1, kMaxLayers);
  c.hidden = a.integer("hidden", std::nullopt, 1, kMaxHidden);
  c.heads = a.integer("heads", std::nullopt, 1, kMaxHidden);
  if (c.hidden % c.heads != 0)
    a.fail("hidden=" + std::to_string(c.hidden) + " is not divisible by heads=" + std::to_string(c.heads));
  c.kv_heads = a.integer("kv_heads", c.heads, 1, kMaxHidden);
  if (c.heads % c.kv_heads != 0)
    a.fail("heads=" + std::to_string(c.heads) + " is not divisible by kv_heads=" + std::to_string(c.kv_heads));
  c.swiglu = a.choice("mlp", llama ? "swiglu" : "gelu", {"gelu", "swiglu"}) == "swiglu";
  c.ffn = a.integer("ffn", default_ffn(c.hidden, c.swiglu), 1, kMaxFfn);
  c.rms = a.choice("norm", llama ? "rms" : "layer", {"layer", "rms"}) == "rms";
  const bool learned = a.choice("pos", llama ? "rope" : "learned", {"learned", "rope"}) == "learned";
  c.seq = a.integer("seq", bert ? 128 : llama ? 2048 : 1024, 1, kMaxSeq);
  if (learned) {
    c.max_pos = a.integer("max_pos", std::max<int64_t>(c.seq, bert ? 512 : llama ? 0 : 1024), 1, kMaxSeq);
    if (c.seq > c.max_pos)
      a.fail("seq=" + std::to_string(c.seq) + " exceeds max_pos=" + std::to_string(c.max_pos) +
             " (learned position embeddings)");
  } else if (a.has("max_pos")) {
    a.fail("max_pos applies only with pos=learned");
  }
  c.vocab = a.integer("vocab", bert ? 30522 : llama ? 32000 : 50257, 1, kMaxVocab);
  if (bert) c.types = a.integer("types", 2, 0, kMaxTypes);
  else if (a.has("types")) a.fail("types (token type embeddings) applies only to style=bert");
  c.classes = a.integer("classes", bert ? 2 : 0, 0, kMaxClasses);
  if (bert && c.classes > 0) c.pooler = a.flag("pooler", true);
  else if (a.has("pooler")) a.fail("pooler applies only to style=bert with classes > 0");
  if (c.classes == 0) c.tied = a.flag("tied", !llama);
  else if (a.has("tied")) a.fail("tied applies only to an LM head (classes=0)");
  c.bias = a.flag("bias", !llama);
  return c;
}

std::string describe(const Config& c) {
  std::string d = std::string("transformer, ") + style_name(c.style) + " names: " + std::to_string(c.layers) +
                  " layers, hidden " + std::to_string(c.hidden) + ", " + std::to_string(c.heads) + " heads";
  if (c.kv_heads != c.heads) d += " (" + std::to_string(c.kv_heads) + " kv)";
  d += ", ffn " + std::to_string(c.ffn) + (c.swiglu ? " swiglu" : " gelu") + ", seq " + std::to_string(c.seq) +
       ", vocab " + std::to_string(c.vocab);
  if (c.classes > 0) d += ", " + std::to_string(c.classes) + "-class head";
  else d += c.tied ? ", LM head tied to the embeddings" : ", untied LM head";
  return d;
}

std::vector<std::string> notes(const Config& c) {
  std::vector<std::string> n = {
      "attention core: a layer without parameters named <attention>.core; FLOPs count the full seq x seq "
      "scores (causal masking not halved)"};
  if (c.classes == 0 && c.tied)
    n.push_back("LM head tied to the token embeddings: the embedding owns the weight, whose gradient is ready "
                "when the embedding's backward ends");
  if (c.style == Style::Bert && c.classes > 0)
    n.push_back("pooler and classifier act on the first token only");
  if (c.swiglu && c.style != Style::Llama)
    n.push_back("mlp=swiglu with " + std::string(style_name(c.style)) +
                " names: the first MLP matrix fuses gate and up (2 x ffn outputs)");
  if (c.max_pos > 0 && c.style == Style::Llama)
    n.push_back("pos=learned with llama names: model.embed_positions is gcu's name (LLaMA uses RoPE)");
  return n;
}

}  // namespace transformer_impl

FamilyInfo transformer_family() {
  return {"transformer",
          "transformer:layers=N,hidden=N,heads=N[,style=bert|gpt2|llama,kv_heads=N,ffn=N,seq=N,vocab=N,"
          "mlp=gelu|swiglu,norm=layer|rms,pos=learned|rope,max_pos=N,types=N,classes=N,pooler=B,tied=B,bias=B]",
          "A transformer with HuggingFace parameter names (style=). Required: layers, hidden, heads (hidden "
          "divisible by heads). style: gpt2 (default; GPT2LMHeadModel names, Conv1D [in,out] weights), bert "
          "(BertForSequenceClassification, or BertForMaskedLM with classes=0; post-norm), llama "
          "(LlamaForCausalLM; q/k/v/o and gate/up/down projections). kv_heads: key/value heads, grouped-query "
          "attention (default heads; must divide heads). mlp: gelu (bert, gpt2) or swiglu (llama). ffn: MLP "
          "width (default 4 x hidden; swiglu: 2/3 of that rounded up to a multiple of 256). norm: layer "
          "(bert, gpt2) or rms (llama). pos: learned (bert, gpt2) or rope (llama). max_pos: learned "
          "positions (default bert 512, gpt2 1024, llama seq; at least seq). seq: tokens per sample (bert "
          "128, gpt2 1024, llama 2048). vocab: bert 30522, gpt2 50257, llama 32000. types: token types "
          "(bert only, default 2). classes: classification head size, 0 = LM head (default bert 2, else 0). "
          "pooler: bert's pooler before the classifier (default true). tied: LM head shares the token "
          "embedding (default gpt2 and bert true, llama false). bias: biases on the attention and MLP "
          "projections (default bert and gpt2 true, llama false)."};
}

Network build_transformer(const std::string& label, const KeyValues& kv) {
  using namespace transformer_impl;
  Args a(label, "transformer", kv,
         {"style", "layers", "hidden", "heads", "kv_heads", "mlp", "ffn", "norm", "pos", "seq", "max_pos", "vocab",
          "types", "classes", "pooler", "tied", "bias"});
  const Config c = read_config(a);
  Builder b(label);
  if (c.style == Style::Bert) bert(c, b);
  else if (c.style == Style::Gpt2) gpt2(c, b);
  else llama(c, b);
  Network n;
  n.spec = a.canonical();
  n.family = "transformer";
  n.description = describe(c);
  n.sample = "1 sequence of " + std::to_string(c.seq) + " tokens";
  n.batch_size = c.seq <= 512 ? 32 : 8;  // usual fine-tuning / pre-training batches per GPU
  n.layers = b.take();
  n.notes = notes(c);
  return n;
}

}  // namespace gcu::model::net::detail
