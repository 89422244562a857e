package host

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/browser"
	"github.com/wasmwright/wasmwright/hostfuncs/operator"
)

// modeRisk is the risk a call is judged by: the tool's own, or a riskier
// one its arguments make it (ToolSpec.RiskWhen: an upload that clicks, a
// source fetch that sends the session's cookies), whichever's mode is
// stricter (deny, then ask, then allow). Ties keep the tool's own.
func modeRisk(p *personality, spec abi.ToolSpec, args json.RawMessage) abi.Risk {
	risk := spec.Risk
	if len(spec.RiskWhen) == 0 {
		return risk
	}
	var m map[string]json.RawMessage
	json.Unmarshal(args, &m) // validated against the schema already
	strict := map[string]int{ModeAllow: 0, ModeAsk: 1, ModeDeny: 2}
	names := make([]string, 0, len(spec.RiskWhen))
	for arg := range spec.RiskWhen {
		names = append(names, arg)
	}
	sort.Strings(names)
	for _, arg := range names {
		r := spec.RiskWhen[arg]
		if v, given := m[arg]; given && string(v) != "null" && string(v) != `""` && r.Valid() &&
			strict[p.cfg.approvalMode(r)] > strict[p.cfg.approvalMode(risk)] {
			risk = r
		}
	}
	return risk
}

// aimsOf reads the elements a call acts on from its arguments, by the
// browser tools' conventions: "ref" and every "*_ref" (a drag's
// target_ref, a login's password_ref), each field's ref of "fields", the
// points x, y and to_x, to_y, and, for a key without a ref, the focused
// element. Nil when it names none (the page itself is judged).
func aimsOf(args json.RawMessage) []browser.Aim {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return nil
	}
	var aims []browser.Aim
	str := func(k string) string {
		var s string
		json.Unmarshal(m[k], &s)
		return s
	}
	point := func(kx, ky string) (*float64, *float64) {
		var x, y *float64
		json.Unmarshal(m[kx], &x)
		json.Unmarshal(m[ky], &y)
		if x == nil || y == nil {
			return nil, nil
		}
		return x, y
	}
	if r := str("ref"); r != "" {
		aims = append(aims, browser.Aim{Ref: r})
	} else if x, y := point("x", "y"); x != nil {
		aims = append(aims, browser.Aim{X: x, Y: y})
	} else if str("key") != "" {
		aims = append(aims, browser.Aim{Focused: true})
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if strings.HasSuffix(k, "_ref") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if r := str(k); r != "" {
			aims = append(aims, browser.Aim{Part: strings.ReplaceAll(strings.TrimSuffix(k, "_ref"), "_", " "), Ref: r})
		}
	}
	if x, y := point("to_x", "to_y"); x != nil {
		aims = append(aims, browser.Aim{Part: "target", X: x, Y: y})
	}
	var fields []struct {
		Ref string `json:"ref"`
	}
	json.Unmarshal(m["fields"], &fields)
	for i, f := range fields {
		if f.Ref != "" {
			aims = append(aims, browser.Aim{Part: fmt.Sprintf("field %d", i+1), Ref: f.Ref})
		}
	}
	if len(aims) > 1 && aims[0].Part == "" {
		aims[0].Part = "source"
		if len(fields) > 0 {
			aims[0].Part = "element"
		}
	}
	return aims
}

// boundTargets is what an approval shows of the bound elements: the
// first as Approval.Target, and every one in Targets when there are
// several.
func boundTargets(b *browser.Binding, aims []browser.Aim) (*operator.Target, []operator.Target) {
	var all []operator.Target
	title := b.PageTitle()
	for i, info := range b.Targets {
		t := operator.Target{Ref: info.Ref, Role: info.Role, Name: info.Name, Title: title, URL: b.URL, Part: info.Part, Text: info.Text, Origin: info.Origin}
		if i < len(aims) {
			switch a := aims[i]; {
			case a.Ref == "" && a.X != nil && a.Y != nil:
				t.At = fmt.Sprintf("at (%.0f, %.0f)", *a.X, *a.Y)
			case a.Focused:
				t.At = "in focus"
			}
		}
		all = append(all, t)
	}
	if len(all) == 0 {
		return nil, nil
	}
	first := all[0]
	if len(all) == 1 {
		return &first, nil
	}
	return &first, all
}
