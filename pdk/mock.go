package pdk

import (
	"encoding/json"
	"sync"

	"github.com/mcphost/mcphost/pdk/abi"
)

// Mock is an in-memory host for running a plugin's hooks natively in tests:
// it answers Config, Secret and HTTP from its fields and keeps what the
// plugin logs. It follows the real host's rules where a test could notice:
// empty config values and empty secrets read as not set.
type Mock struct {
	// Config is the plugin entry's config map.
	Config map[string]string
	// Secrets are the granted secrets, by name.
	Secrets map[string]string
	// HTTP answers pdk.HTTP; nil refuses every request, like the host does
	// for a plugin that is not an auth plugin.
	HTTP func(abi.HTTPRequest) abi.HTTPResponse

	mu   sync.Mutex
	logs []LogEntry
}

// LogEntry is one message a plugin logged.
type LogEntry struct {
	Level   int32
	Message string
}

// UseMock makes m the host until the returned restore function is called
// (typically deferred or passed to t.Cleanup). It changes package state, so
// tests that use it must not run in parallel.
func UseMock(m *Mock) (restore func()) {
	prev := current
	current = m
	return func() { current = prev }
}

// Logs returns what the plugin logged so far, in order.
func (m *Mock) Logs() []LogEntry {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]LogEntry(nil), m.logs...)
}

func (m *Mock) config(key string) (string, bool) {
	v, ok := m.Config[key]
	return v, ok && v != ""
}

func (m *Mock) secret(name string) (string, bool) {
	v, ok := m.Secrets[name]
	return v, ok && v != ""
}

func (m *Mock) log(level int32, msg string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.logs = append(m.logs, LogEntry{Level: level, Message: msg})
}

func (m *Mock) http(request []byte) []byte {
	var resp abi.HTTPResponse
	var req abi.HTTPRequest
	switch {
	case m.HTTP == nil:
		resp.Error = "mcphost_http is not available to this plugin (the Mock has no HTTP function)"
	case json.Unmarshal(request, &req) != nil:
		resp.Error = "invalid request document"
	default:
		resp = m.HTTP(req)
	}
	out, _ := json.Marshal(resp) // cannot fail: strings, ints and bytes only
	return out
}
