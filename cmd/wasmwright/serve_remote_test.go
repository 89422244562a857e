package main

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

	cmd, stderr, _ := e.start(t, []string{"serve", "--http", "0.0.0.0:0", "--allow-remote"}, "WASMWRIGHT_TOKEN=ww_test_token_remote")
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

// With a certificate, serve --allow-remote serves HTTPS without a warning.
func TestServeTLS(t *testing.T) {
	e := newServeEnv(t)
	dir := t.TempDir()
	certFile, keyFile, pool := selfSigned(t, dir)
	token := "ww_test_token_tls"
	_, stderr, _ := e.start(t, []string{"serve", "--http", "0.0.0.0:0", "--allow-remote", "--tls-cert", certFile, "--tls-key", keyFile}, "WASMWRIGHT_TOKEN="+token)
	sc := bufio.NewScanner(stderr)
	re := regexp.MustCompile(`serving MCP \(streamable HTTP\) at https://\S+:(\d+)/mcp`)
	var port string
	for port == "" && sc.Scan() {
		if strings.Contains(sc.Text(), "WARNING") {
			t.Errorf("warning with TLS: %s", sc.Text())
		}
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			port = m[1]
		}
	}
	if port == "" {
		t.Fatal("no https banner")
	}
	go io.Copy(io.Discard, stderr)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 30 * time.Second}
	req, _ := http.NewRequest("POST", "https://127.0.0.1:"+port+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("initialize over HTTPS: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize over HTTPS: %s", resp.Status)
	}
	// Plain HTTP on the TLS port gets at most Go's "400: HTTP request to an
	// HTTPS server".
	if resp, err := http.Post("http://127.0.0.1:"+port+"/mcp", "application/json", strings.NewReader("{}")); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("plain HTTP on the TLS port: %s", resp.Status)
		}
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}
