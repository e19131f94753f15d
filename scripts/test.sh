#!/usr/bin/env bash
# The tests, with their set-up: the bloomlab-redis tests start their own
# redis-server processes (a standalone server and a three-master Cluster), so
# Debian's redis-server package is installed first when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/redis-server.sh

cargo test --workspace "$@"
