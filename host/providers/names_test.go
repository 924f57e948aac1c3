package providers_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/providers"
)

var (
	openAIName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	geminiName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$`)
)

func toolsNamed(names ...string) []host.Tool {
	tools := make([]host.Tool, len(names))
	for i, n := range names {
		tools[i] = host.Tool{Name: n}
	}
	return tools
}

func TestProviderNames(t *testing.T) {
	long := "mcp__" + strings.Repeat("server", 10) + "__" + strings.Repeat("tool", 10)
	public := []string{
		"mcp__github__search", // fits everywhere
		long,                  // too long everywhere
		long + "_2",           // shares the first 55 characters with long
		"1password_lookup",    // Gemini: must not start with a digit
		"-dash",               // Gemini: nor with a dash
		"weird name/ü",        // a name-mapping plugin's, refused everywhere
	}
	for _, f := range []providers.Format{providers.OpenAI, providers.OpenAIResponses, providers.Anthropic, providers.Gemini} {
		ts, err := providers.Convert(f, toolsNamed(public...), nil)
		if err != nil {
			t.Fatal(err)
		}
		valid := openAIName
		if f == providers.Gemini {
			valid = geminiName
		}
		seen := map[string]string{}
		for i, p := range public {
			name := readBack(t, ts, i).name
			if !valid.MatchString(name) {
				t.Errorf("%s: %q became %q, which the provider refuses", f, p, name)
			}
			if other, dup := seen[name]; dup {
				t.Errorf("%s: %q and %q both became %q", f, p, other, name)
			}
			seen[name] = p
			if back, ok := ts.PublicName(name); !ok || back != p {
				t.Errorf("%s: PublicName(%q) = %q, %v; want %q", f, name, back, ok, p)
			}
			if pn, ok := ts.ProviderName(p); !ok || pn != name {
				t.Errorf("%s: ProviderName(%q) = %q, %v; want %q", f, p, pn, ok, name)
			}
			if valid.MatchString(p) && name != p {
				t.Errorf("%s: %q fits but became %q", f, p, name)
			}
			if !valid.MatchString(p) && !hasWarning(ts.Warnings, "", name) {
				t.Errorf("%s: no warning for %q -> %q: %v", f, p, name, ts.Warnings)
			}
		}
	}
}

func TestProviderNamesAreDeterministic(t *testing.T) {
	long := strings.Repeat("x", 80)
	a, err := providers.Convert(providers.OpenAI, toolsNamed(long, "b", long+"y"), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Other order, another tool added: the same names.
	b, err := providers.Convert(providers.OpenAI, toolsNamed("c", long+"y", long), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{long, long + "y"} {
		na, _ := a.ProviderName(p)
		nb, _ := b.ProviderName(p)
		if na != nb || len(na) != 64 {
			t.Errorf("%q: %q then %q", p, na, nb)
		}
	}
}

func TestProviderNameCollision(t *testing.T) {
	// "a.b" is shortened to "a_b_<hash>"; a public name equal to that form
	// keeps it, and "a.b" gets another.
	first, err := providers.Convert(providers.OpenAI, toolsNamed("a.b"), nil)
	if err != nil {
		t.Fatal(err)
	}
	taken, _ := first.ProviderName("a.b")
	ts, err := providers.Convert(providers.OpenAI, toolsNamed("a.b", taken), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := ts.ProviderName(taken); n != taken {
		t.Errorf("valid name %q became %q", taken, n)
	}
	if n, _ := ts.ProviderName("a.b"); n == taken || !openAIName.MatchString(n) {
		t.Errorf("a.b became %q", n)
	}
}

func TestConvertRefusals(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tools []host.Tool
		f     providers.Format
		want  string
	}{
		{"unknown format", nil, "openai-chat", "unknown format"},
		{"empty name", toolsNamed(""), providers.OpenAI, "empty name"},
		{"duplicate names", toolsNamed("a", "a"), providers.Gemini, "two tools"},
		{"too many tools", make([]host.Tool, providers.MaxTools+1), providers.Anthropic, "over the limit"},
	} {
		_, err := providers.Convert(tc.f, tc.tools, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "providers: ") {
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
}

func TestParseFormat(t *testing.T) {
	for _, f := range providers.Formats() {
		got, err := providers.ParseFormat(" " + strings.ToUpper(string(f)) + " ")
		if err != nil || got != f {
			t.Errorf("ParseFormat(%q) = %q, %v", f, got, err)
		}
	}
	_, err := providers.ParseFormat("claude")
	if err == nil || !strings.Contains(err.Error(), "openai, openai-responses, anthropic, gemini, mcp") {
		t.Errorf("ParseFormat(claude): %v", err)
	}
}

func TestOpenAILimits(t *testing.T) {
	names := make([]string, 130)
	for i := range names {
		names[i] = "t" + strings.Repeat("x", i%5) + string(rune('a'+i%26)) + strings.Repeat("y", i/26)
	}
	tools := toolsNamed(names...)
	tools[0].Description = strings.Repeat("é", 1500)
	ts, err := providers.Convert(providers.OpenAI, tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !hasWarning(ts.Warnings, "", "at most 128") {
		t.Errorf("no warning about 130 tools: %v", ts.Warnings)
	}
	desc := ts.Tools[0].(*providers.OpenAITool).Function.Description
	if n := len([]rune(desc)); n != 1024 || !hasWarning(ts.Warnings, "", "cut") {
		t.Errorf("description of %d characters; warnings %v", n, ts.Warnings)
	}
}
