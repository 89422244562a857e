package host

import (
	"strings"
	"testing"
)

// TestVisionConfig: [vision] keys are checked when the config loads: an
// endpoint that is not an http(s) base URL, one with credentials in it, a
// table without an endpoint, a missing model and an unknown key are
// refused, each naming what to fix.
func TestVisionConfig(t *testing.T) {
	for text, want := range map[string]string{
		"endpoint = \"http://127.0.0.1:11434/v1\"\nmodel = \"llava\"\ntimeout = \"10s\"": "",
		"endpoint = \"127.0.0.1:11434\"\nmodel = \"llava\"":                              "http(s) base URL",
		"endpoint = \"https://u:p@api.test/v1\"\nmodel = \"m\"":                          "api_key_env",
		"model = \"llava\"":                                                    "has no endpoint",
		"endpoint = \"http://127.0.0.1:11434/v1\"":                             "model is empty",
		"endpoint = \"http://127.0.0.1:11434/v1\"\nmodel = \"m\"\nkey = \"x\"": "vision.key",
	} {
		_, err := ParseConfig("[vision]\n"+text+"\n", "test.toml", t.TempDir())
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%q: want %q, got %v", text, want, err)
		}
	}
}
