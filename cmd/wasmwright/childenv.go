package main

import "os"

// leanDriverEnv is the environment the Playwright driver (node) gets from
// wasmwright unless the operator set these variables: playwright-go
// starts the driver with this process's environment, so setting them here
// (before the host opens, hence before any driver starts) is what reaches
// it. One session's driver measured 78 MB of private memory with node's
// defaults and 53 MB with these (after a navigate and a snapshot; the
// startup bench's -parts), the calls no slower:
//
//   - NODE_OPTIONS --max-semi-space-size: V8's young generation grows to
//     two semi-spaces of 16 MB each and stays that size; the driver's
//     short-lived objects (protocol messages, snapshots on their way
//     through) fit in 2 MB ones, at a few more cheap scavenges (-14 MB);
//   - MALLOC_TRIM_THRESHOLD_: glibc raises its trim threshold as the
//     program frees large blocks, and then keeps up to 64 MB of freed heap
//     instead of handing it back; a fixed 128 KB (its starting value)
//     gives it back (-12 MB);
//   - MALLOC_ARENA_MAX: an arena per thread that ever allocated, each
//     keeping its own free memory; two are plenty for a process whose work
//     is one JavaScript thread (-2 MB).
//
// Chromium, which the driver starts with this same environment, ignores
// NODE_OPTIONS and allocates through its own allocator, not glibc's: its
// processes held the same 131 MB either way. An operator's own value of
// any of them wins (NODE_OPTIONS as a whole).
var leanDriverEnv = []struct{ name, value string }{
	{"NODE_OPTIONS", "--max-semi-space-size=2"},
	{"MALLOC_TRIM_THRESHOLD_", "131072"},
	{"MALLOC_ARENA_MAX", "2"},
}

// setLeanDriverEnv sets leanDriverEnv's variables the environment lacks
// and returns the ones it set.
func setLeanDriverEnv() []string {
	var set []string
	for _, v := range leanDriverEnv {
		if _, ok := os.LookupEnv(v.name); ok {
			continue
		}
		if os.Setenv(v.name, v.value) == nil {
			set = append(set, v.name)
		}
	}
	return set
}
