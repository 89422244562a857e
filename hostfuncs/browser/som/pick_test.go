package som

import (
	"fmt"
	"image"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
)

// TestPickMarks: clipping, tiny and duplicate boxes, regions inside or
// around an element, a region that is a snapshot element, reading order
// (rows) and the cap.
func TestPickMarks(t *testing.T) {
	el := func(x, y, w, h int, ref string) Candidate {
		return Candidate{Box: Rect{x, y, w, h}, Ref: ref, Role: "button", Name: ref}
	}
	reg := func(x, y, w, h int, kind string) Candidate {
		return Candidate{Box: Rect{x, y, w, h}, Role: kind, Region: true}
	}
	named := Candidate{Box: Rect{500, 10, 50, 50}, Ref: "e9", Role: "img", Name: "chart", AnyRole: true}
	framed := el(90, 90, 40, 40, "f1e2")
	framed.Limit, framed.HasLimit = Rect{80, 80, 30, 30}, true
	cands := []Candidate{
		el(100, 50, 40, 20, "e2"), el(10, 50, 40, 20, "e1"), el(-30, 5, 50, 20, "e3"), // cut by the left edge
		el(10, 800, 40, 20, "e4"), el(700, 5, 3, 20, "e5"), el(10, 50, 40, 20, "e6"), // below, tiny, a duplicate
		reg(12, 52, 10, 10, "clickable"), reg(98, 48, 44, 24, "clickable"), // inside e1; wrapping e2
		reg(200, 200, 300, 150, "canvas"), reg(500, 10, 50, 50, "canvas"), named, framed,
	}
	marks, total := Pick(cands, 640, 480)
	got := []string{}
	for _, m := range marks {
		got = append(got, fmt.Sprintf("%d:%s:%s:%v", m.Mark, m.Ref, m.Role, m.Box))
	}
	want := []string{"1:e3:button:[0 5 20 20]", "2:e9:img:[500 10 50 50]", "3:e1:button:[10 50 40 20]", "4:e2:button:[100 50 40 20]",
		"5:f1e2:button:[90 90 20 20]", "6::canvas:[200 200 300 150]"}
	if strings.Join(got, " ") != strings.Join(want, " ") || total != 6 {
		t.Errorf("marks %v (total %d)\nwant  %v", got, total, want)
	}
	// One row: tops within RowSlack read left to right.
	row, _ := Pick([]Candidate{el(400, 10, 40, 20, "a"), el(100, 14, 40, 20, "b"), el(300, 12, 40, 20, "c"), el(0, 40, 40, 20, "d")}, 640, 480)
	if order := fmt.Sprint(row[0].Ref, row[1].Ref, row[2].Ref, row[3].Ref); order != "bcad" {
		t.Errorf("row order %s, want bcad", order)
	}
	many := make([]Candidate, 300)
	for i := range many {
		many[i] = el(i%30*20, i/30*20, 10, 10, fmt.Sprintf("e%d", i))
	}
	if marks, total := Pick(many, 640, 480); len(marks) != abi.MaxScreenMarks || total != 300 || marks[199].Ref != "e199" {
		t.Errorf("capped: %d marks of %d, last %+v", len(marks), total, marks[len(marks)-1])
	}
}

// TestTagsAreLegible: a mark's full-size tag is at least 21 px high (7
// rows of the digit font at digitScale), and Tags places one for a lone
// mark in an empty picture, outside its box.
func TestTagsAreLegible(t *testing.T) {
	for _, n := range []int{1, 42, 200} {
		if sz := labelSize(strconv.Itoa(n), digitScale); sz.Y < 7*3 {
			t.Errorf("mark %d: a %d px tag is too small to read", n, sz.Y)
		}
	}
	m := abi.ScreenMark{Mark: 7, Box: [4]int{100, 100, 80, 30}}
	tags := Tags([]abi.ScreenMark{m}, nil, image.Rect(0, 0, 640, 480))
	box := image.Rect(100, 100, 180, 130)
	if len(tags) != 1 || tags[0].Empty() || tags[0].Overlaps(box) || tags[0].Dy() < 7*digitScale {
		t.Errorf("tags %v for a lone mark at %v: want one full-size tag outside its box", tags, box)
	}
}
