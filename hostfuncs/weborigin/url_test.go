package weborigin

import (
	"errors"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
)

// ParseURL reads an http(s) URL as a browser does (slashes after the
// scheme's colon, however many, are its "//"), and says which mistakes are
// the caller's (input_invalid) and which schemes are refused.
func TestParseURLReadsAsABrowserDoes(t *testing.T) {
	for raw, want := range map[string]string{
		"http:127.0.0.1/":          "http://127.0.0.1/",
		"http:/127.0.0.1/":         "http://127.0.0.1/",
		`http:\\127.0.0.1/a`:       "http://127.0.0.1/a",
		"HTTPS:///x.test/p?q=1":    "https://x.test/p?q=1",
		" https://x.test/p?q=1#f ": "https://x.test/p?q=1#f",
		"http://:123/":             "http://:123/", // the policy refuses it: no host name
	} {
		u, err := ParseURL(raw)
		if err != nil || u.String() != want {
			t.Errorf("ParseURL(%q) = %v, %v; want %s", raw, u, err, want)
		}
	}
	for raw, code := range map[string]abi.Code{
		"x.test/page":         abi.CodeInputInvalid, // no scheme
		"http://":             abi.CodeInputInvalid, // no host
		"http:":               abi.CodeInputInvalid,
		"http://[]":           abi.CodeInputInvalid, // does not parse
		"file:///etc/passwd":  abi.CodeRefused,
		"javascript:alert(1)": abi.CodeRefused,
		"ftp://x.test/":       abi.CodeRefused,
	} {
		_, err := ParseURL(raw)
		var e *abi.Error
		if !errors.As(err, &e) || e.Code != code {
			t.Errorf("ParseURL(%q): %v, want %s", raw, err, code)
		}
	}
}
