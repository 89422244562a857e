package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/host/pluginset"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/internal/logrec"
	"github.com/wasmwright/wasmwright/internal/testenv"
)

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// drop puts wasm in the plugins folder as file, its pin (file.sha256)
// first, as a deploy does: whole by a rename when a watching host may see
// it (renamed), else written in place.
func drop(file string, wasm []byte, renamed bool) {
	os.WriteFile(file+".sha256", []byte(sha(wasm)+"  "+filepath.Base(file)+"\n"), 0o644)
	if !renamed {
		os.WriteFile(file, wasm, 0o644)
		return
	}
	os.WriteFile(file+".tmp", wasm, 0o644)
	os.Rename(file+".tmp", file)
}

// brokenDetector builds testhooks with a detector that misbehaves (panic,
// loop, garbage, blind), on every page or only on pages titled with on.
func brokenDetector(t *testing.T, mode, on string) []byte {
	flags := "-X main.broken=" + mode
	if on != "" {
		flags += " -X main.brokenOn=" + on
	}
	return readBuilt(t, "host/testdata/testhooks", "-ldflags="+flags)
}

func hooksFixture(t *testing.T) *fixture {
	return newFixture(t, map[string]string{"misbehave": "sandbox/testdata/misbehave", "testhooks": "host/testdata/testhooks", "testmask": "host/testdata/testmask"})
}

// A detector that panics, loops, answers a code outside abi's set, misses
// the host's wall, or fails a case it ships itself, is refused at swap
// with a coded error naming why; the old detector keeps serving. The loop
// is stopped by its work budget (host.hook_fuel_per_kb), not by the clock:
// hook_timeout is ten minutes here, which the test would wait out.
func TestSwapSelfTestRunsTheRealHook(t *testing.T) {
	testenv.Long(t, "builds and compiles six broken detectors")
	f := hooksFixture(t)
	h := f.host(t, hooksConfig, nil, `hook_timeout = "10m"`)
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		wasm  []byte
		want  []string
		cause string
	}{
		{"panic", brokenDetector(t, "panic", ""), []string{`case "host fixture: Cloudflare challenge page"`, "crashed or answered nonsense"}, "plugin_failed"},
		{"loop", brokenDetector(t, "loop", ""), []string{"ran past its work budget", "used its work budget of", "host.hook_fuel_per_kb = 600000000 per KiB"}, "resource_limit"},
		{"garbage", brokenDetector(t, "garbage", ""), []string{`error code "ok", which is not one of abi's codes`}, "plugin_failed"},
		// Blind to the host's wall only (its own case still passes): the
		// personality's chain, testhooks alone, lets the wall through.
		{"blind", brokenDetector(t, "blind", "moment..."), []string{"Cloudflare challenge page", "answered no error, the case wants bot_wall"}, "wrong_answer"},
		{"blind to all", brokenDetector(t, "blind", ""), []string{`case "a page titled WALL"`, "answered no error, the case wants bot_wall"}, "wrong_answer"},
		{"own case", readBuilt(t, "host/testdata/testhooks", "-ldflags=-X main.ownCase=wrong"), []string{`case "a page titled WALL"`, "answered bot_wall, the case wants no error"}, "wrong_answer"},
	} {
		_, err := h.Swap(ctx, "testhooks", c.wasm, sha(c.wasm))
		var e *abi.Error
		if errCode(err) != abi.CodeRefused || !errorsAs(err, &e) || e.Details["cause"] != c.cause {
			t.Errorf("%s: want refused (cause %s), got %v", c.name, c.cause, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", c.name, err, w)
			}
		}
	}
	if cur, _ := h.plugins.Slot("testhooks").Current(); cur.SHA256 != f.sums["testhooks"] {
		t.Fatal("a refused detector was swapped in")
	}
	if _, err := h.Call(ctx, Request{Personality: "piped", Tool: "page", Args: json.RawMessage(`{"title":"WALL"}`)}); errCode(err) != abi.CodeBotWall {
		t.Fatalf("the old detector must keep serving: %v", err)
	}
}

func errorsAs(err error, e **abi.Error) bool {
	*e = abi.AsError(err)
	return *e != nil
}

// A detector that passes its self-test and then fails live (panics,
// loops, answers garbage) never lets a wall reach the agent unflagged
// under fail_closed, call after call; fail_open lets the page through
// with a warning on it; a detector that is not loaded at all fails closed
// too.
func TestFailedDetectorFailsClosed(t *testing.T) {
	for _, mode := range []string{"panic", "loop", "garbage"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "loop" {
				testenv.Long(t, "a detector looping to its work budget, eight times")
			}
			f := hooksFixture(t)
			bad := brokenDetector(t, mode, "LIVE")
			file := filepath.Join(f.plugins, "testhooks.wasm")
			drop(file, bad, false)
			h := f.host(t, `
[plugins.misbehave]
[plugins.testhooks]
[plugins.gone]
[personalities.closed]
plugins = ["misbehave", "testhooks"]
tools = ["*"]
grants = ["events"]
hooks = { detect = "testhooks" }
[personalities.open]
plugins = ["misbehave", "testhooks"]
tools = ["*"]
grants = ["events"]
hooks = { detect = "testhooks" }
detect_failure = "fail_open"
[personalities.nodetector]
plugins = ["misbehave", "gone"]
tools = ["*"]
grants = ["events"]
hooks = { detect = "gone" }
`, nil, `hook_timeout = "20s"`) // the loop ends at its work budget (fuel); the wall clock is only a backstop, generous so a busy machine's self-test passes
			if cur, err := h.plugins.Slot("testhooks").Current(); err != nil || cur.SHA256 != sha(bad) {
				t.Fatalf("the live-failing detector must pass its self-test and load: %v", err)
			}
			ctx := context.Background()
			call := func(pers, title string) (*abi.Result, error) {
				args, _ := json.Marshal(map[string]string{"title": title})
				return h.Call(ctx, Request{Personality: pers, Tool: "page", Args: args})
			}
			for i := 0; i < 4; i++ { // past rollback_after: no earlier version to roll back to
				for _, title := range []string{"LIVE WALL", "LIVE shop"} {
					res, err := call("closed", title)
					var e *abi.Error
					if res != nil || errCode(err) != abi.CodePluginFailed || !errorsAs(err, &e) || e.Details["detector"] != "testhooks" ||
						!strings.Contains(err.Error(), `bot-wall detector testhooks failed`) || !strings.Contains(err.Error(), `detect_failure = "fail_closed"`) {
						t.Fatalf("call %d %q under fail_closed: %+v %v", i, title, res, err)
					}
				}
			}
			res, err := call("open", "LIVE WALL")
			if err != nil || len(res.Warnings) == 0 || !strings.Contains(res.Warnings[len(res.Warnings)-1], "detector testhooks failed") ||
				!strings.Contains(res.Warnings[len(res.Warnings)-1], "this page may be a block page") {
				t.Fatalf("fail_open must pass the page with a warning: %+v %v", res, err)
			}
			if _, err := call("closed", "WALL"); errCode(err) != abi.CodeBotWall {
				t.Fatalf("where it works, the detector still flags: %v", err)
			}
			if res, err := call("nodetector", "WALL"); res != nil || errCode(err) != abi.CodePluginFailed || !strings.Contains(err.Error(), "plugin gone is not installed") {
				t.Fatalf("a personality whose detector is not loaded must fail closed: %+v %v", res, err)
			}
		})
	}
}

// A swapped-in detector that fails rollback_after hook calls in a row is
// rolled back to the version it replaced, with an event; a success in
// between resets the count.
func TestRepeatedHookFailuresRollBack(t *testing.T) {
	f := hooksFixture(t)
	var logged logrec.Buffer
	f.log = slog.New(slog.NewTextHandler(&logged, nil))
	events := &hostfuncs.MemorySink{}
	h := f.host(t, hooksConfig, events)
	ctx := context.Background()
	bad := brokenDetector(t, "panic", "LIVE")
	// In place as `plugins swap` installs it (this host does not watch).
	file := filepath.Join(f.plugins, "testhooks.wasm")
	drop(file, bad, false)
	if _, err := h.Swap(ctx, "testhooks", bad, sha(bad)); err != nil {
		t.Fatalf("a detector failing only live passes the swap: %v", err)
	}
	call := func(title string) error {
		args, _ := json.Marshal(map[string]string{"title": title})
		_, err := h.Call(ctx, Request{Personality: "piped", Tool: "page", Args: args})
		return err
	}
	serving := func() string { cur, _ := h.plugins.Slot("testhooks").Current(); return cur.SHA256 }
	for i, title := range []string{"LIVE WALL", "LIVE WALL", "fine", "LIVE WALL", "LIVE WALL"} {
		err := call(title)
		if title == "fine" && err != nil || title != "fine" && errCode(err) != abi.CodePluginFailed {
			t.Fatalf("call %d %q: %v", i, title, err)
		}
	}
	if serving() != sha(bad) {
		t.Fatal("rolled back before rollback_after failures in a row")
	}
	if err := call("LIVE WALL"); errCode(err) != abi.CodePluginFailed {
		t.Fatalf("third failure in a row: %v", err)
	}
	if serving() != f.sums["testhooks"] {
		t.Fatalf("not rolled back after 3 failed hook calls in a row: %s serves", serving()[:12])
	}
	var ev *hostfuncs.Event
	for _, e := range events.Snapshot() {
		if e.Kind == "plugin.rolled_back" {
			ev = &e
		}
	}
	if ev == nil || !strings.Contains(string(ev.Data), sha(bad)) || !strings.Contains(string(ev.Data), "3 hook calls in a row failed") {
		t.Fatalf("rollback event: %+v", ev)
	}
	if l := logged.String(); !strings.Contains(l, "plugin rolled back to its last good version") || !strings.Contains(l, sha(bad)[:12]) {
		t.Fatalf("no log line of the rollback:\n%s", l)
	}
	if err := call("LIVE WALL"); errCode(err) != abi.CodeBotWall {
		t.Fatalf("the version rolled back to must flag the wall: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(f.plugins, ".last-good", "testhooks.wasm.sha256")); !strings.HasPrefix(string(b), f.sums["testhooks"]) {
		t.Fatalf("last good on disk after the rollback: %q", b)
	}
	// A host started on the folder afterwards (plugins list) says the file
	// was set aside by the rollback, and why: not that it is missing.
	for _, p := range f.host(t, hooksConfig, nil).Plugins() {
		if p.Name != "testhooks" {
			continue
		}
		if e := p.FileError; p.Serving != "last_good" || e == nil || e.Code != abi.CodePluginFailed || e.Details["set_aside"] == "" ||
			!strings.Contains(e.Message, "rolled back: 3 hook calls in a row failed") || strings.Contains(e.Message, "missing") {
			t.Fatalf("after a rollback the list must say so: %+v %+v", p, p.FileError)
		}
	}
}

// A drop the host refuses is set aside, and a fresh host on the same
// folder serves the last good version, not the refused file and not
// nothing.
func TestRefusedDropRestartServesLastGood(t *testing.T) {
	f := hooksFixture(t)
	events := make(chanSink, 64)
	h := f.host(t, hooksConfig, events, "watch_plugins = true")
	bad := brokenDetector(t, "panic", "")
	file := filepath.Join(f.plugins, "testhooks.wasm")
	drop(file, bad, true)
	events.waitEvent(t, "plugin.set_aside", sha(bad))
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("the refused drop is still in place: %v", err)
	}
	why, err := os.ReadFile(filepath.Join(f.plugins, ".rejected", "testhooks.wasm.refused.json"))
	if err != nil || !strings.Contains(string(why), sha(bad)) || !strings.Contains(string(why), "crashed or answered nonsense") {
		t.Fatalf("why it was refused: %s %v", why, err)
	}
	if got, _ := pluginset.SHA256File(filepath.Join(f.plugins, ".rejected", "testhooks.wasm.refused")); got != sha(bad) {
		t.Fatal("the refused file was not kept aside")
	}

	h2 := f.host(t, hooksConfig, nil)
	if cur, err := h2.plugins.Slot("testhooks").Current(); err != nil || cur.SHA256 != f.sums["testhooks"] {
		t.Fatalf("restart must serve the last good detector: %v", err)
	}
	if _, err := h2.Call(context.Background(), Request{Personality: "piped", Tool: "page", Args: json.RawMessage(`{"title":"WALL"}`)}); errCode(err) != abi.CodeBotWall {
		t.Fatalf("restarted host: %v", err)
	}

	h.Close(context.Background())
	// The same file dropped while no host watched: a start refuses it
	// (its self-test) and serves the last good version.
	drop(file, bad, false)
	h3 := f.host(t, hooksConfig, nil)
	if cur, err := h3.plugins.Slot("testhooks").Current(); err != nil || cur.SHA256 != f.sums["testhooks"] {
		t.Fatalf("a start with a refused file must serve the last good detector: %v", err)
	}
	if n := h3.eng.Modules(); n != 0 {
		t.Fatalf("the refused file's and the self-tested last good version's code is still held by %d versions", n)
	}
}
