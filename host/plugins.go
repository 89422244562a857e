package host

import (
	"context"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/capability"
	"github.com/wasmwright/wasmwright/host/pluginset"
	"github.com/wasmwright/wasmwright/sandbox"
)

// The kernel's side of the plugin lifecycle (host/pluginset): what the
// personalities require of a new version, and the front-ends' way in.

// Swap replaces the serving version of a plugin while the host serves
// (pluginset.Set.Swap: pin, ABI, name, self-test, the grants of every
// personality that loads it; sig, when given, is its signature sidecar).
func (h *Host) Swap(ctx context.Context, name string, wasm []byte, pin string, sig ...[]byte) (*pluginset.SwapReport, error) {
	return h.plugins.Swap(ctx, name, wasm, pin, sig...)
}

// Validate runs every check Swap runs on a candidate version, without
// publishing it.
func (h *Host) Validate(ctx context.Context, name string, wasm []byte, pin string, sig ...[]byte) (abi.Manifest, error) {
	return h.plugins.Validate(ctx, name, wasm, pin, sig...)
}

// Plugins lists every configured plugin and its state.
func (h *Host) Plugins() []pluginset.PluginInfo { return h.plugins.Infos() }

// admit refuses a new version of plugin name that a personality loading
// it could not use: grants it does not hold, or a hook role it no longer
// fills.
func (ro *roster) admit(ctx context.Context, name string, p *sandbox.Plugin) error {
	for _, pn := range sortedKeys(ro.cfg.Personalities) {
		pc := ro.cfg.Personalities[pn]
		if !contains(pc.Plugins, name) {
			continue
		}
		grants, _ := capability.Parse(pc.Grants)
		if _, err := capability.Resolve(p.Manifest(), p.ImportNames(), pn, grants); err != nil {
			return abi.Errorf(abi.CodeRefused, "new version of %s: %v", name, err)
		}
		for role, hps := range pc.Hooks.byRole() {
			if contains(hps, name) && !pluginset.HasRole(p.Manifest(), role) {
				return abi.Errorf(abi.CodeRefused, "new version of %s no longer fills the %s hook that personality %s uses", name, role, pn)
			}
		}
		if err := ro.chains.admit(ctx, ro.plugins, pn, pc, name, p); err != nil {
			return err
		}
	}
	return nil
}
