package main

import (
	"bufio"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/wasmwright/wasmwright/internal/procfs"
)

// What serve's RSS is made of. Two soaks of ten minutes, with serve's
// mappings read every 30 s, split its rise in two (load 40-60):
//
//   - the Go heap rose for the first two to three minutes, while sessions
//     opened and caches filled, and then held (its goal, twice the live
//     heap at the last collection, stayed at 85-100 MB);
//   - the plugins' linear memories (sandbox/linearmem.go maps each one on
//     its own, MAP_NORESERVE: smaps marks them "nr") rose by steps all
//     run long (34 to 58 MB) while the instances alive stayed the same
//     (their reservations did not grow): an instance keeps the most its
//     memory ever grew to, since a wasm memory never shrinks, and under
//     back-to-back calls the browser plugin's instances never idle long
//     enough for the pool to close them. Bounded per instance by the
//     pool's limit (sandbox.DefaultPoolMaxMemory), not a leak.
//
// So the soak reads both apart: what is resident outside the plugins'
// memories is judged for growth, and so are the plugins' reservations
// (an instance never closed would show there); their resident part is
// shown, not judged.
type memParts struct {
	pluginMB, pluginReservedMB, codeMB float64
}

// memSplit reads /proc/PID/smaps (NaN where it cannot be read).
func memSplit(pid int) memParts {
	ms := procfs.Smaps(pid)
	if ms == nil {
		return memParts{math.NaN(), math.NaN(), math.NaN()}
	}
	return splitMappings(ms)
}

// splitSmaps is splitMappings of smaps' text.
func splitSmaps(r io.Reader) memParts { return splitMappings(procfs.ParseSmaps(r)) }

// splitMappings sums, over serve's mappings: the resident and mapped sizes
// of the anonymous ones marked nr (the plugins' linear memories), and the
// resident size of the anonymous executable ones (compiled plugin code).
func splitMappings(ms []procfs.Mapping) memParts {
	var p memParts
	for _, m := range ms {
		if !m.Anon() {
			continue
		}
		rss := float64(m.Rss) / 1024
		if m.Exec() {
			p.codeMB += rss
		}
		if m.Flag("nr") {
			p.pluginMB += rss
			p.pluginReservedMB += float64(m.SizeKB()) / 1024
		}
	}
	return p
}

// heapGoal reads the Go runtime's next collection goal (MemStats.NextGC:
// twice the heap that was live at the last collection) from serve's pprof
// endpoint, in MB (NaN when it does not answer).
func heapGoal(addr string) float64 { return fromPprof(addr, "heap", nextGC) }

// nextGC finds "# NextGC = N" in a heap profile's text form.
func nextGC(r io.Reader) float64 {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "# NextGC = "); ok {
			if n, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
				return n / (1 << 20)
			}
		}
	}
	return math.NaN()
}
