package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmwright/wasmwright/abi"
)

// toolOf converts a plugin's tool spec. MCP wants an object schema; a spec
// without a type gets "object" (the host only accepts object arguments).
func toolOf(spec abi.ToolSpec) (*sdk.Tool, error) {
	t := &sdk.Tool{Name: spec.Name, Description: spec.Description}
	var schema map[string]any
	if len(spec.InputSchema) > 0 {
		if err := json.Unmarshal(spec.InputSchema, &schema); err != nil {
			return nil, fmt.Errorf("input schema is not a JSON object: %v", err)
		}
	}
	switch typ := schema["type"]; {
	case typ == "object":
		t.InputSchema = spec.InputSchema // as the plugin wrote it
	case typ == nil:
		if schema == nil {
			schema = map[string]any{}
		}
		schema["type"] = "object"
		t.InputSchema = schema
	default:
		return nil, fmt.Errorf("input schema has type %v; MCP tools take an object", typ)
	}
	t.Title = toolTitle(spec)
	t.Annotations = annotations(spec)
	return t, nil
}

// annotations are the MCP hints matching a tool's risk (clients decide
// what to auto-approve from them): read is read-only and idempotent;
// navigate and download change no page state a user cares about (not
// destructive); act, eval, credential and upload may (destructive). Open
// world: the tool reaches pages or the network.
func annotations(spec abi.ToolSpec) *sdk.ToolAnnotations {
	risk := spec.Risk
	if !risk.Valid() { // the host sets it; a spec without one counts as act
		risk = abi.RiskAct
		if spec.ReadOnly {
			risk = abi.RiskRead
		}
	}
	a := &sdk.ToolAnnotations{Title: toolTitle(spec), OpenWorldHint: &spec.OpenWorld}
	destructive := true
	switch risk {
	case abi.RiskRead:
		a.ReadOnlyHint, a.IdempotentHint, destructive = true, true, false
	case abi.RiskNavigate, abi.RiskDownload:
		destructive = false
	}
	a.DestructiveHint = &destructive
	return a
}

// toolTitle is the spec's title, or its name in words ("browser_click":
// "Browser click").
func toolTitle(spec abi.ToolSpec) string {
	if spec.Title != "" {
		return spec.Title
	}
	words := strings.ReplaceAll(spec.Name, "_", " ")
	if words == "" {
		return ""
	}
	return strings.ToUpper(words[:1]) + words[1:]
}
