package browser

import (
	"reflect"
	"slices"
	"sort"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
)

// enumOf is the published enum of one field of an abi type.
func enumOf(t *testing.T, typ reflect.Type, field string) []string {
	t.Helper()
	f, ok := typ.FieldByName(field)
	if !ok {
		t.Fatalf("%s has no field %s", typ, field)
	}
	set := abi.EnumOf(f)
	if set == nil {
		t.Fatalf("%s.%s has no enum tag", typ, field)
	}
	return set
}

// Every value a closed-set request field's schema lists is one the
// handler takes: the generic check (hostfuncs.CheckEnums) refuses
// everything outside the enum before a handler runs, so together the host
// accepts exactly the published enum. A value added to a tag that the
// handler does not know fails here.
func TestEnumValuesHandled(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	act := reflect.TypeFor[abi.BrowserActRequest]()
	var keys []string
	for k := range actKinds {
		keys = append(keys, k)
	}
	want := enumOf(t, act, "Action")
	sort.Strings(keys)
	sorted := slices.Sorted(slices.Values(want))
	if !slices.Equal(keys, sorted) {
		t.Errorf("act actions handled %v, published %v", keys, sorted)
	}
	for _, v := range enumOf(t, reflect.TypeFor[abi.BrowserNavigateRequest](), "WaitUntil") {
		if _, err := waitUntil(v); err != nil {
			t.Errorf("wait_until %q: %v", v, err)
		}
	}
	for _, v := range enumOf(t, act, "Button") {
		if _, err := mouseButton(v); err != nil {
			t.Errorf("button %q: %v", v, err)
		}
	}
	if _, err := modifiers(enumOf(t, act, "Modifiers")); err != nil {
		t.Errorf("modifiers: %v", err)
	}
	for _, v := range enumOf(t, act, "Direction") {
		if _, _, err := scrollDelta(nil, v, 10); err != nil {
			t.Errorf("direction %q: %v", v, err)
		}
	}
	for _, v := range enumOf(t, reflect.TypeFor[abi.BrowserScreenshotRequest](), "Format") {
		if _, err := imageFormat(v, 0); err != nil {
			t.Errorf("screenshot format %q: %v", v, err)
		}
	}
}
