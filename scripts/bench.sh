#!/usr/bin/env bash
# Runs every benchmark program and writes BENCHMARKS.md. Corpus-based
# sections read ../shared/corpus (or $WASMWRIGHT_CORPUS) and say so when it
# is absent. Machines here are shared and noisy: read the ratios, each
# measured against its peer in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="${WASMWRIGHT_CORPUS:-$(cd .. && pwd)/shared/corpus}"
out="$(mktemp)"
{
  echo "# Benchmarks"
  echo
  echo "Produced by \`make bench\` (scripts/bench.sh) on $(date -u +%Y-%m-%d), $(nproc) CPUs, $(go version | cut -d' ' -f3)."
  echo "Shared, noisy machines: compare the ratios, each against its peer measured in the same run."
  echo
  go run ./internal/bench/kernel
  for prog in pipeline overhead browser throughput network hostile shutdown console; do
    if [ -f "internal/bench/$prog/main.go" ]; then
      go run "./internal/bench/$prog" -corpus "$corpus"
      echo
    fi
  done
} > "$out"
mv "$out" BENCHMARKS.md
echo "wrote BENCHMARKS.md"
