#!/usr/bin/env bash
# Runs every benchmark program and writes BENCHMARKS.md. Corpus-based
# sections read ../shared/corpus (or $WASMWRIGHT_CORPUS) and say so when it
# is absent. Machines here are shared and noisy: read the ratios, each
# measured against its peer in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
# The harness is a module of its own (internal/bench/go.mod): its
# programs run from there and find the repository with wasmwright.Root.
bench() { local prog=$1; shift; go -C internal/bench run "./$prog" "$@"; }
corpus="${WASMWRIGHT_CORPUS:-$(cd .. && pwd)/shared/corpus}"
out="$(mktemp)"
# Every program appends the figures the summary table shows to this file
# (internal/bench/rows); the summary is printed at the top.
export WASMWRIGHT_BENCH_ROWS="$(mktemp)"
trap 'rm -f "$WASMWRIGHT_BENCH_ROWS"' EXIT

# "before" columns: wasmwright as it was when the speed work (as fast as
# Playwright MCP at its fastest) began, built from its commit into
# build/before and measured beside today's build in the same run.
before_ref=2e281ac
before_what="$before_ref, main when the speed work began"
before=build/before
before_args=()
if git cat-file -e "$before_ref^{commit}" 2>/dev/null; then
  if [ "$(cat "$before/.ref" 2>/dev/null)" != "$before_ref" ] || [ ! -x "$before/build/wasmwright" ]; then
    rm -rf "$before" && mkdir -p "$before"
    git archive "$before_ref" | tar -x -C "$before"
    make -s -C "$before" build >&2
    echo "$before_ref" > "$before/.ref"
  fi
  before_args=(-before "$PWD/$before/build/wasmwright" -before-plugins "$PWD/$before/build/plugins" -before-ref "$before_what")
else
  echo "bench: commit $before_ref is not in this clone; no before columns" >&2
fi
startup_before=()
task_before=()
if [ ${#before_args[@]} -gt 0 ]; then
  startup_before=(-before-bin "$PWD/$before/build/wasmwright" -before-plugins "$PWD/$before/build/plugins" -before-name "before ($before_ref)")
  task_before=(-before "$PWD/$before/build/wasmwright" -before-plugins "$PWD/$before/build/plugins")
fi
{
  echo "# Benchmarks"
  echo
  echo "Produced by \`make bench\` (scripts/bench.sh) on $(date -u +%Y-%m-%d), $(nproc) CPUs, $(go version | cut -d' ' -f3)."
  echo "Shared, noisy machines: compare the ratios, each against its peer measured in the same run."
  echo
  bench kernel
  for prog in pipeline overhead browser task chrome throughput read network hostile shutdown console swap authors grid; do
    if [ -f "internal/bench/$prog/main.go" ]; then
      args=(-corpus "$corpus")
      case $prog in
        browser) args+=("${before_args[@]}") ;;
        throughput) args+=("${startup_before[@]}") ;;
        task) args=("${task_before[@]}") ;; # its site is its own: no corpus
      esac
      bench "$prog" "${args[@]}"
      echo
      if [ "$prog" = pipeline ]; then
        # The compactor natively, on the snapshots the pipeline just
        # compacted through the sandbox: the summary's ratio.
        # (plugins/snapcompact/bench.rs, built natively with the same rustc).
        mkdir -p build/rust
        "${RUSTC:-/usr/bin/rustc}" -O --edition 2021 -o build/rust/snapcompact_bench plugins/snapcompact/bench.rs >&2 &&
          WASMWRIGHT_SNAPSHOTS=build/snapshots build/rust/snapcompact_bench >&2
      fi
    fi
  done
  bench startup "${startup_before[@]}"
  echo
  # The visibility judge's share of a navigate on the corpus's 10 largest
  # pages, and the walk behind the snapshot against after it (interleaved):
  # tests of the browser package, run as measurements (their tables only).
  echo "## The visibility judge's cost per navigate (10 largest corpus pages)"
  echo
  echo "Command: \`VISIBILITY_COST=10 PREJUDGE_GAIN=10 go test -count=1 -run 'TestVisibilityCost|TestPrejudgeGain' -v ./hostfuncs/browser/\`."
  echo "Columns of the first table: page, navigate (ms, median of 3), judge (ms), its part in the page (ms), judge/navigate, snapshot bytes, bytes taken out."
  echo "The second: the walk asked behind the snapshot against after it, interleaved navigate by navigate (medians of 5)."
  echo
  WASMWRIGHT_CORPUS="$corpus" VISIBILITY_COST=10 PREJUDGE_GAIN=10 go test -count=1 -run 'TestVisibilityCost|TestPrejudgeGain' -v ./hostfuncs/browser/ 2>&1 |
    sed -n 's/^ *[a-z_]*_test\.go:[0-9]*: //p' | grep -E '^\||^all:' | sed 's/^all:/\nall:/' || echo "(the measurement failed: see its test's output)"
  echo
  # Plugin memory across concurrent calls, at the default host-wide budget
  # and at 512 MiB.
  echo "## Plugin memory across concurrent calls"
  echo
  echo "Command: \`go -C internal/bench run ./pluginmem [-budget-mb 512]\` (7 calls at once of a plugin touching 110 MiB through Extism's kernel, memory_mb 128)."
  echo
  echo '```'
  bench pluginmem
  bench pluginmem -budget-mb 512
  echo '```'
  echo
} > "$out"
# What sits below this line in BENCHMARKS.md (a pointer to the history)
# is kept as it is.
kept='<!-- Below: sections measured by hand or by other make targets, each with its command; make bench keeps them as they are. -->'
{
  sed -n '1,5p' "$out"
  bench summary -rows "$WASMWRIGHT_BENCH_ROWS" -before-ref "${before_args:+$before_what}"
  sed -n '6,$p' "$out"
  echo "$kept"
  if [ -f BENCHMARKS.md ]; then
    sed -n "/^$kept\$/,\$p" BENCHMARKS.md | sed '1d'
  fi
} > "$out.all"
rm -f "$out"
# The run this one replaces goes to the history, its headings one level
# down under a heading of its own, right after the history's introduction.
history=docs/benchmarks-history.md
if [ -f BENCHMARKS.md ] && [ -f "$history" ]; then
  prev="$(mktemp)"
  {
    echo "## The \`make bench\` run before: $(sed -n '3p' BENCHMARKS.md)"
    echo
    # Headings one level down; links written from the repository's root
    # are rewritten to work from docs/.
    sed -n "6,/^$kept\$/p" BENCHMARKS.md | sed '$d' | sed -E 's/^(#+) /\1# /' |
      sed -E 's#\]\(([A-Za-z][A-Za-z0-9_.-]*\.md)#](../\1#g; s#\]\(docs/#](#g'
  } > "$prev"
  # The introduction ends at the first section heading.
  awk -v prev="$prev" '!done && /^## /{while ((getline l < prev) > 0) print l; done=1} {print}' "$history" > "$history.new"
  mv "$history.new" "$history"
  rm -f "$prev"
fi
mv "$out.all" BENCHMARKS.md
echo "wrote BENCHMARKS.md (the run before it: $history)"
