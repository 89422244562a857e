package hostfuncs

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
	"sync"

	"github.com/wasmwright/wasmwright/abi"
)

// BlobMin is the smallest string a host function hands over by reference:
// below it, a token saves nothing.
const BlobMin = 512

// Blobs holds, for one plugin call, the large strings host functions gave
// the plugin as tokens (abi.FeatureBlobs). The plugin copies a token into
// its Result unchanged; the host swaps the value back in (Resolve), so the
// bytes never cross into the sandbox and back through its JSON.
type Blobs struct {
	mu     sync.Mutex
	prefix string
	vals   []string
}

// NewBlobs returns an empty store with a prefix of its own: a token is
// meaningful only in the call that minted it, and a page cannot guess one.
func NewBlobs() *Blobs {
	var b [8]byte
	rand.Read(b[:])
	return &Blobs{prefix: abi.BlobPrefix + hex.EncodeToString(b[:]) + ":"}
}

// Blob returns s, or a token standing for it when the calling plugin takes
// blobs and s is large.
func (c *Caller) Blob(s string) string {
	if c == nil || c.Blobs() == nil || len(s) < BlobMin {
		return s
	}
	return c.Blobs().put(s)
}

func (b *Blobs) put(s string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.vals = append(b.vals, s)
	return b.prefix + strconv.Itoa(len(b.vals)-1)
}

// Len reports how many blobs were minted.
func (b *Blobs) Len() int {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.vals)
}

// Resolve returns the value a token stands for; any other string is
// returned as is.
func (b *Blobs) Resolve(s string) string {
	if b == nil || !strings.HasPrefix(s, b.prefix) {
		return s
	}
	i, err := strconv.Atoi(s[len(b.prefix):])
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil || i < 0 || i >= len(b.vals) {
		return s
	}
	return b.vals[i]
}

// ResolveResult swaps every token in the string fields of r that carry
// host data (text, snapshot, page facts, image data, warnings) for its
// value.
func (b *Blobs) ResolveResult(r *abi.Result) {
	if b == nil || r == nil || b.Len() == 0 {
		return
	}
	r.Text = b.Resolve(r.Text)
	r.Snapshot = b.Resolve(r.Snapshot)
	if p := r.Page; p != nil {
		p.Title, p.Text, p.HTML = b.Resolve(p.Title), b.Resolve(p.Text), b.Resolve(p.HTML)
	}
	for i := range r.Images {
		r.Images[i].Data = b.Resolve(r.Images[i].Data)
	}
	for i := range r.Warnings {
		r.Warnings[i] = b.Resolve(r.Warnings[i])
	}
}
