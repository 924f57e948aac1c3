package plugintest

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/mcphost/mcphost/pdk/abi"
)

// The checks of the auth hook and the requests they use.

// AuthRequests are the requests the auth checks use.
func AuthRequests() []*abi.AuthRequest {
	return []*abi.AuthRequest{
		{Server: "api", URL: "https://api.example.com/mcp"},
		{Server: "api", URL: "https://api.example.com/mcp", Challenge: &abi.Challenge{Status: 401, WWWAuthenticate: `Bearer realm="api", error="invalid_token"`}},
		{Server: "api", URL: "https://api.example.com/mcp", Challenge: &abi.Challenge{Status: 403, WWWAuthenticate: `Bearer error="insufficient_scope", scope="write"`}},
	}
}

var token = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

func (c *checker) auth() {
	const h = abi.HookAuth
	const noHeaders = "no headers map (an empty map adds none)"
	st := c.stage.(abi.AuthStage)
	check(c, hookCheck[abi.AuthRequest, abi.AuthResponse]{
		hook: h,
		reqs: AuthRequests(),
		label: func(i int, req *abi.AuthRequest) string {
			return fmt.Sprintf("request %d (status %d)", i, statusOf(req))
		},
		call:   st.Auth,
		nilMsg: noHeaders,
		valid: func(name string, _ *abi.AuthRequest, r *abi.AuthResponse) bool {
			if r.Headers == nil {
				c.fail(h, name, noHeaders)
				return false
			}
			for k, v := range r.Headers {
				if !token.MatchString(k) {
					c.fail(h, name, fmt.Sprintf("header name %q is not an HTTP token", k))
				}
				if strings.ContainsAny(v, "\r\n\x00") {
					// Never print the value: it is a credential.
					c.fail(h, name, fmt.Sprintf("header %s: the value holds CR, LF or NUL", k))
				}
			}
			if r.ExpiresIn < 0 {
				c.fail(h, name, fmt.Sprintf("expires_in %d is negative", r.ExpiresIn))
			}
			return true
		},
	})
}

func statusOf(r *abi.AuthRequest) int {
	if r.Challenge == nil {
		return 0
	}
	return r.Challenge.Status
}
