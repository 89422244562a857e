package sandbox

import "sort"

// Joining a module's data segments. Go's linker writes a module's data as
// one active segment per run of non-zero bytes: the browser plugin has
// 48,979 segments of 26 bytes on average, 1.3 MB in all, with gaps of
// under 64 zero bytes between most of them. wazero keeps each segment of
// a compiled module on the Go heap (its offset expression and bytes,
// about 100 bytes beside the data) and every instance a 24-byte slice per
// segment: 4.9 MB for the browser plugin's module and 1.2 MB for each of
// its instances. Joined across the short gaps, with the gaps' zeros
// written out, the same data is 20 segments of 2.2 MB: the memory an
// instance starts with is the same byte for byte, and the gaps lie within
// pages the segments around them write anyway.

// mergeGap is the longest run of zeros joined into a segment: about what a
// segment of its own costs the host.
const mergeGap = 64

// dataSeg is one active segment of memory 0 at a constant offset.
type dataSeg struct {
	off, end uint64
	data     []byte
}

// mergeData returns a data section whose active segments are joined where
// only a short gap lies between one and the next in the section, and
// nothing else writes into that gap. Anything it does not read as plain
// active segments at i32.const offsets that do not overlap (passive ones,
// another memory, an offset read from a global, an empty segment) leaves
// the section as it is. The caller leaves a module with a data count
// section alone: its code may name segments by index.
func mergeData(body []byte) []byte {
	segs, ok := activeSegments(body)
	if !ok || len(segs) < 2 {
		return body
	}
	// rank[i] is segment i's place in offset order; two segments next to
	// each other in the section and in offset order have nothing between.
	order := make([]int, len(segs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return segs[order[a]].off < segs[order[b]].off })
	rank := make([]int, len(segs))
	for r, i := range order {
		rank[i] = r
		if r > 0 && segs[i].off < segs[order[r-1]].end {
			return body // overlapping segments: the order they are written in matters
		}
	}
	var groups [][]dataSeg
	for i, s := range segs {
		if i > 0 && rank[i] == rank[i-1]+1 && s.off-segs[i-1].end <= mergeGap {
			groups[len(groups)-1] = append(groups[len(groups)-1], s)
			continue
		}
		groups = append(groups, []dataSeg{s})
	}
	if len(groups) == len(segs) {
		return body
	}
	out := appendU32(make([]byte, 0, len(body)+len(body)/2), uint32(len(groups)))
	for _, g := range groups {
		first, last := g[0], g[len(g)-1]
		out = append(out, 0, 0x41) // active, memory 0; i32.const
		out = appendS32(out, int32(uint32(first.off)))
		out = append(out, 0x0b)
		out = appendU32(out, uint32(last.end-first.off))
		at := first.off
		for _, s := range g {
			out = append(out, make([]byte, s.off-at)...)
			out = append(out, s.data...)
			at = s.end
		}
	}
	return out
}

// activeSegments reads a data section whose segments are all active, in
// memory 0, at an i32.const offset, and not empty; ok is false otherwise.
func activeSegments(body []byte) (segs []dataSeg, ok bool) {
	r := &reader{b: body}
	n := r.u32()
	if r.err != nil || uint64(n) > uint64(len(body)) {
		return nil, false
	}
	segs = make([]dataSeg, 0, n)
	for k := uint32(0); k < n; k++ {
		if r.u32() != 0 || r.byte() != 0x41 {
			return nil, false
		}
		off, okc := r.s32()
		if !okc || r.byte() != 0x0b {
			return nil, false
		}
		size := r.u32()
		if r.err != nil || size == 0 || uint64(size) > uint64(len(body)-r.p) {
			return nil, false
		}
		start := uint64(uint32(off))
		segs = append(segs, dataSeg{off: start, end: start + uint64(size), data: body[r.p : r.p+int(size)]})
		r.p += int(size)
	}
	return segs, r.err == nil && r.p == len(body)
}

// s32 reads a signed LEB128 of at most 32 bits (an i32.const immediate).
func (r *reader) s32() (int32, bool) {
	var v int64
	for shift := 0; shift < 35; shift += 7 {
		c := r.byte()
		if r.err != nil {
			return 0, false
		}
		v |= int64(c&0x7f) << shift
		if c&0x80 == 0 {
			if shift+7 < 64 && c&0x40 != 0 {
				v |= -1 << (shift + 7)
			}
			if v < -1<<31 || v >= 1<<31 {
				return 0, false
			}
			return int32(v), true
		}
	}
	return 0, false
}
