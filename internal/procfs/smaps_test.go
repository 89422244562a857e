package procfs

import (
	"os"
	"runtime"
	"strings"
	"testing"
)

// A mapping's header gives its range, permissions and path (spaces kept);
// its lines give what is resident and private; VmFlags its flags.
func TestParseSmaps(t *testing.T) {
	text := `00400000-00d5d000 r-xp 00000000 08:01 123 /opt/my app/bin
Size:               9588 kB
Rss:               12532 kB
Pss:                6266 kB
Private_Clean:      1000 kB
Private_Dirty:        24 kB
VmFlags: rd ex mr mw me
7fc5b0000000-7fc5d0000000 rw-p 00000000 00:00 0
Rss:                3072 kB
Private_Dirty:      3072 kB
VmFlags: rd wr mr mw me nr
`
	ms := ParseSmaps(strings.NewReader(text))
	if len(ms) != 2 {
		t.Fatalf("got %d mappings, want 2: %+v", len(ms), ms)
	}
	bin, mem := ms[0], ms[1]
	if bin.Path != "/opt/my app/bin" || bin.Anon() || !bin.Exec() || bin.Rss != 12532 || bin.Pss != 6266 || bin.Private != 1024 || bin.Flag("nr") {
		t.Fatalf("the binary's mapping: %+v", bin)
	}
	if !mem.Anon() || mem.Exec() || !mem.Flag("nr") || mem.Private != 3072 || mem.SizeKB() != 512<<10 {
		t.Fatalf("the anonymous mapping: %+v (size %d KB)", mem, mem.SizeKB())
	}
	if runtime.GOOS != "linux" {
		return // no /proc
	}
	// This process's own smaps: its private memory matches smaps_rollup's.
	var priv int64
	for _, m := range Smaps(os.Getpid()) {
		priv += m.Private
	}
	if roll := Memory([]int{os.Getpid()}, "Private_Clean", "Private_Dirty"); priv == 0 || roll == 0 || priv < roll/2 || priv > roll*2 {
		t.Fatalf("this process: smaps' private memory %d KB, smaps_rollup's %d KB", priv, roll)
	}
}
