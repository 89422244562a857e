package browser

import (
	"slices"
	"strings"
)

// withClosedText adds to a judged snapshot the text shown in closed
// shadow roots (closedroots.go): each as a text line, without a ref, at
// the end of what the line of its nearest element with one holds (an
// element Playwright folds into another has no line: the next one out
// is taken), or at the end of the snapshot when none has a line.
func withClosedText(snap string, texts []closedText) string {
	if len(texts) == 0 {
		return snap
	}
	lines := strings.Split(snap, "\n")
	at := map[string]int{}
	for i, l := range lines {
		if k := strings.Index(l, "[ref="); k >= 0 {
			if r, n := refAt(l[k+len("[ref="):]); n > 0 {
				at[r] = i
			}
		}
	}
	// under: the texts by the line they go under (-1: the snapshot).
	under := map[int][]string{}
	for _, x := range texts {
		t := strings.TrimSpace(visibleChars(x.Text))
		if t == "" {
			continue
		}
		line := -1
		for _, r := range x.Refs {
			if i, ok := at[r]; ok {
				line = i
				break
			}
		}
		under[line] = append(under[line], t)
	}
	// Each line's texts go at the end of what it holds (an inner line's
	// before an outer one's that ends at the same place).
	targets := make([]int, 0, len(under))
	for i := range under {
		if i >= 0 {
			targets = append(targets, i)
		}
	}
	slices.Sort(targets)
	slices.Reverse(targets)
	opened := map[int]string{}
	insert := map[int][]string{}
	for _, i := range targets {
		ind := indentOf(lines[i])
		end := i + 1
		for end < len(lines) && indentOf(lines[end]) > ind {
			end++
		}
		child := strings.Repeat(" ", ind+2)
		head, value := openLine(lines[i])
		opened[i] = head
		if value != "" {
			opened[i] += "\n" + child + "- text: " + value
		}
		for _, t := range under[i] {
			insert[end] = append(insert[end], child+"- text: "+yamlValue(t))
		}
	}
	for _, t := range under[-1] {
		insert[len(lines)] = append(insert[len(lines)], "- text: "+yamlValue(t))
	}
	var out []string
	for i := 0; i <= len(lines); i++ {
		out = append(out, insert[i]...)
		if i == len(lines) {
			break
		}
		if h, ok := opened[i]; ok {
			out = append(out, h)
		} else {
			out = append(out, lines[i])
		}
	}
	return strings.TrimSuffix(strings.Join(out, "\n"), "\n")
}

// openLine makes a snapshot line one that holds others: `- button "Go"
// [ref=e5]` ends with a colon; an inline value (`- paragraph [ref=e3]:
// words`) is answered apart, as written, to go first under it.
func openLine(line string) (head, value string) {
	l := parseSnapLine(line)
	if l.role == "" || !l.hasValue || strings.HasSuffix(line, ":") {
		if strings.HasSuffix(line, ":") {
			return line, ""
		}
		return line + ":", ""
	}
	// The value as written (quoted where YAML needs it): what follows
	// the attributes' ": ".
	k := strings.LastIndex(line, l.attrs+": ")
	if l.attrs == "" || k < 0 {
		return line + ":", ""
	}
	cut := k + len(l.attrs)
	return line[:cut] + ":", line[cut+2:]
}

func indentOf(l string) int {
	return len(l) - len(strings.TrimLeft(l, " "))
}
