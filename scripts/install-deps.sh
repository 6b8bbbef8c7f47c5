#!/usr/bin/env bash
# Installs what gcu needs on Debian 12, idempotently (skips packages already present).
# The CUDA toolkit is not a Debian package: when /usr/local/cuda exists the CUDA
# compressors are built too; otherwise they are skipped.
set -euo pipefail
PKGS=(
  build-essential cmake pkg-config git
  libeigen3-dev libcli11-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libtorch-dev libgloo-dev libopenmpi-dev openmpi-bin libopenblas0
  dataset-fashion-mnist fortunes gnuplot-nox python3-torch
  iproute2 jq xz-utils tar
  clang-14 libfuzzer-14-dev libclang-rt-14-dev
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all packages present"
fi
