package host

import (
	"runtime"
	"testing"
)

// A new host hands back to the OS the heap that loading plugins used and
// dropped (each plugin's bytes and compiled code pass through it): right
// after New, the idle heap the process still holds is small.
func TestNewReleasesLoadGarbage(t *testing.T) {
	f := newFixture(t, map[string]string{"extract_links": "examples/extract_links", "misbehave": "sandbox/testdata/misbehave"})
	cfg := `
[plugins.extract_links]
[plugins.misbehave]
[personalities.p]
plugins = ["extract_links", "misbehave"]
tools = ["*"]
`
	f.host(t, cfg, nil) // compiles both into the shared test cache
	f.host(t, cfg, nil) // reads both from it: the start-up of a warm host
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if held := m.HeapIdle - m.HeapReleased; held > 2<<20 {
		t.Fatalf("a new host keeps %d MB of idle heap (heap in use %d MB)", held>>20, m.HeapInuse>>20)
	}
}
