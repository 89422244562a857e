package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
)

// A human who takes over a session types a password through the live view
// (Service.Input, as the console sends it: one key at a time). What they
// type into a password field, or one the page marks as one, in the page
// or in a frame of any origin, is a session secret as the agent's typing
// is: the results that go to the masker are masked, and a persistent
// profile keeps no URL carrying it.

var (
	opPagesOnce sync.Once
	opPagesSrv  *httptest.Server
)

// operatorPages serves a login page: a GET form (its fields go into the
// URL of the page it opens) with a password field and a "show password"
// button, and a one-time code field (autocomplete) in a frame of another
// origin (the same server as localhost). Every element sits at a fixed
// place, for the operator's clicks.
func operatorPages() *httptest.Server {
	opPagesOnce.Do(func() {
		mux := http.NewServeMux()
		page := func(path string, body func(r *http.Request) string) {
			mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				io.WriteString(w, `<!doctype html><meta charset=utf-8><style>body { margin: 0; font: 16px sans-serif }
					.at { position: absolute; left: 10px; width: 300px; height: 30px; margin: 0; padding: 0 }</style>`+body(r))
			})
		}
		page("/oplogin", func(r *http.Request) string {
			_, port, _ := strings.Cut(r.Host, ":")
			return `<title>Operator login</title>
				<script>document.cookie = "seen=yes; path=/; max-age=3600"</script>
				<form action="/opwelcome" method="get">
				<input class="at" name="user" aria-label="User" value="ada" style="top: 10px">
				<input class="at" type="password" name="pw" aria-label="Password" style="top: 60px">
				<button type="button" style="position: absolute; left: 10px; top: 110px; width: 150px; height: 30px"
					onclick="const f = document.querySelector('[name=pw]'); f.type = f.type === 'password' ? 'text' : 'password'">Show password</button>
				<button type="submit" style="position: absolute; left: 200px; top: 110px; width: 100px; height: 30px">Sign in</button>
				</form>
				<iframe src="http://localhost:` + port + `/opcode" title="code frame" style="position: absolute; left: 10px; top: 160px; width: 340px; height: 60px; border: 0"></iframe>`
		})
		page("/opcode", func(*http.Request) string {
			return `<title>Code</title><input class="at" autocomplete="one-time-code" aria-label="Code" style="top: 0">`
		})
		page("/opwelcome", func(*http.Request) string { return `<title>Welcome</title><h1>Signed in</h1>` })
		// A page whose main thread is busy for 1.5 s after each key once
		// the field holds four characters: reading the field then takes
		// longer than a frame is waited for when finding the focus.
		page("/opslow", func(*http.Request) string {
			return `<title>Slow login</title><input class="at" type="password" aria-label="Password" style="top: 60px"
				oninput="if (this.value.length >= 4) setTimeout(() => { const t = performance.now(); while (performance.now() - t < 1500) {} })">`
		})
		opPagesSrv = httptest.NewServer(mux)
	})
	return opPagesSrv
}

// opLoadMS bounds loading the login page, whose frame comes from another
// origin: on a busy machine that takes longer than the tests' default.
const opLoadMS = 20000

// The operator's clicks, in CSS pixels of the viewport.
var (
	atPassword = OperatorInput{Kind: InputClick, X: 100, Y: 75}
	atShow     = OperatorInput{Kind: InputClick, X: 80, Y: 125}
	atCode     = OperatorInput{Kind: InputClick, X: 100, Y: 175}
)

// operatorTypes plays text as the console sends a human's typing: a type
// input per character; a "\b" is the Backspace key.
func operatorTypes(t *testing.T, s *Service, c *hostfuncs.Caller, text string) {
	t.Helper()
	for _, r := range text {
		in := OperatorInput{Kind: InputType, Text: string(r)}
		if r == '\b' {
			in = OperatorInput{Kind: InputKey, Key: "Backspace"}
		}
		operatorDoes(t, s, c, in)
	}
}

func operatorDoes(t *testing.T, s *Service, c *hostfuncs.Caller, in OperatorInput) {
	t.Helper()
	if err := s.Input(c.Personality(), key(c.Personality(), c.Session()).session, in); err != nil {
		t.Fatalf("operator %s: %v", in.Kind, err)
	}
}

// masked is a result as the masker hands it on: every value of the
// session's secrets, as typed and URL-encoded, replaced.
func masked(values []string, result any) string {
	b, _ := json.Marshal(result)
	out := string(b)
	for _, v := range values {
		for _, f := range []string{v, url.QueryEscape(v)} {
			out = strings.ReplaceAll(out, f, "••••••")
		}
	}
	return out
}

// mustNotShow fails when a masked result still holds one of the values.
func mustNotShow(t *testing.T, what string, values []string, result any, secrets ...string) string {
	t.Helper()
	m := masked(values, result)
	for _, s := range secrets {
		if strings.Contains(m, s) || strings.Contains(m, url.QueryEscape(s)) {
			t.Errorf("%s shows %q after masking (the session's secrets: %q):\n%s", what, s, values, m)
		}
	}
	return m
}

// The frame an operator types a secret into is waited for beyond the
// bound of the other frames: on a page (or a machine) slow to answer, the
// secret kept is the whole value typed, not the value one key earlier.
func TestOperatorTypingOnASlowPage(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c := caller(t.Name())
	sess := key(c.Personality(), c.Session()).session
	must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: operatorPages().URL + "/opslow", TimeoutMS: opLoadMS})
	svc.SetDriving(c.Personality(), sess, true)
	operatorDoes(t, svc, c, atPassword)
	operatorTypes(t, svc, c, "abcd1")
	svc.SetDriving(c.Personality(), sess, false)
	if held := heldSecrets(c.Personality(), sess); !slices.Contains(held, "abcd1") {
		t.Errorf("what the operator typed on a slow page is not a session secret: %q", held)
	}
}

func TestOperatorTypedPasswordIsSecret(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	ops := operatorPages()
	c := caller(t.Name())
	sess := key(c.Personality(), c.Session()).session
	must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: ops.URL + "/oplogin", TimeoutMS: opLoadMS})

	// The agent asks for a takeover; the human signs in through the live
	// view, with a typo fixed, and the code in the frame; then looks at the
	// password ("Show password") and hands back.
	const password, code = "Op3rator-Typed9", "739142"
	svc.SetDriving(c.Personality(), sess, true)
	operatorDoes(t, svc, c, atPassword)
	operatorTypes(t, svc, c, "Op3rX\bator-Typed9")
	operatorDoes(t, svc, c, atCode)
	operatorTypes(t, svc, c, code)
	operatorDoes(t, svc, c, atShow)
	svc.SetDriving(c.Personality(), sess, false)

	held := heldSecrets(c.Personality(), sess)
	for _, want := range []string{password, code} {
		if !slices.Contains(held, want) {
			t.Errorf("what the operator typed (%q) is not a session secret: %q", want, held)
		}
	}
	for _, part := range []string{"Op", "Op3r", "Op3rX", "739"} {
		if slices.Contains(held, part) {
			t.Errorf("a part of what the operator typed (%q) became a secret: one key at a time, it would mask every result: %q", part, held)
		}
	}

	// The field now shows the password as text: the snapshot masks it.
	snap := must[abi.BrowserSnapshotResponse](t, svc, c, abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{})
	if !strings.Contains(snap.Snapshot, `textbox "Password"`) {
		t.Fatalf("no password field in the snapshot:\n%s", snap.Snapshot)
	}
	m := mustNotShow(t, "the snapshot after Show password", held, snap, password, code)
	if line := lineWith(m, `textbox \"Password\"`); !strings.Contains(line, abi.RedactedValue) && !strings.Contains(line, "••••••") {
		t.Errorf("the password field's line is not masked: %s", line)
	}
	if strings.Contains(snap.Snapshot, password) {
		t.Errorf("the snapshot itself shows the password (the field is still one after Show password):\n%s", snap.Snapshot)
	}

	// The human, in control again, types a second password and submits
	// the GET form with Enter: the password goes into the URL, and is a
	// secret before the request leaves.
	const second = "Second-Pass-42"
	must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: ops.URL + "/oplogin", NoSnapshot: true, TimeoutMS: opLoadMS})
	operatorDoes(t, svc, c, atPassword)
	operatorTypes(t, svc, c, second)
	operatorDoes(t, svc, c, OperatorInput{Kind: InputKey, Key: "Enter"})
	if held := heldSecrets(c.Personality(), sess); !slices.Contains(held, second) {
		t.Errorf("the password the operator submitted with Enter is not a secret once the form is sent: %q", held)
	}
	deadline := time.Now().Add(opLoadMS * time.Millisecond)
	for !strings.Contains(svc.PageURL(c.Personality(), sess), "/opwelcome") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if u := svc.PageURL(c.Personality(), sess); !strings.Contains(u, "pw="+second) {
		t.Fatalf("the form did not put the password in the URL: %s", u)
	}
	held = heldSecrets(c.Personality(), sess)
	snap = must[abi.BrowserSnapshotResponse](t, svc, c, abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{})
	mustNotShow(t, "the page URL in a snapshot", held, snap, second)
	netw := must[abi.BrowserNetworkResponse](t, svc, c, abi.HostBrowserNetwork, abi.BrowserNetworkRequest{})
	if raw, _ := json.Marshal(netw); !strings.Contains(string(raw), second) {
		t.Fatalf("the network log has no request carrying the password: the check below would prove nothing:\n%s", raw)
	}
	mustNotShow(t, "browser_network", held, netw, second)
}

// TestOperatorPasswordLeavesNoTraceInProfile: a persistent profile keeps
// its cookies, but no file of it holds a URL that carried a session
// secret once the session closed.
func TestOperatorPasswordLeavesNoTraceInProfile(t *testing.T) {
	ops := operatorPages()
	cfg := testConfig(t.TempDir())
	cfg.PersistentProfiles = []string{"keeper"}
	cfg.ActionTimeout = Duration(10 * time.Second) // its own browser starts on a busy machine
	var mu sync.Mutex
	kept := map[string][]string{}
	s, err := New(cfg, Options{
		Logger:       quietLogger(),
		OnSecret:     func(p, sess, v string) { mu.Lock(); kept[p+"/"+sess] = append(kept[p+"/"+sess], v); mu.Unlock() },
		SecretValues: func(p, sess string) []string { mu.Lock(); defer mu.Unlock(); return slices.Clone(kept[p+"/"+sess]) },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	c := hostfuncs.NewCaller(hostfuncs.CallerInfo{Personality: "keeper", Session: "s1", Grants: caller("").Grants()})
	must[abi.BrowserNavigateResponse](t, s, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: ops.URL + "/oplogin", NoSnapshot: true, TimeoutMS: opLoadMS})

	const password = "Profile-Pass-77"
	s.SetDriving("keeper", "s1", true)
	operatorDoes(t, s, c, atPassword)
	operatorTypes(t, s, c, password)
	operatorDoes(t, s, c, OperatorInput{Kind: InputKey, Key: "Enter"})
	deadline := time.Now().Add(opLoadMS * time.Millisecond)
	for !strings.Contains(s.PageURL("keeper", "s1"), "pw="+password) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if u := s.PageURL("keeper", "s1"); !strings.Contains(u, "pw="+password) {
		t.Fatalf("the form did not put the password in the URL: %s", u)
	}
	s.SetDriving("keeper", "s1", false)
	if err := s.CloseSession("keeper", "s1"); err != nil {
		t.Fatal(err)
	}

	dir := filepath.Join(cfg.ProfilesDir, "keeper")
	var files int
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		files++
		if b, err := os.ReadFile(path); err == nil && bytes.Contains(b, []byte(password)) {
			rel, _ := filepath.Rel(dir, path)
			t.Errorf("the profile keeps the password in %s", rel)
		}
		return nil
	})
	if files == 0 {
		t.Fatalf("the profile folder %s is empty: the check proves nothing", dir)
	}

	// What the profile is for stays: the site's cookie.
	must[abi.BrowserNavigateResponse](t, s, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: ops.URL + "/opwelcome", NoSnapshot: true, TimeoutMS: opLoadMS})
	st := must[abi.BrowserStorageResponse](t, s, c, abi.HostBrowserStorage, abi.BrowserStorageRequest{Kind: "cookies", Values: true})
	if len(st.Cookies) != 1 || st.Cookies[0].Value != "yes" {
		t.Errorf("the profile lost its cookie: %+v", st.Cookies)
	}
}

// lineWith is the first line of s containing sub, or "".
func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, `\n`) {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// scrubProfile removes the files holding a secret in any stored form,
// with a database's journals, and leaves the others.
func TestScrubProfileRemovesFilesHoldingSecrets(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	dir := t.TempDir()
	files := map[string]string{
		"Default/History":          "\x00https://site.test/login?pw=s3cret%2Fv%C3%A4l&x=1\x00",
		"Default/History-journal":  "",
		"Default/Web Data":         "plain s3cret/väl in a form entry",
		"Default/Sessions/Tabs_1":  "title " + string([]byte{'s', 0, '3', 0, 'c', 0, 'r', 0, 'e', 0, 't', 0, '/', 0, 'v', 0, 0xe4, 0, 'l', 0}),
		"Default/Cache/entry_0":    "key https://site.test/?q=s3cret%2fv%c3%a4l",
		"Default/Cookies":          "session=abc; other bytes",
		"Default/Favicons-journal": "https://site.test/?pw=s3cret%2Fv%C3%A4l",
		"Default/Favicons":         "icons",
		"Default/Preferences":      `{"short": "ab"}`,
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	removed, err := scrubProfile(dir, []string{"s3cret/väl", "ab"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Default/Cache/entry_0", "Default/Favicons", "Default/Favicons-journal", "Default/History", "Default/History-journal",
		"Default/Sessions/Tabs_1", "Default/Web Data"}
	if !slices.Equal(removed, want) {
		t.Errorf("removed %q, want %q", removed, want)
	}
	for _, keep := range []string{"Default/Cookies", "Default/Preferences"} {
		if _, err := os.Stat(filepath.Join(dir, keep)); err != nil {
			t.Errorf("%s was removed: it holds no secret (a two-byte value is not searched for)", keep)
		}
	}
}
