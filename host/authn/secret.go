package authn

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/zalando/go-keyring"
)

// secretService is the keychain service of the secrets that are not
// logins: ${secret:NAME} references and the gateway's static bearer
// tokens. Logins live under keyringService, as JSON records; these are the
// bare value.
const secretService = "mcphost-secret"

// MaxSecretBytes bounds one secret's value.
const MaxSecretBytes = 64 << 10

// ErrNoSecret is returned for a name the store does not hold.
var ErrNoSecret = errors.New("no such secret")

// SecretStore keeps named secrets: what "mcphost secret set" stores and
// ${secret:NAME} and "serve --auth-token-keychain" read. No method's error
// holds a value.
type SecretStore interface {
	// Secret returns the value of name, or an error wrapping ErrNoSecret.
	Secret(name string) (string, error)
	// SetSecret stores value as name, in place of what name held.
	SetSecret(name, value string) error
	// DeleteSecret removes name; a name the store does not hold is not an
	// error.
	DeleteSecret(name string) error
	// Name says where the secrets are kept, for messages.
	Name() string
}

// CheckSecretName says whether name can name a secret: 1 to 64 letters,
// digits, '_', '-' or '.'.
func CheckSecretName(name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("secret name %q: 1 to 64 characters", name)
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return fmt.Errorf("secret name %q: only letters, digits, '_', '-' and '.'", name)
		}
	}
	return nil
}

func checkSecretValue(name, value string) error {
	if value == "" {
		return fmt.Errorf("authn: secret %q: empty value", name)
	}
	if len(value) > MaxSecretBytes {
		return fmt.Errorf("authn: secret %q: more than %d bytes", name, MaxSecretBytes)
	}
	return nil
}

func noSecret(name, where string) error {
	return fmt.Errorf("authn: secret %q: %w in %s; store it with \"mcphost secret set %s\"", name, ErrNoSecret, where, name)
}

// KeychainSecrets keeps secrets in the OS keychain, service
// "mcphost-secret", account = the name.
type KeychainSecrets struct{}

func (KeychainSecrets) Name() string { return "the OS keychain (service \"mcphost-secret\")" }

func (k KeychainSecrets) Secret(name string) (string, error) {
	if err := CheckSecretName(name); err != nil {
		return "", err
	}
	v, err := withTimeout(func() (string, error) { return keyring.Get(secretService, name) })
	if errors.Is(err, keyring.ErrNotFound) {
		return "", noSecret(name, k.Name())
	}
	if err != nil {
		return "", fmt.Errorf("authn: secret %q: keychain: %w", name, err)
	}
	return v, nil
}

func (KeychainSecrets) SetSecret(name, value string) error {
	if err := CheckSecretName(name); err != nil {
		return err
	}
	if err := checkSecretValue(name, value); err != nil {
		return err
	}
	_, err := withTimeout(func() (struct{}, error) { return struct{}{}, keyring.Set(secretService, name, value) })
	if err != nil {
		return fmt.Errorf("authn: secret %q: keychain: %w", name, err)
	}
	return nil
}

func (KeychainSecrets) DeleteSecret(name string) error {
	if err := CheckSecretName(name); err != nil {
		return err
	}
	_, err := withTimeout(func() (struct{}, error) { return struct{}{}, keyring.Delete(secretService, name) })
	if err != nil && !errors.Is(err, keyring.ErrNotFound) {
		return fmt.Errorf("authn: secret %q: keychain: %w", name, err)
	}
	return nil
}

// Secret reads the secret name from the OS keychain.
func Secret(name string) (string, error) { return KeychainSecrets{}.Secret(name) }

// SetSecret stores value as the secret name in the OS keychain.
func SetSecret(name, value string) error { return KeychainSecrets{}.SetSecret(name, value) }

// DeleteSecret removes the secret name from the OS keychain.
func DeleteSecret(name string) error { return KeychainSecrets{}.DeleteSecret(name) }

// secretFileDoc is the secret file: {"version": 1, "secrets": {"NAME": "value"}}.
type secretFileDoc struct {
	Version int               `json:"version"`
	Secrets map[string]string `json:"secrets"`
}

func (d *secretFileDoc) fileVersion() int { return d.Version }

// SecretFile keeps secrets in one JSON file, for machines without an OS
// keychain: mode 0600 in a directory only its owner can enter, read with a
// size bound, written atomically under a lock (as the token file).
type SecretFile struct{ Path string }

// DefaultSecretFilePath is secrets.json in the user's config dir.
func DefaultSecretFilePath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("authn: no user config dir for the secret file: %w", err)
	}
	return filepath.Join(dir, "mcphost", "secrets.json"), nil
}

func (f *SecretFile) Name() string { return "the file " + f.Path }

func (f *SecretFile) file() privateFile {
	return privateFile{path: f.Path, what: "secret file", fix: `fix it, or remove it and store the secrets again with "mcphost secret set"`}
}

func (f *SecretFile) read() (*secretFileDoc, error) {
	var d secretFileDoc
	exists, err := f.file().read(&d)
	if err != nil {
		return nil, err
	}
	if !exists {
		d.Version = storeVersion
	}
	if d.Secrets == nil {
		d.Secrets = map[string]string{}
	}
	return &d, nil
}

func (f *SecretFile) Secret(name string) (string, error) {
	if err := CheckSecretName(name); err != nil {
		return "", err
	}
	d, err := f.read()
	if err != nil {
		return "", err
	}
	v := d.Secrets[name]
	if v == "" {
		return "", noSecret(name, f.Name())
	}
	return v, nil
}

func (f *SecretFile) edit(change func(*secretFileDoc)) error {
	return f.file().update(func() (versioned, error) {
		d, err := f.read()
		if err != nil {
			return nil, err
		}
		change(d)
		return d, nil
	})
}

func (f *SecretFile) SetSecret(name, value string) error {
	if err := CheckSecretName(name); err != nil {
		return err
	}
	if err := checkSecretValue(name, value); err != nil {
		return err
	}
	return f.edit(func(d *secretFileDoc) { d.Secrets[name] = value })
}

func (f *SecretFile) DeleteSecret(name string) error {
	if err := CheckSecretName(name); err != nil {
		return err
	}
	if _, err := os.Lstat(f.Path); errors.Is(err, os.ErrNotExist) {
		return nil // nothing to delete: no file to make
	}
	return f.edit(func(d *secretFileDoc) { delete(d.Secrets, name) })
}

// ErrNoKeychain is returned by OpenSecretStore when the OS keychain was
// asked for and does not answer.
var ErrNoKeychain = errors.New("the OS keychain is not available")

// OpenSecretStore returns the secret store named by kind: "keychain" (or
// "keyring"), "file", or "auto" (or ""): the OS keychain when one answers,
// else the file. file is the secret file's path ("" for
// DefaultSecretFilePath). fellBack reports that auto chose the file because
// no keychain answered.
func OpenSecretStore(kind, file string) (store SecretStore, fellBack bool, err error) {
	if file == "" {
		if file, err = DefaultSecretFilePath(); err != nil {
			return nil, false, err
		}
	}
	f := &SecretFile{Path: file}
	switch strings.ToLower(kind) {
	case "file":
		return f, false, nil
	case "keychain", "keyring":
		if err := keyringProbe(); err != nil {
			return nil, false, fmt.Errorf("authn: %w (%v)", ErrNoKeychain, err)
		}
		return KeychainSecrets{}, false, nil
	case "", "auto":
		if keyringProbe() != nil {
			return f, true, nil
		}
		return &autoSecrets{f: f}, false, nil
	}
	return nil, false, fmt.Errorf("authn: unknown secret store %q (use auto, keychain or file)", kind)
}

// autoSecrets keeps secrets in the keychain, and in the file those that
// the keychain refuses (an item of the Windows Credential Manager holds
// 2.5 KB). It reads the file too: a secret stored while no keychain
// answered (a session without D-Bus) is still found.
type autoSecrets struct {
	k KeychainSecrets
	f *SecretFile
}

func (a *autoSecrets) Name() string {
	return a.k.Name() + ", or " + a.f.Name() + " for what it cannot hold"
}

func (a *autoSecrets) Secret(name string) (string, error) {
	v, kerr := a.k.Secret(name)
	if kerr == nil {
		return v, nil
	}
	v, ferr := a.f.Secret(name)
	switch {
	case ferr == nil:
		return v, nil
	case errors.Is(kerr, ErrNoSecret) && errors.Is(ferr, ErrNoSecret):
		return "", noSecret(name, a.Name())
	case errors.Is(kerr, ErrNoSecret):
		return "", ferr
	}
	return "", kerr
}

func (a *autoSecrets) SetSecret(name, value string) error {
	kerr := a.k.SetSecret(name, value)
	if kerr == nil {
		// One place per name; a stale copy in the file would be shadowed
		// by the keychain's anyway.
		_ = a.f.DeleteSecret(name)
		return nil
	}
	if err := a.f.SetSecret(name, value); err != nil {
		return errors.Join(kerr, err)
	}
	_ = a.k.DeleteSecret(name)
	return nil
}

func (a *autoSecrets) DeleteSecret(name string) error {
	return errors.Join(a.k.DeleteSecret(name), a.f.DeleteSecret(name))
}
