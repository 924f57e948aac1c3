package authn

import (
	"errors"
	"fmt"

	"github.com/zalando/go-keyring"
)

// secretService is the keychain service of the secrets that are not
// logins: the gateway's static bearer tokens. Logins live under
// keyringService, as JSON records; these are the bare value.
const secretService = "mcphost-secret"

// ErrNoSecret is returned by Secret for a name the keychain does not hold.
var ErrNoSecret = errors.New("no such secret in the OS keychain")

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

// Secret reads the secret name from the OS keychain (service
// "mcphost-secret"). Errors never hold the value.
func Secret(name string) (string, error) {
	if err := CheckSecretName(name); err != nil {
		return "", err
	}
	v, err := withTimeout(func() (string, error) { return keyring.Get(secretService, name) })
	if errors.Is(err, keyring.ErrNotFound) {
		return "", fmt.Errorf("authn: secret %q: %w (store it with \"mcphost secret set %s\")", name, ErrNoSecret, name)
	}
	if err != nil {
		return "", fmt.Errorf("authn: secret %q: keychain: %w", name, err)
	}
	return v, nil
}

// SetSecret stores value as the secret name in the OS keychain.
func SetSecret(name, value string) error {
	if err := CheckSecretName(name); err != nil {
		return err
	}
	if value == "" {
		return fmt.Errorf("authn: secret %q: empty value", name)
	}
	_, err := withTimeout(func() (struct{}, error) { return struct{}{}, keyring.Set(secretService, name, value) })
	if err != nil {
		return fmt.Errorf("authn: secret %q: keychain: %w", name, err)
	}
	return nil
}

// DeleteSecret removes the secret name; a name the keychain does not hold
// is not an error.
func DeleteSecret(name string) error {
	if err := CheckSecretName(name); err != nil {
		return err
	}
	_, err := withTimeout(func() (struct{}, error) { return struct{}{}, keyring.Delete(secretService, name) })
	if err != nil && !errors.Is(err, keyring.ErrNotFound) {
		return fmt.Errorf("authn: secret %q: keychain: %w", name, err)
	}
	return nil
}
