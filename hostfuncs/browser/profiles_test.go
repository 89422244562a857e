package browser

import (
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
)

// TestNamedProfiles: a profile is created, listed, opened by a session
// (its cookies outlive the session), refused to a second session while
// open and to deletion while open, invisible to another personality, and
// deleted; bad names and actions are refused with input_invalid.
func TestNamedProfiles(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	a, b := caller(t.Name()+"-a"), caller(t.Name()+"-b")
	otherInfo := callerInfo(t.Name() + "-other")
	otherInfo.Personality = "someone-else"
	other := hostfuncs.NewCaller(otherInfo)
	prof := func(req abi.BrowserProfileRequest) (abi.BrowserProfileResponse, *abi.Error) {
		return call[abi.BrowserProfileResponse](t, svc, a, abi.HostBrowserProfile, req)
	}
	for _, bad := range []abi.BrowserProfileRequest{{Action: "create", Name: "../x"}, {Action: "create", Name: "a b"}, {Action: "create"}, {Action: "rename", Name: "x"}} {
		_, err := prof(bad)
		wantCode(t, err, abi.CodeInputInvalid, "")
	}
	r, err := prof(abi.BrowserProfileRequest{Action: "create", Name: "shop"})
	if err != nil || len(r.Profiles) != 1 || r.Profiles[0].Name != "shop" {
		t.Fatalf("create: %+v %v", r, err)
	}
	open := func(cc *hostfuncs.Caller) (abi.BrowserNavigateResponse, *abi.Error) {
		return call[abi.BrowserNavigateResponse](t, svc, cc, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL + "/console", Profile: "shop"})
	}
	if _, err := open(a); err != nil {
		t.Fatal(err)
	}
	if l, _ := prof(abi.BrowserProfileRequest{Action: "list"}); len(l.Profiles) != 1 || l.Profiles[0].InUse != a.Session() {
		t.Errorf("list while open: %+v", l)
	}
	_, err = open(b)
	wantCode(t, err, abi.CodeRefused, "in use")
	_, err = prof(abi.BrowserProfileRequest{Action: "delete", Name: "shop"})
	wantCode(t, err, abi.CodeRefused, "open in a session")
	_, err = open(other)
	wantCode(t, err, abi.CodeNotFound, "no browser profile")
	if l, _ := call[abi.BrowserProfileResponse](t, svc, other, abi.HostBrowserProfile, abi.BrowserProfileRequest{Action: "list"}); len(l.Profiles) != 0 {
		t.Errorf("another personality sees the profile: %+v", l)
	}
	// The page set a cookie; it is in the profile for the next session.
	must[abi.BrowserCloseResponse](t, svc, a, abi.HostBrowserClose, abi.BrowserCloseRequest{})
	if _, err := open(b); err != nil {
		t.Fatal(err)
	}
	st := must[abi.BrowserStorageResponse](t, svc, b, abi.HostBrowserStorage, abi.BrowserStorageRequest{Kind: "cookies", Values: true})
	if len(st.Cookies) != 1 || st.Cookies[0].Value != "yes" {
		t.Errorf("the profile did not keep the cookie: %+v", st.Cookies)
	}
	must[abi.BrowserCloseResponse](t, svc, b, abi.HostBrowserClose, abi.BrowserCloseRequest{})
	if r, err := prof(abi.BrowserProfileRequest{Action: "delete", Name: "shop"}); err != nil || len(r.Profiles) != 0 {
		t.Fatalf("delete: %+v %v", r, err)
	}
	_, err = prof(abi.BrowserProfileRequest{Action: "delete", Name: "shop"})
	wantCode(t, err, abi.CodeNotFound, "")
}
