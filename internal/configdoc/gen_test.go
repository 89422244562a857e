package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/internal/reporoot"
)

func root(t *testing.T) string {
	t.Helper()
	r, err := reporoot.Find()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// generated is the part of the page between the markers.
func generated(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root(t), page))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), beginMark+"\n")
	part, _, ok2 := strings.Cut(rest, endMark)
	if !ok || !ok2 {
		t.Fatalf("%s has lost its configdoc markers", page)
	}
	return part
}

// firstDiff is the first line where want and got differ, or "".
func firstDiff(want, got string) string {
	if n, a, b := reporoot.FirstDiff(want, got); n > 0 {
		return "the types give: " + a + "\nthe page has:  " + b
	}
	return ""
}

// The page's reference is what the config types give: a key added,
// renamed, retyped or documented differently without the page
// regenerated fails here.
func TestPageMatchesTypes(t *testing.T) {
	gen, err := generate(root(t), reflect.TypeFor[host.Config](), deferred)
	if err != nil {
		t.Fatal(err)
	}
	if d := firstDiff(gen, generated(t)); d != "" {
		t.Errorf("%s is stale: run `go run ./internal/configdoc -w`\n%s", page, d)
	}
}

// The check above notices a new key: a config with one more key than
// host.Config's [host] table does not match the page.
func TestNewKeyIsNoticed(t *testing.T) {
	cfg := reflect.StructOf([]reflect.StructField{
		{Name: "Host", Type: reflect.TypeFor[host.HostConfig](), Tag: `toml:"host"`},
		{Name: "Extra", Type: reflect.TypeFor[string](), Tag: `toml:"brand_new_key"`},
	})
	gen, err := generate(root(t), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(gen, "`brand_new_key`") {
		t.Fatalf("the generator left out a new key:\n%s", gen)
	}
	if firstDiff(gen, generated(t)) == "" {
		t.Fatal("a config with a new key matches the page")
	}
}

// Every key has a comment in its type saying what it does: the page's
// only source of prose about a key.
func TestEveryKeyDocumented(t *testing.T) {
	docs, err := newSourceDocs(root(t))
	if err != nil {
		t.Fatal(err)
	}
	w := &walker{docs: docs, deferred: deferred}
	w.walk("", reflect.TypeFor[host.Config]())
	if w.err != nil {
		t.Fatal(w.err)
	}
	n := 0
	for _, tb := range w.tables {
		for _, r := range tb.Rows {
			n++
			if r.Doc == "" {
				t.Errorf("[%s] %s has no comment in its type: say what it does", tb.Name, r.Key)
			}
		}
	}
	if n < 50 {
		t.Fatalf("only %d keys found: the walk is broken", n)
	}
}

// Every table host.Config defers to a service (a toml.Primitive field) is
// known to the generator, and the generator knows no table it does not
// defer.
func TestDeferredSectionsKnown(t *testing.T) {
	ct := reflect.TypeFor[host.Config]()
	seen := map[string]bool{}
	for i := 0; i < ct.NumField(); i++ {
		f := ct.Field(i)
		if f.Type != primitiveType {
			continue
		}
		key, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		seen[key] = true
		if _, ok := deferred[key]; !ok {
			t.Errorf("[%s] is decoded later and configdoc does not know its type: add it to deferred", key)
		}
	}
	for k := range deferred {
		if !seen[k] {
			t.Errorf("deferred names [%s], which host.Config does not defer", k)
		}
	}
}

// Every key the embedded default config sets is in the reference, in its
// table.
func TestDefaultConfigKeysDocumented(t *testing.T) {
	var defaults map[string]any
	if _, err := toml.Decode(host.DefaultConfigText(), &defaults); err != nil {
		t.Fatal(err)
	}
	docs, err := newSourceDocs(root(t))
	if err != nil {
		t.Fatal(err)
	}
	w := &walker{docs: docs, deferred: deferred}
	w.walk("", reflect.TypeFor[host.Config]())
	known := map[string]bool{}
	for _, tb := range w.tables {
		for _, r := range tb.Rows {
			known[joinKey(tb.Name, r.Key)] = true
		}
		known[tb.Name] = true
	}
	n := 0
	var walk func(table string, m map[string]any)
	walk = func(table string, m map[string]any) {
		for k, v := range m {
			if table == "plugins" || table == "personalities" {
				k = "NAME"
			}
			path := joinKey(table, k)
			if sub, ok := v.(map[string]any); ok && !known[path] {
				walk(path, sub)
				continue
			}
			n++
			if !known[path] {
				t.Errorf("host/default.toml sets %s, which the reference does not list", path)
			}
		}
	}
	walk("", defaults)
	if n < 10 {
		t.Fatalf("only %d keys read from host/default.toml", n)
	}
}
