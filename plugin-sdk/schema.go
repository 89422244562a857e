package sdk

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// SchemaOf derives a JSON Schema (draft 2020-12 subset) for the Go type of v.
//
// Struct fields use their json tag names. A field is required unless its tag
// has omitempty or it is a pointer. Tags shape the schema:
//
//	desc:"what the field means"      -> description
//	enum:"a|b|c"                     -> enum (strings)
//	min:"1" max:"300"                -> minimum / maximum (numbers)
//
// Objects have additionalProperties false, so a misspelled argument is
// refused with its name rather than ignored.
func SchemaOf(v any) json.RawMessage {
	t := reflect.TypeOf(v)
	s := schemaFor(t, map[reflect.Type]bool{})
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("sdk: schema for %s: %v", t, err))
	}
	return b
}

type schema map[string]any

func schemaFor(t reflect.Type, seen map[reflect.Type]bool) schema {
	if t == nil {
		return schema{}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeOf(json.RawMessage{}) {
		return schema{}
	}
	switch t.Kind() {
	case reflect.String:
		return schema{"type": "string"}
	case reflect.Bool:
		return schema{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return schema{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return schema{"type": "number"}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return schema{"type": "string", "contentEncoding": "base64"}
		}
		return schema{"type": "array", "items": schemaFor(t.Elem(), seen)}
	case reflect.Map:
		return schema{"type": "object", "additionalProperties": schemaFor(t.Elem(), seen)}
	case reflect.Interface:
		return schema{}
	case reflect.Struct:
		if seen[t] {
			return schema{"type": "object"}
		}
		seen[t] = true
		defer delete(seen, t)
		props := map[string]any{}
		var required []string
		addStructFields(t, props, &required, seen)
		sort.Strings(required)
		s := schema{"type": "object", "properties": props, "additionalProperties": false}
		if len(required) > 0 {
			s["required"] = required
		}
		return s
	}
	panic(fmt.Sprintf("sdk: no JSON Schema for Go kind %s", t.Kind()))
}

func addStructFields(t reflect.Type, props map[string]any, required *[]string, seen map[reflect.Type]bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			addStructFields(f.Type, props, required, seen)
			continue
		}
		if name == "" {
			name = f.Name
		}
		s := schemaFor(f.Type, seen)
		if d := f.Tag.Get("desc"); d != "" {
			s["description"] = d
		}
		if e := f.Tag.Get("enum"); e != "" {
			s["enum"] = strings.Split(e, "|")
		}
		if m := f.Tag.Get("min"); m != "" {
			s["minimum"] = json.Number(m)
		}
		if m := f.Tag.Get("max"); m != "" {
			s["maximum"] = json.Number(m)
		}
		props[name] = s
		if !strings.Contains(opts, "omitempty") && f.Type.Kind() != reflect.Pointer {
			*required = append(*required, name)
		}
	}
}
