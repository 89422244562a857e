// Package weborigin writes a web origin one way for every comparison the
// host makes (grants, approvals, the vault's allowed origins, the origin
// an approved call was judged for): scheme://host[:port], the scheme and
// host in lower case, the host in ASCII (an internationalised name in
// punycode, as Chromium reports a page's URL), no trailing dot, no
// default port. Two spellings of one origin then compare equal, and an
// origin an operator typed in Unicode matches the page the browser is on:
// a grant stored as http://bücher.example used to match nothing.
package weborigin

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/idna"

	"github.com/wasmwright/wasmwright/abi"
)

// Opaque is the origin of a page that has none a grant can name
// (about:blank, data:, a srcdoc frame): it equals no origin Parse returns.
const Opaque = "null"

// hostProfile maps a host name as the WHATWG URL standard does (UTS #46,
// non-transitional, no STD3 rules, no hyphen checks), which is what
// Chromium does before it shows a URL: names such as my_host.example or
// r3---sn-x.example stay valid, bücher.example becomes
// xn--bcher-kva.example. idna.Lookup would refuse the first two.
var hostProfile = idna.New(idna.MapForLookup(), idna.BidiRule(), idna.Transitional(false),
	idna.StrictDomainName(false), idna.CheckHyphens(false), idna.VerifyDNSLength(false))

// Parse checks an origin someone wrote (a grant, a credential's allowed
// origin, a config entry) and returns it normalised. It is input_invalid,
// with the fix, unless it is http(s)://host[:port] with at most a "/"
// after it: a user name, a path, a query or a fragment would be dropped
// without a word otherwise, and a wildcard is never an origin.
func Parse(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	u, err := url.Parse(s)
	if err != nil || u.Opaque != "" || u.Host == "" || (!strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https")) {
		return "", abi.Errorf(abi.CodeInputInvalid, "%q is not an http(s) origin: write it as https://host[:port]", raw)
	}
	if strings.ContainsAny(u.Hostname(), "*?") {
		return "", abi.Errorf(abi.CodeInputInvalid, "%q: an origin names one host, never a wildcard: list each origin", raw)
	}
	o, err := serialize(u)
	if err != nil {
		return "", abi.Errorf(abi.CodeInputInvalid, "%q: %v: write it as https://host[:port]", raw, err)
	}
	var extra string
	switch {
	case u.User != nil:
		extra = "a user name (user@)"
	case u.Path != "" && u.Path != "/":
		extra = "a path (" + u.Path + ")"
	case u.RawQuery != "" || u.ForceQuery:
		extra = "a query (?" + u.RawQuery + ")"
	case u.Fragment != "" || strings.HasSuffix(s, "#"):
		extra = "a fragment (#" + u.Fragment + ")"
	}
	if extra != "" {
		return "", abi.Errorf(abi.CodeInputInvalid, "%q has %s: an origin is only scheme://host[:port]; write %s", raw, extra, o)
	}
	return o, nil
}

// Of is the origin of a page or frame URL, as the browser reports it: its
// path, query and fragment are not part of it. It is Opaque for anything
// but an http(s) URL with a valid host.
func Of(rawURL string) string {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || u.Opaque != "" || u.Host == "" || (!strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https")) {
		return Opaque
	}
	o, err := serialize(u)
	if err != nil {
		return Opaque
	}
	return o
}

// serialize writes u's origin; u is an http(s) URL with a host.
func serialize(u *url.URL) (string, error) {
	scheme := strings.ToLower(u.Scheme)
	host, err := Host(u.Hostname())
	if err != nil {
		return "", err
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if p := u.Port(); p != "" {
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil {
			return "", fmt.Errorf("port %s is not a port (0-65535)", p)
		}
		if !(scheme == "http" && n == 80) && !(scheme == "https" && n == 443) {
			host += ":" + strconv.FormatUint(n, 10)
		}
	}
	return scheme + "://" + host, nil
}

// Host normalises a host name or IP address (without brackets or port):
// an IP in its canonical form, a name in lower-case ASCII (punycode)
// without its trailing dot.
func Host(h string) (string, error) {
	if ip, err := netip.ParseAddr(h); err == nil {
		return ip.String(), nil
	}
	name := strings.TrimSuffix(h, ".")
	if name == "" {
		return "", errors.New("the host is empty")
	}
	a, err := hostProfile.ToASCII(name)
	if err != nil || a == "" || strings.HasSuffix(a, ".") {
		return "", fmt.Errorf("host %q is not a valid host name", h)
	}
	return strings.ToLower(a), nil
}
