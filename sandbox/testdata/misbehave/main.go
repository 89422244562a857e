// Command misbehave is a test plugin: each tool misbehaves in one way.
package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"time"
	"unsafe"

	"github.com/wasmwright/wasmwright/abi"
	sdk "github.com/wasmwright/wasmwright/plugin-sdk"
)

type none struct{}

type sleepArgs struct {
	MS int `json:"ms"`
}

var hoard [][]byte

//go:wasmimport extism:host/env http_request
func httpRequest(req, body uint64) uint64

//go:wasmimport extism:host/env alloc
func kalloc(n uint64) uint64

//go:wasmimport extism:host/env store_u8
func kstore(offs uint64, v uint32)

func init() {
	sdk.Plugin("misbehave", "1.0.0", "a plugin that misbehaves on purpose, for tests")
	sdk.Needs("events")
	sdk.RawTool("echo", "returns its arguments as data", []byte(`{"type":"object"}`), func(c *sdk.Call, args []byte) ([]byte, error) {
		out := make([]byte, 0, len(args)+9)
		out = append(out, `{"data":`...)
		out = append(out, args...)
		return append(out, '}'), nil
	})
	sdk.RawTool("validate", "checks its arguments are valid JSON (a byte-scanning workload)", []byte(`{"type":"object"}`), func(c *sdk.Call, args []byte) ([]byte, error) {
		if !json.Valid(args) {
			return nil, abi.Errorf(abi.CodeInputInvalid, "invalid JSON")
		}
		return []byte(`{"text":"ok"}`), nil
	})
	sdk.Tool("panic", "panics", func(c *sdk.Call, _ none) (*abi.Result, error) { panic("deliberate panic in misbehave") })
	sdk.Tool("loop", "never returns; with announce, asks the host for its info first (so a test knows it is about to spin)", func(c *sdk.Call, a struct {
		Announce bool `json:"announce,omitempty"`
	}) (*abi.Result, error) {
		if a.Announce {
			if _, err := sdk.HostInfo(); err != nil {
				return nil, err
			}
		}
		x := 0
		for {
			x++
		}
	})
	sdk.Tool("oom", "allocates without end", func(c *sdk.Call, _ none) (*abi.Result, error) {
		for {
			hoard = append(hoard, make([]byte, 8<<20))
		}
	})
	sdk.RawTool("badjson", "returns invalid JSON", []byte(`{"type":"object"}`), func(c *sdk.Call, args []byte) ([]byte, error) {
		return []byte(`{"text": "unterminated`), nil
	})
	sdk.Tool("page", "returns what it is given as a navigation result", func(c *sdk.Call, a struct {
		Title    string            `json:"title"`
		Text     string            `json:"text,omitempty"`
		Snapshot string            `json:"snapshot,omitempty"`
		Status   int               `json:"status,omitempty"`
		Headers  map[string]string `json:"headers,omitempty"`
	}) (*abi.Result, error) {
		if a.Status == 0 {
			a.Status = 200
		}
		return &abi.Result{Text: a.Text, Snapshot: a.Snapshot, Page: &abi.Page{URL: "http://wall.test/", Status: a.Status, Headers: a.Headers, Title: a.Title}}, nil
	})
	sdk.Tool("fail_with", "fails with the given message", func(c *sdk.Call, a struct {
		Message string `json:"message"`
	}) (*abi.Result, error) {
		return nil, abi.Errorf(abi.CodeExecutionFailed, "%s", a.Message)
	})
	sdk.Tool("random", "16 random bytes, hex", func(c *sdk.Call, _ none) (*abi.Result, error) {
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			return nil, err
		}
		return &abi.Result{Text: hex.EncodeToString(b)}, nil
	})
	sdk.Tool("readfile", "tries to read a host file", func(c *sdk.Call, a struct {
		Path string `json:"path"`
	}) (*abi.Result, error) {
		b, err := os.ReadFile(a.Path)
		if err != nil {
			return nil, abi.Errorf(abi.CodeNotAvailable, "read failed: %v", err)
		}
		return &abi.Result{Text: string(b)}, nil
	})
	sdk.Tool("log", "logs a line (n times)", func(c *sdk.Call, a struct {
		Msg string `json:"msg"`
		N   int    `json:"n"`
	}) (*abi.Result, error) {
		for i := 0; i < max(a.N, 1); i++ {
			sdk.Warn(a.Msg)
		}
		return &abi.Result{Text: "logged"}, nil
	})
	sdk.Tool("coded", "fails with a code", func(c *sdk.Call, _ none) (*abi.Result, error) {
		return nil, abi.Errorf(abi.CodeNotFound, "nothing here")
	})
	sdk.Tool("emit", "emits an event", func(c *sdk.Call, _ none) (*abi.Result, error) {
		if err := sdk.EmitEvent("misbehave.emit", map[string]string{"session": c.Session}); err != nil {
			return nil, err
		}
		return &abi.Result{Text: "emitted"}, nil
	})
	sdk.Tool("info", "host info", func(c *sdk.Call, _ none) (*abi.Result, error) {
		info, err := sdk.HostInfo()
		if err != nil {
			return nil, err
		}
		b, _ := json.Marshal(info)
		return &abi.Result{Data: b}, nil
	})
	sdk.Tool("sleep", "sleeps, then reports the clock", func(c *sdk.Call, a sleepArgs) (*abi.Result, error) {
		t0 := time.Now()
		time.Sleep(time.Duration(a.MS) * time.Millisecond)
		b, _ := json.Marshal(map[string]any{"now": t0.Unix(), "slept_ms": time.Since(t0).Milliseconds()})
		return &abi.Result{Data: b}, nil
	})
	sdk.Tool("nap", "asks the host for its info (so a test knows it started), then sleeps", func(c *sdk.Call, a sleepArgs) (*abi.Result, error) {
		if _, err := sdk.HostInfo(); err != nil {
			return nil, err
		}
		time.Sleep(time.Duration(a.MS) * time.Millisecond)
		return &abi.Result{Text: "rested"}, nil
	})
	sdk.RawTool("big", "returns a result whose text is n bytes", []byte(`{"type":"object"}`), func(c *sdk.Call, args []byte) ([]byte, error) {
		var a struct {
			N int `json:"n"`
		}
		if err := json.Unmarshal(args, &a); err != nil {
			return nil, err
		}
		out := make([]byte, 0, a.N+11)
		out = append(out, `{"text":"`...)
		for i := 0; i < a.N; i++ {
			out = append(out, 'a')
		}
		return append(out, `"}`...), nil
	})
	sdk.Tool("http", "tries extism's own http_request", func(c *sdk.Call, a struct {
		URL string `json:"url"`
	}) (*abi.Result, error) {
		req := []byte(fmt.Sprintf(`{"url":%q,"method":"GET"}`, a.URL))
		offs := kalloc(uint64(len(req)))
		for i, b := range req {
			kstore(offs+uint64(i), uint32(b))
		}
		r := httpRequest(offs, 0)
		return &abi.Result{Text: fmt.Sprintf("http_request returned %d", r)}, nil
	})
	_ = unsafe.Pointer(nil)
}

func main() {}
