package sandbox

import (
	"bytes"
	"testing"
)

// seg encodes one data segment: active at an i32.const offset.
func activeSeg(off int32, data []byte) []byte {
	b := append([]byte{0, 0x41}, appendS32(nil, off)...)
	b = append(b, 0x0b)
	b = appendU32(b, uint32(len(data)))
	return append(b, data...)
}

// image writes a data section's active segments into a zeroed memory of
// size bytes, in order, as instantiation does; it fails the test on a
// segment it cannot read.
func image(t *testing.T, body []byte, size int) []byte {
	t.Helper()
	segs, ok := activeSegments(body)
	if !ok {
		t.Fatalf("not a section of plain active segments")
	}
	mem := make([]byte, size)
	for _, s := range segs {
		if s.end > uint64(size) {
			t.Fatalf("segment [%d, %d) out of a %d-byte memory", s.off, s.end, size)
		}
		copy(mem[s.off:], s.data)
	}
	return mem
}

func TestMergeDataKeepsTheImage(t *testing.T) {
	fill := func(n int, c byte) []byte { return bytes.Repeat([]byte{c}, n) }
	// As Go's linker writes them: a run high up, then back to low
	// addresses; short gaps, a long one, a segment that ends where the
	// next begins, and one out of offset order inside a run.
	section := vec([][]byte{
		activeSeg(5000, fill(10, 1)),
		activeSeg(5020, fill(3, 2)),   // gap 10: joined
		activeSeg(100, fill(8, 3)),    // backwards: a new segment
		activeSeg(108, fill(4, 4)),    // touching: joined
		activeSeg(176, fill(5, 5)),    // gap 64: joined
		activeSeg(246, fill(2, 6)),    // gap 65: a new segment
		activeSeg(300, fill(7, 7)),    // gap 52, but...
		activeSeg(260, fill(9, 8)),    // ...this one lies between 248 and 300: not joined
		activeSeg(269, fill(1, 9)),    // joined to the one before
		activeSeg(-2000, fill(6, 10)), // an offset above 2^31
	})
	merged := mergeData(section)
	segs, ok := activeSegments(merged)
	if !ok {
		t.Fatal("the merged section is not plain active segments")
	}
	want := []uint64{5000, 100, 246, 300, 260, 1<<32 - 2000}
	if len(segs) != len(want) {
		t.Fatalf("%d segments after joining, want %d", len(segs), len(want))
	}
	for i, s := range segs {
		if s.off != want[i] {
			t.Errorf("segment %d at %d, want %d", i, s.off, want[i])
		}
	}
	// The image of everything but the high segment must match; compare
	// the high one by itself.
	low := func(b []byte) []byte {
		r := &reader{b: b}
		n := r.u32()
		var items [][]byte
		for k := uint32(0); k < n; k++ {
			start := r.p
			r.u32()
			r.byte()
			off, _ := r.s32()
			r.byte()
			size := r.u32()
			r.p += int(size)
			if off >= 0 {
				items = append(items, b[start:r.p])
			}
		}
		return vec(items)
	}
	if !bytes.Equal(image(t, low(section), 6000), image(t, low(merged), 6000)) {
		t.Error("the joined segments write a different memory")
	}
	if last := segs[len(segs)-1]; !bytes.Equal(last.data, fill(6, 10)) {
		t.Errorf("the high segment became %v", last.data)
	}
}

func TestMergeDataLeavesOthersAlone(t *testing.T) {
	passive := append([]byte{1}, appendU32(nil, 3)...)
	passive = append(passive, 1, 2, 3)
	globalOff := []byte{0, 0x23, 0, 0x0b, 2, 1, 1} // global.get 0
	cases := map[string][]byte{
		"overlapping":   vec([][]byte{activeSeg(0, []byte{1, 2, 3, 4}), activeSeg(2, []byte{9})}),
		"passive":       vec([][]byte{activeSeg(0, []byte{1}), activeSeg(2, []byte{1}), passive}),
		"global offset": vec([][]byte{activeSeg(0, []byte{1}), globalOff, activeSeg(4, []byte{1})}),
		"empty segment": vec([][]byte{activeSeg(0, []byte{1}), activeSeg(4, nil), activeSeg(6, []byte{1})}),
		"nothing near":  vec([][]byte{activeSeg(0, []byte{1}), activeSeg(1000, []byte{1})}),
	}
	for name, section := range cases {
		if got := mergeData(section); !bytes.Equal(got, section) {
			t.Errorf("%s: the section changed", name)
		}
	}
}

// A Go plugin's data, instrumented: far fewer segments, the same memory.
func TestInstrumentJoinsGoData(t *testing.T) {
	wasm := build(t, "sandbox/testdata/misbehave")
	out, err := instrument(wasm, fuelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data := func(b []byte) []byte {
		secs, err := splitSections(b)
		if err != nil {
			t.Fatal(err)
		}
		return secs[secs.find(11)].body
	}
	before, after := data(wasm), data(out)
	nb, _ := activeSegments(before)
	na, _ := activeSegments(after)
	if len(na) == 0 || len(na)*100 > len(nb) {
		t.Fatalf("%d segments before, %d after: want at most a hundredth", len(nb), len(na))
	}
	var size uint64
	for _, s := range nb {
		size = max(size, s.end)
	}
	if !bytes.Equal(image(t, before, int(size)), image(t, after, int(size))) {
		t.Error("the instrumented module's data writes a different memory")
	}
	t.Logf("%d segments -> %d", len(nb), len(na))
}
