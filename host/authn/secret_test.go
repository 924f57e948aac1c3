package authn

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/zalando/go-keyring"
)

func TestSecrets(t *testing.T) {
	keyring.MockInit()
	const value = "gateway-token-0123456789"
	if _, err := Secret("sre"); !errors.Is(err, ErrNoSecret) || !strings.Contains(err.Error(), "mcphost secret set sre") {
		t.Fatalf("missing secret: %v", err)
	}
	if err := SetSecret("sre", value); err != nil {
		t.Fatal(err)
	}
	if v, err := Secret("sre"); err != nil || v != value {
		t.Fatalf("Secret = %q, %v", v, err)
	}
	if err := DeleteSecret("sre"); err != nil {
		t.Fatal(err)
	}
	if err := DeleteSecret("sre"); err != nil {
		t.Fatalf("deleting again: %v", err)
	}
	if _, err := Secret("sre"); !errors.Is(err, ErrNoSecret) {
		t.Fatalf("after delete: %v", err)
	}
	for _, bad := range []string{"", "a b", "x/y", strings.Repeat("n", 65)} {
		if SetSecret(bad, value) == nil {
			t.Errorf("name %q accepted", bad)
		}
	}
	if SetSecret("sre", "") == nil {
		t.Error("empty value accepted")
	}
	keyring.MockInitWithError(errors.New("locked"))
	defer keyring.MockInit()
	if _, err := Secret("sre"); err == nil || strings.Contains(err.Error(), value) {
		t.Fatalf("keychain error: %v", err)
	}
}

// noKeychain makes the OS keychain fail as it does on Linux without a
// D-Bus session, whether or not this machine has one.
func noKeychain(t *testing.T) {
	t.Helper()
	keyring.MockInitWithError(&exec.Error{Name: "dbus-launch", Err: exec.ErrNotFound})
	t.Cleanup(keyring.MockInit)
}

// Without a keychain, auto keeps secrets in the file, 0600 in a directory
// that only its owner can enter; an explicit keychain is an error.
func TestOpenSecretStoreWithoutKeychain(t *testing.T) {
	noKeychain(t)
	dir := filepath.Join(t.TempDir(), "mcphost")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "secrets.json")
	const value = "file-kept-token-0123456789"
	for _, kind := range []string{"", "auto", "AUTO"} {
		s, fellBack, err := OpenSecretStore(kind, path)
		if err != nil || !fellBack || s.Name() != "the file "+path {
			t.Fatalf("OpenSecretStore(%q) = %v, %v, %v", kind, s, fellBack, err)
		}
	}
	s, fellBack, err := OpenSecretStore("file", path)
	if err != nil || fellBack {
		t.Fatalf("file: %v %v", fellBack, err)
	}
	if _, err := s.Secret("api"); !errors.Is(err, ErrNoSecret) || !strings.Contains(err.Error(), path) {
		t.Fatalf("before set: %v", err)
	}
	if err := s.SetSecret("api", value); err != nil {
		t.Fatal(err)
	}
	if v, err := s.Secret("api"); err != nil || v != value {
		t.Fatalf("Secret = %q, %v", v, err)
	}
	if runtime.GOOS != "windows" {
		for p, want := range map[string]os.FileMode{path: 0o600, dir: 0o700} {
			if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
				t.Errorf("%s: %v %v, want %v", p, fi.Mode().Perm(), err, want)
			}
		}
	}
	if err := s.SetSecret("api", strings.Repeat("x", MaxSecretBytes+1)); err == nil {
		t.Error("an oversized value was stored")
	}
	if err := s.DeleteSecret("api"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Secret("api"); !errors.Is(err, ErrNoSecret) {
		t.Fatalf("after delete: %v", err)
	}
	if err := (&SecretFile{Path: filepath.Join(dir, "none.json")}).DeleteSecret("api"); err != nil {
		t.Fatalf("deleting from no file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "none.json")); err == nil {
		t.Error("deleting made a file")
	}

	for _, kind := range []string{"keychain", "keyring"} {
		_, _, err := OpenSecretStore(kind, path)
		if !errors.Is(err, ErrNoKeychain) || !strings.Contains(err.Error(), "dbus-launch") {
			t.Errorf("OpenSecretStore(%q) without a keychain: %v", kind, err)
		}
	}
	if _, _, err := OpenSecretStore("vault", path); err == nil || !strings.Contains(err.Error(), "auto, keychain or file") {
		t.Errorf("unknown kind: %v", err)
	}
}

// With a keychain, auto stores there and still finds what was stored in
// the file while there was none; a store moves a name out of the file.
func TestAutoSecretsReadTheFileToo(t *testing.T) {
	keyring.MockInit()
	path := filepath.Join(t.TempDir(), "secrets.json")
	file := &SecretFile{Path: path}
	if err := file.SetSecret("old", "stored-without-keychain-0123"); err != nil {
		t.Fatal(err)
	}
	s, fellBack, err := OpenSecretStore("auto", path)
	if err != nil || fellBack {
		t.Fatalf("auto with a keychain: %v %v", fellBack, err)
	}
	if v, err := s.Secret("old"); err != nil || v != "stored-without-keychain-0123" {
		t.Fatalf("the file's secret: %q %v", v, err)
	}
	if err := s.SetSecret("old", "now-in-the-keychain-0123"); err != nil {
		t.Fatal(err)
	}
	if v, err := Secret("old"); err != nil || v != "now-in-the-keychain-0123" {
		t.Fatalf("keychain: %q %v", v, err)
	}
	if _, err := file.Secret("old"); !errors.Is(err, ErrNoSecret) {
		t.Fatalf("the file still holds the name: %v", err)
	}
	if _, err := s.Secret("absent"); !errors.Is(err, ErrNoSecret) || !strings.Contains(err.Error(), "mcphost secret set absent") {
		t.Fatalf("absent: %v", err)
	}
	if err := s.DeleteSecret("old"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Secret("old"); !errors.Is(err, ErrNoSecret) {
		t.Fatalf("after delete: %v", err)
	}
}
