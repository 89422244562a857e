package browser

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/capability"
	"github.com/wasmwright/wasmwright/sandbox"
)

// TestEveryHostFunctionMeetsTheGate: the browser's host functions are
// exactly those the capability vocabulary grants for the browser (and
// vision), each declared once by its family with how it meets the gate;
// the ways off a withheld page are exactly navigate, history, tabs and
// dialog (widening that set lets a call run on a withheld page, so it is
// named here too), and they run marked as leaving; a declaration that
// names no gate gets the whole gate.
func TestEveryHostFunctionMeetsTheGate(t *testing.T) {
	s, err := New(Config{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(t.Context())
	gates := map[string]gateKind{}
	var leave []string
	for _, f := range declared(s) {
		if _, dup := gates[f.Name]; dup {
			t.Errorf("host function %s is declared twice", f.Name)
		}
		gates[f.Name] = f.gate
		if f.gate == gateLeave {
			leave = append(leave, f.Name)
		}
		if _, ok := capability.ForHostFunc(f.Name); !ok {
			t.Errorf("host function %s has no capability that grants it", f.Name)
		}
	}
	for _, fc := range capability.HostFuncs() {
		if name := fc[0]; strings.HasPrefix(name, "ww_browser_") || name == abi.HostVisionLocate {
			if _, ok := gates[name]; !ok {
				t.Errorf("%s is granted by %s but no browser family declares it", name, fc[1])
			}
		}
	}
	slices.Sort(leave)
	if want := []string{abi.HostBrowserDialog, abi.HostBrowserHistory, abi.HostBrowserNavigate, abi.HostBrowserTabs}; !slices.Equal(leave, want) {
		t.Errorf("the ways off a withheld page are %v, want %v", leave, want)
	}
	if (hostFunc{}).gate != gateTab {
		t.Errorf("a declaration naming no gate gets %v, want gateTab (the whole gate)", (hostFunc{}).gate)
	}
	var marked bool
	f := s.leaving(sandbox.HostFunc{Name: "ww_browser_way_off", Fn: func(ctx context.Context, _ string, _ []byte) ([]byte, error) {
		marked = ctx.Value(leavingKey{}) != nil
		return nil, nil
	}})
	if _, err := f.Fn(t.Context(), "p", nil); err != nil || !marked {
		t.Errorf("a way off a withheld page runs unmarked (err %v): onTab would refuse it there", err)
	}
}

// serviceSurface is every exported method of the browser service, by who
// may reach a page through it: a new method that reaches the browser must
// say here how it meets the gate.
//
//   - hostfuncs: the agent's way in; each host function passes the gate
//     (its family's hostFunc, TestEveryHostFunctionMeetsTheGate).
//   - gate: it checks the gate itself (a stored login fills, and an
//     approval describes, only a document judged clean).
//   - human: for a logged-in operator (and, where the console says so, a
//     takeover link's holder), never the agent: the console and the desk
//     decide who that is (operator.Actor).
//   - link: for a takeover link's holder, who is treated as the agent:
//     every frame concealed as the agent's screenshot is.
//   - nothing: no page content (sessions, lifecycle, config).
var serviceSurface = map[string]string{
	"HostFuncs":           "hostfuncs",
	"BeginCredentialFill": "gate",
	"Bind":                "gate",
	"Screencast":          "human",
	"ScreencastConcealed": "link",
	"Input":               "human",
	"OperatorSessions":    "human",
	"Raise":               "human",
	"SetDriving":          "human",
	"HandedBack":          "human",
	"DescribeTarget":      "human",
	"PageURL":             "nothing",
	"HumanDriving":        "nothing",
	"CloseSession":        "nothing",
	"Sessions":            "nothing",
	"Prewarm":             "nothing",
	"PrewarmSession":      "nothing",
	"Config":              "nothing",
	"Reachable":           "nothing",
	"Close":               "nothing",
}

// TestServiceSurfaceIsFenced: every exported method of *Service is
// classified in serviceSurface, so a new route to the browser (a console
// page, a link, a library call) names who it serves before it lands.
func TestServiceSurfaceIsFenced(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	typ := reflect.TypeOf(&Service{})
	seen := map[string]bool{}
	for i := range typ.NumMethod() {
		m := typ.Method(i).Name
		seen[m] = true
		if _, ok := serviceSurface[m]; !ok {
			t.Errorf("(*browser.Service).%s is not in serviceSurface: say whether it serves the agent through the gate, a human, or no page content", m)
		}
	}
	for m := range serviceSurface {
		if !seen[m] {
			t.Errorf("serviceSurface names %s, which *Service does not have", m)
		}
	}
}
