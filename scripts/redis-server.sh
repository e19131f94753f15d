# Sourced by the README's two commands (scripts/reproduce.sh, scripts/test.sh):
# installs Debian's redis-server package when redis-server or redis-cli is
# missing. The Redis tests and the guard experiment's Redis rows start their
# own servers from it.
source "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh"
if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
  echo "redis-server not found: installing Debian's redis-server package" >&2
  apt_install redis-server
fi
