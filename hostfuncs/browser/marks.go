package browser

import (
	"strings"
	"time"

	pw "github.com/mxschmitt/playwright-go"
)

// Marks: an ARIA snapshot says what an element is, not that it takes
// input. A plain <div> that is a drag source, a drop target or has a click
// or hover handler of its own is a "generic" like any wrapper, and a
// compactor drops it. The snapshot is taken with boxes; the page's main
// frame is asked, at the same time, for the boxes of such elements; lines
// with a matching box get marks ([draggable], [droppable], [clickable],
// [hoverable]), and every [box=...] goes. Listeners added with
// addEventListener cannot be seen from the page (nor delegated ones): a
// page relying on them is left to its [cursor=pointer].

// marksJS returns the main frame's marked elements as box -> marks, each
// box rounded as Playwright rounds [box=...].
const marksJS = `() => {
	const kinds = [
		["draggable", e => e.getAttribute("draggable") === "true"],
		["droppable", e => e.ondrop || e.ondragover],
		["clickable", e => e.onclick || e.onmousedown || e.onpointerdown],
		["hoverable", e => e.onmouseenter || e.onmouseover || e.onpointerenter],
	];
	const out = {};
	for (const e of document.querySelectorAll("*")) {
		const m = kinds.filter(([, f]) => f(e)).map(([k]) => k);
		if (!m.length) continue;
		const r = e.getBoundingClientRect();
		if (!r.width || !r.height) continue;
		const box = [r.x, r.y, r.width, r.height].map(Math.round).join(",");
		out[box] = [...new Set([...(out[box] || []), ...m])];
	}
	return out;
}`

// findMarks starts reading the page's marked elements and returns a
// function that waits for them at most wait; on a failure or past wait
// there are none (the snapshot is still right, only less helpful).
func findMarks(p pw.Page) func(wait time.Duration) map[string][]string {
	return background(func() map[string][]string {
		v, err := p.Evaluate(marksJS)
		m := map[string][]string{}
		if obj, ok := v.(map[string]any); err == nil && ok {
			for box, kinds := range obj {
				list, _ := kinds.([]any)
				for _, k := range list {
					if s, ok := k.(string); ok {
						m[box] = append(m[box], s)
					}
				}
			}
		}
		return m
	})
}

// markLines replaces each line's [box=...] with the marks of that box (on
// main-frame elements only: a frame's boxes are in its own coordinates).
// A line is in a frame when it is nested under an iframe line; refs do not
// tell (once a page has had frames, Playwright prefixes the main frame's
// refs too, f3e2).
func markLines(snap string, marks map[string][]string) string {
	if !strings.Contains(snap, " [box=") {
		return snap
	}
	var b strings.Builder
	b.Grow(len(snap))
	frame := -1 // the indent of the iframe line whose content this is
	for line := range strings.Lines(snap) {
		body := strings.TrimLeft(line, " ")
		indent := len(line) - len(body)
		inFrame := frame >= 0 && indent > frame
		if !inFrame {
			frame = -1
			if strings.HasPrefix(body, "- iframe") {
				frame = indent
			}
		}
		i, box, rest := boxAttr(line)
		if i < 0 {
			b.WriteString(line)
			continue
		}
		b.WriteString(line[:i])
		if !inFrame {
			for _, m := range marks[box] {
				b.WriteString(" [" + m + "]")
			}
		}
		b.WriteString(rest)
	}
	return b.String()
}

// boxAttr finds the [box=x,y,w,h] attribute of a snapshot line: four
// integers, at the end of the line's key (then the line ends, or ":" or
// the closing quote of a quoted key follows), so that a name or text
// holding "[box=" is not taken for it. It returns where " [box=" starts,
// the box and what follows the attribute; i < 0 when there is none.
func boxAttr(line string) (i int, box, rest string) {
	for from := 0; ; {
		k := strings.Index(line[from:], " [box=")
		if k < 0 {
			return -1, "", ""
		}
		i = from + k
		from = i + 1
		tail := line[i+len(" [box="):]
		j := strings.IndexByte(tail, ']')
		if j < 0 || !isBox(tail[:j]) {
			continue
		}
		rest = tail[j+1:]
		if r := strings.TrimRight(rest, "\r\n"); r == "" || r[0] == ':' || r[0] == '\'' {
			return i, tail[:j], rest
		}
	}
}

// isBox: four comma-separated integers.
func isBox(s string) bool {
	parts := strings.Split(s, ",")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		p = strings.TrimPrefix(p, "-")
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return false
		}
	}
	return true
}
