# Sourced by the install scripts of .ci/: installs, by name, the Debian packages of a list that
# are not installed yet (apt-get, through sudo when not root), and says what it did.
# shellcheck shell=bash

install_debian_packages() {  # install_debian_packages LABEL PACKAGE...
  local label=$1 package sudo=""
  shift
  local missing=()
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
      || missing+=("$package")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    echo "$label: all $# Debian packages already installed"
    return 0
  fi
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  echo "$label: installed ${missing[*]}"
}
