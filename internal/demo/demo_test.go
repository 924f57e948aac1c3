package demo

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// failAfter bounds every test; it only turns a hang into a failure; no
// assertion depends on how fast anything runs.
const failAfter = 30 * time.Second

// connect starts s on an in-memory transport and returns a connected client.
func connect(t *testing.T, s *mcp.Server, opts *mcp.ClientOptions) (context.Context, *mcp.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), failAfter)
	t.Cleanup(cancel)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c := mcp.NewClient(&mcp.Implementation{Name: "demo-test", Version: "0"}, opts)
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return ctx, cs
}

func call(t *testing.T, ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool(%s): %v", name, err)
	}
	return res
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var parts []string
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			t.Fatalf("content %T, want text", c)
		}
		parts = append(parts, tc.Text)
	}
	return strings.Join(parts, "\n")
}

func TestServerInfo(t *testing.T) {
	_, cs := connect(t, NewServer(), nil)
	info := cs.InitializeResult()
	if info.ServerInfo.Name != "mcphost-demo" || info.ServerInfo.Version != Version {
		t.Errorf("server info = %+v", info.ServerInfo)
	}
	caps := info.Capabilities
	if caps.Tools == nil || caps.Resources == nil || caps.Prompts == nil || caps.Completions == nil {
		t.Errorf("capabilities = %+v", caps)
	}
}

func TestListToolsAnnotations(t *testing.T) {
	ctx, cs := connect(t, NewServer(), nil)
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := make(map[string]*mcp.Tool)
	var names []string
	for _, tl := range res.Tools {
		tools[tl.Name] = tl
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	want := []string{"add", "big_report", "delete_note", "echo", "fetch_weather", "read_settings", "slow", "write_note"}
	if !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}
	for _, tl := range res.Tools {
		if tl.Annotations == nil || tl.Annotations.Title == "" || tl.Description == "" {
			t.Errorf("%s: missing annotations, title or description", tl.Name)
		}
	}
	del := tools["delete_note"].Annotations
	if del.DestructiveHint == nil || !*del.DestructiveHint || del.ReadOnlyHint || del.Title != "Delete note" {
		t.Errorf("delete_note annotations = %+v", del)
	}
	wr := tools["write_note"].Annotations
	if wr.DestructiveHint == nil || *wr.DestructiveHint || !wr.IdempotentHint || wr.ReadOnlyHint {
		t.Errorf("write_note annotations = %+v", wr)
	}
	w := tools["fetch_weather"].Annotations
	if w.OpenWorldHint == nil || !*w.OpenWorldHint {
		t.Errorf("fetch_weather annotations = %+v", w)
	}
	for _, name := range []string{"echo", "add", "slow", "big_report", "delete_note", "write_note"} {
		if o := tools[name].Annotations.OpenWorldHint; o == nil || *o {
			t.Errorf("%s: OpenWorldHint = %v, want false", name, o)
		}
	}
	// add declares its structured output.
	out, _ := json.Marshal(tools["add"].OutputSchema)
	if !strings.Contains(string(out), `"sum"`) {
		t.Errorf("add output schema = %s", out)
	}
	// slow and big_report tell the model their defaults.
	for name, prop := range map[string]string{"slow": "duration_ms", "big_report": "kb"} {
		in, _ := json.Marshal(tools[name].InputSchema)
		if !strings.Contains(string(in), `"`+prop+`"`) || !strings.Contains(string(in), `"default"`) {
			t.Errorf("%s input schema = %s", name, in)
		}
	}
}

func TestEchoAdd(t *testing.T) {
	ctx, cs := connect(t, NewServer(), nil)
	if got := text(t, call(t, ctx, cs, "echo", map[string]any{"text": "héllo\nworld"})); got != "héllo\nworld" {
		t.Errorf("echo = %q", got)
	}
	res := call(t, ctx, cs, "add", map[string]any{"a": 2, "b": 3.5})
	if res.IsError || text(t, res) != "2 + 3.5 = 5.5" {
		t.Errorf("add text = %q (error %v)", text(t, res), res.IsError)
	}
	sc, _ := json.Marshal(res.StructuredContent)
	if string(sc) != `{"sum":5.5}` {
		t.Errorf("add structured = %s", sc)
	}
	// Missing arguments are rejected by schema validation.
	if res := call(t, ctx, cs, "add", map[string]any{"a": 1}); !res.IsError {
		t.Errorf("add without b succeeded: %q", text(t, res))
	}
}

func TestNotes(t *testing.T) {
	ctx, cs := connect(t, NewServer(), nil)
	listed := func() []string {
		t.Helper()
		res, err := cs.ListResources(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var uris []string
		for _, r := range res.Resources {
			uris = append(uris, r.URI)
		}
		slices.Sort(uris)
		return uris
	}
	read := func(uri string) (string, error) {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			return "", err
		}
		return res.Contents[0].Text, nil
	}
	if got, want := listed(), []string{"demo://notes/todo", "demo://notes/welcome", "demo://readme"}; !slices.Equal(got, want) {
		t.Fatalf("resources = %v, want %v", got, want)
	}

	if res := call(t, ctx, cs, "write_note", map[string]any{"name": "groceries", "text": "milk"}); res.IsError {
		t.Fatalf("write_note: %s", text(t, res))
	}
	if res := call(t, ctx, cs, "write_note", map[string]any{"name": "groceries", "text": "milk"}); res.IsError {
		t.Errorf("idempotent write_note failed: %s", text(t, res))
	}
	if res := call(t, ctx, cs, "write_note", map[string]any{"name": "groceries", "text": "eggs"}); !res.IsError {
		t.Errorf("write_note overwrote a note: %s", text(t, res))
	}
	if res := call(t, ctx, cs, "write_note", map[string]any{"name": "../etc", "text": "x"}); !res.IsError {
		t.Errorf("write_note accepted a bad name: %s", text(t, res))
	}
	if got, err := read("demo://notes/groceries"); err != nil || got != "milk" {
		t.Errorf("read groceries = %q, %v", got, err)
	}
	if !slices.Contains(listed(), "demo://notes/groceries") {
		t.Errorf("new note not listed")
	}

	if res := call(t, ctx, cs, "delete_note", map[string]any{"name": "groceries"}); res.IsError {
		t.Fatalf("delete_note: %s", text(t, res))
	}
	if res := call(t, ctx, cs, "delete_note", map[string]any{"name": "groceries"}); !res.IsError {
		t.Errorf("second delete_note succeeded: %s", text(t, res))
	}
	if slices.Contains(listed(), "demo://notes/groceries") {
		t.Errorf("deleted note still listed")
	}
	// Through the template, a missing note is "not found", not a crash.
	if _, err := read("demo://notes/groceries"); err == nil {
		t.Errorf("read of deleted note succeeded")
	}
	// Seed notes are readable through the template too.
	if got, err := read("demo://notes/todo"); err != nil || !strings.Contains(got, "policy plugin") {
		t.Errorf("read todo = %q, %v", got, err)
	}
}

func TestNotesArePerServer(t *testing.T) {
	ctx, a := connect(t, NewServer(), nil)
	call(t, ctx, a, "delete_note", map[string]any{"name": "todo"})
	_, b := connect(t, NewServer(), nil)
	if _, err := b.ReadResource(ctx, &mcp.ReadResourceParams{URI: "demo://notes/todo"}); err != nil {
		t.Errorf("a fresh server lost its seed note: %v", err)
	}
}

func TestReadme(t *testing.T) {
	ctx, cs := connect(t, NewServer(), nil)
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "demo://readme"})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Contents[0]
	if c.MIMEType != "text/markdown" || c.Text != Readme || !strings.HasPrefix(c.Text, "# mcphost demo server") {
		t.Errorf("readme = %q (%s)", c.Text, c.MIMEType)
	}
	tmpl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].URITemplate != "demo://notes/{name}" {
		t.Errorf("templates = %+v", tmpl.ResourceTemplates)
	}
}

func TestBigReport(t *testing.T) {
	ctx, cs := connect(t, NewServer(), nil)
	def := text(t, call(t, ctx, cs, "big_report", nil))
	if len(def) < 256*1024 || len(def) > 256*1024+512 {
		t.Errorf("default report is %d bytes, want about 256 KiB", len(def))
	}
	if !strings.HasSuffix(def, "\n") || strings.Count(def, "\n") < 1000 {
		t.Errorf("report is not a multi-line text")
	}
	if again := text(t, call(t, ctx, cs, "big_report", map[string]any{"kb": 256})); again != def {
		t.Errorf("report is not deterministic")
	}
	small := text(t, call(t, ctx, cs, "big_report", map[string]any{"kb": 1}))
	if len(small) < 1024 || len(small) > 2048 || !strings.HasPrefix(def, small[:512]) {
		t.Errorf("1 KiB report: %d bytes", len(small))
	}
	for _, kb := range []int{0, ReportMaxKB + 1} {
		if res := call(t, ctx, cs, "big_report", map[string]any{"kb": kb}); !res.IsError {
			t.Errorf("kb=%d accepted", kb)
		}
	}
}

func TestFetchWeather(t *testing.T) {
	ctx, cs := connect(t, NewServer(), nil)
	res := call(t, ctx, cs, "fetch_weather", map[string]any{"city": "london"})
	var w Weather
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &w); err != nil {
		t.Fatal(err)
	}
	if w != cannedWeather["london"] || !strings.HasPrefix(text(t, res), "London: light rain, 11.5 °C") {
		t.Errorf("london = %+v, %q", w, text(t, res))
	}
	// Unknown cities get stable, plausible weather.
	a := call(t, ctx, cs, "fetch_weather", map[string]any{"city": "Reykjavík"})
	b2 := call(t, ctx, cs, "fetch_weather", map[string]any{"city": "reykjavík "})
	if text(t, a) == "" || text(t, a)[len("Reykjavík"):] != text(t, b2)[len("reykjavík"):] {
		t.Errorf("unknown city not deterministic: %q vs %q", text(t, a), text(t, b2))
	}
	for _, city := range []string{"x", "Reykjavík", "Ouagadougou", "Z"} {
		w := WeatherFor(city)
		if w.TemperatureC < -10 || w.TemperatureC >= 35 || w.HumidityPct < 20 || w.HumidityPct > 94 || w.WindKPH >= 60 || w.Condition == "" {
			t.Errorf("%s: implausible %+v", city, w)
		}
	}
	if res := call(t, ctx, cs, "fetch_weather", map[string]any{"city": " "}); !res.IsError {
		t.Errorf("empty city accepted")
	}
}

// progressRecorder collects progress notifications for one token.
type progressRecorder struct {
	mu    sync.Mutex
	got   []*mcp.ProgressNotificationParams
	first chan struct{}
	once  sync.Once
}

func newProgressRecorder() *progressRecorder {
	return &progressRecorder{first: make(chan struct{})}
}

func (p *progressRecorder) handler(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	p.mu.Lock()
	p.got = append(p.got, req.Params)
	p.mu.Unlock()
	p.once.Do(func() { close(p.first) })
}

func (p *progressRecorder) snapshot() []*mcp.ProgressNotificationParams {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.got)
}

func TestSlowProgress(t *testing.T) {
	rec := newProgressRecorder()
	ctx, cs := connect(t, NewServer(), &mcp.ClientOptions{ProgressNotificationHandler: rec.handler})
	params := &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"duration_ms": 400}}
	params.SetProgressToken("tok-1")
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("slow: %v %v", err, res)
	}
	if text(t, res) != "waited 400 ms" {
		t.Errorf("slow = %q", text(t, res))
	}
	// The server sends a notification at the start and at the end, so
	// the final one (progress == total) must arrive; wait for it rather
	// than assume it was delivered before the result.
	for {
		got := rec.snapshot()
		if n := len(got); n > 0 && got[n-1].Progress == 400 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("final progress notification never arrived; got %d", len(rec.snapshot()))
		case <-time.After(10 * time.Millisecond):
		}
	}
	got := rec.snapshot()
	if len(got) < 2 {
		t.Fatalf("got %d notifications, want at least start and end", len(got))
	}
	for i, p := range got {
		if p.ProgressToken != "tok-1" || p.Total != 400 || p.Message == "" {
			t.Errorf("notification %d = %+v", i, p)
		}
		if i > 0 && p.Progress <= got[i-1].Progress {
			t.Errorf("progress not increasing: %v then %v", got[i-1].Progress, p.Progress)
		}
	}

	// Without a token, no notifications are sent.
	before := len(rec.snapshot())
	if res := call(t, ctx, cs, "slow", map[string]any{"duration_ms": 0}); res.IsError {
		t.Errorf("slow 0: %s", text(t, res))
	}
	if n := len(rec.snapshot()); n != before {
		t.Errorf("%d notifications without a token", n-before)
	}
	for _, d := range []int{-1, SlowMaxMS + 1} {
		if res := call(t, ctx, cs, "slow", map[string]any{"duration_ms": d}); !res.IsError {
			t.Errorf("duration_ms=%d accepted", d)
		}
	}
}

func TestSlowCancel(t *testing.T) {
	returned := make(chan error, 1)
	s := newServer(func(err error) { returned <- err })
	rec := newProgressRecorder()
	ctx, cs := connect(t, s.srv, &mcp.ClientOptions{ProgressNotificationHandler: rec.handler})

	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	params := &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"duration_ms": SlowMaxMS}}
	params.SetProgressToken(7)
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(callCtx, params)
		errc <- err
	}()
	// The first notification proves the handler is running.
	select {
	case <-rec.first:
	case <-ctx.Done():
		t.Fatal("no progress notification")
	}
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("CallTool after cancel: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("CallTool did not return after cancel")
	}
	// The cancellation must reach the server, which stops waiting long
	// before the 60 s are up.
	select {
	case err := <-returned:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("slow returned %v, want context.Canceled", err)
		}
	case <-ctx.Done():
		t.Fatal("slow handler did not return after cancel")
	}
}

func TestPromptAndCompletion(t *testing.T) {
	ctx, cs := connect(t, NewServer(), nil)
	list, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Prompts) != 1 || list.Prompts[0].Name != "summarize" ||
		len(list.Prompts[0].Arguments) != 1 || list.Prompts[0].Arguments[0].Name != "topic" || !list.Prompts[0].Arguments[0].Required {
		t.Fatalf("prompts = %+v", list.Prompts)
	}
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize", Arguments: map[string]string{"topic": "tool naming"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 1 || res.Messages[0].Role != "user" {
		t.Fatalf("messages = %+v", res.Messages)
	}
	if tc, ok := res.Messages[0].Content.(*mcp.TextContent); !ok || !strings.Contains(tc.Text, "tool naming") {
		t.Errorf("message = %+v", res.Messages[0].Content)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize"}); err == nil {
		t.Errorf("summarize without topic succeeded")
	}

	complete := func(ref *mcp.CompleteReference, arg, value string) []string {
		t.Helper()
		res, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Completion.Values
	}
	prompt := &mcp.CompleteReference{Type: "ref/prompt", Name: "summarize"}
	if got, want := complete(prompt, "topic", "mcp"), []string{"MCP authorization", "MCP prompts", "MCP resources", "MCP tools"}; !slices.Equal(got, want) {
		t.Errorf("complete topic mcp = %v, want %v", got, want)
	}
	if got := complete(prompt, "topic", ""); !slices.Equal(got, Topics) {
		t.Errorf("complete topic '' = %v", got)
	}
	if got := complete(prompt, "topic", "zzz"); len(got) != 0 {
		t.Errorf("complete topic zzz = %v", got)
	}
	if got := complete(prompt, "other", "m"); len(got) != 0 {
		t.Errorf("complete other arg = %v", got)
	}
	notes := &mcp.CompleteReference{Type: "ref/resource", URI: "demo://notes/{name}"}
	if got := complete(notes, "name", "w"); !slices.Equal(got, []string{"welcome"}) {
		t.Errorf("complete note name w = %v", got)
	}
}

// TestNullArguments: `"arguments": null` must not crash the server while
// applying schema defaults (see nullArgumentsAsEmpty).
func TestNullArguments(t *testing.T) {
	ctx, cs := connect(t, NewServer(), nil)
	for _, name := range []string{"slow", "big_report", "echo"} {
		// A nil map inside the interface is sent as null.
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any(nil)})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if wantErr := name == "echo"; res.IsError != wantErr { // echo requires text
			t.Errorf("%s with null arguments: IsError=%v: %s", name, res.IsError, text(t, res))
		}
	}
}

func TestReportDeterministic(t *testing.T) {
	if Report(3) != Report(3) {
		t.Fatal("Report is not deterministic")
	}
	r := Report(64)
	if len(r) < 64*1024 || !strings.Contains(r, "TOTAL: ") || !strings.Contains(r, "-- subtotal after 500 rows") {
		t.Errorf("report of %d bytes lacks total or subtotal", len(r))
	}
}
