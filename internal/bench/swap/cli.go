package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/internal/bench/measure"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// cliConfig is the embedded default's plugins and personalities, served
// from the bench's own folder with watch_plugins on.
const cliConfig = `
[host]
plugins_dir = %q
cache_dir = %q
watch_plugins = true
[plugins.browser]
[plugins.extract_links]
[plugins.blockdetect]
[plugins.snapcompact]
[plugins.secretmask]
[plugins.web_fetch]
[personalities.default]
plugins = ["browser", "extract_links", "blockdetect", "snapcompact", "secretmask", "web_fetch"]
tools = ["*"]
grants = ["browser.read", "browser.act", "events", "secrets.mask", "network", "vault.fill"]
hooks = { detect = "blockdetect", compact = "snapcompact", mask = "secretmask" }
[personalities.reader]
plugins = ["extract_links"]
tools = ["extract_links"]
grants = ["events"]
`

// swappedTimes passes on the server's own swap times (plugin.swapped).
type swappedTimes chan time.Duration

func (s swappedTimes) Emit(e hostfuncs.Event) error {
	if e.Kind != "plugin.swapped" {
		return nil
	}
	var rep struct {
		Total time.Duration `json:"total_ns"`
	}
	json.Unmarshal(e.Data, &rep)
	s <- rep.Total
	return nil
}

// next is the server's next swap time: the event follows the last good
// record the command waits for by a moment.
func (s swappedTimes) next() time.Duration {
	select {
	case d := <-s:
		return d
	case <-time.After(10 * time.Second):
		log.Fatal("the command said live, the server sent no plugin.swapped event")
		return 0
	}
}

// cliSwaps times `wasmwright plugins swap` (the command an operator runs)
// against a server watching its plugins folder, beside the server's own
// swap of the same file, for extract_links (a tool) and blockdetect (the
// detector: self-test and chain check). Each plugin is swapped rounds
// times, alternating two builds that differ in their bytes: the first
// swap compiles a new build, later ones find it in the compilation cache.
func cliSwaps(rounds int) {
	dir := measure.Must(os.MkdirTemp("", "ww-bench-swapcli-"))
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "wasmwright")
	build := exec.Command("go", "build", "-o", bin, "./cmd/wasmwright")
	build.Dir = wasmbuild.Root() // the harness is a module of its own
	if b, err := build.CombinedOutput(); err != nil {
		log.Fatalf("building the command: %v\n%s", err, b)
	}
	plugins := filepath.Join(dir, "plugins")
	mods := map[string]string{"browser": "plugins/browser", "extract_links": "examples/extract_links", "web_fetch": "plugins/web_fetch"}
	for _, n := range hooks {
		mods[n] = "plugins/" + n
	}
	measure.Must(wasmbuild.Install(plugins, mods))
	cfgFile := filepath.Join(dir, "ww.toml")
	measure.Must(0, os.WriteFile(cfgFile, fmt.Appendf(nil, cliConfig, plugins, filepath.Join(dir, "cache")), 0o644))
	cfg := measure.Must(host.LoadConfig(cfgFile))
	times := make(swappedTimes, 16)
	ctx := context.Background()
	h := measure.Must(host.New(ctx, cfg, host.Options{NoBrowser: true, Sink: times, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	defer h.Close(ctx)

	fmt.Println()
	fmt.Printf("`wasmwright plugins swap NAME FILE` against a server (host.New, no browser) serving the embedded default's plugins from a folder it watches (watch_plugins), %d swaps of each plugin alternating two builds (`-trimpath` and not for Go, `-C opt-level=z` and not for Rust); the command's wall time, from its start to its exit after the server swapped the file in, beside the server's own swap of that file (its plugin.swapped event's total). The first swap of a build compiles it (in the command or the server, whichever loads it first; the other finds it in the shared compilation cache).\n\n", rounds)
	fmt.Println("| plugin | command, first swap | command, median | server's swap, first | server's swap, median |")
	fmt.Println("|---|---|---|---|---|")
	for _, name := range []string{"extract_links", "blockdetect"} {
		src := mods[name]
		files := [2]string{measure.Must(wasmbuild.Build(src, variantFlag(src))), measure.Must(wasmbuild.Build(src))}
		var cmdT, srvT []time.Duration
		for r := 0; r < rounds; r++ {
			t0 := time.Now()
			out, err := exec.Command(bin, "--config", cfgFile, "plugins", "swap", "--wait", "60s", name, files[r%2]).Output()
			d := time.Since(t0)
			var o struct{ Live bool }
			if err != nil || json.Unmarshal(out, &o) != nil || !o.Live {
				var stderr []byte
				if ee, ok := err.(*exec.ExitError); ok {
					stderr = ee.Stderr
				}
				log.Fatalf("plugins swap %s: %v\n%s%s", name, err, out, stderr)
			}
			cmdT, srvT = append(cmdT, d), append(srvT, times.next())
		}
		fmt.Printf("| %s | %s | **%s** | %s | **%s** |\n", name, measure.D(cmdT[0]), measure.D(measure.Med(cmdT[1:])), measure.D(srvT[0]), measure.D(measure.Med(srvT[1:])))
	}
}
