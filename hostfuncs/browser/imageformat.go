package browser

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"image"
	_ "image/jpeg" // DecodeConfig reads JPEG sizes
	_ "image/png"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
)

// format is how a screenshot is encoded. Playwright encodes PNG and JPEG;
// WebP comes from Chromium's own Page.captureScreenshot (cdp).
type format struct {
	ext, mime string
	typ       *pw.ScreenshotType
	quality   *int
	cdp       bool
}

// DefaultQuality is the JPEG and WebP quality when a call gives none.
const DefaultQuality = 80

func imageFormat(name string, quality int) (format, error) {
	if quality < 0 || quality > 100 {
		return format{}, abi.Errorf(abi.CodeInputInvalid, "quality %d: give 1 to 100 (default %d)", quality, DefaultQuality)
	}
	q := &quality
	if quality == 0 {
		q = pw.Int(DefaultQuality)
	}
	switch name {
	case "", "png":
		if quality != 0 {
			return format{}, abi.Errorf(abi.CodeInputInvalid, "quality applies to jpeg and webp only: PNG is lossless; drop quality or choose format jpeg or webp")
		}
		return format{ext: ".png", mime: "image/png", typ: pw.ScreenshotTypePng}, nil
	case "jpeg", "jpg":
		return format{ext: ".jpg", mime: "image/jpeg", typ: pw.ScreenshotTypeJpeg, quality: q}, nil
	case "webp":
		return format{ext: ".webp", mime: "image/webp", quality: q, cdp: true}, nil
	}
	return format{}, abi.Errorf(abi.CodeInputInvalid, "format %q: use png, jpeg or webp", name)
}

// cdpScreenshot captures p through Chromium's DevTools protocol: the clip
// (page coordinates when full), the whole page when full, else the
// viewport.
func (ss *session) cdpScreenshot(p pw.Page, f format, clip *pw.Rect, full bool) ([]byte, error) {
	cdp, err := ss.bctx.NewCDPSession(p)
	if err != nil {
		return nil, err
	}
	defer cdp.Detach()
	params := map[string]any{"format": "webp", "quality": *f.quality, "captureBeyondViewport": full}
	if clip == nil && full {
		m, err := cdp.Send("Page.getLayoutMetrics", nil)
		if err != nil {
			return nil, err
		}
		size, _ := m.(map[string]any)["cssContentSize"].(map[string]any)
		w, _ := size["width"].(float64)
		h, _ := size["height"].(float64)
		clip = &pw.Rect{Width: w, Height: h}
	}
	if clip != nil {
		params["clip"] = map[string]any{"x": clip.X, "y": clip.Y, "width": clip.Width, "height": clip.Height, "scale": 1}
	}
	v, err := cdp.Send("Page.captureScreenshot", params)
	if err != nil {
		return nil, err
	}
	data, _ := v.(map[string]any)["data"].(string)
	return base64.StdEncoding.DecodeString(data)
}

// imageSize reads the pixel size of a PNG, JPEG or WebP; 0, 0 when it
// cannot.
func imageSize(b []byte) (int, int) {
	if c, _, err := image.DecodeConfig(bytes.NewReader(b)); err == nil {
		return c.Width, c.Height
	}
	if len(b) < 30 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WEBP" {
		return 0, 0
	}
	le24 := func(p []byte) int { return int(p[0]) | int(p[1])<<8 | int(p[2])<<16 }
	switch string(b[12:16]) {
	case "VP8X":
		return le24(b[24:]) + 1, le24(b[27:]) + 1
	case "VP8 ":
		return int(binary.LittleEndian.Uint16(b[26:]) & 0x3fff), int(binary.LittleEndian.Uint16(b[28:]) & 0x3fff)
	case "VP8L":
		v := binary.LittleEndian.Uint32(b[21:])
		return int(v&0x3fff) + 1, int(v>>14&0x3fff) + 1
	}
	return 0, 0
}
