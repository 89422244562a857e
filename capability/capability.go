// Package capability is the vocabulary of grants: typed capability IDs, the
// host function each one unlocks, and the rule that links a plugin only when
// what it imports ⊆ what it declares ⊆ what its personality grants.
//
// Deny by default: an absent or empty grant list grants nothing, and an
// unknown ID is an error, not a no-op.
package capability

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
)

// ID names one capability.
type ID string

const (
	BrowserRead ID = "browser.read" // read pages: snapshot, console, network log, screenshots
	BrowserAct  ID = "browser.act"  // act on pages: navigate, click, type, upload
	BrowserEval ID = "browser.eval" // run arbitrary JavaScript in the page
	Network     ID = "network"      // fetch URLs under the personality's network policy
	SecretsMask ID = "secrets.mask" // see the values a session must never show, to mask them
	VaultFill   ID = "vault.fill"   // fill stored credentials by name
	Events      ID = "events"       // write to the host's event sink
	Vision      ID = "vision"       // image understanding
	Takeover    ID = "takeover"     // hand the browser to a human
)

// descriptions lists every capability with a line for documentation. It is
// unexported and never written: Describe and Known read it.
var descriptions = map[ID]string{
	BrowserRead: "read pages: snapshots, console, network log, screenshots",
	BrowserAct:  "act on pages: navigate, click, type, upload",
	BrowserEval: "run arbitrary JavaScript in pages",
	Network:     "fetch URLs under the personality's network policy",
	SecretsMask: "receive a session's secret values in order to mask them",
	VaultFill:   "fill stored credentials by name",
	Events:      "write events to the host's event sink",
	Vision:      "image understanding",
	Takeover:    "hand the browser to a human",
}

// Describe returns the documentation line of id; ok is false for an
// unknown ID.
func Describe(id ID) (string, bool) {
	d, ok := descriptions[id]
	return d, ok
}

// hostFuncs is the one table from host-function import to the capability it
// needs, built from abi's constants. It is static: no registration, no
// mutator; a host function missing here is refused at link time and at
// call time. TestHostFuncTableCoversABI checks that every host function abi
// declares is here, and testdata/hostfuncs.golden pins the whole table.
var hostFuncs = map[string]ID{
	abi.HostEventsEmit:        Events,
	abi.HostSecretsMaskValues: SecretsMask,
	abi.HostNetworkFetch:      Network,
	abi.HostVaultFill:         VaultFill,
	abi.HostTakeoverRequest:   Takeover,
	abi.HostVisionLocate:      Vision,

	abi.HostBrowserSnapshot:      BrowserRead,
	abi.HostBrowserWaitFor:       BrowserRead,
	abi.HostBrowserConsole:       BrowserRead,
	abi.HostBrowserNetwork:       BrowserRead,
	abi.HostBrowserImages:        BrowserRead,
	abi.HostBrowserComputedStyle: BrowserRead,
	abi.HostBrowserScreenshot:    BrowserRead,
	abi.HostBrowserPDF:           BrowserRead,
	abi.HostBrowserStorage:       BrowserRead,
	abi.HostBrowserSources:       BrowserRead,
	abi.HostBrowserSessions:      BrowserRead,
	abi.HostBrowserRead:          BrowserRead,

	abi.HostBrowserNavigate: BrowserAct,
	abi.HostBrowserAct:      BrowserAct,
	abi.HostBrowserFillForm: BrowserAct,
	abi.HostBrowserUpload:   BrowserAct,
	abi.HostBrowserHistory:  BrowserAct,
	abi.HostBrowserDialog:   BrowserAct,
	abi.HostBrowserCookies:  BrowserAct,
	abi.HostBrowserTabs:     BrowserAct,
	abi.HostBrowserEmulate:  BrowserAct,
	abi.HostBrowserResize:   BrowserAct,
	abi.HostBrowserClose:    BrowserAct,
	abi.HostBrowserProfile:  BrowserAct,

	abi.HostBrowserEvaluate: BrowserEval,
}

// baseImports need no grant.
var baseImports = map[string]bool{
	abi.HostInfo:       true,
	abi.ImportHostTake: true,
	abi.ImportLog:      true,
}

// ForHostFunc returns the capability a host function needs; ok is false for
// an unknown function. Base functions return "" and true.
func ForHostFunc(name string) (ID, bool) {
	if baseImports[name] {
		return "", true
	}
	c, ok := hostFuncs[name]
	return c, ok
}

// HostFuncs lists every host function with a capability, sorted by name:
// a copy, for documentation and tests.
func HostFuncs() [][2]string {
	out := make([][2]string, 0, len(hostFuncs)+len(baseImports))
	for n, c := range hostFuncs {
		out = append(out, [2]string{n, string(c)})
	}
	for n := range baseImports {
		out = append(out, [2]string{n, ""})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// Set is a set of capabilities.
type Set map[ID]bool

// Parse builds a Set from strings, refusing unknown IDs.
func Parse(ids []string) (Set, error) {
	s := Set{}
	for _, id := range ids {
		if _, ok := descriptions[ID(id)]; !ok {
			return nil, fmt.Errorf("unknown capability %q (known: %s)", id, strings.Join(Known(), ", "))
		}
		s[ID(id)] = true
	}
	return s, nil
}

// Known lists every capability ID, sorted.
func Known() []string {
	out := make([]string, 0, len(descriptions))
	for id := range descriptions {
		out = append(out, string(id))
	}
	sort.Strings(out)
	return out
}

// Has reports whether s holds id. A nil Set holds nothing.
func (s Set) Has(id ID) bool { return s[id] }

// Sorted lists the set's IDs in order.
func (s Set) Sorted() []string {
	out := make([]string, 0, len(s))
	for id := range s {
		out = append(out, string(id))
	}
	sort.Strings(out)
	return out
}

// Covers reports whether s holds every ID in ids; missing lists those it
// does not, sorted.
func (s Set) Covers(ids []string) (missing []string) {
	for _, id := range ids {
		if !s[ID(id)] {
			missing = append(missing, id)
		}
	}
	sort.Strings(missing)
	return dedupe(missing)
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// Refusal is why a plugin was not linked. Its message names the missing
// grant and the fix.
type Refusal struct {
	Plugin  string
	Reason  string
	Missing []string
}

func (r *Refusal) Error() string { return r.Reason }

// AsABIError turns the refusal into the wire error.
func (r *Refusal) AsABIError() *abi.Error {
	e := &abi.Error{Code: abi.CodeRefused, Message: r.Reason}
	if len(r.Missing) > 0 {
		e = e.With("missing", strings.Join(r.Missing, ","))
	}
	return e
}

// Resolve decides what a plugin gets under a personality. Every host
// function it imports must need only capabilities it declares; every
// capability a tool requires must be declared too. A capability that only
// some tools require (sdk.Requires) is optional: without it the plugin
// still links and just those tools are withheld. Every other declared
// capability is the plugin's base, and the personality must grant all of
// it. The result is what the plugin holds: declared ∩ granted, which the
// host functions check again at call time. imports are the plugin's
// function imports in abi.HostModule.
func Resolve(m abi.Manifest, imports []string, personality string, granted Set) (Set, error) {
	declared, err := Parse(m.Capabilities)
	if err != nil {
		return nil, &Refusal{Plugin: m.Name, Reason: fmt.Sprintf("plugin %s declares an %v: fix its manifest (sdk.Needs)", m.Name, err)}
	}
	if declared.Has(SecretsMask) {
		if err := maskerOnly(m, declared); err != nil {
			return nil, err
		}
	}
	optional := Set{}
	for _, t := range m.Tools {
		if _, err := Parse(t.Capabilities); err != nil {
			return nil, &Refusal{Plugin: m.Name, Reason: fmt.Sprintf("plugin %s tool %s declares an %v", m.Name, t.Name, err)}
		}
		if miss := declared.Covers(t.Capabilities); len(miss) > 0 {
			return nil, &Refusal{Plugin: m.Name, Missing: miss, Reason: fmt.Sprintf(
				"plugin %s tool %s needs %s, which the plugin does not declare: add it to the plugin's sdk.Needs",
				m.Name, t.Name, strings.Join(miss, ", "))}
		}
		for _, c := range t.Capabilities {
			optional[ID(c)] = true
		}
	}
	var undeclared []string
	for _, imp := range sortedUnique(imports) {
		// imports may be named as the plugin imported them, in either
		// convention (wwx_ is Extism's): messages say the name it used.
		canon, _ := abi.CanonicalHostFunc(imp)
		c, ok := ForHostFunc(canon)
		if !ok {
			return nil, &Refusal{Plugin: m.Name, Reason: fmt.Sprintf(
				"plugin %s imports %s/%s, which this host does not provide: rebuild it against plugin-sdk v%d or upgrade wasmwright",
				m.Name, abi.HostModule, imp, abi.VersionMajor)}
		}
		if c != "" && !declared.Has(c) {
			undeclared = append(undeclared, fmt.Sprintf("%s (imported as %s)", c, imp))
		}
	}
	if len(undeclared) > 0 {
		return nil, &Refusal{Plugin: m.Name, Reason: fmt.Sprintf(
			"plugin %s imports host functions needing %s but does not declare them: the manifest must declare every capability its imports use",
			m.Name, strings.Join(undeclared, ", "))}
	}
	var base []string
	for id := range declared {
		if !optional[id] {
			base = append(base, string(id))
		}
	}
	if miss := granted.Covers(base); len(miss) > 0 {
		return nil, &Refusal{Plugin: m.Name, Missing: miss, Reason: fmt.Sprintf(
			"personality %s does not grant %s, which plugin %s needs: add it to the personality's grants, or remove the plugin from it",
			personality, strings.Join(miss, ", "), m.Name)}
	}
	held := Set{}
	for id := range declared {
		if granted.Has(id) {
			held[id] = true
		}
	}
	return held, nil
}

func sortedUnique(s []string) []string {
	c := append([]string(nil), s...)
	sort.Strings(c)
	return dedupe(c)
}

// maskerOnly enforces that a plugin holding secrets.mask cannot talk: it sees
// the session's secret values, so it may declare no other capability (each
// of them carries data somewhere: the network, a page, the event log, a
// human), provide no tool (a tool's result reaches the agent before any
// masker) and fill no hook but mask.
func maskerOnly(m abi.Manifest, declared Set) error {
	var others []string
	for id := range declared {
		if id != SecretsMask {
			others = append(others, string(id))
		}
	}
	sort.Strings(others)
	switch {
	case len(others) > 0:
		return &Refusal{Plugin: m.Name, Reason: fmt.Sprintf(
			"plugin %s declares secrets.mask, which hands it secret values, together with %s, which could carry them out: a masker may declare nothing else; split it into a masker and a separate plugin",
			m.Name, strings.Join(others, ", "))}
	case len(m.Tools) > 0:
		return &Refusal{Plugin: m.Name, Reason: fmt.Sprintf(
			"plugin %s declares secrets.mask and provides tools (%s): a tool's result would carry secret values to the agent; a masker may only fill the mask hook",
			m.Name, m.Tools[0].Name)}
	}
	for _, h := range m.Hooks {
		if h != abi.HookMask {
			return &Refusal{Plugin: m.Name, Reason: fmt.Sprintf(
				"plugin %s declares secrets.mask and fills the %s hook: a plugin that sees secret values may only fill the mask hook",
				m.Name, h)}
		}
	}
	return nil
}
