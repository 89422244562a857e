package sut

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/wasmwright/wasmwright/internal/bench/mcphttp"
)

// Server is a running MCP server process over streamable HTTP: its
// endpoint, the token it accepts and the folder it runs in (removed by
// Stop).
type Server struct {
	Name  string
	URL   string
	Token string
	Cmd   *exec.Cmd
	Dir   string
	done  chan struct{} // closed when the process has exited
	werr  error
}

// ServeWasmwright runs `bin serve --config conf --http ADDR` (a free
// loopback port) in dir with a token of its own, extra arguments after, and
// waits until a session opens on it.
func ServeWasmwright(name, bin, dir, conf string, extra ...string) (*Server, error) {
	return ServeWasmwrightLogging(name, bin, dir, conf, nil, extra...)
}

// ServeWasmwrightLogging is ServeWasmwright with the server's stderr (its
// log) written to stderr.
func ServeWasmwrightLogging(name, bin, dir, conf string, stderr io.Writer, extra ...string) (*Server, error) {
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("%v: build it with make build", err)
	}
	addr, err := FreeAddr()
	if err != nil {
		return nil, err
	}
	s := &Server{Name: name, URL: "http://" + addr + "/mcp", Token: "bench-" + strconv.Itoa(os.Getpid()), Dir: dir}
	s.Cmd = exec.Command(bin, append([]string{"serve", "--config", conf, "--http", addr}, extra...)...)
	s.Cmd.Env = append(os.Environ(), "WASMWRIGHT_TOKEN="+s.Token)
	s.Cmd.Stderr = stderr
	return s, s.Start()
}

// Start starts s.Cmd in s.Dir and waits (up to three minutes: a build that
// compiles its plugins at start, on a cold cache and a loaded machine)
// until a session opens on it.
func (s *Server) Start() error {
	s.Cmd.Dir = s.Dir
	if err := s.Cmd.Start(); err != nil {
		return err
	}
	s.done = make(chan struct{})
	go func() { s.werr = s.Cmd.Wait(); close(s.done) }()
	hc := &http.Client{Timeout: 5 * time.Second}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		c, err := mcphttp.Dial(ctx, hc, s.URL, s.Token)
		if err == nil {
			c.Close(ctx)
			cancel()
			return nil
		}
		cancel()
		select {
		case <-s.done:
			return fmt.Errorf("%s exited before it served: %v", s.Name, s.werr)
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.Stop()
			return fmt.Errorf("%s did not serve within three minutes: %v", s.Name, err)
		}
	}
}

// Pid is the server's process id.
func (s *Server) Pid() int { return s.Cmd.Process.Pid }

// Exited is closed once the process has exited.
func (s *Server) Exited() <-chan struct{} { return s.done }

// Stop interrupts the process, kills it after 15 s, and removes its folder.
func (s *Server) Stop() {
	if s.done != nil {
		s.Cmd.Process.Signal(os.Interrupt)
		select {
		case <-s.done:
		case <-time.After(15 * time.Second):
			s.Cmd.Process.Kill()
			<-s.done
		}
	}
	os.RemoveAll(s.Dir)
}

// FreeAddr is a loopback address with a port free at the time of asking.
func FreeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}
