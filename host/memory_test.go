package host

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
)

// A new host hands back to the OS the heap that loading plugins used and
// dropped (each plugin's bytes and compiled code pass through it): right
// after New, the idle heap the process still holds is small. The check
// runs in a process of its own: other tests' hosts and browsers allocate
// in the background and would be counted.
func TestNewReleasesLoadGarbage(t *testing.T) {
	if os.Getenv("WW_TEST_LOAD_GARBAGE") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestNewReleasesLoadGarbage$", "-test.count=1")
		cmd.Env = append(os.Environ(), "WW_TEST_LOAD_GARBAGE=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return
	}
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
