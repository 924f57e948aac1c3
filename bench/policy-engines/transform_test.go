package policyengines

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/plugins"
)

// The transform benchmarks: redact-secrets (Rust, Wasm) against Redactor
// (Go regexp) on the same text tool results. Both decode the result's JSON,
// redact its text and encode it again; b.SetBytes is the text's size.
//
//	go test -run '^$' -bench Transform .

var transformSizes = []struct {
	name string
	size int
}{
	{"1KiB", 1 << 10},
	{"64KiB", 64 << 10},
	{"1MiB", 1 << 20},
	{"16MiB", 16 << 20},
}

// transformLimits are redact-secrets' limits for every size: a 16 MiB
// result needs more than the default 64 MiB of guest memory (the request,
// the parsed text, the redacted copy, the answer) and a larger output cap
// than 1 MiB, and scanning it takes longer than the default 100 ms timeout.
// A timeout is still set, as in production, where it has a cost.
var transformLimits = plugins.Limits{
	Timeout:        60 * time.Second,
	MemoryMB:       256,
	MaxOutputBytes: 64 << 20,
}

func openRedactSecrets(tb testing.TB) *Plugin {
	tb.Helper()
	p, err := openBuilt(tb, "redact-secrets", nil, &transformLimits)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

func transformRequest(result json.RawMessage) *abi.TransformResultRequest {
	return &abi.TransformResultRequest{
		Server: "files", Tool: "read_file", Name: "files_read_file",
		Arguments: map[string]any{"path": "notes.txt"},
		Result:    result,
	}
}

func BenchmarkTransform(b *testing.B) {
	b.Run("mcphost-rust-redact-secrets", func(b *testing.B) {
		p := openRedactSecrets(b)
		for _, s := range transformSizes {
			b.Run(s.name, func(b *testing.B) {
				text, sp := GenerateText(s.size)
				req := transformRequest(TextResult(text))
				ctx := context.Background()
				var res *abi.TransformResultResponse
				b.SetBytes(int64(len(text)))
				b.ReportAllocs()
				for b.Loop() {
					var err error
					if res, err = p.Transform(ctx, req); err != nil {
						b.Fatal(err)
					}
				}
				// Not a no-op: the secrets are gone, nothing else is.
				checkRedacted(b, res.Result, sp)
			})
		}
	})
	b.Run("go-regexp", func(b *testing.B) {
		r := NewRedactor()
		for _, s := range transformSizes {
			b.Run(s.name, func(b *testing.B) {
				text, sp := GenerateText(s.size)
				result := TextResult(text)
				var out json.RawMessage
				b.SetBytes(int64(len(text)))
				b.ReportAllocs()
				for b.Loop() {
					var err error
					if out, _, err = r.TransformResult(result); err != nil {
						b.Fatal(err)
					}
				}
				checkRedacted(b, out, sp)
			})
		}
	})
}

// TestTransformAgrees: the plugin and the Go regexps redact the generated
// text alike, and redact exactly what was sprinkled in it.
func TestTransformAgrees(t *testing.T) {
	r := NewRedactor()
	var p *Plugin
	if _, ok := PluginPath("redact-secrets"); ok {
		p = openRedactSecrets(t)
	} else {
		t.Logf("%s is not set: checking the Go redaction only", BuiltPluginsEnv)
	}
	for _, s := range transformSizes[:3] {
		text, sp := GenerateText(s.size)
		if len(text) != s.size || sp.GitHubTokens == 0 || sp.Emails == 0 || sp.BearerTokens == 0 {
			t.Fatalf("%s: %d bytes with %+v", s.name, len(text), sp)
		}
		goOut, n, err := r.TransformResult(TextResult(text))
		if err != nil {
			t.Fatal(err)
		}
		if n != sp.Total() {
			t.Errorf("%s: Go redacted %d, want %d", s.name, n, sp.Total())
		}
		checkRedacted(t, goOut, sp)
		if p == nil {
			continue
		}
		res, err := p.Transform(context.Background(), transformRequest(TextResult(text)))
		if err != nil {
			t.Fatal(err)
		}
		checkRedacted(t, res.Result, sp)
		if got, want := resultText(t, res.Result), resultText(t, goOut); got != want {
			t.Errorf("%s: the plugin's text differs from Go's", s.name)
		}
	}
}

// TestRedactorKinds: each kind on its own, with the plugin README's
// examples.
func TestRedactorKinds(t *testing.T) {
	r := NewRedactor()
	cases := []struct{ in, want string }{
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\nok", "[REDACTED:private_key]\nok"},
		{"-----BEGIN CERTIFICATE-----\nMIIE\n-----END CERTIFICATE-----", "-----BEGIN CERTIFICATE-----\nMIIE\n-----END CERTIFICATE-----"},
		{"Authorization: Bearer eyJhbGciOi.eyJzdWIi.c2ln", "Authorization: Bearer [REDACTED:bearer_token]"},
		{"the bearer of this letter", "the bearer of this letter"},
		{"key sk-proj-4fT9xQ2mZk81LwPq0a7bVn3c end", "key [REDACTED:api_key] end"},
		{"sk-learn-style-guidelines-for-everyone", "sk-learn-style-guidelines-for-everyone"},
		{"token: ghp_0123456789abcdefghijABCDEFGHIJ012345.", "token: [REDACTED:api_key]."},
		{"aws AKIAIOSFODNN7EXAMPLE ok", "aws [REDACTED:api_key] ok"},
		{`{"api_key": "s3cr3t", "n": 1}`, `{"api_key": "[REDACTED:api_key]", "n": 1}`},
		{"X-Api-Key: 0a1b2c3d4e5f", "X-Api-Key: [REDACTED:api_key]"},
		{"mail ops@example.com now", "mail [REDACTED:email] now"},
		{"pkg@1.2.3", "pkg@1.2.3"},
	}
	for _, c := range cases {
		if got, _ := r.Redact(c.in); got != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// resultText is the text of a result's one text content item.
func resultText(tb testing.TB, result json.RawMessage) string {
	tb.Helper()
	var res struct {
		Content []struct {
			Type, Text string
		}
	}
	if err := json.Unmarshal(result, &res); err != nil {
		tb.Fatal(err)
	}
	if len(res.Content) != 1 || res.Content[0].Type != "text" {
		tb.Fatalf("result has %d content items, want one text item", len(res.Content))
	}
	return res.Content[0].Text
}

// checkRedacted fails tb unless every sprinkled secret was replaced by its
// marker and nothing else was.
func checkRedacted(tb testing.TB, result json.RawMessage, sp Sprinkled) {
	tb.Helper()
	text := resultText(tb, result)
	for _, c := range []struct {
		marker string
		want   int
	}{
		{"[REDACTED:api_key]", sp.GitHubTokens},
		{"[REDACTED:email]", sp.Emails},
		{"[REDACTED:bearer_token]", sp.BearerTokens},
		{"[REDACTED:", sp.Total()},
	} {
		if got := strings.Count(text, c.marker); got != c.want {
			tb.Fatalf("%d × %s, want %d", got, c.marker, c.want)
		}
	}
	if strings.Contains(text, "ghp_") || strings.Contains(text, "@example.com") {
		tb.Fatal("a secret is left in the result")
	}
}
