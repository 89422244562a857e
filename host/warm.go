package host

import (
	"runtime/debug"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/browser"
	"github.com/wasmwright/wasmwright/sandbox"
)

// warm starts, in the background, what a personality's first call needs
// besides its own plugin (which the call compiles itself, when it must):
// the hook plugins its result passes through compile alongside the tool,
// and for a tool that drives the browser, the driver and Chromium start
// (unless serve's Prewarm started them already). The personality's other
// tool plugins compile at their own first call, not now: a call must not
// share the cores with compiles it does not need.
func (p *personality) warm(tool string, b *browser.Service) {
	if p.warmed.CompareAndSwap(false, true) {
		compileInBackground(p.hookPlugins())
	}
	if r := p.tools[tool]; r != nil && drivesBrowser(r.plugin.Imports()) {
		if b != nil {
			b.Prewarm(p.name)
		}
	}
}

// Prewarm starts in the background what a personality's first call most
// likely needs, before that call comes (serve does this at start): when
// one of its tools drives the browser, the driver and Chromium, the
// plugins of those tools and its hook plugins; when none does, all its
// plugins. A failure to start the browser is kept for
// the first browser call, which reports it with its code. A caller that
// knows the browser session of the personality's first call (stdio's
// one) names it: that session's browser context and first tab are opened
// ahead too, for its first call to take (browser.Service.PrewarmSession);
// "" when it is not known.
func (h *Host) Prewarm(personality, session string) error {
	p, err := h.roster.get(personality)
	if err != nil {
		return err
	}
	var browserPlugins, toolPlugins []*sandbox.Plugin
	for _, name := range sortedKeys(p.tools) {
		if pl := p.tools[name].serving(); drivesBrowser(pl.Imports()) {
			browserPlugins = appendNew(browserPlugins, pl)
		}
	}
	for _, name := range p.cfg.Plugins {
		if pl := h.plugins.Slot(name).Serving(); pl != nil {
			toolPlugins = appendNew(toolPlugins, pl)
		}
	}
	if len(browserPlugins) > 0 {
		if b := h.Browser(); b != nil {
			b.PrewarmSession(p.name, session)
		}
		toolPlugins = browserPlugins
	}
	p.warmed.Store(true) // its first call need not start the hooks again
	hooks := p.hookPlugins()
	compileInBackground(append(toolPlugins, hooks...))
	return nil
}

// hookPlugins are the plugins of the personality's result hooks, in the
// order a result meets them (detect, compact, mask), each once.
func (p *personality) hookPlugins() []*sandbox.Plugin {
	var out []*sandbox.Plugin
	for _, r := range p.detectors {
		if r != nil {
			out = appendNew(out, r.serving())
		}
	}
	for _, role := range []abi.HookRole{abi.HookCompact, abi.HookMask} {
		if r := p.hooks[role]; r != nil {
			out = appendNew(out, r.serving())
		}
	}
	return out
}

// serving is the version a call on r runs now: the slot's, else the one
// r was linked to.
func (r *route) serving() *sandbox.Plugin {
	if cur := r.slot.Serving(); cur != nil {
		return cur
	}
	return r.plugin
}

// appendNew appends pl unless list holds it.
func appendNew(list []*sandbox.Plugin, pl *sandbox.Plugin) []*sandbox.Plugin {
	for _, x := range list {
		if x == pl {
			return list
		}
	}
	return append(list, pl)
}

// compileInBackground compiles the plugins that are not compiled yet, one
// after another in one goroutine: a call, or the browser's start, gets the
// other core. A plugin compiles once however many ask (sandbox's module),
// and a failure is met and reported by the call that needs the plugin.
func compileInBackground(plugins []*sandbox.Plugin) {
	var cold []*sandbox.Plugin
	for _, pl := range plugins {
		if !pl.Compiled() {
			cold = append(cold, pl)
		}
	}
	if len(cold) == 0 {
		return
	}
	go func() {
		for _, pl := range cold {
			pl.Compile()
		}
		// Compiling read each plugin and its code into the heap: hand
		// that garbage back now (as New does).
		debug.FreeOSMemory()
	}()
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
