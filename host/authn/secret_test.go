package authn

import (
	"errors"
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
