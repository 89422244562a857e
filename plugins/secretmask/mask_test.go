// The masker's tests, driving the built module (lib.rs, Rust) through the
// real sandbox with a stub ww_secrets_mask_values: the same cases and
// assertions the Go version had. Its internals (the masker's forms, its
// reuse) are tested in Rust beside them (make rust-test).
package secretmask_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/leakforms"
	"github.com/wasmwright/wasmwright/internal/plugintest"
	"github.com/wasmwright/wasmwright/sandbox"
)

// Mask is what every occurrence of a secret becomes.
const Mask = "••••••"

// minEncodedLen: values shorter than this are not looked for as base64 or hex.
const minEncodedLen = 4

var loaded struct {
	mu   sync.Mutex
	vals []string
	fail *abi.Error // the host's answer instead of values, when set
}

// module's host answers ww_secrets_mask_values with what withValues set.
var module = plugintest.Module{Dir: "plugins/secretmask", Config: sandbox.Config{HostFuncs: []sandbox.HostFunc{{Name: abi.HostSecretsMaskValues, Fn: maskValues}}}}

func maskValues(context.Context, string, []byte) ([]byte, error) {
	loaded.mu.Lock()
	defer loaded.mu.Unlock()
	if loaded.fail != nil {
		return nil, loaded.fail
	}
	return json.Marshal(abi.SecretsMaskValuesResponse{Values: loaded.vals})
}

// plugin builds and loads the module once.
func plugin(t testing.TB) *sandbox.Plugin {
	t.Helper()
	return module.Plugin(t)
}

// withValues makes the host answer ww_secrets_mask_values with vs.
func withValues(t testing.TB, vs ...string) {
	loaded.mu.Lock()
	loaded.vals, loaded.fail = vs, nil
	loaded.mu.Unlock()
	t.Cleanup(func() {
		loaded.mu.Lock()
		loaded.vals, loaded.fail = nil, nil
		loaded.mu.Unlock()
	})
}

// runHook runs the mask hook as the host does (the snapshot raw).
func runHook(t testing.TB, req abi.HookRequest) (*abi.HookResponse, *abi.Error) {
	t.Helper()
	_, resp, err := plugintest.Hook(t, plugin(t), &req, true)
	if err != nil {
		return nil, abi.AsError(err)
	}
	return resp, nil
}

// mask hides values in s through the hook: s is a result's text.
func mask(t testing.TB, s string, values ...string) string {
	t.Helper()
	loaded.mu.Lock()
	old := loaded.vals
	loaded.vals = values
	loaded.mu.Unlock()
	defer func() {
		loaded.mu.Lock()
		loaded.vals = old
		loaded.mu.Unlock()
	}()
	resp, e := runHook(t, abi.HookRequest{Role: abi.HookMask, Tool: "t", Session: "s", Result: &abi.Result{Text: s}})
	if e != nil {
		t.Fatalf("masking %q: %v", s, e)
	}
	if resp.Result == nil {
		return s // nothing to hide: the result stays as it is
	}
	return resp.Result.Text
}

// encodedForms are ways a page, a URL or an echo can carry v.
func encodedForms(v string) map[string]string {
	dec, hx := leakforms.HTMLRefs(v, true)
	jm, _ := json.Marshal(v)
	forms := map[string]string{
		"raw":         v,
		"query":       url.QueryEscape(v),
		"path":        url.PathEscape(v),
		"query%20":    strings.ReplaceAll(url.QueryEscape(v), "+", "%20"),
		"query-twice": url.QueryEscape(url.QueryEscape(v)),
		"path-thrice": url.PathEscape(url.PathEscape(url.PathEscape(v))),
		"html":        html.EscapeString(v),
		"html-dec":    dec,
		"html-hex":    hx,
		"json":        string(jm[1 : len(jm)-1]),
		"json-u":      leakforms.JSONEscapes(v, false),
		"hex-upper":   strings.ToUpper(hex.EncodeToString([]byte(v))),
		"hex-lower":   hex.EncodeToString([]byte(v)),
		"b64-std":     base64.StdEncoding.EncodeToString([]byte(v)),
		"b64-url":     base64.URLEncoding.EncodeToString([]byte(v)),
		"b64-raw":     base64.RawStdEncoding.EncodeToString([]byte(v)),
		"b64-embed-1": base64.StdEncoding.EncodeToString(append([]byte("u:"), []byte(v+"!tail")...)),
		"b64-embed-2": base64.URLEncoding.EncodeToString(append([]byte{0xfb}, []byte(v+"\xff\xfe")...)),
		"b64-embed-3": base64.StdEncoding.EncodeToString(append([]byte("xyz"), []byte(v)...)),
		"b64-basic":   base64.StdEncoding.EncodeToString([]byte("user:" + v)),
		"b64-embed-4": base64.RawURLEncoding.EncodeToString(append([]byte("ab"), []byte(v+"c")...)),
	}
	return forms
}

func checkNoLeak(t testing.TB, resp *abi.HookResponse, v string) {
	t.Helper()
	b, _ := json.Marshal(resp)
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	for _, s := range leakforms.Strings(doc) {
		// The data field comes back as JSON inside JSON: look inside it too.
		if how := leakforms.Found(s, v); how != "" {
			t.Fatalf("value %q leaks (%s) in %q", v, how, s)
		}
	}
}

// pageWith puts every form of v in every field of a result and an error.
func pageWith(v string) abi.HookRequest {
	forms := encodedForms(v)
	keys := make([]string, 0, len(forms))
	for k := range forms {
		keys = append(keys, k)
	}
	var text strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&text, "[%s] before%safter\n", k, forms[k])
	}
	data, _ := json.Marshal(map[string]any{"echo": forms, "list": []string{forms["raw"], forms["b64-embed-1"]}, forms["raw"]: "a key"})
	return abi.HookRequest{Role: abi.HookMask, Tool: "browser_evaluate", Session: "s1", Result: &abi.Result{
		Text:     text.String(),
		Data:     data,
		Snapshot: "- textbox \"Password\" [ref=e8]: " + forms["raw"] + "\n- link \"x\" [ref=e9]:\n  - /url: https://h.test/cb?token=" + forms["query"] + "&b=" + forms["b64-url"],
		Page: &abi.Page{URL: "https://h.test/?p=" + forms["query%20"], Title: forms["html"], Text: forms["html-hex"], HTML: "<input value=\"" + forms["html-dec"] + "\">",
			Headers: map[string]string{"authorization": "Basic " + forms["b64-basic"], "x-echo": forms["hex-upper"]}},
		Images:   []abi.Image{{MIME: "image/png", Data: forms["b64-embed-3"]}},
		Files:    []string{"/tmp/" + forms["path"]},
		Warnings: []string{forms["json"], forms["json-u"]},
		Events:   []string{forms["b64-embed-2"], forms["b64-embed-4"], forms["hex-lower"], forms["b64-raw"], forms["b64-std"]},
	}, Error: &abi.Error{Code: abi.CodeExecutionFailed, Message: "login as " + forms["raw"] + " failed", Details: map[string]string{"typed": forms["raw"], forms["raw"]: forms["json"]}}}
}

func TestMaskEveryFieldAndEncoding(t *testing.T) {
	for _, v := range []string{"hunter2!", "p@ss w0rd+/=", "Grüße & <tags> \"q\"", "tok_9f8e7d6c5b4a", "🔑emoji-key", "a'b\\c\nd"} {
		t.Run(v, func(t *testing.T) {
			withValues(t, v, "other-secret")
			resp, e := runHook(t, pageWith(v))
			if e != nil {
				t.Fatal(e)
			}
			checkNoLeak(t, resp, v)
			if resp.Result.Page == nil || resp.Error == nil || resp.Error.Code != abi.CodeExecutionFailed {
				t.Fatalf("shape lost: %+v", resp)
			}
			if !strings.Contains(resp.Result.Text, "before"+Mask+"after") {
				t.Fatalf("text: %s", resp.Result.Text)
			}
		})
	}
}

func TestNumbersAndKeys(t *testing.T) {
	withValues(t, "123456")
	resp, e := runHook(t, abi.HookRequest{Role: abi.HookMask, Session: "s", Result: &abi.Result{Data: json.RawMessage(`{"pin":123456,"123456":true,"n":42}`)}})
	if e != nil {
		t.Fatal(e)
	}
	if got := string(resp.Result.Data); got != `{"pin":"••••••","••••••":true,"n":42}` {
		t.Fatalf("data: %s", got)
	}
}

func TestNoValuesLeavesResult(t *testing.T) {
	withValues(t)
	req := abi.HookRequest{Role: abi.HookMask, Session: "s", Result: &abi.Result{Text: "hello"}}
	resp, e := runHook(t, req)
	if e != nil || resp.Result == nil || resp.Result.Text != "hello" {
		t.Fatalf("got %+v %v", resp, e)
	}
}

func TestFailsClosedWithoutValues(t *testing.T) {
	// The host cannot say the values: the masker must refuse rather than
	// pass the result through unmasked.
	plugin(t)
	loaded.mu.Lock()
	loaded.fail = abi.Errorf(abi.CodeNotAvailable, "no vault")
	loaded.mu.Unlock()
	t.Cleanup(func() {
		loaded.mu.Lock()
		loaded.fail = nil
		loaded.mu.Unlock()
	})
	_, e := runHook(t, abi.HookRequest{Role: abi.HookMask, Session: "s", Result: &abi.Result{Text: "x"}})
	if e == nil || e.Code != abi.CodePluginFailed || !strings.Contains(e.Message, "withheld") {
		t.Fatalf("got %v", e)
	}
}

func TestSelfTestAndManifest(t *testing.T) {
	p := plugin(t)
	plugintest.SelfTest(t, p)
	m := p.Manifest()
	if m.Name != "secretmask" || m.Version != "1.0.0" || len(m.Hooks) != 1 || m.Hooks[0] != abi.HookMask || len(m.Capabilities) != 1 || m.Capabilities[0] != "secrets.mask" || !m.HasFeature(abi.FeatureRawSnapshot) {
		t.Fatalf("manifest: %+v", m)
	}
}

// FuzzMask puts arbitrary values, in every encoding, into every field of a
// result: none may survive.
func FuzzMask(f *testing.F) {
	for _, s := range []string{"hunter2!", "p@ss w0rd", "ÄÖÜäöü€", "0000", "a+b=c/d?e&f", "<script>", "%41%42", "&amp;&#65;", `\u0041"`, "    x", "日本語のパスワード"} {
		f.Add(s, "filler text <b>with</b> markup & stuff", uint8(1))
	}
	f.Fuzz(func(t *testing.T, v, filler string, n uint8) {
		if len(v) < minEncodedLen || len(v) > 256 || !utf8.ValidString(v) || strings.ContainsRune(v, '•') || strings.TrimSpace(v) == "" {
			t.Skip()
		}
		if !utf8.ValidString(filler) {
			filler = strings.ToValidUTF8(filler, "?")
		}
		withValues(t, v)
		req := pageWith(v)
		req.Result.Text = strings.Repeat(filler, int(n%4)) + req.Result.Text + filler
		req.Result.Warnings = append(req.Result.Warnings, filler+v+filler)
		resp, e := runHook(t, req)
		if e != nil {
			t.Fatalf("masker failed: %v", e)
		}
		checkNoLeak(t, resp, v)
	})
}

func TestAdversarialPageStaysLinear(t *testing.T) {
	v := strings.Repeat("%2", 30) + "!"
	s := strings.Repeat("%25", 4000) + strings.Repeat("%2", 4000)
	plugin(t)
	t0 := time.Now()
	mask(t, s, v)
	if d := time.Since(t0); d > 5*time.Second {
		t.Fatalf("masking an adversarial page took %v (at most 5 s)", d)
	}
}
