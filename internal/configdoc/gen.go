// Command configdoc writes the key reference of docs/configuration.md from
// the config types themselves: reflection gives each key (its toml tag),
// its type and the tables it nests in; the Go source gives the comment
// that documents it; host/default.toml gives the value the embedded
// default config sets. Run `go run ./internal/configdoc -w` after changing
// a config type; its test fails while the page and the types disagree.
package main

import (
	"encoding"
	"fmt"
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/hostfuncs/browser"
)

// deferred are the tables host.Config keeps as toml.Primitive, decoded
// later by the service that owns them: reflection over host.Config cannot
// see their keys, so each is named here with the type it decodes into
// (TestDeferredSectionsKnown fails when one is missing).
var deferred = map[string]any{
	"browser": browser.Config{},
	"vault":   host.VaultConfig{},
}

// row is one key of one table.
type row struct {
	Key, Type, Default, Doc string
}

// table is one TOML table of the reference, its keys in field order.
type table struct {
	Name string // "host", "personalities.NAME.network", "[serve.tokens]"
	Doc  string // for a table read by its own code: what it holds
	Rows []row
}

var (
	primitiveType = reflect.TypeFor[toml.Primitive]()
	tomlUnmarsh   = reflect.TypeFor[toml.Unmarshaler]()
	textUnmarsh   = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// walker collects the tables of one config type.
type walker struct {
	docs     *sourceDocs
	defaults map[string]any
	deferred map[string]any
	tables   []*table
	err      error
}

// walk adds the table name for struct type t, then its sub-tables.
func (w *walker) walk(name string, t reflect.Type) {
	tb := &table{Name: name}
	w.tables = append(w.tables, tb)
	var subs []func()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if key == "" || key == "-" || !f.IsExported() {
			continue
		}
		path := joinKey(name, key)
		doc := w.docs.field(t, i)
		ft := f.Type
		switch {
		case ft == primitiveType:
			v, ok := w.deferred[key]
			if !ok {
				w.fail("%s.%s is decoded later (toml.Primitive) and configdoc does not know its type: add it to deferred", t, f.Name)
				continue
			}
			subs = append(subs, func() { w.walk(path, reflect.TypeOf(v)) })
			continue
		case isTable(ft):
			subs = append(subs, func() { w.walk(path, ft) })
			continue
		case ft.Kind() == reflect.Map && isTable(ft.Elem()):
			subs = append(subs, func() { w.walk(path+".NAME", ft.Elem()) })
			continue
		case ft.Kind() == reflect.Slice && isTable(ft.Elem()):
			subs = append(subs, func() { w.walk("["+path+"]", ft.Elem()) })
			continue
		}
		if doc == "" && ft.Kind() == reflect.Struct && reflect.PointerTo(ft).Implements(tomlUnmarsh) {
			// A table its own UnmarshalTOML reads, its field undocumented:
			// its keys are not fields, so the type's comment says what
			// they are.
			doc = w.docs.typeDoc(ft)
		}
		tb.Rows = append(tb.Rows, row{Key: key, Type: typeName(ft), Default: w.defaultOf(path), Doc: doc})
	}
	for _, s := range subs {
		s()
	}
}

func (w *walker) fail(format string, a ...any) {
	if w.err == nil {
		w.err = fmt.Errorf(format, a...)
	}
}

// defaultOf is the value host/default.toml sets for the dotted key path,
// as TOML, or "" when it sets none (tables of NAME are examples there,
// not defaults).
func (w *walker) defaultOf(path string) string {
	if strings.Contains(path, "NAME") || strings.HasPrefix(path, "[") {
		return ""
	}
	var v any = w.defaults
	for _, p := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		if v, ok = m[p]; !ok {
			return ""
		}
	}
	return tomlValue(v)
}

func tomlValue(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("%q", x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = tomlValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

func joinKey(table, key string) string {
	if table == "" {
		return key
	}
	return table + "." + key
}

// custom reports whether t (or *t) decodes itself from TOML.
func custom(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return t.Implements(tomlUnmarsh) || p.Implements(tomlUnmarsh) || t.Implements(textUnmarsh) || p.Implements(textUnmarsh)
}

// isTable reports whether t is a struct TOML decodes field by field.
func isTable(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && !custom(t)
}

// typeName is how the reference writes a key's type.
func typeName(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Name() == "Duration" {
		return `duration ("30s")`
	}
	if custom(t) {
		switch t.Kind() {
		case reflect.Slice:
			return "string or list of strings"
		case reflect.Struct:
			return "table"
		}
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "bool"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "integer"
	case reflect.Slice:
		return "list of " + typeName(t.Elem()) + "s"
	case reflect.Map:
		return "table"
	}
	return t.String()
}
