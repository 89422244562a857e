package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	corpusdir "github.com/wasmwright/wasmwright/internal/corpus"
)

// formPage is the page every lap acts on: a text field and a button whose
// click writes what was typed into the page and adds a list item, so the
// next snapshot shows whether the type and the click took.
const formPage = `<!doctype html><html><head><title>Soak form</title></head><body>
<h1>Order</h1>
<label>Name <input id="name" type="text"></label>
<button id="send" onclick="var v = document.getElementById('name').value; document.getElementById('out').textContent = 'Thanks, ' + v; var li = document.createElement('li'); li.textContent = 'order for ' + v; document.getElementById('orders').append(li)">Send</button>
<p id="out"></p>
<ul id="orders"></ul>
<p><a href="/form?again=1">Another order</a></p>
</body></html>`

// wallPage is a Cloudflare challenge as the host's own self-test fixture
// shapes it: the detector must answer bot_wall, whichever build serves.
const wallPage = `<!doctype html><html><head><title>Just a moment...</title></head><body>
<div id="challenge-stage"><h2>Checking if the site connection is secure</h2>
<p>Enable JavaScript and cookies to continue</p></div>
<script>window._cf_chl_opt = {cvId: '3', cType: 'managed'};</script>
</body></html>`

// site serves, on loopback, the pages the agents visit: the corpus pages
// under /pages/, the form and the wall.
type site struct {
	srv   *httptest.Server
	pages []string // URLs of the corpus pages, sorted by name
}

func newSite(pagesDir string) (*site, error) {
	mux := http.NewServeMux()
	html := func(status int, body string, headers ...string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			for i := 0; i+1 < len(headers); i += 2 {
				w.Header().Set(headers[i], headers[i+1])
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(status)
			fmt.Fprint(w, body)
		}
	}
	mux.HandleFunc("GET /form", html(http.StatusOK, formPage))
	mux.HandleFunc("GET /wall", html(http.StatusForbidden, wallPage, "Server", "cloudflare", "Cf-Mitigated", "challenge"))
	var names []string
	if pagesDir != "" {
		var err error
		if names, err = corpusdir.Pages(pagesDir); err != nil && !os.IsNotExist(err) {
			return nil, err
		}
		mux.Handle("GET /pages/", http.StripPrefix("/pages/", http.FileServer(http.Dir(pagesDir))))
	}
	s := &site{srv: httptest.NewServer(mux)}
	for _, n := range names {
		s.pages = append(s.pages, s.srv.URL+"/pages/"+filepath.Base(n))
	}
	if len(s.pages) == 0 { // no corpus: the form is the only page
		s.pages = []string{s.srv.URL + "/form?page=1"}
	}
	return s, nil
}

func (s *site) url(path string) string { return s.srv.URL + path }

func (s *site) close() { s.srv.Close() }
