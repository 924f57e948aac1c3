package authn_test

import (
	"fmt"
	"net/http"

	"github.com/mcphost/mcphost/host/authn"
	"github.com/mcphost/mcphost/host/config"
)

// An embedder builds a server's credentials from its config entry and
// asks them for the headers of each request. A bearer-token server needs
// no OAuth handler and no network.
func ExampleNew() {
	server := &config.Server{
		ID:        "docs",
		URL:       "https://mcp.example.com/mcp",
		Transport: config.TransportHTTP,
		Auth:      config.Auth{Type: config.AuthBearer, Token: "example-token"},
	}
	creds, err := authn.New(server, authn.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	req, _ := http.NewRequest(http.MethodPost, server.URL, nil)
	header, err := creds.Header(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("Authorization:", header.Get("Authorization"))
	fmt.Println("OAuth handler:", creds.OAuth != nil)
	// Output:
	// Authorization: Bearer example-token
	// OAuth handler: false
}
