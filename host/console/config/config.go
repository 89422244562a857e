// Package config is the operator console's [console] table: its keys,
// decoded by the kernel's config (host.Config.Console) and checked here.
// It is apart from package console, which runs on the kernel, so the
// kernel's config can hold it.
package config

import (
	"fmt"
	"strings"
)

// Config is the [console] table, decoded straight from the TOML (unknown
// keys refused): the operator console of
// `wasmwright serve`, where people watch and drive the agents' browsers,
// answer takeovers and approvals.
//
//	[console]
//	enabled = true
//	path = "/console"        # on the MCP HTTP listener (default)
//	addr = "127.0.0.1:8932"  # or its own listener (needed with stdio)
//	[[console.operators]]
//	name = "alice"
//	sha256 = "..."           # wasmwright console token new
//	personalities = ["shop"] # optional: only these (default: all)
type Config struct {
	Enabled   bool       `toml:"enabled"`
	Path      string     `toml:"path"`
	Addr      string     `toml:"addr"`
	Operators []Operator `toml:"operators"`
}

// ConsolePath is where the console is served: Path, default "/console".
func (c Config) ConsolePath() string {
	if c.Path == "" {
		return "/console"
	}
	return strings.TrimSuffix(c.Path, "/")
}

// Operator is one operator of the console, known by the sha256 of
// their token (never an agent's bearer token).
type Operator struct {
	Name          string   `toml:"name"`
	SHA256        string   `toml:"sha256"`
	Personalities []string `toml:"personalities"`
}

// Validate checks the table: defined says whether a personality exists,
// agentTokens are the sha256 of the agents' bearer tokens ([serve]
// tokens), which no operator may reuse.
func (cc Config) Validate(defined func(string) bool, agentTokens []string) error {
	if !cc.Enabled {
		return nil
	}
	if len(cc.Operators) == 0 {
		return fmt.Errorf("console.enabled needs at least one [[console.operators]] (make one with wasmwright console token new)")
	}
	if p := cc.ConsolePath(); !strings.HasPrefix(p, "/") || p == "/" || p == "/mcp" || strings.ContainsAny(p, "?#* ") {
		return fmt.Errorf("console.path %q: give a path of its own such as /console", cc.Path)
	}
	agent := map[string]bool{}
	for _, t := range agentTokens {
		agent[strings.ToLower(t)] = true
	}
	names := map[string]bool{}
	for i, o := range cc.Operators {
		if !ValidID(o.Name) || names[o.Name] {
			return fmt.Errorf("console.operators[%d].name %q: give each operator a distinct name of letters, digits, _ and -", i, o.Name)
		}
		names[o.Name] = true
		if len(o.SHA256) != 64 || strings.Trim(strings.ToLower(o.SHA256), "0123456789abcdef") != "" {
			return fmt.Errorf("console.operators[%d].sha256 must be the sha256 hex of the operator's token (wasmwright console token new)", i)
		}
		if agent[strings.ToLower(o.SHA256)] {
			return fmt.Errorf("console.operators[%d] (%s) uses an agent's bearer token: operators need tokens of their own (wasmwright console token new)", i, o.Name)
		}
		for _, p := range o.Personalities {
			if !defined(p) {
				return fmt.Errorf("console.operators[%d] (%s) names unknown personality %q", i, o.Name, p)
			}
		}
	}
	return nil
}

// ValidID is the config's rule for names (letters, digits, _ and -), the
// kernel's too; kept here so this package does not import the kernel.
func ValidID(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}
