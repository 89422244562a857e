package network

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/capability"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/hostfuncs/browser"
)

// sink is a loopback listener that must see nothing: UDP datagrams (STUN,
// TURN, ICE checks, QUIC) and TCP connections, each recorded.
type sink struct {
	udp     *net.UDPConn
	tcp     net.Listener
	mu      sync.Mutex
	got     []string
	anyCh   chan struct{}
	udpPort int
	tcpPort int
}

func newSink(t *testing.T) *sink {
	u, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	k := &sink{udp: u, tcp: l, anyCh: make(chan struct{}, 1), udpPort: u.LocalAddr().(*net.UDPAddr).Port, tcpPort: l.Addr().(*net.TCPAddr).Port}
	t.Cleanup(func() { u.Close(); l.Close() })
	go func() {
		buf := make([]byte, 2048)
		for {
			n, from, err := u.ReadFromUDP(buf)
			if err != nil {
				return
			}
			k.note(fmt.Sprintf("udp %d bytes from %s (first byte %#x)", n, from, buf[0]))
		}
	}()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			k.note("tcp connection from " + c.RemoteAddr().String())
			c.Close()
		}
	}()
	return k
}

func (k *sink) note(s string) {
	k.mu.Lock()
	k.got = append(k.got, s)
	k.mu.Unlock()
	select {
	case k.anyCh <- struct{}{}:
	default:
	}
}

func (k *sink) seen() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.got...)
}

// hostilePage tries every way out of the browser it knows that is not an
// ordinary request: WebRTC (STUN and TURN servers, and ICE connectivity
// checks to a remote candidate), WebTransport (QUIC), WebSocket, fetch,
// a service worker's fetch, preconnect, DNS prefetch, prefetch, an image,
// EventSource and a beacon, all aimed at the sink. window.__done resolves
// with what each attempt ended in, once every attempt has settled.
const hostilePage = `<!doctype html><title>hostile</title><h1>hostile</h1>
<link rel="preconnect" href="http://127.0.0.1:__TCP__/">
<link rel="dns-prefetch" href="http://probe-dns-prefetch.test/">
<script>
const U = __UDP__, T = __TCP__;
const log = {};
function within(ms, p) {
  return Promise.race([p, new Promise((_, rej) => setTimeout(() => rej(new Error("no answer in " + ms + " ms")), ms))]);
}
function attempt(name, f, ms) {
  return within(ms, Promise.resolve().then(f)).then(v => { log[name] = "settled: " + v }, e => { log[name] = "failed: " + e });
}
function gathered(pc) {
  return new Promise(r => {
    if (pc.iceGatheringState === "complete") return r();
    pc.addEventListener("icegatheringstatechange", () => pc.iceGatheringState === "complete" && r());
  });
}
async function rtcServers() {
  const pc = new RTCPeerConnection({iceServers: [
    {urls: ["stun:127.0.0.1:" + U, "stun:probe-stun.test:" + U]},
    {urls: ["turn:127.0.0.1:" + U + "?transport=udp", "turn:127.0.0.1:" + T + "?transport=tcp"], username: "u", credential: "p"},
  ]});
  const cands = [];
  pc.onicecandidate = e => e.candidate && e.candidate.candidate && cands.push(e.candidate.candidate);
  pc.createDataChannel("x");
  const done = gathered(pc);
  await pc.setLocalDescription(await pc.createOffer());
  await done;
  pc.close();
  return "gathering complete, " + cands.length + " candidates " + JSON.stringify(cands);
}
async function rtcChecks() {
  const a = new RTCPeerConnection(), b = new RTCPeerConnection();
  a.createDataChannel("x");
  const done = gathered(a);
  await a.setLocalDescription(await a.createOffer());
  await b.setRemoteDescription(a.localDescription);
  await b.setLocalDescription(await b.createAnswer());
  await a.setRemoteDescription(b.localDescription);
  b.close();
  await a.addIceCandidate({candidate: "candidate:1 1 udp 2122260223 127.0.0.1 " + U + " typ host", sdpMid: "0", sdpMLineIndex: 0});
  await a.addIceCandidate({candidate: "candidate:2 1 tcp 1518280447 127.0.0.1 " + T + " typ host tcptype passive", sdpMid: "0", sdpMLineIndex: 0});
  await a.addIceCandidate({candidate: "candidate:3 1 udp 2122260223 probe-mdns.local " + U + " typ host", sdpMid: "0", sdpMLineIndex: 0}).catch(() => {});
  await done;
  // Checks start as soon as a pair exists; give them a moment to be sent.
  await new Promise(r => setTimeout(r, 1000));
  const st = a.iceConnectionState;
  a.close();
  return "gathering complete, ice " + st;
}
async function webTransport() {
  if (typeof WebTransport === "undefined") return "no WebTransport";
  const wt = new WebTransport("https://127.0.0.1:" + U + "/");
  wt.closed.catch(() => {});
  await wt.ready;
  return "ready";
}
function webSocket(url) {
  return new Promise((res, rej) => {
    const ws = new WebSocket(url);
    ws.onopen = () => { res("open"); ws.close() };
    ws.onerror = () => rej(new Error("error"));
    ws.onclose = () => rej(new Error("closed"));
  });
}
function image(url) {
  return new Promise((res, rej) => { const i = new Image(); i.onload = () => res("loaded"); i.onerror = () => rej(new Error("error")); i.src = url });
}
function link(rel, url) {
  return new Promise((res, rej) => { const l = document.createElement("link"); l.rel = rel; l.href = url; l.onload = () => res("loaded"); l.onerror = () => rej(new Error("error")); document.head.appendChild(l) });
}
function eventSource(url) {
  return new Promise((res, rej) => { const e = new EventSource(url); e.onopen = () => { res("open"); e.close() }; e.onerror = () => { rej(new Error("error")); e.close() } });
}
async function serviceWorker() {
  if (!navigator.serviceWorker) return "no service workers";
  const reply = new Promise(r => navigator.serviceWorker.addEventListener("message", e => r(e.data)));
  await navigator.serviceWorker.register("/sw.js");
  const reg = await navigator.serviceWorker.ready;
  reg.active.postMessage("go");
  return await reply;
}
navigator.sendBeacon("http://127.0.0.1:" + T + "/beacon", "x");
window.__done = Promise.all([
  attempt("webrtc servers", rtcServers, 15000),
  attempt("webrtc checks", rtcChecks, 15000),
  attempt("webtransport", webTransport, 8000),
  attempt("websocket", () => webSocket("ws://127.0.0.1:" + T + "/"), 8000),
  attempt("websocket tls", () => webSocket("wss://127.0.0.1:" + T + "/"), 8000),
  attempt("fetch", () => fetch("http://127.0.0.1:" + T + "/", {mode: "no-cors"}).then(r => r.status), 8000),
  attempt("image", () => image("http://127.0.0.1:" + T + "/i.png"), 8000),
  attempt("prefetch", () => link("prefetch", "http://127.0.0.1:" + T + "/p"), 8000),
  attempt("eventsource", () => eventSource("http://127.0.0.1:" + T + "/es"), 8000),
  attempt("service worker", serviceWorker, 8000),
]).then(() => log);
</script>`

const hostileWorker = `self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", e => e.waitUntil(self.clients.claim()));
self.addEventListener("message", e => {
  fetch("http://127.0.0.1:__TCP__/sw", {mode: "no-cors"}).then(r => "fetched " + r.status, err => "failed: " + err)
    .then(m => e.source.postMessage(m));
});`

func evaluate(b *browser.Service, personality, session, expr string) (json.RawMessage, *abi.Error) {
	grants := capability.Set{capability.BrowserRead: true, capability.BrowserAct: true, capability.BrowserEval: true}
	out, err := invoke[abi.BrowserEvaluateResponse](b, grants, personality, session, abi.HostBrowserEvaluate, abi.BrowserEvaluateRequest{Expression: expr})
	return out.Result, err
}

// TestBrowserNoWayOut: a hostile page on an allowed loopback site tries
// every path out of Chromium that is not an ordinary proxied request,
// aimed at a loopback UDP and TCP listener the policy does not allow.
// Each attempt must settle in the page (the positive signal that it was
// made), and the listener must have seen nothing: no STUN, TURN or ICE
// datagram, no QUIC, no TCP connection. The allowed page itself loads
// through the proxy's credential challenge.
func TestBrowserNoWayOut(t *testing.T) {
	t.Parallel() // independent of the package's other tests: overlaps their waits
	t.Run("ephemeral", func(t *testing.T) { noWayOut(t, false) })
	// A persistent profile is its own browser, launched with the session's
	// proxy.
	t.Run("persistent", func(t *testing.T) { noWayOut(t, true) })
}

func noWayOut(t *testing.T, persistent bool) {
	k := newSink(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/hostile", func(w http.ResponseWriter, r *http.Request) {
		p := strings.NewReplacer("__UDP__", fmt.Sprint(k.udpPort), "__TCP__", fmt.Sprint(k.tcpPort)).Replace(hostilePage)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, p)
	})
	mux.HandleFunc("/sw.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, strings.ReplaceAll(hostileWorker, "__TCP__", fmt.Sprint(k.tcpPort)))
	})
	site := httptest.NewServer(mux)
	defer site.Close()
	sitePort := site.Listener.Addr().(*net.TCPAddr).Port
	pol := Policy{AllowedHosts: []string{fmt.Sprintf("127.0.0.1:%d", sitePort)}, Ports: []int{80, 443, k.tcpPort, k.udpPort}}
	s, err := New(Options{Logger: quiet(), DialTimeout: time.Second, Policies: map[string]Policy{"p": pol}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	cfg := browser.Config{Headed: "false",
		ActionTimeout: browser.Duration(30 * time.Second), NavigationTimeout: browser.Duration(10 * time.Second)}
	if persistent {
		cfg.ProfilesDir, cfg.PersistentProfiles = t.TempDir(), []string{"p"}
	}
	b := startBrowser(t, "Chromium and the Playwright driver", cfg, browser.Options{Logger: quiet(), SessionProxy: s.OpenSessionProxy})

	base := fmt.Sprintf("http://127.0.0.1:%d", sitePort)
	res, aerr := navigate(b, "p", "s1", base+"/hostile")
	if aerr != nil || !strings.Contains(res.Snapshot, "hostile") {
		t.Fatalf("the allowed page did not load through the proxy: %v %q", aerr, res.Snapshot)
	}
	t0 := time.Now()
	raw, aerr := evaluate(b, "p", "s1", "async () => await window.__done")
	if aerr != nil {
		t.Fatalf("the page's attempts did not settle: %v", aerr)
	}
	var log map[string]string
	if err := json.Unmarshal(raw, &log); err != nil {
		t.Fatalf("page result %s: %v", raw, err)
	}
	for _, name := range []string{"webrtc servers", "webrtc checks", "webtransport", "websocket", "websocket tls", "fetch", "image", "prefetch", "eventsource", "service worker"} {
		v, ok := log[name]
		if !ok {
			t.Errorf("%s: no outcome recorded", name)
			continue
		}
		t.Logf("%-15s %s", name, v)
		if strings.HasPrefix(name, "webrtc") && !strings.Contains(v, "gathering complete") {
			t.Errorf("%s: ICE gathering did not complete (%s): the attempt proves nothing", name, v)
		}
		if strings.Contains(v, "settled: open") || strings.Contains(v, "settled: ready") || strings.Contains(v, "settled: loaded") {
			t.Errorf("%s reached the listener: %s", name, v)
		}
	}
	t.Logf("attempts settled in %s", time.Since(t0).Round(time.Millisecond))
	// Whatever was sent has arrived by now on loopback; a bounded grace
	// for a datagram still in flight.
	select {
	case <-k.anyCh:
	case <-time.After(500 * time.Millisecond):
	}
	if got := k.seen(); len(got) > 0 {
		t.Errorf("the listener the policy refuses was reached %d times, around the proxy:\n%s", len(got), strings.Join(got, "\n"))
	}
	blocked := s.TakeBlocked("p", "s1")
	t.Logf("the proxy refused %d requests of the page; %d challenges answered 407", len(blocked), s.Unauthorized())
	// The context answered the proxy's challenge once, when it was made,
	// and sent the credentials with every later request: pages, the
	// service worker, WebSockets.
	if n := s.Unauthorized(); n != 1 && !persistent {
		t.Errorf("the proxy challenged %d requests, want only the context's first", n)
	}
	for _, want := range []string{fmt.Sprintf("127.0.0.1:%d/", k.tcpPort)} {
		if !strings.Contains(strings.Join(blocked, "\n"), want) {
			t.Errorf("the proxy saw no refused request for %s: the page's requests did not go through it", want)
		}
	}
	if !persistent {
		// Device emulation makes a new context: it authenticates too, once.
		c := hostfuncs.NewCaller(hostfuncs.CallerInfo{Personality: "p", Session: "s1", Plugin: "browser",
			Grants: capability.Set{capability.BrowserRead: true, capability.BrowserAct: true}})
		for _, f := range b.HostFuncs() {
			if f.Name == abi.HostBrowserEmulate {
				in, _ := json.Marshal(abi.BrowserEmulateRequest{Device: "Pixel 7"})
				if _, err := f.Fn(hostfuncs.WithCaller(context.Background(), c), "browser", in); err != nil {
					t.Fatalf("emulate: %v", err)
				}
			}
		}
		if res, aerr := navigate(b, "p", "s1", base+"/sw.js"); aerr != nil || !strings.Contains(res.Snapshot, "skipWaiting") {
			t.Errorf("after device emulation the session does not load pages: %v %q", aerr, res.Snapshot)
		}
		if n := s.Unauthorized(); n != 2 {
			t.Errorf("%d proxy challenges after emulation, want 2 (one per context)", n)
		}
	}
	// The credentials never reached the page's own origin.
	pu, _ := url.Parse(s.SessionProxy("p", "s1"))
	if pass, _ := pu.User.Password(); pass != "" && strings.Contains(res.Snapshot, pass) {
		t.Error("the proxy password is visible to the page")
	}
}
