// Package abischema generates the JSON Schemas of the ABI's documents
// (Manifest, Result, HookRequest) from package abi's types. The schemas
// are published in abi/schema/ for authors in any language; a test keeps
// those files equal to what this package generates.
package abischema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/capability"
)

// Documents names each published schema's file (in abi/schema/) and type.
var Documents = map[string]any{
	"manifest.schema.json":        abi.Manifest{},
	"result.schema.json":          abi.Result{},
	"hook_request.schema.json":    abi.HookRequest{},
	"hostfuncs/error.schema.json": abi.Error{},
}

// documentDocs is each document's description.
var documentDocs = map[string]string{
	"manifest.schema.json":        "A plugin's manifest: what its describe export returns (name, version, ABI, tools, hooks, capabilities, features, protocols).",
	"result.schema.json":          "A tool's result: what its call export returns on success (status 0).",
	"hook_request.schema.json":    "What a hook export receives: the role, the tool, the call's arguments and its result or error.",
	"hostfuncs/error.schema.json": "The error answer of every host function (status 1 on ww_NAME, the value of the top-level error key on wwx_NAME), of a tool call and of a hook: code is one of the closed set; a plugin answering any other code is reported as plugin_failed.",
}

// Description says what the published file documents: a document's own
// description, or a host function's (its request or its answer).
func Description(file string) string {
	if d, ok := documentDocs[file]; ok {
		return d
	}
	base := strings.TrimPrefix(file, "hostfuncs/")
	name, part, _ := strings.Cut(base, ".")
	f, ok := HostFunctions()["ww_"+name]
	if !ok {
		return ""
	}
	grant := "no grant needed"
	if g, _ := capability.ForHostFunc("ww_" + name); g != "" {
		grant = "grant: " + string(g)
	}
	if part == "request.schema.json" {
		return fmt.Sprintf("The request of ww_%s (import ww_%s or wwx_%s): %s (%s).", name, name, name, f.Doc, grant)
	}
	return fmt.Sprintf("The answer of ww_%s on success (a failure answers error.schema.json): %s (%s).", name, f.Doc, grant)
}

// Generate returns the schema of v, indented, with a final newline. It is
// inferred by the MCP SDK's JSON Schema library (github.com/google/
// jsonschema-go), the one the product links anyway: Go's encoding/json
// fills absent fields with zero values, so only what is not omitempty is
// required.
func Generate(file string, v any) ([]byte, error) {
	codes := []any{}
	for _, c := range abi.Codes() {
		codes = append(codes, string(c))
	}
	s, err := jsonschema.ForType(reflect.TypeOf(v), &jsonschema.ForOptions{
		TypeSchemas: map[reflect.Type]*jsonschema.Schema{
			// Free-form JSON (json.RawMessage) is any value.
			reflect.TypeFor[json.RawMessage](): {},
			// An error code is one of abi's closed set.
			reflect.TypeFor[abi.Code](): {Type: "string", Enum: codes},
		},
	})
	if err != nil {
		return nil, err
	}
	if err := addEnums(s, reflect.TypeOf(v), file); err != nil {
		return nil, err
	}
	s.Description = Description(file)
	s.ID = "https://wasmwright.invalid/abi/schema/" + file
	s.Schema = "https://json-schema.org/draft/2020-12/schema"
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Validate checks doc against the schema of the document named file (a
// key of Documents).
func Validate(file string, doc []byte) error {
	raw, err := Generate(file, Documents[file])
	if err != nil {
		return err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return err
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return err
	}
	var inst any
	if err := json.Unmarshal(doc, &inst); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return rs.Validate(inst)
}

// addEnums sets the enum of every property whose Go field carries an
// `enum` tag (abi.EnumOf), walking the type and its schema together: a
// tagged string gets the enum, a tagged list its items.
func addEnums(s *jsonschema.Schema, t reflect.Type, where string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if s.Items != nil && t.Elem().Kind() != reflect.Uint8 {
			return addEnums(s.Items, t.Elem(), where)
		}
	case reflect.Map:
		if s.AdditionalProperties != nil {
			return addEnums(s.AdditionalProperties, t.Elem(), where)
		}
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			p := s.Properties[name]
			if p == nil {
				continue
			}
			set := abi.EnumOf(f)
			if set == nil {
				if err := addEnums(p, f.Type, where+"."+name); err != nil {
					return err
				}
				continue
			}
			target := p
			if f.Type.Kind() == reflect.Slice {
				target = p.Items
			}
			if target == nil || f.Type.Kind() != reflect.String && (f.Type.Kind() != reflect.Slice || f.Type.Elem().Kind() != reflect.String) {
				return fmt.Errorf("%s.%s: an enum tag needs a string or a list of strings", where, name)
			}
			target.Enum = nil
			for _, x := range set {
				target.Enum = append(target.Enum, x)
			}
		}
	}
	return nil
}
