package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/internal/testenv"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
	"github.com/wasmwright/wasmwright/sandbox"
)

// testCache is the compilation cache the package's tests share, its compiled
// code kept across runs (wasmbuild.TestCacheDir): a Go plugin compiles in
// seconds without it.
var testCache = wasmbuild.TestCacheDir("host")

type fixture struct {
	dir, plugins string
	sums         map[string]string
	// log, when set, receives the log of the hosts it starts.
	log *slog.Logger
}

// newFixture builds the named plugin modules into a fresh plugins folder
// pinned by SHA256SUMS. name=dir entries rename a module's output.
func newFixture(t testing.TB, mods map[string]string) *fixture {
	t.Helper()
	f := &fixture{dir: t.TempDir()}
	f.plugins = filepath.Join(f.dir, "plugins")
	sums, err := wasmbuild.Install(f.plugins, mods)
	if err != nil {
		t.Fatal(err)
	}
	f.sums = sums
	return f
}

func readBuilt(t testing.TB, dir string, extra ...string) []byte {
	t.Helper()
	b, err := wasmbuild.Bytes(dir, extra...)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// host starts a host without a browser from cfgText, the fixture's plugins
// and the [host] keys given. Its call_timeout is generous unless hostKeys
// set one: plugin calls must not hit it on a busy machine.
func (f *fixture) host(t testing.TB, cfgText string, sink hostfuncs.Sink, hostKeys ...string) *Host {
	t.Helper()
	cfgText = "[host]\n" + withDefaults(strings.Join(hostKeys, "\n"), fmt.Sprintf("plugins_dir = %q", f.plugins), fmt.Sprintf("cache_dir = %q", testCache), `call_timeout = "240s"`) + "\n" + cfgText
	cfg, err := ParseConfig(cfgText, "test.toml", f.dir)
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(context.Background(), cfg, Options{Sink: sink, NoBrowser: true, Logger: f.log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}

func errCode(err error) abi.Code {
	var e *abi.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

const linksConfig = `
[plugins.extract_links]
[plugins.misbehave]
[plugins.undeclared]

[personalities.granted]
plugins = ["extract_links", "misbehave"]
tools = ["*"]
grants = ["events"]

[personalities.reader]
plugins = ["extract_links"]
tools = ["extract_links"]

[personalities.narrow]
plugins = ["misbehave"]
tools = ["echo"]
grants = ["events"]

[personalities.sneaky]
plugins = ["undeclared"]
tools = ["*"]
grants = ["events"]
`

func linksFixture(t *testing.T, hostKeys ...string) (*Host, *hostfuncs.MemorySink) {
	f := newFixture(t, map[string]string{
		"extract_links": "examples/extract_links",
		"misbehave":     "sandbox/testdata/misbehave",
		"undeclared":    "sandbox/testdata/undeclared",
	})
	sink := &hostfuncs.MemorySink{}
	return f.host(t, linksConfig, sink, hostKeys...), sink
}

func TestGrantsDecideWhatRuns(t *testing.T) {
	h, sink := linksFixture(t)
	ctx := context.Background()
	args := json.RawMessage(`{"html":"<a href='/a'>A</a>"}`)

	res, err := h.Call(ctx, Request{Personality: "granted", Tool: "extract_links", Args: args})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Text, "A -> /a") {
		t.Fatalf("result %+v", res)
	}
	// The plugin's own event, then the host's record of the call.
	if ev := sink.Snapshot(); len(ev) != 2 || ev[0].Kind != "extract_links.done" || ev[0].Personality != "granted" || ev[1].Kind != EventTool {
		t.Fatalf("events %+v", ev)
	}

	_, err = h.Call(ctx, Request{Personality: "reader", Tool: "extract_links", Args: args})
	if errCode(err) != abi.CodeRefused || !strings.Contains(err.Error(), "personality reader does not grant events, which plugin extract_links needs") {
		t.Fatalf("reader: %v", err)
	}
	if tools, _ := h.Tools("reader"); len(tools) != 0 {
		t.Fatalf("reader sees %d tools", len(tools))
	}

	_, err = h.Call(ctx, Request{Personality: "narrow", Tool: "panic"})
	if errCode(err) != abi.CodeRefused || !strings.Contains(err.Error(), "not in personality narrow's allowlist") {
		t.Fatalf("allowlist: %v", err)
	}
	if tools, _ := h.Tools("narrow"); len(tools) != 1 || tools[0].Name != "echo" {
		t.Fatalf("narrow tools %+v", tools)
	}

	_, err = h.Call(ctx, Request{Personality: "sneaky", Tool: "emit"})
	if errCode(err) != abi.CodeRefused || !strings.Contains(err.Error(), "imports host functions needing events (imported as ww_events_emit) but does not declare them") {
		t.Fatalf("undeclared import: %v", err)
	}

	_, err = h.Call(ctx, Request{Personality: "nobody", Tool: "echo"})
	if errCode(err) != abi.CodeNotFound {
		t.Fatalf("unknown personality: %v", err)
	}
	_, err = h.Call(ctx, Request{Personality: "granted", Tool: "nope"})
	if errCode(err) != abi.CodeNotFound || !strings.Contains(err.Error(), "available: ") {
		t.Fatalf("unknown tool: %v", err)
	}
}

func TestArgsMustMatchSchema(t *testing.T) {
	h, _ := linksFixture(t)
	for _, c := range []struct{ args, want string }{
		{`{"htm":"x"}`, "missing property 'html'"},
		{`{"html":"x","max":0}`, "minimum"},
		{`{"html":5}`, "want string"},
		{`[1]`, "must be a JSON object"},
		{`{"html":`, "not valid JSON"},
	} {
		_, err := h.Call(context.Background(), Request{Personality: "granted", Tool: "extract_links", Args: json.RawMessage(c.args)})
		if errCode(err) != abi.CodeInputInvalid || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: want input_invalid with %q, got %v", c.args, c.want, err)
		}
	}
}

func TestMisbehavingPluginsThroughHost(t *testing.T) {
	// call_timeout stops the loop below; every other call gets a minute
	// of its own (sandbox.WithTimeout): on a busy machine growing to the
	// memory limit (oom) can take longer than 3 s.
	h, sink := linksFixture(t, `call_timeout = "3s"`)
	ctx := sandbox.WithTimeout(context.Background(), time.Minute)
	call := func(tool string) error {
		_, err := h.Call(ctx, Request{Personality: "granted", Tool: tool})
		return err
	}
	if err := call("badjson"); errCode(err) != abi.CodePluginFailed || !strings.Contains(err.Error(), "returned invalid JSON") {
		t.Errorf("badjson: %v", err)
	}
	// A panic: the agent is told the code, the plugin and what to do,
	// never the plugin's panic text or its stack; the event log has them.
	if err := call("panic"); errCode(err) != abi.CodePluginFailed || !strings.Contains(err.Error(), "plugin misbehave crashed") ||
		strings.Contains(err.Error(), "deliberate panic") || strings.Contains(err.Error(), "goroutine") || strings.Contains(err.Error(), "exit_code") {
		t.Errorf("panic: %v", err)
	}
	crash := false
	for _, e := range sink.Snapshot() {
		if e.Kind == sandbox.EventCrash && e.Plugin == "misbehave" && e.Personality == "granted" && strings.Contains(string(e.Data), "deliberate panic") {
			crash = true
		}
	}
	if !crash {
		t.Errorf("no %s event with the panic text: %+v", sandbox.EventCrash, sink.Snapshot())
	}
	if err := call("oom"); errCode(err) != abi.CodeResourceLimit {
		t.Errorf("oom: %v", err)
	}
	// Stopped at call_timeout (3 s); 30 s only catches a loop that was
	// not stopped.
	t0 := time.Now()
	if _, err := h.Call(context.Background(), Request{Personality: "granted", Tool: "loop"}); errCode(err) != abi.CodeTimeout || time.Since(t0) > 30*time.Second {
		t.Errorf("loop: %v after %v", err, time.Since(t0))
	}
	// The host keeps serving after all of that.
	if _, err := h.Call(ctx, Request{Personality: "granted", Tool: "echo", Args: json.RawMessage(`{"ok":true}`)}); err != nil {
		t.Errorf("echo after misbehaviour: %v", err)
	}
}

func TestUnavailablePluginsDoNotStopTheHost(t *testing.T) {
	f := newFixture(t, map[string]string{"extract_links": "examples/extract_links"})
	h := f.host(t, `
[plugins.extract_links]
[plugins.ghost]
[plugins.pinned]
file = "extract_links.wasm"
sha256 = "`+strings.Repeat("0", 64)+`"
[personalities.p]
plugins = ["extract_links", "ghost", "pinned"]
tools = ["*"]
grants = ["events"]
`, nil)
	probs, _ := h.Problems("p")
	joined := strings.Join(probs, "\n")
	if !strings.Contains(joined, "plugin ghost is not installed") || !strings.Contains(joined, "update the pin") {
		t.Fatalf("problems: %s", joined)
	}
	if _, err := h.Call(context.Background(), Request{Personality: "p", Tool: "extract_links", Args: json.RawMessage(`{"html":"<a href=x>y</a>"}`)}); err != nil {
		t.Fatal(err)
	}
}

// configCase is a config text ParseConfig must refuse, with an error
// holding want.
type configCase struct{ text, want string }

// refused fails t for each case ParseConfig accepts, or refuses without
// saying want.
func refused(t *testing.T, cases []configCase) {
	t.Helper()
	for _, c := range cases {
		_, err := ParseConfig(c.text, "t.toml", t.TempDir())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: want error containing %q, got %v", c.text, c.want, err)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	refused(t, []configCase{
		{"[host]\nplugin_dir = \"x\"\n", "unknown key host.plugin_dir"},
		{"[personalities.p]\nplugin = [\"x\"]\n", "unknown key personalities.p.plugin"},
		{"[personalities.p]\nplugins = [\"x\"]\n", `loads plugin "x", which no [plugins.x] table defines`},
		{"[plugins.a]\n[personalities.p]\nplugins = [\"a\"]\ngrants = [\"root\"]\n", `unknown capability "root"`},
		{"[plugins.a]\n[plugins.b]\n[personalities.p]\nplugins = [\"a\"]\nhooks = { mask = \"b\" }\n", `hooks.mask names plugin "b", which is not in its plugins list`},
		{"[plugins.a]\nsha256 = \"abc\"\n", "must be 64 hex digits"},
		{"[host]\ndefault_personality = \"x\"\n", `default_personality "x" is not a defined personality`},
		{"[host]\ncall_timeout = \"soon\"\n", "write it like"},
		{"[personalities.\"a b\"]\n", "use letters, digits"},
		{"[serve]\ntls_cert = \"c.pem\"\n", "tls_cert and serve.tls_key go together"},
		{"[serve]\nallowed_origins = [\"evil.example\"]\n", "is not an origin"},
		{"[serve]\nallowed_origins = [\"https://a.example/path\"]\n", "is not an origin"},
		{"[serve]\nmax_conns = -1\n", "must not be negative"},
		{"[serve]\nallow_remote = \"yes\"\n", "allow_remote"},
		{"[serve]\norigins = []\n", "unknown key serve.origins"},
		{"[console]\nenabled = true\n", "console.enabled needs at least one [[console.operators]]"},
		{"[console]\nenabled = true\npath = \"/mcp\"\n[[console.operators]]\nname = \"o\"\nsha256 = \"abababababababababababababababababababababababababababababababab\"\n", "give a path of its own"},
		{"[console]\nenabled = true\n[[console.operators]]\nname = \"o\"\nsha256 = \"abc\"\n", "console.operators[0].sha256 must be the sha256 hex"},
		{"[console]\nenabled = true\n[[console.operators]]\nname = \"o\"\nsha256 = \"abababababababababababababababababababababababababababababababab\"\n[[console.operators]]\nname = \"o\"\nsha256 = \"abababababababababababababababababababababababababababababababab\"\n", "console.operators[1].name \"o\": give each operator a distinct name"},
		{"[console]\nenabled = true\n[[console.operators]]\nname = \"o\"\nsha256 = \"abababababababababababababababababababababababababababababababab\"\npersonalities = [\"nope\"]\n", "names unknown personality \"nope\""},
		{"[personalities.p]\n[[serve.tokens]]\nsha256 = \"abababababababababababababababababababababababababababababababab\"\npersonality = \"p\"\n[console]\nenabled = true\n[[console.operators]]\nname = \"o\"\nsha256 = \"abababababababababababababababababababababababababababababababab\"\n", "uses an agent's bearer token"},
		{"[console]\nenable = true\n", "unknown key console.enable"},
		{"[personalities.p]\ngrants = [\"browser.eval\", \"vault.fill\"]\n", "personality p grants both browser.eval and vault.fill: script run in the page could read the credentials"},
		{"[personalities.p]\ngrants = [\"browser.eval\", \"vault.fill\"]\n", "set allow_eval_with_vault = true in [personalities.p]"},
		{"[personalities.p.approval]\nclick = \"ask\"\n", "personalities.p.approval.click: unknown risk"},
		{"[personalities.p.approval]\nact = \"maybe\"\n", "personalities.p.approval.act = \"maybe\": use allow, ask or deny"},
		{"[personalities.p.approval]\ntimeout = \"soon\"\n", "personalities.p.approval.timeout = \"soon\": give a duration"},
		{"[personalities.p.approval]\ntimeout = \"0s\"\n", "personalities.p.approval.timeout"},
		{"[personalities.p.approval]\nvia = [\"slack\"]\n", `personalities.p.approval.via: unknown way "slack": use "client"`},
		{"[personalities.p.approval]\nvia = [\"client\", \"client\"]\n", `personalities.p.approval.via names "client" twice`},
		{"[personalities.p.approval]\nvia = \"client\"\n", "personalities.p.approval.via: give a list"},
		{"[personalities.p.approval]\nvia = []\n", "personalities.p.approval.via: give a list"},
		{"[personalities.p.approval]\nact = 1\n", "personalities.p.approval.act: give a string"},
		{"[console]\nenabled = true\n[[console.operators]]\nname = \"o\"\nsha256 = \"abababababababababababababababababababababababababababababababab\"\n[console.notify]\nurl = \"http://hooks.example/x\"\nsecret_env = \"S\"\n", "use https"},
		{"[console]\nenabled = true\n[[console.operators]]\nname = \"o\"\nsha256 = \"abababababababababababababababababababababababababababababababab\"\n[console.notify]\nurl = \"http://127.0.0.1:9/x\"\nsecret_env = \"S\"\n", "set console.notify.allow_loopback = true"},
		{"[console]\nenabled = true\n[[console.operators]]\nname = \"o\"\nsha256 = \"abababababababababababababababababababababababababababababababab\"\n[console.notify]\nurl = \"https://169.254.169.254/x\"\nsecret_env = \"S\"\n", "link-local"},
		{"[console]\nenabled = true\n[[console.operators]]\nname = \"o\"\nsha256 = \"abababababababababababababababababababababababababababababababab\"\n[console.notify]\nurl = \"https://hooks.example/x\"\n", "console.notify.secret_env: name the environment variable"},
		{"[console]\nenabled = true\n[[console.operators]]\nname = \"o\"\nsha256 = \"abababababababababababababababababababababababababababababababab\"\n[console.notify]\nurl = \"https://u:p@hooks.example/x\"\nsecret_env = \"S\"\n", "without a user name"},
		{"[personalities.p]\ndetect_failure = \"ignore\"\n", `personalities.p.detect_failure = "ignore": use "fail_closed"`},
		{"[personalities.p]\nhidden_text = \"show\"\n", `personalities.p.hidden_text = "show": use "drop"`},
		{"[host]\nhook_timeout = \"-1s\"\n", "host.hook_timeout = -1s"},
		{"[host]\nhook_fuel_per_kb = 5\n", "host.hook_fuel_per_kb = 5: give fuel per KiB"},
		{"[host]\nhook_fuel_per_kb = -1\n", "host.hook_fuel_per_kb = -1"},
		{"[host]\nrollback_after = -2\n", "host.rollback_after = -2"},
	})
	if _, err := LoadConfig(""); err != nil {
		t.Fatalf("embedded default: %v", err)
	}
	cfg, err := ParseConfig("[serve]\nallow_remote = true\ntls_cert = \"c.pem\"\ntls_key = \"/k.pem\"\nallowed_origins = [\"https://console.example\"]\nmax_conns = 10\nmax_conns_per_ip = 2\n", "t.toml", "/cfg")
	if err != nil {
		t.Fatal(err)
	}
	if c, k := cfg.TLSFiles(); !cfg.Serve.AllowRemote || c != filepath.Join("/cfg", "c.pem") || k != "/k.pem" || cfg.Serve.MaxConnsPerIP != 2 {
		t.Errorf("serve table: %+v, tls %s %s", cfg.Serve, c, k)
	}
}

// TestEvalWithVaultOptIn: the refusal of browser.eval next to vault.fill
// is lifted only by the explicit key, for that personality alone; either
// grant alone loads.
func TestEvalWithVaultOptIn(t *testing.T) {
	ok := "[personalities.p]\ngrants = [\"browser.eval\", \"vault.fill\"]\nallow_eval_with_vault = true\n" +
		"[personalities.q]\ngrants = [\"browser.eval\"]\n[personalities.r]\ngrants = [\"vault.fill\"]\n"
	cfg, err := ParseConfig(ok, "t.toml", t.TempDir())
	if err != nil {
		t.Fatalf("opt-in refused: %v", err)
	}
	if !cfg.Personalities["p"].AllowEvalWithVault {
		t.Fatal("allow_eval_with_vault not read")
	}
	other := ok + "[personalities.s]\ngrants = [\"vault.fill\", \"browser.eval\"]\n"
	if _, err := ParseConfig(other, "t.toml", t.TempDir()); err == nil || !strings.Contains(err.Error(), "personality s grants both") {
		t.Fatalf("one personality's opt-in covered another: %v", err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "ops.toml"), []byte("grants = [\"browser.eval\", \"vault.fill\"]\n"), 0o644)
	if _, err := ParseConfig("[host]\npersonalities_dir = \".\"\n", filepath.Join(dir, "cfg.toml"), dir); err == nil || !strings.Contains(err.Error(), "allow_eval_with_vault") {
		t.Fatalf("personality file not checked: %v", err)
	}
	def, err := LoadConfig("")
	if err != nil {
		t.Fatalf("embedded default: %v", err)
	}
	if d := def.Personalities["default"]; contains(d.Grants, "browser.eval") && contains(d.Grants, "vault.fill") && !d.AllowEvalWithVault {
		t.Fatal("the default personality holds both grants")
	}
}

func TestPersonalitiesDir(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "ops.toml"), []byte("plugins = [\"a\"]\ntools = [\"*\"]\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "cfg.toml"), []byte("[host]\npersonalities_dir = \".\"\n[plugins.a]\n"), 0o644)
	// cfg.toml itself is in the folder; give the folder its own place.
	pdir := filepath.Join(dir, "p")
	os.MkdirAll(pdir, 0o755)
	os.Rename(filepath.Join(dir, "ops.toml"), filepath.Join(pdir, "ops.toml"))
	os.WriteFile(filepath.Join(dir, "cfg.toml"), []byte("[host]\npersonalities_dir = \"p\"\n[plugins.a]\n"), 0o644)
	cfg, err := LoadConfig(filepath.Join(dir, "cfg.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := cfg.Personalities["ops"]; !ok || p.Plugins[0] != "a" {
		t.Fatalf("personalities %+v", cfg.Personalities)
	}
	os.WriteFile(filepath.Join(pdir, "bad.toml"), []byte("plugin = [\"a\"]\n"), 0o644)
	if _, err := LoadConfig(filepath.Join(dir, "cfg.toml")); err == nil || !strings.Contains(err.Error(), "unknown key plugin") {
		t.Fatalf("bad personality file: %v", err)
	}
}

const hooksConfig = `
[plugins.misbehave]
[plugins.testhooks]
[plugins.testmask]

[personalities.piped]
plugins = ["misbehave", "testhooks", "testmask"]
tools = ["*"]
grants = ["events", "secrets.mask"]
hooks = { detect = "testhooks", compact = "testhooks", mask = "testmask" }

[personalities.bare]
plugins = ["misbehave"]
tools = ["*"]
grants = ["events"]
`

// A plugin that sees secret values cannot talk: a tool declaring
// secrets.mask next to network is refused under a personality granting
// both, and never reaches a value.
func TestMaskerCannotTalk(t *testing.T) {
	t.Parallel() // its own host: overlaps the other such tests' waits
	f := newFixture(t, map[string]string{"exfil": "host/testdata/exfil", "testmask": "host/testdata/testmask"})
	h := f.host(t, `
[plugins.exfil]
[plugins.testmask]

[personalities.thief]
plugins = ["exfil", "testmask"]
tools = ["*"]
grants = ["secrets.mask", "network", "browser.read", "browser.act", "events"]
hooks = { mask = "testmask" }
`, nil)
	h.Secrets().Add("thief", "s", "hunter2")
	res, err := h.Call(context.Background(), Request{Personality: "thief", Session: "s", Tool: "exfil", Args: json.RawMessage(`{"url":"http://example.test/"}`)})
	if errCode(err) != abi.CodeRefused || !strings.Contains(err.Error(), "declares secrets.mask, which hands it secret values, together with network") {
		t.Fatalf("exfil linked: %+v %v", res, err)
	}
	if tools, _ := h.Tools("thief"); len(tools) != 0 {
		t.Fatalf("thief sees tools %+v", tools)
	}
}

func TestPipeline(t *testing.T) {
	f := newFixture(t, map[string]string{"misbehave": "sandbox/testdata/misbehave", "testhooks": "host/testdata/testhooks", "testmask": "host/testdata/testmask"})
	h := f.host(t, hooksConfig, nil)
	ctx := context.Background()
	call := func(p, tool, args string) (*abi.Result, error) {
		return h.Call(ctx, Request{Personality: p, Session: "s", Tool: tool, Args: json.RawMessage(args)})
	}
	_, err := call("piped", "page", `{"title":"WALL"}`)
	if errCode(err) != abi.CodeBotWall || !strings.Contains(err.Error(), "test wall at http://wall.test/") {
		t.Fatalf("detect: %v", err)
	}
	res, err := call("piped", "page", `{"title":"ok","snapshot":"- button \"go\" [ref=e1]"}`)
	if err != nil || res.Snapshot != `- BUTTON "GO" [REF=E1]` {
		t.Fatalf("compact: %+v %v", res, err)
	}
	if res, err := call("bare", "page", `{"title":"WALL"}`); err != nil || res.Page.Title != "WALL" {
		t.Fatalf("no hooks configured: %+v %v", res, err)
	}

	h.Secrets().Add("piped", "s", "hunter2")
	h.Secrets().Add("bare", "s", "hunter2")
	res, err = call("piped", "page", `{"title":"ok","text":"your password is hunter2"}`)
	if err != nil || res.Text != "your password is ••••••" {
		t.Fatalf("mask: %+v %v", res, err)
	}
	_, err = call("piped", "fail_with", `{"message":"login failed for hunter2"}`)
	if errCode(err) != abi.CodeExecutionFailed || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "••••••") {
		t.Fatalf("mask error: %v", err)
	}
	// No masker: the host refuses to let the value out at all.
	_, err = call("bare", "page", `{"title":"ok","text":"your password is hunter2"}`)
	if errCode(err) != abi.CodeSecretLeak || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("raw check: %v", err)
	}
	// Another session's secrets are not this session's concern.
	if res, err := h.Call(ctx, Request{Personality: "bare", Session: "other", Tool: "page", Args: json.RawMessage(`{"title":"t","text":"hunter2"}`)}); err != nil || res.Text != "hunter2" {
		t.Fatalf("other session: %+v %v", res, err)
	}
}

func TestHotSwapUnderLoad(t *testing.T) {
	// A stress test (swaps against a stream of calls): the full tier runs it.
	testenv.Heavy(t, "a minute of swaps under concurrent calls")
	f := newFixture(t, map[string]string{"misbehave": "sandbox/testdata/misbehave", "testhooks": "host/testdata/testhooks", "testmask": "host/testdata/testmask"})
	// An empty cache of its own: each swap compiles while calls run, as
	// a new build's swap does (the shared cache is warm from earlier runs).
	h := f.host(t, hooksConfig, nil, fmt.Sprintf("cache_dir = %q", t.TempDir()))
	ctx := context.Background()
	versions := [][]byte{
		readBuilt(t, "sandbox/testdata/misbehave", "-trimpath"),
		readBuilt(t, "sandbox/testdata/misbehave"),
	}
	load := hammer(4, func() error {
		_, err := h.Call(ctx, Request{Personality: "piped", Tool: "echo", Args: json.RawMessage(`{"n":1}`)})
		return err
	})
	var lat []time.Duration
	for i := 0; i < 4; i++ {
		w := versions[i%2]
		s := sha256.Sum256(w)
		rep, err := h.Swap(ctx, "misbehave", w, hex.EncodeToString(s[:]))
		if err != nil {
			t.Fatal(err)
		}
		lat = append(lat, rep.Total)
	}
	calls, failures, firstErr := load()
	if failures != 0 {
		t.Fatalf("%d of %d calls failed during swaps: %v", failures, calls, firstErr)
	}
	if calls < 10 {
		t.Fatalf("only %d calls ran", calls)
	}
	t.Logf("%d calls, 0 failed, swap latencies %v", calls, lat)

	// A refused version changes nothing.
	cur, _ := h.plugins.Slot("misbehave").Current()
	bad := readBuilt(t, "host/testdata/testhooks", "-ldflags=-X main.failSelfTest=yes")
	for _, c := range []struct {
		name, want string
		wasm       []byte
		pin        string
	}{
		{"wrong pin", "update the pin", versions[0], strings.Repeat("1", 64)},
		{"other plugin", `calls itself "testhooks", not "misbehave"`, readBuilt(t, "host/testdata/testhooks"), ""},
		{"malformed", "malformed wasm", []byte("nope"), ""},
	} {
		pin := c.pin
		if pin == "" {
			s := sha256.Sum256(c.wasm)
			pin = hex.EncodeToString(s[:])
		}
		if _, err := h.Swap(ctx, "misbehave", c.wasm, pin); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: want %q, got %v", c.name, c.want, err)
		}
	}
	s := sha256.Sum256(bad)
	if _, err := h.Swap(ctx, "testhooks", bad, hex.EncodeToString(s[:])); err == nil || !strings.Contains(err.Error(), "deliberately failing self-test") {
		t.Errorf("self-test: %v", err)
	}
	if now, _ := h.plugins.Slot("misbehave").Current(); now != cur {
		t.Fatal("a refused swap replaced the serving version")
	}
	if res, err := h.Call(ctx, Request{Personality: "piped", Tool: "page", Args: json.RawMessage(`{"title":"WALL"}`)}); errCode(err) != abi.CodeBotWall {
		t.Fatalf("the old detector must keep serving: %+v %v", res, err)
	}
}

// chanSink hands the host's events to a test as they happen.
type chanSink chan hostfuncs.Event

func (c chanSink) Emit(e hostfuncs.Event) error {
	select {
	case c <- e:
	default: // a test that stopped reading must not block the host
	}
	return nil
}

// waitEvent returns the first event of kind for sha256 (the host's events
// name the file's digest), failing after a generous bound.
func (c chanSink) waitEvent(t *testing.T, kind, sum string) hostfuncs.Event {
	t.Helper()
	// A hang-catcher, not a speed bound: the event follows a compile of a
	// Go plugin of a few MB and its self-test, which took over 30 s at load
	// 55 on 2 cores (the tests beside it compile too).
	const hang = 2 * time.Minute
	deadline := time.After(hang)
	for {
		select {
		case e := <-c:
			if e.Kind == kind && strings.Contains(string(e.Data), sum) {
				return e
			}
		case <-deadline:
			t.Fatalf("no %s event for %s within %s", kind, sum[:12], hang)
		}
	}
}

func TestSwapByFileDrop(t *testing.T) {
	f := newFixture(t, map[string]string{"misbehave": "sandbox/testdata/misbehave"})
	events := make(chanSink, 64)
	h := f.host(t, "[plugins.misbehave]\n[personalities.p]\nplugins = [\"misbehave\"]\ntools = [\"*\"]\ngrants = [\"events\"]\n", events, "watch_plugins = true")
	next := readBuilt(t, "sandbox/testdata/misbehave", "-trimpath")
	s := sha256.Sum256(next)
	sum := hex.EncodeToString(s[:])
	file := filepath.Join(f.plugins, "misbehave.wasm")
	// Without a matching pin the drop is refused (the host says so) and the
	// old version serves.
	os.WriteFile(file+".tmp", next, 0o644)
	os.Rename(file+".tmp", file)
	events.waitEvent(t, "plugin.swap_refused", sum)
	if cur, _ := h.plugins.Slot("misbehave").Current(); cur.SHA256 == sum {
		t.Fatal("an unpinned drop was swapped in")
	}
	os.WriteFile(file+".sha256", []byte(sum+"  misbehave.wasm\n"), 0o644)
	events.waitEvent(t, "plugin.swapped", sum)
	if cur, _ := h.plugins.Slot("misbehave").Current(); cur.SHA256 != sum {
		t.Fatalf("swapped event, but %s serves", cur.SHA256[:12])
	}
	if _, err := h.Call(context.Background(), Request{Personality: "p", Tool: "echo"}); err != nil {
		t.Fatal(err)
	}
}

// The [browser] section is decoded strictly and validated once, at load
// (its Section lifecycle): a mistake there is refused before any service
// is built, by every command that reads the config.
func TestBrowserSectionIsStrict(t *testing.T) {
	refused(t, []configCase{
		{"[browser]\nheadles = \"true\"\n", "unknown key browser.headles"},
		{"[browser]\nproxy = \"127.0.0.1:3128\"\n", "[browser]: browser.proxy"},
		{"[browser]\ngrid = \"http://127.0.0.1:4444\"\n", "[network] proxy_listen is not"},
	})
}

// hammer runs fn in a loop on n goroutines until the returned stop is
// called; stop waits for them and reports how many calls ran, how many
// failed, and the first failure.
func hammer(n int, fn func() error) (stop func() (calls, failures int64, first error)) {
	var halt atomic.Bool
	var c, f atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !halt.Load() {
				c.Add(1)
				if err := fn(); err != nil {
					f.Add(1)
					firstErr.CompareAndSwap(nil, err)
				}
			}
		}()
	}
	return func() (int64, int64, error) {
		halt.Store(true)
		wg.Wait()
		e, _ := firstErr.Load().(error)
		return c.Load(), f.Load(), e
	}
}
