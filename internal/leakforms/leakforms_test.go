package leakforms

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestForms(t *testing.T) {
	const v = "aé😀" // ASCII, a BMP letter, a character beyond the BMP
	if dec, hex := HTMLRefs(v, false); dec != "&#97;&#233;&#128512;" || hex != "&#x61;&#xe9;&#x1f600;" {
		t.Errorf("HTMLRefs lower: %q %q", dec, hex)
	}
	if _, hex := HTMLRefs(v, true); hex != "&#x61;&#xE9;&#x1F600;" {
		t.Errorf("HTMLRefs upper: %q", hex)
	}
	if js := JSONEscapes(v, false); js != `\u0061\u00e9\ud83d\ude00` {
		t.Errorf("JSONEscapes lower: %q", js)
	}
	if js := JSONEscapes(v, true); js != `\u0061\u00E9\uD83D\uDE00` {
		t.Errorf("JSONEscapes upper: %q", js)
	}
}

func TestFound(t *testing.T) {
	const v = "s3cret-é"
	dec, _ := HTMLRefs(v, false)
	for s, want := range map[string]string{
		"a " + v + " b":                     "raw",
		"q=s3cret-%C3%A9":                   "url",
		"q=s3cret-%25C3%25A9":               "url-nested",
		"<p>" + dec + "</p>":                "html",
		"k " + JSONEscapes(v, true):         "json",
		"x" + hex.EncodeToString([]byte(v)): "hex",
		"tok." + base64.RawURLEncoding.EncodeToString([]byte("ab"+v+"c")) + ".sig": "base64",
		"s3cret- s3cret-e": "",
	} {
		if got := Found(s, v); got != want {
			t.Errorf("Found(%q) = %q, want %q", s, got, want)
		}
	}
	var doc any
	json.Unmarshal([]byte(`{"a":["x",{"b":"y"}],"n":1}`), &doc)
	if got := strings.Join(slices.Sorted(slices.Values(Strings(doc))), ","); got != "a,b,n,x,y" {
		t.Errorf("Strings = %q, want a,b,n,x,y (keys and strings; numbers only as json.Number)", got)
	}
}
