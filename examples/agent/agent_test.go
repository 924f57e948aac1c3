package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/hosttest"
)

// bound is a failure bound for waits, never a performance expectation:
// under the race detector on a loaded machine, a run that compiles the
// policy plugin and starts the server once took more than 30 s.
const bound = 3 * time.Minute

const testKey = "sk-test-0123456789abcdef"

// fakeModel plays a model API on 127.0.0.1: asked without a tool result,
// it calls the echo tool with "ping-<format>"; given the tool's result, it
// answers with it. Each provider's request shape is checked on the way.
type fakeModel struct {
	t        *testing.T
	format   string
	alwaysTC bool // never answer: call the tool every time

	mu       sync.Mutex
	requests int
	failures []string
	results  []string // the tool results the model was given
	offered  []string // the tool names of the last request
}

func (m *fakeModel) fail(format string, args ...any) {
	m.failures = append(m.failures, fmt.Sprintf(format, args...))
}

func (m *fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests++
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		m.fail("request body: %v", err)
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	want := map[string]struct{ path, header string }{
		"openai":           {"/chat/completions", "Authorization"},
		"openai-responses": {"/responses", "Authorization"},
		"anthropic":        {"/v1/messages", "X-Api-Key"},
		"gemini":           {"/v1beta/models/test-model:generateContent", "X-Goog-Api-Key"},
	}[m.format]
	if r.URL.Path != want.path {
		m.fail("path %s, want %s", r.URL.Path, want.path)
	}
	if got := r.Header.Get(want.header); !strings.HasSuffix(got, testKey) {
		m.fail("header %s: %q", want.header, got)
	}
	tool, result, callID := m.read(body)
	if result != "" {
		m.results = append(m.results, result)
	}
	if tool == "" {
		m.fail("no echo tool offered: %v", body["tools"])
		http.Error(w, "no tool", http.StatusBadRequest)
		return
	}
	if result != "" && callID != "call_1" && m.format != "gemini" {
		m.fail("the result answers call %q, want call_1", callID)
	}
	var out string
	if result == "" || m.alwaysTC {
		out = m.toolCall(tool, "ping-"+m.format)
	} else {
		out = m.answer("The echo tool said: " + result)
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, out)
}

// read finds the echo tool's name and the result of its call, if the
// conversation holds one.
func (m *fakeModel) read(body map[string]any) (tool, result, callID string) {
	list := func(v any) []any { l, _ := v.([]any); return l }
	obj := func(v any) map[string]any { o, _ := v.(map[string]any); return o }
	str := func(v any) string { s, _ := v.(string); return s }
	var names []string
	switch m.format {
	case "openai":
		for _, t := range list(body["tools"]) {
			names = append(names, str(obj(obj(t)["function"])["name"]))
		}
		for _, msg := range list(body["messages"]) {
			if obj(msg)["role"] == "tool" {
				result, callID = str(obj(msg)["content"]), str(obj(msg)["tool_call_id"])
			}
		}
	case "openai-responses":
		for _, t := range list(body["tools"]) {
			names = append(names, str(obj(t)["name"]))
		}
		for _, it := range list(body["input"]) {
			if obj(it)["type"] == "function_call_output" {
				result, callID = str(obj(it)["output"]), str(obj(it)["call_id"])
			}
		}
	case "anthropic":
		for _, t := range list(body["tools"]) {
			names = append(names, str(obj(t)["name"]))
		}
		for _, msg := range list(body["messages"]) {
			for _, b := range list(obj(msg)["content"]) {
				if obj(b)["type"] == "tool_result" {
					result = str(obj(list(obj(b)["content"])[0])["text"])
					callID = str(obj(b)["tool_use_id"])
				}
			}
		}
	case "gemini":
		for _, t := range list(obj(list(body["tools"])[0])["functionDeclarations"]) {
			names = append(names, str(obj(t)["name"]))
		}
		for _, c := range list(body["contents"]) {
			for _, p := range list(obj(c)["parts"]) {
				if fr := obj(obj(p)["functionResponse"]); fr != nil {
					result = str(obj(fr["response"])["output"])
				}
			}
		}
	}
	m.offered = names
	for _, n := range names {
		if strings.HasSuffix(n, "__echo") {
			tool = n
		}
	}
	return tool, result, callID
}

func (m *fakeModel) toolCall(tool, text string) string {
	args := fmt.Sprintf(`{"text":%q}`, text)
	argsText, _ := json.Marshal(args)
	switch m.format {
	case "openai":
		return fmt.Sprintf(`{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":%q,"arguments":%s}}]},"finish_reason":"tool_calls"}]}`, tool, argsText)
	case "openai-responses":
		return fmt.Sprintf(`{"output":[{"type":"reasoning","id":"rs_1","summary":[]},{"type":"function_call","id":"fc_1","call_id":"call_1","name":%q,"arguments":%s}]}`, tool, argsText)
	case "anthropic":
		return fmt.Sprintf(`{"content":[{"type":"text","text":"Calling it."},{"type":"tool_use","id":"call_1","name":%q,"input":%s}],"stop_reason":"tool_use"}`, tool, args)
	default:
		return fmt.Sprintf(`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":%q,"args":%s}}]}}]}`, tool, args)
	}
}

func (m *fakeModel) answer(text string) string {
	t, _ := json.Marshal(text)
	switch m.format {
	case "openai":
		return fmt.Sprintf(`{"choices":[{"message":{"role":"assistant","content":%s},"finish_reason":"stop"}]}`, t)
	case "openai-responses":
		return fmt.Sprintf(`{"output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":%s}]}]}`, t)
	case "anthropic":
		return fmt.Sprintf(`{"content":[{"type":"text","text":%s}],"stop_reason":"end_turn"}`, t)
	default:
		return fmt.Sprintf(`{"candidates":[{"content":{"role":"model","parts":[{"text":%s}]}}]}`, t)
	}
}

// agentEnv runs the agent in-process against a real MCP server (the echo
// server of hosttest over Streamable HTTP on 127.0.0.1) and a fake model.
type agentEnv struct {
	t      *testing.T
	config string
}

func newAgentEnv(t *testing.T) *agentEnv {
	mcpURL := hosttest.ServeHTTP(t, hosttest.NewEchoServer())
	file := filepath.Join(t.TempDir(), "agent.yaml")
	if err := os.WriteFile(file, []byte("servers:\n  echo:\n    url: "+mcpURL+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return &agentEnv{t: t, config: file}
}

func (e *agentEnv) run(env map[string]string, prompt string) (stdout, stderr string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	load := config.LoadOptions{GlobalDir: e.t.TempDir(), WorkDir: e.t.TempDir(), Environ: []string{}}
	var out, errOut bytes.Buffer
	err = run(ctx, []string{"-config", e.config, prompt}, func(k string) string { return env[k] }, load, &out, &errOut)
	return out.String(), errOut.String(), err
}

func modelEnv(format, url string) map[string]string {
	return map[string]string{
		"MCPHOST_AGENT_PROVIDER": format,
		"MCPHOST_AGENT_BASE_URL": url,
		"MCPHOST_AGENT_API_KEY":  testKey,
		"MCPHOST_AGENT_MODEL":    "test-model",
	}
}

func TestAgentRunsToolCallsThroughTheHost(t *testing.T) {
	e := newAgentEnv(t)
	for _, format := range []string{"openai", "openai-responses", "anthropic", "gemini"} {
		t.Run(format, func(t *testing.T) {
			m := &fakeModel{t: t, format: format}
			srv := httptest.NewServer(m)
			defer srv.Close()
			stdout, stderr, err := e.run(modelEnv(format, srv.URL), "say ping")
			if err != nil {
				t.Fatalf("run: %v\nstderr:\n%s", err, stderr)
			}
			// The answer holds what the MCP server's echo tool returned.
			if want := "The echo tool said: ping-" + format + "\n"; stdout != want {
				t.Errorf("stdout %q, want %q\nstderr:\n%s", stdout, want, stderr)
			}
			if !strings.Contains(stderr, "agent: calling mcp__echo__echo") {
				t.Errorf("stderr does not show the call:\n%s", stderr)
			}
			if strings.Contains(stdout+stderr, testKey) {
				t.Errorf("the API key was printed")
			}
			m.mu.Lock()
			defer m.mu.Unlock()
			if m.requests != 2 || len(m.failures) > 0 {
				t.Errorf("%d requests; problems: %v", m.requests, m.failures)
			}
		})
	}
}

func TestAgentStopsAfterMaxTurns(t *testing.T) {
	e := newAgentEnv(t)
	m := &fakeModel{t: t, format: "anthropic", alwaysTC: true}
	srv := httptest.NewServer(m)
	defer srv.Close()
	env := modelEnv("anthropic", srv.URL)
	env["MCPHOST_AGENT_MAX_TURNS"] = "3"
	_, _, err := e.run(env, "loop forever")
	if err == nil || !strings.Contains(err.Error(), "no final answer after 3") {
		t.Fatalf("error %v", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.requests != 3 {
		t.Errorf("%d requests, want 3", m.requests)
	}
}

func TestAgentAPIErrors(t *testing.T) {
	e := newAgentEnv(t)
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		want    string
	}{{
		name: "an error reply naming the key",
		handler: func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s"}}`, testKey)
		},
		want: "401 Unauthorized: Incorrect API key provided: [redacted]",
	}, {
		name: "a reply over the size limit",
		handler: func(w http.ResponseWriter, _ *http.Request) {
			w.Write(bytes.Repeat([]byte(" "), maxResponseBytes+10))
		},
		want: "over 8 MiB",
	}, {
		name: "a redirect is not followed",
		handler: func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://127.0.0.1:1/elsewhere", http.StatusTemporaryRedirect)
		},
		want: "307 Temporary Redirect",
	}, {
		name:    "a reply that is not JSON",
		handler: func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "<html>") },
		want:    "not what the API sends",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			_, stderr, err := e.run(modelEnv("openai", srv.URL), "hi")
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error()+stderr, testKey) {
				t.Errorf("error %v, want one saying %q (and never the key)", err, tc.want)
			}
		})
	}
}

func TestAgentSettings(t *testing.T) {
	base := map[string]string{"MCPHOST_AGENT_MODEL": "m", "MCPHOST_AGENT_API_KEY": testKey}
	for _, tc := range []struct {
		set  map[string]string
		want string
	}{
		{map[string]string{"MCPHOST_AGENT_MODEL": ""}, "MCPHOST_AGENT_MODEL is not set"},
		{map[string]string{"MCPHOST_AGENT_PROVIDER": "mcp"}, "want openai, openai-responses, anthropic or gemini"},
		{map[string]string{"MCPHOST_AGENT_PROVIDER": "llama"}, "want openai"},
		{map[string]string{"MCPHOST_AGENT_BASE_URL": "http://models.example.com/v1"}, "in clear"},
		{map[string]string{"MCPHOST_AGENT_BASE_URL": "https://user:pw@models.example.com"}, "holds credentials"},
		{map[string]string{"MCPHOST_AGENT_BASE_URL": "ftp://x"}, "not an http(s) URL"},
		{map[string]string{"MCPHOST_AGENT_MAX_TURNS": "0"}, "from 1 to 100"},
		{map[string]string{"MCPHOST_AGENT_TIMEOUT": "soon"}, "a duration"},
	} {
		env := map[string]string{}
		for k, v := range base {
			env[k] = v
		}
		for k, v := range tc.set {
			env[k] = v
		}
		_, err := readSettings(func(k string) string { return env[k] })
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "pw@") {
			t.Errorf("%v: error %v, want one saying %q", tc.set, err, tc.want)
		}
	}
	// Plain http is fine to this machine, and without a key.
	for _, u := range []string{"http://127.0.0.1:11434/v1", "http://localhost:8080", "http://[::1]:1234"} {
		if _, err := readSettings(func(k string) string {
			return map[string]string{"MCPHOST_AGENT_MODEL": "m", "MCPHOST_AGENT_API_KEY": testKey, "MCPHOST_AGENT_BASE_URL": u}[k]
		}); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
	s, err := readSettings(func(k string) string { return map[string]string{"MCPHOST_AGENT_MODEL": "m"}[k] })
	if err != nil || s.format != "openai" || s.baseURL != "https://api.openai.com/v1" || s.maxTurns != defaultMaxTurns {
		t.Errorf("defaults: %+v, %v", s, err)
	}
}

func TestAgentNeedsAPrompt(t *testing.T) {
	var out, errOut bytes.Buffer
	err := run(context.Background(), nil, func(string) string { return "" }, config.LoadOptions{}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "no prompt") || !strings.Contains(errOut.String(), "usage: agent") {
		t.Errorf("error %v, stderr %q", err, errOut.String())
	}
}

func TestAgentKeyLeavesTheEnvironment(t *testing.T) {
	t.Setenv(keyVariable, testKey)
	env := environment()
	if v, set := os.LookupEnv(keyVariable); set {
		t.Errorf("%s still set (%d bytes): stdio servers would inherit it", keyVariable, len(v))
	}
	if env(keyVariable) != testKey {
		t.Error("the key is lost")
	}
}
