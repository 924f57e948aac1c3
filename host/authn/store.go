package authn

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/zalando/go-keyring"

	"github.com/mcphost/mcphost/internal/safefile"
)

// Record is what mcphost keeps about one server after a login: the tokens,
// the client they were issued to and where to refresh them. Every field but
// the URLs and times is a secret and never printed.
type Record struct {
	// Resource is the server URL the tokens were issued for (RFC 8707): a
	// record is only used for a server at this very URL.
	Resource     string    `json:"resource"`
	Issuer       string    `json:"issuer,omitempty"`
	AccessToken  string    `json:"access_token"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	ExpiresAt    time.Time `json:"expires_at,omitzero"`
	TokenType    string    `json:"token_type,omitempty"`
	Scope        string    `json:"scope,omitempty"`
	ClientID     string    `json:"client_id,omitempty"`
	ClientSecret string    `json:"client_secret,omitempty"`
	TokenURL     string    `json:"token_url,omitempty"`
	// AuthStyle is how the client authenticates at TokenURL
	// (oauth2.AuthStyle: 1 in the form, 2 in a Basic header).
	AuthStyle     int    `json:"auth_style,omitempty"`
	RevocationURL string `json:"revocation_url,omitempty"`
	RedirectURL   string `json:"redirect_url,omitempty"`
	// DPoPKey is the PKCS #8 key (PEM) that DPoP-bound tokens are bound to.
	DPoPKey string    `json:"dpop_key,omitempty"`
	Updated time.Time `json:"updated,omitzero"`
}

// Store keeps Records by server id.
type Store interface {
	// Load returns the record of a server, or nil when there is none.
	Load(id string) (*Record, error)
	// Save replaces the record of a server.
	Save(id string, r *Record) error
	// Delete removes the record of a server; no record is not an error.
	Delete(id string) error
	// Lock serializes the read-refresh-write of tokens across processes, so
	// that two mcphost refreshing one token do not lose the new one.
	Lock() (unlock func(), err error)
	// Name says where records are kept, for "mcphost auth status".
	Name() string
}

// storeVersion is the version of the file format.
const storeVersion = 1

// maxStoreBytes bounds the token file: it is read on every connect.
const maxStoreBytes = 4 << 20

// storeLockWait bounds how long a refresh waits for another process's.
const storeLockWait = 30 * time.Second

type storeFile struct {
	Version int                `json:"version"`
	Servers map[string]*Record `json:"servers"`
}

func (sf *storeFile) fileVersion() int { return sf.Version }

// FileStore keeps records in one JSON file (mode 0600, written atomically
// under a lock): {"version": 1, "servers": {"<id>": {...}}}.
type FileStore struct{ Path string }

// DefaultFilePath is mcp-auth.json in the user's config dir.
func DefaultFilePath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("authn: no user config dir for the token file: %w", err)
	}
	return filepath.Join(dir, "mcphost", "mcp-auth.json"), nil
}

func (f *FileStore) Name() string { return "file " + f.Path }

func (f *FileStore) file() privateFile {
	return privateFile{path: f.Path, what: "token file", fix: "remove it and log in again"}
}

func (f *FileStore) read() (*storeFile, error) {
	var sf storeFile
	exists, err := f.file().read(&sf)
	if err != nil {
		return nil, err
	}
	if !exists {
		sf.Version = storeVersion
	}
	if sf.Servers == nil {
		sf.Servers = map[string]*Record{}
	}
	return &sf, nil
}

// jsonErrorWithoutValues keeps a JSON error's position, not the text around
// it, which may be a token.
func jsonErrorWithoutValues(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("syntax error at byte %d", se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %s has the wrong type", te.Field)
	}
	return "cannot decode"
}

func (f *FileStore) Load(id string) (*Record, error) {
	sf, err := f.read()
	if err != nil {
		return nil, err
	}
	return sf.Servers[id], nil
}

func (f *FileStore) modify(fn func(*storeFile)) error {
	return f.file().update(func() (versioned, error) {
		sf, err := f.read()
		if err != nil {
			return nil, err
		}
		fn(sf)
		return sf, nil
	})
}

func (f *FileStore) Save(id string, r *Record) error {
	return f.modify(func(sf *storeFile) { sf.Servers[id] = r })
}

func (f *FileStore) Delete(id string) error {
	return f.modify(func(sf *storeFile) { delete(sf.Servers, id) })
}

// Lock takes the lock of the file's refreshes (a separate lock from the
// one of writes, which Save takes inside it).
func (f *FileStore) Lock() (func(), error) {
	unlock, err := safefile.Lock(f.Path+".refresh", storeLockWait)
	if err != nil {
		return nil, fmt.Errorf("authn: token file: %w", err)
	}
	return unlock, nil
}

// IDs lists the servers that have a record.
func (f *FileStore) IDs() ([]string, error) {
	sf, err := f.read()
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(sf.Servers))
	for id := range sf.Servers {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids, nil
}

// keyringService names mcphost's items in the OS keychain.
const keyringService = "mcphost"

// keyringTimeout bounds one keychain call: the Secret Service may sit
// behind a D-Bus that never answers.
const keyringTimeout = 5 * time.Second

// KeyringStore keeps each server's record as one item of the OS keychain
// (macOS Keychain, Windows Credential Manager, the Secret Service), service
// "mcphost", account = server id. Refreshes are serialized with a lock
// file beside LockPath.
type KeyringStore struct{ LockPath string }

func (k *KeyringStore) Name() string { return "OS keychain (service \"mcphost\")" }

func withTimeout[T any](fn func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := fn()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-time.After(keyringTimeout):
		var zero T
		return zero, fmt.Errorf("the OS keychain did not answer within %s", keyringTimeout)
	}
}

func (k *KeyringStore) Load(id string) (*Record, error) {
	s, err := withTimeout(func() (string, error) { return keyring.Get(keyringService, id) })
	if errors.Is(err, keyring.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("authn: keychain: %w", err)
	}
	var r Record
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		return nil, fmt.Errorf("authn: keychain item %q is not an mcphost record (%s); run \"mcphost logout %s\"", id, jsonErrorWithoutValues(err), id)
	}
	return &r, nil
}

func (k *KeyringStore) Save(id string, r *Record) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = withTimeout(func() (struct{}, error) { return struct{}{}, keyring.Set(keyringService, id, string(data)) })
	if err != nil {
		return fmt.Errorf("authn: keychain: %w", err)
	}
	return nil
}

func (k *KeyringStore) Delete(id string) error {
	_, err := withTimeout(func() (struct{}, error) { return struct{}{}, keyring.Delete(keyringService, id) })
	if err != nil && !errors.Is(err, keyring.ErrNotFound) {
		return fmt.Errorf("authn: keychain: %w", err)
	}
	return nil
}

func (k *KeyringStore) Lock() (func(), error) {
	unlock, err := safefile.Lock(k.LockPath, storeLockWait)
	if err != nil {
		return nil, fmt.Errorf("authn: token lock: %w", err)
	}
	return unlock, nil
}

// keyringWorks probes the keychain once: a lookup of an item that does not
// exist answers ErrNotFound where a keychain is there.
func keyringWorks() bool { return keyringProbe() == nil }

// keyringProbe is keyringWorks with the reason it does not (go-keyring's
// error: no secret in it).
func keyringProbe() error {
	_, err := withTimeout(func() (string, error) { return keyring.Get(keyringService, "mcphost-probe") })
	if err == nil || errors.Is(err, keyring.ErrNotFound) {
		return nil
	}
	return err
}

// OpenStore returns the store named by kind: "keyring", "file", or "auto"
// (or ""): the OS keychain when one answers, else the file. file is the
// token file's path ("" for DefaultFilePath).
func OpenStore(kind, file string) (Store, error) {
	if file == "" {
		p, err := DefaultFilePath()
		if err != nil {
			return nil, err
		}
		file = p
	}
	switch strings.ToLower(kind) {
	case "file":
		return &FileStore{Path: file}, nil
	case "keyring", "keychain":
		if !keyringWorks() {
			return nil, errors.New("authn: the OS keychain is not available (no Secret Service on this machine?); use MCPHOST_TOKEN_STORE=file")
		}
		return &KeyringStore{LockPath: file}, nil
	case "", "auto":
		if keyringWorks() {
			return &autoStore{k: &KeyringStore{LockPath: file}, f: &FileStore{Path: file}}, nil
		}
		return &FileStore{Path: file}, nil
	}
	return nil, fmt.Errorf("authn: unknown token store %q (use auto, keyring or file)", kind)
}

// autoStore keeps records in the keychain, and in the file those that the
// keychain refuses (its items are small: about 2.5 KB on Windows, 3 KB on
// macOS, less than a JWT access token, a refresh token and a DPoP key).
type autoStore struct {
	k *KeyringStore
	f *FileStore
}

func (a *autoStore) Name() string {
	return a.k.Name() + ", or " + a.f.Name() + " for what it cannot hold"
}

func (a *autoStore) Load(id string) (*Record, error) {
	r, kerr := a.k.Load(id)
	if kerr == nil && r != nil {
		return r, nil
	}
	fr, ferr := a.f.Load(id)
	if ferr == nil && fr != nil {
		return fr, nil
	}
	if kerr != nil {
		return nil, kerr
	}
	return nil, ferr
}

func (a *autoStore) Save(id string, r *Record) error {
	kerr := a.k.Save(id, r)
	if kerr == nil {
		if old, err := a.f.Load(id); err == nil && old != nil {
			_ = a.f.Delete(id) // one place per record
		}
		return nil
	}
	if err := a.f.Save(id, r); err != nil {
		return errors.Join(kerr, err)
	}
	_ = a.k.Delete(id)
	return nil
}

func (a *autoStore) Delete(id string) error {
	return errors.Join(a.k.Delete(id), a.f.Delete(id))
}

func (a *autoStore) Lock() (func(), error) { return a.f.Lock() }
