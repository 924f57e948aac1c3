package docs_test

import (
	"strings"
	"testing"
)

func TestMatchOutput(t *testing.T) {
	cases := []struct {
		want, got string
		ok        bool
	}{
		{"a\nb", "a\nb", true},
		{"a\nb", "a\nc", false},
		{"a", "a\nb", false},
		{"a\n...\nz", "a\nb\nc\nz", true},
		{"a\n...\nz", "a\nz", true},
		{"a\n...\nz", "a\nb", false},
		{"took [...] ms", "took 12 ms", true},
		{"took [...] ms", "took 12 s", false},
		{"x.y", "xzy", false}, // the rest is literal
		{"...", "", true},
		{"a  ", "a", true}, // trailing spaces do not count
	}
	for _, c := range cases {
		var got []string
		if c.got != "" {
			got = strings.Split(c.got, "\n")
		}
		if ok := matchOutput(strings.Split(c.want, "\n"), got); ok != c.ok {
			t.Errorf("match(%q, %q) = %v, want %v", c.want, c.got, ok, c.ok)
		}
	}
}

func TestParseDoc(t *testing.T) {
	doc := "intro\n" +
		"```console\n$ mcphost version\nversion [...]\n$ mcphost call x \\\n  a=1   # exit 1\n```\n" +
		"<!-- doc: file .mcphost.yaml -->\n```yaml\nservers: {}\n```\n" +
		"<!-- doc: not run: needs a browser -->\n```sh\nmcphost login x\n```\n" +
		"```sh\n# a comment\nmcphost servers   # every server\n```\n" +
		"```yaml\nnot: run\n```\n" +
		"<!-- doc: start, wait for \"serving\" -->\n```console\n$ mcphost serve --http 127.0.0.1:8080\nserving\n```\n"
	steps, err := parseDoc("t.md", doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 6 {
		t.Fatalf("%d steps: %+v", len(steps), steps)
	}
	if s := steps[0]; s.command != "mcphost version" || !s.check || len(s.want) != 1 || s.exit != 0 {
		t.Errorf("step 0: %+v", s)
	}
	if s := steps[1]; !strings.HasPrefix(s.command, "mcphost call x \\\n") || s.exit != 1 || !s.check || len(s.want) != 0 {
		t.Errorf("step 1: %+v", s)
	}
	if s := steps[2]; s.file == nil || s.file.path != ".mcphost.yaml" || s.file.content != "servers: {}\n" {
		t.Errorf("step 2: %+v", s)
	}
	if s := steps[3]; s.skip != "needs a browser" {
		t.Errorf("step 3: %+v", s)
	}
	if s := steps[4]; s.command != "mcphost servers   # every server" || s.check {
		t.Errorf("step 4: %+v", s)
	}
	if s := steps[5]; s.start != "serving" || s.command != "mcphost serve --http 127.0.0.1:8080" {
		t.Errorf("step 5: %+v", s)
	}
	for _, bad := range []string{
		"<!-- doc: skip -->\n```sh\nx\n```\n",                  // an unknown directive never turns a check off
		"<!-- doc: not run: -->\n```sh\nx\n```\n",              // a reason is required
		"```console\noutput first\n```\n",                      // output before a command
		"<!-- doc: start, wait for \"x\" -->\n```sh\nx\n```\n", // start takes a console block
		"```\n$ mcphost tools\n```\n",                          // a transcript the harness would not see
	} {
		if _, err := parseDoc("t.md", bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
