package mcp

import (
	"strings"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/hostfuncs/operator"
)

// The question put to the agent's client names every element a call acts
// on: a click by x/y the element under the point, a key press the element
// in focus, a drag both ends, each with the origin of its frame when that
// is not the origin asked for (issue 40, class 6).
func TestApprovalMessageNamesEachReceiver(t *testing.T) {
	now := time.Now()
	base := operator.Approval{Tool: "browser_drag", Risk: "act", Created: now, Deadline: now.Add(time.Minute)}
	drag := base
	drag.Origin = "http://frame.test"
	drag.Targets = []operator.Target{
		{Part: "source", Role: "listitem", Name: "Invoice", Ref: "f1e3", Origin: "http://frame.test"},
		{Part: "target", Role: "button", Name: "Trash", At: "at (40, 300)", Origin: "http://top.test"},
	}
	drag.Target = &drag.Targets[0]
	msg := ApprovalMessage(drag)
	for _, want := range []string{`source listitem "Invoice" [ref f1e3]`, `then the target button "Trash" at (40, 300) in a frame of http://top.test`, "at the origin http://frame.test."} {
		if !strings.Contains(msg, want) {
			t.Errorf("drag question %q lacks %q", msg, want)
		}
	}
	press := base
	press.Tool, press.Origin = "browser_press", "http://frame.test"
	press.Target = &operator.Target{Role: "textbox", Name: "Amount", At: "in focus", Origin: "http://frame.test"}
	if msg := ApprovalMessage(press); !strings.Contains(msg, `on the textbox "Amount" in focus, at the origin http://frame.test`) {
		t.Errorf("press question %q does not name the focused field", msg)
	}
}
