// Command header-auth is an mcphost auth plugin: it answers every request
// for credentials with one header built from a secret the plugin entry
// grants, e.g. "Authorization: Bearer <token>". Build it with:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o header-auth.wasm .
package main

import (
	"fmt"
	"strings"

	"github.com/mcphost/mcphost/pdk"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/pdk/auth"
)

const version = "1.0.0"

func init() {
	pdk.Describe("header-auth", version)
	auth.Handle(headers)
}

// main never runs: the plugin is a WASI reactor, driven by its exports.
func main() {}

// headers answers the auth hook. The secret's value goes into the header
// and nowhere else: not into errors, not into logs (the host logs both).
func headers(req *abi.AuthRequest) (*abi.AuthResponse, error) {
	secretName := pdk.ConfigOr("secret", "token")
	header := pdk.ConfigOr("header", "Authorization")
	// An empty prefix cannot be configured (the host hands empty config
	// values over as unset), so "none" stands for it, e.g. for X-API-Key.
	prefix := pdk.ConfigOr("prefix", "Bearer ")
	if prefix == "none" {
		prefix = ""
	}
	if !validHeaderName(header) {
		return nil, fmt.Errorf("config header: %q is not a valid HTTP header name", header)
	}

	secret, ok := pdk.Secret(secretName)
	if !ok {
		return nil, fmt.Errorf("secret %q is not granted to this plugin or has no value: list it under the plugin entry's secrets and set it", secretName)
	}
	// A line break would let the value forge further headers.
	if strings.ContainsAny(secret, "\r\n\x00") || strings.ContainsAny(prefix, "\r\n\x00") {
		return nil, fmt.Errorf("secret %q (or the prefix) contains a line break or NUL and cannot go into a header", secretName)
	}

	if req.Challenge != nil && req.Challenge.Status != 0 {
		// The server refused what we sent before; sending the same again is
		// all this plugin can do, so tell the operator where to look.
		pdk.Logf(abi.LogWarn, "server %s answered %d to the %s header from secret %q: check the secret's value",
			req.Server, req.Challenge.Status, header, secretName)
	}
	return &abi.AuthResponse{Headers: map[string]string{header: prefix + secret}}, nil
}

// validHeaderName reports whether s is an RFC 9110 field name (a token).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}
