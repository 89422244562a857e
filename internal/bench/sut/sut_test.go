package sut

import (
	"crypto/sha256"
	"os"
	"os/exec"
	"slices"
	"testing"
)

func TestDescendantsAndCPUTime(t *testing.T) {
	// A shell that starts a child: both are under this process.
	cmd := exec.Command("sh", "-c", "sleep 30 & wait")
	if err := cmd.Start(); err != nil {
		t.Skip("no sh:", err)
	}
	defer cmd.Process.Kill()
	var kids []int
	for i := 0; i < 1000 && len(kids) < 2; i++ {
		kids = Descendants(os.Getpid())
		if len(kids) < 2 {
			exec.Command("true").Run() // lets the shell fork meanwhile
		}
	}
	if !slices.Contains(kids, cmd.Process.Pid) || len(kids) < 2 {
		t.Fatalf("descendants of %d: %v, want the shell %d and its sleep", os.Getpid(), kids, cmd.Process.Pid)
	}
	before := CPUTime(os.Getpid())
	sum := sha256.Sum256(nil)
	for i := 0; i < 200000; i++ { // tens of ms of work, whatever the load
		sum = sha256.Sum256(sum[:])
	}
	if CPUTime(os.Getpid()) <= before {
		t.Fatal("CPUTime did not grow while this process worked")
	}
}
