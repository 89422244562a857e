// Package procfs reads the Linux process table under /proc: who is whose
// parent, the processor time a process used, its memory. The bench harness
// measures servers with it and tests use it to find the processes a server
// started (and kill those, nothing else). Elsewhere than Linux every
// function finds no process.
package procfs

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Stat is what the benchmarks and tests read of /proc/PID/stat. Times are
// in clock ticks (1/100 s on Linux).
type Stat struct {
	PID, PPID int
	// Comm is the command name, between the parentheses.
	Comm string
	// State is the state letter: "R" running, "S" sleeping, "Z" zombie...
	State string
	// UTime and STime are the user and system time of the process;
	// CUTime and CSTime those of its children it has waited for.
	UTime, STime, CUTime, CSTime int64
}

// ParseStat reads one /proc/PID/stat. The command name may hold spaces and
// parentheses, so the fields are split after its last ")". It needs the
// state and the parent; times absent from a short line stay 0.
func ParseStat(b []byte) (Stat, bool) {
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return Stat{}, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b[:open])))
	if err != nil {
		return Stat{}, false
	}
	// After the name: state is field 3, ppid 4, utime 14 ... cstime 17.
	f := strings.Fields(string(b[end+1:]))
	if len(f) < 2 {
		return Stat{}, false
	}
	s := Stat{PID: pid, Comm: string(b[open+1 : end]), State: f[0]}
	s.PPID, _ = strconv.Atoi(f[1])
	if len(f) >= 15 {
		for i, v := range []*int64{&s.UTime, &s.STime, &s.CUTime, &s.CSTime} {
			*v, _ = strconv.ParseInt(f[11+i], 10, 64)
		}
	}
	return s, true
}

// ReadStat reads /proc/PID/stat.
func ReadStat(pid int) (Stat, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return Stat{}, false
	}
	return ParseStat(b)
}

// Processes is every process whose stat could be read, at one moment.
func Processes() []Stat {
	ents, _ := os.ReadDir("/proc")
	var out []Stat
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if s, ok := ReadStat(pid); ok {
			out = append(out, s)
		}
	}
	return out
}

// maxDepth bounds a walk up the parent chain, so a table read while
// processes come and go (a pid reused as its own ancestor) cannot loop.
const maxDepth = 64

// Under reports whether root is an ancestor of pid (pid itself does not
// count), by parent, a pid -> parent pid table.
func Under(parent map[int]int, pid, root int) bool {
	for q, n := parent[pid], 0; q > 0 && n < maxDepth; q, n = parent[q], n+1 {
		if q == root {
			return true
		}
	}
	return false
}

// Tree is, from one reading of the table, the stat of pid (when it still
// runs) and those of every process under it: children, theirs, ...
func Tree(pid int) []Stat {
	all := Processes()
	parent := make(map[int]int, len(all))
	for _, s := range all {
		parent[s.PID] = s.PPID
	}
	var out []Stat
	for _, s := range all {
		if s.PID == pid || Under(parent, s.PID, pid) {
			out = append(out, s)
		}
	}
	return out
}

// Descendants lists the processes under pid: children, theirs, ...
func Descendants(pid int) []int {
	var out []int
	for _, s := range Tree(pid) {
		if s.PID != pid {
			out = append(out, s.PID)
		}
	}
	return out
}

// Children is the stat of every process whose parent is pid.
func Children(pid int) []Stat {
	var out []Stat
	for _, s := range Processes() {
		if s.PPID == pid {
			out = append(out, s)
		}
	}
	return out
}

// Name is /proc/PID/comm, the command name ("" once pid is gone).
func Name(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	return strings.TrimSpace(string(b))
}

// Cmdline is the arguments pid was started with, NUL-separated as
// /proc/PID/cmdline holds them ("" once pid is gone).
func Cmdline(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return string(b)
}

// Memory sums, over processes, fields of /proc/PID/smaps_rollup (KB):
// "Rss", "Pss", "Private_Clean"...
func Memory(pids []int, fields ...string) int64 {
	var total int64
	for _, p := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", p))
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			f := strings.Fields(l)
			for _, want := range fields {
				if len(f) >= 2 && f[0] == want+":" {
					v, _ := strconv.ParseInt(f[1], 10, 64)
					total += v
				}
			}
		}
	}
	return total
}
