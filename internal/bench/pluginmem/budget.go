package main

import "github.com/wasmwright/wasmwright/sandbox"

// setBudget sets the host-wide budget (a file of its own: a build of code
// from before the budget replaces it with one that does nothing).
func setBudget(cfg *sandbox.Config, mb int) {
	cfg.MaxPluginMemory = uint64(mb) << 20
}
