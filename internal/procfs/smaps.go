package procfs

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Mapping is one mapping of /proc/PID/smaps: what it maps and what of it
// is in memory. Sizes are in KB, as smaps gives them.
type Mapping struct {
	Start, End uint64
	// Perms is "rwxp" style; Path the file or "[heap]", "[stack]"... ("" for
	// an anonymous mapping).
	Perms, Path string
	// Rss, Pss and Private (Private_Clean + Private_Dirty: what the
	// process alone holds, its part of a USS).
	Rss, Pss, Private int64
	// Flags are its VmFlags ("rd", "ex", "nr" for MAP_NORESERVE...).
	Flags []string
}

// SizeKB is the mapped size (address space, not memory), in KB.
func (m Mapping) SizeKB() int64 { return int64(m.End-m.Start) >> 10 }

// Anon reports whether nothing backs the mapping (no file, no [name]).
func (m Mapping) Anon() bool { return m.Path == "" }

// Exec reports whether the mapping is executable.
func (m Mapping) Exec() bool { return len(m.Perms) > 2 && m.Perms[2] == 'x' }

// Flag reports whether VmFlags holds f.
func (m Mapping) Flag(f string) bool {
	for _, x := range m.Flags {
		if x == f {
			return true
		}
	}
	return false
}

// Smaps reads /proc/PID/smaps (nil when it cannot be read: the process is
// gone, or is not ours to read).
func Smaps(pid int) []Mapping {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		return nil
	}
	defer f.Close()
	return ParseSmaps(f)
}

// ParseSmaps reads smaps' text: a header line per mapping ("lo-hi perms
// offset dev inode [path]") and its "Key: N kB" lines.
func ParseSmaps(r io.Reader) []Mapping {
	var out []Mapping
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 {
			continue
		}
		if m, ok := mappingHeader(fs); ok {
			out = append(out, m)
			continue
		}
		if len(out) == 0 {
			continue
		}
		m := &out[len(out)-1]
		switch fs[0] {
		case "VmFlags:":
			m.Flags = append([]string(nil), fs[1:]...)
		case "Rss:", "Pss:", "Private_Clean:", "Private_Dirty:":
			if len(fs) < 2 {
				continue
			}
			kb, _ := strconv.ParseInt(fs[1], 10, 64)
			switch fs[0] {
			case "Rss:":
				m.Rss = kb
			case "Pss:":
				m.Pss = kb
			default:
				m.Private += kb
			}
		}
	}
	return out
}

// mappingHeader parses a mapping's first line, if fs is one.
func mappingHeader(fs []string) (Mapping, bool) {
	if len(fs) < 5 || len(fs[1]) != 4 {
		return Mapping{}, false
	}
	lo, hi, ok := strings.Cut(fs[0], "-")
	if !ok {
		return Mapping{}, false
	}
	a, err1 := strconv.ParseUint(lo, 16, 64)
	b, err2 := strconv.ParseUint(hi, 16, 64)
	if err1 != nil || err2 != nil {
		return Mapping{}, false
	}
	m := Mapping{Start: a, End: b, Perms: fs[1]}
	if len(fs) > 5 {
		m.Path = strings.Join(fs[5:], " ")
	}
	return m, true
}
