package host

import (
	"encoding/json"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
)

// benchSchema is browser_fill_form's input schema as the browser plugin
// declares it: an object, an enum, an array of objects with required
// properties, additionalProperties false at both levels.
const benchSchema = `{"additionalProperties":false,"properties":{"fields":{"description":"the fields to fill, in order","items":{"additionalProperties":false,"properties":{"kind":{"description":"default textbox","enum":["textbox","checkbox","radio","combobox","slider"],"type":"string"},"ref":{"description":"the field's ref","type":"string"},"value":{"description":"text","type":"string"}},"required":["ref","value"],"type":"object"},"type":"array"},"snapshot":{"enum":["diff","full","none"],"type":"string"}},"required":["fields"],"type":"object"}`

// BenchmarkValidateArgs is the cost the host adds to every tool call
// before the plugin runs: decoding the arguments and checking them against
// the tool's compiled input schema.
func BenchmarkValidateArgs(b *testing.B) {
	sch, err := compileSchema([]byte(benchSchema))
	if err != nil {
		b.Fatal(err)
	}
	r := &route{spec: abi.ToolSpec{Name: "browser_fill_form"}, schema: sch}
	args := json.RawMessage(`{"fields":[{"ref":"e1","value":"ada"},{"ref":"e2","value":"true","kind":"checkbox"},{"ref":"e3","value":"Paris","kind":"combobox"}],"snapshot":"diff"}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := validateArgs(r, args); err != nil {
			b.Fatal(err)
		}
	}
}
