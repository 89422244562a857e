package network

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/hostfuncs/browser"
)

// BenchmarkProxiedPageLoad loads a page with 40 cacheable subresources
// (20 images, 10 scripts, 10 stylesheets) through a session's egress
// proxy, again and again in one context: the cost of the proxy and of how
// Chromium authenticates to it (Playwright answers the 407 through the
// Fetch domain, which pauses every request and turns the cache off).
// It reports how many subresource requests reached the site per load.
func BenchmarkProxiedPageLoad(b *testing.B) {
	var hits atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		var sb strings.Builder
		sb.WriteString("<title>bench</title><h1>bench</h1>")
		for i := 0; i < 20; i++ {
			fmt.Fprintf(&sb, `<img src="/r/i%d.svg">`, i)
		}
		for i := 0; i < 10; i++ {
			fmt.Fprintf(&sb, `<script src="/r/s%d.js"></script><link rel="stylesheet" href="/r/c%d.css">`, i, i)
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(sb.String()))
	})
	mux.HandleFunc("/r/", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Cache-Control", "max-age=3600")
		switch {
		case strings.HasSuffix(r.URL.Path, ".svg"):
			w.Header().Set("Content-Type", "image/svg+xml")
			w.Write([]byte(`<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>`))
		case strings.HasSuffix(r.URL.Path, ".js"):
			w.Header().Set("Content-Type", "text/javascript")
			w.Write([]byte("var x = 1;"))
		default:
			w.Header().Set("Content-Type", "text/css")
			w.Write([]byte("h1 { color: black }"))
		}
	})
	_, br, base := proxiedBrowser(b, mux)
	u := base + "/page"
	if _, aerr := navigate(br, "p", "bench", u); aerr != nil {
		b.Fatal(aerr)
	}
	hits.Store(0)
	b.ResetTimer()
	t0 := time.Now()
	for i := 0; i < b.N; i++ {
		if _, aerr := navigate(br, "p", "bench", u); aerr != nil {
			b.Fatal(aerr)
		}
	}
	b.ReportMetric(float64(hits.Load())/float64(b.N), "refetched/load")
	b.ReportMetric(float64(time.Since(t0).Milliseconds())/float64(b.N), "ms/load")
}

// BenchmarkSessionOpen opens a new session (a browser context behind its
// own egress proxy) and loads one small page in it: what authenticating a
// context to its proxy adds to a session's first call.
func BenchmarkSessionOpen(b *testing.B) {
	s, br, base := proxiedBrowser(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<title>t</title><h1>small</h1>")
	}))
	u := base + "/"
	if _, aerr := navigate(br, "p", "warm", u); aerr != nil {
		b.Fatal(aerr)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sess := fmt.Sprint("s", i)
		if _, aerr := navigate(br, "p", sess, u); aerr != nil {
			b.Fatal(aerr)
		}
		b.StopTimer()
		br.CloseSession("p", sess)
		s.CloseSession("p", sess)
		b.StartTimer()
	}
}

// proxiedBrowser serves site on loopback and returns a network service
// whose personality "p" may reach it, a browser whose sessions go through
// that service's egress proxies, and the site's base URL; all closed when
// the benchmark ends.
func proxiedBrowser(b *testing.B, site http.Handler) (*Service, *browser.Service, string) {
	s, port := serveAllowed(b, site)
	if err := browser.Preflight(browser.Config{}); err != nil {
		b.Skipf("needs Chromium and the Playwright driver: %v", err)
	}
	br, err := browser.New(browser.Config{Headed: "false", WorkspaceDir: b.TempDir()}, browser.Options{Logger: quiet(), SessionProxy: s.OpenSessionProxy})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { br.Close(context.Background()) })
	return s, br, fmt.Sprintf("http://127.0.0.1:%d", port)
}
