package procfs

import (
	"math"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	// A name with a space and a ")" inside, as a process may set.
	line := "4242 (tab) x (y) S 17 4242 4242 0 -1 4194560 100 0 0 0 31 7 2 1 20 0 1 0 5 0 0\n"
	s, ok := ParseStat([]byte(line))
	want := Stat{PID: 4242, PPID: 17, Comm: "tab) x (y", State: "S", UTime: 31, STime: 7, CUTime: 2, CSTime: 1}
	if !ok || s != want {
		t.Fatalf("ParseStat = %+v, %v; want %+v", s, ok, want)
	}
	if s, ok := ParseStat([]byte("7 (short) S 1\n")); !ok || s.PPID != 1 || s.UTime != 0 {
		t.Fatalf("a line without times: %+v, %v", s, ok)
	}
	for _, bad := range []string{"", "7 (no state)", "x (name) S 1", "7 name S 1"} {
		if _, ok := ParseStat([]byte(bad)); ok {
			t.Errorf("ParseStat(%q) accepted", bad)
		}
	}
}

func TestUnder(t *testing.T) {
	parent := map[int]int{2: 1, 3: 2, 4: 3, 9: 1, 5: 5}
	for _, c := range []struct {
		pid, root int
		want      bool
	}{{4, 2, true}, {3, 2, true}, {2, 2, false}, {9, 2, false}, {5, 2, false}} {
		if got := Under(parent, c.pid, c.root); got != c.want {
			t.Errorf("Under(%d, %d) = %v", c.pid, c.root, got)
		}
	}
}

// A child this test starts is among its descendants and children, and
// the tree holds this process with its times.
func TestTreeFindsAChild(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	child := cmd.Process.Pid
	if d := Descendants(os.Getpid()); !slices.Contains(d, child) {
		t.Fatalf("Descendants = %v, lacks %d", d, child)
	}
	var kids []int
	for _, s := range Children(os.Getpid()) {
		kids = append(kids, s.PID)
	}
	if !slices.Contains(kids, child) {
		t.Fatalf("Children = %v, lacks %d", kids, child)
	}
	if c := Cmdline(child); c != "sleep\x0030\x00" {
		t.Fatalf("Cmdline = %q", c)
	}
	if s, ok := ReadStat(child); !ok || s.State == "Z" || s.Comm != "sleep" {
		t.Fatalf("ReadStat(child) = %+v, %v", s, ok)
	}
	if n := Name(child); n != "sleep" {
		t.Fatalf("Name = %q", n)
	}
	self, ok := ReadStat(os.Getpid())
	if !ok || self.PID != os.Getpid() || self.PPID != os.Getppid() {
		t.Fatalf("ReadStat(self) = %+v, %v", self, ok)
	}
	if Memory([]int{os.Getpid()}, "Rss") <= 0 {
		t.Fatal("no Rss for this process")
	}
}

func TestStretchFollowsTheLoad(t *testing.T) {
	load, ok := LoadAverage()
	if !ok || load < 0 {
		t.Fatalf("load average unreadable: %v %v", load, ok)
	}
	f := Stretch()
	want := min(max(load/float64(runtime.NumCPU()), 1), MaxStretch)
	// The load may move between the two reads: within a 0.5 of each other.
	if f < 1 || f > MaxStretch || math.Abs(f-want) > 0.5 {
		t.Fatalf("Stretch() = %.2f at load %.2f on %d CPUs, want %.2f", f, load, runtime.NumCPU(), want)
	}
	if d := Stretched(time.Second); d < time.Second || d > MaxStretch*time.Second {
		t.Fatalf("Stretched(1s) = %s", d)
	}
}
