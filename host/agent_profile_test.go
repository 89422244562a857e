package host

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
)

// TestBrowserProfilesPerPersonality: through the host, browser_profile
// creates and lists a profile, browser_navigate opens a session on it,
// another personality can neither see nor open it, and it is deleted once
// its session is closed.
func TestBrowserProfilesPerPersonality(t *testing.T) {
	t.Parallel() // its own host and browser: overlaps the other such tests' waits
	site := serve(t, map[string]string{"/": `<title>Shop</title><h1>Shop</h1>`})
	f := newFixture(t, map[string]string{"browser": "plugins/browser"})
	persona := func(name string) string {
		return fmt.Sprintf("[personalities.%s]\nplugins = [\"browser\"]\ntools = [\"*\"]\ngrants = [\"browser.read\", \"browser.act\"]\nnetwork = { allowed_hosts = [%q] }\n", name, strings.TrimPrefix(site.URL, "http://"))
	}
	h := f.browserHost(t, f.browserConfig("", `profiles_dir = "profiles"`, "[plugins.browser]\n"+persona("default")+persona("other")), Options{})
	a := &agent{t: t, h: h, dir: f.dir}
	if res := a.call("browser_profile", map[string]any{"action": "create", "name": "shop"}); !strings.Contains(res.Text, "1 profile(s):\n shop") {
		t.Fatalf("create: %s", res.Text)
	}
	if _, e := a.try("", "browser_profile", map[string]any{"action": "create", "name": "no/slash"}); e == nil || e.Code != abi.CodeInputInvalid {
		t.Errorf("a bad name: %v", e)
	}
	a.call("browser_navigate", map[string]any{"url": site.URL, "profile": "shop"})
	if res := a.call("browser_profile", map[string]any{"action": "list"}); !strings.Contains(res.Text, "shop (open in session") {
		t.Errorf("list: %s", res.Text)
	}
	if res, _ := a.try("other", "browser_profile", map[string]any{"action": "list"}); res == nil || !strings.Contains(res.Text, "0 profile(s)") {
		t.Errorf("another personality lists: %+v", res)
	}
	if _, e := a.try("other", "browser_navigate", map[string]any{"url": site.URL, "profile": "shop"}); e == nil || e.Code != abi.CodeNotFound {
		t.Errorf("another personality opened the profile: %v", e)
	}
	a.call("browser_close", map[string]any{})
	if res := a.call("browser_profile", map[string]any{"action": "delete", "name": "shop"}); !strings.Contains(res.Text, "0 profile(s)") {
		t.Errorf("delete: %s", res.Text)
	}
}
