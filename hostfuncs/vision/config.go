package vision

import (
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/wasmwright/wasmwright/hostfuncs"
)

// Config is the operator's [vision] table, decoded straight from the TOML
// (unknown keys refused): an OpenAI-compatible chat-completions endpoint
// with image input. Without an endpoint the vision tools are not offered.
type Config struct {
	// Endpoint is the API's base URL, e.g. http://127.0.0.1:11434/v1: the
	// request goes to Endpoint + "/chat/completions".
	Endpoint string `toml:"endpoint"`
	// Model is the vision model the endpoint serves (qwen2.5vl, llava).
	Model string `toml:"model"`
	// APIKeyEnv names the environment variable whose value is sent as a
	// Bearer token; empty sends none.
	APIKeyEnv string `toml:"api_key_env"`
	// Timeout bounds one model request (default 30s: DefaultTimeout).
	Timeout hostfuncs.Duration `toml:"timeout"`
	// MaxImageBytes refuses a larger screenshot (default 8 MiB:
	// DefaultMaxImageBytes).
	MaxImageBytes int `toml:"max_image_bytes"`
}

// Defaults.
const (
	DefaultTimeout       = 30 * time.Second
	DefaultMaxImageBytes = 8 << 20
	// maxAnswerBytes caps what is read of the endpoint's response.
	maxAnswerBytes = 1 << 20
	// shownAnswer caps the answer quoted back in results and errors.
	shownAnswer = 300
)

// Validate checks the table: absent, it is valid and offers no vision
// tools; keys without an endpoint are a mistake (the tools would silently
// stay absent); with an endpoint, the model must be usable (check).
func (c Config) Validate() error {
	if c.Endpoint == "" {
		if c != (Config{}) {
			return fmt.Errorf("[vision] has no endpoint: set endpoint (e.g. \"http://127.0.0.1:11434/v1\") or remove the table")
		}
		return nil
	}
	if err := c.check(); err != nil {
		return fmt.Errorf("[vision] %v", err)
	}
	return nil
}

// check reports a configured model that cannot work.
func (c Config) check() error {
	u, err := url.Parse(c.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("endpoint %q: give the API's http(s) base URL, e.g. http://127.0.0.1:11434/v1", c.Endpoint)
	}
	if u.User != nil {
		return fmt.Errorf("endpoint %q carries credentials: put the key in an environment variable and name it in api_key_env", u.Redacted())
	}
	if c.Model == "" {
		return errors.New("model is empty: name a vision model the endpoint serves (e.g. qwen2.5vl or llava)")
	}
	if c.Timeout.Duration < 0 || c.MaxImageBytes < 0 {
		return errors.New("timeout and max_image_bytes must not be negative")
	}
	return nil
}
