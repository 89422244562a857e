package abischema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// readSchema reads a published file as plain JSON.
func readSchema(t *testing.T, file string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(wasmbuild.Root(), "abi", "schema", file))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return m
}

func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// Every published schema file says what it documents.
func TestEverySchemaHasDescription(t *testing.T) {
	dir := filepath.Join(wasmbuild.Root(), "abi", "schema")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	more, _ := filepath.Glob(filepath.Join(dir, "hostfuncs", "*.json"))
	files = append(files, more...)
	if len(files) < 60 {
		t.Fatalf("only %d schema files", len(files))
	}
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		if d, _ := readSchema(t, rel)["description"].(string); len(d) < 20 {
			t.Errorf("abi/schema/%s has no description", rel)
		}
	}
}

// The error answer's schema lists abi's closed set of codes, no more, no
// fewer, in documentation order.
func TestErrorSchemaCodesAreABIs(t *testing.T) {
	s := readSchema(t, "hostfuncs/error.schema.json")
	code := s["properties"].(map[string]any)["code"].(map[string]any)
	var want []string
	for _, c := range abi.Codes() {
		want = append(want, string(c))
	}
	if got := strs(code["enum"]); !slices.Equal(got, want) {
		t.Fatalf("error.schema.json code enum %v, abi.Codes %v", got, want)
	}
	if req := strs(s["required"]); !slices.Contains(req, "code") || !slices.Contains(req, "message") {
		t.Fatalf("code and message must be required: %v", req)
	}
}

// The published files carry each closed-set field's enum as the host
// takes it (abi.EnumOf, which the host's check uses), read back from the
// files an author reads; act's action and navigate's wait_until among
// them.
func TestSchemasListEnums(t *testing.T) {
	check := func(file, prop string, typ reflect.Type, field string) {
		t.Helper()
		f, _ := typ.FieldByName(field)
		want := abi.EnumOf(f)
		if want == nil {
			t.Fatalf("%s.%s is not a closed set", typ, field)
		}
		p := readSchema(t, file)["properties"].(map[string]any)[prop].(map[string]any)
		if items, ok := p["items"].(map[string]any); ok {
			p = items
		}
		if got, _ := p["enum"].([]any); !slices.Equal(strs(got), want) {
			t.Errorf("%s %s: enum %v, the host takes %v", file, prop, got, want)
		}
	}
	act := reflect.TypeFor[abi.BrowserActRequest]()
	check("hostfuncs/browser_act.request.schema.json", "action", act, "Action")
	check("hostfuncs/browser_act.request.schema.json", "button", act, "Button")
	check("hostfuncs/browser_act.request.schema.json", "modifiers", act, "Modifiers")
	check("hostfuncs/browser_act.request.schema.json", "direction", act, "Direction")
	check("hostfuncs/browser_navigate.request.schema.json", "wait_until", reflect.TypeFor[abi.BrowserNavigateRequest](), "WaitUntil")
	check("hostfuncs/browser_tabs.request.schema.json", "action", reflect.TypeFor[abi.BrowserTabsRequest](), "Action")
	check("hostfuncs/browser_history.request.schema.json", "direction", reflect.TypeFor[abi.BrowserHistoryRequest](), "Direction")
	check("hostfuncs/browser_screenshot.request.schema.json", "mode", reflect.TypeFor[abi.BrowserScreenshotRequest](), "Mode")
	check("hostfuncs/browser_emulate.request.schema.json", "color_scheme", reflect.TypeFor[abi.BrowserEmulateRequest](), "ColorScheme")
	check("hostfuncs/browser_profile.request.schema.json", "action", reflect.TypeFor[abi.BrowserProfileRequest](), "Action")
}
