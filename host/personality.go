package host

import (
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/capability"
	"github.com/wasmwright/wasmwright/host/pluginset"
	"github.com/wasmwright/wasmwright/sandbox"
)

// personality is a resolved agent role: the tools it may call, each linked
// to a plugin with the grants that plugin holds, and its hooks.
type personality struct {
	name   string
	cfg    PersonalityConfig
	grants capability.Set
	tools  map[string]*route
	// denied maps tool names this personality cannot call to why.
	denied map[string]*abi.Error
	hooks  map[abi.HookRole]*route
	// detectors is the detector chain (hooks.detect), in its order: nil
	// where a member is not linked. chainErr is why the chain as a whole
	// may not judge pages (it lets one of the host's walls through).
	detectors []*route
	chainErr  *abi.Error
	// problems are link refusals, reported by `tools` and logged.
	problems []string
	// unloaded are the load failures of its plugins that did not load: a
	// call to a tool no loaded plugin provides answers with them.
	unloaded []*abi.Error
	// warmed is set by the first call (warm).
	warmed atomic.Bool
}

// route links a name to the plugin version that serves it.
type route struct {
	slot   *pluginset.Slot
	plugin *sandbox.Plugin
	spec   abi.ToolSpec
	grants capability.Set
	schema *jsonschema.Resolved
}

// roster is the personalities as linked against the current plugin
// versions: published whole on every swap (relink), read without a lock
// (get), and asked first whether a new version would still serve them
// (admit).
type roster struct {
	cfg     *Config
	log     *slog.Logger
	plugins *pluginset.Set
	// vision and console say whether the host has a vision model and an
	// operator console: tools that need them are not offered otherwise.
	vision, console bool
	// chains caches detector-chain checks by the members' versions
	// (detectors.go).
	chains chainChecks
	mu     sync.Mutex // serializes relinking
	cur    atomic.Pointer[map[string]*personality]
}

// relink resolves every personality against the current plugin versions
// and publishes the result atomically. Calls in flight keep the routes they
// started with.
func (ro *roster) relink() {
	ro.mu.Lock()
	defer ro.mu.Unlock()
	out := map[string]*personality{}
	for _, name := range sortedKeys(ro.cfg.Personalities) {
		out[name] = ro.link(name, ro.cfg.Personalities[name])
		for _, p := range out[name].problems {
			ro.log.Warn("personality link", "personality", name, "problem", p)
		}
	}
	ro.cur.Store(&out)
}

// link resolves one personality: its tools, each routed to the plugin
// that provides it with the grants that plugin holds, and its hooks.
func (ro *roster) link(name string, cfg PersonalityConfig) *personality {
	grants, _ := capability.Parse(cfg.Grants) // validated with the config
	p := &personality{name: name, cfg: cfg, grants: grants, tools: map[string]*route{}, denied: map[string]*abi.Error{}, hooks: map[abi.HookRole]*route{}}
	allowAll := contains(cfg.Tools, "*")
	claimed := map[string]string{}
	linked := map[string]*route{} // detectors, by plugin
	for _, pl := range cfg.Plugins {
		slot := ro.plugins.Slot(pl)
		plug, err := slot.Current()
		if err != nil {
			p.problems = append(p.problems, err.Error())
			p.unloaded = append(p.unloaded, abi.AsError(err))
			continue
		}
		pg, err := capability.Resolve(plug.Manifest(), plug.ImportNames(), name, grants)
		var refusal *abi.Error
		if err != nil {
			if r, ok := err.(*capability.Refusal); ok {
				refusal = r.AsABIError()
			} else {
				refusal = abi.Errorf(abi.CodeRefused, "%v", err)
			}
			p.problems = append(p.problems, refusal.Message)
		}
		for _, t := range plug.Manifest().Tools {
			if other, dup := claimed[t.Name]; dup {
				p.problems = append(p.problems, fmt.Sprintf("tool %s is provided by both %s and %s: %s wins", t.Name, other, pl, other))
				continue
			}
			claimed[t.Name] = pl
			switch {
			case !allowAll && !contains(cfg.Tools, t.Name):
				p.denied[t.Name] = abi.Errorf(abi.CodeRefused, "tool %s is not in personality %s's allowlist: add it to personalities.%s.tools", t.Name, name, name)
			case refusal != nil:
				p.denied[t.Name] = refusal
			default:
				if why := unoffered(t, name, grants, ro.vision, ro.console); why != nil {
					p.denied[t.Name] = why
					continue
				}
				sch, err := compileSchema(t.InputSchema)
				if err != nil {
					p.denied[t.Name] = abi.Errorf(abi.CodePluginFailed, "tool %s has an invalid input schema: %v", t.Name, err)
					p.problems = append(p.problems, p.denied[t.Name].Message)
					continue
				}
				// What clients see: the effective risk, and whether the tool
				// reaches outside the host, from what its plugin holds.
				t.Risk, t.OpenWorld = toolRisk(t), reachesOut(pg)
				p.tools[t.Name] = &route{slot: slot, plugin: plug, spec: t, grants: pg, schema: sch}
			}
		}
		if refusal != nil {
			continue
		}
		for role, hps := range cfg.Hooks.byRole() {
			if !contains(hps, pl) {
				continue
			}
			if !pluginset.HasRole(plug.Manifest(), role) {
				p.problems = append(p.problems, fmt.Sprintf("hooks.%s names plugin %s, which does not fill the %s role", role, pl, role))
				continue
			}
			r := &route{slot: slot, plugin: plug, grants: pg}
			if role == abi.HookDetect {
				linked[pl] = r
				continue
			}
			p.hooks[role] = r
		}
	}
	ro.chains.link(ro.plugins, p, linked)
	for _, t := range cfg.Tools {
		if t != "*" && claimed[t] == "" {
			p.problems = append(p.problems, fmt.Sprintf("tool %s is allowlisted but none of the personality's plugins provides it", t))
		}
	}
	return p
}

// unoffered says why personality name cannot be offered tool t, though
// its allowlist names it and its plugin was linked: a capability it does
// not grant, or a vision model or operator the host lacks; nil: offered.
func unoffered(t abi.ToolSpec, name string, grants capability.Set, hasVision, hasDesk bool) *abi.Error {
	if miss := grants.Covers(t.Capabilities); len(miss) > 0 {
		return abi.Errorf(abi.CodeRefused, "tool %s needs %s, which personality %s does not grant: add it to personalities.%s.grants",
			t.Name, strings.Join(miss, ", "), name, name).With("missing", strings.Join(miss, ","))
	}
	if !hasVision && needsVision(t) {
		return abi.Errorf(abi.CodeNotAvailable, "tool %s needs a vision model, and this host has none: the operator sets [vision] endpoint and model in the host config", t.Name)
	}
	if !hasDesk && needsTakeover(t) {
		return abi.Errorf(abi.CodeNotAvailable, "tool %s needs a human who can answer, and no operator console runs: serve with the console enabled ([console] in the config) to offer it", t.Name)
	}
	return nil
}

// hasTakeover reports whether the personality offers a takeover tool, so
// messages may name it.
func (p *personality) hasTakeover() bool {
	_, ok := p.tools[TakeoverTool]
	return ok
}

// TakeoverTool is the tool that hands a browser session to a human.
const TakeoverTool = "browser_request_takeover"

// get returns a resolved personality by name ("" = the default).
func (ro *roster) get(name string) (*personality, error) {
	if name == "" {
		name = ro.cfg.Host.DefaultPersonality
	}
	if name == "" {
		return nil, abi.Errorf(abi.CodeInputInvalid, "no personality given and no host.default_personality set: pass --personality")
	}
	p, ok := (*ro.cur.Load())[name]
	if !ok {
		return nil, abi.Errorf(abi.CodeNotFound, "unknown personality %q (known: %s)", name, strings.Join(sortedKeys(ro.cfg.Personalities), ", "))
	}
	return p, nil
}

// Tools lists the tools a personality may call, sorted by name.
func (h *Host) Tools(personalityName string) ([]abi.ToolSpec, error) {
	p, err := h.roster.get(personalityName)
	if err != nil {
		return nil, err
	}
	out := make([]abi.ToolSpec, 0, len(p.tools))
	for _, r := range p.tools {
		out = append(out, r.spec)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Problems lists why parts of a personality are unavailable.
func (h *Host) Problems(personalityName string) ([]string, error) {
	p, err := h.roster.get(personalityName)
	if err != nil {
		return nil, err
	}
	return append([]string(nil), p.problems...), nil
}

// Personalities lists the configured personality names.
func (h *Host) Personalities() []string { return sortedKeys(h.cfg.Personalities) }

// DefaultPersonality is the personality used when none is named.
func (h *Host) DefaultPersonality() string { return h.cfg.Host.DefaultPersonality }
