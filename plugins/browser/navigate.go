package main

import (
	"fmt"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
	sdk "github.com/wasmwright/wasmwright/plugin-sdk"
)

// Navigation: open a page, go back and forward, switch tabs.

type NavigateArgs struct {
	URL            string  `json:"url" desc:"the page to open: a full http(s) URL, or a host and path (https:// is added)"`
	NewTab         bool    `json:"new_tab,omitempty" desc:"open it in a new tab and keep the current page"`
	WaitUntil      string  `json:"wait_until,omitempty" enum:"load|domcontentloaded|networkidle|commit" desc:"when the page counts as loaded (default load)"`
	TimeoutSeconds float64 `json:"timeout_seconds,omitempty" min:"1" max:"120" desc:"give up loading after this long (default: the host's navigation timeout)"`
	Profile        string  `json:"profile,omitempty" desc:"open the session on this browser profile (from browser_profile), keeping its cookies and storage; only when the session is not open yet"`
	SnapshotMode
}

func navigate(c *sdk.Call, in NavigateArgs) (*abi.Result, error) {
	if strings.TrimSpace(in.URL) == "" {
		return nil, abi.Errorf(abi.CodeInputInvalid, "url is empty: give the page to open, e.g. https://example.com")
	}
	r, err := sdk.BrowserNavigate(abi.BrowserNavigateRequest{URL: normalizeURL(in.URL), NewTab: in.NewTab, WaitUntil: in.WaitUntil, TimeoutMS: seconds(in.TimeoutSeconds), NoSnapshot: in.none(), Profile: in.Profile})
	if err != nil {
		return nil, err
	}
	return pageResult("Opened "+r.Page.URL, r.Page, r.State, r.Snapshot), nil
}

type HistoryArgs struct{ SnapshotMode }

func history(dir string, in HistoryArgs) (*abi.Result, error) {
	r, err := sdk.BrowserHistory(abi.BrowserHistoryRequest{Direction: dir, NoSnapshot: in.none()})
	if err != nil {
		return nil, err
	}
	if !r.Moved {
		return result(fmt.Sprintf("There is no page to go %s to in this tab; the page is unchanged.", dir), r.State, r.Snapshot), nil
	}
	return pageResult("Went "+dir+" to "+r.Page.URL, r.Page, r.State, r.Snapshot), nil
}

func back(c *sdk.Call, in HistoryArgs) (*abi.Result, error) { return history("back", in) }

func forward(c *sdk.Call, in HistoryArgs) (*abi.Result, error) { return history("forward", in) }

type TabsArgs struct {
	Action string `json:"action" enum:"list|open|select|close" desc:"what to do"`
	Index  *int   `json:"index,omitempty" min:"0" desc:"the tab's index from the list (select, close; close defaults to the current tab)"`
	URL    string `json:"url,omitempty" desc:"for open: the page to load in the new tab"`
}

func tabs(c *sdk.Call, in TabsArgs) (*abi.Result, error) {
	u := in.URL
	if u != "" {
		u = normalizeURL(u)
	}
	r, err := sdk.BrowserTabs(abi.BrowserTabsRequest{Action: in.Action, Index: in.Index, URL: u})
	if err != nil {
		return nil, err
	}
	text := map[string]string{"": "Tabs listed.", "list": "Tabs listed.", "open": "Opened a new tab.", "select": fmt.Sprintf("Selected tab %d.", r.State.Tab), "close": "Closed the tab."}[in.Action]
	res := result(text, r.State, r.Snapshot)
	if len(r.State.Tabs) == 1 {
		res.Text += "\nThis is the only tab."
	}
	res.Page = r.Page
	return withData(res, r.State.Tabs), nil
}
