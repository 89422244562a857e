package browser

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/browser/grid"
)

// Capabilities that would undo the host's launch flags are refused,
// naming the key, with an abi code; harmless ones pass.
func TestGridCapabilitiesRefused(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	for _, tc := range []struct {
		caps map[string]any
		key  string // "" = accepted
	}{
		{map[string]any{"platformName": "linux", "se:name": "x"}, ""},
		{map[string]any{"goog:chromeOptions": map[string]any{"binary": "/usr/bin/chromium", "args": []any{"--lang=fr"}}}, ""},
		{map[string]any{"proxy": map[string]any{"proxyType": "direct"}}, "proxy"},
		{map[string]any{"acceptInsecureCerts": true}, "acceptInsecureCerts"},
		{map[string]any{"browserName": "firefox"}, "browserName"},
		{map[string]any{"goog:chromeOptions": map[string]any{"extensions": []any{"abc"}}}, "goog:chromeOptions.extensions"},
		{map[string]any{"goog:chromeOptions": map[string]any{"debuggerAddress": "10.0.0.1:9222"}}, "goog:chromeOptions.debuggerAddress"},
		{map[string]any{"goog:chromeOptions": map[string]any{"args": []any{"--enable-quic"}}}, "--enable-quic"},
		{map[string]any{"goog:chromeOptions": map[string]any{"args": []any{"--proxy-server=http://x:1"}}}, "--proxy-server"},
		{map[string]any{"goog:chromeOptions": map[string]any{"args": []any{"--host-resolver-rules=MAP * 1.2.3.4"}}}, "--host-resolver-rules"},
		{map[string]any{"goog:chromeOptions": map[string]any{"args": []any{"--webrtc-ip-handling-policy=default"}}}, "--webrtc-ip-handling-policy"},
		{map[string]any{"goog:chromeOptions": map[string]any{"args": []any{"--load-extension=/x"}}}, "--load-extension"},
		{map[string]any{"goog:chromeOptions": map[string]any{"args": []any{"--enable-features=AsyncDns"}}}, "--enable-features"},
		{map[string]any{"goog:chromeOptions": map[string]any{"prefs": map[string]any{"net": map[string]any{"dns_over_https": "x"}}}}, "prefs.net.dns_over_https"},
	} {
		err := Config{Grid: "http://hub:4444", GridCapabilities: tc.caps}.Validate()
		if tc.key == "" {
			if err != nil {
				t.Errorf("%v: refused: %v", tc.caps, err)
			}
			continue
		}
		var ae *abi.Error
		if err == nil || !errors.As(err, &ae) || ae.Code != abi.CodeRefused || !strings.Contains(err.Error(), tc.key) || !strings.Contains(err.Error(), "browser.grid_capabilities") {
			t.Errorf("%v: want refused naming %s, got %v", tc.caps, tc.key, err)
		}
	}
	if err := (Config{Grid: "http://hub:4444", PersistentProfiles: []string{"a"}, ProfilesDir: "/p"}).Validate(); err == nil || !strings.Contains(err.Error(), "persistent_profiles") {
		t.Errorf("grid with persistent profiles: %v", err)
	}
	if err := (Config{Grid: "hub:4444"}).Validate(); err == nil || !strings.Contains(err.Error(), "browser.grid") {
		t.Errorf("grid without a scheme: %v", err)
	}
}

// The capabilities sent carry the host's whole command line: the egress
// flags, the dead launch proxy, the proxy's address excluded from the
// resolver rules, then the operator's switches; the operator's binary
// is kept.
func TestGridCapabilitiesCarryTheHostFlags(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	l := &launcher{env: &env{cfg: Config{Grid: "http://hub:4444", GridCapabilities: map[string]any{
		"goog:chromeOptions": map[string]any{"binary": "/opt/chromium", "args": []any{"--lang=fr"}},
	}}, opts: Options{SessionProxy: func(string, string) (string, error) { return "", nil }, ProxyHost: "10.9.0.1", ProxyTrustSPKI: "abc="}}}
	raw, err := l.gridCapabilities()
	if err != nil {
		t.Fatal(err)
	}
	var caps struct {
		BrowserName string `json:"browserName"`
		Chrome      struct {
			Binary string   `json:"binary"`
			Args   []string `json:"args"`
		} `json:"goog:chromeOptions"`
	}
	if err := json.Unmarshal([]byte(raw), &caps); err != nil {
		t.Fatal(err)
	}
	args := caps.Chrome.Args
	for _, want := range append(slices.Clone(egressFlags[:3]), "--proxy-server="+deadProxy, "--headless", "--ignore-certificate-errors-spki-list=abc=", "--lang=fr") {
		if !slices.Contains(args, want) {
			t.Errorf("missing %s in %v", want, args)
		}
	}
	if caps.BrowserName != "chrome" || caps.Chrome.Binary != "/opt/chromium" || args[len(args)-1] != "--lang=fr" {
		t.Errorf("browserName %q, binary %q, last arg %q", caps.BrowserName, caps.Chrome.Binary, args[len(args)-1])
	}
	if !slices.ContainsFunc(args, func(a string) bool {
		return strings.HasPrefix(a, "--host-resolver-rules=") && strings.HasSuffix(a, "EXCLUDE 10.9.0.1")
	}) {
		t.Errorf("the proxy's address is not excluded from the resolver rules: %v", args)
	}
}

// Nested capabilities written as TOML tables (goog:chromeOptions with
// args, binary and prefs; a proxy table) are read whole, as the host's
// config reads [browser] (a deferred table, unknown keys refused), and then
// checked flag by flag: the harmless ones are kept, a proxy table is
// refused by name rather than as an unknown key.
func TestGridCapabilitiesNestedTOML(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	decode := func(text string) (Config, []string) {
		t.Helper()
		var top struct {
			Browser toml.Primitive `toml:"browser"`
		}
		md, err := toml.Decode(text, &top)
		if err != nil {
			t.Fatal(err)
		}
		var c Config
		if err := md.PrimitiveDecode(top.Browser, &c); err != nil {
			t.Fatal(err)
		}
		var und []string
		for _, k := range md.Undecoded() {
			und = append(und, k.String())
		}
		return c, und
	}
	c, und := decode(`[browser]
grid = "http://hub:4444"
[browser.grid_capabilities]
platformName = "linux"
[browser.grid_capabilities."goog:chromeOptions"]
binary = "/usr/bin/chromium"
args = ["--lang=fr", "--window-size=1280,800"]
prefs = { intl = { accept_languages = "fr" } }
[[browser.grid_capabilities."se:labels"]]
team = "a"
`)
	if len(und) > 0 {
		t.Fatalf("nested capabilities read as unknown keys: %v", und)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("harmless nested capabilities refused: %v", err)
	}
	l := &launcher{env: &env{cfg: c, opts: Options{SessionProxy: func(string, string) (string, error) { return "", nil }}}}
	raw, err := l.gridCapabilities()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"binary":"/usr/bin/chromium"`, `"accept_languages":"fr"`, `"--window-size=1280,800"`, `"platformName":"linux"`, `"se:labels":[{"team":"a"}]`} {
		if !strings.Contains(raw, want) {
			t.Errorf("sent capabilities lack %s: %s", want, raw)
		}
	}
	c, und = decode(`[browser]
grid = "http://hub:4444"
[browser.grid_capabilities.proxy]
proxyType = "manual"
httpProxy = "10.0.0.9:3128"
`)
	var ae *abi.Error
	if err := c.Validate(); len(und) > 0 || !errors.As(err, &ae) || ae.Code != abi.CodeRefused || !strings.Contains(err.Error(), "grid_capabilities: proxy is refused") {
		t.Errorf("a proxy table: want refused by name, got unknown %v, %v", und, err)
	}
	c, _ = decode(`[browser]
grid = "http://hub:4444"
[browser.grid_capabilities."goog:chromeOptions".prefs.webrtc]
ip_handling_policy = "default"
`)
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "prefs.webrtc") {
		t.Errorf("a nested WebRTC preference: want refused, got %v", err)
	}
}

// The deny-list reads a switch as Chromium does: one dash or two, any
// case, with or without a value; and an operator's --disable-features is
// folded into the host's rather than replacing it (Chromium keeps only
// the last one, which would re-enable the features the host turns off).
func TestGridArgsEverySpelling(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	for _, a := range []string{"-load-extension=/x", "--load-extension", "--Load-Extension=/x", " -user-data-dir=/tmp/p", "-enable-features=AsyncDns",
		"-proxy-server=http://x:1", "--PROXY-SERVER", "-remote-debugging-port=9222", "-ignore-certificate-errors", "-host-resolver-rules=MAP * 1.2.3.4"} {
		caps := map[string]any{"goog:chromeOptions": map[string]any{"args": []any{a}}}
		if err := (Config{Grid: "http://hub:4444", GridCapabilities: caps}).Validate(); err == nil || !strings.Contains(err.Error(), "is refused") {
			t.Errorf("%q: want refused, got %v", a, err)
		}
	}
	if err := (Config{Args: []string{"-proxy-server=http://x:1"}}).Validate(); err == nil {
		t.Error("browser.args -proxy-server: want refused")
	}
	l := &launcher{env: &env{cfg: Config{Grid: "http://hub:4444", GridCapabilities: map[string]any{
		"goog:chromeOptions": map[string]any{"args": []any{"-disable-features=Translate"}},
	}}, opts: Options{SessionProxy: func(string, string) (string, error) { return "", nil }}}}
	args := gridArgs(t, l)
	n := 0
	for _, a := range args {
		if switchName(a) == "--disable-features" {
			n++
			if !strings.Contains(a, "AsyncDns") || !strings.Contains(a, "Translate") {
				t.Errorf("want one --disable-features with the host's and the operator's features, got %s", a)
			}
		}
	}
	if n != 1 {
		t.Errorf("want exactly one --disable-features, got %d in %v", n, args)
	}
}

// grid_cdp = "node" dials the session's CDP endpoint on the node the hub
// listed for it (one relay fewer); the default, or a node the hub did not
// list, dials the hub's se:cdp. Anything else is refused at load.
func TestGridCDPEndpoint(t *testing.T) {
	gs := grid.Session{ID: "s1", CDP: "ws://10.9.0.1:4444/session/s1/se/cdp"}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, c := range []struct{ mode, node, want string }{
		{"", "http://10.9.1.2:5555", gs.CDP},
		{"hub", "http://10.9.1.2:5555", gs.CDP},
		{"node", "http://10.9.1.2:5555", "ws://10.9.1.2:5555/session/s1/se/cdp"},
		{"node", "https://node-3.grid:5555", "wss://node-3.grid:5555/session/s1/se/cdp"},
		{"node", "an unknown node", gs.CDP},
	} {
		if got := dialAt(gs, c.mode, c.node, quiet); got != c.want {
			t.Errorf("grid_cdp %q, node %q: dialled %s, want %s", c.mode, c.node, got, c.want)
		}
	}
	bad := Config{Grid: "http://hub:4444", GridCDP: "direct"}
	if err := errors.Join(bad.validateGrid()...); err == nil || !strings.Contains(err.Error(), "browser.grid_cdp") {
		t.Errorf("grid_cdp = direct: want refused naming the key, got %v", err)
	}
}

// A grid browser's command line carries every switch Playwright's own
// launch gives a local one (read from the installed driver's source:
// chromiumSwitches and the headless ones of its Chromium launch), so the
// node's browser behaves as the local one: pages see a mouse that hovers,
// the back-forward cache is off, background timers are not throttled.
func TestGridLaunchArgsArePlaywrightsOwn(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	want := playwrightLaunchSwitches(t)
	l := &launcher{env: &env{cfg: Config{Grid: "http://hub:4444"}, opts: Options{SessionProxy: func(string, string) (string, error) { return "", nil }, ProxyHost: "10.9.0.1"}}}
	args := gridArgs(t, l)
	for _, w := range want {
		if strings.HasPrefix(w, "--disable-features=") {
			continue // folded into the host's own (TestGridCapabilitiesCarryTheHostFlags)
		}
		if !slices.Contains(args, w) {
			t.Errorf("Playwright launches a local Chromium with %s; the grid browser's command line lacks it", w)
		}
	}
	for _, prefix := range []string{"--disable-features=", "--enable-features="} {
		if n := len(slices.DeleteFunc(slices.Clone(args), func(a string) bool { return !strings.HasPrefix(a, prefix) })); n != 1 {
			t.Errorf("%d %s switches (Chromium keeps only the last): %v", n, prefix, args)
		}
	}
}

// playwrightLaunchSwitches are the switches the installed playwright-core
// puts on a headless local Chromium's command line: the string literals
// of its chromiumSwitches list and of the pushes that follow it in its
// Chromium launch, up to the sandbox switch.
func playwrightLaunchSwitches(t *testing.T) []string {
	t.Helper()
	opts, err := DriverOptions(Config{})
	if err != nil {
		t.Fatal(err)
	}
	// The driver's folder is playwright-core's own (PLAYWRIGHT_CLI_PATH), or
	// a layout (layoutDriver) beside the npm prefix's node_modules whose
	// package/ holds only a cli.js that loads it.
	var src []byte
	d := opts.DriverDirectory
	for _, dir := range []string{d, filepath.Join(d, "package"), filepath.Join(filepath.Dir(d), "node_modules", "playwright-core")} {
		if src, err = os.ReadFile(filepath.Join(dir, "lib", "coreBundle.js")); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("the driver's source: %v", err)
	}
	cut := func(from, to string) string {
		t.Helper()
		_, rest, ok := strings.Cut(string(src), from)
		body, _, ok2 := strings.Cut(rest, to)
		if !ok || !ok2 {
			t.Fatalf("playwright-core %s: %q ... %q not found in its source: read its Chromium launch again and update playwrightSwitches", DriverVersion, from, to)
		}
		return body
	}
	lit := regexp.MustCompile(`"(--[^"]+)"`)
	var out []string
	for _, body := range []string{
		cut("chromiumSwitches = (options) => [", "].filter(Boolean)"),
		cut("const chromeArguments = [...chromiumSwitches()];", "if (options.chromiumSandbox"),
	} {
		for _, m := range lit.FindAllStringSubmatch(body, -1) {
			out = append(out, m[1])
		}
	}
	if len(out) < 30 || !slices.Contains(out, "--headless") {
		t.Fatalf("read %d switches from playwright-core's source, no --headless among them: %v", len(out), out)
	}
	return out
}

// gridArgs is the Chromium command line l's grid capabilities carry.
func gridArgs(t *testing.T, l *launcher) []string {
	t.Helper()
	raw, err := l.gridCapabilities()
	if err != nil {
		t.Fatal(err)
	}
	var caps struct {
		Chrome struct {
			Args []string `json:"args"`
		} `json:"goog:chromeOptions"`
	}
	if err := json.Unmarshal([]byte(raw), &caps); err != nil {
		t.Fatal(err)
	}
	return caps.Chrome.Args
}
