package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mcphost/mcphost/host/providers"
)

// Limits on the conversation with the model API.
const (
	defaultMaxTurns = 10
	maxMaxTurns     = 100
	defaultTimeout  = 2 * time.Minute
	// maxResponseBytes bounds one reply read from the model API.
	maxResponseBytes = 8 << 20
)

// settings are the MCPHOST_AGENT_* variables, checked.
type settings struct {
	format   providers.Format
	baseURL  string // without a trailing slash
	apiKey   string // never printed
	model    string
	maxTurns int
	timeout  time.Duration // of each request to the model API
	client   *http.Client
}

var defaultBaseURLs = map[providers.Format]string{
	providers.OpenAI:          "https://api.openai.com/v1",
	providers.OpenAIResponses: "https://api.openai.com/v1",
	providers.Anthropic:       "https://api.anthropic.com",
	providers.Gemini:          "https://generativelanguage.googleapis.com",
}

func readSettings(env func(string) string) (*settings, error) {
	s := &settings{maxTurns: defaultMaxTurns, timeout: defaultTimeout}
	p := env("MCPHOST_AGENT_PROVIDER")
	if p == "" {
		p = string(providers.OpenAI)
	}
	f, err := providers.ParseFormat(p)
	if err != nil || f == providers.MCP {
		return nil, fmt.Errorf("agent: MCPHOST_AGENT_PROVIDER=%q: want openai, openai-responses, anthropic or gemini", cut(p))
	}
	s.format = f
	if s.model = strings.TrimSpace(env("MCPHOST_AGENT_MODEL")); s.model == "" {
		return nil, errors.New("agent: MCPHOST_AGENT_MODEL is not set: name the model to use")
	}
	if s.apiKey, err = readKey(env); err != nil {
		return nil, err
	}
	s.baseURL = strings.TrimRight(strings.TrimSpace(env("MCPHOST_AGENT_BASE_URL")), "/")
	if s.baseURL == "" {
		s.baseURL = defaultBaseURLs[f]
	}
	if err := checkBaseURL(s.baseURL, s.apiKey != ""); err != nil {
		return nil, err
	}
	if v := env("MCPHOST_AGENT_MAX_TURNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxMaxTurns {
			return nil, fmt.Errorf("agent: MCPHOST_AGENT_MAX_TURNS=%q: want a number from 1 to %d", cut(v), maxMaxTurns)
		}
		s.maxTurns = n
	}
	if v := env("MCPHOST_AGENT_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("agent: MCPHOST_AGENT_TIMEOUT=%q: want a duration such as 90s", cut(v))
		}
		s.timeout = d
	}
	s.client = &http.Client{
		Timeout: s.timeout,
		// A redirect would carry the key headers (x-api-key,
		// x-goog-api-key) to wherever it points.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return s, nil
}

// maxKeyFileBytes bounds the key file read: keys are short.
const maxKeyFileBytes = 16 << 10

// readKey reads the API key: from the file keyFileVariable names (read
// once, whole, and trimmed), or from keyVariable; not both.
func readKey(env func(string) string) (string, error) {
	key := strings.TrimSpace(env(keyVariable))
	file := strings.TrimSpace(env(keyFileVariable))
	if file == "" {
		return key, nil
	}
	if key != "" {
		return "", fmt.Errorf("agent: both %s and %s are set: use one", keyVariable, keyFileVariable)
	}
	f, err := os.Open(file)
	if err != nil {
		return "", fmt.Errorf("agent: %s: %v", keyFileVariable, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFileBytes+1))
	switch {
	case err != nil:
		return "", fmt.Errorf("agent: %s: %v", keyFileVariable, err)
	case len(data) > maxKeyFileBytes:
		return "", fmt.Errorf("agent: %s: the file is over %d KiB: not a key", keyFileVariable, maxKeyFileBytes>>10)
	}
	key = strings.TrimSpace(string(data))
	switch {
	case key == "":
		return "", fmt.Errorf("agent: %s: the file is empty", keyFileVariable)
	case strings.ContainsAny(key, "\r\n"):
		return "", fmt.Errorf("agent: %s: the file holds more than one line: not a key", keyFileVariable)
	}
	return key, nil
}

// checkBaseURL refuses a base URL that would leak the key: one with a
// password in it, or plain http to anything but this machine.
func checkBaseURL(raw string, withKey bool) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return errors.New("agent: MCPHOST_AGENT_BASE_URL is not an http(s) URL")
	}
	if u.User != nil {
		return errors.New("agent: MCPHOST_AGENT_BASE_URL holds credentials: put the key in MCPHOST_AGENT_API_KEY_FILE instead")
	}
	if u.Scheme == "http" && withKey && !loopback(u.Hostname()) {
		return fmt.Errorf("agent: MCPHOST_AGENT_BASE_URL is plain http to %s: the API key would travel in clear; use https", cut(u.Hostname()))
	}
	return nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// post sends body as JSON and decodes the reply into out. Every request
// has the timeout of the settings and a bounded reply.
func (s *settings) post(ctx context.Context, url string, header map[string]string, body, out any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("agent: encoding the request: %v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("agent: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("agent: %s request: %s", s.format, s.redact(err.Error()))
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return fmt.Errorf("agent: reading the %s reply: %s", s.format, s.redact(err.Error()))
	}
	if len(reply) > maxResponseBytes {
		return fmt.Errorf("agent: the %s reply is over %d MiB", s.format, maxResponseBytes>>20)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("agent: %s answered %s: %s", s.format, resp.Status, cut(s.redact(apiError(reply))))
	}
	if err := json.Unmarshal(reply, out); err != nil {
		return fmt.Errorf("agent: the %s reply is not what the API sends: %v", s.format, err)
	}
	return nil
}

// apiError is the message of a provider's error reply (all three put it
// in error.message), or the reply itself.
func apiError(reply []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(reply, &e) == nil && e.Error.Message != "" {
		return e.Error.Message
	}
	return string(reply)
}

// redact takes the API key out of text that came back from the network.
func (s *settings) redact(text string) string {
	if s.apiKey == "" {
		return text
	}
	return strings.ReplaceAll(text, s.apiKey, "[redacted]")
}

func cut(s string) string {
	const n = 300
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
