package main

import (
	"crypto/rand"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcphost/mcphost/host/authn"
)

// maxSecretBytes bounds a secret read from stdin.
const maxSecretBytes = 64 << 10

func (a *app) secretCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "secret",
		Short: "Keep secrets in the OS keychain (the gateway's bearer tokens)",
		Long: `Secrets kept in the OS keychain (service "mcphost-secret"), for
"mcphost serve --auth-token-keychain NAME". The value is read from standard
input (never from the command line, where it would reach the shell history
and the process list), or made up with --generate and printed once.`,
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
				if len(value) < 16 {
					return usageError("secret set %s: the value must be at least 16 characters", name)
				}
			}
			if err := authn.SetSecret(name, value); err != nil {
				return err
			}
			if generate {
				fmt.Fprintln(a.stdout, value)
			}
			fmt.Fprintf(a.stderr, "secret %s stored in the OS keychain\n", name)
			return nil
		},
	}
	set.Flags().BoolVar(&generate, "generate", false, "make up a random token, store it and print it once")
	del := &cobra.Command{
		Use:   "delete NAME",
		Short: "Remove a secret",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := authn.DeleteSecret(args[0]); err != nil {
				return err
			}
			fmt.Fprintf(a.stderr, "secret %s removed\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(set, del)
	return cmd
}
