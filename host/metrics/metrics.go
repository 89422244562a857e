// Package metrics is the host's Prometheus exposition: what a fleet's
// operators graph and alert on. It is fed from one place, the kernel's own
// events (host.Options.Observe): a tool call, a plugin swap, a withheld
// page, an approval, a takeover, a grid session are events the event log
// already records, so the counters and the log cannot disagree. Events a
// plugin emits (ww_events_emit) never reach it: a plugin cannot forge a
// metric.
//
// Each Metrics has a registry of its own, never Prometheus's global one,
// so that several hosts in one process (tests, an embedding program) do not
// collide. Every label value is bounded: tool names only as the kernel
// routed them (a made-up name counts as "unknown"), codes from abi's
// closed set, other strings cut and capped in number per label.
package metrics

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/wasmwright/wasmwright/hostfuncs"
)

// Event kinds the metrics read (the kernel's names; host/events.go,
// host/pluginset, hostfuncs/operator write them).
const (
	KindToolCall      = "tool.call"
	KindSwapped       = "plugin.swapped"
	KindSwapRefused   = "plugin.swap_refused"
	KindRolledBack    = "plugin.rolled_back"
	KindWithheld      = "page.withheld"
	KindEgressRefused = "egress.refused"
	KindApproval      = "approval.decided"
	KindTakeover      = "takeover.ended"
	KindGridSession   = "browser.grid_session"
	KindGridNodeLost  = "browser.grid_node_lost"
)

// Metrics are one host's counters, histograms and gauges.
type Metrics struct {
	reg *prometheus.Registry

	toolCalls    *prometheus.CounterVec
	callSeconds  *prometheus.HistogramVec
	gridWait     *prometheus.HistogramVec
	gridLost     *prometheus.CounterVec
	swaps        *prometheus.CounterVec
	withheld     *prometheus.CounterVec
	egress       *prometheus.CounterVec
	approvals    *prometheus.CounterVec
	takeovers    *prometheus.CounterVec
	sessionsOnce sync.Once

	// seen caps the distinct values of the labels whose values come from
	// outside the kernel's closed sets (vendors, verdicts...).
	mu   sync.Mutex
	seen map[string]map[string]bool
}

// maxValues is how many distinct values a free-text label takes before
// the rest count as "other": a detector naming a new vendor per page must
// not grow the exposition without bound.
const maxValues = 64

// New returns metrics on a registry of their own, with the Go runtime's
// and the process's collectors.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), seen: map[string]map[string]bool{}}
	f := func(c prometheus.Collector) { m.reg.MustRegister(c) }
	f(collectors.NewGoCollector())
	f(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.toolCalls = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "wasmwright_tool_calls_total",
		Help: "Tool calls answered, by tool, personality and code (ok, or the abi error code)."}, []string{"tool", "personality", "code"})
	m.callSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "wasmwright_tool_call_duration_seconds",
		Help:    "Time from a tool call's start to its answer (tool, hooks, the host's checks).",
		Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120}}, []string{"tool", "personality"})
	m.gridWait = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "wasmwright_grid_session_wait_seconds",
		Help:    "Time a new browser session waited for the Selenium Grid (its queue and the node's browser start), by code.",
		Buckets: []float64{.1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300}}, []string{"code"})
	m.gridLost = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "wasmwright_grid_node_lost_total",
		Help: "Browser sessions that lost their Selenium Grid browser while they were open, by cause: node (the node went away) or hub (the hub stopped or restarted)."}, []string{"cause"})
	m.swaps = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "wasmwright_plugin_swaps_total",
		Help: "Plugin versions swapped in, refused or rolled back, by plugin."}, []string{"plugin", "outcome"})
	m.withheld = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "wasmwright_pages_withheld_total",
		Help: "Documents a detector withheld from the agent (bot walls), by vendor."}, []string{"personality", "vendor"})
	m.egress = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "wasmwright_egress_refused_total",
		Help: "Requests of the browser's pages the egress proxy refused, by reason."}, []string{"personality", "reason"})
	m.approvals = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "wasmwright_approvals_total",
		Help: "Approvals asked of a person, by how they ended."}, []string{"personality", "verdict"})
	m.takeovers = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "wasmwright_takeovers_total",
		Help: "Takeovers (a person driving the browser), by how they ended."}, []string{"personality", "outcome"})
	for _, c := range []prometheus.Collector{m.toolCalls, m.callSeconds, m.gridWait, m.gridLost, m.swaps, m.withheld, m.egress, m.approvals, m.takeovers} {
		f(c)
	}
	return m
}

// Registry is the metrics' own registry.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the exposition (text or OpenMetrics, as the scraper asks).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg, EnableOpenMetrics: true})
}

// OpenSessions reports the open MCP sessions through n, read at each
// scrape. Only the first call counts: one front-end serves a host.
func (m *Metrics) OpenSessions(n func() int) {
	m.sessionsOnce.Do(func() {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "wasmwright_mcp_sessions",
			Help: "MCP sessions open (each holds a browser session once it browses)."}, func() float64 { return float64(n()) }))
	})
}

// Observe counts one kernel event; kinds it does not know are ignored.
func (m *Metrics) Observe(e hostfuncs.Event) {
	var d eventData
	if len(e.Data) > 0 && json.Unmarshal(e.Data, &d) != nil {
		return
	}
	pers := m.bounded("personality", e.Personality)
	switch e.Kind {
	case KindToolCall:
		tool := m.bounded("tool", d.Tool)
		if e.Plugin == "" && d.Code == "not_found" {
			// No plugin took it: the name is the agent's, not a tool's.
			tool = "unknown"
		}
		code := "ok"
		if d.Outcome != "ok" {
			code = m.bounded("code", d.Code)
		}
		m.toolCalls.WithLabelValues(tool, pers, code).Inc()
		m.callSeconds.WithLabelValues(tool, pers).Observe(float64(d.MS) / 1000)
	case KindSwapped:
		m.swaps.WithLabelValues(m.bounded("plugin", e.Plugin), "swapped").Inc()
	case KindSwapRefused:
		m.swaps.WithLabelValues(m.bounded("plugin", e.Plugin), "refused").Inc()
	case KindRolledBack:
		m.swaps.WithLabelValues(m.bounded("plugin", e.Plugin), "rolled_back").Inc()
	case KindWithheld:
		m.withheld.WithLabelValues(pers, m.bounded("vendor", d.Vendor)).Inc()
	case KindEgressRefused:
		m.egress.WithLabelValues(pers, m.bounded("reason", d.Reason)).Inc()
	case KindApproval:
		m.approvals.WithLabelValues(pers, m.bounded("verdict", d.Verdict)).Inc()
	case KindTakeover:
		m.takeovers.WithLabelValues(pers, m.bounded("outcome", d.Outcome)).Inc()
	case KindGridSession:
		code := "ok"
		if d.Code != "" {
			code = m.bounded("code", d.Code)
		}
		m.gridWait.WithLabelValues(code).Observe(float64(d.MS) / 1000)
	case KindGridNodeLost:
		// A closed set: a hub's loss is not the node's fault, and an alert
		// on lost nodes must not fire for a hub restart.
		cause := "node"
		if d.Cause == "hub" {
			cause = "hub"
		}
		m.gridLost.WithLabelValues(cause).Inc()
	}
}

// eventData is the union of the fields the counted events carry.
type eventData struct {
	Tool    string `json:"tool"`
	MS      int64  `json:"ms"`
	Outcome string `json:"outcome"`
	Code    string `json:"code"`
	Vendor  string `json:"vendor"`
	Reason  string `json:"reason"`
	Verdict string `json:"verdict"`
	Cause   string `json:"cause"`
}

// bounded is v as a label value of label: cut to 64 bytes, "none" when
// empty, "other" once the label has maxValues distinct values.
func (m *Metrics) bounded(label, v string) string {
	if v == "" {
		return "none"
	}
	if len(v) > 64 {
		v = strings.ToValidUTF8(v[:64], "")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.seen[label]
	if s == nil {
		s = map[string]bool{}
		m.seen[label] = s
	}
	if !s[v] {
		if len(s) >= maxValues {
			return "other"
		}
		s[v] = true
	}
	return v
}
