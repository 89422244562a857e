package host

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
)

const chainConfig = `
[plugins.misbehave]
[plugins.testhooks]
[plugins.humancheck]

[personalities.chained]
plugins = ["misbehave", "testhooks", "humancheck"]
tools = ["*"]
grants = ["events"]
hooks = { detect = ["testhooks", "humancheck"] }

[personalities.alone]
plugins = ["misbehave", "humancheck"]
tools = ["*"]
grants = ["events"]
hooks = { detect = "humancheck" }
`

// A personality lists detectors in order and a page is a wall when any of
// them flags it, the first to flag naming the vendor. A third-party
// detector for one more vendor (humancheck, which does not know
// Cloudflare's markers) loads and serves in a chain; alone, its chain lets
// the host's Cloudflare wall through, so it judges no page (fail closed).
// A member that fails fails the chain closed; swapping one member keeps
// the chain; a swap that would make the chain miss a wall is refused.
func TestDetectorChain(t *testing.T) {
	t.Parallel() // its own host: overlaps the other such tests' waits
	f := newFixture(t, map[string]string{"misbehave": "sandbox/testdata/misbehave", "testhooks": "host/testdata/testhooks", "humancheck": "host/testdata/humancheck"})
	h := f.host(t, chainConfig, nil)
	ctx := context.Background()
	if _, err := h.plugins.Slot("humancheck").Current(); err != nil {
		t.Fatalf("a detector that adds one vendor must load without copying Cloudflare's markers: %v", err)
	}
	call := func(pers, title string) (*abi.Result, *abi.Error) {
		args, _ := json.Marshal(map[string]string{"title": title})
		res, err := h.Call(ctx, Request{Personality: pers, Tool: "page", Args: args})
		if err != nil {
			return res, abi.AsError(err)
		}
		return res, nil
	}
	wantWall := func(title, by string) {
		t.Helper()
		res, e := call("chained", title)
		if res != nil || e == nil || e.Code != abi.CodeBotWall || !strings.Contains(e.Message, by) {
			t.Fatalf("page %q: want a bot_wall from %s, got %+v %v", title, by, res, e)
		}
	}
	wantWall("Please verify you are human", "HumanCheck vendor wall")
	wantWall("WALL", "test wall")
	if res, e := call("chained", "Example shop"); e != nil || res == nil {
		t.Fatalf("a normal page passes the chain: %+v %v", res, e)
	}

	res, e := call("alone", "Example shop")
	if res != nil || e == nil || e.Code != abi.CodePluginFailed || e.Details["detector"] != "humancheck" ||
		!strings.Contains(e.Message, "Cloudflare challenge page") {
		t.Fatalf("a chain that misses the host's wall must fail closed naming why: %+v %v", res, e)
	}
	if probs, _ := h.Problems("alone"); !strings.Contains(strings.Join(probs, "\n"), "detector chain [humancheck] failed self-test case") {
		t.Fatalf("the personality's problems must name the chain's failed case: %q", probs)
	}

	// A member that panics on live pages passes its self-test and fails
	// the chain closed, naming it; the other member still flags its pages.
	bad := brokenDetector(t, "panic", "LIVE")
	if _, err := h.Swap(ctx, "testhooks", bad, sha(bad)); err != nil {
		t.Fatal(err)
	}
	res, e = call("chained", "LIVE shop")
	if res != nil || e == nil || e.Code != abi.CodePluginFailed || e.Details["detector"] != "testhooks" {
		t.Fatalf("a failing member fails the chain closed, naming it: %+v %v", res, e)
	}
	// Its panic text and wasm stack are the event log's, not the agent's.
	if strings.Contains(e.Message, "detector bug") || strings.Contains(e.Message, "goroutine") || strings.Contains(e.Message, "exit_code") {
		t.Fatalf("the agent's error carries the detector's internals: %s", e.Message)
	}
	wantWall("Please verify you are human", "HumanCheck vendor wall")

	blind := brokenDetector(t, "blind", "moment...") // blind to Cloudflare only
	_, err := h.Swap(ctx, "testhooks", blind, sha(blind))
	if e := abi.AsError(err); err == nil || e.Code != abi.CodeRefused || e.Details["cause"] != "wrong_answer" ||
		!strings.Contains(e.Message, "detector chain [testhooks humancheck]") {
		t.Fatalf("a swap that makes the chain miss the host's wall is refused: %v", err)
	}
}

// The browser leaves a long-text page's HTML unread only for a
// personality whose every detector takes such a page for no wall
// (abi.FeatureLongTextPage): blockdetect asks for it; a chain with a
// detector that does not (testhooks) reads pages whole, as does a
// personality without a detector.
func TestLongTextPageOnlyWhenEveryDetectorAsks(t *testing.T) {
	t.Parallel() // its own host: overlaps the other such tests' waits
	f := newFixture(t, map[string]string{"misbehave": "sandbox/testdata/misbehave", "testhooks": "host/testdata/testhooks", "blockdetect": "plugins/blockdetect"})
	h := f.host(t, `
[plugins.misbehave]
[plugins.testhooks]
[plugins.blockdetect]

[personalities.first]
plugins = ["misbehave", "blockdetect"]
tools = ["*"]
hooks = { detect = "blockdetect" }

[personalities.mixed]
plugins = ["misbehave", "blockdetect", "testhooks"]
tools = ["*"]
hooks = { detect = ["blockdetect", "testhooks"] }

[personalities.none]
plugins = ["misbehave"]
tools = ["*"]
`, nil)
	for name, want := range map[string]bool{"first": true, "mixed": false, "none": false} {
		p, err := h.roster.get(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.longTextDetectors(); got != want {
			t.Errorf("personality %s: long-text pages read without HTML = %v, want %v", name, got, want)
		}
	}
}
