package secretforms

import (
	"bytes"
	"testing"
)

// The byte forms are the ones the HTML standard's encoders give (checked
// against Chromium's own submissions in hostfuncs/browser).
func TestCharsets(t *testing.T) {
	const v = "pä ü€ßあ"
	want := map[string][]byte{
		"windows-1252": []byte("p\xe4 \xfc\x80\xdf&#12354;"),
		"shift_jis":    []byte("p&#228; &#252;&#8364;&#223;\x82\xa0"),
		"euc-jp":       []byte("p&#228; &#252;&#8364;&#223;\xa4\xa2"),
		"iso-2022-jp":  []byte("p&#228; &#252;&#8364;&#223;\x1b$B$\"\x1b(B"),
		"koi8-r":       []byte("p&#228; &#252;&#8364;&#223;&#12354;"),
		"utf-16le":     []byte("p\x00\xe4\x00 \x00\xfc\x00\xac\x20\xdf\x00\x42\x30"),
	}
	all := Charsets(v)
	for name, w := range want {
		got, ok := Encode(name, v)
		if !ok || !bytes.Equal(got, w) {
			t.Errorf("%s: got %q, want %q", name, got, w)
		}
		found := false
		for _, f := range all {
			found = found || bytes.Equal(f, w)
		}
		if !found {
			t.Errorf("Charsets lacks the %s form %q", name, w)
		}
	}
	for _, f := range all {
		if bytes.Equal(f, []byte(v)) {
			t.Error("Charsets repeats the UTF-8 form")
		}
	}
	if got := Charsets("plain ascii"); len(got) != 2 {
		t.Errorf("an ASCII value has only its two UTF-16 forms, got %q", got)
	}
}

func TestMisdecoded(t *testing.T) {
	got := Misdecoded("pü")
	has := func(s string) bool {
		for _, g := range got {
			if g == s {
				return true
			}
		}
		return false
	}
	if !has("pÃ¼") {
		t.Errorf("UTF-8 read as windows-1252 missing: %q", got)
	}
	if Misdecoded("ascii") != nil {
		t.Error("an ASCII value reads the same everywhere")
	}
}
