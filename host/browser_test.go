package host

import (
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
)

// The browser refuses, before loading, what network.CheckURL refuses:
// a URL that parses is refused (credentials, a bad port), as web_fetch
// refuses it; only text that does not parse is invalid input.
func TestCheckBrowserURL(t *testing.T) {
	for _, tc := range []struct {
		url  string
		code abi.Code
	}{
		{"https://example.org/path?q=1", ""},
		{"http://127.0.0.1:8080/", ""},
		{"https://user:secret@example.org/", abi.CodeRefused},
		{"http://example.org:99999/", abi.CodeRefused},
		{"http://exa mple.org/", abi.CodeInputInvalid},
		{"http://[::1/", abi.CodeInputInvalid},
	} {
		err := checkBrowserURL(tc.url)
		if tc.code == "" {
			if err != nil {
				t.Errorf("%s: refused: %v", tc.url, err)
			}
			continue
		}
		e := abi.AsError(err)
		if err == nil || e.Code != tc.code {
			t.Errorf("%s: want %s, got %v", tc.url, tc.code, err)
			continue
		}
		if tc.code == abi.CodeRefused && strings.Contains(e.Message, "secret") {
			t.Errorf("%s: the message repeats the credentials: %s", tc.url, e.Message)
		}
	}
}
