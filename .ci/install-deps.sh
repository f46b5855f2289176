#!/usr/bin/env bash
# Installs every Debian package dmlcheck needs to build, test and fuzz, by name.
# Idempotent: packages already installed are left alone; safe to run repeatedly.  Then the
# adapters' venv (install-adapters.sh) and the linters' venv (install-lint.sh).
set -euo pipefail

packages=(
  meson ninja-build gcc clang pkg-config
  libsqlite3-dev sqlite3 libjansson-dev
  ocl-icd-opencl-dev ocl-icd-libopencl1 opencl-c-headers clinfo
  pocl-opencl-icd oclgrind
  libclang-rt-14-dev valgrind libxml2-utils git zip unzip
  python3 python3-numpy
  chromium  # report_png: the HTML report rendered headless, no sideways scroll at 800/1400 px
  python3-yaml shellcheck  # deploy_workflows: the GitHub workflows checked as YAML and shell
  slurm-wlm munge  # deploy_slurm: a throwaway single-node Slurm cluster (tests/deploy/slurm.sh)
)
# Optional extras a caller can ask for (DMLCHECK_EXTRA_PACKAGES="pkg ...").
if [ -n "${DMLCHECK_EXTRA_PACKAGES:-}" ]; then
  read -r -a extra <<<"$DMLCHECK_EXTRA_PACKAGES"
  packages+=("${extra[@]}")
fi

# shellcheck source=.ci/debian-packages.sh
. "$(dirname "$0")/debian-packages.sh"
install_debian_packages install-deps "${packages[@]}"
bash "$(dirname "$0")/install-adapters.sh"
bash "$(dirname "$0")/install-lint.sh"
