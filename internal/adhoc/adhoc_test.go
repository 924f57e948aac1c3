package adhoc_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/adhoc"
)

// load builds the ad-hoc configuration over a global file holding global.
func load(t *testing.T, global string, environ []string, spec adhoc.Spec) (*config.Config, error) {
	t.Helper()
	opts := config.LoadOptions{GlobalDir: t.TempDir(), WorkDir: t.TempDir(), Environ: environ}
	if global != "" {
		if err := os.WriteFile(filepath.Join(opts.GlobalDir, "config.yaml"), []byte(global), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	base, err := config.Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	return adhoc.Config(opts, base, spec)
}

func TestCommandServer(t *testing.T) {
	t.Parallel()
	global := "servers:\n  github: {command: gh-mcp}\n  adhoc: {url: 'http://127.0.0.1:9/mcp'}\npolicy:\n  deny: ['*:delete_*']\n"
	cfg, err := load(t, global, []string{"TOKEN=t0"}, adhoc.Spec{
		Command: []string{"npx", "-y", "some-server", "--flag"},
		Env:     []string{"TOKEN=${TOKEN}", "PLAIN=a=b"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Servers) != 1 {
		t.Fatalf("servers = %d, want the ad-hoc server alone", len(cfg.Servers))
	}
	s := cfg.Servers[0]
	// "adhoc" is taken by the configuration: the next free id.
	if s.ID != "adhoc-2" || s.Transport != config.TransportStdio || s.Command != "npx" ||
		!reflect.DeepEqual(s.Args, []string{"-y", "some-server", "--flag"}) || !s.Enabled || s.Untrusted || s.Source != adhoc.Source {
		t.Errorf("server = %+v", s)
	}
	if s.Env["TOKEN"] != "t0" || s.Env["PLAIN"] != "a=b" {
		t.Errorf("env = %v, want ${TOKEN} expanded", s.Env)
	}
	// The rest of the configuration still applies.
	if !reflect.DeepEqual(cfg.Policy.Deny, []string{"*:delete_*"}) {
		t.Errorf("policy = %+v, want the configured deny list", cfg.Policy)
	}
}

func TestURLServer(t *testing.T) {
	t.Parallel()
	cfg, err := load(t, "", []string{"API_TOKEN=tok-123456"}, adhoc.Spec{
		URL:       "http://127.0.0.1:8080/sse",
		Transport: "sse",
		Headers:   []string{"Authorization: Bearer ${API_TOKEN}", "X-Mode=a:b", "X-Empty:"},
	})
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Servers[0]
	if s.ID != adhoc.ID || s.Transport != config.TransportSSE || s.URL != "http://127.0.0.1:8080/sse" {
		t.Errorf("server = %+v", s)
	}
	want := map[string]string{"Authorization": "Bearer tok-123456", "X-Mode": "a:b", "X-Empty": ""}
	if !reflect.DeepEqual(s.Headers, want) {
		t.Errorf("headers = %v, want %v", s.Headers, want)
	}
	// The expanded header is a secret of the configuration: output that
	// quotes it is redacted.
	if secrets := strings.Join(cfg.SecretValues(), "\n"); !strings.Contains(secrets, "tok-123456") {
		t.Errorf("the header value is not among the secrets: %q", secrets)
	}
	// A URL alone is Streamable HTTP.
	cfg, err = load(t, "", nil, adhoc.Spec{URL: "https://127.0.0.1/mcp"})
	if err != nil || cfg.Servers[0].Transport != config.TransportHTTP {
		t.Errorf("--url alone: %v %+v", err, cfg)
	}
}

func TestSpecErrors(t *testing.T) {
	t.Parallel()
	const secret = "s3cret-value-77"
	for _, tc := range []struct {
		spec adhoc.Spec
		want string
	}{
		{adhoc.Spec{Env: []string{"A=1"}}, "give the command to start after --"},
		{adhoc.Spec{Command: []string{"x"}, URL: "http://127.0.0.1/"}, "either a command after -- or --url"},
		{adhoc.Spec{Command: []string{""}}, "the command after -- is empty"},
		{adhoc.Spec{Command: []string{"x"}, Headers: []string{"A: b"}}, "--header is for --url servers"},
		{adhoc.Spec{URL: "http://127.0.0.1/", Env: []string{"A=1"}}, "--env is for a command"},
		{adhoc.Spec{Command: []string{"x"}, Transport: "sse"}, `--transport "sse" needs --url`},
		{adhoc.Spec{URL: "http://127.0.0.1/", Transport: "stdio"}, "--transport stdio needs a command"},
		{adhoc.Spec{URL: "http://127.0.0.1/", Transport: "carrier-pigeon"}, "ad-hoc server: --transport: "},
		{adhoc.Spec{URL: "127.0.0.1/mcp"}, "ad-hoc server: --url: "},
		{adhoc.Spec{URL: "ftp://127.0.0.1/mcp"}, "ad-hoc server: --url: "},
		{adhoc.Spec{URL: "http://127.0.0.1/", Headers: []string{secret}}, "--header 1: write \"Name: value\""},
		{adhoc.Spec{URL: "http://127.0.0.1/", Headers: []string{"Bad Name: " + secret}}, `--header 1: "Bad Name" is not a header name`},
		{adhoc.Spec{Command: []string{"x"}, Env: []string{"1BAD=" + secret}}, "--env 1: write KEY=VALUE"},
		{adhoc.Spec{URL: "http://127.0.0.1/", Headers: []string{"A: ${UNSET_VAR}"}}, `ad-hoc server: --header A: variable "UNSET_VAR" is not set`},
	} {
		_, err := load(t, "", nil, tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.spec, err, tc.want)
			continue
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("%+v: the error shows a header or env value: %v", tc.spec, err)
		}
		if strings.Contains(err.Error(), "config: flags") {
			t.Errorf("%+v: the error names the configuration layer, not the flag: %v", tc.spec, err)
		}
	}
}

func TestIsSet(t *testing.T) {
	t.Parallel()
	if (adhoc.Spec{}).IsSet() {
		t.Error("the zero spec is set")
	}
	for _, s := range []adhoc.Spec{{Command: []string{"x"}}, {URL: "u"}, {Headers: []string{"a"}}, {Transport: "sse"}, {Env: []string{"a"}}} {
		if !s.IsSet() {
			t.Errorf("%+v is not set", s)
		}
	}
}

// An administrator who locks the servers gets a message that says so, not
// an internal error.
func TestLockedServers(t *testing.T) {
	t.Parallel()
	managed := t.TempDir()
	if err := os.WriteFile(filepath.Join(managed, "managed.yaml"), []byte("managed: {lock_settings: [servers]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := config.LoadOptions{GlobalDir: t.TempDir(), WorkDir: t.TempDir(), ManagedDir: managed, Environ: []string{}}
	base, err := config.Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	_, err = adhoc.Config(opts, base, adhoc.Spec{Command: []string{"x"}})
	if err == nil || !strings.Contains(err.Error(), "the administrator locked servers") {
		t.Fatalf("err = %v", err)
	}
}
