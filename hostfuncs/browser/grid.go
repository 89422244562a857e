package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/hostfuncs/browser/grid"
)

// Browsers on a Selenium Grid (browser.grid).
//
// The host asks the hub for a browser with a WebDriver new-session request
// (grid.Hub.NewSession), which waits in the grid's queue until a node has a
// free slot, then drives that browser over CDP through the hub (the
// session's se:cdp endpoint), as Playwright's own Selenium launch would.
// The request's "goog:chromeOptions" is the host's whole command line
// (gridCapabilities): the same egress flags as a local launch (proxy.go),
// the dead launch proxy, and the operator's own extras once checked
// (gridCapsProblem). What the node runs is the host's command line,
// whatever the node's defaults.
//
// A grid host still has a driver of its own (keyed by its environment in
// drivers), never shared with a local one, and a local driver is started
// with the SELENIUM_REMOTE_* variables empty, so an operator's shell
// cannot send it to a grid.
//
// Each session gets a browser of its own on the grid (a node slot), so
// sessions spread over the nodes and a lost node takes only its own
// sessions with it. The WebDriver session is ended when the host's
// session ends (gridLink.end: the slot is freed).

// gridEnv is the driver environment of a grid host, or the variables
// emptied for a local one.
func (c Config) gridEnv(caps string) map[string]string {
	if c.Grid == "" {
		return map[string]string{"SELENIUM_REMOTE_URL": "", "SELENIUM_REMOTE_CAPABILITIES": "", "SELENIUM_REMOTE_HEADERS": ""}
	}
	return map[string]string{"SELENIUM_REMOTE_URL": c.Grid, "SELENIUM_REMOTE_CAPABILITIES": caps, "SELENIUM_REMOTE_HEADERS": ""}
}

// validateGrid checks the grid keys.
func (c Config) validateGrid() []error {
	var errs []error
	if c.Grid == "" {
		if len(c.GridCapabilities) > 0 {
			errs = append(errs, errors.New("browser.grid_capabilities is set but browser.grid is empty: name the grid (http://hub:4444)"))
		}
		return errs
	}
	if u, err := url.Parse(c.Grid); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("browser.grid = %q: want the hub's URL, http://hub:4444", c.Grid))
	}
	if c.RemoteWS != "" || c.RemoteCDP != "" {
		errs = append(errs, errors.New("browser.grid and browser.remote_ws/remote_cdp are both set: choose one"))
	}
	if len(c.PersistentProfiles) > 0 {
		errs = append(errs, errors.New("browser.grid and browser.persistent_profiles are both set: a persistent profile lives on this machine's disk, a grid browser on a node; remove persistent_profiles (store logins in the vault instead)"))
	}
	if c.GridQueueTimeout < 0 {
		errs = append(errs, errors.New("browser.grid_queue_timeout must not be negative"))
	}
	if c.GridCDP != "" && c.GridCDP != "hub" && c.GridCDP != "node" {
		errs = append(errs, fmt.Errorf("browser.grid_cdp = %q: want \"hub\" (through the hub, the default) or \"node\" (straight to the browser's node)", c.GridCDP))
	}
	if err := gridCapsProblem(c.GridCapabilities); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// GridCaps are browser.grid_capabilities: WebDriver capabilities, nested
// as JSON would be ("goog:chromeOptions" with args, binary, prefs; a proxy
// table), written as TOML tables. The TOML decoder counts the keys inside
// a free-form map as unknown, and the config refuses unknown keys: taking
// the table whole (UnmarshalTOML) marks them read, and Validate checks
// them one by one (gridCapsProblem).
type GridCaps map[string]any

// UnmarshalTOML takes the table as decoded, arrays of tables as lists.
func (g *GridCaps) UnmarshalTOML(v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("browser.grid_capabilities must be a table, got %T", v)
	}
	*g = GridCaps(plainTOML(m).(map[string]any))
	return nil
}

// plainTOML is v with every array of tables made a list of tables, as
// JSON would read it.
func plainTOML(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = plainTOML(e)
		}
		return out
	case []map[string]any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plainTOML(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plainTOML(e)
		}
		return out
	}
	return v
}

// gridChromeKeys are the goog:chromeOptions keys an operator may set.
// Every other one is refused: extensions, localState and debuggerAddress
// could each give the browser a way out (an extension's proxy API, a
// state file's proxy or DNS-over-HTTPS, a browser started elsewhere), and
// args is checked switch by switch.
var gridChromeKeys = []string{"binary", "args", "prefs", "mobileEmulation", "windowTypes"}

// gridRefusedCaps are top-level capabilities that would undo the egress
// flags, with why.
var gridRefusedCaps = map[string]string{
	"proxy":               "a WebDriver proxy replaces the browser's proxy with the node's choice",
	"acceptinsecurecerts": "it lets the browser accept any certificate, its egress proxy's included",
	"ms:edgeoptions":      "only Chromium (goog:chromeOptions) is driven",
	"moz:firefoxoptions":  "only Chromium (goog:chromeOptions) is driven",
}

// gridRefusedArgs are switches the operator's goog:chromeOptions args may
// not carry, on top of egressArgs.
var gridRefusedArgs = []string{
	"--load-extension", "--disable-extensions-except", "--user-data-dir",
	"--ignore-certificate-errors", "--ignore-certificate-errors-spki-list", "--enable-features",
	"--remote-debugging-pipe",
}

// gridCapsProblem is refused naming the first capability that would undo
// the host's launch flags, or nil.
func gridCapsProblem(caps map[string]any) error {
	refuse := func(key, why string) error {
		return abi.Errorf(abi.CodeRefused, "browser.grid_capabilities: %s is refused: %s; remove it (the host sets the browser's launch flags itself)", key, why)
	}
	for _, k := range sortedKeys(caps) {
		if why, ok := gridRefusedCaps[strings.ToLower(k)]; ok {
			return refuse(k, why)
		}
		if k == "browserName" && caps[k] != "chrome" && caps[k] != "chromium" {
			return refuse(k, "only Chromium is driven (\"chrome\")")
		}
	}
	co, ok := caps["goog:chromeOptions"]
	if !ok {
		return nil
	}
	opts, ok := co.(map[string]any)
	if !ok {
		return refuse("goog:chromeOptions", "it must be a table")
	}
	for _, k := range sortedKeys(opts) {
		if !slices.Contains(gridChromeKeys, k) {
			return refuse("goog:chromeOptions."+k, "it could give the browser a way out besides the egress proxy (allowed: "+strings.Join(gridChromeKeys, ", ")+")")
		}
	}
	args, _ := opts["args"].([]any)
	if _, isList := opts["args"]; isList && args == nil {
		return refuse("goog:chromeOptions.args", "it must be a list of switches")
	}
	for _, a := range args {
		s, ok := a.(string)
		if !ok {
			return refuse("goog:chromeOptions.args", "it must be a list of switches")
		}
		if sw := forbiddenArg(s); sw != "" || slices.Contains(gridRefusedArgs, switchName(s)) {
			return refuse("goog:chromeOptions.args "+s, "it would open a way out besides the egress proxy, or undo one of the host's flags")
		}
	}
	if prefs, ok := opts["prefs"].(map[string]any); ok {
		if p := prefPath(prefs, ""); p != "" {
			return refuse("goog:chromeOptions.prefs."+p, "proxy, DNS and WebRTC preferences are the host's")
		}
	}
	return nil
}

// prefPath is the first preference under prefs (dotted) that touches the
// proxy, DNS or WebRTC, or "".
func prefPath(prefs map[string]any, prefix string) string {
	for _, k := range sortedKeys(prefs) {
		p := prefix + k
		lk := strings.ToLower(p)
		if strings.Contains(lk, "proxy") || strings.Contains(lk, "dns") || strings.Contains(lk, "webrtc") {
			return p
		}
		if sub, ok := prefs[k].(map[string]any); ok {
			if q := prefPath(sub, p+"."); q != "" {
				return q
			}
		}
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// gridCapabilities is SELENIUM_REMOTE_CAPABILITIES: the operator's
// capabilities (checked in Validate) with a goog:chromeOptions whose args
// are the host's command line: what a local launch gets (launchArgs, the
// launch proxy, headless) and then the operator's extra switches.
func (s *launcher) gridCapabilities() (string, error) {
	caps := map[string]any{"browserName": "chrome"}
	for k, v := range s.cfg.GridCapabilities {
		caps[k] = v
	}
	chrome := map[string]any{}
	if co, ok := s.cfg.GridCapabilities["goog:chromeOptions"].(map[string]any); ok {
		for k, v := range co {
			chrome[k] = v
		}
	}
	var extra []string
	if a, ok := chrome["args"].([]any); ok {
		for _, v := range a {
			extra = append(extra, fmt.Sprint(v))
		}
	}
	args := []any{}
	for _, a := range s.gridLaunchArgs(extra) {
		args = append(args, a)
	}
	chrome["args"] = args
	caps["goog:chromeOptions"] = chrome
	b, err := json.Marshal(caps)
	if err != nil {
		return "", abi.Errorf(abi.CodeInputInvalid, "browser.grid_capabilities cannot be sent as JSON: %v", err)
	}
	return string(b), nil
}

// playwrightSwitches are the switches Playwright's own launch puts on
// Chromium's command line (playwright-core 1.64's chromiumSwitches, and
// --enable-unsafe-swiftshader), but its --disable-features, which
// launchArgs folds into the host's. A local browser gets them from
// Playwright; a grid browser's command line is the host's, so the host
// writes them. Without them the node's browser is not the local one:
// the back-forward cache answers back and forward from memory, field
// trials switch features on, a page the browser counts as in the
// background has its timers and renderer slowed, and IPC floods are
// throttled. The host's --disable-features and these together are what
// Playwright would send a Selenium hub itself (launchWithSeleniumHub).
var playwrightSwitches = []string{
	"--disable-field-trial-config", "--disable-background-networking",
	"--disable-background-timer-throttling", "--disable-backgrounding-occluded-windows",
	"--disable-back-forward-cache", "--disable-breakpad", "--disable-client-side-phishing-detection",
	"--disable-component-extensions-with-background-pages", "--disable-component-update",
	"--no-default-browser-check", "--disable-default-apps", "--disable-dev-shm-usage",
	"--disable-edgeupdater", "--disable-extensions", "--enable-features=CDPScreenshotNewSurface",
	"--allow-pre-commit-input", "--disable-hang-monitor", "--disable-ipc-flooding-protection",
	"--disable-popup-blocking", "--disable-prompt-on-repost", "--disable-renderer-backgrounding",
	"--disable-updater-scheduler", "--force-color-profile=srgb", "--metrics-recording-only",
	"--no-first-run", "--password-store=basic", "--use-mock-keychain", "--no-service-autorun",
	"--export-tagged-pdf", "--disable-search-engine-choice-screen",
	"--unsafely-disable-devtools-self-xss-warnings", "--edge-skip-compat-layer-relaunch",
	"--disable-infobars", "--disable-sync", "--enable-unsafe-swiftshader",
}

// playwrightHeadlessPointer is what Playwright gives a headless browser:
// a mouse that hovers. Without it a headless page matches neither
// (hover: hover) nor (pointer: fine), as on a touch screen, and a site
// serves its touch layout and menus on the grid and its desktop ones
// locally.
const playwrightHeadlessPointer = "--blink-settings=primaryHoverType=2,availableHoverTypes=2,primaryPointerType=4,availablePointerTypes=4"

// gridLaunchArgs are the switches of a grid browser, as Playwright would
// pass them for a local launch with launchArgs and launchProxy, then the
// operator's extra ones (checked in Validate), a --disable-features among
// them folded into the host's (disabledFeatures).
func (s *launcher) gridLaunchArgs(extra []string) []string {
	var own []string
	for _, a := range extra {
		if v, ok := disabledFeatures(a); ok {
			own = append(own, v...)
		}
	}
	args := s.launchArgs()
	for i, a := range args {
		if len(own) > 0 && strings.HasPrefix(a, "--disable-features=") {
			args[i] = a + "," + strings.Join(own, ",")
		}
	}
	for _, a := range playwrightSwitches {
		if !slices.Contains(args, a) {
			args = append(args, a)
		}
	}
	if s.cfg.Headed != "true" { // a node's display is not this host's to detect
		args = append(args, "--headless", "--hide-scrollbars", "--mute-audio", playwrightHeadlessPointer)
	}
	if p := s.launchProxy(); p != nil {
		args = append(args, "--proxy-server="+p.Server, "--proxy-bypass-list=<-loopback>")
	}
	if s.opts.ProxyTrustSPKI != "" {
		// The egress proxy speaks TLS with a key the host made: the node's
		// browser trusts that key, and only it (network.ProxyTLS).
		args = append(args, "--ignore-certificate-errors-spki-list="+s.opts.ProxyTrustSPKI)
	}
	args = append(args, "--remote-debugging-port=0")
	for _, a := range extra {
		if _, ok := disabledFeatures(a); !ok {
			args = append(args, a)
		}
	}
	return args
}

// gridBrowser opens a browser of ss's own on the grid: the session
// request waits in the grid's queue up to GridQueueTimeout
// (gridNewSession), the call's progress saying so meanwhile (MCP progress
// notifications), then the host drives it over CDP through the hub. The
// link names the grid node it runs on (its URI, or "an unknown node") and
// its WebDriver session there.
func (s *launcher) gridBrowser(ctx context.Context) (pw.Browser, *sharedDriver, *gridLink, error) {
	drv, err := s.startedDriver()
	if err != nil {
		return nil, drv, nil, err
	}
	t0 := time.Now()
	hostfuncs.SayProgress(ctx, fmt.Sprintf("waiting for a Selenium Grid node to take the browser session (the grid's queue, up to browser.grid_queue_timeout %s, then up to %s for the node to start the browser)", s.cfg.GridQueueTimeout.D(), grid.StartAllowance))
	gs, err := s.gridNewSession(ctx)
	hostfuncs.SayProgress(ctx, "")
	if err != nil {
		return nil, drv, nil, err
	}
	link := &gridLink{hub: s.cfg.Grid, node: s.gridNode(gs.ID), id: gs.ID, life: s.life, log: s.log, gone: make(chan struct{})}
	b, err := drv.pw.Chromium.ConnectOverCDP(dialAt(gs, s.cfg.GridCDP, link.node, s.log), pw.BrowserTypeConnectOverCDPOptions{Timeout: pw.Float(float64(grid.StartAllowance.Milliseconds()))})
	if err != nil {
		link.end()
		return nil, drv, nil, abi.Errorf(abi.CodeNotAvailable, "the Selenium Grid at %s started a browser on %s but the host could not reach it over CDP (%s): check that this host reaches the hub's CDP endpoint", s.cfg.Grid, link.node, cleanMsg(err.Error()))
	}
	s.mu.Lock()
	s.mode = "selenium grid " + s.cfg.Grid
	s.mu.Unlock()
	s.log.Info("grid browser started", "grid", s.cfg.Grid, "node", link.node, "session", gs.ID, "version", b.Version(), "took", time.Since(t0).Round(time.Millisecond))
	return b, drv, link, nil
}

// dialAt is where the host dials gs's browser: the hub's se:cdp, or with
// mode (grid_cdp) "node" the same path on node (the hub relays every CDP
// message to the node's own endpoint, which relays it to the browser:
// dialling the node skips a relay, each message's round trip shorter).
// A node the hub did not list is reached through the hub.
func dialAt(gs grid.Session, mode, node string, log *slog.Logger) string {
	if mode != "node" {
		return gs.CDP
	}
	if d := nodeCDP(gs.CDP, node); d != "" {
		return d
	}
	log.Warn("grid_cdp = \"node\": the hub did not list the session's node; driving it through the hub", "session", gs.ID, "node", node)
	return gs.CDP
}

// nodeCDP is cdp (ws://hub:4444/session/ID/se/cdp) on node
// (http://node:5555), or "" when node is not a URL.
func nodeCDP(cdp, node string) string {
	c, err := url.Parse(cdp)
	n, nerr := url.Parse(node)
	if err != nil || nerr != nil || cdp == "" || n.Host == "" || (n.Scheme != "http" && n.Scheme != "https") {
		return ""
	}
	c.Host = n.Host
	c.Scheme = "ws"
	if n.Scheme == "https" {
		c.Scheme = "wss"
	}
	return c.String()
}

// gridNewSession asks the grid's hub for a browser of the host's command
// line (gridCapabilities) and waits for it (grid.Hub.NewSession): up to
// GridQueueTimeout in the queue, then grid.StartAllowance for the node.
func (s *launcher) gridNewSession(ctx context.Context) (grid.Session, error) {
	raw, err := s.gridCapabilities()
	if err != nil {
		return grid.Session{}, err
	}
	var caps map[string]any
	if err := json.Unmarshal([]byte(raw), &caps); err != nil {
		return grid.Session{}, abi.Errorf(abi.CodeInputInvalid, "browser.grid_capabilities: %v", err)
	}
	hub := grid.Hub{URL: s.cfg.Grid, QueueTimeout: s.cfg.GridQueueTimeout.D(), Secret: s.cfg.GridRegistrationSecret, Log: s.log, Life: s.life}
	return hub.NewSession(ctx, caps)
}

// gridNode is the node the hub's status lists session id on, or "an
// unknown node".
func (s *launcher) gridNode(id string) string {
	if st, err := ReadGridStatus(s.life, s.cfg.Grid); err == nil {
		for _, n := range st.Value.Nodes {
			for _, sl := range n.Slots {
				if sl.Session != nil && sl.Session.SessionID == id {
					return n.URI
				}
			}
		}
	}
	return "an unknown node"
}

// GridStatus is the part of a Selenium Grid 4 hub's /status the host
// reads: its nodes and what runs in their slots.
type GridStatus struct {
	Value struct {
		Ready bool `json:"ready"`
		Nodes []struct {
			URI          string `json:"uri"`
			Availability string `json:"availability"`
			Slots        []struct {
				Session *struct {
					SessionID string `json:"sessionId"`
				} `json:"session"`
			} `json:"slots"`
		} `json:"nodes"`
	} `json:"value"`
}

// ReadGridStatus reads a Selenium Grid hub's (or a node's) /status, within
// 5 s. The grid tests' harness (internal/seleniumgrid) reads it the same way.
func ReadGridStatus(ctx context.Context, hub string) (*GridStatus, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := grid.Get(ctx, hub, "/status")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var st GridStatus
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return nil, fmt.Errorf("grid status: %w", err)
	}
	return &st, nil
}

// gridContext opens ss in a browser of its own on the grid.
func (s *sessions) gridContext(ctx context.Context, ss *session, proxy string) error {
	b, drv, link, err := s.launcher.gridBrowser(ctx)
	ss.drv = drv
	if err != nil {
		return err
	}
	node := link.node
	ss.grid = link
	// Not on Playwright's event goroutine: naming the cause asks the hub
	// and the node (markNodeLost).
	b.OnDisconnected(func(pw.Browser) { go ss.markNodeLost() })
	bctx, err := b.NewContext(pw.BrowserNewContextOptions{Proxy: s.launcher.contextProxy(proxy)})
	if err != nil {
		bounded(closeWait, func() error { return b.Close() })
		defer link.end()
		if !b.IsConnected() {
			return abi.Errorf(abi.CodeBrowserCrashed, "the grid node %s was lost while opening a session: retry, the next call opens a browser on a live node", node)
		}
		return abi.Errorf(abi.CodeExecutionFailed, "opening a browser context on grid node %s: %v", node, firstLine(err.Error()))
	}
	ss.bctx, ss.browser, ss.ownBrowser = bctx, b, true
	return nil
}
