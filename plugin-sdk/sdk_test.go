package sdk

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
)

type greetArgs struct {
	Name  string   `json:"name" desc:"who to greet"`
	Times int      `json:"times,omitempty" min:"1" max:"3"`
	Tone  string   `json:"tone,omitempty" enum:"warm|dry"`
	Tags  []string `json:"tags,omitempty"`
}

func ExampleSchemaOf() {
	fmt.Println(string(SchemaOf(greetArgs{})))
	// Output:
	// {"additionalProperties":false,"properties":{"name":{"description":"who to greet","type":"string"},"tags":{"items":{"type":"string"},"type":"array"},"times":{"maximum":3,"minimum":1,"type":"integer"},"tone":{"enum":["warm","dry"],"type":"string"}},"required":["name"],"type":"object"}
}

func init() {
	Plugin("sdktest", "0.1.0", "unit test plugin")
	Needs("events")
	Tool("greet", "greets", func(c *Call, in greetArgs) (*abi.Result, error) {
		if in.Name == "" {
			return nil, abi.Errorf(abi.CodeInputInvalid, "name is empty")
		}
		return &abi.Result{Text: strings.Repeat("hi "+in.Name+" ", max(in.Times, 1)) + "from " + c.Session}, nil
	}, ReadOnly())
	Tool("crash", "errors plainly", func(c *Call, in struct{}) (*abi.Result, error) {
		return nil, fmt.Errorf("plain failure")
	})
	Hook(func(c *Call, req *abi.HookRequest) (*abi.HookResponse, error) {
		return &abi.HookResponse{Error: abi.Errorf(abi.CodeBotWall, "wall for %s", req.Tool)}, nil
	}, abi.HookDetect)
}

func frame(t *testing.T, tool, args string) []byte {
	b, err := abi.Frame(abi.CallHeader{Tool: tool, Session: "s9"}, []byte(args))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDispatch(t *testing.T) {
	out, isErr := Handle(abi.OpDescribe, nil)
	var m abi.Manifest
	if isErr || json.Unmarshal(out, &m) != nil || m.Name != "sdktest" || m.ABI != abi.Version() || len(m.Tools) != 2 || m.Tools[1].Name != "greet" || !m.Tools[1].ReadOnly {
		t.Fatalf("describe: %s", out)
	}
	out, isErr = Handle(abi.OpCall, frame(t, "greet", `{"name":"Ada","times":2}`))
	if isErr || !strings.Contains(string(out), `"text":"hi Ada hi Ada from s9"`) {
		t.Fatalf("greet: %s", out)
	}
	for _, c := range []struct {
		in   []byte
		code string
	}{
		{frame(t, "greet", `{"name":""}`), "input_invalid"},
		{frame(t, "greet", `{"name":5}`), "input_invalid"},
		{frame(t, "nope", `{}`), "not_found"},
		{frame(t, "crash", `{}`), "execution_failed"},
		{[]byte{1, 2}, "input_invalid"},
	} {
		out, isErr := Handle(abi.OpCall, c.in)
		if !isErr || !strings.Contains(string(out), `"code":"`+c.code+`"`) {
			t.Errorf("want %s, got %s", c.code, out)
		}
	}
	out, isErr = Handle(abi.OpHook, []byte(`{"role":"detect","tool":"browser_navigate"}`))
	if isErr || !strings.Contains(string(out), `"code":"bot_wall"`) {
		t.Fatalf("hook: %s", out)
	}
	out, _ = Handle(abi.OpSelfTest, nil)
	if string(out) != `{"ok":true}` {
		t.Fatalf("self test: %s", out)
	}
	// Host calls off the sandbox answer not_available, with a code.
	if err := EmitEvent("x", nil); err == nil || !strings.Contains(err.Error(), "not_available") {
		t.Fatalf("host call off wasm: %v", err)
	}
}
