package host

import (
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/host/metrics"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/hostfuncs/browser"
)

// A grid browser's loss reaches the metrics with what caused it: the
// node, or the hub (stopped or restarted), so an alert on lost nodes does
// not fire for a hub restart.
func TestGridLossEventCarriesItsCause(t *testing.T) {
	m := metrics.New()
	sink := &hostfuncs.MemorySink{}
	l := &eventLog{sink: sink, observe: m.Observe}
	l.gridReport(browser.GridReport{Personality: "p", Session: "s", NodeLost: "http://10.9.1.2:5555", LostCause: "hub"})
	l.gridReport(browser.GridReport{Personality: "p", Session: "s", NodeLost: "http://10.9.1.2:5555", LostCause: "node"})
	evs := sink.Snapshot()
	if len(evs) != 2 || evs[0].Kind != EventGridNodeLost || string(evs[0].Data) != `{"cause":"hub","node":"http://10.9.1.2:5555"}` {
		t.Fatalf("events %+v", evs)
	}
	b := scrape(m)
	for _, want := range []string{`wasmwright_grid_node_lost_total{cause="hub"} 1`, `wasmwright_grid_node_lost_total{cause="node"} 1`} {
		if !strings.Contains(b, want+"\n") {
			t.Errorf("the exposition lacks %s", want)
		}
	}
}
