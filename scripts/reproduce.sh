#!/usr/bin/env bash
# The main job, with its set-up: the guard experiment's Redis rows (a Redis
# cache, Redis-held filters) start their own redis-server, so Debian's
# redis-server package is installed first when it is missing; without it
# they would be skipped. Arguments go to `bloomlab reproduce` (--scale,
# --out, --seed, --only).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/redis-server.sh

cargo run --release -p bloomlab-experiments -- reproduce "$@"
