# Sourced by the scripts that install what a step needs when it is missing
# (scripts/redis-server.sh, .ci/run): `apt_install PACKAGE...` installs
# Debian's packages, as root or through sudo.
apt_install() {
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq "$@" >/dev/null
}
