package host

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/wasmwright/wasmwright/abi"
)

// Tool arguments are checked against the tool's input schema by the one
// JSON Schema library the product links anyway (the MCP SDK needs it):
// its Resolved.Validate gives the verdict. The library stops at the first
// problem and names it by the schema's path; an agent needs the
// argument's path and every problem at once, so describe below reads the
// schema again to say what is wrong, only once the library has refused.

// schemaVersions are the $schema values the library validates (draft
// 2020-12, the default, and draft-07). It checks this at each Validate;
// compileSchema checks it at link, so that an author hears of another
// draft when the plugin loads, not at every call.
var schemaVersions = []string{"", "https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft-07/schema#"}

// jsonTypes are the type names JSON Schema knows.
var jsonTypes = []string{"array", "boolean", "integer", "null", "number", "object", "string"}

// compileSchema parses and resolves a tool's input schema, once, when the
// personality links the tool.
func compileSchema(raw []byte) (*jsonschema.Resolved, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	if !slices.Contains(schemaVersions, s.Schema) {
		return nil, fmt.Errorf("$schema %q is not supported: declare draft 2020-12 (or leave $schema out)", s.Schema)
	}
	// The library does not check a schema against its meta-schema; a
	// misspelt type would refuse every call, so it is refused here.
	if err := checkTypes(&s, "#"); err != nil {
		return nil, err
	}
	return s.Resolve(nil)
}

// checkTypes reports a type name JSON Schema does not know, in s or in
// the subschemas that hold an argument's own schema.
func checkTypes(s *jsonschema.Schema, at string) error {
	if s == nil {
		return nil
	}
	for _, t := range append([]string{s.Type}, s.Types...) {
		if t != "" && !slices.Contains(jsonTypes, t) {
			return fmt.Errorf("at %s: unknown type %q (want one of %s)", at, t, strings.Join(jsonTypes, ", "))
		}
	}
	for name, p := range s.Properties {
		if err := checkTypes(p, at+"/properties/"+name); err != nil {
			return err
		}
	}
	for i, p := range s.PrefixItems {
		if err := checkTypes(p, fmt.Sprintf("%s/prefixItems/%d", at, i)); err != nil {
			return err
		}
	}
	for _, sub := range []struct {
		name string
		s    *jsonschema.Schema
	}{{"items", s.Items}, {"additionalProperties", s.AdditionalProperties}} {
		if err := checkTypes(sub.s, at+"/"+sub.name); err != nil {
			return err
		}
	}
	return nil
}

// validateArgs checks a call's arguments against its tool's schema;
// anything the library refuses is input_invalid, said in one line.
func validateArgs(r *route, args json.RawMessage) error {
	var doc any
	if err := json.Unmarshal(args, &doc); err != nil {
		return abi.Errorf(abi.CodeInputInvalid, "arguments of %s are not valid JSON: %v", r.spec.Name, err)
	}
	if _, ok := doc.(map[string]any); !ok {
		return abi.Errorf(abi.CodeInputInvalid, "arguments of %s must be a JSON object", r.spec.Name)
	}
	if err := r.schema.Validate(doc); err != nil {
		return abi.Errorf(abi.CodeInputInvalid, "arguments of %s do not match its schema: %s (see `wasmwright tools` for the schema)", r.spec.Name, describeValidation(r.schema.Schema(), doc, err))
	}
	return nil
}

// describeValidation says every problem of doc under s in one line, each
// as "at '/path': what is wrong" (the root's path left out), sorted. A
// refusal describe cannot explain (a keyword it does not read, such as
// oneOf) is said in the library's own words: the call is refused either
// way.
func describeValidation(s *jsonschema.Schema, doc any, err error) string {
	var leaves []string
	describe(s, doc, "", &leaves)
	if len(leaves) == 0 {
		msg := err.Error()
		for strings.HasPrefix(msg, "validating ") {
			_, rest, ok := strings.Cut(msg, ": ")
			if !ok {
				break
			}
			msg = rest
		}
		return msg
	}
	sort.Strings(leaves)
	return strings.Join(leaves, "; ")
}

// describe adds to out what is wrong with v under s, at path.
func describe(s *jsonschema.Schema, v any, path string, out *[]string) {
	if s == nil {
		return
	}
	say := func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		if path != "" {
			msg = fmt.Sprintf("at '%s': %s", path, msg)
		}
		*out = append(*out, msg)
	}
	if want := append([]string{s.Type}, s.Types...); !typeFits(v, want) {
		say("got %s, want %s", jsonType(v), strings.Join(slices.DeleteFunc(want, func(t string) bool { return t == "" }), " or "))
		return
	}
	if s.Enum != nil && !slices.ContainsFunc(s.Enum, func(e any) bool { return reflect.DeepEqual(e, v) }) {
		say("value must be one of %s", quoteAll(s.Enum))
	}
	if s.Const != nil && !reflect.DeepEqual(*s.Const, v) {
		say("value must be %s", quoteAll([]any{*s.Const}))
	}
	switch v := v.(type) {
	case float64:
		describeNumber(s, v, say)
	case string:
		describeString(s, v, say)
	case []any:
		describeArray(s, v, path, say, out)
	case map[string]any:
		describeObject(s, v, path, say, out)
	}
}

func describeNumber(s *jsonschema.Schema, n float64, say func(string, ...any)) {
	for _, b := range []struct {
		name  string
		limit *float64
		bad   func(n, l float64) bool
	}{
		{"minimum", s.Minimum, func(n, l float64) bool { return n < l }},
		{"maximum", s.Maximum, func(n, l float64) bool { return n > l }},
		{"exclusiveMinimum", s.ExclusiveMinimum, func(n, l float64) bool { return n <= l }},
		{"exclusiveMaximum", s.ExclusiveMaximum, func(n, l float64) bool { return n >= l }},
	} {
		if b.limit != nil && b.bad(n, *b.limit) {
			say("%s: got %v, want %v", b.name, n, *b.limit)
		}
	}
	if m := s.MultipleOf; m != nil && *m != 0 {
		if _, f := math.Modf(n / *m); f != 0 {
			say("multipleOf: got %v, want a multiple of %v", n, *m)
		}
	}
}

func describeString(s *jsonschema.Schema, str string, say func(string, ...any)) {
	n := utf8.RuneCountInString(str)
	if s.MinLength != nil && n < *s.MinLength {
		say("minLength: got %d, want %d", n, *s.MinLength)
	}
	if s.MaxLength != nil && n > *s.MaxLength {
		say("maxLength: got %d, want %d", n, *s.MaxLength)
	}
	if s.Pattern != "" {
		// Compiled again only on this path, after a refusal: the library
		// keeps its own compiled copy to itself.
		if re, err := regexp.Compile(s.Pattern); err == nil && !re.MatchString(str) {
			say("'%s' does not match pattern '%s'", str, s.Pattern)
		}
	}
}

func describeArray(s *jsonschema.Schema, a []any, path string, say func(string, ...any), out *[]string) {
	if s.MinItems != nil && len(a) < *s.MinItems {
		say("minItems: got %d, want %d", len(a), *s.MinItems)
	}
	if s.MaxItems != nil && len(a) > *s.MaxItems {
		say("maxItems: got %d, want %d", len(a), *s.MaxItems)
	}
	for i, item := range a {
		sub := s.Items
		if i < len(s.PrefixItems) {
			sub = s.PrefixItems[i]
		}
		describe(sub, item, fmt.Sprintf("%s/%d", path, i), out)
	}
}

func describeObject(s *jsonschema.Schema, o map[string]any, path string, say func(string, ...any), out *[]string) {
	var missing, extra []any
	for _, name := range s.Required {
		if _, ok := o[name]; !ok {
			missing = append(missing, name)
		}
	}
	names := make([]string, 0, len(o))
	for name := range o {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if p, ok := s.Properties[name]; ok {
			describe(p, o[name], path+"/"+escapePointer(name), out)
		} else if isFalse(s.AdditionalProperties) && len(s.PatternProperties) == 0 {
			extra = append(extra, name)
		} else if len(s.PatternProperties) == 0 {
			describe(s.AdditionalProperties, o[name], path+"/"+escapePointer(name), out)
		}
	}
	if len(missing) == 1 {
		say("missing property %s", quoteAll(missing))
	} else if len(missing) > 1 {
		say("missing properties %s", quoteAll(missing))
	}
	if len(extra) > 0 {
		say("additional properties %s not allowed", quoteAll(extra))
	}
}

// isFalse reports whether s is the schema false, which the library
// unmarshals as {"not": {}}.
func isFalse(s *jsonschema.Schema) bool {
	return s != nil && s.Not != nil && reflect.ValueOf(*s.Not).IsZero()
}

// typeFits reports whether v is of one of the types want ("" is none): a
// whole number is an integer, as the library counts it.
func typeFits(v any, want []string) bool {
	got, open := jsonType(v), true
	for _, t := range want {
		if t == "" {
			continue
		}
		open = false
		if t == got || t == "integer" && got == "number" && isWhole(v) {
			return true
		}
	}
	return open
}

func isWhole(v any) bool {
	_, f := math.Modf(v.(float64))
	return f == 0
}

// jsonType names v's JSON type; every number is a number here, as the
// messages say it (an integer is asked for, never reported).
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	default:
		return "object"
	}
}

// quoteAll lists values as the messages show them: 'a', 'b'.
func quoteAll(vs []any) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		if s, ok := v.(string); ok {
			q[i] = "'" + s + "'"
		} else {
			b, _ := json.Marshal(v)
			q[i] = string(b)
		}
	}
	return strings.Join(q, ", ")
}

// escapePointer escapes a property name for a JSON Pointer path.
func escapePointer(name string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
}
