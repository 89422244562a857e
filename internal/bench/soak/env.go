package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/wasmwright/wasmwright/frontend/console"
	"github.com/wasmwright/wasmwright/internal/bench/mcpclient"
	"github.com/wasmwright/wasmwright/internal/bench/opclient"
	"github.com/wasmwright/wasmwright/internal/bench/sut"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// env is what a soak runs against: the server, its config and plugins
// folder, the two detector builds it swaps between, the site, and an
// operator logged in to the console.
type env struct {
	dir, bin, conf string
	srv            *sut.Server
	pprof          string
	site           *site
	op             *opclient.Operator
	detectors      [2]string // the served blockdetect.wasm and another build of it
	log            *os.File  // the server's log (info and above)
}

// setUp copies the built plugins into a plugins folder of the soak's own
// (a swap writes there), builds a second blockdetect that differs only in
// its bytes, and starts `serve --http` with the console on, watching its
// plugins folder, with --pprof for the goroutine count.
func setUp(o options) (*env, error) {
	dir, err := os.MkdirTemp("", "ww-soak-")
	if err != nil {
		return nil, err
	}
	e := &env{dir: dir, bin: o.bin}
	plugins := filepath.Join(dir, "plugins")
	if err := copyPlugins(o.plugins, plugins); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	e.detectors[0] = filepath.Join(dir, "blockdetect-served.wasm")
	e.detectors[1] = filepath.Join(dir, "blockdetect-other.wasm")
	// make plugins builds the Rust detector at opt-level=s: this one differs
	other, err := wasmbuild.Bytes("plugins/blockdetect", "-C", "opt-level=z")
	if err == nil {
		err = copyFile(filepath.Join(plugins, "blockdetect.wasm"), e.detectors[0])
	}
	if err == nil {
		err = os.WriteFile(e.detectors[1], other, 0o644)
	}
	if err == nil {
		e.site, err = newSite(o.pagesDir)
	}
	if err == nil {
		err = os.Mkdir(filepath.Join(dir, "run"), 0o755)
	}
	if err != nil {
		e.tearDown()
		return nil, err
	}
	token := console.NewToken()
	tables := fmt.Sprintf("[console]\nenabled = true\n[[console.operators]]\nname = \"soak\"\nsha256 = %q\n", console.HashToken(token))
	e.conf, err = sut.WriteConfig(dir, soakBench(plugins, o.stretch), o.sessions, tables)
	if err == nil {
		e.pprof, err = sut.FreeAddr()
	}
	if err == nil {
		e.log, err = os.Create(filepath.Join(dir, "serve.log"))
	}
	if err == nil {
		e.srv, err = sut.ServeWasmwrightLogging("wasmwright", o.bin, filepath.Join(dir, "run"), e.conf, e.log, "--pprof", e.pprof, "--log-level", "info")
	}
	if err == nil {
		e.op, err = opclient.Login(strings.TrimSuffix(e.srv.URL, "/mcp"), "/console", token)
	}
	if err != nil {
		e.tearDown()
		return nil, err
	}
	return e, nil
}

// soakBench is serve's config: the plugins folder watched, takeovers
// granted, and with stretch its deadlines stretched by the load.
func soakBench(plugins string, stretch bool) mcpclient.Bench {
	b := mcpclient.Bench{PluginsDir: plugins, WatchPlugins: true, ExtraGrants: []string{"takeover"}}
	if stretch {
		b.HostKeys = "stretch_with_load = true\n"
	}
	return b
}

func (e *env) tearDown() {
	if e.srv != nil {
		e.srv.Stop()
	}
	if e.site != nil {
		e.site.close()
	}
	if e.log != nil {
		e.log.Close()
	}
	os.RemoveAll(e.dir)
}

// copyPlugins copies the .wasm files of src and their SHA256SUMS into dst.
func copyPlugins(src, dst string) error {
	files, _ := filepath.Glob(filepath.Join(src, "*.wasm"))
	if len(files) == 0 {
		return fmt.Errorf("no plugins in %s: build them with make plugins, or pass -plugins", src)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, f := range append(files, filepath.Join(src, "SHA256SUMS")) {
		if err := copyFile(f, filepath.Join(dst, filepath.Base(f))); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}

// operatorLoop hands back every pending takeover, as an operator at the
// console would, until done is closed.
func operatorLoop(r *run, e *env, done <-chan struct{}) {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		ts, err := e.op.Takeovers()
		if err != nil {
			r.t.fail("console state: transport", err.Error())
			continue
		}
		for _, t := range ts {
			if err := e.op.HandBack(t.ID, true); err != nil {
				r.t.fail("console hand-back", err.Error())
			}
		}
	}
}

// swapResult is one hot swap of the detector while the agents worked.
type swapResult struct {
	at, took time.Duration
	live     bool
	out      string
}

// swaps swaps the served detector for its other build at a third of the
// run and back at two thirds, with `wasmwright plugins swap`, which waits
// until the watching server has swapped it in (or refused it).
func swaps(r *run, e *env, start time.Time, d time.Duration) []swapResult {
	var out []swapResult
	for k, file := range []string{e.detectors[1], e.detectors[0]} {
		select {
		case <-r.ctx.Done():
			return out
		case <-time.After(time.Until(start.Add(d * time.Duration(k+1) / 3))):
		}
		t0 := time.Now()
		ctx, cancel := context.WithTimeout(r.ctx, 5*time.Minute)
		b, err := exec.CommandContext(ctx, e.bin, "--config", e.conf, "plugins", "swap", "blockdetect", file, "--wait", "4m").Output()
		cancel()
		res := swapResult{at: t0.Sub(start), took: time.Since(t0), out: strings.TrimSpace(string(b))}
		var v struct {
			Live bool `json:"live"`
		}
		res.live = err == nil && json.Unmarshal(b, &v) == nil && v.Live
		if !res.live {
			r.t.fail("plugins swap: not live", fmt.Sprintf("%v: %s", err, res.out))
		}
		out = append(out, res)
	}
	return out
}

// logLines counts the server's warnings and errors by message (slog's
// text format: level=WARN msg="..."), read before the folder is removed.
func (e *env) logLines() map[string]int {
	out := map[string]int{}
	b, err := os.ReadFile(e.log.Name())
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(b), "\n") {
		m := logLine.FindStringSubmatch(line)
		if m != nil {
			out[m[1]+": "+strings.Trim(m[2], `"`)]++
		}
	}
	return out
}

var logLine = regexp.MustCompile(`level=(WARN|ERROR) msg=("(?:[^"\\]|\\.)*"|\S+)`)
