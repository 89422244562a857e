package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
)

// sourceDocs reads the comments of config types from their Go source,
// which reflection cannot see. The module's packages are found under root
// by their import path.
type sourceDocs struct {
	root, module string
	pkgs         map[string]map[string]*ast.TypeSpec // import path -> type name -> spec
}

func newSourceDocs(root string) (*sourceDocs, error) {
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	m := regexp.MustCompile(`(?m)^module\s+(\S+)`).FindSubmatch(b)
	if m == nil {
		return nil, os.ErrNotExist
	}
	return &sourceDocs{root: root, module: string(m[1]), pkgs: map[string]map[string]*ast.TypeSpec{}}, nil
}

// spec is the declaration of named type t, or nil when its source is not
// in this module.
func (s *sourceDocs) spec(t reflect.Type) *ast.TypeSpec {
	pkg := t.PkgPath()
	types, ok := s.pkgs[pkg]
	if !ok {
		types = map[string]*ast.TypeSpec{}
		s.pkgs[pkg] = types
		if rel, in := strings.CutPrefix(pkg, s.module); in {
			s.parse(filepath.Join(s.root, filepath.FromSlash(rel)), types)
		}
	}
	return types[t.Name()]
}

func (s *sourceDocs) parse(dir string, types map[string]*ast.TypeSpec) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
		if err != nil {
			continue
		}
		for _, d := range af.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, sp := range gd.Specs {
				ts := sp.(*ast.TypeSpec)
				if ts.Doc == nil && len(gd.Specs) == 1 {
					ts.Doc = gd.Doc
				}
				types[ts.Name.Name] = ts
			}
		}
	}
}

// typeDoc is the comment on type t's declaration, its example blocks
// (indented lines) left out.
func (s *sourceDocs) typeDoc(t reflect.Type) string {
	sp := s.spec(t)
	if sp == nil || sp.Doc == nil {
		return ""
	}
	return flatten(sp.Doc.Text())
}

// field is the comment documenting field i of struct t: its own doc or
// line comment; else, when the field before it has a comment naming this
// one ("TLSCert and TLSKey are..."), a pointer to that key.
func (s *sourceDocs) field(t reflect.Type, i int) string {
	sp := s.spec(t)
	if sp == nil {
		return ""
	}
	st, ok := sp.Type.(*ast.StructType)
	if !ok {
		return ""
	}
	name := t.Field(i).Name
	var prev *ast.Field
	for _, f := range st.Fields.List {
		for _, n := range f.Names {
			if n.Name != name {
				continue
			}
			if txt := fieldText(f); txt != "" {
				return keyed(txt, t)
			}
			if prev != nil && strings.Contains(fieldText(prev), name) {
				return "See `" + tomlKey(t, prev.Names[0].Name) + "`."
			}
			return ""
		}
		prev = f
	}
	return ""
}

func fieldText(f *ast.Field) string {
	if f.Doc != nil {
		return flatten(f.Doc.Text())
	}
	if f.Comment != nil {
		return flatten(f.Comment.Text())
	}
	return ""
}

// keyed writes the Go field names a comment uses as the TOML keys the
// reader writes ("PluginsDir holds" -> "`plugins_dir` holds"): the name
// that opens the comment, and elsewhere only names no English word is
// spelled like (camel case: "TLSKey", not "Grid" or "HTTP").
func keyed(txt string, t reflect.Type) string {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if key == "" || key == "-" {
			continue
		}
		if rest, ok := strings.CutPrefix(txt, f.Name); ok && !startsWord(rest) {
			txt = "`" + key + "`" + rest
		}
		if camel.MatchString(f.Name) {
			txt = regexp.MustCompile(`\b`+f.Name+`\b`).ReplaceAllString(txt, "`"+key+"`")
		}
	}
	return txt
}

var camel = regexp.MustCompile(`[a-z][A-Z]|[A-Z][A-Z][a-z]`)

func startsWord(s string) bool {
	return s != "" && (s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z' || s[0] >= '0' && s[0] <= '9')
}

func tomlKey(t reflect.Type, field string) string {
	f, _ := t.FieldByName(field)
	key, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	return key
}

// flatten joins a comment's prose lines into one, leaving out indented
// example blocks; a table cell holds one line.
func flatten(doc string) string {
	var out []string
	for _, l := range strings.Split(doc, "\n") {
		if strings.HasPrefix(l, "\t") || strings.HasPrefix(l, "    ") {
			continue
		}
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return strings.ReplaceAll(strings.Join(out, " "), "|", `\|`)
}
