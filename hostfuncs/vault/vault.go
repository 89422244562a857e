// Package vault is the kernel's credential store and the ww_vault_fill host
// function. Credentials (username, password, optional TOTP seed) are kept
// encrypted at rest with age, either to an X25519 identity in a key file
// (created on first use, mode 0600) or to a passphrase (scrypt) read from
// WASMWRIGHT_VAULT_PASSPHRASE. Each credential carries its policy: the
// origins it may be filled into, the personalities that may fill it, and
// whether an unattended agent may.
//
// Plugins pass names and refs, never values. Values are resolved inside the
// host, only after every policy check passed, and go straight into the
// browser; they are added to the session's secrets first, so masking starts
// at once. The vault never formats a secret into an error or a log line:
// secret fields have the type Secret, which prints as a mask.
package vault

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"filippo.io/age"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/privatedir"
)

// PassphraseEnv names the environment variable holding the vault
// passphrase. When it is set, the vault is encrypted to the passphrase
// (scrypt) instead of the key file.
const PassphraseEnv = "WASMWRIGHT_VAULT_PASSPHRASE"

// Options locate the vault and its key.
type Options struct {
	// File is the encrypted vault.
	File string
	// KeyFile holds the age X25519 identity; created on first write when
	// missing. Default: File + ".key".
	KeyFile string
	// Passphrase, when set, encrypts the vault with scrypt instead of the
	// key file. Default: $WASMWRIGHT_VAULT_PASSPHRASE.
	Passphrase string
	// ScryptWorkFactor overrides age's default (18), for tests.
	ScryptWorkFactor int
}

// Store is the encrypted vault file. Reads are cached until the file
// changes, so a host sees what the CLI writes without paying scrypt on
// every fill. It is safe for concurrent use.
type Store struct {
	opts Options
	err  error // from Open: the store cannot be used
	// defaultDir: the vault is in its default folder, which holds
	// nothing else and so must be private.
	defaultDir bool

	mu    sync.Mutex
	stamp fileStamp
	cache map[string]Credential
}

type fileStamp struct {
	mod  time.Time
	size int64
}

type fileData struct {
	Version     int                   `json:"version"`
	Credentials map[string]Credential `json:"credentials"`
}

// DefaultFile is the vault used when the config names none:
// <user config dir>/wasmwright/vault.age. Without a user config folder it
// is an error (not_available) naming the key to set: the vault is never
// kept in the system temp folder, which every user shares.
func DefaultFile() (string, error) {
	d, err := os.UserConfigDir()
	if err != nil {
		return "", abi.Errorf(abi.CodeNotAvailable, "no place for the credential vault: %v, and the vault is never kept in the shared temp folder: set file in the config's [vault] table (vault.file), or HOME", err)
	}
	return filepath.Join(d, "wasmwright", "vault.age"), nil
}

// Open returns the store; nothing is read until it is used. Without a
// File and a user config folder, every use fails with DefaultFile's error
// (Err reports it).
func Open(o Options) *Store {
	var err error
	defaultDir := o.File == ""
	if defaultDir {
		o.File, err = DefaultFile()
	}
	if o.KeyFile == "" && o.File != "" {
		o.KeyFile = o.File + ".key"
	}
	if o.Passphrase == "" {
		o.Passphrase = os.Getenv(PassphraseEnv)
	}
	return &Store{opts: o, err: err, defaultDir: defaultDir}
}

// Err is why the store cannot be used at all (no place for the vault),
// nil when it can.
func (s *Store) Err() error { return s.err }

// File is the vault's path.
func (s *Store) File() string { return s.opts.File }

// folder refuses the folder of the vault or of its key file when it is
// not the user's (internal/privatedir): the default folder must be
// private, one the config named must not be writable by others (it may
// be the config's own folder; the files are 0600). create makes it when
// missing, mode 0700.
func (s *Store) folder(what, file string, create bool) error {
	dir := filepath.Dir(file)
	level := privatedir.Unwritable
	if s.defaultDir && dir == filepath.Dir(s.opts.File) {
		level = privatedir.Private
	}
	check := privatedir.Check
	if create {
		check = privatedir.Ensure
	}
	if err := check(dir, level); err != nil {
		return abi.Errorf(abi.CodeNotAvailable, "%s folder: %v (or set the [vault] table's file and key_file in a folder of your own)", what, err)
	}
	return nil
}

// ErrNoKey means the vault exists but its key is missing or wrong.
var ErrNoKey = errors.New("the vault cannot be decrypted with the configured key")

func (s *Store) identities() ([]age.Identity, error) {
	var ids []age.Identity
	if s.opts.Passphrase != "" {
		id, err := age.NewScryptIdentity(s.opts.Passphrase)
		if err != nil {
			return nil, errors.New("vault passphrase refused by age")
		}
		ids = append(ids, id)
	}
	if err := s.folder("vault key", s.opts.KeyFile, false); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(s.opts.KeyFile)
	switch {
	case err == nil:
		keys, err := age.ParseIdentities(bytes.NewReader(b))
		if err != nil {
			// age's parse errors do not quote the line.
			return nil, fmt.Errorf("vault key file %s: %v", s.opts.KeyFile, err)
		}
		ids = append(ids, keys...)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("vault key file: %w", err)
	}
	return ids, nil
}

// load returns every credential, decrypting only when the file changed.
// Caller holds s.mu.
func (s *Store) load() (map[string]Credential, error) {
	if s.err != nil {
		return nil, s.err
	}
	if err := s.folder("vault", s.opts.File, false); err != nil {
		return nil, err
	}
	st, err := os.Stat(s.opts.File)
	if errors.Is(err, fs.ErrNotExist) {
		s.cache, s.stamp = map[string]Credential{}, fileStamp{}
		return s.cache, nil
	}
	if err != nil {
		return nil, fmt.Errorf("vault: %w", err)
	}
	stamp := fileStamp{st.ModTime(), st.Size()}
	if s.cache != nil && stamp == s.stamp {
		return s.cache, nil
	}
	f, err := os.Open(s.opts.File)
	if err != nil {
		return nil, fmt.Errorf("vault: %w", err)
	}
	defer f.Close()
	ids, err := s.identities()
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("%w: no key file at %s and %s is not set", ErrNoKey, s.opts.KeyFile, PassphraseEnv)
	}
	r, err := age.Decrypt(f, ids...)
	if err != nil {
		return nil, fmt.Errorf("%w (%s): check %s or the key file %s", ErrNoKey, s.opts.File, PassphraseEnv, s.opts.KeyFile)
	}
	var d fileData
	if err := json.NewDecoder(io.LimitReader(r, 16<<20)).Decode(&d); err != nil {
		// json errors may quote a token of the plaintext: never show them.
		return nil, fmt.Errorf("vault %s: the decrypted content is not a vault", s.opts.File)
	}
	if d.Credentials == nil {
		d.Credentials = map[string]Credential{}
	}
	s.cache, s.stamp = d.Credentials, stamp
	return s.cache, nil
}

// recipient returns who the vault is encrypted to, creating the key file
// when it is the one used and missing.
func (s *Store) recipient() (age.Recipient, error) {
	if s.opts.Passphrase != "" {
		r, err := age.NewScryptRecipient(s.opts.Passphrase)
		if err != nil {
			return nil, errors.New("vault passphrase refused by age")
		}
		if s.opts.ScryptWorkFactor > 0 {
			r.SetWorkFactor(s.opts.ScryptWorkFactor)
		}
		return r, nil
	}
	if err := s.folder("vault key", s.opts.KeyFile, true); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(s.opts.KeyFile)
	if errors.Is(err, fs.ErrNotExist) {
		id, err := age.GenerateX25519Identity()
		if err != nil {
			return nil, err
		}
		text := fmt.Sprintf("# wasmwright vault key, created %s\n# public key: %s\n%s\n", time.Now().UTC().Format(time.RFC3339), id.Recipient(), id)
		f, err := os.OpenFile(s.opts.KeyFile, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, fmt.Errorf("vault key file: %w", err)
		}
		if _, err := f.WriteString(text); err != nil {
			f.Close()
			return nil, fmt.Errorf("vault key file: %w", err)
		}
		if err := f.Close(); err != nil {
			return nil, fmt.Errorf("vault key file: %w", err)
		}
		return id.Recipient(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("vault key file: %w", err)
	}
	ids, err := age.ParseIdentities(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("vault key file %s: %v", s.opts.KeyFile, err)
	}
	x, ok := ids[0].(*age.X25519Identity)
	if !ok {
		return nil, fmt.Errorf("vault key file %s: not an age X25519 identity", s.opts.KeyFile)
	}
	return x.Recipient(), nil
}

// save encrypts m to the vault file atomically, mode 0600. Caller holds s.mu.
func (s *Store) save(m map[string]Credential) error {
	rcp, err := s.recipient()
	if err != nil {
		return err
	}
	plain, err := json.Marshal(fileData{Version: 1, Credentials: m})
	if err != nil {
		return fmt.Errorf("vault: encoding failed")
	}
	defer clear(plain)
	dir := filepath.Dir(s.opts.File)
	if err := s.folder("vault", s.opts.File, true); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".vault-*.tmp")
	if err != nil {
		return fmt.Errorf("vault: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("vault: %w", err)
	}
	w, err := age.Encrypt(tmp, rcp)
	if err == nil {
		_, err = w.Write(plain)
	}
	if err == nil {
		err = w.Close()
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("vault: writing %s: %w", s.opts.File, err)
	}
	if err := os.Rename(tmp.Name(), s.opts.File); err != nil {
		return fmt.Errorf("vault: %w", err)
	}
	s.cache = nil // re-read (and re-stamp) on the next load
	return nil
}

// Get returns a credential by name.
func (s *Store) Get(name string) (Credential, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.load()
	if err != nil {
		return Credential{}, false, err
	}
	c, ok := m[name]
	return c, ok, nil
}

// List returns every credential's Info, by name.
func (s *Store) List() ([]Info, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.load()
	if err != nil {
		return nil, err
	}
	out := make([]Info, 0, len(m))
	for _, c := range m {
		out = append(out, c.Info())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Values lists every stored value no person may be shown: each
// credential's password and TOTP seed, and its username where its policy
// masks it (MaskedKinds). The host masks them in what it tells people
// (approval questions, pings, the event log) whatever the session filled.
// A host with no place for a vault has nothing stored: no values, no error.
func (s *Store) Values() ([]string, error) {
	if s.err != nil {
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.load()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range m {
		kinds := MaskedKinds(c.Policy)
		if kinds["username"] && c.Username != "" {
			out = append(out, c.Username.Reveal())
		}
		if c.Password != "" {
			out = append(out, c.Password.Reveal())
		}
		if c.TOTP != nil && c.TOTP.Secret != "" {
			out = append(out, c.TOTP.Secret.Reveal())
		}
	}
	return out, nil
}

// Put stores c (validated), replacing a credential of the same name.
func (s *Store) Put(c Credential) error {
	if err := c.Validate(); err != nil {
		return err
	}
	return s.update(func(m map[string]Credential) error {
		now := time.Now().UTC().Format(time.RFC3339)
		if old, ok := m[c.Name]; ok {
			c.Created = old.Created
		} else {
			c.Created = now
		}
		c.Updated = now
		m[c.Name] = c
		return nil
	})
}

// Update changes a stored credential's policy (or anything else) with fn,
// then validates and stores it.
func (s *Store) Update(name string, fn func(c *Credential) error) error {
	return s.update(func(m map[string]Credential) error {
		c, ok := m[name]
		if !ok {
			return fmt.Errorf("no credential %q in the vault", name)
		}
		c.Policy.Origins = append([]string(nil), c.Policy.Origins...)
		c.Policy.Personalities = append([]string(nil), c.Policy.Personalities...)
		if err := fn(&c); err != nil {
			return err
		}
		if err := c.Validate(); err != nil {
			return err
		}
		c.Updated = time.Now().UTC().Format(time.RFC3339)
		m[name] = c
		return nil
	})
}

// Remove deletes a credential.
func (s *Store) Remove(name string) error {
	return s.update(func(m map[string]Credential) error {
		if _, ok := m[name]; !ok {
			return fmt.Errorf("no credential %q in the vault", name)
		}
		delete(m, name)
		return nil
	})
}

func (s *Store) update(fn func(map[string]Credential) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, err := s.load()
	if err != nil {
		return err
	}
	m := make(map[string]Credential, len(cur)+1)
	for k, v := range cur {
		m[k] = v
	}
	if err := fn(m); err != nil {
		return err
	}
	return s.save(m)
}
