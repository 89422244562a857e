package main

import (
	"os"
	"os/exec"
	"testing"

	"github.com/wasmwright/wasmwright/internal/procfs"
)

type tick = struct {
	role  string
	ticks int64
}

// TestAddRoles: each process counts what it used between the readings; a
// process new at the end (or a pid reused by another role) counts from 0;
// what the tree's total holds beyond them is "exited".
func TestAddRoles(t *testing.T) {
	before := procTicks{1: tick{"server", 100}, 2: tick{"driver", 50}, 3: tick{"renderer", 70}, 4: tick{"renderer", 10}}
	after := procTicks{1: tick{"server", 130}, 2: tick{"driver", 60}, 4: tick{"gpu", 5}, 5: tick{"renderer", 40}}
	by := map[string]int64{}
	addRoles(by, before, after, 120)
	want := map[string]int64{"server": 30, "driver": 10, "gpu": 5, "renderer": 40, "exited": 35}
	for r, v := range want {
		if by[r] != v {
			t.Errorf("%s: %d ticks, want %d (all: %v)", r, by[r], v, by)
		}
	}
	if len(by) != len(want) {
		t.Errorf("roles %v, want %v", by, want)
	}
	// A total below what the processes used (readings a moment apart)
	// adds no negative "exited".
	by = map[string]int64{}
	addRoles(by, before, after, 10)
	if _, ok := by["exited"]; ok {
		t.Errorf("exited counted from a smaller total: %v", by)
	}
}

// TestRoleOfProcesses: the process the bench started is the server, a
// child of it that is neither node nor Chromium is "other".
func TestRoleOfProcesses(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep command:", err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	got := map[int]string{}
	for pid, p := range readTree(os.Getpid()) {
		got[pid] = p.role
	}
	if got[os.Getpid()] != "server" {
		t.Errorf("the root is %q, want server", got[os.Getpid()])
	}
	if got[cmd.Process.Pid] != "other" {
		t.Errorf("a sleep child is %q, want other (tree %v)", got[cmd.Process.Pid], got)
	}
	for _, c := range []struct {
		comm, want string
	}{{"node", "driver"}, {"chromium", "browser"}} {
		if r := role(-1, procfs.Stat{PID: cmd.Process.Pid, Comm: c.comm}); r != c.want {
			t.Errorf("comm %q: %q, want %q", c.comm, r, c.want)
		}
	}
}
