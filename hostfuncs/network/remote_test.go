package network

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/hostfuncs/browser"
	"github.com/wasmwright/wasmwright/internal/testenv"
)

// remoteServer starts a Playwright server (playwright-core's launchServer)
// on this host, with a browser started the way its operator chose, and
// returns its websocket endpoint. It stops when the test ends.
func remoteServer(t *testing.T) string {
	t.Helper()
	testenv.Heavy(t, "Chromium and the Playwright driver")
	cli := os.Getenv("PLAYWRIGHT_CLI_PATH")
	exe, err := exec.LookPath("chromium")
	if cli == "" || err != nil {
		testenv.Require(t, false, "needs PLAYWRIGHT_CLI_PATH (playwright-core) and chromium on PATH")
	}
	node := os.Getenv("PLAYWRIGHT_NODEJS_PATH")
	if node == "" {
		node = "node"
	}
	script := `const { chromium } = require(process.argv[1]);
(async () => {
  const s = await chromium.launchServer({executablePath: process.argv[2], headless: true, port: 0, args: ["--no-sandbox", "--disable-gpu"]});
  console.log(s.wsEndpoint());
  process.stdin.on("end", () => s.close().then(() => process.exit(0)));
  process.stdin.resume();
})().catch(e => { console.error(e); process.exit(1) });`
	cmd := exec.Command(node, "-e", script, filepath.Dir(cli), exe)
	stdin, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
		}
	})
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
	}()
	select {
	case ws, ok := <-line:
		if !ok || !strings.HasPrefix(ws, "ws://") {
			t.Fatalf("the Playwright server did not start (%q)", ws)
		}
		return ws
	case <-time.After(90 * time.Second): // a hang-catcher: a second or two on a quiet machine
		t.Fatal("the Playwright server did not start in 90 s")
	}
	return ""
}

// TestRemoteBrowserThroughProxy: a remote browser (a Playwright server on
// this host, started without the host's flags) still has its contexts
// authenticated to and confined by the egress proxy for ordinary
// requests, and the first result says what the host cannot hold it to.
func TestRemoteBrowserThroughProxy(t *testing.T) {
	k := newSink(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<title>remote</title><h1>remote page</h1><script>
window.__done = fetch("http://127.0.0.1:%d/", {mode: "no-cors"}).then(() => "settled", e => "failed: " + e);
</script>`, k.tcpPort)
	})
	site := httptest.NewServer(mux)
	defer site.Close()
	port := site.Listener.Addr().(*net.TCPAddr).Port
	s, err := New(Options{Logger: quiet(), Policies: map[string]Policy{"p": {AllowedHosts: []string{fmt.Sprintf("127.0.0.1:%d", port)}, Ports: []int{80, 443, k.tcpPort}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	ws := remoteServer(t)
	b := startBrowser(t, "the Playwright driver", browser.Config{RemoteWS: ws,
		ActionTimeout: browser.Duration(10 * time.Second), NavigationTimeout: browser.Duration(10 * time.Second)},
		browser.Options{Logger: quiet(), SessionProxy: s.OpenSessionProxy})
	res, aerr := navigate(b, "p", "s", fmt.Sprintf("http://127.0.0.1:%d/", port))
	if aerr != nil || !strings.Contains(res.Snapshot, "remote page") {
		t.Fatalf("the allowed page did not load in the remote browser: %v", aerr)
	}
	if !strings.Contains(strings.Join(res.State.Warnings, "\n"), "browser is remote") {
		t.Errorf("no warning that a remote browser is not held to the policy: %v", res.State.Warnings)
	}
	if raw, aerr := evaluate(b, "p", "s", "async () => await window.__done"); aerr != nil {
		t.Fatalf("the page's fetch did not settle: %v", aerr)
	} else {
		t.Logf("fetch to the refused listener: %s", raw)
	}
	if got := k.seen(); len(got) > 0 {
		t.Errorf("the refused listener was reached: %v", got)
	}
	if bl := strings.Join(s.TakeBlocked("p", "s"), "\n"); !strings.Contains(bl, fmt.Sprintf("127.0.0.1:%d", k.tcpPort)) {
		t.Errorf("the remote page's request did not go through the proxy: blocked %q", bl)
	}
	if n := s.Unauthorized(); n != 1 {
		t.Errorf("%d proxy challenges, want the context's one", n)
	}
}
