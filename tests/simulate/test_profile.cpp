// The tiny test profile (test_profile.h).
#include "test_profile.h"

namespace gcu::test {

model::Json tiny_profile_json() {
  return model::Json::parse(R"({
    "schema": "gcu.profile/2",
    "provenance": {"source": "unit test", "assumptions": ["everything here is made up"]},
    "cluster": {
      "nodes": 2, "gpus_per_node": 2,
      "levels": {"intra": {"bandwidth_gbps": 100.0, "alpha_s": 5e-6},
                 "inter": {"bandwidth_gbps": 10.0, "alpha_s": 5e-5,
                           "collectives": {"allreduce": [
                             {"min_bytes": 0, "max_bytes": 65536, "alpha_s": 6e-5, "beta_s_per_byte": 9e-10},
                             {"min_bytes": 65536, "alpha_s": 5e-5, "beta_s_per_byte": 8e-10}]}}},
      "algorithms": ["ring", "tree"],
      "gamma_stretch": 1.07, "interference": {"backward_by_collective": 1.07, "backward_codec": 1.3}
    },
    "model": {
      "name": "tiny", "parameters": 160,
      "tensors": [{"name": "fc2.weight", "shape": [5, 10]}, {"name": "fc1.bias", "shape": [10]},
                  {"name": "fc1.weight", "shape": [10, 10]}],
      "compute": [
        {"batch_size": 32, "forward_s": 0.01, "backward_s": 0.02, "optimizer_s": 0.001, "data_s": 0.0,
         "ready_s": [0.005, 0.01, 0.02]},
        {"batch_size": 16, "forward_s": 0.005, "backward_s": 0.01}
      ]
    },
    "ddp": {"first_bucket_bytes": 1048576, "bucket_cap_bytes": 26214400},
    "compressors": {
      "fp16": {"encode": {"fixed_s": 1e-5, "per_element_s": 1e-9},
               "decode": {"fixed_s": 1e-5, "per_element_s": 1e-9, "per_rank_element_s": 0}},
      "topk:k=0.1": {"encode": {"fixed_s": 1e-4, "per_element_s": 1e-8},
                     "decode": {"fixed_s": 1e-5, "per_element_s": 1e-9, "per_rank_element_s": 1e-10},
                     "measured_n": 160}
    },
    "convergence": {
      "target": "90% accuracy", "baseline_iterations": 1000,
      "schemes": {"topk:k=0.1": {"relative_error": 0.4, "relative_error_ef": 0.3, "error_feedback": true}},
      "constants": {"ef_scale": 0.5}
    }
  })");
}

model::Profile tiny_profile() { return model::profile_from_json(tiny_profile_json()); }

}  // namespace gcu::test
