package hostfuncs

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
)

// CheckEnums refuses a request whose closed-set field (a string, or each
// string of a list) holds a value outside its enum, naming the field and
// the values it takes. An empty string is an absent field (encoding/json
// cannot tell them apart), so the field's default applies. Every JSON host
// function runs it before its handler, so no handler sees a value its
// schema does not list.
func CheckEnums(req any) error {
	return checkEnums(reflect.ValueOf(req), "")
}

func checkEnums(v reflect.Value, path string) error {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return checkEnums(v.Elem(), path)
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return nil // bytes
		}
		for i := 0; i < v.Len(); i++ {
			if err := checkEnums(v.Index(i), path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			if f.Anonymous && f.Tag.Get("json") == "" {
				if err := checkEnums(v.Field(i), path); err != nil { // flattened into its parent
					return err
				}
				continue
			}
			name := jsonName(f)
			if name == "-" {
				continue
			}
			if path != "" {
				name = path + "." + name
			}
			if set := abi.EnumOf(f); set != nil {
				if err := checkValues(v.Field(i), name, set); err != nil {
					return err
				}
				continue
			}
			if err := checkEnums(v.Field(i), name); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkValues checks a tagged field: a string, or a list of strings.
func checkValues(v reflect.Value, name string, set []string) error {
	if v.Kind() == reflect.Slice {
		for i := 0; i < v.Len(); i++ {
			if err := checkValues(v.Index(i), name+"["+strconv.Itoa(i)+"]", set); err != nil {
				return err
			}
		}
		return nil
	}
	s := v.String()
	if s == "" {
		return nil
	}
	for _, x := range set {
		if s == x {
			return nil
		}
	}
	return abi.Errorf(abi.CodeInputInvalid, "%s %q: use %s", name, s, orList(set))
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		return f.Name
	}
	return name
}

// orList writes "a, b or c".
func orList(xs []string) string {
	if len(xs) == 1 {
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}
