package vault

import (
	"encoding/base32"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
)

// TOTP is a time-based one-time password seed (RFC 6238). Only what
// RFC 6238 and common authenticators support is accepted: SHA1, SHA256 or
// SHA512, 6 or 8 digits, a period of 1 to 300 seconds.
type TOTP struct {
	// Secret is the seed, base32 (upper case, no padding).
	Secret    Secret `json:"secret"`
	Algorithm string `json:"algorithm"` // SHA1 | SHA256 | SHA512
	Digits    int    `json:"digits"`
	Period    int    `json:"period"` // seconds
}

// ParseTOTP reads a seed given as base32 or as an otpauth://totp/ URI.
// Errors name what is wrong, never the seed.
func ParseTOTP(s string) (*TOTP, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("TOTP seed is empty")
	}
	t := &TOTP{Algorithm: "SHA1", Digits: 6, Period: 30}
	if strings.HasPrefix(strings.ToLower(s), "otpauth:") {
		u, err := url.Parse(s)
		if err != nil {
			return nil, errors.New("TOTP URI is not a valid otpauth:// URI")
		}
		if !strings.EqualFold(u.Scheme, "otpauth") {
			return nil, errors.New("TOTP URI must start with otpauth://")
		}
		if !strings.EqualFold(u.Host, "totp") {
			return nil, fmt.Errorf("TOTP URI type %q is not supported: only otpauth://totp/ (HOTP counters are not)", u.Host)
		}
		q := u.Query()
		for k := range q {
			switch strings.ToLower(k) {
			case "secret", "algorithm", "digits", "period", "issuer", "image":
			default:
				return nil, fmt.Errorf("TOTP URI parameter %q is not supported", k)
			}
		}
		s = q.Get("secret")
		if a := q.Get("algorithm"); a != "" {
			t.Algorithm = strings.ToUpper(a)
		}
		if d := q.Get("digits"); d != "" {
			n, err := strconv.Atoi(d)
			if err != nil {
				return nil, errors.New("TOTP URI digits is not a number")
			}
			t.Digits = n
		}
		if p := q.Get("period"); p != "" {
			n, err := strconv.Atoi(p)
			if err != nil {
				return nil, errors.New("TOTP URI period is not a number")
			}
			t.Period = n
		}
	}
	norm, err := normBase32(s)
	if err != nil {
		return nil, err
	}
	t.Secret = Secret(norm)
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return t, nil
}

// normBase32 upper-cases, drops spaces, dashes and padding, and checks the
// seed decodes.
func normBase32(s string) (string, error) {
	s = strings.ToUpper(strings.NewReplacer(" ", "", "-", "", "=", "").Replace(s))
	if s == "" {
		return "", errors.New("TOTP seed is empty")
	}
	b, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(s)
	if err != nil || len(b) == 0 {
		return "", errors.New("TOTP seed is not valid base32")
	}
	return s, nil
}

// Validate checks the parameters; anything else is refused when the
// credential is stored.
func (t *TOTP) Validate() error {
	switch t.Algorithm {
	case "SHA1", "SHA256", "SHA512":
	default:
		return fmt.Errorf("TOTP algorithm %q is not supported: use SHA1, SHA256 or SHA512", t.Algorithm)
	}
	if t.Digits != 6 && t.Digits != 8 {
		return fmt.Errorf("TOTP digits %d is not supported: use 6 or 8", t.Digits)
	}
	if t.Period < 1 || t.Period > 300 {
		return fmt.Errorf("TOTP period %d s is not supported: use 1 to 300 seconds", t.Period)
	}
	if _, err := normBase32(string(t.Secret)); err != nil {
		return err
	}
	return nil
}

// Code is the one-time code at time at.
func (t *TOTP) Code(at time.Time) (Secret, error) {
	if err := t.Validate(); err != nil {
		return "", err
	}
	alg := map[string]otp.Algorithm{"SHA1": otp.AlgorithmSHA1, "SHA256": otp.AlgorithmSHA256, "SHA512": otp.AlgorithmSHA512}[t.Algorithm]
	digits := otp.DigitsSix
	if t.Digits == 8 {
		digits = otp.DigitsEight
	}
	c, err := totp.GenerateCodeCustom(string(t.Secret), at, totp.ValidateOpts{Period: uint(t.Period), Digits: digits, Algorithm: alg})
	if err != nil {
		return "", errors.New("TOTP code could not be computed")
	}
	return Secret(c), nil
}

// LogValue logs a seed's parameters, never the seed.
func (t TOTP) LogValue() slog.Value {
	return slog.GroupValue(slog.String("algorithm", t.Algorithm), slog.Int("digits", t.Digits), slog.Int("period", t.Period))
}
