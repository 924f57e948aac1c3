package auth_test

import (
	"errors"
	"fmt"

	"github.com/mcphost/mcphost/pdk"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/pdk/auth"
)

func init() {
	pdk.Describe("bearer-token", "1.0.0")
	auth.Handle(bearer)
}

// bearer sends the granted secret "token" as a bearer token. The secret
// goes into the header and nowhere else: the host logs errors and log
// lines, so neither may quote it.
func bearer(req *abi.AuthRequest) (*abi.AuthResponse, error) {
	token, ok := pdk.Secret("token")
	if !ok {
		return nil, errors.New(`secret "token" is not granted to this plugin: list it under the entry's secrets`)
	}
	if req.Challenge != nil && req.Challenge.Status != 0 {
		// A static token cannot be renewed here; the operator has to act.
		pdk.Logf(abi.LogWarn, "%s refused the token with %d: check the secret's value", req.Server, req.Challenge.Status)
	}
	return &abi.AuthResponse{Headers: map[string]string{"Authorization": "Bearer " + token}}, nil
}

// The Mock grants secrets as a plugin entry does; without the grant the hook fails rather than connect anonymously.
func ExampleHandle() {
	mock := &pdk.Mock{Secrets: map[string]string{"token": "t0k3n"}}
	defer pdk.UseMock(mock)()

	for _, req := range []abi.AuthRequest{
		{Server: "api", URL: "https://api.example.com/mcp"},
		{Server: "api", URL: "https://api.example.com/mcp", Challenge: &abi.Challenge{Status: 401, WWWAuthenticate: `Bearer error="invalid_token"`}},
	} {
		var resp abi.AuthResponse
		if err := pdk.CallJSON(abi.HookAuth, req, &resp); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(resp.Headers)
	}
	for _, l := range mock.Logs() {
		fmt.Println("log:", l.Message)
	}

	defer pdk.UseMock(&pdk.Mock{})()
	var resp abi.AuthResponse
	fmt.Println(pdk.CallJSON(abi.HookAuth, abi.AuthRequest{Server: "api", URL: "https://api.example.com/mcp"}, &resp))
	// Output:
	// map[Authorization:Bearer t0k3n]
	// map[Authorization:Bearer t0k3n]
	// log: api refused the token with 401: check the secret's value
	// secret "token" is not granted to this plugin: list it under the entry's secrets
}
