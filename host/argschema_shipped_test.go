package host

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
)

// shippedArgs are arguments of first-party tools, checked against the
// schemas the built plugins declare: each good one passes, each bad one
// is input_invalid with the words given. They cover every keyword those
// schemas use: required, additionalProperties false, enum, minimum and
// maximum, integer and number, a type list, arrays of strings and of
// objects.
var shippedArgs = []struct{ tool, args, want string }{
	{"browser_navigate", `{"url":"https://a.example","wait_until":"load","timeout_seconds":2.5,"snapshot":"none"}`, ""},
	{"browser_navigate", `{}`, "missing property 'url'"},
	{"browser_navigate", `{"url":"x","wait_until":"idle"}`, "at '/wait_until': value must be one of 'load', 'domcontentloaded', 'networkidle', 'commit'"},
	{"browser_navigate", `{"url":"x","timeout_seconds":121}`, "at '/timeout_seconds': maximum: got 121, want 120"},
	{"browser_navigate", `{"url":"x","timeout_seconds":0.5}`, "at '/timeout_seconds': minimum: got 0.5, want 1"},
	{"browser_navigate", `{"url":["x"]}`, "at '/url': got array, want string"},
	{"browser_click", `{"ref":"e3","button":"right","double":true,"modifiers":["Shift"]}`, ""},
	{"browser_click", `{"x":10.5,"y":3}`, ""},
	{"browser_click", `{"ref":"e3","button":"wheel"}`, "at '/button': value must be one of 'left', 'right', 'middle'"},
	{"browser_click", `{"modifiers":["Shift",1]}`, "at '/modifiers/1': got number, want string"},
	{"browser_click", `{"double":"yes"}`, "at '/double': got string, want boolean"},
	{"browser_fill_form", `{"fields":[{"ref":"e1","value":"ada"},{"ref":"e2","value":"true","kind":"checkbox"}]}`, ""},
	{"browser_fill_form", `{"fields":[{"ref":"e1"}]}`, "at '/fields/0': missing property 'value'"},
	{"browser_fill_form", `{"fields":[{"ref":"e1","value":"v","kind":"toggle"}]}`, "at '/fields/0/kind': value must be one of"},
	{"browser_fill_form", `{"fields":[{"ref":"e1","value":"v","label":"x"}]}`, "at '/fields/0': additional properties 'label' not allowed"},
	{"browser_fill_form", `{"fields":{"ref":"e1"}}`, "at '/fields': got object, want array"},
	{"browser_fill_credential", `{"credential":"github","submit":true}`, ""},
	{"browser_fill_credential", `{"credential":"github","submit":"e9"}`, ""},
	{"browser_fill_credential", `{"credential":"github","submit":1}`, "at '/submit': got number, want boolean or string"},
	{"browser_tabs", `{"action":"select","index":0}`, ""},
	{"browser_tabs", `{"action":"select","index":-1}`, "at '/index': minimum: got -1, want 0"},
	{"browser_tabs", `{"action":"select","index":1.5}`, "at '/index': got number, want integer"},
	{"browser_resize", `{"width":1280,"height":720}`, ""},
	{"browser_resize", `{"width":100}`, "at '/width': minimum: got 100, want 200; missing property 'height'"},
	{"browser_emulate", `{"latitude":-90,"longitude":180,"color_scheme":"dark"}`, ""},
	{"browser_emulate", `{"latitude":90.5}`, "at '/latitude': maximum: got 90.5, want 90"},
	{"browser_snapshot", `{"snapshot":"none"}`, "at '/snapshot': value must be one of 'diff', 'full'"},
	{"browser_dialog", `{"accept":false}`, ""},
	{"browser_dialog", `{"accept":null}`, "at '/accept': got null, want boolean"},
	{"browser_select", `{"ref":"e2","values":["a","b"]}`, ""},
	{"browser_screenshot", `{"format":"gif","quality":101}`, "at '/format': value must be one of 'png', 'jpeg', 'webp'; at '/quality': maximum: got 101, want 100"},
	{"browser_wait_for", `{"seconds":0}`, ""},
	{"browser_wait_for", `{"seconds":31}`, "at '/seconds': maximum: got 31, want 30"},
	{"extract_links", `{"html":"<a href=/a>A</a>","max":1}`, ""},
	{"extract_links", `{"html":"x","max":0}`, "at '/max': minimum: got 0, want 1"},
	{"web_fetch", `{"url":"https://a.example","max_chars":100}`, ""},
	{"web_fetch", `{"url":"https://a.example","max_chars":"100"}`, "at '/max_chars': got string, want integer"},
}

// checkShippedSchemas runs shippedArgs through the routes of the
// personality named, and refuses an unknown argument in every tool it
// serves (each first-party schema sets additionalProperties false): it
// fails if the host stopped checking arguments.
func checkShippedSchemas(t *testing.T, p *personality) {
	for _, c := range shippedArgs {
		r, ok := p.tools[c.tool]
		if !ok {
			t.Errorf("%s: not served by personality %s", c.tool, p.name)
			continue
		}
		err := validateArgs(r, json.RawMessage(c.args))
		if c.want == "" {
			if err != nil {
				t.Errorf("%s %s: refused: %v", c.tool, c.args, err)
			}
		} else if errCode(err) != abi.CodeInputInvalid || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: want input_invalid with %q, got %v", c.tool, c.args, c.want, err)
		}
	}
	names := make([]string, 0, len(p.tools))
	for name := range p.tools {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		err := validateArgs(p.tools[name], json.RawMessage(`{"no_such_argument":1}`))
		if errCode(err) != abi.CodeInputInvalid || !strings.Contains(err.Error(), "additional properties 'no_such_argument' not allowed") {
			t.Errorf("%s: an unknown argument: want input_invalid, got %v", name, err)
		}
	}
}
