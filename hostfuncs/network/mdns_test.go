package network

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/hostfuncs/browser"
)

// TestBrowserNoMulticast: a page gives WebRTC a remote ICE candidate named
// <random>.local. Chromium would resolve it by multicast DNS, a query
// from this machine to the whole local network with a name the page
// chose (and it announced its own host candidates' names and addresses
// the same way). Nothing of it may leave: no mDNS packet carries the
// page's name, nor the name the resolver rules put in its place.
func TestBrowserNoMulticast(t *testing.T) {
	t.Parallel() // independent of the package's other tests: overlaps their waits
	mc, err := net.ListenMulticastUDP("udp4", nil, &net.UDPAddr{IP: net.IPv4(224, 0, 0, 251), Port: 5353})
	if err != nil {
		t.Skipf("cannot listen for multicast DNS here: %v", err)
	}
	defer mc.Close()
	var mu sync.Mutex
	var packets []string
	go func() {
		buf := make([]byte, 9000)
		for {
			n, from, err := mc.ReadFromUDP(buf)
			if err != nil {
				return
			}
			mu.Lock()
			packets = append(packets, fmt.Sprintf("%s %q", from, buf[:n]))
			mu.Unlock()
		}
	}()
	rb := make([]byte, 8)
	rand.Read(rb)
	name := "ww" + hex.EncodeToString(rb)
	page := `<title>m</title><h1>mdns</h1><script>
window.__done = (async () => {
  const a = new RTCPeerConnection(), b = new RTCPeerConnection();
  a.createDataChannel("x");
  await a.setLocalDescription(await a.createOffer());
  await b.setRemoteDescription(a.localDescription);
  await b.setLocalDescription(await b.createAnswer());
  await a.setRemoteDescription(b.localDescription);
  b.close();
  const added = await a.addIceCandidate({candidate: "candidate:1 1 udp 2122260223 NAME.local 3478 typ host", sdpMid: "0", sdpMLineIndex: 0}).then(() => "added", e => String(e));
  // Resolution starts when the candidate is added; give it a moment.
  await new Promise(r => setTimeout(r, 1500));
  a.close();
  return "candidate " + added;
})();</script>`
	s, port := serveAllowed(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, strings.ReplaceAll(page, "NAME", name))
	}))
	b := startBrowser(t, "Chromium and the Playwright driver", browser.Config{Headed: "false", ActionTimeout: browser.Duration(20 * time.Second)},
		browser.Options{Logger: quiet(), SessionProxy: s.OpenSessionProxy})
	if _, aerr := navigate(b, "p", "s", fmt.Sprintf("http://127.0.0.1:%d/", port)); aerr != nil {
		t.Fatal(aerr)
	}
	raw, aerr := evaluate(b, "p", "s", "async () => await window.__done")
	if aerr != nil || !strings.Contains(string(raw), "candidate added") {
		t.Fatalf("the page did not add its candidate: %s %v", raw, aerr)
	}
	// A bounded grace for a datagram still in flight.
	time.Sleep(300 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	for _, p := range packets {
		if strings.Contains(p, name) || strings.Contains(p, "~NOTFOUND") {
			t.Errorf("an mDNS query left the machine for the page: %s", p)
		}
	}
	t.Logf("%d multicast DNS packets seen on the network in all (any process)", len(packets))
}
