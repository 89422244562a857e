package host

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/capability"
	"github.com/wasmwright/wasmwright/hostfuncs/browser"
	"github.com/wasmwright/wasmwright/hostfuncs/operator"
	"github.com/wasmwright/wasmwright/hostfuncs/weborigin"
)

// toolRisk is the risk of a tool: the one its manifest declares, or else
// the worst its capabilities allow. A tool that declares nothing and is
// not read-only counts as act: unknown is never read.
func toolRisk(t abi.ToolSpec) abi.Risk {
	if t.Risk.Valid() {
		return t.Risk
	}
	has := func(c capability.ID) bool { return slices.Contains(t.Capabilities, string(c)) }
	switch {
	case has(capability.VaultFill):
		return abi.RiskCredential
	case has(capability.BrowserEval):
		return abi.RiskEval
	case has(capability.BrowserAct):
		return abi.RiskAct
	case t.ReadOnly:
		return abi.RiskRead
	case has(capability.Network):
		return abi.RiskNavigate
	}
	return abi.RiskAct
}

func needsTakeover(t abi.ToolSpec) bool {
	return slices.Contains(t.Capabilities, string(capability.Takeover))
}

// reachesOut reports whether a plugin holding grants can reach pages or
// the network: its tools' results may carry content from there.
func reachesOut(grants capability.Set) bool {
	for _, c := range []capability.ID{capability.BrowserRead, capability.BrowserAct, capability.BrowserEval, capability.Network, capability.VaultFill} {
		if grants.Has(c) {
			return true
		}
	}
	return false
}

// Decisions of a judged call, as events record them. An asked call's
// decision is "ask:" and the operator's verdict (operator.ApproveOnce,
// ApproveOrigin, Deny) or why there was none (unattended, timeout, closed,
// cancelled; unbound: the elements it acts on could not be resolved, so
// nobody was asked).
const (
	DecisionAllow = "allow" // the risk's mode is allow
	DecisionGrant = "grant" // asked, and a stored grant covers the page's origin
	DecisionDeny  = "deny"  // the risk's mode is deny
)

// judgment is how the host judged one call.
type judgment struct {
	risk     abi.Risk
	origin   string // the origin judged (the receiving frame's, else the page's), "" when none
	decision string
	// byOrigin: the call was approved for the page on origin; the host
	// functions refuse to act once the page is elsewhere.
	byOrigin bool
	// bound is what an ask was judged on: the elements the call acts on,
	// checked again by the host functions right before they act.
	bound *browser.Binding
}

// pageOrigin is the origin of the session's current page (weborigin.Of,
// the one spelling grants are stored in), "" when it has none (no
// session, or not an http(s) page).
func pageOrigin(b operator.Browser, personality, session string) string {
	if b == nil {
		return ""
	}
	o := weborigin.Of(b.PageURL(personality, session))
	if o == weborigin.Opaque {
		return ""
	}
	return o
}

// typing is the text a call types (its text argument) as an approver
// may see it: all of it masked when a field it types into is a password
// field; the desk masks secret values in the rest (operator.Desk.Ask).
func typing(args json.RawMessage, bound *browser.Binding) string {
	var a struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(args, &a) != nil || a.Text == "" {
		return ""
	}
	if bound != nil {
		for _, t := range bound.Targets {
			if t.Secret {
				return fmt.Sprintf("(%d characters, hidden: a password field)", utf8.RuneCountInString(a.Text))
			}
		}
	}
	return a.Text
}

// argNames summarises a call for an operator without a value: the names
// of the arguments it was given.
func argNames(args json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil || len(m) == 0 {
		return "no arguments"
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return "arguments: " + strings.Join(names, ", ")
}

func usesBrowser(grants capability.Set) bool {
	return grants.Has(capability.BrowserRead) || grants.Has(capability.BrowserAct) || grants.Has(capability.BrowserEval)
}
