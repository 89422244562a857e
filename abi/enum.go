package abi

import (
	"reflect"
	"strings"
)

// EnumOf returns the closed set of values a field of a request or response
// takes, from its `enum:"a|b|c"` tag, or nil when the field is free. The
// tag is the one place the set is written: the host refuses a request
// value outside it (input_invalid, before the handler runs; an empty
// string is an absent field), and the JSON Schemas in schema/hostfuncs/
// list it as the field's enum.
func EnumOf(f reflect.StructField) []string {
	tag, ok := f.Tag.Lookup("enum")
	if !ok || tag == "" {
		return nil
	}
	return strings.Split(tag, "|")
}
