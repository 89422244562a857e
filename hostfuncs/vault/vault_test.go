package vault

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/capability"
	"github.com/wasmwright/wasmwright/hostfuncs"
)

const (
	testUser = "alice.user@example.org"
	testPass = "pa55-W0rd-very-secret"
	// base32 of "12345678901234567890", the RFC 6238 SHA1 seed.
	seedSHA1 = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
)

// TestRFC6238Vectors checks every test vector of RFC 6238 appendix B.
func TestRFC6238Vectors(t *testing.T) {
	seeds := map[string]string{
		"SHA1":   "12345678901234567890",
		"SHA256": "12345678901234567890123456789012",
		"SHA512": "1234567890123456789012345678901234567890123456789012345678901234",
	}
	vectors := []struct {
		unix int64
		alg  string
		code string
	}{
		{59, "SHA1", "94287082"}, {59, "SHA256", "46119246"}, {59, "SHA512", "90693936"},
		{1111111109, "SHA1", "07081804"}, {1111111109, "SHA256", "68084774"}, {1111111109, "SHA512", "25091201"},
		{1111111111, "SHA1", "14050471"}, {1111111111, "SHA256", "67062674"}, {1111111111, "SHA512", "99943326"},
		{1234567890, "SHA1", "89005924"}, {1234567890, "SHA256", "91819424"}, {1234567890, "SHA512", "93441116"},
		{2000000000, "SHA1", "69279037"}, {2000000000, "SHA256", "90698825"}, {2000000000, "SHA512", "38618901"},
		{20000000000, "SHA1", "65353130"}, {20000000000, "SHA256", "77737706"}, {20000000000, "SHA512", "47863826"},
	}
	for _, v := range vectors {
		uri := fmt.Sprintf("otpauth://totp/test?secret=%s&algorithm=%s&digits=8&period=30", b32(seeds[v.alg]), v.alg)
		tt, err := ParseTOTP(uri)
		if err != nil {
			t.Fatal(err)
		}
		got, err := tt.Code(time.Unix(v.unix, 0))
		if err != nil {
			t.Fatal(err)
		}
		if got.Reveal() != v.code {
			t.Errorf("%s at %d: got %s, want %s", v.alg, v.unix, got.Reveal(), v.code)
		}
	}
}

func b32(s string) string {
	const alpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	var out strings.Builder
	var buf, bits uint
	for i := 0; i < len(s); i++ {
		buf = buf<<8 | uint(s[i])
		bits += 8
		for bits >= 5 {
			out.WriteByte(alpha[(buf>>(bits-5))&31])
			bits -= 5
		}
	}
	if bits > 0 {
		out.WriteByte(alpha[(buf<<(5-bits))&31])
	}
	return out.String()
}

func TestTOTPRefusedWhenStored(t *testing.T) {
	for _, bad := range []string{
		"otpauth://totp/x?secret=" + seedSHA1 + "&algorithm=MD5",
		"otpauth://totp/x?secret=" + seedSHA1 + "&digits=7",
		"otpauth://totp/x?secret=" + seedSHA1 + "&period=0",
		"otpauth://totp/x?secret=" + seedSHA1 + "&period=301",
		"otpauth://hotp/x?secret=" + seedSHA1 + "&counter=1",
		"otpauth://totp/x?secret=" + seedSHA1 + "&counter=1",
		"not base32 at all!",
		"",
	} {
		if _, err := ParseTOTP(bad); err == nil {
			t.Errorf("ParseTOTP(%q) accepted", bad)
		} else if strings.Contains(err.Error(), seedSHA1) {
			t.Errorf("error quotes the seed: %v", err)
		}
	}
	for _, good := range []string{seedSHA1, strings.ToLower(seedSHA1), "gezd gnbv gy3t qojq gezd gnbv gy3t qojq",
		"otpauth://totp/Site:alice?secret=" + seedSHA1 + "&issuer=Site&algorithm=SHA512&digits=8&period=60",
		"otpauth://totp/x?secret=" + seedSHA1 + "&period=1", "otpauth://totp/x?secret=" + seedSHA1 + "&period=300"} {
		if _, err := ParseTOTP(good); err != nil {
			t.Errorf("ParseTOTP(%q): %v", good, err)
		}
	}
	c := Credential{Name: "x", Password: "p", TOTP: &TOTP{Secret: seedSHA1, Algorithm: "SHA1", Digits: 6, Period: 500}}
	if err := c.Validate(); err == nil {
		t.Error("a period of 500 s was stored")
	}
}

func TestOrigins(t *testing.T) {
	ok := map[string]string{
		"https://Example.org":      "https://example.org",
		"https://example.org:443":  "https://example.org",
		"https://example.org/":     "https://example.org",
		"https://example.org:8443": "https://example.org:8443",
		"http://127.0.0.1:8080":    "http://127.0.0.1:8080",
		"http://[::1]:9000":        "http://[::1]:9000",
		"http://localhost":         "http://localhost",
	}
	for in, want := range ok {
		got, err := NormalizeOrigin(in)
		if err != nil || got != want {
			t.Errorf("NormalizeOrigin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"http://example.org", "http://10.0.0.1", "ftp://example.org", "https://example.org/login",
		"https://u:p@example.org", "https://*.example.org", "example.org", "https://example.org?x=1"} {
		if _, err := NormalizeOrigin(bad); err == nil {
			t.Errorf("NormalizeOrigin(%q) accepted", bad)
		}
	}
	for in, want := range map[string]string{
		"https://example.org/a?b": "https://example.org", "http://127.0.0.1:80/x": "http://127.0.0.1",
		"about:blank": "null", "data:text/html,x": "null", "about:srcdoc": "null",
	} {
		if got := OriginOf(in); got != want {
			t.Errorf("OriginOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func newStore(t *testing.T) *Store {
	t.Helper()
	t.Setenv(PassphraseEnv, "")
	dir := t.TempDir()
	return Open(Options{File: filepath.Join(dir, "sub", "vault.age")})
}

func testCred(name string) Credential {
	tt, _ := ParseTOTP(seedSHA1)
	return Credential{Name: name, Username: testUser, Password: testPass, TOTP: tt,
		Policy: Policy{Origins: []string{"https://login.example.org"}, Personalities: []string{"default"}}}
}

func TestStoreEncryptedAtRest(t *testing.T) {
	s := newStore(t)
	if err := s.Put(testCred("site")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{s.opts.File, s.opts.KeyFile} {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", f, st.Mode().Perm())
		}
	}
	raw, _ := os.ReadFile(s.opts.File)
	if !bytes.HasPrefix(raw, []byte("age-encryption.org/v1")) {
		t.Errorf("vault is not an age file")
	}
	for _, v := range []string{testUser, testPass, seedSHA1, "site"} {
		if bytes.Contains(raw, []byte(v)) {
			t.Errorf("vault file holds %q in clear", v)
		}
	}
	// A second store (the host, after the CLI wrote) reads it.
	s2 := Open(Options{File: s.opts.File})
	c, ok, err := s2.Get("site")
	if err != nil || !ok || c.Password.Reveal() != testPass || c.Username.Reveal() != testUser {
		t.Fatalf("read back: ok=%v err=%v", ok, err)
	}
	// Without the key it fails, and says nothing of the content.
	os.Rename(s.opts.KeyFile, s.opts.KeyFile+".gone")
	_, _, err = Open(Options{File: s.opts.File}).Get("site")
	if !errors.Is(err, ErrNoKey) {
		t.Fatalf("without the key: %v", err)
	}
}

func TestStorePassphrase(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(PassphraseEnv, "correct horse battery staple")
	s := Open(Options{File: filepath.Join(dir, "v.age"), ScryptWorkFactor: 10})
	if err := s.Put(testCred("site")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.opts.KeyFile); !os.IsNotExist(err) {
		t.Errorf("a key file was created in passphrase mode")
	}
	raw, _ := os.ReadFile(s.opts.File)
	if !bytes.Contains(raw, []byte("scrypt")) {
		t.Errorf("vault not encrypted to a passphrase")
	}
	if c, ok, err := Open(Options{File: s.opts.File}).Get("site"); err != nil || !ok || c.Password.Reveal() != testPass {
		t.Fatalf("read back: %v %v", ok, err)
	}
	t.Setenv(PassphraseEnv, "wrong")
	if _, _, err := Open(Options{File: s.opts.File}).Get("site"); !errors.Is(err, ErrNoKey) {
		t.Fatalf("wrong passphrase: %v", err)
	}
}

func TestNeverFormatted(t *testing.T) {
	c := testCred("site")
	var logs bytes.Buffer
	lg := slog.New(slog.NewJSONHandler(&logs, nil))
	lg.Info("x", "cred", c, "pass", c.Password, "totp", c.TOTP)
	s := fmt.Sprintf("%v %+v %#v %s %q %v %+v %#v %s", c, c, c, c, c, c.Password, c.TOTP, *c.TOTP, c.Username) + logs.String()
	for _, v := range []string{testUser, testPass, seedSHA1} {
		if strings.Contains(s, v) {
			t.Fatalf("a value was formatted: %s", s)
		}
	}
}

// fakeBrowser is a page with fields; it records what was filled and what
// the secrets store held at that moment.
type fakeBrowser struct {
	top     string
	fields  map[string][2]string // ref -> origin, type
	secrets *hostfuncs.Secrets
	setErr  error
	moveAt  int // after this many Sets, the page moves to another origin
	sets    []string
	cleared []string
	clicks  []string
	enters  []string
	driving bool
	// secretsAtSet is how many values the session held when each Set ran.
	secretsAtSet []int
}

func (b *fakeBrowser) BeginFill(context.Context, *hostfuncs.Caller) (Fill, error) { return b, nil }
func (b *fakeBrowser) HumanDriving(string, string) bool                           { return b.driving }
func (b *fakeBrowser) TopOrigin() string                                          { return b.top }
func (b *fakeBrowser) Field(ref string) (string, string, error) {
	f, ok := b.fields[ref]
	if !ok {
		return "", "", abi.Errorf(abi.CodeStaleRef, "ref %s is not in the latest snapshot", ref)
	}
	return f[0], f[1], nil
}
func (b *fakeBrowser) FrameOrigin(ref string) string {
	if b.moveAt > 0 && len(b.sets) >= b.moveAt {
		return "https://evil.example"
	}
	return b.fields[ref][0]
}
func (b *fakeBrowser) Set(ref, value string) error {
	b.secretsAtSet = append(b.secretsAtSet, len(b.secrets.Values("default", "s1")))
	if b.setErr != nil {
		return fmt.Errorf("%w: locator.fill(%q) timed out", b.setErr, value)
	}
	b.sets = append(b.sets, ref+"="+value)
	if b.moveAt > 0 && len(b.sets) >= b.moveAt {
		b.top = "https://evil.example"
	}
	return nil
}
func (b *fakeBrowser) Clear(refs []string)         { b.cleared = append(b.cleared, refs...) }
func (b *fakeBrowser) Click(ref string) error      { b.clicks = append(b.clicks, ref); return nil }
func (b *fakeBrowser) PressEnter(ref string) error { b.enters = append(b.enters, ref); return nil }
func (b *fakeBrowser) Finish(bool) (abi.BrowserActResponse, error) {
	// A page that greets the user by name and shows the code in its title.
	return abi.BrowserActResponse{Snapshot: "- heading \"Welcome " + testUser + "\" [ref=e1]", State: abi.BrowserState{Title: "code " + b.lastValue()}}, nil
}
func (b *fakeBrowser) Close() {}
func (b *fakeBrowser) lastValue() string {
	if len(b.sets) == 0 {
		return ""
	}
	_, v, _ := strings.Cut(b.sets[len(b.sets)-1], "=")
	return v
}

func loginPage(secrets *hostfuncs.Secrets) *fakeBrowser {
	const o = "https://login.example.org"
	return &fakeBrowser{top: o, secrets: secrets, fields: map[string][2]string{
		"e1": {o, "email"}, "e2": {o, "password"}, "e3": {o, "text"}, "e4": {o, "element:button"},
		"e5": {"https://ads.example.net", "password"}, "e6": {o, "text"},
	}}
}

type harness struct {
	svc     *Service
	store   *Store
	b       *fakeBrowser
	secrets *hostfuncs.Secrets
	sink    *hostfuncs.MemorySink
	logs    *bytes.Buffer
}

func newHarness(t *testing.T) *harness {
	h := &harness{store: newStore(t), secrets: hostfuncs.NewSecrets(), sink: &hostfuncs.MemorySink{}, logs: &bytes.Buffer{}}
	if err := h.store.Put(testCred("site")); err != nil {
		t.Fatal(err)
	}
	h.b = loginPage(h.secrets)
	h.svc = NewService(h.store, ServiceOptions{
		Logger: slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})), Browser: h.b,
		AddSecret: h.secrets.Add, Emit: func(e hostfuncs.Event) { h.sink.Emit(e) },
		Now: func() time.Time { return time.Unix(1111111109, 0) },
	})
	return h
}

func (h *harness) call(ctx context.Context, personality string, req abi.VaultFillRequest) (abi.VaultFillResponse, *abi.Error) {
	c := hostfuncs.NewCaller(hostfuncs.CallerInfo{Personality: personality, Session: "s1", Plugin: "browser", Grants: capability.Set{capability.VaultFill: true}})
	fn := h.svc.HostFuncs()[0].Fn
	in, _ := json.Marshal(req)
	out, err := fn(hostfuncs.WithCaller(ctx, c), "browser", in)
	var resp abi.VaultFillResponse
	if err != nil {
		return resp, abi.AsError(err)
	}
	json.Unmarshal(out, &resp)
	return resp, nil
}

// noValues fails if any value reached the error, the events or the log.
func (h *harness) noValues(t *testing.T, extra ...string) {
	t.Helper()
	b, _ := json.Marshal(h.sink.Snapshot())
	all := string(b) + h.logs.String() + strings.Join(extra, "\n")
	code, _ := (&TOTP{Secret: seedSHA1, Algorithm: "SHA1", Digits: 6, Period: 30}).Code(time.Unix(1111111109, 0))
	for _, v := range []string{testUser, testPass, seedSHA1, code.Reveal()} {
		if strings.Contains(all, v) {
			t.Fatalf("value %q leaked into errors, events or logs:\n%s", v, all)
		}
	}
}

func TestFillRefusals(t *testing.T) {
	attended := WithHumanPresent(context.Background())
	tests := []struct {
		name        string
		ctx         context.Context
		personality string
		req         abi.VaultFillRequest
		setup       func(h *harness)
		outcome     string
		code        abi.Code
	}{
		{"not_found", attended, "default", abi.VaultFillRequest{Credential: "nope", PasswordRef: "e2"}, nil, abi.VaultNotFound, abi.CodeNotFound},
		{"refused_personality", attended, "reader", abi.VaultFillRequest{Credential: "site", PasswordRef: "e2"}, nil, abi.VaultRefusedPersonality, abi.CodeRefused},
		{"refused_unattended", context.Background(), "default", abi.VaultFillRequest{Credential: "site", PasswordRef: "e2"}, nil, abi.VaultRefusedUnattended, abi.CodeRefused},
		{"refused_origin top", attended, "default", abi.VaultFillRequest{Credential: "site", PasswordRef: "e2"},
			func(h *harness) { h.b.top = "https://login.example.org.evil.test" }, abi.VaultRefusedOrigin, abi.CodeRefused},
		{"refused_origin frame", attended, "default", abi.VaultFillRequest{Credential: "site", UsernameRef: "e1", PasswordRef: "e5"}, nil, abi.VaultRefusedOrigin, abi.CodeRefused},
		{"refused_field_type password", attended, "default", abi.VaultFillRequest{Credential: "site", UsernameRef: "e1", PasswordRef: "e3"}, nil, abi.VaultRefusedFieldType, abi.CodeRefused},
		{"refused_field_type username", attended, "default", abi.VaultFillRequest{Credential: "site", UsernameRef: "e4", PasswordRef: "e2"}, nil, abi.VaultRefusedFieldType, abi.CodeRefused},
		{"origin_changed", attended, "default", abi.VaultFillRequest{Credential: "site", UsernameRef: "e1", PasswordRef: "e2"},
			func(h *harness) { h.b.moveAt = 1 }, abi.VaultOriginChanged, abi.CodeRefused},
		{"error", attended, "default", abi.VaultFillRequest{Credential: "site", UsernameRef: "e1", PasswordRef: "e2"},
			func(h *harness) { h.b.setErr = errors.New("Timeout 5000ms exceeded") }, abi.VaultError, abi.CodeExecutionFailed},
		{"stale ref", attended, "default", abi.VaultFillRequest{Credential: "site", PasswordRef: "e99"}, nil, abi.VaultError, abi.CodeStaleRef},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			if tc.setup != nil {
				tc.setup(h)
			}
			_, e := h.call(tc.ctx, tc.personality, tc.req)
			if e == nil {
				t.Fatal("filled; want a refusal")
			}
			if e.Code != tc.code || e.Details["outcome"] != tc.outcome {
				t.Fatalf("got %s / %s (%s); want %s / %s", e.Code, e.Details["outcome"], e.Message, tc.code, tc.outcome)
			}
			ev := h.sink.Snapshot()
			if len(ev) != 1 || ev[0].Kind != "vault.fill" {
				t.Fatalf("want one vault.fill event, got %+v", ev)
			}
			var a audit
			json.Unmarshal(ev[0].Data, &a)
			if a.Outcome != tc.outcome || a.Credential != tc.req.Credential {
				t.Fatalf("audit %+v", a)
			}
			switch tc.outcome {
			case abi.VaultOriginChanged:
				if len(h.b.cleared) == 0 || h.b.cleared[0] != "e1" {
					t.Errorf("filled fields not cleared: %v", h.b.cleared)
				}
				if len(h.b.sets) != 1 {
					t.Errorf("kept filling after the page moved: %v", h.b.sets)
				}
			case abi.VaultError:
				// no extra checks: noValues covers the fixed message
			default:
				if len(h.b.sets) != 0 {
					t.Errorf("a refused fill set values: %v", h.b.sets)
				}
				if len(h.secrets.Values("default", "s1")) != 0 {
					t.Errorf("a refused fill resolved values into the secrets")
				}
			}
			h.noValues(t, e.Error(), fmt.Sprint(e.Details))
		})
	}
}

func TestFillSuccess(t *testing.T) {
	h := newHarness(t)
	// Unattended by policy, not by a human.
	if err := h.store.Update("site", func(c *Credential) error { c.Policy.Unattended = true; return nil }); err != nil {
		t.Fatal(err)
	}
	resp, e := h.call(context.Background(), "default", abi.VaultFillRequest{Credential: "site", UsernameRef: "e1", PasswordRef: "e2", TOTPRef: "e6", SubmitRef: "e4"})
	if e != nil {
		t.Fatal(e)
	}
	if strings.Join(resp.Filled, ",") != "username,password,totp" || resp.Origin != "https://login.example.org" || !resp.Submitted {
		t.Fatalf("resp %+v", resp)
	}
	want := []string{"e1=" + testUser, "e2=" + testPass, "e6=081804"}
	if strings.Join(h.b.sets, " ") != strings.Join(want, " ") {
		t.Fatalf("sets %v, want %v", h.b.sets, want)
	}
	// The secrets held the password and the code (not the username: the
	// policy does not say mask_username) before the first Set.
	if h.b.secretsAtSet[0] != 2 {
		t.Fatalf("secrets before the first fill: %d, want 2", h.b.secretsAtSet[0])
	}
	if len(h.b.clicks) != 1 || h.b.clicks[0] != "e4" {
		t.Fatalf("submit not clicked: %v", h.b.clicks)
	}
	out, _ := json.Marshal(resp)
	if !strings.Contains(string(out), "title\":\"code "+mask) {
		t.Errorf("echoed code not masked in the response: %s", out)
	}
	// The username the page greets with stays readable (the policy does
	// not mask it); nothing else of the credential is there.
	if !strings.Contains(string(out), "Welcome "+testUser) {
		t.Errorf("the username was masked in the response though the policy does not say so: %s", out)
	}
	h.noValues(t, strings.ReplaceAll(string(out), testUser, ""))
	var a audit
	json.Unmarshal(h.sink.Snapshot()[0].Data, &a)
	if a.Outcome != abi.VaultFilled || a.Origin != "https://login.example.org" || len(a.Fields) != 3 || a.Attended {
		t.Fatalf("audit %+v", a)
	}
}

func TestHumanDrivingCountsAsAttended(t *testing.T) {
	h := newHarness(t)
	h.b.driving = true
	if _, e := h.call(context.Background(), "default", abi.VaultFillRequest{Credential: "site", PasswordRef: "e2", Submit: true}); e != nil {
		t.Fatal(e)
	}
	if len(h.b.enters) != 1 || h.b.enters[0] != "e2" {
		t.Fatalf("Enter not pressed in the last field: %v", h.b.enters)
	}
}

func TestGrantCheckedAtCallTime(t *testing.T) {
	h := newHarness(t)
	c := hostfuncs.NewCaller(hostfuncs.CallerInfo{Personality: "default", Session: "s1", Plugin: "browser", Grants: capability.Set{capability.BrowserAct: true}})
	_, err := h.svc.HostFuncs()[0].Fn(hostfuncs.WithCaller(WithHumanPresent(context.Background()), c), "browser", []byte(`{"credential":"site","password_ref":"e2"}`))
	if e := abi.AsError(err); e == nil || e.Code != abi.CodeRefused || e.Details["missing"] != "vault.fill" {
		t.Fatalf("without the grant: %v", err)
	}
	if len(h.b.sets) != 0 {
		t.Fatal("filled without the grant")
	}
}

// TestMaskedKindsDecideSecrets: the credential's policy decides whether a
// filled username becomes a session secret (masked in results, hidden in
// captures); the password and TOTP code always do.
func TestMaskedKindsDecideSecrets(t *testing.T) {
	for _, maskUser := range []bool{false, true} {
		h := newHarness(t)
		h.store.Update("site", func(cr *Credential) error {
			cr.Policy.Unattended, cr.Policy.MaskUsername = true, maskUser
			return nil
		})
		if _, e := h.call(context.Background(), "default", abi.VaultFillRequest{Credential: "site", UsernameRef: "e1", PasswordRef: "e2", TOTPRef: "e6"}); e != nil {
			t.Fatal(e)
		}
		held := strings.Join(h.secrets.Values("default", "s1"), ",")
		if !strings.Contains(held, testPass) || !strings.Contains(held, "081804") {
			t.Errorf("mask_username=%v: the password or the TOTP code is not a secret: %q", maskUser, held)
		}
		if strings.Contains(held, testUser) != maskUser {
			t.Errorf("mask_username=%v: the secrets are %q", maskUser, held)
		}
	}
}

// With mask_username the fill's own response hides the username too.
func TestFillMasksUsernameByPolicy(t *testing.T) {
	h := newHarness(t)
	if err := h.store.Update("site", func(c *Credential) error { c.Policy.Unattended, c.Policy.MaskUsername = true, true; return nil }); err != nil {
		t.Fatal(err)
	}
	resp, e := h.call(context.Background(), "default", abi.VaultFillRequest{Credential: "site", UsernameRef: "e1", PasswordRef: "e2", SubmitRef: "e4"})
	if e != nil {
		t.Fatal(e)
	}
	out, _ := json.Marshal(resp)
	h.noValues(t, string(out))
	if !strings.Contains(string(out), "Welcome "+mask) {
		t.Errorf("the username is not masked: %s", out)
	}
}

// TestVaultNoConfigDir: with no [vault] file and no user config folder
// (neither XDG_CONFIG_HOME nor HOME) the store refuses every use
// (not_available, naming vault.file) instead of falling back to the
// shared temp folder.
func TestVaultNoConfigDir(t *testing.T) {
	t.Setenv("HOME", "")
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv(PassphraseEnv, "")
	if _, err := DefaultFile(); err == nil {
		t.Fatal("a default vault file without a config folder")
	}
	s := Open(Options{})
	if s.File() != "" || s.Err() == nil || !strings.Contains(s.Err().Error(), "vault.file") || abi.AsError(s.Err()).Code != abi.CodeNotAvailable {
		t.Fatalf("file %q, err %v", s.File(), s.Err())
	}
	if _, _, err := s.Get("site"); err != s.Err() {
		t.Fatalf("get: %v", err)
	}
	if err := s.Put(testCred("site")); err != s.Err() {
		t.Fatalf("put: %v", err)
	}
}

// TestVaultFolder: the default folder is made 0700 and refused once open
// to other users (with chmod 700); a folder the config names may be
// listable by others but not writable; the vault and key files are 0600.
func TestVaultFolder(t *testing.T) {
	t.Setenv(PassphraseEnv, "")
	cfgDir := filepath.Join(t.TempDir(), "config")
	t.Setenv("XDG_CONFIG_HOME", cfgDir)
	s := Open(Options{})
	if err := s.Put(testCred("site")); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cfgDir, "wasmwright")
	for f, mode := range map[string]os.FileMode{dir: 0o700, s.File(): 0o600, s.File() + ".key": 0o600} {
		if st, err := os.Stat(f); err != nil || st.Mode().Perm() != mode {
			t.Fatalf("%s: %v %v, want %#o", f, st.Mode(), err, mode)
		}
	}
	os.Chmod(dir, 0o750)
	if _, _, err := Open(Options{}).Get("site"); err == nil || !strings.Contains(err.Error(), "chmod 700 "+dir) {
		t.Fatalf("a default folder open to the group: %v", err)
	}

	named := t.TempDir()
	os.Chmod(named, 0o755)
	file := filepath.Join(named, "v.age")
	if err := Open(Options{File: file}).Put(testCred("site")); err != nil {
		t.Fatalf("a named folder others may list: %v", err)
	}
	os.Chmod(named, 0o777)
	if _, _, err := Open(Options{File: file}).Get("site"); err == nil || !strings.Contains(err.Error(), "chmod go-w "+named) {
		t.Fatalf("a named folder others may write in: %v", err)
	}
	os.Chmod(named, 0o755)
}

// TestOriginsIDN: an allowed origin written in Unicode is stored in
// punycode and matches the page's (punycode) origin; one stored in
// Unicode before origins were normalised matches too.
func TestOriginsIDN(t *testing.T) {
	if o, err := NormalizeOrigin("https://Bücher.example:443/"); err != nil || o != "https://xn--bcher-kva.example" {
		t.Fatalf("NormalizeOrigin: %q %v", o, err)
	}
	top := OriginOf("https://xn--bcher-kva.example/login")
	if !originAllowed([]string{"https://xn--bcher-kva.example"}, top) || !originAllowed([]string{"https://bücher.example"}, top) {
		t.Fatal("a Unicode origin does not match its punycode page")
	}
	if originAllowed([]string{"https://bücher.example"}, "null") || originAllowed([]string{"https://bücher.example"}, "http://xn--bcher-kva.example") {
		t.Fatal("widened")
	}
}
