package browser

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/sandbox"
)

// TestEveryHostFunctionMeetsTheGate: every browser host function is named
// in gateTable (how it meets the gate), and gateTable names nothing that
// is not registered; registering one it does not name panics, so a new
// host function cannot reach a tab without the gate.
func TestEveryHostFunctionMeetsTheGate(t *testing.T) {
	s, err := New(Config{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(t.Context())
	var names []string
	for _, f := range s.HostFuncs() {
		names = append(names, f.Name)
		if _, ok := gateTable[f.Name]; !ok {
			t.Errorf("host function %s is not in gateTable", f.Name)
		}
	}
	for name, k := range gateTable {
		if !slices.Contains(names, name) {
			t.Errorf("gateTable names %s, which is not registered", name)
		}
		if k == gateLeave && !leavesWithheld[name] {
			t.Errorf("%s leaves a withheld page but is not in leavesWithheld", name)
		}
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "not in gateTable") {
			t.Errorf("registering a host function gateTable does not name: want a panic naming gateTable, got %v", r)
		}
	}()
	s.letLeaveWithheld([]sandbox.HostFunc{{Name: "ww_browser_new_surface"}})
}

// serviceSurface is every exported method of the browser service, by who
// may reach a page through it: a new method that reaches the browser must
// say here how it meets the gate.
//
//   - hostfuncs: the agent's way in; each host function passes the gate
//     (gateTable, TestEveryHostFunctionMeetsTheGate).
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
