package host

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/corpus"
)

// TestWebFetch runs the web_fetch plugin through the host: the readable
// text of an allowed page; refusals for loopback without the policy, for
// redirects to private addresses and for the hostile corpus; the network
// table's keys checked strictly.
func TestWebFetch(t *testing.T) {
	secret := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the secret service was reached: %s", r.URL)
	}))
	defer secret.Close()
	mux := http.NewServeMux()
	mux.HandleFunc("/article", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><head><title>An article</title><script>var hidden = "script text"</script><style>p{}</style></head>
<body><nav><a href="/">Home</a></nav><h1>The heading</h1><p>A paragraph with <a href="/next">a link</a>.</p></body></html>`)
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, secret.URL+"/x", http.StatusFound)
	})
	site := httptest.NewServer(mux)
	defer site.Close()
	port := site.Listener.Addr().(*net.TCPAddr).Port

	f := newFixture(t, map[string]string{"web_fetch": "plugins/web_fetch"})
	h := f.host(t, fmt.Sprintf(`
[plugins.web_fetch]

[personalities.fetcher]
plugins = ["web_fetch"]
tools = ["*"]
grants = ["network"]
network = { allowed_hosts = ["127.0.0.1:%d"] }

[personalities.public]
plugins = ["web_fetch"]
tools = ["*"]
grants = ["network"]

[personalities.nogrant]
plugins = ["web_fetch"]
tools = ["*"]
`, port), nil)
	call := func(pers, u string) (*abi.Result, error) {
		args, _ := json.Marshal(map[string]string{"url": u})
		return h.Call(context.Background(), Request{Personality: pers, Tool: "web_fetch", Args: args})
	}
	res, err := call("fetcher", site.URL+"/article")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Title: An article", "# The heading", "A paragraph with [a link](" + site.URL + "/next)."} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("missing %q in\n%s", want, res.Text)
		}
	}
	if strings.Contains(res.Text, "script text") || strings.Contains(res.Text, "Home") {
		t.Errorf("scripts or navigation kept:\n%s", res.Text)
	}
	if _, err := call("fetcher", site.URL+"/redirect"); errCode(err) != abi.CodeRefused {
		t.Errorf("redirect to another loopback port: %v", err)
	}
	if _, err := call("public", site.URL+"/article"); errCode(err) != abi.CodeRefused {
		t.Errorf("loopback without the policy: %v", err)
	}
	if _, err := call("nogrant", site.URL+"/article"); errCode(err) != abi.CodeRefused {
		t.Errorf("without the network grant: %v", err)
	}
	dir := corpus.Need(t, "ssrf")
	b, rerr := os.ReadFile(filepath.Join(dir, "doyensec-safeurl-blocked-urls.txt"))
	if rerr != nil {
		t.Fatal(rerr)
	}
	n := 0
	for _, u := range strings.Split(string(b), "\n") {
		if u = strings.TrimSpace(u); u == "" {
			continue
		}
		n++
		if _, err := call("fetcher", u); errCode(err) != abi.CodeRefused && errCode(err) != abi.CodeInputInvalid {
			t.Errorf("web_fetch %s: %v, want refused", u, err)
		}
	}
	t.Logf("web_fetch refused %d hostile URLs", n)
}

func TestNetworkPolicyConfig(t *testing.T) {
	for _, bad := range []string{
		"[personalities.x]\nnetwork = { ports = [0] }",
		"[personalities.x]\nnetwork = { allowed_hosts = [\"http://a/\"] }",
		"[personalities.x]\nnetwork = { allow_privat = true }",
	} {
		cfg, err := ParseConfig(bad, "bad.toml", t.TempDir())
		if err == nil {
			_, err = New(context.Background(), cfg, Options{NoBrowser: true})
		}
		if err == nil {
			t.Errorf("accepted:\n%s", bad)
		}
	}
}
