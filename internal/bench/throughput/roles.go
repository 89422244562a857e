package main

import (
	"fmt"
	"strings"

	"github.com/wasmwright/wasmwright/internal/procfs"
)

// roleOrder is the order the per-process table lists roles in. "server"
// is the process the bench started (wasmwright's Go host, or Playwright
// MCP's node, which is its own driver); "driver" is a node under
// wasmwright's host; the rest are Chromium's processes by --type (the
// zygote's count holds the whole life of the renderers it reaped in the
// window: a process's time includes its waited-for children's);
// "exited" is what the tree's total counted beyond the processes seen at
// the window's end.
var roleOrder = []string{"server", "driver", "browser", "renderer", "gpu", "network", "utility", "zygote", "other", "exited"}

// role names what one process of a server's tree is, from its command
// name and arguments.
func role(root int, s procfs.Stat) string {
	if s.PID == root {
		return "server"
	}
	if s.Comm == "node" {
		return "driver"
	}
	args := procfs.Cmdline(s.PID)
	switch {
	case strings.Contains(args, "--type=renderer"):
		return "renderer"
	case strings.Contains(args, "--type=gpu-process"):
		return "gpu"
	case strings.Contains(args, "network.mojom.NetworkService"):
		return "network"
	case strings.Contains(args, "--type=utility"):
		return "utility"
	case strings.Contains(args, "--type=zygote"):
		return "zygote"
	case strings.Contains(s.Comm, "chrom"):
		return "browser"
	}
	return "other"
}

// procTicks is one reading of a tree: each process's role and its
// processor time (own and waited-for children's), in clock ticks.
type procTicks map[int]struct {
	role  string
	ticks int64
}

func readTree(root int) procTicks {
	out := procTicks{}
	for _, s := range procfs.Tree(root) {
		out[s.PID] = struct {
			role  string
			ticks int64
		}{role(root, s), s.UTime + s.STime + s.CUTime + s.CSTime}
	}
	return out
}

// addRoles adds to by, per role, the ticks each process used between two
// readings (a process new at the end counts from 0), and what total
// counted beyond them as "exited".
func addRoles(by map[string]int64, before, after procTicks, total int64) {
	var seen int64
	for pid, a := range after {
		d := a.ticks
		if b, ok := before[pid]; ok && b.role == a.role {
			d -= b.ticks
		}
		by[a.role] += d
		seen += d
	}
	if total > seen {
		by["exited"] += total - seen
	}
}

// printRoles prints, per side at each N, the processor time per call of
// each role of its process tree, in ms.
func printRoles(sides []*server, res map[string]map[int]*tally, ns []int) {
	fmt.Printf("\nCPU per call by process (ms): the same windows, split by what each process of the server's tree is (server: the process the bench started; driver: the Playwright driver under wasmwright; the rest are Chromium's processes by type, the zygote with the renderers it reaped; exited: what the total counted beyond the processes seen at the window's end).\n\n")
	fmt.Println("| side | sessions | " + strings.Join(roleOrder, " | ") + " | total |")
	fmt.Println("|---|---:|" + strings.Repeat("---:|", len(roleOrder)+1))
	for _, sd := range sides {
		for _, n := range ns {
			t := res[sd.Name][n]
			if t == nil || t.answered() == 0 {
				continue
			}
			line := fmt.Sprintf("| %s | %d |", sd.Name, n)
			for _, r := range roleOrder {
				line += fmt.Sprintf(" %.0f |", float64(t.roles[r]*10)/float64(t.answered()))
			}
			fmt.Println(line + " " + t.cpuPerCall() + " |")
		}
	}
}
