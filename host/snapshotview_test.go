package host

import (
	"strings"
	"testing"
)

func TestBaselinesBounded(t *testing.T) {
	b := baselines{max: 2}
	for _, s := range []string{"a", "b", "c"} {
		b.put(sessionKey{"p", s}, baseline{snapshot: "snap " + s})
	}
	if _, ok := b.get(sessionKey{"p", "a"}); ok {
		t.Fatal("the least recently used session was kept past max")
	}
	if s, ok := b.get(sessionKey{"p", "c"}); !ok || s.snapshot != "snap c" {
		t.Fatalf("the newest session's baseline is %q, %v", s, ok)
	}
	b.forget(sessionKey{"p", "c"})
	if _, ok := b.get(sessionKey{"p", "c"}); ok || len(b.order) != 1 {
		t.Fatalf("forget left the baseline (order %v)", b.order)
	}
	b.put(sessionKey{"p", "big"}, baseline{snapshot: strings.Repeat("x", maxBaseline+1)})
	if _, ok := b.get(sessionKey{"p", "big"}); ok {
		t.Fatal("a snapshot over maxBaseline was kept")
	}
}
