package main

import (
	"strings"
	"testing"

	"github.com/mcphost/mcphost/pdk"
	"github.com/mcphost/mcphost/pdk/abi"
)

const secret = "s3cr3t-value"

func TestDescribe(t *testing.T) {
	d, err := pdk.Description()
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "header-auth" || len(d.Hooks) != 1 || d.Hooks[0] != abi.HookAuth {
		t.Fatalf("Description() = %+v", d)
	}
}

func TestHeaders(t *testing.T) {
	cases := []struct {
		name    string
		config  map[string]string
		secrets map[string]string
		want    map[string]string
	}{
		{"defaults", nil, map[string]string{"token": secret},
			map[string]string{"Authorization": "Bearer " + secret}},
		{"api key header without prefix",
			map[string]string{"secret": "gh", "header": "X-API-Key", "prefix": "none"},
			map[string]string{"gh": secret, "token": "other"},
			map[string]string{"X-API-Key": secret}},
		{"other scheme", map[string]string{"prefix": "token "}, map[string]string{"token": secret},
			map[string]string{"Authorization": "token " + secret}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Cleanup(pdk.UseMock(&pdk.Mock{Config: c.config, Secrets: c.secrets}))
			var resp abi.AuthResponse
			err := pdk.CallJSON(abi.HookAuth, abi.AuthRequest{Server: "api", URL: "https://api.example/mcp"}, &resp)
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Headers) != len(c.want) {
				t.Fatalf("headers = %v, want %v", resp.Headers, c.want)
			}
			for k, v := range c.want {
				if resp.Headers[k] != v {
					t.Fatalf("headers = %v, want %v", resp.Headers, c.want)
				}
			}
		})
	}
}

func TestChallengeIsLoggedWithoutTheSecret(t *testing.T) {
	m := &pdk.Mock{Secrets: map[string]string{"token": secret}}
	t.Cleanup(pdk.UseMock(m))
	req := abi.AuthRequest{Server: "api", URL: "https://api.example/mcp", Challenge: &abi.Challenge{Status: 401, WWWAuthenticate: `Bearer error="invalid_token"`}}
	var resp abi.AuthResponse
	if err := pdk.CallJSON(abi.HookAuth, req, &resp); err != nil {
		t.Fatal(err)
	}
	logs := m.Logs()
	if len(logs) != 1 || logs[0].Level != abi.LogWarn || !strings.Contains(logs[0].Message, "401") {
		t.Fatalf("logs = %+v, want one warning about the 401", logs)
	}
	if strings.Contains(logs[0].Message, secret) {
		t.Fatal("the log message contains the secret")
	}
}

func TestErrorsNeverShowTheSecret(t *testing.T) {
	cases := []struct {
		name    string
		config  map[string]string
		secrets map[string]string
		want    string
	}{
		{"not granted", nil, nil, `secret "token" is not granted`},
		{"other name granted", map[string]string{"secret": "gh"}, map[string]string{"token": secret}, `secret "gh" is not granted`},
		{"line break", nil, map[string]string{"token": secret + "\r\nX-Evil: 1"}, "line break"},
		{"bad header", map[string]string{"header": "Bad Header:"}, map[string]string{"token": secret}, "not a valid HTTP header name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := &pdk.Mock{Config: c.config, Secrets: c.secrets}
			t.Cleanup(pdk.UseMock(m))
			var resp abi.AuthResponse
			err := pdk.CallJSON(abi.HookAuth, abi.AuthRequest{Server: "api", URL: "https://api.example/mcp"}, &resp)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %+v, %v; want an error with %q", resp, err, c.want)
			}
			if strings.Contains(err.Error(), secret) {
				t.Fatalf("the error shows the secret: %v", err)
			}
			for _, l := range m.Logs() {
				if strings.Contains(l.Message, secret) {
					t.Fatalf("a log message shows the secret: %q", l.Message)
				}
			}
		})
	}
}
