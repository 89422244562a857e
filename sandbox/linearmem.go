package sandbox

import (
	"sync/atomic"
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
)

// Plugins' linear memories live outside the Go heap, in a mapping of
// their own (instMemory), so that:
//
//   - growing a memory copies nothing: the whole maximum (memory_mb) is
//     reserved as address space when the instance starts, and a page
//     costs RAM only once the plugin touches it. On the Go heap each
//     memory.grow allocated a new slice and copied the old one into it,
//     and the garbage of those copies, 30-50 MB at a time, raised the Go
//     heap's peaks and with them the process's RSS (the soak's serve grew
//     15-22 MB a minute while the pools stayed the same size);
//   - closing an instance gives its memory back to the system at once
//     (munmap), instead of whenever the Go scavenger gets to it.
//
// The reservation is MAP_NORESERVE: it commits nothing.
//
// One instance has two linear memories: the plugin's own, and that of
// Extism's kernel (extism-runtime.wasm, instantiated per instance, which
// holds an Extism-ABI plugin's input, output, variables and every block it
// allocates). wazero's page limit (memory_mb) caps each of them apart, so
// an instance could hold twice memory_mb: a plugin allocating through the
// kernel grew 7 concurrent calls at memory_mb = 128 to 790 MB of RSS. The
// allocator is the one place that sees both, so it bounds them together:
// a grow that would take the instance's memories past limit fails (memory.
// grow returns -1; the kernel's alloc answers 0), and refused records it
// so the failed call is reported as resource_limit.
type instMemory struct {
	limit   uint64        // bytes the instance's linear memories may hold together
	used    atomic.Uint64 // bytes they hold now
	refused atomic.Bool   // a grow was refused by limit
}

// Allocate implements experimental.MemoryAllocator, once per memory of
// the instance. The first size (the memory's minimum) is always granted:
// wazero cannot refuse it, and newInstance checks the total after
// instantiation instead.
func (im *instMemory) Allocate(capacity, maximum uint64) experimental.LinearMemory {
	if maximum > 0 && maximum <= 1<<32 {
		b, err := syscall.Mmap(-1, 0, int(maximum), syscall.PROT_READ|syscall.PROT_WRITE,
			syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
		if err == nil {
			return &mappedMemory{im: im, buf: b}
		}
	}
	// No bound to reserve, or no mapping to be had: the Go heap, as
	// wazero itself does it.
	return &heapMemory{im: im, buf: make([]byte, 0, capacity)}
}

// Size is the bytes the instance's linear memories hold now.
func (im *instMemory) Size() uint64 { return im.used.Load() }

// grow accounts a memory going from old to size bytes, or refuses it when
// the instance would pass its limit. first marks a memory's minimum.
func (im *instMemory) grow(old, size uint64, first bool) bool {
	for {
		cur := im.used.Load()
		next := cur - old + size
		if !first && size > old && next > im.limit {
			im.refused.Store(true)
			return false
		}
		if im.used.CompareAndSwap(cur, next) {
			return true
		}
	}
}

// mappedMemory is a linear memory in its own mapping, never moved: a grow
// is a longer slice of the same pages.
type mappedMemory struct {
	im    *instMemory
	buf   []byte
	size  uint64
	begun bool
}

func (m *mappedMemory) Reallocate(size uint64) []byte {
	if m.buf == nil || size > uint64(len(m.buf)) {
		return nil // past the maximum: memory.grow fails, as the spec says
	}
	if !m.im.grow(m.size, size, !m.begun) {
		return nil
	}
	m.size, m.begun = size, true
	return m.buf[:size]
}

func (m *mappedMemory) Free() {
	if m.buf != nil {
		syscall.Munmap(m.buf)
		m.buf = nil
		m.im.grow(m.size, 0, true)
		m.size = 0
	}
}

// heapMemory is the fallback: a Go slice, reallocated on growth.
type heapMemory struct {
	im    *instMemory
	buf   []byte
	begun bool
}

func (m *heapMemory) Reallocate(size uint64) []byte {
	if !m.im.grow(uint64(len(m.buf)), size, !m.begun) {
		return nil
	}
	m.begun = true
	if size <= uint64(cap(m.buf)) {
		m.buf = m.buf[:size]
		return m.buf
	}
	nb := make([]byte, size, max(size, 2*uint64(cap(m.buf))))
	copy(nb, m.buf)
	m.buf = nb
	return nb
}

func (m *heapMemory) Free() {
	m.im.grow(uint64(len(m.buf)), 0, true)
	m.buf = nil
}
