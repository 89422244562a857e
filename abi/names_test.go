package abi

import "testing"

func TestValidID(t *testing.T) {
	for s, want := range map[string]bool{
		"agent": true, "web_fetch": true, "page-title": true, "P2": true,
		"": false, "a b": false, "a.b": false, "a/b": false, "naïve": false, "x\n": false,
	} {
		if got := ValidID(s); got != want {
			t.Errorf("ValidID(%q) = %v, want %v", s, got, want)
		}
	}
}
