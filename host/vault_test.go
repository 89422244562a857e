package host

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/vault"
	"github.com/wasmwright/wasmwright/internal/logrec"
	"github.com/wasmwright/wasmwright/internal/testenv"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

const (
	e2eUser = "alice-e2e-user"
	e2ePass = "Pa55word-e2e-XYZ"
	e2eSeed = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
)

// loginSite is a loopback site with a username, password and TOTP login
// (the server verifies the code), and a page that echoes whatever is typed
// into its password field into the DOM, the console, a request and an
// uncaught error.
func loginSite(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	htmlPage := func(w http.ResponseWriter, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!doctype html>"+body)
	}
	mux.HandleFunc("GET /login", func(w http.ResponseWriter, r *http.Request) {
		htmlPage(w, `<title>Sign in</title><form method="post" action="/login">
			<label>Username <input name="user" autocomplete="username"></label>
			<label>Password <input type="password" name="pass"></label>
			<label>Code <input name="code" inputmode="numeric"></label>
			<button type="submit">Sign in</button></form>`)
	})
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		ok, _ := totp.ValidateCustom(r.FormValue("code"), e2eSeed, time.Now(), totp.ValidateOpts{Period: 30, Skew: 1, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
		switch {
		case r.FormValue("user") != e2eUser || r.FormValue("pass") != e2ePass:
			htmlPage(w, `<title>Failed</title><h1>Wrong username or password</h1>`)
		case !ok:
			htmlPage(w, `<title>Failed</title><h1>Wrong code</h1>`)
		default:
			http.SetCookie(w, &http.Cookie{Name: "sid", Value: "ok", Path: "/"})
			http.Redirect(w, r, "/home", http.StatusSeeOther)
		}
	})
	mux.HandleFunc("GET /home", func(w http.ResponseWriter, r *http.Request) {
		if c, err := r.Cookie("sid"); err != nil || c.Value != "ok" {
			htmlPage(w, `<title>Home</title><h1>Not signed in</h1>`)
			return
		}
		htmlPage(w, `<title>Home</title><h1>Signed in OK</h1>`)
	})
	mux.HandleFunc("GET /echo", func(w http.ResponseWriter, r *http.Request) {
		htmlPage(w, `<title>Echo</title><label>Password <input type="password" id="pw"></label><p id="out">nothing yet</p><p id="state"></p>
			<script>document.getElementById("pw").addEventListener("input", e => {
				const v = e.target.value;
				document.getElementById("out").textContent = "you typed " + v;
				console.log("typed", v);
				const beacon = fetch("/beacon?v=" + v).catch(() => {});
				const thrown = new Promise(r => setTimeout(() => { r(); throw new Error("leaked " + v); }));
				// Once both are out, the page says so (tests wait for it).
				Promise.all([beacon, thrown]).then(() => setTimeout(() => { document.getElementById("state").textContent = "beacon and error out" }));
			});</script>`)
	})
	// A login page whose password field lives in a frame of another
	// origin (localhost vs 127.0.0.1: same server, different origin).
	mux.HandleFunc("GET /framed", func(w http.ResponseWriter, r *http.Request) {
		_, port, _ := strings.Cut(r.Host, ":")
		htmlPage(w, `<title>Framed</title><label>Username <input name="user"></label><iframe title="pw frame" src="http://localhost:`+port+`/pwframe"></iframe>`)
	})
	mux.HandleFunc("GET /pwframe", func(w http.ResponseWriter, r *http.Request) {
		htmlPage(w, `<title>pw</title><label>Frame password <input type="password"></label>`)
	})
	mux.HandleFunc("GET /beacon", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

var refOf = func(snap, role, name string) string {
	m := regexp.MustCompile(role + ` "` + name + `"[^\n]*\[ref=((?:f\d+)?e\d+)\]`).FindStringSubmatch(snap)
	if m == nil {
		return ""
	}
	return m[1]
}

// TestFillCredentialEndToEnd logs into a loopback site through the host
// with real Chromium: browser_fill_credential fills username, password and
// TOTP code from the vault; then a page echoes a filled password
// everywhere, and no raw value ever reaches the agent, the events or the
// log.
func TestFillCredentialEndToEnd(t *testing.T) {
	t.Parallel() // its own host: overlaps the other such tests' waits
	needBrowser(t)
	srv := loginSite(t)
	mods := map[string]string{"browser": "plugins/browser"}
	mask := ""
	_, goErr := os.Stat(filepath.Join(wasmbuild.Root(), "plugins", "secretmask", "go.mod"))
	_, rustErr := os.Stat(filepath.Join(wasmbuild.Root(), "plugins", "secretmask", "lib.rs"))
	if goErr == nil || rustErr == nil {
		if _, err := wasmbuild.Build("plugins/secretmask"); err == nil {
			mods["secretmask"], mask = "plugins/secretmask", "secretmask"
		} else {
			t.Logf("secretmask does not build yet, testing the host's raw check alone: %v", err)
		}
	}
	f := newFixture(t, mods)

	vaultFile := filepath.Join(f.dir, "vault.age")
	store := vault.Open(vault.Options{File: vaultFile})
	seed, err := vault.ParseTOTP("otpauth://totp/Test:alice?secret=" + e2eSeed + "&issuer=Test")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []vault.Credential{
		{Name: "site", Username: e2eUser, Password: e2ePass, TOTP: seed, Policy: vault.Policy{Origins: []string{srv.URL}, Personalities: []string{"default"}, Unattended: true, MaskUsername: true}},
		{Name: "attended-only", Username: e2eUser, Password: e2ePass, Policy: vault.Policy{Origins: []string{srv.URL}, Personalities: []string{"default"}}},
		{Name: "elsewhere", Username: e2eUser, Password: e2ePass, Policy: vault.Policy{Origins: []string{"https://example.org"}, Personalities: []string{"default"}, Unattended: true}},
	} {
		if err := store.Put(c); err != nil {
			t.Fatal(err)
		}
	}

	plugins := `"browser"`
	hooks := ""
	if mask != "" {
		plugins += `, "secretmask"`
		hooks = `hooks = { mask = "secretmask" }`
	}
	logs := &logrec.Buffer{}
	h := f.browserHost(t, f.browserConfig("call_timeout = \"60s\"\nevents_file = \"events.jsonl\"", `navigation_timeout = "30s"`, fmt.Sprintf(`[plugins.browser]
%s

[personalities.default]
plugins = [%s]
tools = ["*"]
grants = ["browser.read", "browser.act", "events", "secrets.mask", "vault.fill"]
network = { allowed_hosts = [%q, %q] }
%s
`, map[bool]string{true: "[plugins.secretmask]", false: ""}[mask != ""], plugins, strings.TrimPrefix(srv.URL, "http://"), strings.Replace(strings.TrimPrefix(srv.URL, "http://"), "127.0.0.1", "localhost", 1), hooks)),
		Options{Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})

	var seen []string // everything the agent got, args included
	call := func(tool string, args any) (*abi.Result, *abi.Error) {
		t.Helper()
		raw, _ := json.Marshal(args)
		seen = append(seen, string(raw))
		ctx, cancel := context.WithTimeout(context.Background(), testenv.CallWait)
		defer cancel()
		res, err := h.Call(ctx, Request{Tool: tool, Args: raw})
		out, _ := json.Marshal(res)
		seen = append(seen, string(out))
		if err != nil {
			e := abi.AsError(err)
			eb, _ := json.Marshal(e)
			seen = append(seen, string(eb))
			return res, e
		}
		return res, nil
	}
	noRaw := func(where string, texts ...string) {
		t.Helper()
		all := strings.Join(texts, "\n")
		for _, v := range []string{e2ePass, e2eUser, e2eSeed} {
			if strings.Contains(all, v) {
				t.Fatalf("%s holds a raw value %q", where, v)
			}
		}
	}

	res, e := call("browser_navigate", map[string]any{"url": srv.URL + "/login"})
	if e != nil {
		t.Fatal(e)
	}
	user, pass, codeRef, submit := refOf(res.Snapshot, "textbox", "Username"), refOf(res.Snapshot, "textbox", "Password"), refOf(res.Snapshot, "textbox", "Code"), refOf(res.Snapshot, "button", "Sign in")
	if user == "" || pass == "" || codeRef == "" || submit == "" {
		t.Fatalf("refs not found in:\n%s", res.Snapshot)
	}

	// Refusals through the host: each with its outcome, nothing filled.
	for _, r := range []struct{ cred, outcome string }{
		{"missing", abi.VaultNotFound}, {"attended-only", abi.VaultRefusedUnattended}, {"elsewhere", abi.VaultRefusedOrigin},
	} {
		_, e := call("browser_fill_credential", map[string]any{"credential": r.cred, "username_ref": user, "password_ref": pass})
		if e == nil || e.Details["outcome"] != r.outcome {
			t.Fatalf("%s: want %s, got %v", r.cred, r.outcome, e)
		}
	}
	if _, e := call("browser_fill_credential", map[string]any{"credential": "site", "password_ref": user}); e == nil || e.Details["outcome"] != abi.VaultRefusedFieldType {
		t.Fatalf("username field as password: want refused_field_type, got %v", e)
	}
	if got := h.Secrets().Values("default", "default"); len(got) != 0 {
		t.Fatalf("refusals put %d values into the session's secrets", len(got))
	}

	// A password field in a frame of another origin is refused, though the
	// top-level page is allowed.
	res, e = call("browser_navigate", map[string]any{"url": srv.URL + "/framed"})
	if e != nil {
		t.Fatal(e)
	}
	fuser, fpass := refOf(res.Snapshot, "textbox", "Username"), refOf(res.Snapshot, "textbox", "Frame password")
	if fuser == "" || fpass == "" {
		t.Fatalf("refs not found in:\n%s", res.Snapshot)
	}
	if _, e := call("browser_fill_credential", map[string]any{"credential": "site", "username_ref": fuser, "password_ref": fpass}); e == nil || e.Details["outcome"] != abi.VaultRefusedOrigin || !strings.Contains(e.Message, "localhost") {
		t.Fatalf("cross-origin frame: want refused_origin naming localhost, got %v", e)
	}
	res, e = call("browser_navigate", map[string]any{"url": srv.URL + "/login"})
	if e != nil {
		t.Fatal(e)
	}
	user, pass, codeRef = refOf(res.Snapshot, "textbox", "Username"), refOf(res.Snapshot, "textbox", "Password"), refOf(res.Snapshot, "textbox", "Code")

	// The login: username, password, TOTP, submit; the server checks all.
	res, e = call("browser_fill_credential", map[string]any{"credential": "site", "username_ref": user, "password_ref": pass, "totp_ref": codeRef, "submit": true})
	if e != nil {
		t.Fatalf("fill: %v", e)
	}
	if !strings.Contains(res.Snapshot, "Signed in OK") {
		t.Fatalf("not signed in; text %q snapshot:\n%s", res.Text, res.Snapshot)
	}
	var data struct {
		Filled []string `json:"filled"`
		Origin string   `json:"origin"`
	}
	json.Unmarshal(res.Data, &data)
	if strings.Join(data.Filled, ",") != "username,password,totp" || data.Origin != srv.URL {
		t.Fatalf("data %s", res.Data)
	}

	// The echo page: the filled password goes to the DOM, the console, a
	// request and an error. The agent must never get it raw.
	res, e = call("browser_navigate", map[string]any{"url": srv.URL + "/echo"})
	if e != nil {
		t.Fatal(e)
	}
	pw := refOf(res.Snapshot, "textbox", "Password")
	if pw == "" {
		t.Fatalf("no password field in:\n%s", res.Snapshot)
	}
	res, e = call("browser_fill_credential", map[string]any{"credential": "site", "password_ref": pw})
	if e != nil {
		t.Fatalf("fill on echo: %v", e)
	}
	if !strings.Contains(res.Snapshot, "you typed ••••••") {
		t.Errorf("the echoed password is not masked in the fill's snapshot:\n%s", res.Snapshot)
	}
	if _, e := call("browser_wait_for", map[string]any{"text": "beacon and error out"}); e != nil {
		t.Fatalf("waiting for the beacon and the error: %v", e)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"browser_snapshot", map[string]any{"snapshot": "full"}},
		{"browser_console", map[string]any{}},
		{"browser_network", map[string]any{}},
	} {
		res, e := call(c.tool, c.args)
		switch {
		case e != nil && e.Code == abi.CodeSecretLeak:
			t.Logf("%s: withheld by the host (secret_leak): the masker is missing or missed it", c.tool)
		case e != nil:
			t.Fatalf("%s: %v", c.tool, e)
		default:
			out, _ := json.Marshal(res)
			if !strings.Contains(string(out), "••••••") {
				t.Errorf("%s: the echoed value is neither masked nor withheld: %s", c.tool, out)
			}
		}
	}
	noRaw("what the agent saw (args, results, errors)", seen...)
	noRaw("the host log", logs.String())

	// One audit event per fill, names and origins only, in events_file.
	h.Close(context.Background())
	b, err := os.ReadFile(filepath.Join(f.dir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	noRaw("events.jsonl", string(b))
	var outcomes []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var ev struct {
			Kind string
			Data struct {
				Credential, Outcome, Origin string
			}
		}
		json.Unmarshal([]byte(line), &ev)
		if ev.Kind == "vault.fill" {
			outcomes = append(outcomes, ev.Data.Credential+":"+ev.Data.Outcome)
		}
	}
	want := "missing:not_found attended-only:refused_unattended elsewhere:refused_origin site:refused_field_type site:refused_origin site:filled site:filled"
	if strings.Join(outcomes, " ") != want {
		t.Fatalf("audit events %v\nwant %s", outcomes, want)
	}
}
