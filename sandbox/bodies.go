package sandbox

import (
	"reflect"
	"strings"
	"unsafe"

	extism "github.com/extism/go-sdk"
)

// wazero keeps, beside a module's compiled code, the module as it decoded
// it: the code section's function bodies among it, copied out of the
// binary (3.8 MB of Go heap for the browser plugin). Its compiler reads
// them only while it validates and compiles the module; an instance is
// made from the compiled code, the data and element segments and the
// other sections, not from the bodies. wazero offers no way to let them
// go, so dropBodies reaches them through its unexported fields (pinned:
// wazero v1.12, extism go-sdk v1.7), and does nothing where it does not
// find exactly the fields it expects (TestDropBodies says when a version
// change moved them).

// dropBodies lets go of the function bodies of a compiled plugin's main
// module and returns how many functions it found and how many bytes their
// bodies held; 0, 0 when the module was not compiled by wazero's compiler
// (its interpreter may read them later) or the fields are not where they
// were.
func dropBodies(cp *extism.CompiledPlugin) (funcs, freed int) {
	v := reflect.ValueOf(cp)
	if !v.IsValid() || v.IsNil() {
		return 0, 0
	}
	main := v.Elem().FieldByName("main")
	if !main.IsValid() || main.Kind() != reflect.Interface || main.IsNil() {
		return 0, 0
	}
	cm := main.Elem()
	if cm.Kind() != reflect.Pointer || cm.IsNil() || cm.Type().String() != "*wazero.compiledModule" {
		return 0, 0
	}
	eng := cm.Elem().FieldByName("compiledEngine")
	if !eng.IsValid() || eng.Kind() != reflect.Interface || eng.IsNil() || !strings.HasPrefix(eng.Elem().Type().String(), "*wazevo.") {
		return 0, 0
	}
	mod := cm.Elem().FieldByName("module")
	if !mod.IsValid() || mod.Kind() != reflect.Pointer || mod.IsNil() || mod.Type().String() != "*wasm.Module" {
		return 0, 0
	}
	code := mod.Elem().FieldByName("CodeSection")
	if !code.IsValid() || code.Kind() != reflect.Slice || code.Type().Elem().Kind() != reflect.Struct {
		return 0, 0
	}
	body, ok := code.Type().Elem().FieldByName("Body")
	if !ok || body.Type != reflect.TypeOf([]byte(nil)) {
		return 0, 0
	}
	// Reached through unexported fields, the section is read-only to
	// reflect: write it through its address.
	code = reflect.NewAt(code.Type(), unsafe.Pointer(code.UnsafeAddr())).Elem()
	for i := 0; i < code.Len(); i++ {
		b := code.Index(i).FieldByIndex(body.Index)
		freed += b.Cap()
		b.SetBytes(nil)
	}
	return code.Len(), freed
}
