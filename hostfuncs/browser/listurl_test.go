package browser

import "testing"

// A URL in a session listing keeps its place, not what was typed into it.
func TestListedURL(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	for in, want := range map[string]string{
		"":                                       "",
		"https://a.example/p":                    "https://a.example/p",
		"https://u:pw@a.example/p?token=s3cret":  "https://a.example/p?token=•••",
		"https://a.example/p?a=1&b=&c#frag":      "https://a.example/p?a=•••&b=•••&•••#•••",
		"http://127.0.0.1:8080/x?ghp_abcdef":     "http://127.0.0.1:8080/x?•••",
		"https://a.example/cb#access_token=s3cr": "https://a.example/cb#•••",
		"about:blank":                            "about:blank",
		"http://a.example/%zz?x=1":               "(unparsable URL hidden)",
	} {
		if got := listedURL(in); got != want {
			t.Errorf("listedURL(%q) = %q, want %q", in, got, want)
		}
	}
}
