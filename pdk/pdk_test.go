package pdk_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/pdk"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/pdk/auth"
	"github.com/mcphost/mcphost/pdk/filtertools"
	"github.com/mcphost/mcphost/pdk/mapnames"
	"github.com/mcphost/mcphost/pdk/policy"
	"github.com/mcphost/mcphost/pdk/transformresult"
)

// fresh starts a test from a plugin that has registered nothing and has the
// empty Mock as its host.
func fresh(t *testing.T, m *pdk.Mock) *pdk.Mock {
	t.Helper()
	pdk.Reset()
	t.Cleanup(pdk.Reset)
	if m == nil {
		m = &pdk.Mock{}
	}
	t.Cleanup(pdk.UseMock(m))
	return m
}

func TestDescribe(t *testing.T) {
	fresh(t, nil)
	pdk.Describe("p", "1.2.3")
	// Registered out of pipeline order: describe lists them in abi.Hooks order.
	auth.Handle(func(*abi.AuthRequest) (*abi.AuthResponse, error) { return &abi.AuthResponse{}, nil })
	policy.Handle(func(*abi.PolicyRequest) (*abi.PolicyDecision, error) {
		return &abi.PolicyDecision{Decision: abi.Allow}, nil
	})
	d, err := pdk.Description()
	if err != nil {
		t.Fatal(err)
	}
	want := abi.Description{ABI: abi.Version, Name: "p", Version: "1.2.3", Hooks: []abi.Hook{abi.HookPolicy, abi.HookAuth}}
	if !reflect.DeepEqual(d, want) {
		t.Fatalf("Description() = %+v, want %+v", d, want)
	}
	b, _ := json.Marshal(d)
	if got := string(b); got != `{"abi":1,"name":"p","version":"1.2.3","hooks":["policy","auth"]}` {
		t.Fatalf("describe JSON = %s", got)
	}
}

func TestDescribeNoHooksIsAnEmptyList(t *testing.T) {
	fresh(t, nil)
	pdk.Describe("p", "")
	d, err := pdk.Description()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(d)
	if got := string(b); got != `{"abi":1,"name":"p","hooks":[]}` {
		t.Fatalf("describe JSON = %s", got)
	}
}

func TestRegistrationMistakes(t *testing.T) {
	allow := func(*abi.PolicyRequest) (*abi.PolicyDecision, error) {
		return &abi.PolicyDecision{Decision: abi.Allow}, nil
	}
	cases := []struct {
		name  string
		setup func()
		want  string
	}{
		{"no Describe", func() { policy.Handle(allow) }, "did not call pdk.Describe"},
		{"empty name", func() { pdk.Describe("", "1") }, "name is empty"},
		{"twice", func() { pdk.Describe("p", ""); policy.Handle(allow); policy.Handle(allow) }, "registered twice"},
		{"nil", func() { pdk.Describe("p", ""); policy.Handle(nil) }, "nil handler"},
		{"unknown hook", func() {
			pdk.Describe("p", "")
			pdk.Register("nope", func([]byte) ([]byte, error) { return nil, nil })
		}, `unknown hook "nope"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fresh(t, nil)
			c.setup()
			if _, err := pdk.Description(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Description() error = %v, want it to contain %q", err, c.want)
			}
			if c.name == "no Describe" {
				return // the hook itself works; only describe needs the name
			}
			// A registration mistake also fails every hook call, so that
			// it shows even where describe is not looked at.
			if _, err := pdk.Call(abi.HookPolicy, []byte(`{}`)); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Call() error = %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestPolicyRoundTrip(t *testing.T) {
	fresh(t, nil)
	pdk.Describe("p", "")
	var got *abi.PolicyRequest
	policy.Handle(func(req *abi.PolicyRequest) (*abi.PolicyDecision, error) {
		got = req
		return &abi.PolicyDecision{Decision: abi.Deny, Reason: "no", Arguments: map[string]any{"path": "/srv/tmp"}}, nil
	})
	in := `{"server":"fs","tool":"write","name":"fs_write","arguments":{"path":"/etc"},` +
		`"annotations":{"destructiveHint":false,"openWorldHint":false},"caller":{"kind":"cli"},"pin":"changed","future_field":1}`
	out, err := pdk.Call(abi.HookPolicy, []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got.Server != "fs" || got.Tool != "write" || got.Name != "fs_write" || got.Arguments["path"] != "/etc" ||
		got.Annotations.Destructive() || got.Annotations.OpenWorld() || got.Caller.Kind != "cli" || got.Pin != "changed" {
		t.Fatalf("request decoded as %+v", got)
	}
	if string(out) != `{"decision":"deny","reason":"no","arguments":{"path":"/srv/tmp"}}` {
		t.Fatalf("output = %s", out)
	}
}

func TestHookErrors(t *testing.T) {
	cases := []struct {
		name  string
		setup func()
		hook  abi.Hook
		input string
		want  string
	}{
		{"handler error", func() {
			policy.Handle(func(*abi.PolicyRequest) (*abi.PolicyDecision, error) { return nil, errors.New("cannot decide") })
		}, abi.HookPolicy, `{}`, "cannot decide"},
		{"panic", func() {
			policy.Handle(func(req *abi.PolicyRequest) (*abi.PolicyDecision, error) {
				var m map[string]int
				m[req.Tool] = 1 // nil map write
				return nil, nil
			})
		}, abi.HookPolicy, `{"tool":"x"}`, "panic in the policy hook"},
		{"bad input", func() {
			policy.Handle(func(*abi.PolicyRequest) (*abi.PolicyDecision, error) {
				return &abi.PolicyDecision{Decision: abi.Allow}, nil
			})
		}, abi.HookPolicy, `{"server":`, "decoding the policy input"},
		{"nil answer", func() {
			policy.Handle(func(*abi.PolicyRequest) (*abi.PolicyDecision, error) { return nil, nil })
		}, abi.HookPolicy, `{}`, "neither a result nor an error"},
		{"bad decision", func() {
			policy.Handle(func(*abi.PolicyRequest) (*abi.PolicyDecision, error) {
				return &abi.PolicyDecision{Decision: "maybe"}, nil
			})
		}, abi.HookPolicy, `{}`, `decision "maybe"`},
		{"not registered", func() {}, abi.HookAuth, `{}`, "no handler is registered for the auth hook"},
		{"name count", func() {
			mapnames.Handle(func(*abi.MapNamesRequest) (*abi.MapNamesResponse, error) {
				return &abi.MapNamesResponse{Names: []string{"a"}}, nil
			})
		}, abi.HookMapNames, `{"tools":[{"server":"s","tool":"a"},{"server":"s","tool":"b"}]}`, "1 names for 2 tools"},
		{"no result", func() {
			transformresult.Handle(func(*abi.TransformResultRequest) (*abi.TransformResultResponse, error) {
				return &abi.TransformResultResponse{}, nil
			})
		}, abi.HookTransformResult, `{"result":{"content":[]}}`, "answered no result"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fresh(t, nil)
			pdk.Describe("p", "")
			c.setup()
			out, err := pdk.Call(c.hook, []byte(c.input))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Call() = %s, %v; want an error containing %q", out, err, c.want)
			}
		})
	}
}

func TestEmptyListsAreNotNull(t *testing.T) {
	fresh(t, nil)
	pdk.Describe("p", "")
	filtertools.Handle(func(*abi.FilterToolsRequest) (*abi.FilterToolsResponse, error) {
		return &abi.FilterToolsResponse{}, nil
	})
	mapnames.Handle(func(*abi.MapNamesRequest) (*abi.MapNamesResponse, error) { return &abi.MapNamesResponse{}, nil })
	auth.Handle(func(*abi.AuthRequest) (*abi.AuthResponse, error) { return &abi.AuthResponse{}, nil })
	for hook, want := range map[abi.Hook]string{
		abi.HookFilterTools: `{"tools":[]}`,
		abi.HookMapNames:    `{"names":[]}`,
		abi.HookAuth:        `{"headers":{}}`,
	} {
		out, err := pdk.Call(hook, []byte(`{"server":"s","tools":[]}`))
		if err != nil || string(out) != want {
			t.Errorf("%s: Call() = %s, %v; want %s", hook, out, err, want)
		}
	}
}

func TestTransformResultKeepsRawJSON(t *testing.T) {
	fresh(t, nil)
	pdk.Describe("p", "")
	transformresult.Handle(func(req *abi.TransformResultRequest) (*abi.TransformResultResponse, error) {
		return &abi.TransformResultResponse{Result: req.Result}, nil
	})
	// Large integers and field order survive: the result is never decoded.
	result := `{"content":[{"type":"text","text":"hi"}],"structuredContent":{"n":12345678901234567890}}`
	var out abi.TransformResultResponse
	err := pdk.CallJSON(abi.HookTransformResult, abi.TransformResultRequest{Server: "s", Result: json.RawMessage(result)}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if string(out.Result) != result {
		t.Fatalf("result = %s, want %s", out.Result, result)
	}
}

func TestConfigSecretsAndLogs(t *testing.T) {
	m := fresh(t, &pdk.Mock{
		Config:  map[string]string{"team": "blue", "empty": ""},
		Secrets: map[string]string{"token": "s3cr3t", "blank": ""},
	})
	if v, ok := pdk.Config("team"); !ok || v != "blue" {
		t.Errorf(`Config("team") = %q, %v`, v, ok)
	}
	for _, k := range []string{"missing", "empty"} {
		if v, ok := pdk.Config(k); ok || v != "" {
			t.Errorf("Config(%q) = %q, %v; want not set", k, v, ok)
		}
	}
	if v := pdk.ConfigOr("missing", "def"); v != "def" {
		t.Errorf("ConfigOr = %q", v)
	}
	if v, ok := pdk.Secret("token"); !ok || v != "s3cr3t" {
		t.Errorf(`Secret("token") = %q, %v`, v, ok)
	}
	for _, k := range []string{"missing", "blank"} {
		if v, ok := pdk.Secret(k); ok || v != "" {
			t.Errorf("Secret(%q) = %q, %v; want not granted", k, v, ok)
		}
	}
	pdk.Log(abi.LogInfo, "hello")
	pdk.Logf(abi.LogWarn, "n=%d", 3)
	want := []pdk.LogEntry{{Level: abi.LogInfo, Message: "hello"}, {Level: abi.LogWarn, Message: "n=3"}}
	if got := m.Logs(); !reflect.DeepEqual(got, want) {
		t.Errorf("Logs() = %+v, want %+v", got, want)
	}
}

func TestUseMockRestores(t *testing.T) {
	pdk.Reset()
	restore := pdk.UseMock(&pdk.Mock{Config: map[string]string{"k": "v"}})
	if _, ok := pdk.Config("k"); !ok {
		t.Fatal("the Mock is not in use")
	}
	restore()
	// Natively the default host is an empty Mock.
	if _, ok := pdk.Config("k"); ok {
		t.Fatal("restore did not put the previous host back")
	}
}

func TestHTTP(t *testing.T) {
	fresh(t, &pdk.Mock{HTTP: func(req abi.HTTPRequest) abi.HTTPResponse {
		switch req.URL {
		case "https://idp.example/token":
			return abi.HTTPResponse{Status: 200, Headers: map[string]string{"Content-Type": "application/json"}, Body: append([]byte("got "), req.Body...)}
		case "https://idp.example/missing":
			return abi.HTTPResponse{Status: 404}
		default:
			return abi.HTTPResponse{Error: "host not allowed"}
		}
	}})
	resp, err := pdk.HTTP(abi.HTTPRequest{Method: "POST", URL: "https://idp.example/token", Body: []byte("grant")})
	if err != nil || resp.Status != 200 || string(resp.Body) != "got grant" || resp.Headers["Content-Type"] != "application/json" {
		t.Fatalf("HTTP() = %+v, %v", resp, err)
	}
	// An HTTP error status is a response, not an error.
	if resp, err := pdk.HTTP(abi.HTTPRequest{Method: "GET", URL: "https://idp.example/missing"}); err != nil || resp.Status != 404 {
		t.Fatalf("HTTP(404) = %+v, %v", resp, err)
	}
	resp, err = pdk.HTTP(abi.HTTPRequest{Method: "GET", URL: "https://evil.example/"})
	if err == nil || !strings.Contains(err.Error(), "host not allowed") || resp.Error != "host not allowed" {
		t.Fatalf("refused HTTP() = %+v, %v", resp, err)
	}
}

func TestHTTPWithoutFunctionIsRefused(t *testing.T) {
	fresh(t, nil)
	if _, err := pdk.HTTP(abi.HTTPRequest{Method: "GET", URL: "https://idp.example/"}); err == nil ||
		!strings.Contains(err.Error(), "not available") {
		t.Fatalf("HTTP() error = %v, want not available", err)
	}
}

// JSON adapts a typed function with encoding/json, for a hook the PDK has no
// package for: it decodes the input, encodes the answer and refuses a
// missing one.
func TestJSONAdapter(t *testing.T) {
	fresh(t, nil)
	pdk.Describe("p", "1")
	pdk.Register(abi.HookPolicy, pdk.JSON(abi.HookPolicy, func(req *abi.PolicyRequest) (*abi.PolicyDecision, error) {
		switch req.Tool {
		case "fail":
			return nil, errors.New("cannot decide")
		case "nothing":
			return nil, nil
		}
		return &abi.PolicyDecision{Decision: abi.Deny, Reason: "no " + req.Tool}, nil
	}))

	out, err := pdk.Call(abi.HookPolicy, []byte(`{"server":"s","tool":"rm"}`))
	if err != nil || string(out) != `{"decision":"deny","reason":"no rm"}` {
		t.Fatalf("Call = %s, %v", out, err)
	}
	for input, want := range map[string]string{
		`{"tool":"fail"}`:    "cannot decide",
		`{"tool":"nothing"}`: "pdk: the policy hook returned neither a result nor an error",
		`{"tool":`:           "pdk: decoding the policy input",
	} {
		if _, err := pdk.Call(abi.HookPolicy, []byte(input)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Call(%s) error = %v, want it to say %q", input, err, want)
		}
	}
}
