// Package leakforms writes a value the ways a page, a URL or an echo can
// carry it character by character, for the secret masker's tests and its
// benchmark: HTML character references and JSON \u escapes (a character
// beyond the BMP as its UTF-16 surrogate pair).
package leakforms

import (
	"fmt"
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
