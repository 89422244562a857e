package leakforms

import "testing"

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
