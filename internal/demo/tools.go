package demo

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The demo's tools: schemas, annotations and handlers (the notes' are in notes.go).

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

// Settings is what read_settings returns: a settings file with fake
// credentials of the kinds a redaction plugin must catch.
const Settings = `# demo service settings
service_url = https://api.example.com/v1
api_key = sk-demo0123456789abcdefghijklmnopqrstuv
auth_header = Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.ZGVtbw.c2lnbmF0dXJl
admin_contact = ops-team@example.com
retries = 3
`

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
