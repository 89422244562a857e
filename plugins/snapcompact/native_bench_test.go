package main

import (
	"os"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/internal/bench/measure"
	"github.com/wasmwright/wasmwright/internal/bench/rows"
	"github.com/wasmwright/wasmwright/internal/bench/snapcache"
)

// SnapshotsEnv names a folder of rendered corpus pages (the pipeline
// benchmark's cache, build/snapshots: JSON files with a "snapshot").
const SnapshotsEnv = "WASMWRIGHT_SNAPSHOTS"

// BenchmarkCorpusCompactionNative compacts every snapshot of the folder
// $WASMWRIGHT_SNAPSHOTS names, natively (no sandbox, no JSON): the peer of
// the pipeline benchmark's same compaction through the sandbox. Each round
// compacts every snapshot once; the median round is reported (and handed
// to make bench's summary). make bench runs it as
//
//	WASMWRIGHT_SNAPSHOTS=../../build/snapshots go test -run '^$' -bench CorpusCompactionNative
func BenchmarkCorpusCompactionNative(b *testing.B) {
	dir := os.Getenv(SnapshotsEnv)
	if dir == "" {
		b.Skip(SnapshotsEnv + " is unset: name a folder of rendered pages (make bench passes build/snapshots)")
	}
	snaps, err := snapcache.Snapshots(dir)
	if err != nil || len(snaps) == 0 {
		b.Fatalf("no snapshots in %s (%v): run go run ./internal/bench/pipeline first, which renders them", dir, err)
	}
	var rounds []time.Duration
	for b.Loop() {
		t0 := time.Now()
		for _, s := range snaps {
			compactSnapshot(s, defaultOptions)
		}
		rounds = append(rounds, time.Since(t0))
	}
	med := measure.Med(rounds)
	b.ReportMetric(float64(med.Microseconds())/1000, "ms/round")
	rows.Record("snapcompact", "compaction of the corpus snapshots", rows.Native, float64(med.Microseconds())/1000)
}
