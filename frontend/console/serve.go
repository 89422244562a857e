package console

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/wasmwright/wasmwright/frontend/listen"
)

// ServeOptions bound what clients can hold of a console served on a
// listener of its own (console.addr). Zero values take the defaults.
type ServeOptions struct {
	// TLS, when set, serves HTTPS.
	TLS *tls.Config
	// ShutdownGrace is how long Serve waits for requests in flight once
	// ctx is done before closing their connections. Default 10 s.
	ShutdownGrace time.Duration
	// MaxConns caps open connections in all, half of them at most not yet
	// logged in; MaxConnsPerIP is how many of those one client address
	// keeps before a new one closes its oldest (frontend/listen). Defaults
	// 1024 and 64.
	MaxConns, MaxConnsPerIP int
}

// Serve serves the console on ln until ctx is done, then shuts down. Each
// connection must send its headers within 5 s and idles at most 60 s;
// connections that have not logged in cannot crowd out operators that
// have, nor keep a new operator from logging in, even from the same
// address (frontend/listen).
func (c *Console) Serve(ctx context.Context, ln net.Listener, o ServeOptions) error {
	if o.ShutdownGrace <= 0 {
		o.ShutdownGrace = 10 * time.Second
	}
	const headerTimeout = 5 * time.Second
	lim := listen.New(ln, listen.Options{MaxConns: o.MaxConns, PerClient: o.MaxConnsPerIP,
		Grace: headerTimeout / 5, FirstByte: headerTimeout, Name: "console", Logger: c.log})
	var l net.Listener = lim
	if o.TLS != nil {
		l = tls.NewListener(lim, o.TLS)
	}
	srv := &http.Server{Handler: c.Handler(), ReadHeaderTimeout: headerTimeout, IdleTimeout: 60 * time.Second,
		MaxHeaderBytes: 64 << 10, ErrorLog: slog.NewLogLogger(c.log.Handler(), slog.LevelDebug)}
	lim.Install(srv)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	grace, cancel := context.WithTimeout(context.Background(), o.ShutdownGrace)
	defer cancel()
	if srv.Shutdown(grace) != nil {
		srv.Close()
	}
	<-errc
	return nil
}
