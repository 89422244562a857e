package host

import (
	"path/filepath"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/operator"
)

// pageAt is an operator.Browser whose every session is on one URL.
type pageAt string

func (pageAt) SetDriving(string, string, bool) {}
func (pageAt) Raise(string, string)            {}
func (pageAt) HandedBack(string, string)       {}
func (p pageAt) PageURL(string, string) string { return string(p) }

// TestUnicodeGrantMatchesPunycodePage: a grant an operator adds with a
// Unicode host (grants add --origin http://bücher.example) lets the tool
// run on the page Chromium reports on that host, in punycode: the origin
// judge computes for the page (pageOrigin) is the one the stored grant
// holds. It is the pair of calls judge makes for an ask mode.
func TestUnicodeGrantMatchesPunycodePage(t *testing.T) {
	g, err := operator.OpenGrants(filepath.Join(t.TempDir(), "grants"))
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Add("p", operator.Grant{Tool: "browser_click", Origin: "http://bücher.example"}); err != nil {
		t.Fatal(err)
	}
	for page, want := range map[string]bool{
		"http://xn--bcher-kva.example/katalog?x=1": true,
		"http://xn--bcher-kva.example./":           true,
		"http://XN--BCHER-KVA.example:80/":         true,
		"https://xn--bcher-kva.example/":           false,
		"http://xn--bcher-kva.example:8080/":       false,
		"http://bucher.example/":                   false,
		"about:blank":                              false,
	} {
		o := pageOrigin(pageAt(page), "p", "s")
		if got := g.Allows("p", "browser_click", abi.RiskAct, o, false); got != want {
			t.Errorf("page %s (origin %q): allowed %v, want %v", page, o, got, want)
		}
	}
}
