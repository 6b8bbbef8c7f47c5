#!/usr/bin/env bash
# Installs what gcu needs on Debian 12 (scripts/install-deps.sh), builds everything into
# build/ (scripts/build.sh: LibTorch and CUDA parts when present) and runs the test
# suite. This is what CI runs (.ci/run). About 20 minutes on 2 cores from a fresh clone.
#
#   bash scripts/check.sh           # the default suite (tests labelled `long` skipped)
#   bash scripts/check.sh --long    # the tests labelled `long` only: the sanitizer fuzz
#                                   # build, long calibrate and validate runs
#   bash scripts/check.sh --all     # both
# GPU tests skip themselves with a message where no GPU is present.
set -euo pipefail
cd "$(dirname "$0")/.."
select=(-LE long)
case "${1:-}" in
  "") ;;
  --long) select=(-L long) ;;
  --all) select=() ;;
  *) echo "usage: bash scripts/check.sh [--long|--all]" >&2; exit 2 ;;
esac
bash scripts/install-deps.sh
bash scripts/build.sh
OPENBLAS_NUM_THREADS=1 ctest --test-dir build --no-tests=error --output-on-failure "${select[@]}"
