package host

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/browser"
)

// aimsOf reads every element a browser call acts on from its arguments:
// a ref, a point, the focus for a key without a ref, each "*_ref", a
// drag's second point, each field of a form fill. A call that names none
// (a navigation, a page scroll) is judged by its page.
func TestAimsOf(t *testing.T) {
	show := func(aims []browser.Aim) string {
		s := ""
		for _, a := range aims {
			s += "[" + a.Part + "|" + a.Ref
			if a.X != nil {
				s += fmt.Sprintf("|%v,%v", *a.X, *a.Y)
			}
			if a.Focused {
				s += "|focus"
			}
			s += "]"
		}
		return s
	}
	for args, want := range map[string]string{
		`{"ref":"e5"}`:                                               "[|e5]",
		`{"x":10,"y":20}`:                                            "[||10,20]",
		`{"key":"Enter"}`:                                            "[||focus]",
		`{"key":"Enter","ref":"f1e2"}`:                               "[|f1e2]",
		`{"ref":"e1","target_ref":"e2"}`:                             "[source|e1][target|e2]",
		`{"x":1,"y":2,"to_x":3,"to_y":4}`:                            "[source||1,2][target||3,4]",
		`{"fields":[{"ref":"e1","value":"a"},{"ref":"f2e3"}]}`:       "[field 1|e1][field 2|f2e3]",
		`{"credential":"c","password_ref":"e3","username_ref":"e2"}`: "[password|e3][username|e2]",
		`{"url":"https://a.test/"}`:                                  "",
		`{"direction":"down"}`:                                       "",
		`{"x":10}`:                                                   "",
	} {
		if got := show(aimsOf(json.RawMessage(args))); got != want {
			t.Errorf("aimsOf(%s) = %s, want %s", args, got, want)
		}
	}
}

// modeRisk: an argument a manifest names in risk_when judges the call by
// the stricter mode; an absent or empty one leaves the tool's own risk.
func TestModeRisk(t *testing.T) {
	p := &personality{cfg: PersonalityConfig{}}
	p.cfg.Approval.Modes = map[string]string{"act": ModeAsk, "eval": ModeDeny}
	spec := abi.ToolSpec{Name: "browser_sources", Risk: abi.RiskRead, RiskWhen: map[string]abi.Risk{"fetch": abi.RiskAct, "script": abi.RiskEval}}
	for args, want := range map[string]abi.Risk{
		`{}`:                         abi.RiskRead,
		`{"fetch":""}`:               abi.RiskRead,
		`{"fetch":"https://a/x.js"}`: abi.RiskAct,
		`{"fetch":"x","script":"y"}`: abi.RiskEval,
	} {
		if got := modeRisk(p, spec, json.RawMessage(args)); got != want {
			t.Errorf("modeRisk(%s) = %s, want %s", args, got, want)
		}
	}
	p.cfg.Approval.Modes = map[string]string{"upload": ModeAsk}
	up := abi.ToolSpec{Name: "browser_upload", Risk: abi.RiskUpload, RiskWhen: map[string]abi.Risk{"ref": abi.RiskAct}}
	if got := modeRisk(p, up, json.RawMessage(`{"ref":"e1"}`)); got != abi.RiskUpload {
		t.Errorf("with act allowed, an upload is judged as %s, want upload", got)
	}
}
