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

// EncodeHookRequest encodes a hook request: as JSON, or with rawPage and a
// page to carry, as the FeatureRawPage frame. JSON is written without HTML
// escaping (< > & stay one byte each).
func EncodeHookRequest(req *HookRequest, rawPage bool) ([]byte, error) {
	var page *Page
	if rawPage && req.Result != nil && req.Result.Page != nil {
		page = req.Result.Page
		res := *req.Result
		pg := *page
		pg.Text, pg.HTML = "", ""
		res.Page = &pg
		r := *req
		r.Result = &res
		req = &r
	}
	var buf bytes.Buffer
	if page != nil {
		buf.Grow(8 + len(page.Text) + len(page.HTML) + 512)
		buf.Write([]byte{0, 0, 0, 0})
	}
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(req); err != nil {
		return nil, err
	}
	out := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if page == nil {
		return out, nil
	}
	binary.LittleEndian.PutUint32(out, uint32(len(out)-4))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(page.Text)))
	out = append(out, page.Text...)
	return append(out, page.HTML...), nil
}

// DecodeHookRequest reads a hook request in either form EncodeHookRequest
// writes, so a plugin asking for FeatureRawPage still works with a host
// that sends JSON.
func DecodeHookRequest(in []byte, req *HookRequest) error {
	if len(in) > 0 && in[0] == '{' {
		if err := json.Unmarshal(in, req); err == nil {
			return nil
		}
	}
	body, err := Unframe(in, req)
	if err != nil {
		return err
	}
	if len(body) < 4 {
		return errors.New("abi: raw page body shorter than its length prefix")
	}
	n := binary.LittleEndian.Uint32(body)
	if uint64(n) > uint64(len(body)-4) {
		return errors.New("abi: raw page text length exceeds the body")
	}
	if req.Result == nil || req.Result.Page == nil {
		return errors.New("abi: raw page body without a result.page")
	}
	req.Result.Page.Text = string(body[4 : 4+n])
	req.Result.Page.HTML = string(body[4+n:])
	return nil
}
