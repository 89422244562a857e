package host

import (
	"testing"

	"github.com/wasmwright/wasmwright/internal/abischema"
)

// Every host function a host with a browser, a console and a vault offers
// reads and answers exactly the abi types whose JSON Schemas are published
// in abi/schema/hostfuncs/, and every published function is offered: a
// handler that changes its request or response type fails here until the
// table (and with it the published schema) follows.
func TestOfferedHostFunctionsArePublished(t *testing.T) {
	t.Parallel() // its own host and browser: overlaps the other such tests' waits
	f := newFixture(t, map[string]string{"browser": "plugins/browser"})
	h := f.browserHost(t, f.browserConfig(`default_personality = "agent"`, "", `[plugins.browser]

[personalities.agent]
plugins = ["browser"]
tools = ["*"]
grants = ["browser.read", "browser.act"]
`), Options{Operators: true})
	offered := map[string]bool{}
	for _, fn := range h.hostFuncs() {
		if d := abischema.Declared(fn.Name, fn.Request, fn.Response); d != "" {
			t.Errorf("%s: %s", fn.Name, d)
		}
		offered[fn.Name] = true
	}
	for name := range abischema.HostFunctions() {
		if !offered[name] {
			t.Errorf("%s is published but this host does not offer it", name)
		}
	}
}
