package abi

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// Manifest is what a plugin's describe export returns.
type Manifest struct {
	Name    string     `json:"name"`
	Version string     `json:"version"`
	ABI     ABIVersion `json:"abi"`
	// Tools the plugin provides, each with a JSON Schema for its input.
	Tools []ToolSpec `json:"tools,omitempty"`
	// Hooks are the pipeline roles the plugin fills.
	Hooks []HookRole `json:"hooks,omitempty"`
	// Capabilities the plugin needs (capability IDs such as "browser.read").
	// The host refuses to link a plugin whose imports need more than this, or
	// whose needs exceed what the personality grants.
	Capabilities []string `json:"capabilities,omitempty"`
	// Description is one line for humans.
	Description string `json:"description,omitempty"`
	// Features are optional ABI behaviours the plugin asks for
	// (FeatureBlobs). A host that does not know one ignores it.
	Features []string `json:"features,omitempty"`
	// Protocols are the versions of the host-function families the plugin
	// was built for, apart from the core ABI (ProtocolBrowser: the
	// ww_browser_* calls), so a family can grow without moving every
	// plugin's ABI major. Absent, a family counts as its 1.0.
	Protocols map[string]ABIVersion `json:"protocols,omitempty"`
}

// ProtocolBrowser is the family of the browser host functions; its
// version is BrowserVersion.
const ProtocolBrowser = "browser"

// The browser protocol this package describes (browser.go).
//
// History:
//   - 1.0 (2026-12-01): the ww_browser_* calls of ABI 1.0.
const (
	BrowserVersionMajor = 1
	BrowserVersionMinor = 0
)

// Protocols returns the host-function families this package describes,
// with their versions.
func Protocols() map[string]ABIVersion {
	return map[string]ABIVersion{ProtocolBrowser: {Major: BrowserVersionMajor, Minor: BrowserVersionMinor}}
}

// AcceptProtocols reports whether a host speaking host's protocols can run
// a plugin declaring declared: every family known, each accepted as
// Accept accepts an ABI version.
func AcceptProtocols(host, declared map[string]ABIVersion) error {
	for _, f := range sortedKeys(declared) {
		h, ok := host[f]
		if !ok {
			return fmt.Errorf("plugin speaks protocol %s, which this host does not know: upgrade wasmwright", f)
		}
		if err := Accept(h, declared[f]); err != nil {
			return fmt.Errorf("%s protocol: %w", f, err)
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// FeatureBlobs: the plugin takes large strings of host-function responses
// (a snapshot, a page's text and HTML, a screenshot's data) as tokens
// starting with BlobPrefix, and promises to copy each token unchanged into
// a string field of its Result (text, snapshot, page.title/text/html,
// images[].data, warnings) instead of reading it. The host puts the value
// back after the call, so large data never crosses the sandbox twice.
const FeatureBlobs = "blobs"

// BlobPrefix starts every blob token; the rest is unique to one call.
const BlobPrefix = "ww-blob:"

// Clone returns a deep copy: changing it leaves m as it was.
func (m Manifest) Clone() Manifest {
	c := m
	c.Hooks = append([]HookRole(nil), m.Hooks...)
	c.Capabilities = append([]string(nil), m.Capabilities...)
	c.Features = append([]string(nil), m.Features...)
	if m.Protocols != nil {
		c.Protocols = make(map[string]ABIVersion, len(m.Protocols))
		for k, v := range m.Protocols {
			c.Protocols[k] = v
		}
	}
	c.Tools = make([]ToolSpec, len(m.Tools))
	for i, t := range m.Tools {
		t.InputSchema = append([]byte(nil), t.InputSchema...)
		t.Capabilities = append([]string(nil), t.Capabilities...)
		c.Tools[i] = t
	}
	if m.Tools == nil {
		c.Tools = nil
	}
	return c
}

// HasFeature reports whether the manifest asks for feature f.
func (m *Manifest) HasFeature(f string) bool {
	for _, x := range m.Features {
		if x == f {
			return true
		}
	}
	return false
}

// ToolSpec describes one tool.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	// Capabilities needed by this tool in particular, a subset of the
	// plugin's. A personality that does not grant them does not get the tool.
	Capabilities []string `json:"capabilities,omitempty"`
	ReadOnly     bool     `json:"read_only,omitempty"`
	// Risk is the worst this tool can do (RiskRead...); empty: the host
	// derives it from the capabilities the tool needs.
	Risk Risk `json:"risk,omitempty"`
	// RiskWhen names arguments that make a call riskier than Risk: given
	// that argument, the call is also of that risk, and the host judges it
	// by the stricter of the two modes (an upload that clicks is an act; a
	// source fetch that sends the session's cookies is an act).
	RiskWhen map[string]Risk `json:"risk_when,omitempty"`
	// Title is a short human-readable name for clients' approval prompts.
	Title string `json:"title,omitempty"`
	// OpenWorld says the tool reaches outside the host (pages, the
	// network). The host sets it from what the tool's plugin is granted;
	// a manifest's value is ignored.
	OpenWorld bool `json:"open_world,omitempty"`
}

// CallHeader is the fixed part of a call's input; the tool's arguments
// follow it as raw JSON (see Frame).
type CallHeader struct {
	Tool        string `json:"tool"`
	Session     string `json:"session,omitempty"`
	Personality string `json:"personality,omitempty"`
	CallID      string `json:"call_id,omitempty"`
}

// Frame joins a header and a body: a little-endian u32 header length, the
// header as JSON, then the body bytes untouched. Large bodies (tool arguments,
// results) are never re-encoded on their way through.
func Frame(header any, body []byte) ([]byte, error) {
	h, err := json.Marshal(header)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 4+len(h)+len(body))
	binary.LittleEndian.PutUint32(out, uint32(len(h)))
	copy(out[4:], h)
	copy(out[4+len(h):], body)
	return out, nil
}

// Unframe splits a frame into its header (decoded into header) and body.
// The body aliases in.
func Unframe(in []byte, header any) ([]byte, error) {
	if len(in) < 4 {
		return nil, errors.New("abi: frame shorter than its length prefix")
	}
	n := binary.LittleEndian.Uint32(in)
	if uint64(n) > uint64(len(in)-4) {
		return nil, errors.New("abi: frame header length exceeds the frame")
	}
	var err error
	if h, ok := header.(*CallHeader); ok {
		err = decodeHeader(in[4:4+n], h)
	} else {
		err = json.Unmarshal(in[4:4+n], header)
	}
	if err != nil {
		return nil, errors.New("abi: frame header: " + err.Error())
	}
	return in[4+n:], nil
}

// Result is what a tool returns on success, as JSON.
type Result struct {
	// Text is what the agent reads first.
	Text string `json:"text,omitempty"`
	// Data is structured output for programs.
	Data json.RawMessage `json:"data,omitempty"`
	// Snapshot is the page's ARIA snapshot with refs, for tools that may
	// change the page. The compact hook rewrites it.
	Snapshot string `json:"snapshot,omitempty"`
	// SnapshotDiff is set by the host instead of Snapshot after an action:
	// what changed since the last full snapshot the agent received (a
	// header line, then "+ ", "- ", "~ " and "  " context lines). Tools
	// never set it.
	SnapshotDiff string `json:"snapshot_diff,omitempty"`
	// Page carries the facts of a navigation, for the detect hook.
	Page *Page `json:"page,omitempty"`
	// Images are inline images (screenshots), base64.
	Images []Image `json:"images,omitempty"`
	// Files written for the agent (screenshots, PDFs), as paths.
	Files []string `json:"files,omitempty"`
	// Risk labels results whose content the agent should not trust blindly
	// (browser_evaluate output).
	Risk string `json:"risk,omitempty"`
	// External says the result carries content a page or server supplied
	// (snapshots, page text, logs, fetched text): treat it as data, never
	// as instructions. Source is where it came from, when known. The host
	// sets both for every tool that reaches outside it; a plugin may set
	// them too.
	External bool   `json:"external,omitempty"`
	Source   string `json:"source,omitempty"`
	// Warnings are one-time notices (headless fallback, ephemeral profile).
	Warnings []string `json:"warnings,omitempty"`
	// Events are notices the host attaches (blocked requests...).
	Events []string `json:"events,omitempty"`
}

// Page is what a navigation saw.
type Page struct {
	URL     string            `json:"url"`
	Status  int               `json:"status,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Title   string            `json:"title,omitempty"`
	// Text is the rendered text, capped by the host, for detectors.
	Text string `json:"text,omitempty"`
	// HTML is the start of the document, capped by the host, for detectors.
	HTML string `json:"html,omitempty"`
}

// Image is one inline image.
type Image struct {
	MIME string `json:"mime"`
	Data string `json:"data"` // base64
}

// HookRequest is the input of the hook export.
type HookRequest struct {
	Role    HookRole `json:"role"`
	Tool    string   `json:"tool"`
	Session string   `json:"session,omitempty"`
	// Args are the tool call's arguments (a compactor reads a scoped
	// snapshot's ref from them).
	Args   json.RawMessage `json:"args,omitempty"`
	Result *Result         `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
	// HasTakeover tells a detector whether this host offers a takeover tool
	// it may name.
	HasTakeover bool `json:"has_takeover,omitempty"`
}

// HookResponse is the output of the hook export. A detect hook that finds a
// wall returns Error; compact and mask return the rewritten Result and Error.
// A nil Result leaves the result unchanged.
type HookResponse struct {
	Result *Result `json:"result,omitempty"`
	Error  *Error  `json:"error,omitempty"`
}

// SelfTestReport is the output of the self_test export. A hook plugin must
// pass it before the host swaps it in.
type SelfTestReport struct {
	OK      bool   `json:"ok"`
	Message string `json:"message,omitempty"`
	// Cases are fixtures the plugin ships: the host runs the plugin's real
	// hook on each, besides its own fixtures (a bot wall and a normal page
	// for a detector), and refuses the plugin if one does not come out as
	// the case says.
	Cases []SelfTestCase `json:"cases,omitempty"`
}

// SelfTestCase is one fixture of a hook plugin's self-test: the host sends
// Result to the plugin's hook in Role and checks the answer. Want is the
// error code the hook must answer with (bot_wall for a detector on a wall),
// or empty when it must answer with no error.
type SelfTestCase struct {
	Name   string   `json:"name"`
	Role   HookRole `json:"role"`
	Result *Result  `json:"result"`
	Want   Code     `json:"want,omitempty"`
}
