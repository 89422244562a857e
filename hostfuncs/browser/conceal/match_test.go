package conceal

import (
	"reflect"
	"testing"
)

// TestSecretMatcher: which elements the Go side picks from what a frame
// returned.
func TestSecretMatcher(t *testing.T) {
	m := newSecretMatcher([]string{"hunter 22", "Pässwort"})
	fs := &frameScan{items: []captureItem{
		{el: 0, root: 0, text: "Welcome "},
		{el: 1, root: 0, text: "hun"},       // the value split over elements
		{el: 2, root: 0, text: "ter 22!"},   // ...
		{el: 3, root: 0, text: "unrelated"}, // no part of it
		{el: 4, root: 1, text: "shadow: hunter 22"},
		{el: 5, kind: 1, text: "x hunter 22 y"},                  // a field holding it
		{el: 6, kind: 1, text: "hunter"},                         // a field holding a part only
		{el: 7, kind: 2, text: "anything"},                       // a filled password field
		{el: 8, root: 2, text: "url: /login?pw=P%E4sswort&go=1"}, // windows-1252, percent-encoded
		{el: 9, root: 3, text: "url: /login?pw=hunter%2022"},
		{el: 10, root: 4, text: "mojibake PÃ¤sswort"},
		{el: 11, root: 5, text: "shift_jis P%26%23228%3bsswort"},
		{el: 12, root: 6, text: "hunter 2"},
		{el: 13, root: 7, text: "HUNTER\n\t\u00a022"}, // other case, source white space
		{el: 14, root: 8, kind: 1, text: "Päss"},      // one box per part
		{el: 15, root: 8, kind: 1, text: "wo"},
		{el: 16, root: 8, kind: 1, text: "rt"},
		{el: 17, root: 9, text: "Päss wort"}, // shown in groups
		{el: 18, root: 10, text: "label"},
		{el: 19, root: 10, kind: 1, text: "hunter"}, // a field does not join the text around it
		{el: 20, root: 10, text: " 22"},
	}}
	got := m.match(fs, false)
	want := []int{1, 2, 4, 5, 7, 8, 9, 10, 11, 13, 14, 15, 16, 17}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("hide %v, want %v", got, want)
	}
	// After hiding, only what is still shown counts.
	for i := range fs.items {
		fs.items[i].shown = fs.items[i].el == 4
	}
	if got := m.match(fs, true); !reflect.DeepEqual(got, []int{4}) {
		t.Fatalf("still shown %v, want [4]", got)
	}
}
