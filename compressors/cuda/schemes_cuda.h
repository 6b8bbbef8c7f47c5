// Factories of the CUDA schemes, one per .cu file. Each takes the CPU twin built from the
// same spec (see cuda_scheme.h) and returns the CUDA version. register_cuda.cpp maps
// scheme names to these. Host code; no CUDA headers.
#pragma once

#include "compressors/compressor.h"

#include <memory>

namespace gcu::cuda {

using CudaMaker = std::unique_ptr<compress::Compressor> (*)(std::unique_ptr<compress::Compressor> cpu);

std::unique_ptr<compress::Compressor> make_none_cuda(std::unique_ptr<compress::Compressor> cpu);
std::unique_ptr<compress::Compressor> make_fp16_cuda(std::unique_ptr<compress::Compressor> cpu);
std::unique_ptr<compress::Compressor> make_bf16_cuda(std::unique_ptr<compress::Compressor> cpu);
std::unique_ptr<compress::Compressor> make_topk_cuda(std::unique_ptr<compress::Compressor> cpu);
std::unique_ptr<compress::Compressor> make_signsgd_cuda(std::unique_ptr<compress::Compressor> cpu);
std::unique_ptr<compress::Compressor> make_qsgd_cuda(std::unique_ptr<compress::Compressor> cpu);
std::unique_ptr<compress::Compressor> make_terngrad_cuda(std::unique_ptr<compress::Compressor> cpu);
std::unique_ptr<compress::Compressor> make_randomk_cuda(std::unique_ptr<compress::Compressor> cpu);
std::unique_ptr<compress::Compressor> make_topkc_cuda(std::unique_ptr<compress::Compressor> cpu);
std::unique_ptr<compress::Compressor> make_dgc_cuda(std::unique_ptr<compress::Compressor> cpu);
std::unique_ptr<compress::Compressor> make_mstopk_cuda(std::unique_ptr<compress::Compressor> cpu);
std::unique_ptr<compress::Compressor> make_efsignsgd_cuda(std::unique_ptr<compress::Compressor> cpu);
std::unique_ptr<compress::Compressor> make_thc_cuda(std::unique_ptr<compress::Compressor> cpu);
std::unique_ptr<compress::Compressor> make_powersgd_cuda(std::unique_ptr<compress::Compressor> cpu);

// "ef(<inner>)" on the GPU (error_feedback.cu); called by make_compressor() in CUDA builds.
std::unique_ptr<compress::Compressor> make_error_feedback_cuda(std::unique_ptr<compress::Compressor> inner);

}  // namespace gcu::cuda
