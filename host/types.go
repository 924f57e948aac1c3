package host

import (
	"encoding/json"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool is one tool as the host exposes it.
type Tool struct {
	// Name is the public name: unique across servers and safe for model
	// providers (^[a-zA-Z0-9_-]{1,64}$ by default).
	Name string `json:"name"`
	// Display is "server:tool", for people.
	Display string `json:"display"`
	// Server is the id of the server that provides the tool.
	Server string `json:"server"`
	// Tool is the name the server uses.
	Tool         string               `json:"tool"`
	Title        string               `json:"title,omitempty"`
	Description  string               `json:"description,omitempty"`
	InputSchema  any                  `json:"inputSchema,omitempty"`
	OutputSchema any                  `json:"outputSchema,omitempty"`
	Annotations  *mcp.ToolAnnotations `json:"annotations,omitempty"`
	// Denied says why the policy always refuses this tool, whatever the
	// arguments or the caller (a deny glob, an allow list it is not on);
	// "" for a tool that may be called. Such tools are not offered to
	// models: Tools leaves them out, AllTools keeps them.
	Denied string `json:"denied,omitempty"`
	// Pin is the tool's pin state with pinning on (WithPinStore): PinPinned,
	// PinNew or PinChanged; "" without pinning.
	Pin string `json:"pin,omitempty"`
	// Hidden says why pinning refuses every call of this tool (it changed
	// since it was approved). Such tools are in neither Tools nor
	// AllTools; Resolve finds them, so a call can say why it is refused.
	Hidden string `json:"hidden,omitempty"`
}

// Progress is one progress notification for a call.
type Progress struct {
	Server   string
	Progress float64
	Total    float64 // 0 when unknown
	Message  string
}

// State is a server's connection state.
type State string

// Server states.
const (
	StateDisabled  State = "disabled"
	StateUntrusted State = "untrusted"
	// StateBlocked: a rule of the administrator's managed configuration
	// blocks the server (Status.Error names the rule and its file). It
	// never starts.
	StateBlocked    State = "blocked"
	StateConnecting State = "connecting"
	StateReady      State = "ready"
	// StateReconnecting: the connection was lost or a connect failed; the
	// server's supervisor retries with backoff. Its tools stay listed and
	// calls wait for it up to their deadline.
	StateReconnecting State = "reconnecting"
	StateNeedsAuth    State = "needs-auth"
	StateError        State = "error"
	// StateClosed is the state after Host.Close.
	StateClosed State = "closed"
)

// ServerStatus describes one configured server.
type ServerStatus struct {
	ID              string `json:"id"`
	Transport       string `json:"transport"`
	Source          string `json:"source"`
	Enabled         bool   `json:"enabled"`
	State           State  `json:"state"`
	Tools           int    `json:"tools"`
	ServerName      string `json:"server_name,omitempty"`
	ServerVersion   string `json:"server_version,omitempty"`
	ProtocolVersion string `json:"protocol_version,omitempty"`
	Error           string `json:"error"`
	// Errors are the problems of an invalid entry when it has more than
	// one (Error joins them with newlines), one per item: mcphost's own
	// text, to show as lines of their own.
	Errors        []string  `json:"errors,omitempty"`
	LastConnected time.Time `json:"last_connected,omitzero"`
	// Attempt is the number of the connect attempt under way or next
	// (reconnecting only: 2 after the first connect failed); NextRetry is
	// when it starts, if the server is waiting.
	Attempt   int       `json:"attempt,omitempty"`
	NextRetry time.Time `json:"next_retry,omitzero"`
	// ConnectDuration is how long the last successful connect took. In JSON
	// it is "connect_ms", in milliseconds.
	ConnectDuration time.Duration `json:"-"`
	// Warnings are problems with the server's lists that cost it something
	// but not its connection, such as a tool left out for its schema.
	Warnings []string `json:"warnings,omitempty"`
	// PinWarnings are the warnings of tool pinning (also in Warnings): the
	// tools hidden, confirmed or warned about because they changed since
	// they were approved, or are new.
	PinWarnings []string `json:"pin_warnings,omitempty"`
	// Stderr holds the last lines a stdio server wrote to stderr.
	Stderr []string `json:"stderr,omitempty"`
}

// MarshalJSON writes ConnectDuration as connect_ms, in milliseconds.
func (s ServerStatus) MarshalJSON() ([]byte, error) {
	type plain ServerStatus
	return json.Marshal(struct {
		plain
		ConnectMS int64 `json:"connect_ms,omitempty"`
	}{plain(s), s.ConnectDuration.Milliseconds()})
}

// Event reports a change: a server changed state, or its lists were
// re-fetched.
type Event struct {
	Server string
	// Kind is "state", "tools", "resources" or "prompts".
	Kind  string
	State State
	Err   error
	// Attempt is the number of connects that failed in a row (state
	// reconnecting and error).
	Attempt int
}

// Resource is a resource listed by a server.
type Resource struct {
	Server string `json:"server"`
	*mcp.Resource
}

// ResourceTemplate is a resource template listed by a server.
type ResourceTemplate struct {
	Server string `json:"server"`
	*mcp.ResourceTemplate
}

// Prompt is a prompt listed by a server.
type Prompt struct {
	Server string `json:"server"`
	// Display is "server:prompt"; GetPrompt accepts it, and the bare name
	// when only one server has a prompt of that name.
	Display string `json:"display"`
	*mcp.Prompt
}
