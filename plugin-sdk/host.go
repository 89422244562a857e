package sdk

import (
	"encoding/json"

	"github.com/wasmwright/wasmwright/abi"
)

// hostCall encodes req, runs the import and decodes the response or the
// host's error. Every typed host call below goes through it.
func hostCall[Resp any](fn func(ptr, n uint32) uint64, req any) (Resp, error) {
	var resp Resp
	b, err := json.Marshal(req)
	if err != nil {
		return resp, abi.Errorf(abi.CodeInputInvalid, "encoding host request: %v", err)
	}
	out, ok := invoke(fn, b)
	if !ok {
		var e abi.Error
		if err := json.Unmarshal(out, &e); err != nil || e.Code == "" {
			return resp, abi.Errorf(abi.CodePluginFailed, "host returned an unreadable error: %s", out)
		}
		return resp, &e
	}
	if err := json.Unmarshal(out, &resp); err != nil {
		return resp, abi.Errorf(abi.CodePluginFailed, "decoding host response: %v", err)
	}
	return resp, nil
}

// Logging goes to the host's structured log, tagged with the plugin's name.
func Debug(msg string) { logLine(abi.LogDebug, msg) }
func Info(msg string)  { logLine(abi.LogInfo, msg) }
func Warn(msg string)  { logLine(abi.LogWarn, msg) }
func Error(msg string) { logLine(abi.LogError, msg) }

// HostInfo asks the host who is calling. It needs no grant.
func HostInfo() (abi.HostInfoResponse, error) {
	return hostCall[abi.HostInfoResponse](hostInfo, abi.Empty{})
}

// EmitEvent records an event in the host's event sink. Needs "events".
func EmitEvent(kind string, data any) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return abi.Errorf(abi.CodeInputInvalid, "event data: %v", err)
	}
	_, err = hostCall[abi.Empty](eventsEmit, abi.EventsEmitRequest{Kind: kind, Data: raw})
	return err
}

// MaskValues returns the secret values filled into a session, for maskers.
// Needs "secrets.mask".
func MaskValues(session string) ([]string, error) {
	r, err := hostCall[abi.SecretsMaskValuesResponse](secretsMaskValues, abi.SecretsMaskValuesRequest{Session: session})
	return r.Values, err
}

// Fetch fetches a URL through the host under the personality's network
// policy. Needs "network".
func Fetch(req abi.NetworkFetchRequest) (abi.NetworkFetchResponse, error) {
	return hostCall[abi.NetworkFetchResponse](networkFetch, req)
}
