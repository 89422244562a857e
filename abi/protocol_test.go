package abi

import (
	"strings"
	"testing"
)

// The browser protocol is versioned apart from the core ABI: a plugin
// declaring a newer minor or another major of it, or a family the host does
// not know, is refused with what to do; an older minor or none is accepted.
func TestAcceptProtocols(t *testing.T) {
	host := Protocols()
	if host[ProtocolBrowser] != (ABIVersion{BrowserVersionMajor, BrowserVersionMinor}) {
		t.Fatalf("host protocols %v", host)
	}
	for _, tc := range []struct {
		declared map[string]ABIVersion
		want     string
	}{
		{nil, ""},
		{map[string]ABIVersion{"browser": {1, 0}}, ""},
		{map[string]ABIVersion{"browser": {1, 9}}, "upgrade wasmwright"},
		{map[string]ABIVersion{"browser": {2, 0}}, "rebuild the plugin"},
		{map[string]ABIVersion{"teleport": {1, 0}}, "does not know"},
	} {
		err := AcceptProtocols(host, tc.declared)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%v: got %v, want %q", tc.declared, err, tc.want)
		}
	}
	m := Manifest{Protocols: map[string]ABIVersion{"browser": {1, 0}}}
	c := m.Clone()
	c.Protocols["browser"] = ABIVersion{9, 9}
	if m.Protocols["browser"].Major != 1 {
		t.Fatal("Clone shares the protocols map")
	}
}
