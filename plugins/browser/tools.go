package main

import (
	"encoding/json"
	"fmt"
	"math"
	"net/netip"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
)

// Tool descriptions are what an agent reads to choose a tool and its
// arguments. Each says what the tool does, what it returns, and what to do
// next; each stands beside its tool's arguments and handler, and refNote
// ends those of the tools that take refs.
const refNote = ` Elements are named by refs from the latest snapshot ("e5", or "f1e3" inside a frame; "@e5" works too). CSS selectors are not accepted. If the page changed since the snapshot, the call fails with stale_ref: take a new snapshot and use its refs.`

// ---- shaping helpers

// normalizeURL adds a scheme where the agent left it out: http for
// localhost and IP addresses, https for the rest. Other schemes pass
// through and the host refuses them.
func normalizeURL(u string) string {
	u = strings.TrimSpace(u)
	if u == "" || strings.Contains(u, "://") || strings.HasPrefix(strings.ToLower(u), "about:") {
		return u
	}
	if i := strings.IndexByte(u, ':'); i > 0 && !strings.ContainsAny(u[:i], "./") {
		// "javascript:...", "data:...", "localhost:8080" all land here.
		if u[:i] != "localhost" {
			return u
		}
	}
	host := u
	if i := strings.IndexAny(host, "/?#"); i >= 0 {
		host = host[:i]
	}
	if h, ok := hostOfHostPort(host); ok {
		host = h
	}
	if a, err := netip.ParseAddr(host); host == "localhost" || (err == nil && a.Zone() == "") {
		return "http://" + u
	}
	return "https://" + u
}

// hostOfHostPort is the host of "host:port" or "[host]:port", read as
// net.SplitHostPort reads it (the port may be empty); ok is false where
// that fails. The plugin does without package net: it would bring its
// resolver into the module, a quarter of a megabyte of wasm and a
// megabyte of every host's compiled code, for this one split.
func hostOfHostPort(s string) (string, bool) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return "", false
	}
	host, j, k := s[:i], 0, 0
	if s[0] == '[' {
		end := strings.IndexByte(s, ']')
		if end+1 != i { // no ']', or not right before the last colon
			return "", false
		}
		host, j, k = s[1:end], 1, end+1
	} else if strings.IndexByte(host, ':') >= 0 {
		return "", false
	}
	if strings.IndexByte(s[j:], '[') >= 0 || strings.IndexByte(s[k:], ']') >= 0 {
		return "", false
	}
	return host, true
}

func seconds(s float64) int {
	if s <= 0 {
		return 0
	}
	return int(math.Round(s * 1000))
}

// ---- result helpers

// describe renders the session state an agent should see after any call.
func describe(b *strings.Builder, st abi.BrowserState) {
	if st.URL != "" {
		title := st.Title
		if title == "" {
			title = "(no title)"
		}
		fmt.Fprintf(b, "\nPage: %s\nURL: %s", title, st.URL)
	}
	if len(st.Tabs) > 1 {
		fmt.Fprintf(b, "\nTabs (%d):", len(st.Tabs))
		for _, t := range st.Tabs {
			mark := " "
			if t.Current {
				mark = "*"
			}
			fmt.Fprintf(b, "\n %s %d: %s (%s)", mark, t.Index, orDash(t.Title), t.URL)
		}
	}
	for _, t := range st.NewTabs {
		fmt.Fprintf(b, "\nNew tab %d opened: %s (select it with browser_tabs action=select index=%d)", t.Index, t.URL, t.Index)
	}
	if d := st.Dialog; d != nil {
		fmt.Fprintf(b, "\n%s %s dialog is open: %q", article(d.Type), d.Type, d.Message)
		if d.Type == "prompt" && d.DefaultValue != "" {
			fmt.Fprintf(b, " (default %q)", d.DefaultValue)
		}
		b.WriteString("\nThe page is blocked until you answer it with browser_dialog (accept true or false).")
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func result(text string, st abi.BrowserState, snapshot string) *abi.Result {
	var b strings.Builder
	b.WriteString(text)
	describe(&b, st)
	return &abi.Result{Text: strings.TrimSpace(b.String()), Snapshot: snapshot, Warnings: st.Warnings}
}

func withData(r *abi.Result, v any) *abi.Result {
	if b, err := json.Marshal(v); err == nil {
		r.Data = b
	}
	return r
}

func pageResult(verb string, p abi.Page, st abi.BrowserState, snap string) *abi.Result {
	text := verb
	if p.Status != 0 {
		text += fmt.Sprintf(" (HTTP %d)", p.Status)
	}
	r := result(text, st, snap)
	page := p
	r.Page = &page
	return r
}

// SnapshotMode is the snapshot argument every action tool takes. The host
// turns diff into the changes since the agent's last snapshot; none skips
// taking the snapshot at all.
type SnapshotMode struct {
	Snapshot string `json:"snapshot,omitempty" enum:"diff|full|none" desc:"the page snapshot to return: diff (default) the changes since your last snapshot, full the whole snapshot, none no snapshot"`
}

func (m SnapshotMode) none() bool { return m.Snapshot == "none" }

// NoArgs is the arguments of a tool that takes none.
type NoArgs struct{}
