package abi

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
)

// FeatureRawPage: a detect hook plugin takes the page's text and HTML raw,
// outside the request's JSON. Its hook input is then a frame (Frame) whose
// header is the HookRequest with result.page.text and .html empty and whose
// body is the text's length (4 bytes, little endian), the text, then the
// HTML. Decoding megabytes of JSON string inside the sandbox costs far more
// than the detection itself; raw, the page crosses once, as bytes.
const FeatureRawPage = "raw_page"

// FeatureRawSnapshot: a hook plugin of any other role (compact, mask)
// takes the result's snapshot raw, outside the request's JSON, and answers
// the same way. Its hook input, when the result has a snapshot, is a frame
// whose header is the HookRequest with result.snapshot empty and whose
// body is the snapshot; its answer may be a frame too: the HookResponse
// with result.snapshot empty, then the snapshot (or plain JSON, as
// always). A snapshot is mostly newlines and quotes, each escaped in JSON:
// decoding and encoding it inside the sandbox was about 40% of a Go
// compactor's time.
const FeatureRawSnapshot = "raw_snapshot"

// RawHookInput reports whether a hook plugin with the features has takes
// its role's large field raw: the page for a detector (FeatureRawPage),
// the snapshot for the other roles (FeatureRawSnapshot).
func RawHookInput(role HookRole, has func(feature string) bool) bool {
	if role == HookDetect {
		return has(FeatureRawPage)
	}
	return has(FeatureRawSnapshot)
}

// RawHookAnswer reports whether a hook's answer may come as a frame: the
// request came as one (rawInput) for a role whose answer carries the
// snapshot (not a detector's, whose raw page goes one way only).
func RawHookAnswer(role HookRole, rawInput bool) bool {
	return rawInput && role != HookDetect
}

// EncodeHookRequest encodes a hook request: as JSON, or with raw (see
// RawHookInput) and a large field to carry, as a frame: the page for a
// detect hook (FeatureRawPage), the snapshot for the others
// (FeatureRawSnapshot). JSON is written without HTML escaping (< > & stay
// one byte each).
func EncodeHookRequest(req *HookRequest, raw bool) ([]byte, error) {
	var page *Page
	var snap string
	if raw && req.Result != nil {
		res := *req.Result
		switch {
		case req.Role == HookDetect && res.Page != nil:
			page = res.Page
			pg := *page
			pg.Text, pg.HTML = "", ""
			res.Page = &pg
		case req.Role != HookDetect && res.Snapshot != "":
			snap, res.Snapshot = res.Snapshot, ""
		}
		r := *req
		r.Result = &res
		req = &r
	}
	switch {
	case page != nil:
		out, err := frameHeader(req, 4+len(page.Text)+len(page.HTML))
		if err != nil {
			return nil, err
		}
		out = binary.LittleEndian.AppendUint32(out, uint32(len(page.Text)))
		out = append(out, page.Text...)
		return append(out, page.HTML...), nil
	case snap != "":
		out, err := frameHeader(req, len(snap))
		if err != nil {
			return nil, err
		}
		return append(out, snap...), nil
	}
	var buf bytes.Buffer
	return encodeJSON(&buf, req)
}

// frameHeader starts a frame (Frame's layout, JSON without HTML escaping):
// the header's length and the header, with room for a body of n bytes,
// which the caller appends.
func frameHeader(header any, n int) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(4 + n + 512)
	buf.Write([]byte{0, 0, 0, 0})
	out, err := encodeJSON(&buf, header)
	if err != nil {
		return nil, err
	}
	binary.LittleEndian.PutUint32(out, uint32(len(out)-4))
	return out, nil
}

// encodeJSON appends v's JSON to buf, without HTML escaping or the
// encoder's newline, and returns buf's bytes.
func encodeJSON(buf *bytes.Buffer, v any) ([]byte, error) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// DecodeHookRequest reads a hook request in either form EncodeHookRequest
// writes, so a plugin asking for FeatureRawPage or FeatureRawSnapshot
// still works with a host that sends JSON.
func DecodeHookRequest(in []byte, req *HookRequest) error {
	_, err := ReadHookRequest(in, req)
	return err
}

// ReadHookRequest is DecodeHookRequest that also reports whether the
// request came as a frame: a plugin answers a framed compact or mask
// request with EncodeHookResponse(resp, true), and a JSON one with JSON
// (a host that does not know FeatureRawSnapshot reads only JSON).
func ReadHookRequest(in []byte, req *HookRequest) (framed bool, err error) {
	if len(in) > 0 && in[0] == '{' {
		var r HookRequest
		if err := json.Unmarshal(in, &r); err == nil {
			*req = r
			return false, nil
		}
	}
	body, err := Unframe(in, req)
	if err != nil {
		return false, err
	}
	if req.Result == nil {
		return false, errors.New("abi: raw hook request body without a result")
	}
	if req.Role != HookDetect {
		req.Result.Snapshot = string(body)
		return true, nil
	}
	if len(body) < 4 {
		return false, errors.New("abi: raw page body shorter than its length prefix")
	}
	n := binary.LittleEndian.Uint32(body)
	if uint64(n) > uint64(len(body)-4) {
		return false, errors.New("abi: raw page text length exceeds the body")
	}
	if req.Result.Page == nil {
		return false, errors.New("abi: raw page body without a result.page")
	}
	req.Result.Page.Text = string(body[4 : 4+n])
	req.Result.Page.HTML = string(body[4+n:])
	return true, nil
}

// EncodeHookResponse encodes a hook's answer: as JSON, or with raw (the
// plugin has FeatureRawSnapshot) and a snapshot in its result, as a frame
// whose header is the response with result.snapshot empty and whose body
// is the snapshot.
func EncodeHookResponse(resp *HookResponse, raw bool) ([]byte, error) {
	if !raw || resp.Result == nil || resp.Result.Snapshot == "" {
		var buf bytes.Buffer
		return encodeJSON(&buf, resp)
	}
	res := *resp.Result
	snap := res.Snapshot
	res.Snapshot = ""
	r := *resp
	r.Result = &res
	out, err := frameHeader(&r, len(snap))
	if err != nil {
		return nil, err
	}
	return append(out, snap...), nil
}

// DecodeHookResponse reads a hook's answer in either form
// EncodeHookResponse writes. raw says whether the plugin may answer with
// a frame (it has FeatureRawSnapshot): one that did not ask must answer
// JSON.
func DecodeHookResponse(out []byte, raw bool, resp *HookResponse) error {
	if !raw {
		return json.Unmarshal(out, resp)
	}
	// A frame whose header is 123 bytes long (mod 256) starts with '{'
	// too: JSON is tried first, the frame if it is not JSON.
	if len(out) > 0 && out[0] == '{' {
		var r HookResponse
		if err := json.Unmarshal(out, &r); err == nil {
			*resp = r
			return nil
		}
	}
	body, err := Unframe(out, resp)
	if err != nil {
		return err
	}
	if resp.Result == nil {
		return errors.New("abi: raw hook answer body without a result")
	}
	if resp.Result.Snapshot != "" {
		return errors.New("abi: raw hook answer with a snapshot in its JSON too")
	}
	resp.Result.Snapshot = string(body)
	return nil
}
