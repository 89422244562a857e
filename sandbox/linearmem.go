package sandbox

import (
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
)

// Plugins' linear memories live outside the Go heap, in a mapping of
// their own (mmapAllocator), so that:
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
// The reservation is MAP_NORESERVE: it commits nothing, and memory_mb
// (the module's maximum) still caps what a plugin can touch, as wazero
// refuses a memory.grow past it.
type mmapAllocator struct{}

func (mmapAllocator) Allocate(capacity, maximum uint64) experimental.LinearMemory {
	if maximum > 0 && maximum <= 1<<32 {
		b, err := syscall.Mmap(-1, 0, int(maximum), syscall.PROT_READ|syscall.PROT_WRITE,
			syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
		if err == nil {
			return &mappedMemory{buf: b}
		}
	}
	// No bound to reserve, or no mapping to be had: the Go heap, as
	// wazero itself does it.
	return &heapMemory{buf: make([]byte, 0, capacity)}
}

// mappedMemory is a linear memory in its own mapping, never moved: a grow
// is a longer slice of the same pages.
type mappedMemory struct{ buf []byte }

func (m *mappedMemory) Reallocate(size uint64) []byte {
	if m.buf == nil || size > uint64(len(m.buf)) {
		return nil // past the maximum: memory.grow fails, as the spec says
	}
	return m.buf[:size]
}

func (m *mappedMemory) Free() {
	if m.buf != nil {
		syscall.Munmap(m.buf)
		m.buf = nil
	}
}

// heapMemory is the fallback: a Go slice, reallocated on growth.
type heapMemory struct{ buf []byte }

func (m *heapMemory) Reallocate(size uint64) []byte {
	if size <= uint64(cap(m.buf)) {
		m.buf = m.buf[:size]
		return m.buf
	}
	nb := make([]byte, size, max(size, 2*uint64(cap(m.buf))))
	copy(nb, m.buf)
	m.buf = nb
	return nb
}

func (m *heapMemory) Free() { m.buf = nil }
