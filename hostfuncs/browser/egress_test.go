package browser

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/hostfuncs/browser/driver"
	"github.com/wasmwright/wasmwright/internal/testenv"
)

// TestEgressArgsRefused: browser.args cannot reopen a way around the egress
// proxy (another proxy, no proxy, local name resolution, WebRTC UDP, QUIC,
// a debugging port), in any spelling Chromium accepts.
func TestEgressArgsRefused(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	for _, a := range []string{
		"--proxy-server=http://10.0.0.1:3128", "--no-proxy-server", "--proxy-pac-url=http://x/p.pac", "--proxy-auto-detect",
		"--proxy-bypass-list=*", "--host-resolver-rules=MAP * 10.0.0.1", "-webrtc-ip-handling-policy=default",
		"--WebRTC-IP-Handling-Policy=default", "--force-webrtc-ip-handling-policy=default", "--enable-quic",
		"--origin-to-force-quic-on=example.com:443", "--remote-debugging-port=9222", " --no-proxy-server",
	} {
		err := Config{Args: []string{a}}.Validate()
		if err == nil || !strings.Contains(err.Error(), "egress proxy") {
			t.Errorf("%q accepted: %v", a, err)
		}
	}
	for _, a := range []string{"--lang=fr", "--disable-features=Foo", "--window-size=800,600"} {
		if err := (Config{Args: []string{a}}).Validate(); err != nil {
			t.Errorf("%q refused: %v", a, err)
		}
	}
}

// TestLaunchOptions: under a network service the browser launches with a
// dead proxy (its own traffic fails closed), WebRTC UDP only through the
// proxy, no QUIC and no local name resolution, with one --disable-features
// switch (Chromium reads only the last) that keeps Playwright's list and
// the config's; the egress proxy's credentials never reach Playwright's
// options; a session without an egress proxy gets the dead one, never
// Config.Proxy directly.
func TestLaunchOptions(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	s := &launcher{env: &env{cfg: Config{Proxy: "http://upstream.test:3128", Args: []string{"--disable-features=Foo", "--lang=fr"}},
		opts: Options{SessionProxy: func(p, sess string) (string, error) {
			if sess == "none" {
				return "", nil
			}
			return "http://ww-1:secret@127.0.0.1:4000", nil
		}}}}
	args := s.launchArgs()
	var disable []string
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--disable-features="); ok {
			disable = append(disable, v)
		}
	}
	if len(disable) != 1 {
		t.Fatalf("%d --disable-features switches, want 1: %v", len(disable), args)
	}
	for _, f := range []string{"MediaRouter", "DialMediaRouteProvider", "CastMediaRouteProvider", "WebRtcHideLocalIpsWithMdns", "AutofillServerCommunication", "Foo"} {
		if !slices.Contains(strings.Split(disable[0], ","), f) {
			t.Errorf("--disable-features lacks %s", f)
		}
	}
	for _, want := range []string{"--webrtc-ip-handling-policy=disable_non_proxied_udp", "--disable-quic",
		"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost", "--lang=fr"} {
		if !slices.Contains(args, want) {
			t.Errorf("launch args lack %s", want)
		}
	}
	if lp := s.launchProxy(); lp == nil || lp.Server != deadProxy || lp.Username != nil {
		t.Errorf("launch proxy %+v, want the dead proxy", lp)
	}
	raw, _ := s.proxyServer(sessKey{"p", "s"})
	cp := s.contextProxy(raw)
	if cp == nil || cp.Server != "http://127.0.0.1:4000" || cp.Username != nil || cp.Password != nil || cp.Bypass == nil || *cp.Bypass != "<-loopback>" {
		t.Errorf("context proxy %+v: want the egress proxy without credentials, loopback not exempt", cp)
	}
	if p, _ := s.proxyServer(sessKey{"p", "none"}); p != deadProxy {
		t.Errorf("no egress proxy for a session: got %q, want the dead proxy", p)
	}
	// Without a network service, the operator's proxy keeps Playwright's
	// credentials.
	plain := &launcher{env: &env{cfg: Config{Proxy: "http://op:pw@upstream.test:3128"}}}
	if lp := plain.launchProxy(); lp == nil || lp.Server != "http://upstream.test:3128" || lp.Username == nil || *lp.Username != "op" {
		t.Errorf("operator proxy %+v", lp)
	}
}

// TestPlaywrightFeaturesInSync: our --disable-features repeats the list
// of the installed playwright-core (Chromium keeps only the last switch):
// a driver upgrade that changes it must change ours.
func TestPlaywrightFeaturesInSync(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	opts, err := driver.Options("", io.Discard)
	if err != nil {
		testenv.Require(t, false, fmt.Sprintf("no driver: %v", err))
	}
	var src []byte
	for _, p := range []string{filepath.Join(opts.DriverDirectory, "lib", "coreBundle.js"), filepath.Join(opts.DriverDirectory, "package", "lib", "coreBundle.js"),
		filepath.Join(realCore(opts.DriverDirectory), "lib", "coreBundle.js")} {
		if src, err = os.ReadFile(p); err == nil {
			break
		}
	}
	if src == nil {
		testenv.Require(t, false, fmt.Sprintf("driver bundle not found under %s", opts.DriverDirectory))
	}
	m := regexp.MustCompile(`(?s)disabledFeatures = \[(.*?)\]\.filter`).FindSubmatch(src)
	if m == nil {
		t.Fatal("playwright-core's disabledFeatures list not found: check playwrightDisabledFeatures by hand")
	}
	var theirs []string
	for _, q := range regexp.MustCompile(`"([A-Za-z0-9]+)"`).FindAllSubmatch(m[1], -1) {
		theirs = append(theirs, string(q[1]))
	}
	slices.Sort(theirs)
	ours := slices.Clone(playwrightDisabledFeatures)
	slices.Sort(ours)
	if !slices.Equal(theirs, ours) {
		t.Errorf("playwright-core disables %v; playwrightDisabledFeatures has %v", theirs, ours)
	}
}

// realCore is playwright-core's own folder (not a layout of ours, whose
// cli.js is a script we wrote): PLAYWRIGHT_CLI_PATH's, else the npm install
// beside the driver folder. An earlier test may have unset the variable
// (driver.Options does for a config's driver_dir).
func realCore(driverDir string) string {
	var cands []string
	if cli := os.Getenv("PLAYWRIGHT_CLI_PATH"); cli != "" {
		cands = append(cands, filepath.Dir(cli))
	}
	cands = append(cands, filepath.Join(driverDir, "package"), filepath.Join(driverDir, "node_modules", "playwright-core"),
		filepath.Join(filepath.Dir(driverDir), "node_modules", "playwright-core"))
	for _, c := range cands {
		r, err := filepath.EvalSymlinks(filepath.Join(c, "cli.js"))
		if err != nil {
			continue
		}
		if b, err := os.ReadFile(r); err == nil && !strings.Contains(string(b), "Written by wasmwright") {
			return filepath.Dir(r)
		}
	}
	return ""
}
