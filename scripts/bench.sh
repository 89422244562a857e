#!/usr/bin/env bash
# Runs every benchmark program and writes BENCHMARKS.md. Corpus-based
# sections read ../shared/corpus (or $WASMWRIGHT_CORPUS) and say so when it
# is absent. Machines here are shared and noisy: read the ratios, each
# measured against its peer in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="${WASMWRIGHT_CORPUS:-$(cd .. && pwd)/shared/corpus}"
out="$(mktemp)"
# The start-up bench also measures the commit before issue 13 (lazy
# plugins, shipped compiled code): built in a temporary worktree. Set
# WASMWRIGHT_BEFORE=none to skip it.
before_rev="${WASMWRIGHT_BEFORE:-956f632}"
before_args=()
if [ "$before_rev" != none ] && git rev-parse --verify -q "$before_rev^{commit}" >/dev/null; then
  before_dir="$(mktemp -d)/before"
  trap 'git worktree remove --force "$before_dir" >/dev/null 2>&1 || true; rm -rf "$(dirname "$before_dir")"' EXIT
  if git worktree add --detach "$before_dir" "$before_rev" >/dev/null 2>&1 &&
    (cd "$before_dir" && make build >/dev/null 2>&1) && ln -sfn "$PWD/build/driver" "$before_dir/build/driver"; then
    before_args=(-before-bin "$before_dir/build/wasmwright" -before-plugins "$before_dir/build/plugins" -before-name "before ($before_rev)")
  else
    echo "bench: building $before_rev failed; the start-up bench has no before column" >&2
  fi
fi
{
  echo "# Benchmarks"
  echo
  echo "Produced by \`make bench\` (scripts/bench.sh) on $(date -u +%Y-%m-%d), $(nproc) CPUs, $(go version | cut -d' ' -f3)."
  echo "Shared, noisy machines: compare the ratios, each against its peer measured in the same run."
  echo
  go run ./internal/bench/kernel
  for prog in pipeline overhead browser network hostile shutdown console; do
    if [ -f "internal/bench/$prog/main.go" ]; then
      go run "./internal/bench/$prog" -corpus "$corpus"
      echo
    fi
  done
  go run ./internal/bench/startup "${before_args[@]}"
  echo
} > "$out"
mv "$out" BENCHMARKS.md
echo "wrote BENCHMARKS.md"
