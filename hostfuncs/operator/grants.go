package operator

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/weborigin"
	"github.com/wasmwright/wasmwright/internal/atomicfile"
	"github.com/wasmwright/wasmwright/internal/privatedir"
)

// Grant lets one tool (or every tool of one risk) act without asking on
// one origin. A grant never widens to every origin: Origin is a single
// scheme://host[:port], normalised by weborigin.Parse.
type Grant struct {
	Tool    string    `json:"tool,omitempty"`
	Risk    abi.Risk  `json:"risk,omitempty"`
	Origin  string    `json:"origin"`
	Created time.Time `json:"created"`
	By      string    `json:"by,omitempty"`
	// Via is ViaClient for a grant the agent's client made (an
	// elicitation answer): see FromClient. Empty for an operator's.
	Via string `json:"via,omitempty"`
}

// Grants stores each personality's grants in its own file (mode 0600) in
// a folder (mode 0700). It is safe for concurrent use.
type Grants struct {
	dir string
	mu  sync.Mutex
}

// OpenGrants returns the store in dir, creating the folder (mode 0700).
// It refuses (not_available) a folder that exists but is not private to
// the user: whoever else can write there could grant themselves any tool.
func OpenGrants(dir string) (*Grants, error) {
	if dir == "" {
		return nil, abi.Errorf(abi.CodeNotAvailable, "no folder for the act grants: set host.grants_dir in the config")
	}
	if err := privatedir.Ensure(dir, privatedir.Private); err != nil {
		return nil, abi.Errorf(abi.CodeNotAvailable, "grants folder: %v (or set host.grants_dir to a private folder)", err)
	}
	return &Grants{dir: dir}, nil
}

var plainName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func (g *Grants) file(personality string) string {
	name := personality
	if !plainName.MatchString(name) {
		h := sha256.Sum256([]byte(personality))
		name = "p-" + hex.EncodeToString(h[:8])
	}
	return filepath.Join(g.dir, name+".json")
}

func (g *Grants) load(personality string) ([]Grant, error) {
	b, err := os.ReadFile(g.file(personality))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Grant
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("grants of %s (%s) are not valid JSON: %w: fix or delete the file", personality, g.file(personality), err)
	}
	return out, nil
}

func (g *Grants) save(personality string, gs []Grant) error {
	b, err := json.MarshalIndent(gs, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(g.file(personality), b, 0o600, ".grants-*")
}

// List returns a personality's grants.
func (g *Grants) List(personality string) ([]Grant, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.load(personality)
}

// same reports whether gr and o are one grant; gr is checked (its origin
// normalised), o may be a stored one written before origins were.
func (gr Grant) same(o Grant) bool {
	stored, err := weborigin.Parse(o.Origin)
	if err != nil {
		stored = o.Origin
	}
	return gr.Tool == o.Tool && gr.Risk == o.Risk && gr.Origin == stored
}

func (gr *Grant) check() error {
	o, err := weborigin.Parse(gr.Origin)
	if err != nil {
		return err
	}
	gr.Origin = o
	if (gr.Tool == "") == (gr.Risk == "") {
		return abi.Errorf(abi.CodeInputInvalid, "a grant names a tool or a risk, exactly one")
	}
	if gr.Risk != "" && !gr.Risk.Valid() {
		return abi.Errorf(abi.CodeInputInvalid, "unknown risk %q: one of %v", gr.Risk, abi.Risks())
	}
	return nil
}

// Add stores a grant (an existing equal one is kept; an operator's equal
// to a client's is stored beside it, so it outlives the client's).
func (g *Grants) Add(personality string, gr Grant) error {
	if err := gr.check(); err != nil {
		return err
	}
	if gr.Created.IsZero() {
		gr.Created = time.Now().UTC()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	gs, err := g.load(personality)
	if err != nil {
		return err
	}
	if slices.ContainsFunc(gs, func(o Grant) bool { return gr.same(o) && gr.FromClient() == o.FromClient() }) {
		return nil
	}
	return g.save(personality, append(gs, gr))
}

// Revoke removes a grant; it reports whether one was there.
func (g *Grants) Revoke(personality string, gr Grant) (bool, error) {
	if err := gr.check(); err != nil {
		return false, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	gs, err := g.load(personality)
	if err != nil {
		return false, err
	}
	n := len(gs)
	gs = slices.DeleteFunc(gs, gr.same)
	if len(gs) == n {
		return false, nil
	}
	return true, g.save(personality, gs)
}

// Allows reports whether a stored grant lets tool (of risk) act on the
// page, given by its URL or origin (weborigin.Of). An empty or opaque
// origin is never allowed. A store that cannot be read allows nothing.
// A stored origin is normalised again before the comparison, so a grant
// written before origins were normalised (in Unicode, say) still matches.
// A grant the agent's client made (FromClient) counts only with clientOK:
// while the personality's approval.via still names the client.
func (g *Grants) Allows(personality, tool string, risk abi.Risk, page string, clientOK bool) bool {
	o := weborigin.Of(page)
	if o == weborigin.Opaque {
		return false
	}
	gs, err := g.List(personality)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(gs, func(gr Grant) bool {
		return (clientOK || !gr.FromClient()) && gr.covers(tool, risk, o)
	})
}

// covers reports whether gr lets tool (of risk) act on origin o (already
// normalised).
func (gr Grant) covers(tool string, risk abi.Risk, o string) bool {
	stored, err := weborigin.Parse(gr.Origin)
	return err == nil && stored == o && (gr.Tool == tool || (gr.Tool == "" && gr.Risk == risk))
}
