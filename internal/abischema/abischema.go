// Package abischema generates the JSON Schemas of the ABI's documents
// (Manifest, Result, HookRequest) from package abi's types. The schemas
// are published in abi/schema/ for authors in any language; a test keeps
// those files equal to what this package generates.
package abischema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/invopop/jsonschema"
	validator "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wasmwright/wasmwright/abi"
)

// Documents names each published schema's file (in abi/schema/) and type.
var Documents = map[string]any{
	"manifest.schema.json":     abi.Manifest{},
	"result.schema.json":       abi.Result{},
	"hook_request.schema.json": abi.HookRequest{},
}

// Generate returns the schema of v, indented, with a final newline.
func Generate(file string, v any) ([]byte, error) {
	r := &jsonschema.Reflector{
		// Go's encoding/json fills absent fields with zero values: only
		// what is not omitempty is required.
		RequiredFromJSONSchemaTags: false,
		// Free-form JSON (json.RawMessage) is any value.
		Mapper: func(t reflect.Type) *jsonschema.Schema {
			if t == reflect.TypeOf(json.RawMessage(nil)) {
				return &jsonschema.Schema{}
			}
			return nil
		},
	}
	s := r.Reflect(v)
	s.ID = jsonschema.ID("https://wasmwright.invalid/abi/schema/" + file)
	s.Version = "https://json-schema.org/draft/2020-12/schema"
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
	schemaDoc, err := validator.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	c := validator.NewCompiler()
	if err := c.AddResource(file, schemaDoc); err != nil {
		return err
	}
	sch, err := c.Compile(file)
	if err != nil {
		return err
	}
	inst, err := validator.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return sch.Validate(inst)
}
