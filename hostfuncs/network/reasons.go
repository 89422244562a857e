package network

import "strings"

// ReasonClass is the kind of a refusal's reason (Blocked.Reason), one of a
// small closed set, for counting: the reason itself names hosts and
// addresses, which would make a metric's labels grow without bound.
func ReasonClass(reason string) string {
	r := strings.ToLower(reason)
	switch {
	case strings.Contains(r, "metadata"):
		return "metadata"
	case strings.Contains(r, "only_hosts"), strings.Contains(r, "denied"):
		return "host_not_allowed"
	case strings.Contains(r, "loopback"):
		return "loopback"
	case strings.Contains(r, "private"), strings.Contains(r, "link-local"), strings.Contains(r, "unspecified"),
		strings.Contains(r, "multicast"), strings.Contains(r, "nat64"), strings.Contains(r, "reserved"), strings.Contains(r, "ipv4-mapped"):
		return "private_address"
	case strings.Contains(r, "malformed"), strings.Contains(r, "bad port"), strings.Contains(r, "not a url"), strings.Contains(r, "no host"):
		return "malformed"
	case strings.Contains(r, "port"):
		return "port_not_allowed"
	case strings.Contains(r, "scheme"):
		return "scheme"
	case strings.Contains(r, "credentials"):
		return "credentials_in_url"
	}
	return "other"
}
