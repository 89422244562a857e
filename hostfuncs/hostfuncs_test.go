package hostfuncs

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/capability"
)

// transcript runs a host function as a plugin would and renders the call
// and its outcome in one line, wazero style.
func transcript(t *testing.T, c *Caller, fn func(context.Context, string, []byte) ([]byte, error), req string) string {
	t.Helper()
	ctx := context.Background()
	if c != nil {
		ctx = WithCaller(ctx, c)
	}
	out, err := fn(ctx, "p", []byte(req))
	if err != nil {
		var e *abi.Error
		if !errors.As(err, &e) {
			t.Fatalf("host functions must return *abi.Error, got %T", err)
		}
		return "<== " + string(e.Code) + ": " + e.Message
	}
	return "<== " + string(out)
}

func TestGrantCheckedAtCallTime(t *testing.T) {
	sink := &MemorySink{}
	ev := Events(sink).Fn
	granted := NewCaller(CallerInfo{Personality: "dev", Session: "s", Grants: capability.Set{capability.Events: true}})
	bare := NewCaller(CallerInfo{Personality: "locked", Session: "s", Grants: capability.Set{}})
	for _, c := range []struct {
		caller *Caller
		req    string
		want   string
	}{
		{granted, `{"kind":"k","data":{"a":1}}`, `<== {}`},
		{bare, `{"kind":"k"}`, `<== refused: plugin p is not granted events (needed by ww_events_emit) under personality locked: add it to the personality's grants`},
		{nil, `{"kind":"k"}`, `<== refused: host function ww_events_emit called without a caller identity`},
		{granted, `{"kind":""}`, `<== input_invalid: event kind is empty`},
		{granted, `{"kind":`, `<== input_invalid: ww_events_emit: bad request: unexpected end of JSON input`},
	} {
		if got := transcript(t, c.caller, ev, c.req); got != c.want {
			t.Errorf("==> ww_events_emit(%s)\ngot  %s\nwant %s", c.req, got, c.want)
		}
	}
	if evs := sink.Snapshot(); len(evs) != 1 || evs[0].Personality != "dev" || string(evs[0].Data) != `{"a":1}` {
		t.Fatalf("events: %+v", evs)
	}
	// A plugin cannot fill the disk through the event log.
	big := `{"kind":"k","data":"` + strings.Repeat("x", MaxEventBytes) + `"}`
	if got := transcript(t, granted, ev, big); !strings.HasPrefix(got, "<== resource_limit: event of") {
		t.Fatalf("big event: %s", got)
	}
	flood := NewCaller(CallerInfo{Personality: "dev", Session: "s", Grants: capability.Set{capability.Events: true}})
	for i := 0; i < MaxEventsPerCall; i++ {
		if got := transcript(t, flood, ev, `{"kind":"k"}`); got != "<== {}" {
			t.Fatalf("event %d: %s", i, got)
		}
	}
	if got := transcript(t, flood, ev, `{"kind":"k"}`); !strings.HasPrefix(got, "<== resource_limit: more than 256 events") {
		t.Fatalf("flood: %s", got)
	}
}

func TestMaskValuesOnlyForTheCallersSession(t *testing.T) {
	s := NewSecrets()
	s.Add("dev", "s1", "hunter2")
	s.Add("dev", "s1", "correct horse")
	s.Add("dev", "s1", "x") // too short to mask
	s.Add("dev", "s2", "other")
	fn := s.MaskValues().Fn
	c := NewCaller(CallerInfo{Personality: "dev", Session: "s1", Grants: capability.Set{capability.SecretsMask: true}, Hook: abi.HookMask})
	got := transcript(t, c, fn, `{"session":"s1"}`)
	if got != `<== {"values":["correct horse","hunter2"]}` {
		t.Fatalf("got %s", got)
	}
	if got := transcript(t, c, fn, `{"session":"s2"}`); !strings.HasPrefix(got, "<== refused: a masker may read only the session it masks") {
		t.Fatalf("cross-session read: %s", got)
	}
	// Granted, but running as a tool or another hook: no values.
	for _, role := range []abi.HookRole{"", abi.HookDetect, abi.HookCompact} {
		tool := NewCaller(CallerInfo{Personality: "dev", Session: "s1", Plugin: "p", Grants: capability.Set{capability.SecretsMask: true}, Hook: role})
		if got := transcript(t, tool, fn, `{}`); !strings.HasPrefix(got, "<== refused: plugin p asked for secret values outside a mask hook") {
			t.Fatalf("role %q: %s", role, got)
		}
	}
	noGrant := NewCaller(CallerInfo{Personality: "dev", Session: "s1", Grants: capability.Set{}, Hook: abi.HookMask})
	if got := transcript(t, noGrant, fn, `{}`); !strings.Contains(got, "not granted secrets.mask") {
		t.Fatalf("no grant: %s", got)
	}
	s.Forget("dev", "s1")
	if v := s.Values("dev", "s1"); len(v) != 0 {
		t.Fatalf("forgotten values remain: %v", v)
	}
}

func TestInfo(t *testing.T) {
	c := NewCaller(CallerInfo{Personality: "dev", Session: "s1", Grants: capability.Set{capability.Events: true}})
	var r abi.HostInfoResponse
	got := strings.TrimPrefix(transcript(t, c, Info().Fn, `{}`), "<== ")
	if err := json.Unmarshal([]byte(got), &r); err != nil || r.Personality != "dev" || r.Grants[0] != "events" || r.ABI != abi.Version() {
		t.Fatalf("%s", got)
	}
}

// No host function carries a held secret value out on a plugin's request,
// in the encodings a plugin would reach for first; the agent's own input
// may travel on.
func TestGuardRefusesSecretsOutbound(t *testing.T) {
	s := NewSecrets()
	s.Add("dev", "s1", "hunter2/ü")
	var ran int
	fn := Guard(abi.HostNetworkFetch, func(ctx context.Context, c *Caller, req []byte) ([]byte, error) {
		ran++
		return []byte(`{}`), nil
	}).Fn
	c := NewCaller(CallerInfo{Personality: "dev", Session: "s1", Plugin: "p", Grants: capability.Set{capability.Network: true}, Secrets: s})
	for _, req := range []string{
		`{"url":"http://x.test/","body":"hunter2/ü"}`,
		`{"url":"http://x.test/?p=hunter2%2F%C3%BC"}`,
		`{"url":"http://x.test/?p=hunter2%2f%c3%bc"}`,
		`{"url":"http://x.test/hunter2%2F%C3%BC"}`,
		`{"body":"` + base64.StdEncoding.EncodeToString([]byte("hunter2/ü")) + `"}`,
		`{"body":"68756e746572322fc3bc"}`,
	} {
		if got := transcript(t, c, fn, req); !strings.HasPrefix(got, "<== refused: plugin p asked ww_network_fetch to carry a secret value") {
			t.Errorf("%s: %s", req, got)
		}
	}
	if ran != 0 {
		t.Fatalf("the host function ran %d times", ran)
	}
	// Other sessions' values and plain requests pass; so does a value the
	// agent sent itself.
	other := *c
	other.session = "s2"
	if got := transcript(t, &other, fn, `{"body":"hunter2/ü"}`); got != "<== {}" {
		t.Fatalf("other session: %s", got)
	}
	echo := *c
	echo.agentInput = []byte(`{"text":"hunter2/ü"}`)
	if got := transcript(t, &echo, fn, `{"body":"hunter2/ü"}`); got != "<== {}" {
		t.Fatalf("agent's own value: %s", got)
	}
}

// The caller is sealed: a host function (of this package or another)
// reads who is calling through accessors and cannot change it, and
// NewCaller keeps its own copy of the grants.
func TestCallerIsSealed(t *testing.T) {
	ty := reflect.TypeOf(Caller{})
	for i := 0; i < ty.NumField(); i++ {
		if f := ty.Field(i); f.IsExported() {
			t.Errorf("Caller.%s is exported: any host function could change who is calling", f.Name)
		}
	}
	grants := capability.Set{capability.Events: true}
	c := NewCaller(CallerInfo{Personality: "dev", Grants: grants})
	grants[capability.Network] = true
	c.Grants()[capability.BrowserEval] = true
	if c.Has(capability.Network) || c.Has(capability.BrowserEval) || !c.Has(capability.Events) {
		t.Fatalf("the caller's grants changed from outside: %v", c.Grants().Sorted())
	}
}
