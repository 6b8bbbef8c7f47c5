// Named networks (network.h presets()): a family spec each, with the source of its
// dimensions. make_network("gpt2:seq=512") applies overrides to the preset's keys.
// Parameter counts (tests/model/network_test.cpp checks each against the published one):
// GPT-2 124,439,808 / 354,823,168 / 774,030,080 / 1,557,611,200; BERT-base with a 2-class
// head 109,483,778; BERT-large 335,143,938; LLaMA 7B 6,738,415,616, 13B 13,015,864,320,
// LLaMA-2 70B 68,976,648,192; ResNet-50 25,557,032, ResNet-101 44,549,160.
#include "model/network/family.h"

namespace gcu::model::net {
namespace detail {

const std::vector<Preset>& preset_table() {
  static const std::vector<Preset> table = {
      {"gpt2", "transformer:style=gpt2,layers=12,hidden=768,heads=12,seq=1024,max_pos=1024,vocab=50257",
       "Radford et al. 2019, Language Models are Unsupervised Multitask Learners; Hugging Face model card "
       "openai-community/gpt2 (config.json: n_layer 12, n_embd 768, n_head 12, n_positions 1024)",
       "GPT-2 (124M)"},
      {"gpt2-medium", "transformer:style=gpt2,layers=24,hidden=1024,heads=16,seq=1024,max_pos=1024,vocab=50257",
       "Radford et al. 2019; Hugging Face model card openai-community/gpt2-medium (n_layer 24, n_embd 1024, "
       "n_head 16)",
       "GPT-2 medium (355M)"},
      {"gpt2-large", "transformer:style=gpt2,layers=36,hidden=1280,heads=20,seq=1024,max_pos=1024,vocab=50257",
       "Radford et al. 2019; Hugging Face model card openai-community/gpt2-large (n_layer 36, n_embd 1280, "
       "n_head 20)",
       "GPT-2 large (774M)"},
      {"gpt2-xl", "transformer:style=gpt2,layers=48,hidden=1600,heads=25,seq=1024,max_pos=1024,vocab=50257",
       "Radford et al. 2019; Hugging Face model card openai-community/gpt2-xl (n_layer 48, n_embd 1600, "
       "n_head 25)",
       "GPT-2 XL (1.5B)"},
      {"gpt3-1.3b", "transformer:style=gpt2,layers=24,hidden=2048,heads=16,seq=2048,max_pos=2048,vocab=50257",
       "Brown et al. 2020, Language Models are Few-Shot Learners (arXiv:2005.14165), Table 2.1 'GPT-3 XL': "
       "24 layers, d_model 2048, context 2048; 16 heads of 128 as in EleutherAI/gpt-neo-1.3B's config (the "
       "table's 24 heads x 128 does not divide 2048); GPT-2 names and tokenizer, tied head, dense attention",
       "GPT-3 XL-style (1.3B)"},
      {"bert-base",
       "transformer:style=bert,layers=12,hidden=768,heads=12,ffn=3072,seq=128,max_pos=512,vocab=30522,types=2,"
       "classes=2",
       "Devlin et al. 2019, BERT (arXiv:1810.04805); Hugging Face google-bert/bert-base-uncased as "
       "BertForSequenceClassification with 2 labels; seq 128 as the shipped profile "
       "data/profiles/v100-bert-base.json",
       "BERT-base, 2-class head"},
      {"bert-large",
       "transformer:style=bert,layers=24,hidden=1024,heads=16,ffn=4096,seq=128,max_pos=512,vocab=30522,types=2,"
       "classes=2",
       "Devlin et al. 2019, BERT (arXiv:1810.04805); Hugging Face google-bert/bert-large-uncased as "
       "BertForSequenceClassification with 2 labels (BertModel 335,141,888 + classifier 2,050); seq 128",
       "BERT-large, 2-class head"},
      {"llama-7b",
       "transformer:style=llama,layers=32,hidden=4096,heads=32,ffn=11008,seq=2048,vocab=32000",
       "Touvron et al. 2023, LLaMA: Open and Efficient Foundation Language Models (arXiv:2302.13971), "
       "Table 2; Hugging Face LlamaForCausalLM config (intermediate_size 11008, vocab 32000, untied head)",
       "LLaMA 7B"},
      {"llama-13b",
       "transformer:style=llama,layers=40,hidden=5120,heads=40,ffn=13824,seq=2048,vocab=32000",
       "Touvron et al. 2023 (arXiv:2302.13971), Table 2; Hugging Face LlamaForCausalLM config "
       "(intermediate_size 13824)",
       "LLaMA 13B"},
      {"llama-70b",
       "transformer:style=llama,layers=80,hidden=8192,heads=64,kv_heads=8,ffn=28672,seq=4096,vocab=32000",
       "Touvron et al. 2023, Llama 2 (arXiv:2307.09288): grouped-query attention with 8 key/value heads, "
       "context 4096; Hugging Face meta-llama/Llama-2-70b-hf config.json (intermediate_size 28672)",
       "LLaMA-2 70B"},
      {"resnet18", "resnet:depth=18,classes=1000,image=224",
       "He et al. 2016, Deep Residual Learning (arXiv:1512.03385); torchvision resnet18 (11,689,512 parameters)",
       "ResNet-18"},
      {"resnet50", "resnet:depth=50,classes=1000,image=224",
       "He et al. 2016 (arXiv:1512.03385); torchvision resnet50, Bottleneck v1.5 (25,557,032 parameters, as "
       "data/profiles/v100-resnet50.json)",
       "ResNet-50"},
      {"resnet101", "resnet:depth=101,classes=1000,image=224",
       "He et al. 2016 (arXiv:1512.03385); torchvision resnet101, Bottleneck v1.5 (44,549,160 parameters, as "
       "data/profiles/v100-resnet101.json)",
       "ResNet-101"},
      {"vgg19", "vgg:depth=19,bn=false,classes=1000,image=224",
       "Simonyan and Zisserman 2015, Very Deep Convolutional Networks (arXiv:1409.1556), configuration E; "
       "torchvision vgg19 (143,667,240 parameters)",
       "VGG-19"},
  };
  return table;
}

const Preset* find_preset(const std::string& name) {
  for (const auto& p : preset_table())
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace detail

std::vector<PresetInfo> presets() {
  std::vector<PresetInfo> v;
  for (const auto& p : detail::preset_table())
    v.push_back({p.name, p.spec, p.source, make_network(p.name).parameters()});
  return v;
}

}  // namespace gcu::model::net
