package vault

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/sandbox"
)

// Browser is what a fill needs from the browser service.
type Browser interface {
	// BeginFill locks the caller's session for the whole fill, so no other
	// call acts on the page between the checks and the fill.
	BeginFill(ctx context.Context, c *hostfuncs.Caller) (Fill, error)
	// HumanDriving reports whether a human has taken over the session.
	HumanDriving(personality, session string) bool
}

// Fill is one fill in progress on the current tab of a session.
type Fill interface {
	// TopOrigin is the origin of the tab's top-level document.
	TopOrigin() string
	// Field resolves a ref of the latest snapshot to the origin of the
	// frame owning it and its input type ("password", "text"...; for an
	// element that is not an <input>, "element:" and its tag name).
	Field(ref string) (frameOrigin, inputType string, err error)
	// FrameOrigin re-reads the origin of the frame owning ref, as resolved
	// by Field (the page may have moved since).
	FrameOrigin(ref string) string
	// Set fills ref with value. It never logs the value; its error is
	// replaced by a fixed message anyway.
	Set(ref, value string) error
	// Clear empties the fields, best effort.
	Clear(refs []string)
	// Click clicks ref; PressEnter presses Enter in ref.
	Click(ref string) error
	PressEnter(ref string) error
	// Finish waits for a navigation the fill started and takes the
	// snapshot (unless noSnapshot).
	Finish(noSnapshot bool) (abi.BrowserActResponse, error)
	// Close unlocks the session.
	Close()
}

type humanKey struct{}

// WithHumanPresent marks ctx as a call a human is present for: a person at
// the CLI, or at the web console's live view. A front-end sets it only
// when it knows a person is there; without it (an agent over MCP, a
// script), the call is unattended and only credentials whose policy says
// unattended = true are filled. A session a human has taken over
// (browser takeover) counts as attended too.
func WithHumanPresent(ctx context.Context) context.Context {
	return context.WithValue(ctx, humanKey{}, true)
}

// HumanPresent reports whether ctx was marked by WithHumanPresent.
func HumanPresent(ctx context.Context) bool {
	v, _ := ctx.Value(humanKey{}).(bool)
	return v
}

// ServiceOptions wire the vault service into a host.
type ServiceOptions struct {
	Logger *slog.Logger
	// Browser resolves and fills fields; nil: every fill fails with
	// not_available.
	Browser Browser
	// AddSecret records a value the session must never show (the host's
	// hostfuncs.Secrets.Add). It is called before the value is filled.
	AddSecret func(personality, session, value string)
	// Emit writes the audit event of every fill.
	Emit func(hostfuncs.Event)
	// Now is the clock for TOTP codes (tests).
	Now func() time.Time
}

// Service offers ww_vault_fill.
type Service struct {
	store *Store
	opts  ServiceOptions
	log   *slog.Logger
}

// NewService returns the vault service over store.
func NewService(store *Store, o ServiceOptions) *Service {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.AddSecret == nil {
		o.AddSecret = func(string, string, string) {}
	}
	if o.Emit == nil {
		o.Emit = func(hostfuncs.Event) {}
	}
	return &Service{store: store, opts: o, log: o.Logger.With("service", "vault")}
}

// Store returns the service's store.
func (s *Service) Store() *Store { return s.store }

// HostFuncs returns ww_vault_fill, guarded by vault.fill.
func (s *Service) HostFuncs() []sandbox.HostFunc {
	return []sandbox.HostFunc{hostfuncs.JSON(abi.HostVaultFill, s.fill)}
}

// CloseSession holds nothing per session: the values a session saw live in
// the host's secrets store.
func (s *Service) CloseSession(personality, session string) error { return nil }

// Close frees nothing.
func (s *Service) Close(context.Context) error { return nil }

// Fixed messages, one per outcome: they name the credential and origins at
// most, never a value, and say what to do next.
func refusal(outcome string, code abi.Code, msg string) *abi.Error {
	return (&abi.Error{Code: code, Message: msg}).With("outcome", outcome)
}

// errFixed is the one message of a fill that failed after values were in
// play: a driver error could quote what was typed, so it is never shown.
func errFixed() *abi.Error {
	return refusal(abi.VaultError, abi.CodeExecutionFailed,
		"the credential fill failed in the browser (the page may have changed or timed out); no value was shown: take a new snapshot and retry")
}

// audit is the one event of a fill: names, origins, outcome. No value.
type audit struct {
	Credential   string   `json:"credential"`
	Outcome      string   `json:"outcome"`
	Origin       string   `json:"origin,omitempty"`
	FrameOrigins []string `json:"frame_origins,omitempty"`
	Fields       []string `json:"fields,omitempty"`
	Submitted    bool     `json:"submitted,omitempty"`
	Attended     bool     `json:"attended"`
	// Code is the error code returned, when the outcome is not filled.
	Code string `json:"code,omitempty"`
}

// fill is ww_vault_fill. The checks run in a fixed order, each with its
// own outcome: not_found, refused_personality, refused_unattended,
// refused_origin, refused_field_type, then the fill (origin_changed when
// the page moved during it, error when the browser failed). Values are
// read from the credential only after every check passed.
func (s *Service) fill(ctx context.Context, c *hostfuncs.Caller, req abi.VaultFillRequest) (resp abi.VaultFillResponse, err error) {
	session := c.Session()
	if session == "" {
		session = "default"
	}
	ev := audit{Credential: req.Credential, Outcome: abi.VaultError}
	defer func() { s.audit(c, session, &ev, err) }()

	fields, err := requestedFields(req)
	if err != nil {
		return resp, err
	}
	cred, err := s.checkPolicy(ctx, c, session, req, &ev)
	if err != nil {
		return resp, err
	}
	if s.opts.Browser == nil {
		return resp, refusal(abi.VaultError, abi.CodeNotAvailable, "this host has no browser to fill credentials into")
	}
	fill, berr := s.opts.Browser.BeginFill(ctx, c)
	if berr != nil {
		// No value is in play yet: the browser's error (no_session, a
		// dialog is open...) is safe and says what to do.
		return resp, withOutcome(berr, abi.VaultError)
	}
	defer fill.Close()

	top := fill.TopOrigin()
	ev.Origin = top
	todo, err := checkFields(fill, cred, top, fields, req.SubmitRef, &ev)
	if err != nil {
		return resp, err
	}

	// Every check passed: resolve the values, record the MaskedKinds among
	// them as the session's secrets, then fill.
	values, err := s.values(cred, req)
	if err != nil {
		return resp, err
	}
	masked := MaskedKinds(cred.Policy)
	s.addSecrets(c.Personality(), session, todo, values, masked)
	filled, lastRef, err := setFields(fill, top, todo, values)
	if err != nil {
		return resp, err
	}
	ev.Fields = filled
	switch {
	case req.SubmitRef != "":
		if serr := fill.Click(req.SubmitRef); serr != nil {
			return resp, errFixed()
		}
		resp.Submitted = true
	case req.Submit:
		if serr := fill.PressEnter(lastRef); serr != nil {
			return resp, errFixed()
		}
		resp.Submitted = true
	}
	ev.Submitted = resp.Submitted
	out, ferr := fill.Finish(req.NoSnapshot)
	if ferr != nil {
		return resp, errFixed()
	}
	resp.State, resp.Snapshot, resp.Navigated, resp.Page = out.State, out.Snapshot, out.Navigated, out.Page
	resp.Filled, resp.Origin = filled, top
	scrubResponse(&resp, values, masked)
	return resp, nil
}

// audit emits the fill's event and log line once it is over: the outcome
// err carries (filled when nil).
func (s *Service) audit(c *hostfuncs.Caller, session string, ev *audit, err error) {
	if err != nil {
		e := abi.AsError(err)
		if o := e.Details["outcome"]; o != "" {
			ev.Outcome = o
		}
		ev.Code = string(e.Code)
	} else {
		ev.Outcome = abi.VaultFilled
	}
	data, _ := json.Marshal(ev)
	s.opts.Emit(hostfuncs.Event{Time: time.Now().UTC(), Kind: "vault.fill", Personality: c.Personality(), Session: session, Plugin: c.Plugin(), Data: data})
	s.log.Info("credential fill", "credential", ev.Credential, "outcome", ev.Outcome, "origin", ev.Origin, "personality", c.Personality(), "session", session)
}

// fieldRef is a field the request names: which value goes to which ref.
type fieldRef struct{ name, ref string }

// requestedFields checks the request's shape: a valid credential name and
// at least one field to fill. It returns the fields in fill order, unnamed
// ones included (ref "").
func requestedFields(req abi.VaultFillRequest) ([]fieldRef, error) {
	if err := ValidName(req.Credential); err != nil {
		return nil, abi.Errorf(abi.CodeInputInvalid, "%v", err).With("outcome", abi.VaultError)
	}
	fields := []fieldRef{{"username", req.UsernameRef}, {"password", req.PasswordRef}, {"totp", req.TOTPRef}}
	var some bool
	for _, f := range fields {
		some = some || f.ref != ""
	}
	if !some {
		return nil, abi.Errorf(abi.CodeInputInvalid, "name at least one field to fill: username_ref, password_ref or totp_ref, refs from the latest snapshot").With("outcome", abi.VaultError)
	}
	return fields, nil
}

// checkPolicy runs the checks that need no page, in order: 1. not_found,
// 2. refused_personality, 3. refused_unattended (recording in ev whether
// the call is attended), then that a TOTP asked for exists.
func (s *Service) checkPolicy(ctx context.Context, c *hostfuncs.Caller, session string, req abi.VaultFillRequest, ev *audit) (Credential, error) {
	cred, ok, lerr := s.store.Get(req.Credential)
	if lerr != nil {
		s.log.Warn("vault unreadable", "err", lerr)
		return cred, refusal(abi.VaultError, abi.CodeNotAvailable, "the credential vault cannot be read on this host: ask its operator to check the [vault] configuration")
	}
	if !ok {
		return cred, refusal(abi.VaultNotFound, abi.CodeNotFound, "no credential named "+req.Credential+" in the vault: ask the operator for the credential name to use (wasmwright secrets list)")
	}
	if !contains(cred.Policy.Personalities, c.Personality()) {
		return cred, refusal(abi.VaultRefusedPersonality, abi.CodeRefused, "credential "+cred.Name+" may not be filled by personality "+c.Personality()+": the operator can allow it with wasmwright secrets grant")
	}
	ev.Attended = HumanPresent(ctx) || (s.opts.Browser != nil && s.opts.Browser.HumanDriving(c.Personality(), session))
	if !ev.Attended && !cred.Policy.Unattended {
		next := "ask the user to open the operator console (a connected operator makes calls attended), or the operator to allow unattended use (wasmwright secrets grant " + cred.Name + " --unattended)"
		if c.Takeover() {
			next = "call browser_request_takeover so a human logs in, or " + next
		}
		return cred, refusal(abi.VaultRefusedUnattended, abi.CodeRefused, "credential "+cred.Name+" may be filled only with a human present, and this call is unattended: "+next)
	}
	if req.TOTPRef != "" && cred.TOTP == nil {
		return cred, abi.Errorf(abi.CodeInputInvalid, "credential %s has no TOTP seed: leave totp_ref out", cred.Name).With("outcome", abi.VaultError)
	}
	return cred, nil
}

// pageField is a field resolved on the page: the origin of its frame and
// its input type ("" for the submit button).
type pageField struct{ name, ref, origin, typ string }

// checkFields runs the checks on the page: 4. refused_origin, the
// top-level page's, then the frame of each field (and of submitRef), whose
// origins it records in ev; 5. refused_field_type. It returns the fields
// to fill, then the submit button when there is one.
func checkFields(fill Fill, cred Credential, top string, fields []fieldRef, submitRef string, ev *audit) ([]pageField, error) {
	if !originAllowed(cred.Policy.Origins, top) {
		return nil, refusal(abi.VaultRefusedOrigin, abi.CodeRefused, "credential "+cred.Name+" may not be filled on "+top+": it is allowed on "+orList(cred.Policy.Origins))
	}
	var todo []pageField
	for _, f := range fields {
		if f.ref == "" {
			continue
		}
		origin, typ, ferr := fill.Field(f.ref)
		if ferr != nil {
			return nil, withOutcome(ferr, abi.VaultError)
		}
		todo = append(todo, pageField{f.name, f.ref, origin, typ})
		ev.FrameOrigins = appendUnique(ev.FrameOrigins, origin)
	}
	if submitRef != "" {
		origin, _, ferr := fill.Field(submitRef)
		if ferr != nil {
			return nil, withOutcome(ferr, abi.VaultError)
		}
		todo = append(todo, pageField{"submit", submitRef, origin, ""})
		ev.FrameOrigins = appendUnique(ev.FrameOrigins, origin)
	}
	for _, f := range todo {
		if !originAllowed(cred.Policy.Origins, f.origin) {
			return nil, refusal(abi.VaultRefusedOrigin, abi.CodeRefused, "the "+f.name+" field "+f.ref+" is in a frame of "+f.origin+", where credential "+cred.Name+" may not be filled (allowed: "+orList(cred.Policy.Origins)+")")
		}
	}
	for _, f := range todo {
		if msg := fieldTypeProblem(f.name, f.ref, f.typ); msg != "" {
			return nil, refusal(abi.VaultRefusedFieldType, abi.CodeRefused, msg)
		}
	}
	return todo, nil
}

// values are the credential's values by field name, with the current TOTP
// code when the request fills one.
func (s *Service) values(cred Credential, req abi.VaultFillRequest) (map[string]Secret, error) {
	values := map[string]Secret{"username": cred.Username, "password": cred.Password}
	if req.TOTPRef != "" {
		code, terr := cred.TOTP.Code(s.opts.Now())
		if terr != nil {
			return nil, errFixed()
		}
		values["totp"] = code
	}
	return values, nil
}

// addSecrets records, before any value reaches the page, the masked
// values to be filled as the session's secrets.
func (s *Service) addSecrets(personality, session string, todo []pageField, values map[string]Secret, masked map[string]bool) {
	for _, f := range todo {
		if f.name == "submit" {
			continue
		}
		if v := values[f.name]; v != "" && masked[f.name] {
			s.opts.AddSecret(personality, session, v.Reveal())
		}
	}
}

// setFields fills the fields in order, checking before each and after the
// last that the page and every field's frame are still where the checks
// saw them; if not, or when a field cannot be set, it clears what it
// filled. It returns the names of the fields filled and the last ref.
func setFields(fill Fill, top string, todo []pageField, values map[string]Secret) (filled []string, lastRef string, err error) {
	moved := func() bool {
		if fill.TopOrigin() != top {
			return true
		}
		for _, f := range todo {
			if fill.FrameOrigin(f.ref) != f.origin {
				return true
			}
		}
		return false
	}
	var refs []string
	for _, f := range todo {
		if f.name == "submit" {
			continue
		}
		if moved() {
			fill.Clear(refs)
			return nil, "", refusal(abi.VaultOriginChanged, abi.CodeRefused, "the page moved away from "+top+" during the fill; the filled fields were cleared: take a new snapshot and retry")
		}
		if serr := fill.Set(f.ref, values[f.name].Reveal()); serr != nil {
			fill.Clear(append(refs, f.ref))
			return nil, "", errFixed()
		}
		refs = append(refs, f.ref)
		filled = append(filled, f.name)
		lastRef = f.ref
	}
	if moved() {
		fill.Clear(refs)
		return nil, "", refusal(abi.VaultOriginChanged, abi.CodeRefused, "the page moved away from "+top+" during the fill; the filled fields were cleared: take a new snapshot and retry")
	}
	return filled, lastRef, nil
}

// fieldTypeProblem checks that each value goes into a field meant for it:
// the password into an <input type=password>, the username and code into
// a text-like input.
func fieldTypeProblem(name, ref, typ string) string {
	switch name {
	case "password":
		if typ != "password" {
			return "password_ref " + ref + " is not a password input (it is " + describeType(typ) + "): a password is filled only into an input of type password; pick the password field from the snapshot"
		}
	case "username":
		switch typ {
		case "text", "email", "tel", "":
		default:
			return "username_ref " + ref + " is not a text input (it is " + describeType(typ) + "): pick the username or email field from the snapshot"
		}
	case "totp":
		switch typ {
		case "text", "tel", "number", "password", "":
		default:
			return "totp_ref " + ref + " is not a text input (it is " + describeType(typ) + "): pick the one-time code field from the snapshot"
		}
	}
	return ""
}

func describeType(typ string) string {
	if t, ok := strings.CutPrefix(typ, "element:"); ok {
		return "a <" + t + "> element"
	}
	return "an input of type " + typ
}

// withOutcome tags an error that carries no value with an outcome.
func withOutcome(err error, outcome string) error {
	e := abi.AsError(err)
	if e.Details["outcome"] != "" {
		return e
	}
	return e.With("outcome", outcome)
}

// scrubResponse replaces any filled value of a masked kind left in what
// goes back to the plugin (a code in a title, a page that echoes the
// password) by the mask. The browser already redacts password inputs; this
// covers the rest, so the response itself never carries a secret, masker
// or not. A username the policy does not mask stays readable, as it does
// in every later result.
func scrubResponse(r *abi.VaultFillResponse, values map[string]Secret, masked map[string]bool) {
	var vs []string
	for kind, v := range values {
		if len(v) >= 2 && masked[kind] {
			vs = append(vs, v.Reveal())
		}
	}
	// Longest first, so a value containing another is replaced whole.
	for i := 1; i < len(vs); i++ {
		for j := i; j > 0 && len(vs[j]) > len(vs[j-1]); j-- {
			vs[j], vs[j-1] = vs[j-1], vs[j]
		}
	}
	sc := func(p *string) {
		for _, v := range vs {
			*p = strings.ReplaceAll(*p, v, mask)
		}
	}
	sc(&r.Snapshot)
	st := &r.State
	sc(&st.URL)
	sc(&st.Title)
	for i := range st.Warnings {
		sc(&st.Warnings[i])
	}
	for _, tabs := range [][]abi.BrowserTab{st.Tabs, st.NewTabs} {
		for i := range tabs {
			sc(&tabs[i].URL)
			sc(&tabs[i].Title)
		}
	}
	if st.Dialog != nil {
		sc(&st.Dialog.Message)
		sc(&st.Dialog.DefaultValue)
	}
	if p := r.Page; p != nil {
		sc(&p.URL)
		sc(&p.Title)
		sc(&p.Text)
		sc(&p.HTML)
		for k, v := range p.Headers {
			sc(&v)
			p.Headers[k] = v
		}
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func appendUnique(s []string, v string) []string {
	if contains(s, v) {
		return s
	}
	return append(s, v)
}

func orList(s []string) string {
	if len(s) == 0 {
		return "no origin yet (the operator adds one with wasmwright secrets grant)"
	}
	return strings.Join(s, ", ")
}
