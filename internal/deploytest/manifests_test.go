// Package deploytest checks the Kubernetes manifests in deploy/kubernetes
// against the binary they run: every file parses, the probes ask the
// paths and port serve offers, the ConfigMap's TOML loads with the host's
// own config loader, and the NetworkPolicy and the Selenium chart's values
// name the ports, labels and hub the config uses. A module of its own, so
// the YAML parser stays out of the product's go.mod.
package deploytest

import (
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/wasmwright/wasmwright/host"
)

const dir = "../../deploy/kubernetes"

// obj is one parsed manifest.
type obj = map[string]any

// at walks m by keys (a string key, or an int index into a list).
func at(m any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			mm, _ := m.(map[string]any)
			m = mm[k]
		case int:
			l, _ := m.([]any)
			if k >= len(l) {
				return nil
			}
			m = l[k]
		}
	}
	return m
}

func str(m any, path ...any) string { s, _ := at(m, path...).(string); return s }

func num(m any, path ...any) int {
	f, _ := at(m, path...).(float64)
	return int(f)
}

func list(m any, path ...any) []any { l, _ := at(m, path...).([]any); return l }

// manifests parses every document of every .yaml file but the chart's
// values, by kind/name.
func manifests(t *testing.T) (map[string]obj, []string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in %s: %v", dir, err)
	}
	out := map[string]obj{}
	var names []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(b), -1) {
			var o obj
			if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
				t.Fatalf("%s, document %d: %v", f, i+1, err)
			}
			if o == nil {
				continue
			}
			base := filepath.Base(f)
			if base == "selenium-values.yaml" {
				out["values"] = o
				continue
			}
			kind, name := str(o, "kind"), str(o, "metadata", "name")
			if kind == "" || (name == "" && kind != "Kustomization") || str(o, "apiVersion") == "" {
				t.Errorf("%s, document %d: want apiVersion, kind and metadata.name", f, i+1)
			}
			out[kind+"/"+name] = o
			if kind != "Kustomization" {
				names = append(names, base)
			}
		}
	}
	return out, names
}

func must(t *testing.T, m map[string]obj, key string) obj {
	t.Helper()
	o, ok := m[key]
	if !ok {
		t.Fatalf("no %s in %s", key, dir)
	}
	return o
}

// TestManifests checks the manifests against each other and the binary.
func TestManifests(t *testing.T) {
	m, files := manifests(t)
	kust := must(t, m, "Kustomization/")
	var res []string
	for _, r := range list(kust, "resources") {
		res = append(res, r.(string))
	}
	for _, f := range files {
		if !slices.Contains(res, f) {
			t.Errorf("kustomization.yaml does not apply %s", f)
		}
	}
	sts := must(t, m, "StatefulSet/wasmwright")
	c := at(sts, "spec", "template", "spec", "containers", 0)
	ports := map[string]int{}
	for _, p := range list(c, "ports") {
		ports[str(p, "name")] = num(p, "containerPort")
	}
	cfg, bn := hostConfig(t, m, c)
	probes(t, c, ports)
	if _, port, _ := strings.Cut(cfg.Serve.HTTP, ":"); strconv.Itoa(ports["mcp"]) != port {
		t.Errorf("serve.http %s: want the mcp containerPort %d", cfg.Serve.HTTP, ports["mcp"])
	}
	services(t, m, sts, ports)
	policies(t, m, bn)
	values(t, m, cfg)
	pdb := must(t, m, "PodDisruptionBudget/wasmwright")
	if str(pdb, "spec", "selector", "matchLabels", "app.kubernetes.io/name") != "wasmwright" {
		t.Error("the PodDisruptionBudget does not select the hosts")
	}
}

// probes: readiness asks /readyz and liveness /healthz on the port of
// --metrics-addr, where serve offers them.
func probes(t *testing.T, c any, ports map[string]int) {
	var metrics string
	for _, a := range list(c, "args") {
		if v, ok := strings.CutPrefix(a.(string), "--metrics-addr="); ok {
			metrics = v
		}
	}
	_, mport, err := net.SplitHostPort(metrics)
	if err != nil {
		t.Fatalf("serve's --metrics-addr %q: %v", metrics, err)
	}
	for probe, path := range map[string]string{"readinessProbe": "/readyz", "livenessProbe": "/healthz"} {
		p := at(c, probe, "httpGet")
		if str(p, "path") != path {
			t.Errorf("%s asks %q, want %s", probe, str(p, "path"), path)
		}
		port := num(p, "port")
		if name := str(p, "port"); name != "" {
			port = ports[name]
		}
		if strconv.Itoa(port) != mport {
			t.Errorf("%s on port %d, want the metrics listener's %s", probe, port, mport)
		}
	}
}

// hostConfig loads the ConfigMap's TOML with the host's loader, the pod's
// IP given as the downward API would (POD_IP); the container mounts that
// ConfigMap where --config points.
func hostConfig(t *testing.T, m map[string]obj, c any) (*host.Config, browserNet) {
	t.Helper()
	cm := must(t, m, "ConfigMap/wasmwright")
	text := str(cm, "data", "wasmwright.toml")
	if !strings.Contains(text, "${POD_IP}") {
		t.Error("the config does not take the pod's IP from ${POD_IP}")
	}
	var env []string
	for _, e := range list(c, "env") {
		env = append(env, str(e, "name"))
		if str(e, "name") == "POD_IP" && str(e, "valueFrom", "fieldRef", "fieldPath") != "status.podIP" {
			t.Error("POD_IP is not the pod's status.podIP")
		}
	}
	if !slices.Contains(env, "POD_IP") {
		t.Error("the container has no POD_IP")
	}
	var mount string
	for _, v := range list(c, "volumeMounts") {
		if str(v, "name") == "config" {
			mount = str(v, "mountPath")
		}
	}
	if !slices.Contains(list(c, "args"), any("--config="+mount+"/wasmwright.toml")) {
		t.Errorf("serve's --config does not name the mounted ConfigMap (%s/wasmwright.toml): %v", mount, list(c, "args"))
	}
	// The loader reads ${VAR} from the environment; done here too, so the
	// check holds whichever loader this tree has.
	const podIP = "10.42.0.7"
	t.Setenv("POD_IP", podIP)
	cfg, err := host.ParseConfig(strings.ReplaceAll(text, "${POD_IP}", podIP), "configmap.yaml", t.TempDir())
	if err != nil {
		t.Fatalf("the ConfigMap's config does not load: %v", err)
	}
	bc := cfg.Browser.Config
	if err := bc.Validate(); err != nil {
		t.Fatalf("[browser]: %v", err)
	}
	if err := cfg.Network.Reach.Validate(); err != nil {
		t.Fatalf("[network]: %v", err)
	}
	if cfg.Network.ProxyListen != podIP || !cfg.Network.ProxyTLS {
		t.Errorf("the egress proxy listens on %q (TLS %v): want the pod's IP, over TLS", cfg.Network.ProxyListen, cfg.Network.ProxyTLS)
	}
	first, last, ok := portRange(cfg.Network.ProxyPorts)
	if !ok {
		t.Fatalf("network.proxy_ports %q: a NetworkPolicy needs a fixed range", cfg.Network.ProxyPorts)
	}
	return cfg, browserNet{grid: bc.Grid, first: first, last: last}
}

type browserNet struct {
	grid        string
	first, last int
}

func portRange(s string) (int, int, bool) {
	a, b, ok := strings.Cut(s, "-")
	first, err1 := strconv.Atoi(a)
	last, err2 := strconv.Atoi(b)
	return first, last, ok && err1 == nil && err2 == nil
}

// services: one Service per replica, selecting that pod by name, on the
// MCP port.
func services(t *testing.T, m map[string]obj, sts obj, ports map[string]int) {
	if str(sts, "spec", "serviceName") == "" || m["Service/"+str(sts, "spec", "serviceName")] == nil {
		t.Error("the StatefulSet's serviceName names no Service")
	}
	for i := range num(sts, "spec", "replicas") {
		name := "wasmwright-" + strconv.Itoa(i)
		s, ok := m["Service/"+name]
		if !ok {
			t.Errorf("no Service %s for replica %d", name, i)
			continue
		}
		if str(s, "spec", "selector", "statefulset.kubernetes.io/pod-name") != name {
			t.Errorf("Service %s does not select pod %s", name, name)
		}
		if tp := str(s, "spec", "ports", 0, "targetPort"); ports[tp] == 0 {
			t.Errorf("Service %s targets port %q, not one of the container's", name, tp)
		}
	}
}

// policies: the grid's nodes reach the hosts on exactly the proxy's port
// range, and their own egress goes nowhere else but the hub and DNS.
func policies(t *testing.T, m map[string]obj, n browserNet) {
	hosts := must(t, m, "NetworkPolicy/wasmwright-hosts")
	found := false
	for _, r := range list(hosts, "spec", "ingress") {
		if str(r, "from", 0, "podSelector", "matchLabels", "wasmwright.dev/role") == "grid-node" {
			found = true
			if p := at(r, "ports", 0); num(p, "port") != n.first || num(p, "endPort") != n.last {
				t.Errorf("the nodes reach the hosts on %d-%d, want network.proxy_ports %d-%d", num(p, "port"), num(p, "endPort"), n.first, n.last)
			}
		}
	}
	if !found {
		t.Error("the hosts' policy lets no grid node reach the proxy")
	}
	nodes := must(t, m, "NetworkPolicy/wasmwright-grid-nodes")
	if !slices.Contains(list(nodes, "spec", "policyTypes"), any("Egress")) {
		t.Fatal("the nodes' egress is not restricted")
	}
	for _, r := range list(nodes, "spec", "egress") {
		to := at(r, "to", 0)
		switch {
		case str(to, "podSelector", "matchLabels", "app.kubernetes.io/name") == "wasmwright":
			if p := at(r, "ports", 0); num(p, "port") != n.first || num(p, "endPort") != n.last {
				t.Errorf("the nodes' egress to the hosts is %d-%d, want %d-%d", num(p, "port"), num(p, "endPort"), n.first, n.last)
			}
		case str(to, "podSelector", "matchLabels", "wasmwright.dev/role") == "grid-hub":
		case str(to, "podSelector", "matchLabels", "k8s-app") == "kube-dns":
		default:
			t.Errorf("the nodes may reach %v: only the hosts' proxy, the hub and DNS", to)
		}
		if len(list(r, "to")) != 1 || len(list(r, "ports")) == 0 {
			t.Errorf("a node egress rule without one peer and its ports: %v", r)
		}
	}
}

// values: the chart's hub is the Service the config's browser.grid names,
// its pods carry the labels the policies select, one slot a node.
func values(t *testing.T, m map[string]obj, cfg *host.Config) {
	v := must(t, m, "values")
	bc := cfg.Browser.Config
	if want := "http://" + str(v, "hub", "nameOverride") + ":4444"; bc.Grid != want {
		t.Errorf("browser.grid = %q, want the chart's hub Service %s", bc.Grid, want)
	}
	if str(v, "hub", "labels", "wasmwright.dev/role") != "grid-hub" || str(v, "chromeNode", "labels", "wasmwright.dev/role") != "grid-node" {
		t.Error("the chart's hub and Chrome nodes lack the labels the NetworkPolicies select")
	}
	if num(v, "global", "seleniumGrid", "nodeMaxSessions") != 1 {
		t.Error("want one slot a node")
	}
	for _, off := range []string{"firefoxNode", "edgeNode"} {
		if at(v, off, "enabled") != false {
			t.Errorf("%s: only Chromium is driven; disable it", off)
		}
	}
}
