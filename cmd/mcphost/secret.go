package main

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcphost/mcphost/host/authn"
)

// maxSecretBytes bounds a secret read from stdin.
const maxSecretBytes = authn.MaxSecretBytes

// secretFileName is the secret file, in mcphost's user config directory.
const secretFileName = "secrets.json"

// secretStoreKinds are the values of --secret-store and
// MCPHOST_SECRET_STORE ("keyring" as for MCPHOST_TOKEN_STORE).
var secretStoreKinds = []string{"", "auto", "keychain", "keyring", "file"}

func (a *app) checkSecretStoreFlag() error {
	if !slices.Contains(secretStoreKinds, strings.ToLower(a.secretStore)) {
		return usageError("--secret-store %q: use auto, keychain or file", a.secretStore)
	}
	return nil
}

// userDir is mcphost's directory in the user config directory (the test
// hook's global directory), where the token and secret files live.
func (a *app) userDir() (string, error) {
	if a.globalDir != "" {
		return a.globalDir, nil
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no user config directory for mcphost's files: %w", err)
	}
	return filepath.Join(d, "mcphost"), nil
}

// secretStoreOf is the secret store for this command: opened once, so that
// the keychain is probed once and the note below is written once.
func (a *app) secretStoreOf() (authn.SecretStore, error) {
	a.secretsOnce.Do(func() { a.secrets, a.secretsErr = a.openSecrets() })
	return a.secrets, a.secretsErr
}

// openSecrets opens the store --secret-store or MCPHOST_SECRET_STORE names
// (auto by default). When auto finds no keychain, it says where the
// secrets go instead; naming the file store is how to say that is meant.
func (a *app) openSecrets() (authn.SecretStore, error) {
	kind, said := a.secretStore, "--secret-store "+a.secretStore
	if kind == "" {
		kind = a.getenv("MCPHOST_SECRET_STORE")
		said = "MCPHOST_SECRET_STORE=" + kind
	}
	dir, err := a.userDir()
	if err != nil {
		return nil, err
	}
	store, fellBack, err := authn.OpenSecretStore(kind, filepath.Join(dir, secretFileName))
	switch {
	case errors.Is(err, authn.ErrNoKeychain):
		return nil, usageError("%s: %v: keep secrets in a private file with --secret-store file (or MCPHOST_SECRET_STORE=file)", said, err)
	case err != nil:
		return nil, usageError("%s: %v", said, err)
	case fellBack:
		fmt.Fprintf(a.stderr, "note: no OS keychain answers here, so secrets are kept in %s (readable by you only); --secret-store file (or MCPHOST_SECRET_STORE=file) says that is meant and hides this note\n", store.Name())
	}
	return store, nil
}

// resolveSecret resolves ${secret:NAME} references (config.LoadOptions.
// Secret) from the store "mcphost secret set NAME" keeps them in.
func (a *app) resolveSecret(name string) (string, error) {
	store, err := a.secretStoreOf()
	if err != nil {
		return "", err
	}
	return store.Secret(name)
}

func (a *app) secretCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "secret",
		Short: "Keep secrets for ${secret:NAME} and the gateway's bearer tokens",
		Long: `Secrets for ${secret:NAME} references in server entries and for "mcphost
serve --auth-token-keychain NAME". They are kept in the OS keychain (service
"mcphost-secret"), or, where none answers (Linux without a D-Bus session:
SSH, containers, CI), in secrets.json in the user config directory (mode
0600, in a directory only you can enter), with a note saying so.
--secret-store (or MCPHOST_SECRET_STORE) chooses: auto, keychain or file.

The value is read from standard input (never from the command line, where it
would reach the shell history and the process list), or made up with
--generate and printed once.`,
	}
	var generate bool
	set := &cobra.Command{
		Use:   "set NAME",
		Short: "Store a secret read from stdin (or --generate one)",
		Example: `  printf %s "$TOKEN" | mcphost secret set sre
  mcphost secret set ci --generate      # prints the new token once`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			name := args[0]
			if err := authn.CheckSecretName(name); err != nil {
				return usageError("%v", err)
			}
			var value string
			switch {
			case generate:
				value = "mcphost_" + rand.Text() + rand.Text()
			case a.isTerminal(a.stdin):
				return usageError("secret set %s: pipe the value on stdin (typed here it would be shown), or use --generate", name)
			default:
				b, err := io.ReadAll(io.LimitReader(a.stdin, maxSecretBytes+1))
				if err != nil {
					return fmt.Errorf("secret set %s: reading stdin: %w", name, err)
				}
				if len(b) > maxSecretBytes {
					return usageError("secret set %s: more than %d bytes on stdin", name, maxSecretBytes)
				}
				value = strings.TrimRight(string(b), "\r\n")
				if value == "" {
					return usageError("secret set %s: nothing was read on stdin: pipe the value (printf %%s \"$TOKEN\" | mcphost secret set %s), or use --generate", name, name)
				}
			}
			store, err := a.secretStoreOf()
			if err != nil {
				return err
			}
			if err := store.SetSecret(name, value); err != nil {
				return fmt.Errorf("secret set %s: not stored in %s: %w; %s", name, store.Name(), err, otherSecretStore(store))
			}
			if generate {
				fmt.Fprintln(a.stdout, value)
			}
			fmt.Fprintf(a.stderr, "secret %s stored in %s\n", name, store.Name())
			return nil
		},
	}
	set.Flags().BoolVar(&generate, "generate", false, "make up a random token, store it and print it once")
	del := &cobra.Command{
		Use:   "delete NAME",
		Short: "Remove a secret",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			store, err := a.secretStoreOf()
			if err != nil {
				return err
			}
			if err := store.DeleteSecret(args[0]); err != nil {
				return fmt.Errorf("secret delete %s: %w", args[0], err)
			}
			fmt.Fprintf(a.stderr, "secret %s removed\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(set, del)
	return cmd
}

// otherSecretStore says what to do when store cannot keep a secret: make
// the file's directory writable, or use the other store.
func otherSecretStore(store authn.SecretStore) string {
	if f, ok := store.(*authn.SecretFile); ok {
		return fmt.Sprintf("check that %s can be created and written (its directory must be one you can write to), or keep secrets in the OS keychain with --secret-store keychain (or MCPHOST_SECRET_STORE=keychain) where one answers", f.Path)
	}
	return "keep secrets in a private file instead with --secret-store file (or MCPHOST_SECRET_STORE=file)"
}
