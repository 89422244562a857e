package seleniumgrid

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/internal/testenv"
)

func needNet(t *testing.T) {
	t.Helper()
	testenv.Heavy(t, "root and ip(8), as the grid does")
	_, err := exec.LookPath("ip")
	testenv.Require(t, os.Geteuid() == 0 && err == nil, "root and ip(8) (the grid's network namespaces)")
}

func onLoopback(t *testing.T, ip string) bool {
	out, err := exec.Command("ip", "-o", "addr", "show", "dev", "lo").CombinedOutput()
	if err != nil {
		t.Fatalf("ip addr show: %v: %s", err, out)
	}
	return strings.Contains(string(out), " "+ip+"/32 ")
}

// Two grids that start from the same /16 (their pids point there, or a
// killed run left its address) do not share it: the second moves on.
func TestClaimNetMovesOnWhenTaken(t *testing.T) {
	needNet(t)
	g := &Grid{}
	pid := os.Getpid()
	first, err := g.claimNet(pid)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.run("ip", "addr", "del", fmt.Sprintf("10.%d.0.1/32", first), "dev", "lo") })
	// Start the second where the first now is.
	second, err := g.claimNet(first - firstNet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.run("ip", "addr", "del", fmt.Sprintf("10.%d.0.1/32", second), "dev", "lo") })
	if second == first {
		t.Fatalf("both grids have 10.%d.0.1", first)
	}
	for _, n := range []int{first, second} {
		if !onLoopback(t, fmt.Sprintf("10.%d.0.1", n)) {
			t.Errorf("10.%d.0.1 is not on loopback", n)
		}
	}
}

// What a killed run left (its nodes' namespaces, their /etc/netns
// folders, its hub address) is removed by the next grid's start; a live
// process's is left alone.
func TestSweepStaleRemovesDeadRuns(t *testing.T) {
	needNet(t)
	dead := 4194000
	for alive(dead) {
		dead--
	}
	g := &Grid{}
	n, err := g.claimNet(dead)
	if err != nil {
		t.Fatal(err)
	}
	hub := fmt.Sprintf("10.%d.0.1", n)
	t.Cleanup(func() { g.run("ip", "addr", "del", hub+"/32", "dev", "lo") })
	make := func(pid int) (string, string) {
		ns := fmt.Sprintf("ww%dn1", pid)
		etc := filepath.Join("/etc/netns", ns)
		if err := g.run("ip", "netns", "add", ns); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { g.run("ip", "netns", "del", ns); os.RemoveAll(etc) })
		if err := os.MkdirAll(etc, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(etc, "resolv.conf"), []byte("nameserver "+hub+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return ns, etc
	}
	deadNS, deadEtc := make(dead)
	liveNS, liveEtc := make(os.Getpid())
	// The live one names the same hub here only to share the fixture: the
	// sweep reads the dead one's and removes that address.
	sweepStale()
	if _, err := os.Stat("/run/netns/" + deadNS); err == nil {
		t.Errorf("the dead run's namespace %s is still there", deadNS)
	}
	if _, err := os.Stat(deadEtc); err == nil {
		t.Errorf("the dead run's %s is still there", deadEtc)
	}
	if onLoopback(t, hub) {
		t.Errorf("the dead run's hub address %s is still on loopback", hub)
	}
	if _, err := os.Stat("/run/netns/" + liveNS); err != nil {
		t.Errorf("a live process's namespace %s was removed", liveNS)
	}
	if _, err := os.Stat(liveEtc); err != nil {
		t.Errorf("a live process's %s was removed", liveEtc)
	}
}

func TestGridPID(t *testing.T) {
	for ns, want := range map[string]int{"ww11732n2": 11732, "ww7n1": 7, "wwxn1": 0, "ww12": 0, "other": 0, "ww0n1": 0} {
		got, ok := gridPID(ns)
		if got != want || ok != (want > 0) {
			t.Errorf("gridPID(%q) = %d, %t; want %d", ns, got, ok, want)
		}
	}
}
