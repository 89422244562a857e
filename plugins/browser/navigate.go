package main

import (
	"fmt"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
	sdk "github.com/wasmwright/wasmwright/plugin-sdk"
)

// The tools of this file, each declared with its description, its
// arguments (their struct) and its handler below.
func init() {
	sdk.Tool("browser_navigate", descNavigate, navigate, sdk.Requires(act), sdk.Risk(abi.RiskNavigate))
	sdk.Tool("browser_back", descBack, back, sdk.Requires(act), sdk.Risk(abi.RiskNavigate))
	sdk.Tool("browser_forward", descForward, forward, sdk.Requires(act), sdk.Risk(abi.RiskNavigate))
	sdk.Tool("browser_tabs", descTabs, tabs, sdk.Requires(act), sdk.Risk(abi.RiskNavigate))
}

// Navigation: open a page, go back and forward, switch tabs.

const descNavigate = `Open a URL in the browser; the usual first call of any browsing task. Returns the page title, HTTP status and an accessibility snapshot of the loaded page: a YAML tree of roles and names where each interactive element carries a ref like [ref=e5]. Use those refs with browser_click, browser_type and the other tools.
Only http and https URLs are opened; a URL without a scheme gets https://. The session (cookies, tabs) lasts across calls until browser_close or an idle timeout. Set new_tab to keep the current page open. If the page is slow, raise timeout_seconds or use wait_until "domcontentloaded"; navigation_timeout means the page did not finish loading in time; unreachable means the host name does not resolve or nothing answers (check the URL); refused means the network policy does not allow the site. A bot-protection page (captcha, "checking your browser") fails with bot_wall instead of returning the page.`

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

const descBack = `Go back one page in the current tab's history, like the browser's Back button. Returns the page you land on with a fresh snapshot. Says so when there is no earlier page.`

const descForward = `Go forward one page in the current tab's history (after browser_back). Returns the page with a fresh snapshot.`

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

const descTabs = `List, open, select or close the session's tabs. action "list" shows every tab with its index, title and URL; "open" opens a new tab (at url, if given) and makes it current; "select" makes tab index current and returns its snapshot; "close" closes tab index (default: the current one). Links that open in a new tab are reported in other results under "new tab"; select them here to read them.`

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
