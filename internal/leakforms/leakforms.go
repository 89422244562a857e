// Package leakforms writes a value the ways a page, a URL or an echo can
// carry it character by character, for the secret masker's tests and its
// benchmark: HTML character references and JSON \u escapes (a character
// beyond the BMP as its UTF-16 surrogate pair); and finds a value back in
// a result, through any decoding (Found).
package leakforms

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"strings"
)

// HTMLRefs is v as decimal (&#233;) and as hexadecimal (&#xe9;)
// character references, the hex digits upper-case when upper is set.
func HTMLRefs(v string, upper bool) (dec, hex string) {
	var d, h strings.Builder
	hf := "&#x%x;"
	if upper {
		hf = "&#x%X;"
	}
	for _, c := range v {
		fmt.Fprintf(&d, "&#%d;", c)
		fmt.Fprintf(&h, hf, c)
	}
	return d.String(), h.String()
}

// JSONEscapes is v as JSON \u escapes, one per UTF-16 unit, the hex
// digits upper-case when upper is set.
func JSONEscapes(v string, upper bool) string {
	var b strings.Builder
	f := `\u%04x`
	if upper {
		f = `\u%04X`
	}
	for _, c := range v {
		if c < 0x10000 {
			fmt.Fprintf(&b, f, c)
		} else {
			c -= 0x10000
			fmt.Fprintf(&b, f+f, 0xD800+(c>>10), 0xDC00+(c&0x3FF))
		}
	}
	return b.String()
}

// Found is how v can be read back from s ("" when it cannot): raw, or
// through any decoding an attacker might apply (URL, nested URL, HTML,
// JSON, hex, any base64 run at any of its offsets).
func Found(s, v string) string {
	if strings.Contains(s, v) {
		return "raw"
	}
	if u, err := url.QueryUnescape(s); err == nil && strings.Contains(u, v) {
		return "url"
	}
	if u, err := url.PathUnescape(s); err == nil && strings.Contains(u, v) {
		return "url-path"
	}
	// Nested URL encoding: unescape again and again.
	for u, i := s, 0; i < 4; i++ {
		next, err := url.QueryUnescape(u)
		if err != nil || next == u {
			break
		}
		if strings.Contains(next, v) {
			return "url-nested"
		}
		u = next
	}
	if strings.Contains(html.UnescapeString(s), v) {
		return "html"
	}
	var js string
	if json.Unmarshal([]byte(`"`+s+`"`), &js) == nil && strings.Contains(js, v) {
		return "json"
	}
	h := hex.EncodeToString([]byte(v))
	if strings.Contains(strings.ToLower(s), h) {
		return "hex"
	}
	// Every run of base64 characters, decoded at each of its 4 offsets.
	isB := func(c byte) bool {
		return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_'
	}
	for i := 0; i < len(s); {
		if !isB(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isB(s[j]) {
			j++
		}
		run := s[i:j]
		for off := 0; off < 4 && off < len(run); off++ {
			r := run[off:]
			r = r[:len(r)/4*4]
			for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
				if b, err := enc.DecodeString(r); err == nil && bytes.Contains(b, []byte(v)) {
					return "base64"
				}
			}
		}
		i = j
	}
	return ""
}

// Strings lists every string of a decoded JSON document v: its strings,
// its keys and its numbers decoded as json.Number.
func Strings(v any) []string {
	var out []string
	allStrings(v, &out)
	return out
}

func allStrings(v any, out *[]string) {
	switch x := v.(type) {
	case string:
		*out = append(*out, x)
	case []any:
		for _, e := range x {
			allStrings(e, out)
		}
	case map[string]any:
		for k, e := range x {
			*out = append(*out, k)
			allStrings(e, out)
		}
	case json.Number:
		*out = append(*out, string(x))
	}
}
