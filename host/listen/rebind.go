package listen

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// RefuseReboundHost wraps a front-end's handler (the MCP endpoint, the
// operator console) against DNS rebinding: a request that reached the
// server on a loopback address must name a loopback host (localhost,
// 127.0.0.1, [::1]) in its Host header; any other gets 403 and its
// connection is closed. A page on evil.example whose name the attacker
// re-points at 127.0.0.1 sends Host: evil.example and an Origin that
// matches it, so comparing Origin with Host alone lets it through (DNS
// rebinding). It is the rule the MCP go-sdk applies to its endpoint
// (StreamableHTTPOptions.DisableLocalhostProtection): both front-ends use
// this one so that they answer alike. A request on a non-loopback address
// is not checked here: the name clients reach such a server by is theirs
// to choose, and the Origin check and the token or cookie still apply.
func RefuseReboundHost(log *slog.Logger, name string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !HostAllowed(r) {
			if log != nil {
				log.Warn(name+": request with a foreign Host on a loopback address refused (DNS rebinding)", "remote", r.RemoteAddr, "host", r.Host)
			}
			w.Header().Set("Connection", "close")
			http.Error(w, fmt.Sprintf("403 forbidden: Host header %q: this server listens on a loopback address and answers only to localhost, 127.0.0.1 or [::1]", truncate(r.Host, 200)), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// HostAllowed reports whether r passes the rule of RefuseReboundHost.
func HostAllowed(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || local == nil || !loopbackAddr(local.String()) {
		return true
	}
	return loopbackAddr(r.Host)
}

// loopbackAddr: host[:port] whose host is localhost or a loopback IP.
func loopbackAddr(hostport string) bool {
	h, _, err := net.SplitHostPort(hostport)
	if err != nil {
		h = hostport
	}
	h = strings.Trim(h, "[]")
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(h)
	return err == nil && ip.Unmap().IsLoopback()
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
