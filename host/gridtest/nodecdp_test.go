package gridtest

import (
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/internal/procfs"
	"github.com/wasmwright/wasmwright/internal/seleniumgrid"
)

// driverLinksToNodes counts the TCP connections, established, that a
// Playwright driver under this test (a node process it started: not the
// test itself, whose orphan DELETEs are brief, nor the hub's Java, which
// relays to the nodes) holds to a grid node's port: a host with
// grid_cdp = "node" has one per grid session it drives, one with the
// hub's endpoint none.
func driverLinksToNodes(t *testing.T, g *seleniumgrid.Grid) int {
	t.Helper()
	want := map[string]bool{}
	for _, n := range g.Nodes {
		want[tcpHex(n.IP, 5555)] = true
	}
	inodes := map[string]bool{}
	for _, p := range procfs.Descendants(os.Getpid()) {
		if procfs.Name(p) != "node" {
			continue
		}
		fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", p))
		for _, fd := range fds {
			if l, err := os.Readlink(fd); err == nil && strings.HasPrefix(l, "socket:[") {
				inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
			}
		}
	}
	b, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		// sl local rem st ... uid timeout inode
		if len(f) > 9 && f[3] == "01" && want[f[2]] && inodes[f[9]] {
			n++
		}
	}
	return n
}

// tcpHex is ip:port as /proc/net/tcp writes it (little-endian address).
func tcpHex(ip string, port int) string {
	v4 := net.ParseIP(ip).To4()
	return strings.ToUpper(hex.EncodeToString([]byte{v4[3], v4[2], v4[1], v4[0]})) + ":" + fmt.Sprintf("%04X", port)
}
