package hostfuncs

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/capability"
	"github.com/wasmwright/wasmwright/internal/abischema"
)

// enumField is one closed-set field of a request type: how to reach it
// from the request's JSON, and its values.
type enumField struct {
	path []string // JSON names; "[]" steps into a list
	set  []string
}

// enumFields lists every enum-tagged field reachable from t.
func enumFields(t reflect.Type, path []string) []enumField {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil
		}
		return enumFields(t.Elem(), append(append([]string(nil), path...), "[]"))
	case reflect.Struct:
	default:
		return nil
	}
	var out []enumField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		p := append(append([]string(nil), path...), jsonName(f))
		if set := abi.EnumOf(f); set != nil {
			if f.Type.Kind() == reflect.Slice {
				p = append(p, "[]")
			}
			out = append(out, enumField{p, set})
			continue
		}
		out = append(out, enumFields(f.Type, p)...)
	}
	return out
}

// build makes the request JSON that puts v at path.
func build(path []string, v string) any {
	if len(path) == 0 {
		return v
	}
	if path[0] == "[]" {
		return []any{build(path[1:], v)}
	}
	return map[string]any{path[0]: build(path[1:], v)}
}

// Every closed-set field of every host function's request takes exactly
// its published enum: each value reaches the handler, anything else (a
// near miss in case, a word from another field) is refused with
// input_invalid naming the field and its values before the handler runs.
func TestHostFunctionsTakeExactlyTheirEnums(t *testing.T) {
	seen := 0
	for name, hf := range abischema.HostFunctions() {
		typ := reflect.TypeOf(hf.Request)
		for _, f := range enumFields(typ, nil) {
			seen++
			check := func(v string) error {
				raw, _ := json.Marshal(build(f.path, v))
				req := reflect.New(typ)
				if err := json.Unmarshal(raw, req.Interface()); err != nil {
					t.Fatalf("%s %s: %v", name, raw, err)
				}
				return CheckEnums(req.Interface())
			}
			for _, v := range f.set {
				if err := check(v); err != nil {
					t.Errorf("%s %s=%q refused: %v", name, strings.Join(f.path, "."), v, err)
				}
			}
			for _, v := range []string{"nope", strings.ToUpper(f.set[0]) + "x"} {
				err := check(v)
				var e *abi.Error
				if !errors.As(err, &e) || e.Code != abi.CodeInputInvalid || !strings.Contains(e.Message, f.set[len(f.set)-1]) {
					t.Errorf("%s %s=%q: want input_invalid listing the values, got %v", name, strings.Join(f.path, "."), v, err)
				}
			}
		}
	}
	if seen < 19 {
		t.Fatalf("only %d closed-set fields found: the enum tags are gone", seen)
	}
}

// The typed adapter runs the check: a handler never sees a value outside
// its enum.
func TestJSONRefusesValuesOutsideEnums(t *testing.T) {
	reached := false
	fn := JSON(abi.HostBrowserAct, func(_ context.Context, _ *Caller, req abi.BrowserActRequest) (abi.Empty, error) {
		reached = true
		return abi.Empty{}, nil
	})
	c := NewCaller(CallerInfo{Plugin: "p", Grants: capability.Set{capability.BrowserAct: true}})
	ctx := WithCaller(context.Background(), c)
	_, err := fn.Fn(ctx, "p", []byte(`{"action":"tap","ref":"e1"}`))
	var e *abi.Error
	if !errors.As(err, &e) || e.Code != abi.CodeInputInvalid || !strings.Contains(e.Message, `action "tap": use click, dblclick`) {
		t.Fatalf("want input_invalid naming action's values, got %v", err)
	}
	if reached {
		t.Fatal("the handler ran on an action outside the enum")
	}
	if _, err := fn.Fn(ctx, "p", []byte(`{"action":"click","ref":"e1"}`)); err != nil || !reached {
		t.Fatalf("a listed action did not reach the handler: %v", err)
	}
}
