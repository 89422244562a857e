package host

import (
	"runtime/debug"
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
		var cold []*sandbox.Plugin
		if r := p.tools[tool]; r != nil {
			cold = append(cold, r.plugin) // the call needs it first
		}
		for _, name := range p.cfg.Plugins {
			if pl, err := h.plugins.Slot(name).Current(); err == nil && !pl.Compiled() {
				cold = append(cold, pl)
			}
		}
		// One after another, not all at once: the call's own plugin and
		// the browser's start get the cores first, and the hooks are
		// needed only when the tool has answered.
		go func() {
			compiled := false
			for _, pl := range cold {
				if !pl.Compiled() {
					pl.Compile() // a failure is met and reported by the call
					compiled = true
				}
			}
			if compiled {
				// Compiling read each plugin and its code into the heap:
				// hand that garbage back now (as New does).
				debug.FreeOSMemory()
			}
		}()
	}
	if r := p.tools[tool]; r != nil && drivesBrowser(r.plugin.Imports()) {
		if b := h.Browser(); b != nil {
			b.Prewarm(p.name)
		}
	}
}

// Prewarm starts in the background what a personality's first call would:
// its plugins compiled, and the driver and Chromium when one of its tools
// drives the browser (serve does this at start with browser.prewarm).
func (h *Host) Prewarm(personality string) error {
	p, err := h.personality(personality)
	if err != nil {
		return err
	}
	for name, r := range p.tools {
		if drivesBrowser(r.plugin.Imports()) {
			h.warm(p, name)
			return nil
		}
	}
	h.warm(p, "")
	return nil
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
