package network

import "testing"

// Every reason the policy gives falls in a class, so the metric's label
// stays a small closed set.
func TestReasonClass(t *testing.T) {
	for reason, want := range map[string]string{
		"host not in the personality's only_hosts": "host_not_allowed",
		"port 8080 not allowed; allowed: 80, 443":  "port_not_allowed",
		"loopback name":    "loopback",
		"loopback address": "loopback",
		"metadata host":    "metadata",
		"metadata address": "metadata",
		"intranet.example resolves to 10.0.0.5, a private address": "private_address",
		"link-local address":                            "private_address",
		"IPv4-mapped IPv6 address":                      "private_address",
		`scheme "ftp" not allowed: only http and https`: "scheme",
		"credentials in the URL are refused":            "credentials_in_url",
		"malformed host:port":                           "malformed",
		"something new":                                 "other",
	} {
		if got := ReasonClass(reason); got != want {
			t.Errorf("ReasonClass(%q) = %q, want %q", reason, got, want)
		}
	}
}
