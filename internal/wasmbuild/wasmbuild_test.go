package wasmbuild

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The shared compiled-code store loses what nothing has read for a
// while, and keeps what was read lately.
func TestPruneStore(t *testing.T) {
	dir := t.TempDir()
	old, fresh := filepath.Join(dir, "old"), filepath.Join(dir, "fresh")
	for _, f := range []string{old, fresh} {
		if err := os.WriteFile(f, []byte("code"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	long := time.Now().Add(-2 * storeUnused)
	if err := os.Chtimes(old, long, long); err != nil {
		t.Fatal(err)
	}
	pruneStore(dir, storeUnused)
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("an entry unread for %s was kept", 2*storeUnused)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("an entry read just now was removed: %v", err)
	}
}

// Test binaries of several packages build the same Rust plugin at once:
// each gets the module (rustc once wrote its objects beside its output,
// and concurrent compiles removed each other's: "cannot open ...rcgu.o").
func TestRustBuildsAtOnce(t *testing.T) {
	if os.Getenv("WW_BUILD_CFG") != "" {
		p, err := Build("plugins/snapcompact", "--cfg", os.Getenv("WW_BUILD_CFG"))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println("BUILT", p)
		return
	}
	if testing.Short() { // testenv.Long, which imports this package
		t.Skip("-short: compiles a Rust plugin three times at once (make test runs it)")
	}
	if _, err := os.Stat(Rustc()); err != nil {
		t.Fatalf("%s: %v (make rustc installs it)", Rustc(), err)
	}
	cfg := fmt.Sprintf("ww_build_test_%d", time.Now().UnixNano())
	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRustBuildsAtOnce$", "-test.count=1")
		cmd.Env = append(os.Environ(), "WW_BUILD_CFG="+cfg)
		out := &strings.Builder{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	paths := map[string]bool{}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("build %d: %v\n%s", i, err, outs[i])
			continue
		}
		_, p, _ := strings.Cut(outs[i].String(), "BUILT ")
		paths[strings.TrimSpace(strings.SplitN(p, "\n", 2)[0])] = true
	}
	for p := range paths {
		os.Remove(p)
		os.Remove(p + ".lock")
	}
	if len(paths) != 1 {
		t.Errorf("want one module for the three builds, got %v", paths)
	}
}
