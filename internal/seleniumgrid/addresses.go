package seleniumgrid

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// firstNet and nets bound the /16s a grid takes its addresses from
// (10.200-249.x.x): the hub's address 10.N.0.1 on loopback, node i's
// 10.N.i.2 in its namespace.
const firstNet, nets = 200, 50

// claimNet adds a hub address of a free /16 to loopback and returns the
// /16's second number. It starts where pid points, so that runs at once
// usually differ, and moves on while the address is taken: adding an
// address is atomic, so two runs that pick the same /16 at once cannot
// both have it (one gets "already assigned" and tries the next).
func (g *Grid) claimNet(pid int) (int, error) {
	var err error
	for k := range nets {
		n := firstNet + (pid+k)%nets
		ip := fmt.Sprintf("10.%d.0.1", n)
		if err = g.run("ip", "addr", "add", ip+"/32", "dev", "lo"); err == nil {
			return n, nil
		}
		if !strings.Contains(err.Error(), "already assigned") && !strings.Contains(err.Error(), "File exists") {
			return 0, err
		}
	}
	return 0, fmt.Errorf("no free address for a grid's hub in 10.%d-%d.0.1 (%v): remove left-over ones with ip addr del", firstNet, firstNet+nets-1, err)
}

// sweepStale removes what grids of processes no longer running left
// behind (a run killed before its Close): their nodes' namespaces, each
// one's /etc/netns folder, and the hub address its resolv.conf names.
// A namespace is a grid's when it is named ww<pid>n<i> and has that
// folder; one whose process is alive is left alone.
func sweepStale() {
	dirs, _ := filepath.Glob("/etc/netns/ww*n*")
	for _, d := range dirs {
		ns := filepath.Base(d)
		pid, ok := gridPID(ns)
		if !ok || alive(pid) {
			continue
		}
		if conf, err := os.ReadFile(filepath.Join(d, "resolv.conf")); err == nil {
			if hub, found := strings.CutPrefix(strings.TrimSpace(string(conf)), "nameserver "); found && strings.HasPrefix(hub, "10.") {
				(&Grid{}).run("ip", "addr", "del", hub+"/32", "dev", "lo")
			}
		}
		(&Grid{}).run("ip", "netns", "del", ns) // its veth pair goes with it
		os.RemoveAll(d)
	}
}

// gridPID reads the process id out of a grid's namespace name ww<pid>n<i>.
func gridPID(ns string) (int, bool) {
	rest, ok := strings.CutPrefix(ns, "ww")
	if !ok {
		return 0, false
	}
	p, i, ok := strings.Cut(rest, "n")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(p)
	if _, err2 := strconv.Atoi(i); err != nil || err2 != nil || pid <= 0 {
		return 0, false
	}
	return pid, true
}

// alive says whether process pid exists (signal 0 checks without sending).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
