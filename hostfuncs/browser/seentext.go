package browser

import (
	"strings"
)

// Page text outside the snapshot: a tool that answers strings of the page
// other than through the snapshot or the read (an image's text
// alternative, an element's text beside its styles) answers only what a
// person sees, by the same judge: such a string goes out only when the
// tab's judged snapshot holds it (seenIndex.shown). The snapshot is the
// judge's account of what the page shows; a string it does not hold is
// hidden text (or an image's name nobody sees), whichever technique hid
// it, and is left out (the personality's hidden_text = "mark": shown as
// the snapshot shows hidden text, "[hidden: ...]"). Without a judged
// snapshot (the judge failed, a dialog is open) no such string goes out.

// seenIndex is a tab's judged snapshot, folded (foldSeen), that page
// strings are checked against; mark: the caller's personality marks
// hidden text rather than dropping it.
type seenIndex struct {
	text string
	ok   bool
	mark bool
}

// seenText takes (or reuses: the page unchanged) t's judged snapshot.
func (s *pages) seenText(ss *session, t *tab) seenIndex {
	v, _ := s.seenTextOr(ss, t)
	return v
}

// seenTextOr is seenText with the error that left it without a judged
// snapshot.
func (s *pages) seenTextOr(ss *session, t *tab) (seenIndex, error) {
	mark := marksHidden(ss)
	snap, err := s.snapshot(ss, t, "", 0)
	if err != nil || snap == "" {
		return seenIndex{mark: mark}, err
	}
	if mark {
		snap = unmarked(snap)
	}
	return seenIndex{text: foldSeen(snap), ok: true, mark: mark}, nil
}

// shown is page string x as it may go out: itself (its invisible
// characters removed) when the snapshot holds it, else "" (or marked).
func (v seenIndex) shown(x string) string {
	x = visibleChars(x)
	f := foldSeen(x)
	if f == "" || v.ok && strings.Contains(v.text, f) {
		return x
	}
	if v.mark {
		return "[hidden: " + x + "]"
	}
	return ""
}

// holds reports whether the judged snapshot shows x, in any case, as
// Playwright's text match reads it (false without a snapshot, and for
// text that is only marked hidden there).
func (v seenIndex) holds(x string) bool {
	f := strings.ToLower(foldSeen(visibleChars(x)))
	return v.ok && f != "" && strings.Contains(strings.ToLower(v.text), f)
}

// foldSeen is s with white space runs as one space and no quotes or
// backslashes: a snapshot quotes and escapes names, the page's string is
// raw.
func foldSeen(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '"' || r == '\\' {
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// unmarked is a snapshot taken with hidden text marked, without it: the
// lines marked [hidden] with the lines under them, and each
// "[hidden: ...]" (to its first "]": a run holding one leaves its tail,
// which only a personality that has the hidden text shown can meet).
func unmarked(snap string) string {
	var b strings.Builder
	skipBelow := -1
	for line := range strings.Lines(snap) {
		indent := len(line) - len(strings.TrimLeft(line, " "))
		if skipBelow >= 0 && indent > skipBelow {
			continue
		}
		skipBelow = -1
		if strings.Contains(line, " [hidden]") {
			skipBelow = indent
			continue
		}
		for {
			i := strings.Index(line, "[hidden: ")
			if i < 0 {
				break
			}
			j := strings.IndexByte(line[i:], ']')
			if j < 0 {
				line = line[:i]
				break
			}
			line = line[:i] + line[i+j+1:]
		}
		b.WriteString(line)
	}
	return b.String()
}
