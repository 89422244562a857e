package console

import (
	"context"
	"net/http"
	"sync"
	"time"

	"golang.org/x/net/websocket"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/host"
)

// wsWait bounds each write to a console WebSocket: a viewer that stops
// reading is dropped.
const wsWait = 10 * time.Second

// wsConn is a WebSocket with serialized, bounded writes.
type wsConn struct {
	ws *websocket.Conn
	mu sync.Mutex
}

func (c *wsConn) send(v any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ws.SetWriteDeadline(time.Now().Add(wsWait))
	return websocket.JSON.Send(c.ws, v)
}

// upgrade runs fn on the WebSocket of r (origin and login were checked by
// authed). ctx ends when the client goes away or fn returns.
func upgrade(w http.ResponseWriter, r *http.Request, fn func(ctx context.Context, c *wsConn)) {
	websocket.Server{
		// The Origin was checked already (authed); the library's own
		// check would accept any parseable origin.
		Handshake: func(*websocket.Config, *http.Request) error { return nil },
		Handler: func(ws *websocket.Conn) {
			defer ws.Close()
			ws.MaxPayloadBytes = 64 << 10
			ctx, cancel := context.WithCancel(r.Context())
			defer cancel()
			fn(ctx, &wsConn{ws: ws})
		},
	}.ServeHTTP(w, r)
}

// stateStream is GET /ws: the console's state, sent at once, on every
// change of the desk and every second (ages, countdowns, URLs). While it is
// open the operator is attached: the personalities they see run attended.
func (c *Console) stateStream(w http.ResponseWriter, r *http.Request, o *operatorEntry) {
	upgrade(w, r, func(ctx context.Context, conn *wsConn) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		scopes := o.personalities
		if len(scopes) == 0 {
			scopes = []string{"*"}
		}
		for _, p := range scopes {
			defer c.desk.Attach(p)()
		}
		changes, unsub := c.desk.Subscribe()
		defer unsub()
		go func() { // the client says nothing; its going away ends the stream
			var discard string
			for websocket.Message.Receive(conn.ws, &discard) == nil {
			}
			cancel()
		}()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			if err := conn.send(c.state(o)); err != nil {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-changes:
			case <-tick.C:
			}
		}
	})
}

// liveFrame is one frame as the live view receives it.
type liveFrame struct {
	Type   string  `json:"type"` // "frame"
	Seq    int64   `json:"seq"`
	Width  float64 `json:"w"`
	Height float64 `json:"h"`
	JPEG   []byte  `json:"jpeg"` // base64 in JSON
}

// liveMsg is what the live view sends: an input, or "release" to let go
// of the page.
type liveMsg struct {
	Type string `json:"type"` // "input" or "release"
	host.OperatorInput
}

// live is GET /live?personality=P&session=S: the session's screencast
// while the socket is open (and only then), and the operator's input.
// The first input takes control of the page (Desk.Control): agent tools
// that change it are refused until the operator releases it or leaves.
func (c *Console) live(w http.ResponseWriter, r *http.Request, o *operatorEntry) {
	p, s := r.URL.Query().Get("personality"), r.URL.Query().Get("session")
	if !o.sees(p) {
		http.Error(w, "403 forbidden: you may not watch personality "+p, http.StatusForbidden)
		return
	}
	c.liveView(w, r, p, s, host.Actor{Kind: host.ActorOperator, Name: o.name}, nil)
}

// liveView serves the live view of one session on r's WebSocket to who;
// it ends when the viewer leaves or stop (when not nil) is done. A
// logged-in operator gets the screencast and drives the page; anyone else
// (a takeover link's holder) is treated as the agent: frames with the
// session's secrets concealed, and each input judged by the personality's
// approval policy before it runs (host.JudgeLinkInput).
func (c *Console) liveView(w http.ResponseWriter, r *http.Request, p, s string, who host.Actor, stop <-chan struct{}) {
	if c.br == nil {
		http.Error(w, "this host has no browser", http.StatusNotFound)
		return
	}
	upgrade(w, r, func(ctx context.Context, conn *wsConn) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		if stop != nil {
			go func() {
				select {
				case <-stop:
					cancel()
				case <-ctx.Done():
				}
			}()
		}
		var release func()
		defer func() {
			if release != nil {
				release()
			}
		}()
		inputs := make(chan liveMsg)
		go func() {
			defer cancel()
			for {
				var m liveMsg
				if websocket.JSON.Receive(conn.ws, &m) != nil {
					return
				}
				select {
				case inputs <- m:
				case <-ctx.Done():
					return
				}
			}
		}()
		go func() {
			err := c.cast(ctx, p, s, who, conn, cancel)
			if err != nil {
				conn.send(map[string]any{"type": "error", "error": abi.AsError(err)})
			}
			cancel()
		}()
		for {
			select {
			case <-ctx.Done():
				return
			case m := <-inputs:
				switch m.Type {
				case "release":
					if release != nil {
						release()
						release = nil
					}
					conn.send(map[string]any{"type": "released"})
				case "input":
					if release == nil {
						release = c.desk.Control(p, s)
					}
					res := map[string]any{"type": "ack", "kind": m.Kind}
					if err := c.input(ctx, p, s, who, m.OperatorInput); err != nil {
						res = map[string]any{"type": "error", "kind": m.Kind, "error": abi.AsError(err)}
					}
					conn.send(res)
				}
			}
		}
	})
}

// cast streams the session's frames to conn: the screencast for a
// logged-in operator, frames with the secrets concealed for anyone else.
// A frame that fails to send ends the view (stop).
func (c *Console) cast(ctx context.Context, p, s string, who host.Actor, conn *wsConn, stop func()) error {
	var seq int64
	send := func(f host.LiveFrame) {
		seq++
		if conn.send(liveFrame{Type: "frame", Seq: seq, Width: f.Width, Height: f.Height, JPEG: f.JPEG}) != nil {
			stop()
		}
	}
	if who.Operator() {
		return c.br.Screencast(ctx, p, s, c.opts.MaxWidth, c.opts.MaxHeight, send)
	}
	return c.br.ScreencastConcealed(ctx, p, s, c.opts.MaxWidth, c.opts.MaxHeight, send, func(err error) {
		conn.send(map[string]any{"type": "error", "error": abi.AsError(err)})
	})
}

// input plays one input of who on the session's page: a logged-in
// operator's at once, anyone else's once the personality's approval
// policy lets it (host.JudgeLinkInput), which may wait for an operator.
func (c *Console) input(ctx context.Context, p, s string, who host.Actor, in host.OperatorInput) error {
	if !who.Operator() {
		if err := c.h.JudgeLinkInput(ctx, p, s, in.Kind); err != nil {
			return err
		}
	}
	return c.br.Input(p, s, in)
}
