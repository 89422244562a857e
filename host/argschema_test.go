package host

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
)

// argSchema uses every keyword the first-party tools declare (types and a
// type list, enum, minimum and maximum, required, additionalProperties
// false, arrays of objects) and the string ones a third-party tool may.
const argSchema = `{
	"type": "object",
	"properties": {
		"url": {"type": "string", "minLength": 1, "pattern": "^https?://"},
		"count": {"type": "integer", "minimum": 1, "maximum": 10},
		"mode": {"type": "string", "enum": ["diff", "full"]},
		"submit": {"type": ["boolean", "string"]},
		"tags": {"type": "array", "maxItems": 2, "items": {"type": "string", "maxLength": 3}},
		"fields": {"type": "array", "items": {
			"type": "object",
			"properties": {"ref": {"type": "string"}, "value": {"type": "string"}},
			"required": ["ref", "value"],
			"additionalProperties": false
		}}
	},
	"required": ["url"],
	"additionalProperties": false
}`

// TestArgsSchemaMessages: the arguments a schema refuses are input_invalid
// with every problem named by the argument's path, and those it accepts
// pass.
func TestArgsSchemaMessages(t *testing.T) {
	sch, err := compileSchema([]byte(argSchema))
	if err != nil {
		t.Fatal(err)
	}
	r := &route{spec: abi.ToolSpec{Name: "t"}, schema: sch}
	for _, c := range []struct{ args, want string }{
		{`{"url":"https://a.example"}`, ""},
		{`{"url":"http://a","count":10,"mode":"full","submit":"e3","tags":["a","bc"],"fields":[{"ref":"e1","value":""}]}`, ""},
		{`{"url":"https://a","submit":true,"count":1.0}`, ""},
		{`{"ur":"x"}`, "additional properties 'ur' not allowed; missing property 'url'"},
		{`{}`, "missing property 'url'"},
		{`{"url":5}`, "at '/url': got number, want string"},
		{`{"url":null}`, "at '/url': got null, want string"},
		{`{"url":""}`, "at '/url': '' does not match pattern '^https?://'; at '/url': minLength: got 0, want 1"},
		{`{"url":"ftp://a"}`, "at '/url': 'ftp://a' does not match pattern '^https?://'"},
		{`{"url":"http://a","count":0}`, "at '/count': minimum: got 0, want 1"},
		{`{"url":"http://a","count":11}`, "at '/count': maximum: got 11, want 10"},
		{`{"url":"http://a","count":1.5}`, "at '/count': got number, want integer"},
		{`{"url":"http://a","mode":"part"}`, "at '/mode': value must be one of 'diff', 'full'"},
		{`{"url":"http://a","submit":3}`, "at '/submit': got number, want boolean or string"},
		{`{"url":"http://a","tags":["a","b","c"]}`, "at '/tags': maxItems: got 3, want 2"},
		{`{"url":"http://a","tags":["a","long"]}`, "at '/tags/1': maxLength: got 4, want 3"},
		{`{"url":"http://a","fields":[{"ref":"e1","value":"v"},{"ref":"e2","x":1}]}`, "at '/fields/1': additional properties 'x' not allowed; at '/fields/1': missing property 'value'"},
		{`{"url":"http://a","fields":[{}]}`, "at '/fields/0': missing properties 'ref', 'value'"},
		{`{"url":"http://a","count":"3","mode":"x"}`, "at '/count': got string, want integer; at '/mode': value must be one of 'diff', 'full'"},
		{`[]`, "arguments of t must be a JSON object"},
		{`{"url":`, "arguments of t are not valid JSON"},
	} {
		err := validateArgs(r, json.RawMessage(c.args))
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: refused: %v", c.args, err)
			}
			continue
		}
		if errCode(err) != abi.CodeInputInvalid || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: want input_invalid with %q, got %v", c.args, c.want, err)
		}
	}
}

// TestArgsSchemaBeyondDescribe: a keyword the messages do not spell out
// (oneOf) still refuses, in the library's words.
func TestArgsSchemaBeyondDescribe(t *testing.T) {
	sch, err := compileSchema([]byte(`{"type":"object","oneOf":[{"required":["a"]},{"required":["b"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	r := &route{spec: abi.ToolSpec{Name: "t"}, schema: sch}
	if err := validateArgs(r, json.RawMessage(`{"a":1}`)); err != nil {
		t.Fatalf("one of: %v", err)
	}
	err = validateArgs(r, json.RawMessage(`{"a":1,"b":2}`))
	if errCode(err) != abi.CodeInputInvalid || !strings.Contains(err.Error(), "oneOf: validated against both") || strings.Contains(err.Error(), "validating root") {
		t.Fatalf("both: %v", err)
	}
}

// TestCompileSchemaRefuses: a schema that could not check arguments as
// its author meant is refused when the tool links, not at every call.
func TestCompileSchemaRefuses(t *testing.T) {
	for _, c := range []struct{ schema, want string }{
		{`{"type":"object","properties":{"a":{"type":"strin"}}}`, `at #/properties/a: unknown type "strin"`},
		{`{"type":"object","properties":{"a":{"type":"array","items":{"type":["string","nul"]}}}}`, `at #/properties/a/items: unknown type "nul"`},
		{`{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object"}`, "is not supported"},
		{`{"type":"object","properties":{"a":{"type":"string","pattern":"("}}}`, "pattern"},
		{`{"type":"object","minimum":"one"}`, "minimum"},
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/b"}}}`, "b"},
	} {
		if _, err := compileSchema([]byte(c.schema)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: want an error with %q, got %v", c.schema, c.want, err)
		}
	}
	for _, ok := range []string{`{}`, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`, `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`} {
		if _, err := compileSchema([]byte(ok)); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}
