package host

import (
	"fmt"
	"slices"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/capability"
	"github.com/wasmwright/wasmwright/hostfuncs/network"
	"github.com/wasmwright/wasmwright/hostfuncs/operator"
)

// PersonalityConfig is one agent role.
type PersonalityConfig struct {
	// Description says what the role is for, to whoever reads the config.
	Description string `toml:"description"`
	// Plugins this personality loads. Absent or empty: none.
	Plugins []string `toml:"plugins"`
	// Tools it may call: names, or "*" for every tool of its plugins.
	// Absent or empty: none.
	Tools []string `toml:"tools"`
	// Grants are capability IDs. Absent or empty: nothing.
	Grants []string    `toml:"grants"`
	Hooks  HooksConfig `toml:"hooks"`
	// Network is what its pages and plugins may reach: the egress
	// service's own table (hostfuncs/network.Policy).
	Network network.Policy `toml:"network"`
	// AllowEvalWithVault lets a personality hold browser.eval next to
	// vault.fill. Refused by default: script the agent runs in the page
	// can read back every credential value the vault filled there.
	AllowEvalWithVault bool `toml:"allow_eval_with_vault"`
	// VisionAllowSecrets lets a page holding a filled secret (a password
	// field with a value, a credential value shown) go to the vision
	// model. Off by default: the model is a third party to the session.
	VisionAllowSecrets bool `toml:"vision_allow_secrets"`
	// Approval maps a risk (abi.Risks: read, navigate, act, eval,
	// credential, upload, download) to allow, ask or deny; absent risks
	// are allowed. Beside the risks: "timeout", how long an ask waits for
	// an answer (default 120s, at most 24h); "via", where an ask goes
	// ("console" and/or "client", the agent's own MCP client; default the
	// console only); "client_grants", how long an approval "for this
	// origin" given by the client lasts ("session", default, or "persist").
	Approval ApprovalTable `toml:"approval"`
	// Takeover says where a takeover may reach a person.
	Takeover TakeoverTable `toml:"takeover"`
	// FullSnapshots lets its agents ask for a snapshot uncompacted
	// (browser_snapshot full = true). Off by default: a full snapshot of a
	// large page costs many times the tokens of the compacted one.
	FullSnapshots bool `toml:"full_snapshots"`
	// RequireSignatures loads its plugins only when signed by a trusted
	// key (host/trust.go; verified by host/signature); an unsigned or altered one is refused.
	RequireSignatures bool `toml:"require_signatures"`
	// DetectFailure says what a navigation gets when its detector fails
	// (panics, passes hook_timeout, answers nonsense, is not loaded):
	// "fail_closed" (default) fails the call naming the detector,
	// "fail_open" returns the result with a warning on it.
	DetectFailure string `toml:"detect_failure"`
	// HiddenText says what its snapshots do with text a sighted user
	// cannot see (hostfuncs/browser/visibility.go): "drop" (default)
	// takes it out; "mark" keeps it, marked: a hidden element's line
	// carries [hidden], a hidden run of text reads [hidden: ...]. Marked
	// text still reaches the agent: a page can write instructions there.
	HiddenText string `toml:"hidden_text"`
}

// What a snapshot does with hidden text (PersonalityConfig.HiddenText).
const (
	HiddenDrop = "drop"
	HiddenMark = "mark"
)

// What a failed detector means (PersonalityConfig.DetectFailure).
const (
	FailClosed = "fail_closed"
	FailOpen   = "fail_open"
)

// Approval modes of a risk.
const (
	ModeAllow = "allow"
	ModeAsk   = "ask"
	ModeDeny  = "deny"
)

// DefaultApprovalTimeout is how long an ask waits when approval.timeout is
// not set.
const DefaultApprovalTimeout = 120 * time.Second

// ApprovalTable is [personalities.NAME.approval]: a mode per risk and
// "timeout" (strings, Modes), "via" (a list: where an ask goes,
// operator.ViaConsole and operator.ViaClient; absent: the console only)
// and "client_grants" (ClientGrantsSession or ClientGrantsPersist).
type ApprovalTable struct {
	Modes map[string]string
	Via   []string
	// ClientGrants is how long an approval "for this origin" given by the
	// agent's client lasts: its MCP session (default) or until revoked.
	ClientGrants string
	// bad holds the keys whose values had the wrong type, for checkApproval.
	bad []string
}

// UnmarshalTOML reads the table; a value of the wrong type is reported by
// checkApproval with the personality's name.
func (a *ApprovalTable) UnmarshalTOML(v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("approval must be a table, like [personalities.NAME.approval]")
	}
	a.Modes = map[string]string{}
	for k, x := range m {
		if k == "via" {
			list, ok := x.([]any)
			for _, e := range list {
				s, isStr := e.(string)
				ok = ok && isStr
				a.Via = append(a.Via, s)
			}
			if !ok || len(list) == 0 {
				a.bad = append(a.bad, k)
			}
			continue
		}
		s, ok := x.(string)
		if !ok {
			a.bad = append(a.bad, k)
			continue
		}
		if k == "client_grants" {
			a.ClientGrants = s
			continue
		}
		a.Modes[k] = s
	}
	return nil
}

// How long a client's grant lasts (approval.client_grants).
const (
	// ClientGrantsSession: the agent's client's MCP session (default).
	ClientGrantsSession = "session"
	// ClientGrantsPersist: stored with the operators' grants, until
	// revoked; it still counts only while approval.via names the client.
	ClientGrantsPersist = "persist"
)

// TakeoverTable is [personalities.NAME.takeover]: "via" lists where a
// takeover reaches a person: operator.ViaConsole (always: the console and
// its webhook) and operator.ViaClient (a one-time link to the live view,
// sent to the agent's own MCP client by URL elicitation). Absent: the
// console only. The client is the agent until a personality opts in.
type TakeoverTable struct {
	// Via lists where a takeover reaches a person: "console" (the console
	// and its webhook; absent: this only) and "client" (a one-time link to
	// the live view, sent to the agent's own MCP client).
	Via []string `toml:"via"`
}

// checkTakeover validates [personalities.NAME.takeover].
func (p PersonalityConfig) checkTakeover(name string) error {
	return checkVia(name, "takeover", p.Takeover.Via, `"console" (the operator console) and/or "client" (a link to the live view sent to the agent's own MCP client)`)
}

// checkVia validates a table's via list (personalities.NAME.table.via):
// each way is the console or the agent's client, named once; use says
// what each means there.
func checkVia(name, table string, via []string, use string) error {
	seen := map[string]bool{}
	for _, v := range via {
		if v != operator.ViaClient && v != operator.ViaConsole {
			return fmt.Errorf("personalities.%s.%s.via: unknown way %q: use %s", name, table, v, use)
		}
		if seen[v] {
			return fmt.Errorf("personalities.%s.%s.via names %q twice: list each way once", name, table, v)
		}
		seen[v] = true
	}
	return nil
}

// takeoverVia is takeover.via, or its default (the console only).
func (p PersonalityConfig) takeoverVia() []string {
	if len(p.Takeover.Via) == 0 {
		return []string{operator.ViaConsole}
	}
	return p.Takeover.Via
}

// clientApproves reports whether approval.via names the agent's client:
// only then may it answer approvals, and only then do its grants count.
func (p PersonalityConfig) clientApproves() bool {
	return slices.Contains(p.Approval.Via, operator.ViaClient)
}

// clientAsks reports whether any personality's approval.via names the
// agent's client: the host then keeps an operator desk even without a
// console, so those approvals reach the client that can ask its user.
func clientAsks(c *Config) bool {
	for _, p := range c.Personalities {
		if p.clientApproves() {
			return true
		}
	}
	return false
}

// approvalMode is the mode of a risk: allow unless the table says otherwise.
func (p PersonalityConfig) approvalMode(r abi.Risk) string {
	if m := p.Approval.Modes[string(r)]; m != "" {
		return m
	}
	return ModeAllow
}

// asks reports whether any risk's approval mode is ask.
func (p PersonalityConfig) asks() bool {
	for k, v := range p.Approval.Modes {
		if k != "timeout" && v == ModeAsk {
			return true
		}
	}
	return false
}

// approvalTimeout is approval.timeout (validated), or the default.
func (p PersonalityConfig) approvalTimeout() time.Duration {
	if d, err := time.ParseDuration(p.Approval.Modes["timeout"]); err == nil {
		return d
	}
	return DefaultApprovalTimeout
}

// checkApproval validates [personalities.NAME.approval].
func (p PersonalityConfig) checkApproval(name string) error {
	for _, k := range p.Approval.bad {
		if k == "via" {
			return fmt.Errorf("personalities.%s.approval.via: give a list of where approvals are asked, like [\"client\", \"console\"]", name)
		}
		return fmt.Errorf("personalities.%s.approval.%s: give a string (allow, ask or deny; timeout: a duration like \"120s\")", name, k)
	}
	if g := p.Approval.ClientGrants; g != "" && g != ClientGrantsSession && g != ClientGrantsPersist {
		return fmt.Errorf("personalities.%s.approval.client_grants = %q: use %q (a grant the agent's client makes lasts its MCP session) or %q (stored until revoked)", name, g, ClientGrantsSession, ClientGrantsPersist)
	}
	if err := checkVia(name, "approval", p.Approval.Via, `"client" (the agent's MCP client, by elicitation) and/or "console" (the operator console)`); err != nil {
		return err
	}
	for _, k := range sortedKeys(p.Approval.Modes) {
		v := p.Approval.Modes[k]
		if k == "timeout" {
			if d, err := time.ParseDuration(v); err != nil || d <= 0 || d > 24*time.Hour {
				return fmt.Errorf("personalities.%s.approval.timeout = %q: give a duration from 1s to 24h, like \"120s\"", name, v)
			}
			continue
		}
		if !abi.Risk(k).Valid() {
			return fmt.Errorf("personalities.%s.approval.%s: unknown risk %q: use one of %v (or timeout)", name, k, k, abi.Risks())
		}
		if v != ModeAllow && v != ModeAsk && v != ModeDeny {
			return fmt.Errorf("personalities.%s.approval.%s = %q: use allow, ask or deny", name, k, v)
		}
	}
	return nil
}

// HooksConfig names the plugin filling each pipeline role; empty: none.
type HooksConfig struct {
	// Detect is the detector chain: one plugin name (detect = "blockdetect",
	// as before chains) or several in order (detect = ["blockdetect",
	// "humancheck"]); a page is a bot wall when any of them flags it.
	Detect DetectorChain `toml:"detect"`
	// Compact is the plugin that shortens snapshots before they reach the
	// agent (snapcompact); empty: snapshots go out whole.
	Compact string `toml:"compact"`
	// Mask is the plugin that hides secret values in every result
	// (secretmask); it runs last.
	Mask string `toml:"mask"`
}

// byRole maps each role to the plugins filling it, in order (one for
// compact and mask, the chain for detect).
func (h HooksConfig) byRole() map[abi.HookRole][]string {
	one := func(s string) []string {
		if s == "" {
			return nil
		}
		return []string{s}
	}
	return map[abi.HookRole][]string{abi.HookDetect: h.Detect, abi.HookCompact: one(h.Compact), abi.HookMask: one(h.Mask)}
}

// DetectorChain is hooks.detect: the detectors of a personality, in the
// order they run. A TOML string is a chain of one, so configs written for
// a single detector keep working.
type DetectorChain []string

// UnmarshalTOML takes a plugin name or an array of them.
func (d *DetectorChain) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case string:
		*d = nil
		if x != "" {
			*d = DetectorChain{x}
		}
		return nil
	case []any:
		out := DetectorChain{}
		for _, e := range x {
			s, ok := e.(string)
			if !ok || s == "" {
				return fmt.Errorf("hooks.detect: %v is not a plugin name: list plugin names, like [\"blockdetect\", \"my_detector\"]", e)
			}
			if slices.Contains(out, s) {
				return fmt.Errorf("hooks.detect lists %q twice", s)
			}
			out = append(out, s)
		}
		*d = out
		return nil
	}
	return fmt.Errorf("hooks.detect = %v: give a plugin name, or a list of them in the order they run", v)
}

// validatePersonality checks one personality's table against the rest of
// the config: its name, plugins, grants, detect_failure, approval, hooks.
func (c *Config) validatePersonality(pn string, p PersonalityConfig, bad func(string, ...any) error) error {
	if !validID(pn) {
		return bad("personality name %q: use letters, digits, _ and - only", pn)
	}
	for _, pl := range p.Plugins {
		if _, ok := c.Plugins[pl]; !ok {
			return bad("personality %s loads plugin %q, which no [plugins.%s] table defines", pn, pl, pl)
		}
	}
	grants, err := capability.Parse(p.Grants)
	if err != nil {
		return bad("personality %s: %v", pn, err)
	}
	if grants[capability.BrowserEval] && grants[capability.VaultFill] && !p.AllowEvalWithVault {
		return bad("personality %s grants both browser.eval and vault.fill: script run in the page could read the credentials the vault fills there. "+
			"Drop one of the two grants (or split them into two personalities), or, if this is intended, set allow_eval_with_vault = true in [personalities.%s]", pn, pn)
	}
	if f := p.DetectFailure; f != "" && f != FailClosed && f != FailOpen {
		return bad("personalities.%s.detect_failure = %q: use %q (a failed detector fails the navigation) or %q (the result goes through with a warning)", pn, f, FailClosed, FailOpen)
	}
	if h := p.HiddenText; h != "" && h != HiddenDrop && h != HiddenMark {
		return bad("personalities.%s.hidden_text = %q: use %q (text a person cannot see is taken out of snapshots) or %q (it stays, marked [hidden])", pn, h, HiddenDrop, HiddenMark)
	}
	if err := p.checkApproval(pn); err != nil {
		return bad("%v", err)
	}
	if err := p.checkTakeover(pn); err != nil {
		return bad("%v", err)
	}
	for role, pls := range p.Hooks.byRole() {
		for _, pl := range pls {
			if !contains(p.Plugins, pl) {
				return bad("personality %s: hooks.%s names plugin %q, which is not in its plugins list", pn, role, pl)
			}
		}
	}
	return nil
}
