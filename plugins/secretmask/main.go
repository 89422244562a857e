// Command secretmask is the wasmwright mask hook, always the last of the
// result pipeline: it asks the host for the secret values filled into the
// session (host function ww_secrets_mask_values, grant secrets.mask) and
// replaces every occurrence in every string of the result and of the error
// (text, data, snapshot, page facts, warnings, events, message, details)
// with ••••••, raw or encoded: URL encoding (%20 and +), HTML entities
// (named, decimal, hex), JSON escapes, base64 (standard and URL alphabets, at
// any offset inside a longer base64 string) and hex; and, for values beyond
// ASCII, the bytes a form submits in every legacy charset of the HTML
// standard (internal/secretforms), percent-encoded, in base64 and in hex.
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o secretmask.wasm .
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
	sdk "github.com/wasmwright/wasmwright/plugin-sdk"
)

func init() {
	sdk.Plugin("secretmask", "1.0.0", "Masks the session's secret values, raw or encoded, in every string of a result.")
	sdk.Needs("secrets.mask")
	sdk.Hook(hook, abi.HookMask)
	sdk.Features(abi.FeatureRawSnapshot)
	sdk.SelfTest(selfTest)
}

// maskValues asks the host; tests on the host replace it.
var maskValues = sdk.MaskValues

// envelope is what gets masked: the result and the error together.
type envelope struct {
	Result *abi.Result `json:"result,omitempty"`
	Error  *abi.Error  `json:"error,omitempty"`
}

func hook(c *sdk.Call, req *abi.HookRequest) (*abi.HookResponse, error) {
	if req.Result == nil && req.Error == nil {
		return &abi.HookResponse{}, nil
	}
	values, err := maskValues(req.Session)
	if err != nil {
		// Fail closed: without the values nothing can be shown safely.
		e := abi.AsError(err)
		return nil, abi.Errorf(abi.CodePluginFailed, "secretmask could not get the values to mask (%s: %s); the result was withheld", e.Code, e.Message)
	}
	if len(values) == 0 {
		return &abi.HookResponse{Result: req.Result, Error: req.Error}, nil
	}
	return maskEnvelope(maskerFor(values), envelope{Result: req.Result, Error: req.Error})
}

// last is the masker built for the last set of values: a session's values
// rarely change between results, and building one (every charset form of
// every value) costs far more than most masking.
var last struct {
	key string
	m   *masker
}

func maskerFor(values []string) *masker {
	var kb strings.Builder
	for _, v := range values {
		fmt.Fprintf(&kb, "%d:%s", len(v), v) // no two sets share a key
	}
	key := kb.String()
	if last.m == nil || last.key != key {
		last.key, last.m = key, newMasker(values)
	}
	return last.m
}

func maskEnvelope(m *masker, env envelope) (*abi.HookResponse, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(env)
	doc := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if err != nil {
		return nil, abi.Errorf(abi.CodePluginFailed, "secretmask: encoding the result: %v", err)
	}
	masked, err := m.maskJSON(doc)
	if err != nil {
		return nil, abi.Errorf(abi.CodePluginFailed, "secretmask: %v", err)
	}
	if bytes.Equal(masked, doc) {
		// Nothing to hide (the common case): a nil Result leaves the
		// result as it is, and the host skips decoding a copy of it.
		return &abi.HookResponse{}, nil
	}
	var out envelope
	if err := json.Unmarshal(masked, &out); err != nil {
		// A masked number in a typed field (page status...) cannot go back
		// into its type: withhold rather than leak.
		return nil, abi.Errorf(abi.CodePluginFailed, "secretmask: the masked result no longer fits its shape (%v); it was withheld", err)
	}
	if out.Error != nil && !out.Error.Code.Known() {
		out.Error.Code = abi.CodeExecutionFailed
	}
	return &abi.HookResponse{Result: out.Result, Error: out.Error}, nil
}

func selfTest() error {
	const v = "s3cr3t pa/ss&<é>"
	m := newMasker([]string{v})
	in := envelope{Result: &abi.Result{
		Text: "raw " + v + " url s3cr3t+pa%2Fss%26%3C%C3%A9%3E html s3cr3t pa&#x2F;ss&amp;&lt;&eacute;&gt;" +
			" cp1252 s3cr3t+pa%2Fss%26%3C%e9%3E sjis s3cr3t+pa%2Fss%26%3C%26%23233%3B%3E",
		Data:     json.RawMessage(`{"k":"json s3cr3t pa\/ss\u0026\u003c\u00e9>","b64":"eHlzM2NyM3QgcGEvc3MmPMOpPg=="}`),
		Warnings: []string{"hex " + strings.ToUpper(fmt.Sprintf("%x", v))},
	}, Error: &abi.Error{Code: abi.CodeExecutionFailed, Message: "failed for " + v, Details: map[string]string{"v": v}}}
	resp, err := maskEnvelope(m, in)
	if err != nil {
		return err
	}
	b, _ := json.Marshal(resp)
	s := string(b)
	for _, leak := range []string{"s3cr3t", "czNjcjN0", "zNjcjN0", "NjcjN0", "73336372337420", "pa/ss", "%e9", "%26%23233"} {
		if strings.Contains(s, leak) {
			return fmt.Errorf("secretmask self-test: %q survived masking: %s", leak, s)
		}
	}
	if strings.Count(s, Mask) < 9 {
		return fmt.Errorf("secretmask self-test: too few masks in %s", s)
	}
	return nil
}

func main() {}
