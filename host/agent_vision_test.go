package host

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/visiontest"
)

// visionAgent is a host whose personalities use the scripted model:
// default may reach the site and the model; blind lacks the vision grant;
// walled is granted vision but its network policy does not reach the
// model. Without model, the host has no [vision] table.
func visionAgent(t *testing.T, site *httptest.Server, model *visiontest.Server, extra string) *agent {
	t.Helper()
	return visionAgentTimeout(t, site, model, extra, "30s")
}

// visionAgentTimeout is visionAgent with [vision] timeout given: generous
// in visionAgent (a model request with a screenshot can take seconds on a
// busy machine), short where a test wants it to fire.
func visionAgentTimeout(t *testing.T, site *httptest.Server, model *visiontest.Server, extra, timeout string) *agent {
	t.Helper()
	needBrowser(t)
	f := newFixture(t, map[string]string{"browser": "plugins/browser", "snapcompact": "plugins/snapcompact", "secretmask": "plugins/secretmask"})
	siteHost := fmt.Sprintf("%q", strings.TrimPrefix(site.URL, "http://"))
	visionTable, both := "", siteHost
	if model != nil {
		visionTable = fmt.Sprintf("[vision]\nendpoint = %q\nmodel = \"test-vl\"\ntimeout = %q\n", model.Endpoint(), timeout)
		both += fmt.Sprintf(", %q", model.HostPort())
	}
	personality := func(name, grants, hosts string) string {
		return fmt.Sprintf(`[personalities.%s]
plugins = ["browser", "snapcompact", "secretmask"]
tools = ["*"]
grants = [%s]
hooks = { compact = "snapcompact", mask = "secretmask" }
network = { allowed_hosts = [%s] }
`, name, grants, hosts)
	}
	all := `"browser.read", "browser.act", "events", "secrets.mask", "vision"`
	h := f.browserHost(t, f.browserConfig("", "", fmt.Sprintf("[plugins.browser]\n[plugins.snapcompact]\n[plugins.secretmask]\n\n%s\n%s%s\n%s\n%s",
		visionTable,
		personality("default", all, both), extra,
		personality("blind", `"browser.read", "browser.act", "events", "secrets.mask"`, siteHost),
		personality("walled", all, siteHost))), Options{})
	return &agent{t: t, h: h, dir: f.dir}
}

// canvasPage draws three buttons on a canvas (at 8px of margin: Red at
// x 28-188, Green 228-388, Blue 428-588, y 48-108) and records in the
// title every click on the page: the button hit, or "miss".
const canvasPage = `<title>no clicks</title><style>body{margin:8px}</style>
<canvas id="c" width="600" height="150"></canvas>
<script>
const c = document.getElementById("c"), g = c.getContext("2d");
const buttons = [["Red", 20, "#c00"], ["Green", 220, "#0a0"], ["Blue", 420, "#00c"]];
for (const [n, x, col] of buttons) { g.fillStyle = col; g.fillRect(x, 40, 160, 60); g.fillStyle = "#fff"; g.font = "20px sans-serif"; g.fillText(n, x + 50, 78); }
const clicks = [];
document.addEventListener("click", e => {
	const r = c.getBoundingClientRect(), x = e.clientX - r.left, y = e.clientY - r.top;
	const hit = buttons.find(([, bx]) => x >= bx && x < bx + 160 && y >= 40 && y < 100);
	clicks.push(hit ? hit[0] : "miss");
	document.title = "clicks: " + clicks.join(",");
});
</script>`

// title reads the page's title, as the agent sees it.
func (a *agent) title() string {
	a.t.Helper()
	res := a.call("browser_snapshot", map[string]any{})
	_, rest, _ := strings.Cut(res.Text, "Page: ")
	t, _, _ := strings.Cut(rest, "\n")
	return t
}

func toolNames(t *testing.T, h *Host, personality string) []string {
	t.Helper()
	specs, err := h.Tools(personality)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range specs {
		out = append(out, s.Name)
	}
	return out
}

// TestVisionClickCanvas: on a canvas-only page, browser_vision_click
// clicks where the model (a real loopback server) points, and the page
// records the right button; the result says the point and the model's
// answer. The request carried the viewport's PNG, the description and the
// model configured.
func TestVisionClickCanvas(t *testing.T) {
	site := serve(t, map[string]string{"/canvas": canvasPage})
	model := visiontest.New(t)
	a := visionAgent(t, site, model, "")
	a.call("browser_navigate", map[string]any{"url": site.URL + "/canvas"})
	model.Answer(`{"x": 308, "y": 78}`)
	res := a.call("browser_vision_click", map[string]any{"description": "the Green button"})
	if !strings.Contains(res.Text, "Clicked the point (308, 78)") || !strings.Contains(res.Text, "Page: clicks: Green") {
		t.Fatalf("vision_click: %s", res.Text)
	}
	var data struct {
		X, Y   float64
		Answer string `json:"model_answer"`
		Model  string
	}
	if err := json.Unmarshal(res.Data, &data); err != nil || data.X != 308 || data.Y != 78 || data.Answer != `{"x": 308, "y": 78}` || data.Model != "test-vl" {
		t.Errorf("data %s (%v)", res.Data, err)
	}
	reqs := model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests", len(reqs))
	}
	var body struct {
		Model    string
		Messages []struct {
			Content json.RawMessage
		}
	}
	json.Unmarshal(reqs[0], &body)
	img := visiontest.Image(reqs[0])
	if body.Model != "test-vl" || len(body.Messages) != 2 || !strings.Contains(string(body.Messages[1].Content), "Find the element to click: the Green button") || len(img) < 100 || string(img[1:4]) != "PNG" {
		t.Errorf("request %s", visiontest.Redact(reqs[0]))
	}
	// snapshot none: no snapshot comes back, the click still lands.
	model.Answer(`{"x": 508, "y": 60}`)
	res = a.call("browser_vision_click", map[string]any{"description": "the Blue button", "snapshot": "none"})
	if res.Snapshot != "" || !strings.Contains(res.Text, "clicks: Green,Blue") {
		t.Errorf("snapshot none: %q / %s", res.Snapshot, res.Text)
	}
}

// TestVisionUnusableAnswersClickNothing: garbage, a mark not in the
// legend, a point outside the viewport, an HTTP error and a model slower
// than the timeout each give their coded error, and the page proves
// nothing was clicked.
func TestVisionUnusableAnswersClickNothing(t *testing.T) {
	t.Parallel() // its own host: overlaps the other such tests' waits
	site := serve(t, map[string]string{"/canvas": canvasPage})
	model := visiontest.New(t)
	a := visionAgent(t, site, model, "")
	a.call("browser_navigate", map[string]any{"url": site.URL + "/canvas"})
	for _, c := range []struct {
		name   string
		script func()
		code   abi.Code
		says   string
	}{
		{"garbage", func() { model.Answer("I think it is the green one!") }, abi.CodeExecutionFailed, "not the JSON object"},
		{"unknown mark", func() { model.Answer(`{"mark": 999}`) }, abi.CodeExecutionFailed, "mark 999 is not in the legend"},
		{"outside", func() { model.Answer(`{"x": 5000, "y": 78}`) }, abi.CodeExecutionFailed, "outside the"},
		{"none", func() { model.Answer(`{"none": "no such button"}`) }, abi.CodeNotFound, "no such button"},
		{"http 500", func() { model.Reply(500, `{"error":"overloaded"}`) }, abi.CodeExecutionFailed, "HTTP 500"},
	} {
		c.script()
		_, e := a.try("", "browser_vision_click", map[string]any{"description": "the Green button"})
		if e == nil || e.Code != c.code || !strings.Contains(e.Message, c.says) {
			t.Errorf("%s: want %s (%s), got %v", c.name, c.code, c.says, e)
		}
		if got := a.title(); got != "no clicks" {
			t.Fatalf("%s: the page was clicked: %q", c.name, got)
		}
	}
	// A model slower than the timeout: an agent whose [vision] timeout is
	// short, so the test does not wait out visionAgent's generous one.
	slow := visionAgentTimeout(t, site, model, "", "1500ms")
	slow.call("browser_navigate", map[string]any{"url": site.URL + "/canvas"})
	model.Answer(`{"x": 308, "y": 78}`)
	model.Hold()
	_, e := slow.try("", "browser_vision_click", map[string]any{"description": "the Green button"})
	if e == nil || e.Code != abi.CodeTimeout || !strings.Contains(e.Message, "[vision] timeout") {
		t.Errorf("timeout: want %s ([vision] timeout), got %v", abi.CodeTimeout, e)
	}
	if got := slow.title(); got != "no clicks" {
		t.Fatalf("timeout: the page was clicked: %q", got)
	}
}

// TestVisionTypeAtPoint: browser_vision_type types into the field the
// model points at, replacing its text; a mark answer is not needed.
func TestVisionTypeAtPoint(t *testing.T) {
	t.Parallel() // its own host: overlaps the other such tests' waits
	site := serve(t, map[string]string{"/form": `<title>Form</title><style>body{margin:0}</style>
		<input aria-label="Other" value="keep" style="position:absolute;left:10px;top:10px;width:200px;height:30px">
		<input aria-label="Amount" value="old" style="position:absolute;left:10px;top:100px;width:200px;height:30px">`})
	model := visiontest.New(t)
	a := visionAgent(t, site, model, "")
	a.call("browser_navigate", map[string]any{"url": site.URL + "/form"})
	model.Answer(`{"x": 100, "y": 115}`)
	res := a.call("browser_vision_type", map[string]any{"description": "the amount field", "text": "42.50", "snapshot": "full"})
	if !strings.Contains(res.Text, "Typed 5 character(s) into the point (100, 115)") ||
		!strings.Contains(res.Snapshot, `textbox "Amount"`) || !strings.Contains(res.Snapshot, ": \"42.50\"") && !strings.Contains(res.Snapshot, ": 42.50") ||
		!strings.Contains(res.Snapshot, "keep") || strings.Contains(res.Snapshot, "old") {
		t.Fatalf("vision_type: %s\n%s", res.Text, res.Snapshot)
	}
	if !strings.Contains(string(model.Requests()[0]), "Find the element to type into: the amount field") {
		t.Errorf("request: %s", visiontest.Redact(model.Requests()[0]))
	}
}

// TestVisionKeepsSecretsFromTheModel: once a password is typed into the
// page, the page is not sent: refused, and the model server sees no
// request; a personality with vision_allow_secrets sends it, yet the
// legend it sends never carries the secret (the page echoes it into a
// button's name, which the legend redacts).
func TestVisionKeepsSecretsFromTheModel(t *testing.T) {
	t.Parallel() // its own host: overlaps the other such tests' waits
	site := serve(t, map[string]string{"/login": `<title>Login</title><label>Password <input type="password" id="p"></label><button>Go</button>
		<button id="echo">echo</button><script>p.oninput = () => echo.textContent = "you typed " + p.value</script>`})
	for _, allow := range []bool{false, true} {
		model := visiontest.New(t)
		model.Answer(`{"x": 10, "y": 10}`)
		extra := ""
		if allow {
			extra = "vision_allow_secrets = true\n"
		}
		a := visionAgent(t, site, model, extra)
		nav := a.call("browser_navigate", map[string]any{"url": site.URL + "/login"})
		a.call("browser_type", map[string]any{"ref": a.ref(nav.Snapshot, `textbox "Password"`), "text": "hunter2-secret"})
		_, e := a.try("", "browser_vision_click", map[string]any{"description": "the Go button"})
		if n := len(model.Requests()); !allow && (e == nil || e.Code != abi.CodeRefused || !strings.Contains(e.Message, "vision_allow_secrets") || n != 0) {
			t.Fatalf("not allowed: %v, %d requests", e, n)
		} else if allow && (e != nil || n != 1) {
			t.Fatalf("allowed: %v, %d requests", e, n)
		}
		if allow {
			body := string(model.Requests()[0])
			if strings.Contains(body, "hunter2-secret") || !strings.Contains(body, `button \"`+abi.RedactedValue+`\"`) {
				t.Fatalf("allowed: the request to the model carries the secret or does not redact it: %.600s", body)
			}
		}
	}
}

// TestVisionToolsOffered: the vision tools are listed only for a
// personality granted vision on a host with a [vision] endpoint; otherwise
// a call says why. A personality whose network policy does not reach the
// endpoint is refused, naming the setting, and nothing is sent.
func TestVisionToolsOffered(t *testing.T) {
	site := serve(t, map[string]string{"/canvas": canvasPage})
	model := visiontest.New(t)
	model.Answer(`{"x": 308, "y": 78}`)
	a := visionAgent(t, site, model, "")
	for p, want := range map[string]bool{"default": true, "blind": false, "walled": true} {
		names := toolNames(t, a.h, p)
		if slices.Contains(names, "browser_vision_click") != want || slices.Contains(names, "browser_vision_type") != want || !slices.Contains(names, "browser_click") {
			t.Errorf("personality %s lists %v", p, names)
		}
	}
	_, e := a.try("blind", "browser_vision_click", map[string]any{"description": "x"})
	if e == nil || e.Code != abi.CodeRefused || !strings.Contains(e.Message, "vision") {
		t.Errorf("blind: %v", e)
	}
	a.try("walled", "browser_navigate", map[string]any{"url": site.URL + "/canvas"})
	_, e = a.try("walled", "browser_vision_click", map[string]any{"description": "the Green button"})
	if e == nil || e.Code != abi.CodeRefused || !strings.Contains(e.Message, "personalities.walled.network.allowed_hosts") || !strings.Contains(e.Message, model.HostPort()) || len(model.Requests()) != 0 {
		t.Errorf("walled: %v (%d requests)", e, len(model.Requests()))
	}

	none := visionAgent(t, site, nil, "")
	if names := toolNames(t, none.h, "default"); slices.Contains(names, "browser_vision_click") || slices.Contains(names, "browser_vision_type") {
		t.Errorf("no endpoint, yet listed: %v", names)
	}
	_, e = none.try("", "browser_vision_click", map[string]any{"description": "x"})
	if e == nil || e.Code != abi.CodeNotAvailable || !strings.Contains(e.Message, "[vision] endpoint") {
		t.Errorf("no endpoint: %v", e)
	}
}

// TestVisionClickMarkByRef: on an ordinary page the model sees the page's
// buttons as marks in the legend; answering the Save button's mark clicks
// that element by its ref, and the result names the mark, the ref and the
// box.
func TestVisionClickMarkByRef(t *testing.T) {
	site := serve(t, map[string]string{"/": `<title>Editor</title>
		<button onclick="document.title='pressed Cancel'">Cancel</button>
		<button onclick="document.title='pressed Save'">Save</button>`})
	model := visiontest.New(t)
	a := visionAgent(t, site, model, "")
	a.call("browser_navigate", map[string]any{"url": site.URL + "/"})
	model.Answer(`{"none": "looking first"}`)
	if _, e := a.try("", "browser_vision_click", map[string]any{"description": "the Save button"}); e == nil || e.Code != abi.CodeNotFound {
		t.Fatalf("none: %v", e)
	}
	var prompt string
	var body struct {
		Messages []struct{ Content json.RawMessage }
	}
	json.Unmarshal(model.Requests()[0], &body)
	var parts []struct{ Text string }
	json.Unmarshal(body.Messages[1].Content, &parts)
	prompt = parts[0].Text
	m := regexp.MustCompile(`(?m)^(\d+): button "Save" box=(\d+,\d+,\d+,\d+)$`).FindStringSubmatch(prompt)
	if m == nil || !strings.Contains(prompt, `button "Cancel"`) {
		t.Fatalf("legend without the buttons:\n%s", prompt)
	}
	model.Answer(`{"mark": ` + m[1] + `}`)
	res := a.call("browser_vision_click", map[string]any{"description": "the Save button"})
	if !regexp.MustCompile(`Clicked mark `+m[1]+` \(e\d+\) box `).MatchString(res.Text) || !strings.Contains(res.Text, "Page: pressed Save") {
		t.Fatalf("mark click: %s", res.Text)
	}
	var data struct {
		Mark int
		Ref  string
		Box  []int
	}
	json.Unmarshal(res.Data, &data)
	if fmt.Sprint(data.Mark) != m[1] || data.Ref == "" || strings.Trim(strings.ReplaceAll(fmt.Sprint(data.Box), " ", ","), "[]") != m[2] {
		t.Errorf("data %s, legend line %q", res.Data, m[0])
	}
}
