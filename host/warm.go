package host

import (
	"maps"
	"slices"
	"strings"

	"github.com/wasmwright/wasmwright/sandbox"
)

// warm starts, in the background, what a personality's first calls need
// and a host started from a warm cache has not done yet: its plugins are
// compiled (Load compiles only plugins whose manifest the cache lacks; the
// others compile on first use), all at once rather than each at its first
// call, and for a tool whose plugin drives the browser, the driver and
// Chromium start alongside that work rather than after it.
func (h *Host) warm(p *personality, tool string) {
	if p.warmed.CompareAndSwap(false, true) {
		started := map[*sandbox.Plugin]bool{}
		for _, r := range append(slices.Collect(maps.Values(p.tools)), slices.Collect(maps.Values(p.hooks))...) {
			if pl := r.plugin; !started[pl] && !pl.Compiled() {
				started[pl] = true
				go pl.Compile() // a failure is met and reported by the call
			}
		}
	}
	if r := p.tools[tool]; r != nil && drivesBrowser(r.plugin.Imports()) {
		if b := h.Browser(); b != nil {
			b.Prewarm(p.name)
		}
	}
}

// drivesBrowser reports whether a plugin importing these host functions
// can drive the browser.
func drivesBrowser(imports []string) bool {
	for _, i := range imports {
		if strings.HasPrefix(i, "ww_browser_") {
			return true
		}
	}
	return false
}
