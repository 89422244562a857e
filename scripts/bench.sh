#!/usr/bin/env bash
# Runs every benchmark program and writes BENCHMARKS.md. Corpus-based
# sections read ../shared/corpus (or $WASMWRIGHT_CORPUS) and say so when it
# is absent. Machines here are shared and noisy: read the ratios, each
# measured against its peer in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="${WASMWRIGHT_CORPUS:-$(cd .. && pwd)/shared/corpus}"
out="$(mktemp)"

# "before" columns: wasmwright as it was before issue 13 (every action
# answered with the whole snapshot), built from its commit into
# build/before and measured beside today's build in the same run.
before_ref=956f632
before=build/before
before_args=()
if git cat-file -e "$before_ref^{commit}" 2>/dev/null; then
  if [ "$(cat "$before/.ref" 2>/dev/null)" != "$before_ref" ] || [ ! -x "$before/build/wasmwright" ]; then
    rm -rf "$before" && mkdir -p "$before"
    git archive "$before_ref" | tar -x -C "$before"
    make -s -C "$before" build >&2
    echo "$before_ref" > "$before/.ref"
  fi
  before_args=(-before "$PWD/$before/build/wasmwright" -before-plugins "$PWD/$before/build/plugins" -before-ref "$before_ref, the commit before issue 13 (every action answered with the whole snapshot)")
else
  echo "bench: commit $before_ref is not in this clone; no before columns" >&2
fi
startup_before=()
if [ ${#before_args[@]} -gt 0 ]; then
  startup_before=(-before-bin "$PWD/$before/build/wasmwright" -before-plugins "$PWD/$before/build/plugins" -before-name "before ($before_ref)")
fi
{
  echo "# Benchmarks"
  echo
  echo "Produced by \`make bench\` (scripts/bench.sh) on $(date -u +%Y-%m-%d), $(nproc) CPUs, $(go version | cut -d' ' -f3)."
  echo "Shared, noisy machines: compare the ratios, each against its peer measured in the same run."
  echo
  go run ./internal/bench/kernel
  for prog in pipeline overhead browser task chrome throughput read network hostile shutdown console swap authors grid; do
    if [ -f "internal/bench/$prog/main.go" ]; then
      args=(-corpus "$corpus")
      case $prog in
        browser) args+=("${before_args[@]}") ;;
        throughput) args+=("${startup_before[@]}") ;;
        task) args=() ;; # its site is its own: no corpus
      esac
      go run "./internal/bench/$prog" "${args[@]}"
      echo
    fi
  done
  go run ./internal/bench/startup "${startup_before[@]}"
  echo
} > "$out"
mv "$out" BENCHMARKS.md
echo "wrote BENCHMARKS.md"
