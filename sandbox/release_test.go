package sandbox

import (
	"context"
	"testing"
)

// Release drops a version's compiled code and idle instances (the host's
// start-up self-test ran it, nothing serves it yet), and the next call
// compiles it again from the cache folder. The code lives in a
// compilation cache of the version's own, closed with it: wazero keeps
// everything compiled through a cache in memory until that cache closes,
// so a cache shared by all versions held a released or retired version's
// code for the engine's lifetime.
func TestReleaseDropsCompiledCode(t *testing.T) {
	ctx := context.Background()
	// The package's shared cache folder: a per-compile cache over it is
	// still the version's own, and a compile from it is what a call after
	// Release does.
	e := engine(t, Config{})
	p, err := e.Load(ctx, "misbehave", build(t, "sandbox/testdata/misbehave"), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := callTool(t, p, "echo", `{}`); err != nil {
		t.Fatal(err)
	}
	own := p.cache
	if e.Modules() != 1 || p.Instances() == 0 || own == nil || own == e.cache {
		t.Fatalf("after a call: %d modules, %d instances, own cache %v", e.Modules(), p.Instances(), own != nil && own != e.cache)
	}
	if err := p.Release(); err != nil {
		t.Fatal(err)
	}
	if e.Modules() != 0 || p.Instances() != 0 || p.Compiled() || p.cache != nil {
		t.Fatalf("after Release: %d modules, %d instances, compiled %v", e.Modules(), p.Instances(), p.Compiled())
	}
	if _, err := callTool(t, p, "echo", `{}`); err != nil {
		t.Fatalf("a call after Release must compile it again: %v", err)
	}
	if e.Modules() != 1 || p.cache == nil || p.cache == own {
		t.Fatalf("after the next call: %d modules, a fresh own cache %v", e.Modules(), p.cache != nil && p.cache != own)
	}
	if err := p.Retire(ctx); err != nil {
		t.Fatal(err)
	}
	if e.Modules() != 0 || p.Instances() != 0 || p.cache != nil {
		t.Fatalf("after Retire: %d modules, %d instances", e.Modules(), p.Instances())
	}
}

// ForgetBytes lets a version's bytes go once it is compiled (at its first
// call here, its manifest coming from the cache), and the version goes on
// serving from its compiled code; Release then keeps that code, having
// nothing to compile it again from.
func TestForgetBytesAfterCompile(t *testing.T) {
	ctx := context.Background()
	e := engine(t, Config{})
	wasm := build(t, "sandbox/testdata/misbehave")
	if p, err := e.Load(ctx, "misbehave", wasm, ""); err != nil { // described: the cache has its manifest
		t.Fatal(err)
	} else {
		p.Retire(ctx)
	}
	p, err := e.Load(ctx, "misbehave", wasm, "")
	if err != nil {
		t.Fatal(err)
	}
	if p.Compiled() {
		t.Fatal("a version described before compiled at Load")
	}
	p.ForgetBytes()
	if p.wasm == nil {
		t.Fatal("ForgetBytes dropped the bytes of a version not compiled yet")
	}
	if _, err := callTool(t, p, "echo", `{}`); err != nil {
		t.Fatal(err)
	}
	if p.wasm != nil {
		t.Fatal("the bytes outlived the compile")
	}
	if err := p.Release(); err != nil || !p.Compiled() {
		t.Fatalf("Release after ForgetBytes: %v, compiled %v", err, p.Compiled())
	}
	if _, err := callTool(t, p, "echo", `{}`); err != nil {
		t.Fatalf("a call after ForgetBytes and Release: %v", err)
	}
	p.Retire(ctx)
}
