package console

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/host/console/config"
)

// The webhook ping ([console.notify]): when an agent asks for a human or
// a call waits for approval on the console, the console posts it where
// the operators are, once per takeover or approval, with a link to its
// card.
//
// This is the host's own outbound call to a URL the operator configured,
// not the agent's: it does not go through the personalities' egress
// proxy. It is held to what the config allows instead: the address it
// dials is checked when dialling (after DNS), so a name that resolves to
// loopback reaches it only with allow_loopback, and a link-local
// (metadata), unspecified or multicast address never; redirects are not
// followed; each post is bounded.

// Headers of a signed post. The signature is HMAC-SHA256, hex, of the
// timestamp, a dot and the body: "sha256=" + hex(HMAC(secret, ts + "." + body)).
const (
	SignatureHeader = "X-Wasmwright-Signature"
	TimestampHeader = "X-Wasmwright-Timestamp"
)

// notifyWait bounds one post.
const notifyWait = 10 * time.Second

// Ping is the body of a webhook post: "text" for chat webhooks, the
// fields apart for anything else. Never a secret or a page's full URL.
type Ping struct {
	Text        string   `json:"text"`
	Kind        string   `json:"kind"` // "takeover" or "approval"
	ID          string   `json:"id"`
	Personality string   `json:"personality"`
	Client      string   `json:"client,omitempty"`
	Tool        string   `json:"tool,omitempty"`
	Risk        string   `json:"risk,omitempty"`
	Origin      string   `json:"origin,omitempty"`
	Element     string   `json:"element,omitempty"`
	Reason      string   `json:"reason,omitempty"`
	Deadline    string   `json:"deadline"`
	Link        string   `json:"link,omitempty"`
	Via         []string `json:"via,omitempty"`
}

// Notify posts the desk's new takeovers and console approvals to n's
// webhook until ctx is done. It fails at once, naming the fix, when the
// signing secret is not in the environment.
func (c *Console) Notify(ctx context.Context, n config.Notify) error {
	secret := os.Getenv(n.SecretEnv)
	if secret == "" {
		return fmt.Errorf("console.notify: the environment variable %s (secret_env) is empty: set it to the webhook's signing secret", n.SecretEnv)
	}
	client := notifyClient(n.AllowLoopback)
	changes, unsub := c.desk.Subscribe()
	defer unsub()
	seen := map[string]bool{}
	for {
		now := map[string]bool{}
		for _, p := range c.pings() {
			now[p.ID] = true
			if !seen[p.ID] {
				go c.post(ctx, client, n.URL, []byte(secret), p)
			}
		}
		seen = now
		select {
		case <-ctx.Done():
			return nil
		case <-changes:
		}
	}
}

// pings are the pending takeovers and console approvals, as posted. The
// agent's words (a reason) and the page's (an element's name and text)
// arrive masked from the desk; here they are quoted plain lines escaped
// for chat (chatText), in Text and in the fields apart alike.
func (c *Console) pings() []Ping {
	var out []Ping
	for _, t := range c.desk.Takeovers() {
		out = append(out, Ping{Kind: "takeover", ID: t.ID, Personality: t.Personality, Reason: chatText(host.PlainLine(t.Reason, 300)), Deadline: t.Deadline.UTC().Format(time.RFC3339),
			Link: c.base.card(c.opts.Path, "takeover", t.ID),
			Text: fmt.Sprintf("wasmwright: an agent (personality %s) asks for a human, in its own words: %s. Open the console to take over before %s: %s", t.Personality, chatText(chatQuote(t.Reason, 300)), t.Deadline.UTC().Format(time.TimeOnly+" UTC"), c.base.card(c.opts.Path, "takeover", t.ID))})
	}
	for _, a := range c.desk.Approvals() {
		p := Ping{Kind: "approval", ID: a.ID, Personality: a.Personality, Client: chatText(a.Client), Tool: a.Tool, Risk: string(a.Risk), Origin: a.Origin,
			Deadline: a.Deadline.UTC().Format(time.RFC3339), Link: c.base.card(c.opts.Path, "approval", a.ID), Via: a.Via}
		element := ""
		if t := a.Target; t != nil && t.Ref != "" {
			p.Element = chatText(fmt.Sprintf("%s [ref %s]", host.ElementWords(t, chatQuote), t.Ref))
			element = " on the " + p.Element
		} else if t != nil && t.At != "" {
			p.Element = chatText(fmt.Sprintf("%s %s", host.ElementWords(t, chatQuote), t.At))
			element = " on the " + p.Element
		}
		where := ""
		if a.Origin != "" {
			where = " at the origin " + a.Origin
		}
		p.Text = fmt.Sprintf("wasmwright: %s (risk %s)%s%s waits for approval (personality %s). Decide before %s: %s", a.Tool, a.Risk, element, where, a.Personality, a.Deadline.UTC().Format(time.TimeOnly+" UTC"), p.Link)
		out = append(out, p)
	}
	return out
}

// chatText is text a chat webhook shows as written: Slack-style escaping
// (& < > as entities, so no <https://x|label> link and no <!here>), and
// no mention: an @ becomes the fullwidth ＠, so "@channel" pings nobody.
var chatText = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "@", "＠").Replace

// chatQuote is a page's string in a ping: one plain line, in quotes (a
// quote inside shown as ”); chatText escapes it with the rest.
func chatQuote(s string, n int) string {
	return `"` + strings.ReplaceAll(host.PlainLine(s, n), `"`, "''") + `"`
}

// post sends one ping, signed; failures are logged, never retried (the
// card is on the console either way).
func (c *Console) post(ctx context.Context, client *http.Client, url string, secret []byte, p Ping) {
	body, _ := json.Marshal(p)
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	ctx, cancel := context.WithTimeout(ctx, notifyWait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		c.log.Warn("console: webhook", "err", err)
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(TimestampHeader, ts)
	req.Header.Set(SignatureHeader, Sign(secret, ts, body))
	res, err := client.Do(req)
	if err != nil {
		c.log.Warn("console: webhook post failed", "kind", p.Kind, "err", err)
		return
	}
	res.Body.Close()
	if res.StatusCode/100 != 2 {
		c.log.Warn("console: webhook refused the post", "kind", p.Kind, "status", res.StatusCode)
	}
}

// Sign is the signature header's value of a post: what a receiver
// recomputes with the shared secret to check it came from this console.
func Sign(secret []byte, ts string, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(ts))
	m.Write([]byte("."))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// notifyClient dials only addresses the config allows (checked after
// DNS, on the address dialled) and follows no redirect.
func notifyClient(allowLoopback bool) *http.Client {
	d := &net.Dialer{Timeout: notifyWait, Control: func(_, address string, _ syscall.RawConn) error {
		host, _, _ := net.SplitHostPort(address)
		ip := net.ParseIP(host)
		switch {
		case ip == nil:
			return fmt.Errorf("console.notify: refusing to dial %s: not an IP address", address)
		case ip.IsLoopback() && !allowLoopback:
			return fmt.Errorf("console.notify: refusing to dial loopback %s (console.notify.allow_loopback is off)", address)
		case ip.IsLinkLocalUnicast() || ip.IsUnspecified() || ip.IsMulticast() || ip.IsLinkLocalMulticast():
			return fmt.Errorf("console.notify: refusing to dial %s: link-local, unspecified or multicast", address)
		}
		return nil
	}}
	return &http.Client{
		Timeout:       notifyWait,
		Transport:     &http.Transport{DialContext: d.DialContext, Proxy: nil, TLSHandshakeTimeout: notifyWait, ResponseHeaderTimeout: notifyWait},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

var _ host.TakeoverLinker = (*Console)(nil)
