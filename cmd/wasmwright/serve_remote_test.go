package main

import (
	"bufio"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serve --http on an address that is not loopback is refused unless the
// operator allows it; allowed without TLS, it warns that tokens travel in
// clear.
func TestServeRemoteAddress(t *testing.T) {
	e := newServeEnv(t)
	cmd := exec.Command(e.bin, "serve", "--http", "0.0.0.0:0")
	cmd.Env = append(e.env, "WASMWRIGHT_TOKEN=ww_test_token_remote")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "not a loopback address") || !strings.Contains(string(out), "--allow-remote") || strings.Contains(string(out), "serving MCP") {
		t.Fatalf("serve --http 0.0.0.0:0 without --allow-remote: %v\n%s", err, out)
	}

	cmd = exec.Command(e.bin, "serve", "--http", "0.0.0.0:0", "--allow-remote")
	cmd.Env = append(e.env, "WASMWRIGHT_TOKEN=ww_test_token_remote")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() { cmd.Process.Kill(); <-exited }()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var warned bool
	timeout := time.After(60 * time.Second)
	for serving := false; !serving; {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("serve --allow-remote exited")
			}
			warned = warned || strings.Contains(l, "WARNING: serving plain HTTP")
			serving = strings.Contains(l, "serving MCP")
		case <-timeout:
			t.Fatal("serve --allow-remote printed no banner in 60s")
		}
	}
	if !warned {
		t.Error("serve --allow-remote over plain HTTP printed no warning before serving")
	}
	cmd.Process.Signal(syscall.SIGTERM)
}
