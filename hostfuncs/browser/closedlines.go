package browser

import "strings"

// withClosedText adds to a judged snapshot the text shown in closed
// shadow roots (closedroots.go): each as a text line, without a ref,
// under the line of its nearest element that has one (an element
// Playwright folds into another has no line: the next one out is taken),
// after the lines of the elements before it there (the nearest one that
// has a line), else first; at the end of the snapshot when no element
// around it has a line.
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
	// end: the index after what line i holds.
	end := func(i int) int {
		ind, j := indentOf(lines[i]), i+1
		for j < len(lines) && indentOf(lines[j]) > ind {
			j++
		}
		return j
	}
	opened := map[int]string{}
	insert := map[int][]string{}
	for _, x := range texts {
		t := strings.TrimSpace(visibleChars(x.Text))
		if t == "" {
			continue
		}
		parent := -1
		for _, r := range x.Refs {
			if i, ok := at[r]; ok {
				parent = i
				break
			}
		}
		if parent < 0 {
			insert[len(lines)] = append(insert[len(lines)], "- text: "+yamlValue(t))
			continue
		}
		child := strings.Repeat(" ", indentOf(lines[parent])+2)
		if _, ok := opened[parent]; !ok {
			head, value := openLine(lines[parent])
			if value != "" {
				head += "\n" + child + "- text: " + value
			}
			opened[parent] = head
		}
		pos, last := parent+1, end(parent)
		for _, r := range x.After {
			if i, ok := at[r]; ok && i > parent && i < last {
				pos = end(i)
				break
			}
		}
		insert[pos] = append(insert[pos], child+"- text: "+yamlValue(t))
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
	if strings.HasSuffix(line, ":") {
		return line, ""
	}
	l := parseSnapLine(line)
	if l.role == "" || !l.hasValue || l.attrs == "" {
		return line + ":", ""
	}
	// The value as written (quoted where YAML needs it): what follows
	// the attributes' ": ".
	k := strings.LastIndex(line, l.attrs+": ")
	if k < 0 {
		return line + ":", ""
	}
	cut := k + len(l.attrs)
	return line[:cut] + ":", line[cut+2:]
}

func indentOf(l string) int {
	return len(l) - len(strings.TrimLeft(l, " "))
}
