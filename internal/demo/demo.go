// Package demo is the MCP server embedded in the `mcphost demo` command.
//
// It exists so that every feature of the host can be tried, documented and
// tested without installing a third-party server: plain and structured tool
// results, progress and cancellation, destructive and open-world annotations
// (which policies key on), oversized results (which result stages reduce),
// resources, resource templates, prompts and completions.
//
// Everything it returns is deterministic — no clock, no randomness, no
// network — so its output can be used in golden files. The one exception is
// the timing of the progress notifications of the slow tool.
package demo

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Name is the implementation name the demo server reports.
const Name = "mcphost-demo"

// Version is the implementation version the demo server reports. It is fixed
// rather than the mcphost version so that transcripts stay stable.
const Version = "1.0.0"

// Limits of the tools' arguments, exported so docs and tests agree.
const (
	SlowDefaultMS = 1500  // slow's duration_ms when absent
	SlowMaxMS     = 60000 // slow's largest duration_ms
	ReportDefault = 256   // big_report's kb when absent
	ReportMaxKB   = 16384 // big_report's largest kb (16 MiB)
)

// progressInterval is how often slow reports progress: often enough that a
// progress bar moves smoothly, rare enough not to flood a log.
const progressInterval = 150 * time.Millisecond

// NotesURIPrefix is the URI prefix of the notes resources.
const NotesURIPrefix = "demo://notes/"

// server holds the demo's mutable state: the notes. One NewServer is one
// notebook, shared by all sessions of that server (as a real server's
// backing store would be).
type server struct {
	srv *mcp.Server

	mu    sync.Mutex
	notes map[string]string // name -> text

	// slowReturned, if set, is called when a slow call returns, with the
	// error it returns. Tests use it to observe that cancellation reached
	// the handler, which the client cannot see.
	slowReturned func(error)
}

// NewServer returns a new demo server named "mcphost-demo". Each call has its
// own set of notes, seeded with the same two notes.
func NewServer() *mcp.Server {
	return newServer(nil).srv
}

func newServer(slowReturned func(error)) *server {
	s := &server{
		notes:        make(map[string]string),
		slowReturned: slowReturned,
	}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: Name, Title: "mcphost demo server", Version: Version},
		&mcp.ServerOptions{
			Instructions: "A demo server for trying mcphost. All data is canned or in memory; " +
				"nothing leaves the process.",
			CompletionHandler: s.complete,
		})
	s.srv.AddReceivingMiddleware(nullArgumentsAsEmpty)
	s.addTools()
	s.addResources()
	s.addPrompts()
	s.mu.Lock()
	for _, name := range seedNoteNames {
		s.putNoteLocked(name, seedNotes[name])
	}
	s.mu.Unlock()
	return s
}

var seedNotes = map[string]string{
	"welcome": "Welcome to the mcphost demo.\nTry write_note and delete_note, then list the resources again.\n",
	"todo":    "- read the user guide\n- write a policy plugin\n- run mcphost serve\n",
}

// seedNoteNames fixes the order in which seed notes are added, so that the
// resource list is the same on every run.
var seedNoteNames = []string{"todo", "welcome"}

// nullArgumentsAsEmpty rewrites `"arguments": null` in tools/call to `{}`.
// go-sdk v1.8.0 unmarshals null into a nil map and then panics applying
// schema defaults to it (slow and big_report have defaults), which would
// take down the whole process. Absent arguments are already treated as {}.
func nullArgumentsAsEmpty(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil &&
			bytes.Equal(bytes.TrimSpace(r.Params.Arguments), []byte("null")) {
			r.Params.Arguments = nil
		}
		return next(ctx, method, req)
	}
}

func ptr[T any](v T) *T { return &v }

// Settings is what read_settings returns: a settings file with fake
// credentials of the kinds a redaction plugin must catch.
const Settings = `# demo service settings
service_url = https://api.example.com/v1
api_key = sk-demo0123456789abcdefghijklmnopqrstuv
auth_header = Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.ZGVtbw.c2lnbmF0dXJl
admin_contact = ops-team@example.com
retries = 3
`

func textResult(format string, args ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, args...)}}}
}

func errorResult(format string, args ...any) *mcp.CallToolResult {
	r := textResult(format, args...)
	r.IsError = true
	return r
}

type echoArgs struct {
	Text string `json:"text" jsonschema:"the text to echo back"`
}

type addArgs struct {
	A float64 `json:"a" jsonschema:"the first addend"`
	B float64 `json:"b" jsonschema:"the second addend"`
}

type addOutput struct {
	Sum float64 `json:"sum" jsonschema:"a + b"`
}

type slowArgs struct {
	DurationMS *int `json:"duration_ms,omitempty"`
}

type noteArgs struct {
	Name string `json:"name" jsonschema:"the note's name: letters, digits, '_' and '-', at most 64"`
}

type writeNoteArgs struct {
	Name string `json:"name" jsonschema:"the note's name: letters, digits, '_' and '-', at most 64"`
	Text string `json:"text" jsonschema:"the note's text"`
}

type reportArgs struct {
	KB *int `json:"kb,omitempty"`
}

type weatherArgs struct {
	City string `json:"city" jsonschema:"the city, for example London"`
}

// Weather is the structured output of fetch_weather.
type Weather struct {
	City         string  `json:"city"`
	Condition    string  `json:"condition"`
	TemperatureC float64 `json:"temperature_c"`
	HumidityPct  int     `json:"humidity_pct"`
	WindKPH      int     `json:"wind_kph"`
	Source       string  `json:"source"`
}

func (s *server) addTools() {
	mcp.AddTool(s.srv, &mcp.Tool{
		Name:        "echo",
		Description: "Returns its text argument unchanged.",
		Annotations: &mcp.ToolAnnotations{Title: "Echo", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
		return textResult("%s", in.Text), nil, nil
	})

	mcp.AddTool(s.srv, &mcp.Tool{
		Name:        "add",
		Description: "Adds two numbers; the sum is also returned as structured content.",
		Annotations: &mcp.ToolAnnotations{Title: "Add", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, func(_ context.Context, _ *mcp.CallToolRequest, in addArgs) (*mcp.CallToolResult, addOutput, error) {
		sum := in.A + in.B
		return textResult("%s + %s = %s", fmtNum(in.A), fmtNum(in.B), fmtNum(sum)), addOutput{Sum: sum}, nil
	})

	// The schemas of slow and big_report are written out rather than
	// inferred so that the model sees the default and the bounds.
	mcp.AddTool(s.srv, &mcp.Tool{
		Name: "slow",
		Description: "Waits for duration_ms milliseconds, reporting progress if the request " +
			"carries a progress token. Stops early when cancelled.",
		Annotations: &mcp.ToolAnnotations{Title: "Slow operation", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
		InputSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"duration_ms": map[string]any{
					"type": "integer", "minimum": 0, "maximum": SlowMaxMS, "default": SlowDefaultMS,
					"description": "how long to wait, in milliseconds",
				},
			},
			"additionalProperties": false,
		},
	}, s.slow)

	mcp.AddTool(s.srv, &mcp.Tool{
		Name:        "write_note",
		Description: "Creates a note, readable as the resource demo://notes/<name>. Writing the same text again is a no-op; an existing note with different text is left alone and an error returned.",
		Annotations: &mcp.ToolAnnotations{Title: "Write note", IdempotentHint: true, DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
	}, s.writeNote)

	mcp.AddTool(s.srv, &mcp.Tool{
		Name:        "delete_note",
		Description: "Deletes a note permanently.",
		Annotations: &mcp.ToolAnnotations{Title: "Delete note", DestructiveHint: ptr(true), OpenWorldHint: ptr(false)},
	}, s.deleteNote)

	mcp.AddTool(s.srv, &mcp.Tool{
		Name:        "big_report",
		Description: "Produces a long, multi-line usage report of about kb KiB, to exercise result truncation.",
		Annotations: &mcp.ToolAnnotations{Title: "Usage report", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
		InputSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"kb": map[string]any{
					"type": "integer", "minimum": 1, "maximum": ReportMaxKB, "default": ReportDefault,
					"description": "approximate size of the report in KiB",
				},
			},
			"additionalProperties": false,
		},
	}, func(_ context.Context, _ *mcp.CallToolRequest, in reportArgs) (*mcp.CallToolResult, any, error) {
		kb := ReportDefault
		if in.KB != nil {
			kb = *in.KB
		}
		if kb < 1 || kb > ReportMaxKB {
			return errorResult("kb must be between 1 and %d, got %d", ReportMaxKB, kb), nil, nil
		}
		return textResult("%s", Report(kb)), nil, nil
	})

	mcp.AddTool(s.srv, &mcp.Tool{
		Name:        "read_settings",
		Description: "Returns the demo service's settings file, which (carelessly) contains credentials. (Demo: all of them are fake.)",
		Annotations: &mcp.ToolAnnotations{Title: "Read settings", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return textResult("%s", Settings), nil, nil
	})

	mcp.AddTool(s.srv, &mcp.Tool{
		Name:        "fetch_weather",
		Description: "Fetches the current weather for a city. (Demo: canned data, no network access.)",
		Annotations: &mcp.ToolAnnotations{Title: "Fetch weather", ReadOnlyHint: true, OpenWorldHint: ptr(true)},
	}, func(_ context.Context, _ *mcp.CallToolRequest, in weatherArgs) (*mcp.CallToolResult, Weather, error) {
		if strings.TrimSpace(in.City) == "" {
			return nil, Weather{}, fmt.Errorf("city must not be empty")
		}
		w := WeatherFor(in.City)
		return textResult("%s: %s, %s °C, humidity %d%%, wind %d km/h (%s)",
			w.City, w.Condition, fmtNum(w.TemperatureC), w.HumidityPct, w.WindKPH, w.Source), w, nil
	})
}

// fmtNum formats a number the shortest way that reads back exactly, so that
// 2 + 3 = 5 rather than 5.000000.
func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func (s *server) slow(ctx context.Context, req *mcp.CallToolRequest, in slowArgs) (_ *mcp.CallToolResult, _ any, err error) {
	if s.slowReturned != nil {
		defer func() { s.slowReturned(err) }()
	}
	d := SlowDefaultMS
	if in.DurationMS != nil {
		d = *in.DurationMS
	}
	if d < 0 || d > SlowMaxMS {
		return errorResult("duration_ms must be between 0 and %d, got %d", SlowMaxMS, d), nil, nil
	}
	total := time.Duration(d) * time.Millisecond

	token := req.Params.GetProgressToken()
	last := -1
	notify := func(ms int) {
		// Progress must increase with every notification.
		if token == nil || ms <= last {
			return
		}
		last = ms
		// A failed notification must not fail the call: progress is advisory.
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: token,
			Progress:      float64(ms),
			Total:         float64(d),
			Message:       fmt.Sprintf("waited %d of %d ms", ms, d),
		})
	}

	start := time.Now()
	timer := time.NewTimer(total)
	defer timer.Stop()
	ticker := time.NewTicker(progressInterval)
	defer ticker.Stop()
	// Report at the start and at the end, not only on ticks, so that a
	// client with a token always sees progress, however short the wait.
	notify(0)
	for done := false; !done; {
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-ticker.C:
			notify(int(min(time.Since(start), total) / time.Millisecond))
		case <-timer.C:
			done = true
		}
	}
	notify(d)
	return textResult("waited %d ms", d), nil, nil
}

// validNoteName keeps note names usable in a URI path segment without
// escaping.
func validNoteName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// putNoteLocked stores a note and lists it as a resource. The caller holds
// s.mu, so that the resource list never disagrees with the notes; the SDK
// never calls our handlers with its own lock held, so the order of the two
// locks (s.mu, then the SDK's) is fixed.
func (s *server) putNoteLocked(name, text string) {
	s.notes[name] = text
	s.srv.AddResource(&mcp.Resource{
		URI:         NotesURIPrefix + name,
		Name:        "note-" + name,
		Title:       "Note " + name,
		Description: "A note in the demo's in-memory notebook.",
		MIMEType:    "text/plain",
	}, s.readNote)
}

func (s *server) writeNote(_ context.Context, _ *mcp.CallToolRequest, in writeNoteArgs) (*mcp.CallToolResult, any, error) {
	if !validNoteName(in.Name) {
		return errorResult("invalid note name %q: use letters, digits, '_' and '-' (at most 64)", in.Name), nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old, exists := s.notes[in.Name]
	switch {
	case exists && old == in.Text:
		return textResult("note %q already has this text", in.Name), nil, nil
	case exists:
		return errorResult("note %q already exists with different text; delete it first", in.Name), nil, nil
	}
	s.putNoteLocked(in.Name, in.Text)
	return textResult("wrote note %q (%d bytes), readable as %s%s", in.Name, len(in.Text), NotesURIPrefix, in.Name), nil, nil
}

func (s *server) deleteNote(_ context.Context, _ *mcp.CallToolRequest, in noteArgs) (*mcp.CallToolResult, any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.notes[in.Name]; !ok {
		return errorResult("no note named %q", in.Name), nil, nil
	}
	delete(s.notes, in.Name)
	s.srv.RemoveResources(NotesURIPrefix + in.Name)
	return textResult("deleted note %q", in.Name), nil, nil
}

func (s *server) noteNames() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.notes))
	for n := range s.notes {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// readNote serves both the listed note resources and the template, so a
// client that builds the URI itself gets the same answer.
func (s *server) readNote(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	name, ok := strings.CutPrefix(uri, NotesURIPrefix)
	s.mu.Lock()
	text, found := s.notes[name]
	s.mu.Unlock()
	if !ok || !found {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: text}}}, nil
}

// Readme is the text of the demo://readme resource.
const Readme = `# mcphost demo server

This server is built into mcphost (` + "`mcphost demo`" + `) so that every feature of the
host can be tried without installing anything. Nothing it does leaves the process.

## Tools

| tool | arguments | what it shows |
|------|-----------|---------------|
| echo | text | the simplest call |
| add | a, b | structured output with an output schema |
| slow | duration_ms (default 1500, max 60000) | progress notifications and cancellation |
| write_note | name, text | an idempotent, non-destructive write |
| delete_note | name | a destructive tool, for confirm policies |
| big_report | kb (default 256) | an oversized result, for truncation stages |
| fetch_weather | city | an open-world tool (canned data, no network) |

## Resources

- ` + "`demo://readme`" + ` — this text
- ` + "`demo://notes/{name}`" + ` — the notes, also listed one by one

## Prompts

- ` + "`summarize`" + ` (topic, required; completions offered)
`

func (s *server) addResources() {
	s.srv.AddResource(&mcp.Resource{
		URI:         "demo://readme",
		Name:        "readme",
		Title:       "About the demo server",
		Description: "What the demo server offers and what each feature demonstrates.",
		MIMEType:    "text/markdown",
		Size:        int64(len(Readme)),
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
			{URI: req.Params.URI, MIMEType: "text/markdown", Text: Readme},
		}}, nil
	})
	s.srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: NotesURIPrefix + "{name}",
		Name:        "note",
		Title:       "Note by name",
		Description: "A note of the in-memory notebook; see write_note and delete_note.",
		MIMEType:    "text/plain",
	}, s.readNote)
}

// Topics are the completions offered for the topic argument of summarize.
var Topics = []string{
	"MCP authorization",
	"MCP prompts",
	"MCP resources",
	"MCP tools",
	"Wasm plugins",
	"gateway mode",
	"policy stages",
	"progress notifications",
	"result truncation",
	"tool naming",
}

func (s *server) addPrompts() {
	s.srv.AddPrompt(&mcp.Prompt{
		Name:        "summarize",
		Title:       "Summarize a topic",
		Description: "Asks the model for a short summary of a topic.",
		Arguments: []*mcp.PromptArgument{
			{Name: "topic", Title: "Topic", Description: "what to summarize", Required: true},
		},
	}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		topic := strings.TrimSpace(req.Params.Arguments["topic"])
		if topic == "" {
			return nil, fmt.Errorf("summarize: the topic argument is required")
		}
		return &mcp.GetPromptResult{
			Description: "Summary of " + topic,
			Messages: []*mcp.PromptMessage{{
				Role: "user",
				Content: &mcp.TextContent{Text: "Summarize what you know about " + topic +
					" in at most five bullet points, most important first."},
			}},
		}, nil
	})
}

// complete offers topics for summarize and note names for the notes
// template, matching case-insensitively by prefix.
func (s *server) complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	var candidates []string
	ref, arg := req.Params.Ref, req.Params.Argument
	switch {
	case ref.Type == "ref/prompt" && ref.Name == "summarize" && arg.Name == "topic":
		candidates = Topics
	case ref.Type == "ref/resource" && ref.URI == NotesURIPrefix+"{name}" && arg.Name == "name":
		candidates = s.noteNames()
	}
	values := []string{} // never null on the wire
	prefix := strings.ToLower(arg.Value)
	for _, c := range candidates {
		if strings.HasPrefix(strings.ToLower(c), prefix) {
			values = append(values, c)
		}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}, nil
}

// WeatherFor returns the canned weather for a city. Known cities have fixed
// values; others get values derived from a hash of the lower-cased name, so
// every city has weather and the same city always has the same weather.
func WeatherFor(city string) Weather {
	city = strings.TrimSpace(city)
	key := strings.ToLower(city)
	if w, ok := cannedWeather[key]; ok {
		return w
	}
	h := fnv.New32a()
	h.Write([]byte(key))
	v := h.Sum32()
	w := Weather{
		City:         city,
		Condition:    conditions[v%uint32(len(conditions))],
		TemperatureC: float64(int(v>>8%450)-100) / 10, // -10.0 .. 34.9
		HumidityPct:  20 + int(v>>16%75),
		WindKPH:      int(v >> 24 % 60),
		Source:       "canned demo data",
	}
	if w.Condition == "snow" && w.TemperatureC > 2 {
		w.Condition = "light rain" // keep the canned data plausible
	}
	return w
}

var conditions = []string{"clear", "partly cloudy", "overcast", "light rain", "showers", "fog", "snow", "windy"}

var cannedWeather = map[string]Weather{
	"london":        {City: "London", Condition: "light rain", TemperatureC: 11.5, HumidityPct: 82, WindKPH: 19, Source: "canned demo data"},
	"paris":         {City: "Paris", Condition: "partly cloudy", TemperatureC: 14, HumidityPct: 68, WindKPH: 12, Source: "canned demo data"},
	"berlin":        {City: "Berlin", Condition: "overcast", TemperatureC: 9.5, HumidityPct: 74, WindKPH: 15, Source: "canned demo data"},
	"new york":      {City: "New York", Condition: "clear", TemperatureC: 17, HumidityPct: 55, WindKPH: 22, Source: "canned demo data"},
	"tokyo":         {City: "Tokyo", Condition: "showers", TemperatureC: 19.5, HumidityPct: 77, WindKPH: 9, Source: "canned demo data"},
	"sydney":        {City: "Sydney", Condition: "clear", TemperatureC: 23, HumidityPct: 60, WindKPH: 25, Source: "canned demo data"},
	"san francisco": {City: "San Francisco", Condition: "fog", TemperatureC: 13.5, HumidityPct: 88, WindKPH: 28, Source: "canned demo data"},
}

var (
	reportRegions  = []string{"eu-west-1", "eu-central-1", "us-east-1", "us-west-2", "ap-northeast-1", "ap-southeast-2"}
	reportServices = []string{"auth", "billing", "catalog", "checkout", "gateway", "notifications", "search", "storage"}
	reportStatus   = []string{"ok", "ok", "ok", "ok", "ok", "degraded", "ok", "ok", "ok", "paging"}
)

// Report returns the big_report text: a usage report of at least kb KiB
// that ends with a complete line. Its rows come from a fixed-seed
// generator, so the same kb always gives the same text, while the rows
// still vary the way real data does (a truncation stage that keeps only
// repeated lines would be caught out).
func Report(kb int) string {
	target := kb * 1024
	var b strings.Builder
	b.Grow(target + 256)
	fmt.Fprintf(&b, "USAGE REPORT — demo tenant, billing period 2025-01\n")
	fmt.Fprintf(&b, "generated by mcphost-demo; all figures are synthetic\n\n")
	fmt.Fprintf(&b, "%-6s %-10s %-15s %-14s %10s %8s %8s %7s %s\n",
		"row", "date", "region", "service", "requests", "p50_ms", "p99_ms", "errors", "status")
	var x uint64 = 0x9E3779B97F4A7C15 // xorshift64 state, fixed for determinism
	next := func() uint64 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return x
	}
	var rows, requests, errs uint64
	for b.Len() < target {
		rows++
		day := 1 + (rows-1)/48%31
		req := 1000 + next()%250000
		p50 := 3 + next()%40
		p99 := p50 + 20 + next()%400
		e := next() % (req/2000 + 1)
		requests += req
		errs += e
		fmt.Fprintf(&b, "%06d 2025-01-%02d %-15s %-14s %10d %8d %8d %7d %s\n",
			rows, day,
			reportRegions[next()%uint64(len(reportRegions))],
			reportServices[next()%uint64(len(reportServices))],
			req, p50, p99, e,
			reportStatus[next()%uint64(len(reportStatus))])
		if rows%500 == 0 {
			fmt.Fprintf(&b, "-- subtotal after %d rows: %d requests, %d errors --\n", rows, requests, errs)
		}
	}
	fmt.Fprintf(&b, "\nTOTAL: %d rows, %d requests, %d errors (%.3f%%)\n",
		rows, requests, errs, 100*float64(errs)/float64(max(requests, 1)))
	return b.String()
}
