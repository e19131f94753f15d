# Sourced by the README's two commands (scripts/reproduce.sh, scripts/test.sh):
# installs Debian's redis-server package when redis-server or redis-cli is
# missing. The Redis tests and the guard experiment's Redis rows start their
# own servers from it.
if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
  echo "redis-server not found: installing Debian's redis-server package" >&2
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq redis-server >/dev/null
fi
