package host

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/operator"
)

// TestWithheldPageStaysWithheld: once a navigation's page is withheld (the
// detector flags a wall: bot_wall; the detector fails under fail_closed:
// plugin_failed), every tool that would read or act on it answers the same
// failure: snapshot, read, screenshot, pdf, sources, network (and the
// bodies it logged, even after leaving), console, images, storage, cookies,
// evaluate, a click, a key press, a wait. A navigation the detector passes
// serves pages again; going back to the wall withholds it again; another
// tab is served while the wall's tab is not (and the tab list does not show
// its title); a human's hand-back after a takeover serves the page.
func TestWithheldPageStaysWithheld(t *testing.T) {
	t.Parallel() // its own host and browser: overlaps the other such tests' waits
	needBrowser(t)
	mux := http.NewServeMux()
	page := func(title, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<!doctype html><title>%s</title><script src="/app.js"></script><p>%s</p><button>go</button>`, title, body)
		}
	}
	mux.HandleFunc("/wall", page("WALL", "wall-secret-text"))
	mux.HandleFunc("/livewall", page("LIVE WALL", "livewall-secret-text"))
	mux.HandleFunc("/shop", page("Shop", "shop-text"))
	mux.HandleFunc("/app.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		io.WriteString(w, `console.log("page-log-" + document.title); localStorage.setItem("k", document.title)`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	// The detector flags a page titled WALL and crashes on one titled
	// LIVE: a wall (bot_wall) and a failed detector (plugin_failed).
	f := newFixture(t, map[string]string{"browser": "plugins/browser", "testhooks": "host/testdata/testhooks"})
	bad := brokenDetector(t, "panic", "LIVE")
	file := filepath.Join(f.plugins, "testhooks.wasm")
	drop(file, bad, false)
	h := f.browserHost(t, f.browserConfig("", "", fmt.Sprintf(`[plugins.browser]
[plugins.testhooks]

[personalities.default]
plugins = ["browser", "testhooks"]
tools = ["*"]
grants = ["browser.read", "browser.act", "browser.eval", "takeover"]
hooks = { detect = "testhooks" }
network = { allowed_hosts = [%q] }
`, strings.TrimPrefix(srv.URL, "http://"))), Options{Operators: true})
	ctx := context.Background()
	call := func(tool, args string) (*abi.Result, *abi.Error) { return callJSON(h, ctx, "s", tool, args) }
	navigate := func(path string, extra string) (*abi.Result, *abi.Error) {
		return call("browser_navigate", `{"url":"`+srv.URL+path+`"`+extra+`}`)
	}
	// Every tool that reads or acts on the page, with its arguments.
	reads := [][2]string{
		{"browser_snapshot", `{}`},
		{"browser_read", `{}`},
		{"browser_screenshot", `{}`},
		{"browser_pdf", `{}`},
		{"browser_sources", `{}`},
		{"browser_sources", `{"fetch":"` + srv.URL + `/app.js"}`},
		{"browser_network", `{}`},
		{"browser_console", `{}`},
		{"browser_get_images", `{}`},
		{"browser_storage", `{"values":true}`},
		{"browser_cookies", `{"clear":true}`},
		{"browser_evaluate", `{"expression":"document.body.innerText"}`},
		{"browser_click", `{"ref":"e3"}`},
		{"browser_press", `{"key":"Enter"}`},
		{"browser_wait_for", `{"seconds":1}`},
		{"browser_tabs", `{"action":"list"}`},
	}
	// withheld checks that every tool answers the navigation's failure.
	withheld := func(when string, want *abi.Error) {
		t.Helper()
		for _, r := range reads {
			res, e := call(r[0], r[1])
			if e == nil || e.Code != want.Code || !strings.HasPrefix(e.Message, want.Message) {
				t.Errorf("%s: %s %s: want %s %q, got %v (result %+v)", when, r[0], r[1], want.Code, want.Message, e, res)
				continue
			}
			if res != nil || strings.Contains(e.Message, "secret-text") {
				t.Errorf("%s: %s gave the page away: %v %+v", when, r[0], e, res)
			}
		}
	}
	served := func(when, want string) {
		t.Helper()
		res, e := call("browser_snapshot", `{"snapshot":"full"}`)
		if e != nil || !strings.Contains(res.Snapshot, want) {
			t.Fatalf("%s: snapshot: want %q, got %v %+v", when, want, e, res)
		}
	}

	_, wall := navigate("/wall", "")
	if wall == nil || wall.Code != abi.CodeBotWall {
		t.Fatalf("navigate to the wall: want bot_wall, got %v", wall)
	}
	withheld("after the wall", wall)

	// A navigation the detector passes serves pages again.
	if _, e := navigate("/shop", ""); e != nil {
		t.Fatalf("navigate away from the wall: %v", e)
	}
	served("after leaving the wall", "shop-text")
	// The wall's document body, in the network log, stays withheld.
	res, e := call("browser_network", `{}`)
	if e != nil {
		t.Fatalf("network after leaving: %v", e)
	}
	var nl []abi.BrowserNetworkEntry
	if err := json.Unmarshal(res.Data, &nl); err != nil {
		t.Fatalf("network listing: %v %s", err, res.Data)
	}
	var wallID, shopID int64
	for _, r := range nl {
		switch r.URL {
		case srv.URL + "/wall":
			wallID = r.ID
		case srv.URL + "/shop":
			shopID = r.ID
		}
	}
	if wallID == 0 || shopID == 0 {
		t.Fatalf("the wall and the shop are not in the network log: %s", res.Data)
	}
	if res, e := call("browser_network", fmt.Sprintf(`{"body_of":%d}`, wallID)); e == nil || strings.Contains(fmt.Sprint(res), "secret-text") {
		t.Errorf("the wall's body after leaving: want refused, got %v %+v", e, res)
	}
	if res, e := call("browser_network", fmt.Sprintf(`{"body_of":%d}`, shopID)); e != nil || !strings.Contains(string(res.Data)+res.Text, "shop-text") {
		t.Errorf("the shop's body: %v %+v", e, res)
	}

	// Back to the wall: judged again, withheld again.
	if _, e := call("browser_back", `{}`); e == nil || e.Code != abi.CodeBotWall {
		t.Fatalf("back to the wall: want bot_wall, got %v", e)
	}
	withheld("back on the wall", wall)

	// Another tab is served; the wall's tab is not, and its title is not
	// listed.
	if _, e := navigate("/shop", `,"new_tab":true`); e != nil {
		t.Fatalf("navigate in a new tab: %v", e)
	}
	served("in the new tab", "shop-text")
	res, e = call("browser_tabs", `{"action":"list"}`)
	if e != nil || strings.Contains(res.Text+string(res.Data), "WALL") || !strings.Contains(res.Text+string(res.Data), "Shop") {
		t.Fatalf("tab list from the clean tab: want the shop and no wall title, got %v %+v", e, res)
	}
	if _, e := call("browser_tabs", `{"action":"select","index":0}`); e == nil || e.Code != abi.CodeBotWall {
		t.Fatalf("select the wall's tab: want bot_wall, got %v", e)
	}
	withheld("on the wall's tab", wall)
	if _, e := call("browser_tabs", `{"action":"select","index":1}`); e != nil {
		t.Fatalf("select the shop's tab: %v", e)
	}
	served("back in the shop's tab", "shop-text")

	// A failed detector withholds the same way.
	_, failed := navigate("/livewall", "")
	if failed == nil || failed.Code != abi.CodePluginFailed || !strings.Contains(failed.Message, "the page was withheld") {
		t.Fatalf("navigate with a failing detector: want plugin_failed, got %v", failed)
	}
	withheld("after the failed detector", failed)

	// A human's hand-back serves the page again.
	type out struct {
		res *abi.Result
		err *abi.Error
	}
	done := make(chan out, 1)
	go func() {
		r, e := call(TakeoverTool, `{"reason":"get past the wall"}`)
		done <- out{r, e}
	}()
	tk := waitPending(t, h.Desk(), "s")
	if err := h.Desk().EndTakeover(tk.ID, true, operator.Actor{Kind: operator.ActorOperator, Name: "test"}); err != nil {
		t.Fatal(err)
	}
	o := <-done
	if o.err != nil || !strings.Contains(o.res.Snapshot, "livewall-secret-text") {
		t.Fatalf("hand-back: want the page's snapshot, got %v %+v", o.err, o.res)
	}
	served("after the hand-back", "livewall-secret-text")
}
