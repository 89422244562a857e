package weborigin

import (
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
)

// TestParse: one spelling per origin (punycode, lower case, no default
// port, no trailing dot), and input_invalid with the fix for anything
// that is more (or less) than an origin.
func TestParse(t *testing.T) {
	for in, want := range map[string]string{
		"http://bücher.example":                      "http://xn--bcher-kva.example",
		"https://BÜCHER.example/":                    "https://xn--bcher-kva.example",
		"http://xn--bcher-kva.example":               "http://xn--bcher-kva.example",
		"https://EXAMPLE.com:443":                    "https://example.com",
		"HTTPS://Example.COM":                        "https://example.com",
		"http://example.com:80":                      "http://example.com",
		"http://example.com:443":                     "http://example.com:443",
		"https://example.com:8443/":                  "https://example.com:8443",
		"http://example.com:0080":                    "http://example.com",
		"https://example.com.":                       "https://example.com",
		"https://example.com.:443":                   "https://example.com",
		"  https://example.com  ":                    "https://example.com",
		"http://127.0.0.1:8080":                      "http://127.0.0.1:8080",
		"http://[::1]:9000":                          "http://[::1]:9000",
		"http://[0:0:0:0:0:0:0:1]":                   "http://[::1]",
		"http://localhost":                           "http://localhost",
		"https://my_host.example":                    "https://my_host.example",
		"https://r3---sn-apo3qvuoxuxbt-j5pe.example": "https://r3---sn-apo3qvuoxuxbt-j5pe.example",
	} {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, says := range map[string]string{
		"http://user@x.example":       "user name",
		"https://u:p@x.example":       "user name",
		"http://x.example/path":       "path",
		"https://x.example/cart?id=1": "path",
		"https://x.example?x=1":       "query",
		"https://x.example/#top":      "fragment",
		"https://*.example":           "wildcard",
		"*":                           "not an http(s) origin",
		"ftp://x.example":             "not an http(s) origin",
		"file:///etc":                 "not an http(s) origin",
		"x.example":                   "not an http(s) origin",
		"":                            "not an http(s) origin",
		"https://.":                   "host is empty",
		"https://x.example:99999":     "not a port",
		"https://xn--a.example":       "not a valid host name",
		"mailto:someone@example.com":  "not an http(s) origin",
	} {
		got, err := Parse(in)
		if err == nil {
			t.Errorf("Parse(%q) = %q, accepted", in, got)
			continue
		}
		if e := abi.AsError(err); e == nil || e.Code != abi.CodeInputInvalid || !strings.Contains(err.Error(), says) {
			t.Errorf("Parse(%q): %v; want input_invalid saying %q", in, err, says)
		}
	}
	// The refusal of more than an origin names the origin to write.
	if _, err := Parse("http://user@Bücher.example:80/path"); err == nil || !strings.Contains(err.Error(), "write http://xn--bcher-kva.example") {
		t.Errorf("refusal does not name the fix: %v", err)
	}
}

// TestOf: a page URL's origin drops what follows the host; anything but
// http(s) is Opaque, which no parsed origin equals.
func TestOf(t *testing.T) {
	for in, want := range map[string]string{
		"https://example.org/a?b#c":             "https://example.org",
		"http://127.0.0.1:80/x":                 "http://127.0.0.1",
		"https://user:pw@Example.org:443/login": "https://example.org",
		"http://xn--bcher-kva.example/katalog":  "http://xn--bcher-kva.example",
		"http://bücher.example/katalog":         "http://xn--bcher-kva.example",
		"https://example.com./":                 "https://example.com",
		"about:blank":                           Opaque,
		"data:text/html,x":                      Opaque,
		"about:srcdoc":                          Opaque,
		"":                                      Opaque,
		"chrome-error://chromewebdata/":         Opaque,
	} {
		if got := Of(in); got != want {
			t.Errorf("Of(%q) = %q, want %q", in, got, want)
		}
	}
	if _, err := Parse(Opaque); err == nil {
		t.Error("the opaque origin parsed as an origin")
	}
}
