// Package opclient is an operator of the console as the benchmark programs
// drive it, without a browser: log in with an operator token, list the
// pending takeovers, hand one back. It speaks the console's own HTTP API
// (frontend/console), sending the Origin a browser on the console's page would.
package opclient

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/wasmwright/wasmwright/hostfuncs/operator"
)

// Operator is one operator logged in to a console.
type Operator struct {
	base, path string // the server's origin and the console's path
	cookie     string
	hc         *http.Client
}

// Login logs in at base+path (the console's origin and path) with an
// operator token.
func Login(base, path, token string) (*Operator, error) {
	o := &Operator{base: base, path: path, hc: &http.Client{
		Timeout:       30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
	req, err := http.NewRequest("POST", base+path+"/login", strings.NewReader(url.Values{"token": {token}}.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	res, err := o.hc.Do(req)
	if err != nil {
		return nil, err
	}
	res.Body.Close()
	for _, ck := range res.Cookies() {
		o.cookie = ck.Name + "=" + ck.Value
		return o, nil
	}
	return nil, fmt.Errorf("console login refused: %s", res.Status)
}

// Cookie is the session cookie, as a Cookie header.
func (o *Operator) Cookie() string { return o.cookie }

// Takeovers lists the takeovers pending for this operator.
func (o *Operator) Takeovers() ([]operator.Takeover, error) {
	var st struct {
		Takeovers []operator.Takeover `json:"takeovers"`
	}
	return st.Takeovers, o.do("GET", "/api/state", nil, &st)
}

// HandBack ends takeover id with a hand-back (Cancel when handBack is
// false), as the console's buttons do.
func (o *Operator) HandBack(id string, handBack bool) error {
	return o.do("POST", "/api/takeover", map[string]any{"id": id, "hand_back": handBack}, nil)
}

func (o *Operator) do(method, api string, body, out any) error {
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, o.base+o.path+api, r)
	if err != nil {
		return err
	}
	req.Header.Set("Cookie", o.cookie)
	req.Header.Set("Origin", o.base)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := o.hc.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 4<<20))
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s: %s", method, api, res.Status, strings.TrimSpace(string(b)))
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}
