package main

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/internal/secretforms"
)

// legacyPercent writes bs as a browser's GET form does: ASCII letters and
// digits raw, a space as +, every other byte %HH (upper case, or lower).
func legacyPercent(bs []byte, lower bool) string {
	var b strings.Builder
	for _, c := range bs {
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("*-._", c) >= 0:
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		case lower:
			fmt.Fprintf(&b, "%%%02x", c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// TestLegacyCharsetForms: a non-ASCII password submitted by a form in a
// legacy charset page reaches URLs, snapshots and network logs as that
// charset's bytes percent-encoded, or as a percent-encoded &#NNN; for a
// character the charset lacks. Every such form is masked.
func TestLegacyCharsetForms(t *testing.T) {
	secrets := []string{"Grüße pässwort", "пароль Ёж", "パスワード秘密", "密码安全", "密碼安全", "비밀번호", "naïve€"}
	m := newMasker(secrets)
	for _, v := range secrets {
		for _, cs := range secretforms.FormCharsets {
			bs, ok := secretforms.Encode(cs, v)
			if !ok {
				t.Fatalf("%s: cannot encode %q", cs, v)
			}
			for _, lower := range []bool{false, true} {
				enc := legacyPercent(bs, lower)
				for name, doc := range map[string]string{
					"url":      "http://127.0.0.1/login?user=ada&pw=" + enc + "&go=1",
					"twice":    "next=" + url.QueryEscape("/login?pw="+enc),
					"netlog":   `GET /login?pw=` + enc + ` 200`,
					"base64":   "body " + base64.StdEncoding.EncodeToString(append([]byte("<p>you typed "), bs...)),
					"hex":      "bytes " + hex.EncodeToString(bs),
					"HEXUPPER": "bytes " + strings.ToUpper(hex.EncodeToString(bs)),
				} {
					got := m.mask(doc)
					if !strings.Contains(got, Mask) {
						t.Errorf("%s %s (lower %v): %q not masked: %q", cs, name, lower, v, got)
						continue
					}
					if name == "url" || name == "netlog" {
						if strings.Contains(got, enc) || !strings.Contains(got, "pw="+Mask) {
							t.Errorf("%s %s: %q left a trace: %q", cs, name, v, got)
						}
					}
				}
			}
		}
	}
}

// TestLegacyCharsetExactForms pins the forms Chromium was seen to submit
// (hostfuncs/browser TestLegacyCharsetFormsMasked drives it for real).
func TestLegacyCharsetExactForms(t *testing.T) {
	m := newMasker([]string{"püß wort"})
	for _, s := range []string{
		"?pw=p%FC%DF+wort",                                 // windows-1252 / ISO-8859-1
		"?pw=p%fc%df+wort",                                 // lower-case hex
		"?pw=p%FC%DF%20wort",                               // %20 for the space
		"?pw=p%26%23252%3B%26%23223%3B+wort",               // Shift_JIS, KOI8-R: no ü or ß
		"?pw=p%26%23252%3B%26%23223%3B%2Bwort",             // the + encoded again
		"?pw=p%2526%2523252%253B%2526%2523223%253B%2Bwort", // all of it twice
		"?pw=p&#252;&#223; wort",                           // the references unencoded
		"?pw=p%A8%B9%A6%C1+wort",                           // not this value: stays
	} {
		got := m.mask(s)
		if strings.Contains(s, "%A8") {
			if got != s {
				t.Errorf("an unrelated value was masked: %q", got)
			}
			continue
		}
		if got != "?pw="+Mask {
			t.Errorf("%q masked to %q", s, got)
		}
	}
	// Text a wrong decoder made of the bytes.
	if got := m.mask("echo: pÃ¼ÃŸ wort"); got != "echo: "+Mask {
		t.Errorf("UTF-8 read as windows-1252: %q", got)
	}
}

// TestASCIIValuesPayNoCharsetCost: an ASCII value has no legacy forms but
// its UTF-16 ones, so the masker does no more work per byte for it.
func TestASCIIValuesPayNoCharsetCost(t *testing.T) {
	m := newMasker([]string{"hunter22"})
	if len(m.bforms) != 2 || len(m.runes) != 1 {
		t.Fatalf("forms for an ASCII value: %d byte forms, %d values", len(m.bforms), len(m.runes))
	}
	if got := m.mask("a=h%00u%00n%00t%00e%00r%002%002%00"); got != "a="+Mask {
		t.Errorf("UTF-16LE percent form: %q", got)
	}
}

// TestMaskerReusedForSameValues: the masker is built once per set of
// values, and rebuilt when the set changes.
func TestMaskerReusedForSameValues(t *testing.T) {
	a := maskerFor([]string{"one-value", "twö"})
	if b := maskerFor([]string{"one-value", "twö"}); a != b {
		t.Error("the same values built a new masker")
	}
	c := maskerFor([]string{"one-value\x00twö"})
	if c == a || c.mask("x one-value\x00twö") != "x "+Mask {
		t.Error("new values reused the old masker")
	}
}
