package host

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestElicitationChecks(t *testing.T) {
	form := map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}
	for _, bad := range []struct {
		p    mcp.ElicitParams
		want string
	}{
		{mcp.ElicitParams{Mode: "banana", RequestedSchema: form}, "unsupported elicitation mode"},
		{mcp.ElicitParams{Mode: "url"}, "without a URL"},
		{mcp.ElicitParams{Mode: "url", URL: "javascript:alert(1)"}, "not an http(s) URL"},
		{mcp.ElicitParams{Mode: "url", URL: "https://example.test/x", RequestedSchema: form}, "with a requested schema"},
		{mcp.ElicitParams{URL: "https://example.test/x", RequestedSchema: form}, "URL must not be set"},
		{mcp.ElicitParams{RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"o": map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "string"}}}}}}, "not allowed in a form"},
	} {
		if _, err := checkElicitParams(&bad.p); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%+v: %v; want an error about %q", bad.p, err, bad.want)
		}
	}
	f, err := checkElicitParams(&mcp.ElicitParams{RequestedSchema: form})
	if err != nil {
		t.Fatal(err)
	}
	for _, ok := range []*mcp.ElicitResult{
		{Action: "accept", Content: map[string]any{"name": "ada"}},
		{Action: "decline"}, {Action: "cancel"}, {Action: "accept"},
	} {
		if err := f.checkAnswer(ok); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}
	for _, bad := range []struct {
		res  *mcp.ElicitResult
		want string
	}{
		{&mcp.ElicitResult{Action: "Accept", Content: map[string]any{"name": "ada"}}, "action"},
		{&mcp.ElicitResult{Action: "decline", Content: map[string]any{"name": 7}}, "carries content"},
		{&mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "ada", "evil": map[string]any{}}}, `field "evil"`},
		{&mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": 7}}, "does not match"},
		{nil, "no answer"},
	} {
		if err := f.checkAnswer(bad.res); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%+v: %v; want an error about %q", bad.res, err, bad.want)
		}
	}
	u, err := checkElicitParams(&mcp.ElicitParams{Mode: "url", URL: "https://example.test/login"})
	if err != nil {
		t.Fatal(err)
	}
	if err := u.checkAnswer(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"token": "x"}}); err == nil {
		t.Error("content in the answer to a URL elicitation passed")
	}
	if err := u.checkAnswer(&mcp.ElicitResult{Action: "accept"}); err != nil {
		t.Error(err)
	}
}
