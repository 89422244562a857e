package secretmask_test

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
	plugin(t)
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
					got := mask(t, doc, secrets...)
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
	plugin(t)
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
		got := mask(t, s, "püß wort")
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
	if got := mask(t, "echo: pÃ¼ÃŸ wort", "püß wort"); got != "echo: "+Mask {
		t.Errorf("UTF-8 read as windows-1252: %q", got)
	}
}

// TestASCIIValuesPayNoCharsetCost: an ASCII value has no legacy forms but
// its UTF-16 ones (the count is a Rust test: ascii_values_have_two_forms).
func TestASCIIValuesPayNoCharsetCost(t *testing.T) {
	plugin(t)
	if got := mask(t, "a=h%00u%00n%00t%00e%00r%002%002%00", "hunter22"); got != "a="+Mask {
		t.Errorf("UTF-16LE percent form: %q", got)
	}
}

// TestMaskerForNewValues: a masker built for one set of values is not used
// for another (the reuse itself is a Rust test: masker_reused_for_same_values).
func TestMaskerForNewValues(t *testing.T) {
	plugin(t)
	if got := mask(t, "x one-value twö", "one-value", "twö"); got != "x "+Mask+" "+Mask {
		t.Fatalf("first set: %q", got)
	}
	if got := mask(t, "x one-value\x00twö", "one-value\x00twö"); got != "x "+Mask {
		t.Errorf("new values reused the old masker: %q", got)
	}
}
