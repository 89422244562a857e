package network

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/testkit"
)

// resolverAt fails every lookup the way Go's resolver does, naming the
// DNS server it asked.
type resolverAt struct{ err *net.DNSError }

func (r resolverAt) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return nil, r.err
}

// A fetch to a name that does not resolve, or to a port where nothing
// listens, fails unreachable with a reason that names neither the DNS
// server nor anything but the host; a refusal stays refused.
func TestFetchUnreachable(t *testing.T) {
	dead := testkit.FreeAddr(t)
	for _, tc := range []struct {
		name string
		res  *net.DNSError
		url  string
		code abi.Code
		says string
	}{
		{"no such host", &net.DNSError{Err: "no such host", Name: "gone.example", Server: "10.255.255.53:53", IsNotFound: true}, "http://gone.example/", abi.CodeUnreachable, "gone.example does not exist"},
		{"dns timeout", &net.DNSError{Err: "i/o timeout", Name: "slow.example", Server: "10.255.255.53:53", IsTimeout: true}, "http://slow.example/", abi.CodeUnreachable, "timed out"},
		{"nothing listens", nil, "http://" + dead + "/", abi.CodeUnreachable, "connection refused"},
		{"refused", nil, "http://10.1.2.3/", abi.CodeRefused, "private address"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(Options{Logger: quiet(), Resolver: resolverAt{tc.res}, Policies: map[string]Policy{"p": {AllowedHosts: []string{dead}}}})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close(context.Background())
			_, aerr := doFetch(s, callerFor("p", ""), abi.NetworkFetchRequest{URL: tc.url})
			if aerr == nil || aerr.Code != tc.code || !strings.Contains(aerr.Message, tc.says) {
				t.Fatalf("want %s saying %q, got %v", tc.code, tc.says, aerr)
			}
			if strings.Contains(aerr.Message, "10.255.255.53") {
				t.Errorf("the message names the DNS server: %s", aerr.Message)
			}
		})
	}
}
