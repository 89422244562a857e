package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

// Counting a call's CDP round trips (-protocol): every side runs the same
// code, so a call's extra on the grid is about its serial round trips
// times the hop's extra per round trip (hop.go). With -protocol the
// hosts' Playwright drivers log every CDP message (DEBUG=pw:protocol,
// each driver to a file of its own, DEBUG_FILE set before it starts), and
// each timed call's messages are those logged within its time (the calls
// run one at a time). A round trip is serial when its command is sent
// while no other is awaited: commands sent together count once. Logging
// slows the drivers: the times of such a run are not the figures.

// protoLog is where the drivers log and the timed calls' windows.
type protoLog struct {
	dir   string
	mu    sync.Mutex
	calls []protoCall
	next  int
}

type protoCall struct {
	side, tool string
	from, to   time.Time
}

func newProtoLog() (*protoLog, error) {
	dir, err := os.MkdirTemp("", "gridbench-protocol-")
	if err != nil {
		return nil, err
	}
	return &protoLog{dir: dir}, nil
}

// beforeStart points the next driver to start at a file of its own.
func (p *protoLog) beforeStart() {
	if p == nil {
		return
	}
	p.next++
	os.Setenv("DEBUG", "pw:protocol")
	os.Setenv("DEBUG_FILE", filepath.Join(p.dir, fmt.Sprintf("driver%d.log", p.next)))
}

// record keeps the window of a call of round r that just took d (round 0
// is not counted).
func (p *protoLog) record(r int, side, tool string, d time.Duration) {
	if p == nil || r == 0 {
		return
	}
	to := time.Now()
	from := to.Add(-d)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, protoCall{side, tool, from, to})
}

// protoLine is "2026-12-06T16:43:58.014Z pw:protocol SEND ► {...}".
var protoLine = regexp.MustCompile(`^(\S+Z) pw:protocol (SEND ►|◀ RECV) (.*)$`)

type protoMsg struct {
	at   time.Time
	file string
	send bool
	id   int64
	resp bool // an answer (it has an id), not an event
}

// counts are, per side and tool, the serial round trips and messages
// sent of each recorded call.
func (p *protoLog) counts() map[[2]string][][2]int {
	var msgs []protoMsg
	files, _ := filepath.Glob(filepath.Join(p.dir, "*.log"))
	for _, f := range files {
		msgs = append(msgs, readProto(f)...)
	}
	sort.SliceStable(msgs, func(i, j int) bool { return msgs[i].at.Before(msgs[j].at) })
	out := map[[2]string][][2]int{}
	for _, c := range p.calls {
		from, to := c.from.Truncate(time.Millisecond), c.to.Truncate(time.Millisecond).Add(time.Millisecond)
		waiting := map[[2]any]bool{}
		serial, sent := 0, 0
		for _, m := range msgs {
			if m.at.Before(from) || !m.at.Before(to) {
				continue
			}
			k := [2]any{m.file, m.id}
			switch {
			case m.send:
				if len(waiting) == 0 {
					serial++
				}
				sent++
				waiting[k] = true
			case m.resp:
				delete(waiting, k)
			}
		}
		key := [2]string{c.side, c.tool}
		out[key] = append(out[key], [2]int{serial, sent})
	}
	return out
}

func readProto(file string) []protoMsg {
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []protoMsg
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		m := protoLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, m[1])
		if err != nil {
			continue
		}
		var body struct {
			ID     *int64 `json:"id"`
			Method string `json:"method"`
		}
		json.Unmarshal([]byte(m[3]), &body) // a truncated message keeps its id at the start
		if body.ID == nil {
			if id := leadingID.FindStringSubmatch(m[3]); id != nil {
				var n int64
				json.Unmarshal([]byte(id[1]), &n)
				body.ID = &n
			}
		}
		send := strings.HasPrefix(m[2], "SEND")
		if body.ID == nil {
			if send {
				continue
			}
			out = append(out, protoMsg{at: at, file: file})
			continue
		}
		out = append(out, protoMsg{at: at, file: file, send: send, id: *body.ID, resp: !send})
	}
	return out
}

var leadingID = regexp.MustCompile(`^\{"id":(\d+)`)

// medianCount is the median serial round trips and messages of calls.
func medianCount(calls [][2]int) (serial, sent int) {
	if len(calls) == 0 {
		return 0, 0
	}
	s := make([]int, len(calls))
	m := make([]int, len(calls))
	for i, c := range calls {
		s[i], m[i] = c[0], c[1]
	}
	sort.Ints(s)
	sort.Ints(m)
	return s[len(s)/2], m[len(m)/2]
}
