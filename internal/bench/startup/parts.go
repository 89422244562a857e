package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/wasmwright/wasmwright/internal/bench/benchflag"
	"github.com/wasmwright/wasmwright/internal/bench/mcpclient"
	"github.com/wasmwright/wasmwright/internal/bench/sut"
	"github.com/wasmwright/wasmwright/internal/procfs"
)

// -parts: where one session's memory goes. Each system (wasmwright,
// Playwright MCP at settle 0, chrome-devtools-mcp) is started, navigates
// to the page and snapshots it, as the USS row does, and then its process
// tree is read part by part: the USS of each process by role (server,
// driver, Chromium's browser, renderer, GPU and utility processes), and
// serve's own USS by kind of mapping, with its Go runtime's statistics
// (read from --pprof). Samples of the systems are interleaved.

// tree is one reading of a system's process tree: USS (KB) by role, and
// for wasmwright serve's parts.
type tree struct {
	roles map[string]int64
	count map[string]int
	serve map[string]int64 // serve's USS by kind of mapping (KB)
	rt    map[string]int64 // serve's runtime.MemStats fields (KB)
	total int64
}

// role names a process of a server's tree by what it runs.
func role(pid, server int) string {
	if pid == server {
		return "server"
	}
	// Chromium's children rewrite their command line into one string:
	// split on spaces too.
	args := strings.Fields(strings.ReplaceAll(procfs.Cmdline(pid), "\x00", " "))
	comm := procfs.Name(pid)
	joined := strings.Join(args, " ")
	switch {
	case strings.Contains(joined, "run-driver"):
		return "driver (node)"
	case strings.Contains(comm, "crashpad"):
		return "crashpad"
	case !strings.Contains(comm, "chrom") && !strings.Contains(joined, "chrom"):
		return comm
	}
	typ, sub := "", ""
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--type="); ok {
			typ = v
		}
		if v, ok := strings.CutPrefix(a, "--utility-sub-type="); ok {
			sub = v
		}
	}
	switch {
	case typ == "":
		return "chromium browser"
	case sub != "":
		return "chromium utility " + sub
	}
	return "chromium " + typ
}

// readTree reads the tree under c's server.
func readTree(c *mcpclient.Client, pprof, bin string) tree {
	t := tree{roles: map[string]int64{}, count: map[string]int{}}
	server := c.Pid()
	for _, pid := range c.Pids() {
		r := role(pid, server)
		uss := procfs.Memory([]int{pid}, "Private_Clean", "Private_Dirty")
		t.roles[r] += uss
		t.count[r]++
		t.total += uss
	}
	if pprof != "" {
		t.serve = serveParts(procfs.Smaps(server), bin)
		t.rt = memStats(pprof)
	}
	return t
}

// serveParts splits serve's USS by kind of mapping: its binary, other
// files, the plugins' linear memories (anonymous, MAP_NORESERVE: sandbox's
// linearmem.go), compiled plugin code (anonymous, executable) and the
// rest of its anonymous memory (the Go heap and stacks, wazero's data).
func serveParts(ms []procfs.Mapping, bin string) map[string]int64 {
	out := map[string]int64{}
	real, _ := filepath.EvalSymlinks(bin)
	for _, m := range ms {
		k := "anon: Go heap, stacks, runtime, wazero data"
		switch {
		case m.Path == bin || m.Path == real:
			k = "file: the binary"
		case strings.HasPrefix(m.Path, "["):
			k = "named " + m.Path
		case m.Path != "":
			k = "file: others"
		case m.Flag("nr"):
			k = "anon nr: plugin linear memories"
		case m.Exec():
			k = "anon r-x: compiled plugin code"
		}
		out[k] += m.Private
		if m.Anon() && (m.Flag("nr") || m.Exec()) && m.Private > 0 {
			kind := "memory"
			if m.Exec() {
				kind = "code"
			}
			out[fmt.Sprintf("  %s mapping of %d KB", kind, m.SizeKB())] += m.Private
		}
	}
	return out
}

// memStats reads the "# Name = N" lines of a heap profile's text form
// (runtime.MemStats), in KB.
func memStats(addr string) map[string]int64 {
	c := &http.Client{Timeout: 10 * time.Second}
	res, err := c.Get("http://" + addr + "/debug/pprof/heap?debug=1")
	if err != nil {
		return nil
	}
	defer res.Body.Close()
	return parseMemStats(res.Body)
}

// parseMemStats keeps the byte-sized fields of interest.
func parseMemStats(r io.Reader) map[string]int64 {
	want := map[string]bool{"HeapAlloc": true, "HeapInuse": true, "HeapIdle": true, "HeapReleased": true,
		"StackInuse": true, "NextGC": true, "Sys": true, "GCSys": true, "OtherSys": true, "MSpanInuse": true}
	out := map[string]int64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimPrefix(sc.Text(), "# "), " = ")
		if !ok || !want[k] {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
			out[k] = n >> 10
		}
	}
	return out
}

// partsSystem starts one system for -parts: its client, and serve's pprof
// address (wasmwright only).
type partsSystem struct {
	name  string
	start func() (*mcpclient.Client, string, error)
	// cd: chrome-devtools-mcp's tools (navigate_page, take_snapshot on
	// pageId 1) instead of browser_navigate and browser_snapshot.
	cd bool
	// bin is a wasmwright binary's path (serve's parts name its mapping).
	bin string
}

// partsBefore is an older wasmwright build measured beside (-before-bin).
type partsBefore struct{ name, bin, plugins string }

// navigateSnapshot loads url and snapshots it with s's tools; between is
// called after the navigate (nil: nothing).
func (s partsSystem) navigateSnapshot(c *mcpclient.Client, url string, between func()) error {
	nav, snap := "browser_navigate", "browser_snapshot"
	navArgs, snapArgs := map[string]any{"url": url}, map[string]any{}
	if s.cd {
		nav, snap = "navigate_page", "take_snapshot"
		navArgs["pageId"], navArgs["type"], snapArgs["pageId"] = 1, "url", 1
	}
	if _, _, _, err := c.Tool(nav, navArgs); err != nil {
		return err
	}
	if between != nil {
		between()
	}
	_, _, _, err := c.Tool(snap, snapArgs)
	return err
}

// startServe starts wasmwright serve with the bench config and --pprof.
func startServe(bin, cache, plugins, keys, tmp string) (*mcpclient.Client, string, error) {
	addr, err := sut.FreeAddr()
	if err != nil {
		return nil, "", err
	}
	dir, err := os.MkdirTemp(tmp, "parts-")
	if err != nil {
		return nil, "", err
	}
	conf := filepath.Join(dir, "bench.toml")
	if err := os.WriteFile(conf, []byte(mcpclient.BenchConfig(cache, plugins, filepath.Join(dir, "ws"), keys)), 0o644); err != nil {
		return nil, "", err
	}
	c, err := mcpclient.Start(exec.Command(bin, "serve", "--config", conf, "--pprof", addr), dir, "ww", false)
	return c, addr, err
}

// measureParts runs n interleaved samples of each system and prints the
// medians.
func measureParts(systems []partsSystem, url string, n int, dump string, calls []string) {
	got := map[string][]tree{}
	times := map[string]callTimes{}
	for i := 0; i < n; i++ {
		for _, s := range systems {
			c, pprof, err := s.start()
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", s.name, err)
				continue
			}
			if err := s.navigateSnapshot(c, url, nil); err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", s.name, err)
			} else {
				time.Sleep(time.Second) // what the page's load leaves settles, as the USS row waits
				got[s.name] = append(got[s.name], readTree(c, pprof, s.bin))
				if dump != "" && i == 0 {
					dumpTree(c, pprof, filepath.Join(dump, strings.Fields(s.name)[0]))
				}
				if times[s.name] == nil {
					times[s.name] = callTimes{}
				}
				s.timeCalls(c, calls, times[s.name])
			}
			c.Close()
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("## Where one session's memory goes (USS, MB; median of %d; load %s)\n\n", n, strings.Join(strings.Fields(string(load))[:3], " "))
	for _, s := range systems {
		printTree(s.name, got[s.name])
	}
	printCalls(systems, times)
}

// printTree prints the medians of one system's readings.
func printTree(name string, ts []tree) {
	if len(ts) == 0 {
		return
	}
	med := func(f func(t tree) int64) string {
		var vs []int64
		for _, t := range ts {
			vs = append(vs, f(t))
		}
		sort.Slice(vs, func(i, j int) bool { return vs[i] < vs[j] })
		return fmt.Sprintf("%.1f", float64(vs[len(vs)/2])/1024)
	}
	fmt.Printf("### %s: %s MB\n\n", name, med(func(t tree) int64 { return t.total }))
	section := func(title string, get func(t tree) map[string]int64) {
		keys := map[string]bool{}
		for _, t := range ts {
			for k := range get(t) {
				keys[k] = true
			}
		}
		if len(keys) == 0 {
			return
		}
		fmt.Printf("%s:\n", title)
		var ks []string
		for k := range keys {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			extra := ""
			if get(ts[0]) != nil && title == "by process" {
				extra = fmt.Sprintf(" (%d)", ts[0].count[k])
			}
			fmt.Printf("  %-52s %8s%s\n", k, med(func(t tree) int64 { return get(t)[k] }), extra)
		}
	}
	section("by process", func(t tree) map[string]int64 { return t.roles })
	section("serve by mapping", func(t tree) map[string]int64 { return t.serve })
	section("serve's Go runtime (MemStats)", func(t tree) map[string]int64 { return t.rt })
	fmt.Println()
}

// partsSystems are wasmwright (its cache warmed by a first start), and the
// peers found in peerDir.
func partsSystems(bin, plugins, keys, peerDir, tmp string, before partsBefore) []partsSystem {
	serve := func(name, bin, plugins string) partsSystem {
		cache := filepath.Join(tmp, "cache-parts-"+name)
		if c, _, err := startServe(bin, cache, plugins, keys, tmp); err == nil {
			c.Close()
		}
		return partsSystem{name: name, bin: bin, start: func() (*mcpclient.Client, string, error) {
			return startServe(bin, cache, plugins, keys, tmp)
		}}
	}
	out := []partsSystem{serve("wasmwright", bin, plugins)}
	if before.bin != "" {
		out = append(out, serve(before.name, before.bin, before.plugins))
	}
	if cli := benchflag.PeerCLI(peerDir); exists(cli) {
		out = append(out, partsSystem{name: "Playwright MCP (PW0)", start: func() (*mcpclient.Client, string, error) {
			c, err := mcpclient.StartPeer(cli, false)
			return c, "", err
		}})
	}
	if cd := mcpclient.CDBin(peerDir); exists(cd) {
		out = append(out, partsSystem{name: "chrome-devtools-mcp (CD)", cd: true, start: func() (*mcpclient.Client, string, error) {
			c, err := mcpclient.StartCD(cd, false)
			return c, "", err
		}})
	}
	return out
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// dumpTree writes, for a closer look, each process's command line and
// smaps and serve's heap profile into dir.
func dumpTree(c *mcpclient.Client, pprof, dir string) {
	os.MkdirAll(dir, 0o755)
	for _, pid := range c.Pids() {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", pid))
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.smaps", pid)), b, 0o644)
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.cmdline", pid)), []byte(strings.ReplaceAll(procfs.Cmdline(pid), "\x00", " ")), 0o644)
	}
	if pprof == "" {
		return
	}
	for _, p := range []string{"heap", "goroutine?debug=1"} {
		res, err := (&http.Client{Timeout: 10 * time.Second}).Get("http://" + pprof + "/debug/pprof/" + p)
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		os.WriteFile(filepath.Join(dir, strings.Split(p, "?")[0]+".pprof"), b, 0o644)
	}
}
