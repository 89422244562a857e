// Package servetest reads what a started `wasmwright serve` prints on its
// standard error: the command's tests and the bench programs that start
// serve as a process wait on the same line for its MCP URL.
package servetest

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"time"
)

// mcpLine is the line serve prints once its streamable HTTP endpoint
// listens (cmd/wasmwright/serve.go).
var mcpLine = regexp.MustCompile(`serving MCP \(streamable HTTP\) at (http://\S+)`)

// WatchURL reads stderr to its end in a goroutine of its own, so serve
// never blocks on a full pipe, and returns a channel that receives the MCP
// URL serve prints. Each line also goes to lines when it is not nil and
// has room: a line nobody has room for is dropped, never waited on.
func WatchURL(stderr io.Reader, lines chan<- string) <-chan string {
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if lines != nil {
				select {
				case lines <- sc.Text():
				default:
				}
			}
			if m := mcpLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case urlc <- m[1]:
				default:
				}
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	return urlc
}

// AwaitURL waits for the URL WatchURL reads, at most within; it fails when
// serve exits first (its exit is put back on exited, for whoever waits
// for the process next) or prints no URL in time.
func AwaitURL(urlc <-chan string, exited chan error, within time.Duration) (string, error) {
	timer := time.NewTimer(within)
	defer timer.Stop()
	select {
	case url := <-urlc:
		return url, nil
	case err := <-exited:
		exited <- err
		return "", fmt.Errorf("serve exited before it printed its URL: %v", err)
	case <-timer.C:
		return "", fmt.Errorf("serve printed no URL in %v", within)
	}
}
