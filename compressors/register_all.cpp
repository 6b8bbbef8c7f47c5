// The list of schemes (registry.h): one line per scheme. CUDA versions are added by
// compressors/cuda's register_cuda(), called by the executables that want them. The order
// is the order of listings (`gcu schemes`, `recommend`'s default candidates, calibrate's
// default specs).
#include "registry.h"

#include "none.h"
#include "fp16.h"
#include "bf16.h"
#include "signsgd.h"
#include "qsgd.h"
#include "terngrad.h"
#include "efsignsgd.h"
#include "thc.h"
#include "powersgd.h"
#include "topk.h"
#include "topkc.h"
#include "randomk.h"
#include "mstopk.h"
#include "dgc.h"

namespace gcu::compress {

void register_all(Registry& r) {
  register_none(r);
  register_fp16(r);
  register_bf16(r);
  register_powersgd(r);
  register_topk(r);
  register_topkc(r);
  register_randomk(r);
  register_mstopk(r);
  register_dgc(r);
  register_signsgd(r);
  register_efsignsgd(r);
  register_qsgd(r);
  register_terngrad(r);
  register_thc(r);
}

}  // namespace gcu::compress
