// Package jsonrpc reads the JSON-RPC answers the benchmarks' MCP clients
// (stdio and streamable HTTP) wait for.
package jsonrpc

import (
	"encoding/json"
	"errors"
)

// Answer decodes one JSON-RPC message: ok when it answers request id (a
// notification or another request's answer is not ok), with its result or
// its error.
func Answer(b []byte, id int64) (json.RawMessage, bool, error) {
	var msg struct {
		ID     *int64          `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &msg) != nil || msg.ID == nil || *msg.ID != id {
		return nil, false, nil
	}
	if msg.Error != nil {
		return nil, true, errors.New(msg.Error.Message)
	}
	return msg.Result, true, nil
}
