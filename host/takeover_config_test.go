package host

import (
	"slices"
	"testing"

	"github.com/wasmwright/wasmwright/hostfuncs/operator"
)

// TestTakeoverViaIsOptIn: [personalities.P.takeover] via defaults to the
// console only (no link to the agent's client); "client" is accepted only
// when named; an unknown or repeated way is refused naming the key, and so
// is an approval.client_grants other than session or persist.
func TestTakeoverViaIsOptIn(t *testing.T) {
	cfg, err := ParseConfig("[personalities.p]\n[personalities.q.takeover]\nvia = [\"console\", \"client\"]\n[personalities.r.approval]\nact = \"ask\"\nvia = [\"client\"]\nclient_grants = \"persist\"\n", "t.toml", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if via := cfg.Personalities["p"].takeoverVia(); !slices.Equal(via, []string{operator.ViaConsole}) {
		t.Fatalf("default takeover.via = %v, want the console only", via)
	}
	if via := cfg.Personalities["q"].takeoverVia(); !slices.Contains(via, operator.ViaClient) {
		t.Fatalf("takeover.via naming client: %v", via)
	}
	r := cfg.Personalities["r"]
	if r.Approval.ClientGrants != ClientGrantsPersist || !r.clientApproves() || r.approvalMode("act") != ModeAsk {
		t.Fatalf("approval table: %+v", r.Approval)
	}
	if cfg.Personalities["p"].clientApproves() {
		t.Fatal("a personality that names no client lets its client approve")
	}
	refused(t, []configCase{
		{"[personalities.p.takeover]\nvia = [\"clinet\"]\n", `personalities.p.takeover.via: unknown way "clinet"`},
		{"[personalities.p.takeover]\nvia = [\"client\", \"client\"]\n", `personalities.p.takeover.via names "client" twice`},
		{"[personalities.p.takeover]\nvias = [\"client\"]\n", "unknown key personalities.p.takeover.vias"},
		{"[personalities.p.approval]\nclient_grants = \"forever\"\n", `personalities.p.approval.client_grants = "forever": use "session"`},
	})
}
