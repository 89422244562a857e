package weborigin

import (
	"net/url"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
)

// ParseURL reads a URL an agent or a plugin asked to open or fetch, the
// one parser browser_navigate and web_fetch share, so one text gets one
// answer from both. It reads http and https URLs as a browser does: any
// run of slashes and backslashes after the scheme's colon is the "//"
// (http:127.0.0.1/, http:/x.test and http:\\x.test are http://127.0.0.1/,
// http://x.test...), which Go's url.Parse would read as a URL without a
// host. Text that is not a URL, has no scheme or has no host is the
// caller's mistake (input_invalid, with the fix); another scheme (file:,
// data:, javascript:...) is refused. The policy (hosts, addresses,
// ports, credentials) is the caller's next check, on the URL returned.
func ParseURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	shown := capped(raw)
	if scheme, rest, ok := strings.Cut(raw, ":"); ok && (strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https")) {
		raw = scheme + "://" + strings.TrimLeft(rest, `/\`)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, abi.Errorf(abi.CodeInputInvalid, "%q is not a URL: %v: pass a full http or https URL", shown, err)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return nil, abi.Errorf(abi.CodeInputInvalid, "%q has no scheme: write the full URL, e.g. https://%s", shown, shown)
	default:
		return nil, abi.Errorf(abi.CodeRefused, "%s: URLs are refused: only http and https pages can be opened", u.Scheme).With("scheme", u.Scheme)
	}
	if u.Host == "" {
		return nil, abi.Errorf(abi.CodeInputInvalid, "%q has no host: write the full URL, e.g. https://example.org/", shown)
	}
	return u, nil
}

// capped shortens what an error quotes of a URL.
func capped(s string) string {
	if len(s) <= 200 {
		return s
	}
	return s[:200] + "..."
}
