package secretmask_test

import (
	"bytes"
	"os"
	"strconv"
	"testing"

	"github.com/wasmwright/wasmwright/internal/secretforms"
)

// charsetTables writes the Rust masker's charset encoders (charsets.bin,
// read by forms.rs) from internal/secretforms' own encoders (x/text, in
// the HTML standard's error mode): every character beyond ASCII each
// charset encodes alone, with its code. For each charset of FormCharsets
// but UTF-16 (which forms.rs computes), in order: u8 name length, name,
// u32 n, u8 same (0: n characters follow, u24 each; k: the characters of
// the k-th charset before it), n × u16 code (one byte below 0x100, else
// two; ISO-2022-JP's without its escapes), u32 m, m × (u32 first
// character, u32 count, u32 first linear index) of gb18030's four-byte
// ranges.
func charsetTables(t *testing.T) []byte {
	var out bytes.Buffer
	var prev [][]rune
	le := func(v uint32, n int) {
		for i := 0; i < n; i++ {
			out.WriteByte(byte(v >> (8 * i)))
		}
	}
	for _, name := range secretforms.FormCharsets {
		if name == "utf-16le" || name == "utf-16be" {
			continue
		}
		for r := rune(0); r < 0x80; r++ {
			if b, ok := secretforms.Encode(name, string(r)); !ok || string(b) != string(r) {
				t.Fatalf("%s: ASCII %d is %q", name, r, b)
			}
		}
		type ent struct {
			r    rune
			code uint32
		}
		var ents []ent
		type run struct{ r, n, lin uint32 }
		var runs []run
		hi := rune(0xFFFF)
		if name == "big5" || name == "gb18030" {
			hi = 0x10FFFF
		}
		for r := rune(0x80); r <= hi; r++ {
			if r >= 0xD800 && r < 0xE000 {
				continue
			}
			b, _ := secretforms.Encode(name, string(r))
			if string(b) == "&#"+strconv.Itoa(int(r))+";" {
				continue
			}
			if name == "iso-2022-jp" {
				switch {
				case len(b) == 8 && string(b[:3]) == "\x1b$B" && string(b[5:]) == "\x1b(B":
					b = b[3:5]
				case len(b) == 7 && string(b[:3]) == "\x1b(I" && string(b[4:]) == "\x1b(B":
					b = b[3:4]
				default:
					t.Fatalf("iso-2022-jp %U: %q", r, b)
				}
			}
			switch len(b) {
			case 1:
				ents = append(ents, ent{r, uint32(b[0])})
			case 2:
				if b[0] < 0x21 {
					t.Fatalf("%s %U: %q", name, r, b)
				}
				ents = append(ents, ent{r, uint32(b[0])<<8 | uint32(b[1])})
			case 4:
				lin := ((uint32(b[0]-0x81)*10+uint32(b[1]-0x30))*126+uint32(b[2]-0x81))*10 + uint32(b[3]-0x30)
				if k := len(runs) - 1; k >= 0 && runs[k].r+runs[k].n == uint32(r) && runs[k].lin+runs[k].n == lin {
					runs[k].n++
				} else {
					runs = append(runs, run{uint32(r), 1, lin})
				}
			default:
				t.Fatalf("%s %U: %q", name, r, b)
			}
		}
		out.WriteByte(byte(len(name)))
		out.WriteString(name)
		le(uint32(len(ents)), 4)
		runes := make([]rune, len(ents))
		for i, e := range ents {
			runes[i] = e.r
		}
		same := 0
		for k, p := range prev {
			if string(p) == string(runes) {
				same = k + 1
				break
			}
		}
		prev = append(prev, runes)
		out.WriteByte(byte(same))
		if same == 0 {
			for _, e := range ents {
				le(uint32(e.r), 3)
			}
		}
		for _, e := range ents {
			le(e.code, 2)
		}
		le(uint32(len(runs)), 4)
		for _, x := range runs {
			le(x.r, 4)
			le(x.n, 4)
			le(x.lin, 4)
		}
	}
	return out.Bytes()
}

// TestCharsetTablesAreCurrent fails when charsets.bin is not what the Go
// encoders write today (a new x/text, a new charset); with
// WASMWRIGHT_WRITE_TABLES=1 it writes the file instead.
func TestCharsetTablesAreCurrent(t *testing.T) {
	want := charsetTables(t)
	if os.Getenv("WASMWRIGHT_WRITE_TABLES") == "1" {
		if err := os.WriteFile("charsets.bin", want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("charsets.bin")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("charsets.bin (%d bytes) is not what secretforms encodes today (%d bytes): run WASMWRIGHT_WRITE_TABLES=1 go test -run TestCharsetTablesAreCurrent ./plugins/secretmask/, then make plugins", len(got), len(want))
	}
}
