package abi

import (
	"encoding/json"
)

// decodeHeader fills a CallHeader from a flat JSON object of string
// fields without reflection: inside a plugin, encoding/json's reflection
// costs more than the rest of a small call. Anything unexpected falls back
// to encoding/json, so the result is always what json.Unmarshal gives.
func decodeHeader(b []byte, h *CallHeader) error {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return json.Unmarshal(b, h)
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' && skipWS(b, i+1) == len(b) {
		return nil
	}
	for {
		key, n, ok := quoted(b, i)
		if !ok {
			return json.Unmarshal(b, h)
		}
		i = skipWS(b, n)
		if i >= len(b) || b[i] != ':' {
			return json.Unmarshal(b, h)
		}
		val, n, ok := quoted(b, skipWS(b, i+1))
		if !ok {
			return json.Unmarshal(b, h)
		}
		switch key {
		case "tool":
			h.Tool = val
		case "session":
			h.Session = val
		case "personality":
			h.Personality = val
		case "call_id":
			h.CallID = val
		default:
			return json.Unmarshal(b, h)
		}
		i = skipWS(b, n)
		if i < len(b) && b[i] == ',' {
			i = skipWS(b, i+1)
			continue
		}
		if i < len(b) && b[i] == '}' && skipWS(b, i+1) == len(b) {
			return nil
		}
		return json.Unmarshal(b, h)
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// quoted reads a JSON string at b[i:], returning it and the index after it.
func quoted(b []byte, i int) (string, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return "", i, false
	}
	// Escapes and non-ASCII go through encoding/json, which also repairs
	// invalid UTF-8 the way json.Unmarshal would.
	slow := false
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '\\':
			slow = true
			j++
		case c >= 0x80:
			slow = true
		case c == '"':
			if !slow {
				return string(b[i+1 : j]), j + 1, true
			}
			var s string
			if err := json.Unmarshal(b[i:j+1], &s); err != nil {
				return "", i, false
			}
			return s, j + 1, true
		case c < 0x20:
			return "", i, false
		}
	}
	return "", i, false
}
