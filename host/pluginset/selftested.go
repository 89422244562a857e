package pluginset

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/sandbox"
)

// Passed self-tests are remembered in the compilation cache folder, so a
// host that starts again with the same plugin versions neither compiles
// nor runs a hook plugin before it serves: each then compiles once, when a
// call (or serve's warm-up) first needs it, instead of once for the
// self-test and again for that call.
//
// A verdict is kept under a key of everything it depends on: the plugin's
// sha256 (a chain's members', in order), the host's fixtures, the hook
// limits (the work budget decides a looping hook's verdict), the memory
// limit, the fuel rewrite, and verdictVersion, the version of the checks
// themselves. Only passes are kept: a refused version is tested again at
// each start, so its refusal is reported and set aside as before. The
// folder is trusted as the compiled code beside it is: whoever can write
// there can already write the native code the host runs.

// SelfTestedDir is the folder, in a cache dir, of the remembered passes.
const SelfTestedDir = "selftested"

// verdictVersion names the self-test and chain checks (selftest.go): bump
// it when they change, so passes of the old checks are not trusted.
const verdictVersion = 1

// verdictFile is where a pass of kind ("selftest", "chain") by the plugin
// versions shas is remembered, "" when the engine has no cache folder.
func (set *Set) verdictFile(kind string, shas ...string) string {
	cfg := set.eng.Config()
	if cfg.CacheDir == "" {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s v%d i%d pages=%d noloops=%t extism=%t fuel/kb=%d timeout=%s\n",
		kind, verdictVersion, sandbox.InstrumentVersion, cfg.MemoryPages, cfg.NoLoopFuel, cfg.ExtismABIOnly, set.o.Hooks.FuelPerKB, set.o.Hooks.Timeout)
	h.Write(detectFixtures)
	fmt.Fprintf(h, "\n%s\n", strings.Join(shas, " "))
	return filepath.Join(cfg.CacheDir, SelfTestedDir, kind+"-"+hex.EncodeToString(h.Sum(nil))+".ok")
}

// passedBefore reports whether a pass is remembered in file.
func passedBefore(file string) bool {
	if file == "" {
		return false
	}
	_, err := os.Stat(file)
	return err == nil
}

// rememberPass records a pass in file; a folder it cannot write only
// means the next start tests again.
func (set *Set) rememberPass(file string, shas ...string) {
	if file == "" {
		return
	}
	err := os.MkdirAll(filepath.Dir(file), 0o755)
	if err == nil {
		err = WriteAtomically(file, []byte(strings.Join(shas, " ")+" passed "+time.Now().UTC().Format(time.RFC3339)+"\n"))
	}
	if err != nil {
		set.log.Debug("self-test pass not remembered", "file", file, "err", err)
	}
}

// selfTestOnce is selfTest, skipped for a version whose pass under the
// same key is remembered, and remembered when it passes.
func (set *Set) selfTestOnce(ctx context.Context, p *sandbox.Plugin) error {
	file := set.verdictFile("selftest", p.SHA256)
	if passedBefore(file) {
		return nil
	}
	if err := set.selfTest(ctx, p); err != nil {
		return err
	}
	set.rememberPass(file, p.SHA256)
	return nil
}

// checkChainOnce is CheckChain, skipped for a chain of versions whose
// pass is remembered, and remembered when it passes.
func (set *Set) checkChainOnce(ctx context.Context, chain []*sandbox.Plugin) error {
	shas := make([]string, len(chain))
	for i, p := range chain {
		shas[i] = p.Name + "@" + p.SHA256
	}
	file := set.verdictFile("chain", shas...)
	if passedBefore(file) {
		return nil
	}
	if err := CheckChain(ctx, set.o.Hooks, chain); err != nil {
		return abi.AsError(err)
	}
	set.rememberPass(file, shas...)
	return nil
}
