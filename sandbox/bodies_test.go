package sandbox

import (
	"context"
	"testing"
)

// A compiled plugin keeps no function bodies, and instances made after
// they went run as before.
func TestDropBodies(t *testing.T) {
	ctx := context.Background()
	p, err := engine(t, Config{}).Load(ctx, "misbehave", build(t, "sandbox/testdata/misbehave"), "")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Retire(ctx)
	if err := p.Compile(); err != nil {
		t.Fatal(err)
	}
	funcs, left := dropBodies(p.compiled)
	if funcs < 100 {
		t.Fatalf("found %d functions in the compiled module: wazero's or extism's fields moved (bodies.go)", funcs)
	}
	if left != 0 {
		t.Fatalf("%d bytes of function bodies kept after the compile", left)
	}
	for i := 0; i < 3; i++ {
		if out, err := callTool(t, p, "echo", `{"n":1}`); err != nil || string(out) != `{"data":{"n":1}}` {
			t.Fatalf("echo after the bodies went: %s, %v", out, err)
		}
	}
}
