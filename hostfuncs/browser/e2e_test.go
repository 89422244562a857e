package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/capability"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
	"github.com/wasmwright/wasmwright/sandbox"
)

// The browser tool plugin, built from plugins/browser, run in the sandbox
// against this package's host functions: the path an agent's call takes.
var missingImport = regexp.MustCompile(`imports extism:host/user/(\w+), which this host does not provide`)

var (
	e2eOnce   sync.Once
	e2ePlugin *sandbox.Plugin
	e2eErr    error
)

func browserPlugin(t testing.TB) *sandbox.Plugin {
	t.Helper()
	e2eOnce.Do(func() {
		path, err := wasmbuild.Build("plugins/browser")
		if err != nil {
			e2eErr = err
			return
		}
		wasm, err := os.ReadFile(path)
		if err != nil {
			e2eErr = err
			return
		}
		cache, _ := os.MkdirTemp("", "ww-browser-e2e-cache-")
		funcs := append(svc.HostFuncs(), hostfuncs.Info())
		// Imports of other services (the vault's credential fill) get a
		// stub answering not_available: this test is about the browser.
		for range 8 {
			eng, err := sandbox.NewEngine(sandbox.Config{CacheDir: cache, Logger: quietLogger(), HostFuncs: funcs})
			if err != nil {
				e2eErr = err
				return
			}
			e2ePlugin, e2eErr = eng.Load(context.Background(), "browser", wasm, "")
			m := missingImport.FindStringSubmatch(fmt.Sprint(e2eErr))
			if m == nil {
				return
			}
			funcs = append(funcs, sandbox.HostFunc{Name: m[1], Fn: func(context.Context, string, []byte) ([]byte, error) {
				return nil, abi.Errorf(abi.CodeNotAvailable, "not in this test")
			}})
		}
	})
	if e2eErr != nil {
		t.Fatal(e2eErr)
	}
	return e2ePlugin
}

func tool(t testing.TB, c *hostfuncs.Caller, name string, args string) (*abi.Result, *abi.Error) {
	t.Helper()
	p := browserPlugin(t)
	in, _ := abi.Frame(abi.CallHeader{Tool: name, Session: c.Session(), Personality: c.Personality()}, []byte(args))
	ctx, cancel := context.WithTimeout(hostfuncs.WithCaller(context.Background(), c), 30*time.Second)
	defer cancel()
	out, err := p.Call(ctx, abi.OpCall, in)
	if err != nil {
		var ae *abi.Error
		if !errors.As(err, &ae) {
			t.Fatalf("%s: %v", name, err)
		}
		return nil, ae
	}
	var r abi.Result
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%s: %s", name, out)
	}
	return &r, nil
}

func mustTool(t testing.TB, c *hostfuncs.Caller, name, args string) *abi.Result {
	t.Helper()
	r, err := tool(t, c, name, args)
	if err != nil {
		t.Fatalf("%s %s: %v", name, args, err)
	}
	return r
}

func TestPluginManifest(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	p := browserPlugin(t)
	m := p.Manifest()
	if m.Name != "browser" || len(m.Tools) < 30 {
		t.Fatalf("manifest: %s, %d tools", m.Name, len(m.Tools))
	}
	granted, err := capability.Parse(m.Capabilities)
	if err != nil {
		t.Fatal(err)
	}
	// The browser's own imports (other services register theirs in their
	// own packages, not linked here).
	var imports []string
	for _, imp := range p.Imports() {
		if strings.HasPrefix(imp, "ww_browser_") {
			imports = append(imports, imp)
			if _, ok := capability.ForHostFunc(imp); !ok {
				t.Fatalf("import %s has no capability", imp)
			}
		}
	}
	if len(imports) < 20 {
		t.Fatalf("browser imports: %v", imports)
	}
	if _, err := capability.Resolve(m, imports, "tester", granted); err != nil {
		t.Fatalf("resolve: %v", err)
	}
}

func TestPluginEndToEnd(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c := caller(t.Name())
	_, err := tool(t, c, "browser_snapshot", `{}`)
	wantCode(t, err, abi.CodeNoSession, "browser_navigate first")

	r := mustTool(t, c, "browser_navigate", `{"url":"`+srv.URL+`/form"}`)
	if r.Page == nil || r.Page.Status != 200 || r.Page.Title != "Sign up" || !strings.Contains(r.Snapshot, `textbox "Password"`) {
		t.Fatalf("navigate: %+v", r)
	}
	if !strings.Contains(r.Text, "HTTP 200") || !strings.Contains(r.Text, "Page: Sign up") {
		t.Fatalf("navigate text: %s", r.Text)
	}
	pwd := refOf(t, r.Snapshot, `textbox "Password"`)
	name := refOf(t, r.Snapshot, `textbox "Name"`)

	r = mustTool(t, c, "browser_type", `{"ref":"@`+name+`","text":"Ada"}`)
	if !strings.Contains(r.Text, "Typed 3 character(s)") {
		t.Fatalf("type: %s", r.Text)
	}
	r = mustTool(t, c, "browser_type", `{"ref":"`+pwd+`","text":"hunter22"}`)
	if strings.Contains(r.Snapshot, "hunter22") || strings.Contains(r.Text, "hunter22") {
		t.Fatalf("password leaked: %s\n%s", r.Text, r.Snapshot)
	}

	_, err = tool(t, c, "browser_click", `{"ref":"button[type=submit]"}`)
	wantCode(t, err, abi.CodeInputInvalid, "use a ref from browser_snapshot")
	_, err = tool(t, c, "browser_click", `{"ref":"e4242"}`)
	wantCode(t, err, abi.CodeStaleRef, "take a new snapshot")

	r = mustTool(t, c, "browser_fill_form", `{"fields":[{"ref":"`+refOf(t, r.Snapshot, `combobox "Colour"`)+`","kind":"combobox","value":"Green"},{"ref":"`+refOf(t, r.Snapshot, `checkbox "I agree"`)+`","kind":"checkbox","value":"true"}]}`)
	r = mustTool(t, c, "browser_click", `{"ref":"`+refOf(t, r.Snapshot, `button "Send"`)+`"}`)
	if r.Page == nil || !strings.Contains(r.Page.Text, "colour=g terms=on pwlen=8") || !strings.Contains(r.Text, "navigated") {
		t.Fatalf("submit: %s %+v", r.Text, r.Page)
	}

	r = mustTool(t, c, "browser_screenshot", `{"name":"e2e"}`)
	if len(r.Images) != 1 || r.Images[0].MIME != "image/png" || len(r.Files) != 1 || !strings.HasSuffix(r.Files[0], "/tester/e2e.png") {
		t.Fatalf("screenshot: %s %v", r.Text, r.Files)
	}
	_, err = tool(t, c, "browser_screenshot", `{"name":"../../escape"}`)
	wantCode(t, err, abi.CodePathRefused, "")

	r = mustTool(t, c, "browser_back", `{}`)
	if r.Page == nil || r.Page.Title != "Sign up" {
		t.Fatalf("back: %s", r.Text)
	}
	r = mustTool(t, c, "browser_evaluate", `{"expression":"() => document.title"}`)
	if string(r.Data) != `"Sign up"` || r.Risk == "" {
		t.Fatalf("evaluate: %+v", r)
	}
	// Without browser.eval the host function refuses, whatever the plugin
	// asks.
	noEval := caller(t.Name(), capability.BrowserRead, capability.BrowserAct)
	_, err = tool(t, noEval, "browser_evaluate", `{"expression":"1+1"}`)
	wantCode(t, err, abi.CodeRefused, "browser.eval")

	r = mustTool(t, c, "browser_navigate", `{"url":"`+srv.URL+`/dialogs"}`)
	r = mustTool(t, c, "browser_click", `{"ref":"`+refOf(t, r.Snapshot, `button "Confirm"`)+`"}`)
	if !strings.Contains(r.Text, `A confirm dialog is open: "sure?"`) {
		t.Fatalf("dialog text: %s", r.Text)
	}
	r = mustTool(t, c, "browser_dialog", `{"accept":true}`)
	if !strings.Contains(r.Text, "Accepted the confirm dialog") || !strings.Contains(r.Snapshot, "yes") {
		t.Fatalf("dialog: %s\n%s", r.Text, r.Snapshot)
	}
	_, err = tool(t, c, "browser_dialog", `{"accept":true}`)
	wantCode(t, err, abi.CodeDialogGone, "")

	mustTool(t, c, "browser_navigate", `{"url":"`+srv.URL+`/console"}`)
	mustTool(t, c, "browser_wait_for", `{"text":"console ready"}`)
	r = mustTool(t, c, "browser_console", `{"level":"error"}`)
	if !strings.Contains(r.Text, "something broke") || !strings.Contains(r.Text, "uncaught boom") {
		t.Fatalf("console: %s", r.Text)
	}
	r = mustTool(t, c, "browser_storage", `{}`)
	if strings.Contains(r.Text, "abc123") || !strings.Contains(r.Text, "token (6 chars)") {
		t.Fatalf("storage: %s", r.Text)
	}
	r = mustTool(t, c, "browser_sessions", `{}`)
	if !strings.Contains(r.Text, "* "+t.Name()) {
		t.Fatalf("sessions: %s", r.Text)
	}
	_, err = tool(t, c, "browser_navigate", `{"url":"file:///etc/passwd"}`)
	wantCode(t, err, abi.CodeRefused, "")
	_, err = tool(t, c, "browser_navigate", `{"url":"`+srv.URL+`/slow","timeout_seconds":1}`)
	wantCode(t, err, abi.CodeNavTimeout, "")
	r = mustTool(t, c, "browser_close", `{}`)
	if !strings.Contains(r.Text, "Closed") {
		t.Fatal(r.Text)
	}
}
