package network

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/hostfuncs/browser"
)

// namesPage makes Chromium want names resolved in every way a page can
// without an ordinary request: DNS prefetch, preconnect, a STUN server
// given by name, an mDNS (.local) ICE candidate. window.__done resolves
// when ICE gathering is complete and the candidate was handled.
const namesPage = `<!doctype html><title>names</title><h1>names</h1>
<link rel="dns-prefetch" href="http://probe-dns-prefetch.test/">
<link rel="preconnect" href="http://probe-preconnect.test/">
<script>
window.__done = (async () => {
  const pc = new RTCPeerConnection({iceServers: [{urls: "stun:probe-stun.test:3478"}]});
  pc.createDataChannel("x");
  const gathered = new Promise(r => pc.onicegatheringstatechange = () => pc.iceGatheringState === "complete" && r());
  const b = new RTCPeerConnection();
  await pc.setLocalDescription(await pc.createOffer());
  await b.setRemoteDescription(pc.localDescription);
  await b.setLocalDescription(await b.createAnswer());
  await pc.setRemoteDescription(b.localDescription);
  b.close();
  let mdns = "added";
  await pc.addIceCandidate({candidate: "candidate:1 1 udp 2122260223 probe-mdns.local 3478 typ host", sdpMid: "0", sdpMLineIndex: 0}).catch(e => mdns = String(e));
  await Promise.race([gathered, new Promise(r => setTimeout(r, 10000))]);
  const state = pc.iceGatheringState;
  pc.close();
  return "gathering " + state + ", mdns candidate " + mdns;
})();
</script>`

// TestBrowserResolvesNoNames: Chromium itself resolves no name, so no DNS
// query leaves the machine, whatever a page asks for and whatever the
// browser wants for itself. Chromium's own record of its network stack
// (its net log) must show no DNS, system-resolver or mDNS task at all
// after the page's attempts have completed. (Before the fix the browser's
// own traffic, outside any context's proxy, resolved update.googleapis.com
// and accounts.google.com: 21 resolver tasks.)
func TestBrowserResolvesNoNames(t *testing.T) {
	t.Parallel() // independent of the package's other tests: overlaps their waits
	s, port := serveAllowed(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, namesPage)
	}))
	netlog := filepath.Join(t.TempDir(), "netlog.json")
	b := startBrowser(t, "Chromium and the Playwright driver", browser.Config{Headed: "false", Args: []string{"--log-net-log=" + netlog},
		ActionTimeout: browser.Duration(20 * time.Second), NavigationTimeout: browser.Duration(10 * time.Second)},
		browser.Options{Logger: quiet(), SessionProxy: s.OpenSessionProxy})
	res, aerr := navigate(b, "p", "s", fmt.Sprintf("http://127.0.0.1:%d/", port))
	if aerr != nil || !strings.Contains(res.Snapshot, "names") {
		b.Close(context.Background())
		t.Fatalf("the allowed page did not load: %v", aerr)
	}
	raw, aerr := evaluate(b, "p", "s", "async () => await window.__done")
	if aerr != nil {
		b.Close(context.Background())
		t.Fatalf("the page's attempts did not settle: %v", aerr)
	}
	t.Logf("page: %s", raw)
	if !strings.Contains(string(raw), "gathering complete") {
		t.Errorf("ICE gathering did not complete: the attempt proves nothing")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	b.Close(ctx) // Chromium finishes its net log when it exits
	cancel()

	data, err := os.ReadFile(netlog)
	if err != nil {
		t.Fatalf("Chromium wrote no net log: %v", err)
	}
	var log struct {
		Constants struct {
			LogEventTypes map[string]int `json:"logEventTypes"`
		} `json:"constants"`
		Events []struct {
			Type   int             `json:"type"`
			Params json.RawMessage `json:"params"`
		} `json:"events"`
	}
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatalf("net log: %v", err)
	}
	names := map[int]string{}
	for n, v := range log.Constants.LogEventTypes {
		names[v] = n
	}
	requested, tasks := map[string]bool{}, []string{}
	for _, e := range log.Events {
		n, p := names[e.Type], string(e.Params)
		if !strings.HasPrefix(n, "HOST_RESOLVER") {
			continue
		}
		if strings.Contains(p, "probe-") {
			requested[n] = true
		}
		if strings.Contains(n, "DNS_TASK") || strings.Contains(n, "SYSTEM_TASK") || strings.Contains(n, "MDNS_TASK") || strings.Contains(n, "DNS_TRANSACTION") {
			tasks = append(tasks, n+" "+p)
		}
	}
	t.Logf("%d net log events; host resolver events naming the page's probes: %v", len(log.Events), requested)
	if len(tasks) > 0 {
		t.Errorf("Chromium resolved names itself (%d resolver tasks):\n%s", len(tasks), strings.Join(tasks, "\n"))
	}
}
