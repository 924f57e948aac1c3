package main

import (
	"strings"

	"github.com/mcphost/mcphost/host/config"
)

// scenarioContext is MCP_CONFORMANCE_CONTEXT: the tool calls a user would
// make and the credentials a user would have configured.
type scenarioContext struct {
	ToolCalls    []toolCall `json:"toolCalls"`
	ClientID     string     `json:"client_id"`
	ClientSecret string     `json:"client_secret"`
	// client-credentials-jwt
	PrivateKeyPEM    string `json:"private_key_pem"`
	SigningAlgorithm string `json:"signing_algorithm"`
	// enterprise-managed-authorization
	IDPClientID string `json:"idp_client_id"`
	IDPIDToken  string `json:"idp_id_token"`
	IDPIssuer   string `json:"idp_issuer"`
	// wif-jwt-bearer
	ValidJWT string `json:"valid_jwt"`
}

// clientMetadataURL is the client ID metadata document the suite's
// authorization servers accept.
const clientMetadataURL = "https://conformance-test.local/client-metadata.json"

// auth is the server's auth block as the user would write it for what the
// context holds: a workload JWT (jwt_bearer), an IdP ID token
// (enterprise), a private key (client_credentials with private_key_jwt),
// a client ID and secret for a machine-to-machine scenario
// (client_credentials, the only grant its authorization server offers),
// and otherwise an oauth block — with the pre-registered client when there
// is one — for the authorization-code login.
func (c *scenarioContext) auth(scenario string) (config.Auth, error) {
	switch {
	case c.ValidJWT != "":
		return config.Auth{Type: config.AuthJWTBearer, ClientID: c.ClientID, Assertion: c.ValidJWT}, nil
	case c.IDPIDToken != "":
		return config.Auth{Type: config.AuthEnterprise, ClientID: c.ClientID, ClientSecret: c.ClientSecret,
			IDPIssuer: c.IDPIssuer, IDPClientID: c.IDPClientID, IDToken: c.IDPIDToken}, nil
	case c.PrivateKeyPEM != "":
		return config.Auth{Type: config.AuthClientCredentials, ClientID: c.ClientID, PrivateKey: c.PrivateKeyPEM,
			SigningAlgorithm: strings.ToUpper(c.SigningAlgorithm)}, nil
	case c.ClientSecret != "" && strings.HasPrefix(scenario, "auth/client-credentials"):
		return config.Auth{Type: config.AuthClientCredentials, ClientID: c.ClientID, ClientSecret: c.ClientSecret}, nil
	}
	return config.Auth{Type: config.AuthOAuth, ClientID: c.ClientID, ClientSecret: c.ClientSecret, ClientMetadataURL: clientMetadataURL}, nil
}
