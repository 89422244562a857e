// Package abischema generates the JSON Schemas of the ABI's documents
// (Manifest, Result, HookRequest) from package abi's types. The schemas
// are published in abi/schema/ for authors in any language; a test keeps
// those files equal to what this package generates.
package abischema

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/wasmwright/wasmwright/abi"
)

// Documents names each published schema's file (in abi/schema/) and type.
var Documents = map[string]any{
	"manifest.schema.json":     abi.Manifest{},
	"result.schema.json":       abi.Result{},
	"hook_request.schema.json": abi.HookRequest{},
}

// Generate returns the schema of v, indented, with a final newline. It is
// inferred by the MCP SDK's JSON Schema library (github.com/google/
// jsonschema-go), the one the product links anyway: Go's encoding/json
// fills absent fields with zero values, so only what is not omitempty is
// required.
func Generate(file string, v any) ([]byte, error) {
	s, err := jsonschema.ForType(reflect.TypeOf(v), &jsonschema.ForOptions{
		// Free-form JSON (json.RawMessage) is any value.
		TypeSchemas: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[json.RawMessage](): {}},
	})
	if err != nil {
		return nil, err
	}
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
