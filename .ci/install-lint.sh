#!/usr/bin/env bash
# Installs the offline linters of .github/workflows/ and deploy/kubernetes/ (test deploy_lint):
# a venv .venv-lint with the pinned PyPI packages of .ci/lint-requirements.txt (check-jsonschema,
# zizmor, kubernetes-validate; about 190 MB, 15 s).  Idempotent: a venv whose `pip freeze`
# already equals the pins is left alone.  Run by .ci/install-deps.sh; DMLCHECK_NO_LINT=1 skips
# it (deploy_lint then skips, except under .ci/run, which requires it).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${DMLCHECK_NO_LINT:-}" ] && { echo "install-lint: skipped (DMLCHECK_NO_LINT)"; exit 0; }

. .ci/debian-packages.sh
install_debian_packages install-lint python3 python3-venv

venv=.venv-lint
requirements=.ci/lint-requirements.txt
# pip freeze spells names as the package does; compare case-blind.
want=$(grep -v '^#' "$requirements" | tr '[:upper:]' '[:lower:]' | sort)
have=
if [ -x "$venv/bin/pip" ]; then
  have=$("$venv/bin/pip" freeze 2>/dev/null | tr '[:upper:]' '[:lower:]' | sort || true)
fi
if [ "$want" != "$have" ]; then
  rm -rf "$venv"
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$requirements"
fi
echo "install-lint: $venv with $(echo "$want" | wc -l) pinned packages"
