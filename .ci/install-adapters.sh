#!/usr/bin/env bash
# Installs what the adapters to real libraries need (adapters/, suite 'adapters'):
#   - Debian packages by name: python3-numpy and python3-torch (used through /usr/bin/python3);
#   - a venv .venv-adapters with the pinned PyPI packages of adapters/requirements.txt
#     (ONNX Runtime, ONNX, OpenVINO, TensorFlow with LiteRT, JAX).
# Idempotent; run by .ci/install-deps.sh.  DMLCHECK_NO_ADAPTERS=1 skips it (the adapter
# suite then registers no test).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${DMLCHECK_NO_ADAPTERS:-}" ] && { echo "install-adapters: skipped (DMLCHECK_NO_ADAPTERS)"; exit 0; }

. .ci/debian-packages.sh
packages=(python3 python3-venv python3-numpy python3-torch)
install_debian_packages install-adapters "${packages[@]}"

venv=.venv-adapters
want=$(grep -v '^#' adapters/requirements.txt | sort)
have=$([ -x "$venv/bin/pip" ] && "$venv/bin/pip" freeze 2>/dev/null | sort || true)
if [ "$want" != "$have" ]; then
  rm -rf "$venv"
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r adapters/requirements.txt
fi
echo "install-adapters: Debian ${packages[*]}; $venv with $(echo "$want" | wc -l) pinned packages"
