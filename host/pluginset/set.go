// Package pluginset is the plugin lifecycle under the kernel: one slot per
// configured plugin, loaded (pin, signature, self-test), kept as its last
// good version, swapped while serving, watched for file drops, and rolled
// back when its hooks keep failing. The kernel (host) owns a Set and
// decides what the config and the personalities require through Options;
// this package does not import the kernel.
package pluginset

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/sandbox"
)

// Options are what the kernel decides for the set.
type Options struct {
	Engine *sandbox.Engine
	Logger *slog.Logger
	// Emit writes an event (plugin.swapped, plugin.rolled_back...).
	Emit func(hostfuncs.Event)
	// Hooks bound each hook call (host.hook_fuel_per_kb, host.hook_timeout);
	// RollbackAfter is host.rollback_after (all with their defaults
	// applied).
	Hooks         HookLimits
	RollbackAfter int
	// ConfigPin is plugins.NAME.sha256, "" when the config does not pin it.
	ConfigPin func(name string) string
	// CheckSignature refuses a version whose signature a personality
	// loading the plugin requires and that does not verify.
	CheckSignature func(name string, wasm, sig []byte) error
	// Admit checks a candidate version against every personality loading
	// it (grants, hook roles) before a swap publishes it.
	Admit func(ctx context.Context, name string, p *sandbox.Plugin) error
	// Published is told a new version serves (the kernel relinks).
	Published func()
}

// Set is the slots of the configured plugins. It is safe for concurrent
// use.
type Set struct {
	o     Options
	eng   *sandbox.Engine
	log   *slog.Logger
	slots map[string]*Slot
	// watchStop stops the plugins-folder watcher (Watch).
	watchStop func()
}

// Load makes a slot for each plugin (name → file) and loads it: its file,
// or its last good version. A plugin that does not load leaves its slot
// unavailable, with the reason; it does not fail the set.
func Load(ctx context.Context, files map[string]string, o Options) *Set {
	set := &Set{o: o, eng: o.Engine, log: o.Logger, slots: map[string]*Slot{}}
	for _, name := range sortedKeys(files) {
		s := &Slot{Name: name, File: files[name]}
		set.slots[name] = s
		set.loadSlot(ctx, s)
	}
	return set
}

// Slot is the slot of a configured plugin, nil for an unknown name.
func (set *Set) Slot(name string) *Slot { return set.slots[name] }

// StopWatching stops the plugins-folder watcher, if Watch started one.
func (set *Set) StopWatching() {
	if set.watchStop != nil {
		set.watchStop()
	}
}

// Close retires every version.
func (set *Set) Close(ctx context.Context) error {
	var errs []error
	for _, s := range set.slots {
		if p := s.cur.Swap(nil); p != nil {
			errs = append(errs, p.Retire(ctx))
		}
	}
	return errors.Join(errs...)
}

func (set *Set) emit(e hostfuncs.Event) {
	if set.o.Emit != nil {
		set.o.Emit(e)
	}
}

// HasRole reports whether a plugin's manifest fills a hook role.
func HasRole(m abi.Manifest, role abi.HookRole) bool {
	return slices.Contains(m.Hooks, role)
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
