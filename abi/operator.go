package abi

// HostTakeoverRequest hands the caller's browser session to a human
// operator and blocks until the takeover settles (hand-back, cancel,
// timeout, or the session closing). Grant: takeover.
const HostTakeoverRequest = "ww_takeover_request"

// TakeoverRequest asks HostTakeoverRequest for a human.
type TakeoverRequest struct {
	// Reason is shown to the operator verbatim; required.
	Reason string `json:"reason"`
	// TimeoutS is how long to wait for the hand-back; 0 means the default
	// (TakeoverDefaultS). The host clamps it to 1..TakeoverMaxS.
	TimeoutS int `json:"timeout_s,omitempty"`
}

// Takeover limits, in seconds.
const (
	TakeoverDefaultS = 900
	TakeoverMaxS     = 86400
)

// Takeover outcomes.
const (
	TakeoverUser   = "user"   // the operator handed the browser back
	TakeoverCancel = "cancel" // the operator cancelled the takeover
)

// TakeoverResponse answers HostTakeoverRequest once the takeover settled
// with the operator's answer (a timeout or a closed session is an error).
type TakeoverResponse struct {
	HandedBack bool   `json:"handed_back"`
	Outcome    string `json:"outcome"`
	URL        string `json:"url,omitempty"`
}

// Risk labels a tool by the worst thing it can do; personalities set an
// approval mode per risk. A tool declares it in ToolSpec.Risk; the host
// defaults it from the capabilities the tool needs.
type Risk string

const (
	RiskRead       Risk = "read"       // reads pages or data, changes nothing
	RiskNavigate   Risk = "navigate"   // loads another page
	RiskAct        Risk = "act"        // clicks, types, changes page state
	RiskEval       Risk = "eval"       // runs arbitrary script in the page
	RiskCredential Risk = "credential" // fills stored secrets
	RiskUpload     Risk = "upload"     // sends local files to a page
	RiskDownload   Risk = "download"   // writes files from the web to disk
)

// risks lists every risk label, mildest first. Unexported: approval
// decisions hang on it; Risks returns a copy.
var risks = [...]Risk{RiskRead, RiskNavigate, RiskAct, RiskEval, RiskCredential, RiskUpload, RiskDownload}

// Risks lists every risk label, mildest first (a fresh copy).
func Risks() []Risk { return append([]Risk(nil), risks[:]...) }

// Valid reports whether r is one of Risks.
func (r Risk) Valid() bool {
	for _, x := range risks {
		if r == x {
			return true
		}
	}
	return false
}
