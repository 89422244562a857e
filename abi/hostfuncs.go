package abi

import "encoding/json"

// Host functions. Each is its own import in HostModule with the signature
// (req_ptr i32, req_len i32) -> i64, request and response JSON in plugin
// memory; see README.md. The host derives what a plugin needs from these
// imports, so each name maps to exactly one capability (package capability).
const (
	// HostInfo returns facts about the host. No grant needed.
	HostInfo = "ww_host_info"
	// HostEventsEmit records an event in the host's event sink. Grant: events.
	HostEventsEmit = "ww_events_emit"
	// HostSecretsMaskValues returns the values to mask in a session. Grant: secrets.mask.
	HostSecretsMaskValues = "ww_secrets_mask_values"
	// HostNetworkFetch fetches a URL under the personality's network policy. Grant: network.
	HostNetworkFetch = "ww_network_fetch"
)

// HostInfoResponse answers HostInfo.
type HostInfoResponse struct {
	ABI         ABIVersion `json:"abi"`
	Host        string     `json:"host"`
	Personality string     `json:"personality,omitempty"`
	Session     string     `json:"session,omitempty"`
	Grants      []string   `json:"grants,omitempty"`
}

// EventsEmitRequest asks HostEventsEmit to record an event.
type EventsEmitRequest struct {
	Kind string          `json:"kind"`
	Data json.RawMessage `json:"data,omitempty"`
}

// SecretsMaskValuesRequest asks for the values to mask in a session.
type SecretsMaskValuesRequest struct {
	Session string `json:"session"`
}

// SecretsMaskValuesResponse lists them.
type SecretsMaskValuesResponse struct {
	Values []string `json:"values"`
}

// NetworkFetchRequest asks HostNetworkFetch for a URL.
type NetworkFetchRequest struct {
	URL      string            `json:"url"`
	Method   string            `json:"method,omitempty"`
	Headers  map[string]string `json:"headers,omitempty"`
	Body     []byte            `json:"body,omitempty"`
	MaxBytes int64             `json:"max_bytes,omitempty"`
}

// NetworkFetchResponse is its answer.
type NetworkFetchResponse struct {
	URL       string            `json:"url"`
	Status    int               `json:"status"`
	Headers   map[string]string `json:"headers,omitempty"`
	Body      []byte            `json:"body,omitempty"`
	Truncated bool              `json:"truncated,omitempty"`
}

// Empty is the request or response of host functions that carry nothing.
type Empty struct{}
