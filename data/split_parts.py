#!/usr/bin/python3
# Writes the shipped V100 study as parts (model/parts.h, docs/profile-schema.md "Parts"):
# three model parts (data/parts/models/v100-*.json: model, ddp, convergence) and one system
# part (data/parts/systems/p3.8xlarge-v100.json: the cluster and the codec fits), from the
# shipped profiles. `gcu simulate -p data/parts/models/v100-bert-base.json --system
# data/parts/systems/p3.8xlarge-v100.json` combines them into data/profiles/v100-bert-base.json
# exactly (tests/model/parts_test.cpp).   /usr/bin/python3 data/split_parts.py
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = ["v100-resnet50", "v100-resnet101", "v100-bert-base"]
# An assumption line speaks of the system when it names these (the rest are the model's).
SYSTEM_WORDS = ("cluster:", "inter-node link", "intra-node link", "gamma_stretch", "interference.",
                "encode/decode fits", "codec ")


def write(path, doc):
    with open(path + ".tmp", "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)
    print("wrote", os.path.relpath(path, os.path.dirname(HERE)))


def main():
    profiles = [json.load(open(os.path.join(HERE, "profiles", m + ".json"))) for m in MODELS]
    for name, p in zip(MODELS, profiles):
        write(os.path.join(HERE, "parts", "models", name + ".json"),
              {"schema": "gcu.model-part/1", "provenance": p["provenance"], "model": p["model"], "ddp": p["ddp"],
               "convergence": p["convergence"]})
    first = profiles[0]
    for p in profiles[1:]:
        assert p["cluster"] == first["cluster"] and p["compressors"] == first["compressors"], "one system"
    common = [l for l in first["provenance"]["assumptions"]
              if all(l in p["provenance"]["assumptions"] for p in profiles)]
    prov = {k: v for k, v in first["provenance"].items() if k != "assumptions"}
    prov["assumptions"] = [l for l in common if any(w in l for w in SYSTEM_WORDS)]
    write(os.path.join(HERE, "parts", "systems", "p3.8xlarge-v100.json"),
          {"schema": "gcu.system-part/1", "provenance": prov, "cluster": first["cluster"],
           "compressors": first["compressors"]})


if __name__ == "__main__":
    main()
