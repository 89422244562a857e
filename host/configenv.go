package host

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// Config from the environment: a string value of the config may name
// environment variables, so a pod's address (the downward API) and its
// secrets (a Secret mounted as variables) reach the config without a
// templating step at start:
//
//	proxy_listen = "${POD_IP}"
//	http = "${BIND:-127.0.0.1}:8931"
//
// ${NAME} takes NAME's value and refuses the config when NAME is unset or
// empty (a half-written address or an empty secret must not start a
// host); ${NAME:-default} takes default then. $${ is a literal ${. Only
// string values are expanded, never keys or comments, and an expanded
// value is never read again for variables, so a value cannot inject TOML
// or name a second variable.

// expandEnv returns text with the variables in its string values expanded
// (lookup reads them), or an error naming each variable that is missing
// and the key that names it. Text with no "${" is returned as it is, so a
// config that uses none reads exactly as before.
func expandEnv(text, source string, lookup func(string) (string, bool)) (string, error) {
	if !strings.Contains(text, "${") {
		return text, nil
	}
	var doc map[string]any
	if _, err := toml.Decode(text, &doc); err != nil {
		// A syntax error: the config's own decode reports it, with its line.
		return text, nil
	}
	x := envExpander{lookup: lookup}
	x.walk("", doc)
	if len(x.problems) > 0 {
		sort.Strings(x.problems)
		return "", &ConfigError{source, strings.Join(x.problems, "; ")}
	}
	if !x.changed {
		return text, nil
	}
	var b strings.Builder
	if err := toml.NewEncoder(&b).Encode(doc); err != nil {
		return "", &ConfigError{source, fmt.Sprintf("writing the config back after expanding its ${VAR} values: %v", err)}
	}
	return b.String(), nil
}

// envExpander expands the strings of a decoded TOML document in place.
type envExpander struct {
	lookup   func(string) (string, bool)
	problems []string
	changed  bool
}

func (x *envExpander) walk(key string, v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = x.walk(joinKey(key, k), e)
		}
	case []map[string]any:
		for i, e := range t {
			x.walk(fmt.Sprintf("%s[%d]", key, i), e)
		}
	case []any:
		for i, e := range t {
			t[i] = x.walk(fmt.Sprintf("%s[%d]", key, i), e)
		}
	case string:
		out, err := expandString(t, x.lookup)
		if err != nil {
			x.problems = append(x.problems, key+": "+err.Error())
			return t
		}
		x.changed = x.changed || out != t
		return out
	}
	return v
}

func joinKey(parent, k string) string {
	if parent == "" {
		return k
	}
	return parent + "." + k
}

// expandString expands ${NAME} and ${NAME:-default} in s; $${ is a
// literal ${.
func expandString(s string, lookup func(string) (string, bool)) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		if i > 0 && s[i-1] == '$' {
			b.WriteString(s[:i]) // the first $ of $${ stands for the escape
			b.WriteString("{")
			s = s[i+2:]
			continue
		}
		b.WriteString(s[:i])
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", fmt.Errorf("%q opens ${ without a closing }: write ${NAME} or ${NAME:-default} (or $${ for a literal ${)", s[i:])
		}
		expr := s[i+2 : i+end]
		name, def, hasDef := strings.Cut(expr, ":-")
		if !envName(name) {
			return "", fmt.Errorf("${%s} is not a variable: write ${NAME} or ${NAME:-default}, NAME of letters, digits and _", expr)
		}
		val, ok := lookup(name)
		switch {
		case ok && val != "":
			b.WriteString(val)
		case hasDef:
			b.WriteString(def)
		default:
			return "", fmt.Errorf("the environment variable %s is not set (or is empty): set it, or write ${%s:-default} to give a value when it is not", name, name)
		}
		s = s[i+end+1:]
	}
}

// envName says whether s is a variable name: a letter or _, then letters,
// digits and _.
func envName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		ok := r == '_' || (r >= 'A' && r <= 'Z') || (r >= 'a' && r <= 'z') || (i > 0 && r >= '0' && r <= '9')
		if !ok {
			return false
		}
	}
	return true
}

// osLookup is the process's environment.
func osLookup(name string) (string, bool) { return os.LookupEnv(name) }
