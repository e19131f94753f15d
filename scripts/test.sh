#!/usr/bin/env bash
# The tests, with their set-up: the bloomlab-redis tests start their own
# redis-server processes (a standalone server and a three-master Cluster), so
# Debian's redis-server package is installed first when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
  echo "redis-server not found: installing Debian's redis-server package" >&2
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq redis-server >/dev/null
fi

cargo test --workspace "$@"
