package argcheck

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestReadArgs(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "args.json")
	if err := os.WriteFile(file, []byte(`{"a":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range []struct {
		v, stdin string
		want     map[string]any
	}{
		{"", "", map[string]any{}},
		{`{"text":"hi"}`, "", map[string]any{"text": "hi"}},
		{"@" + file, "", map[string]any{"a": float64(1)}},
		{"-", `{"b":true}`, map[string]any{"b": true}},
	} {
		got, err := ReadArgs(ctx, c.v, strings.NewReader(c.stdin))
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ReadArgs(%q): %v, %v; want %v", c.v, got, err, c.want)
		}
	}
}

func TestReadArgsErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.json")
	ctx := context.Background()
	for _, c := range []struct {
		v, stdin string
		want     []string
	}{
		{`{"text":`, "", []string{"--args: not valid JSON", "write a JSON object"}},
		{`{'text': 1}`, "", []string{"--args: not valid JSON at byte 2"}},
		{`[1,2]`, "", []string{"--args: must be a JSON object", "not an array"}},
		{`"text"`, "", []string{"not a string"}},
		{`null`, "", []string{"not null"}},
		{`  `, "", []string{"--args: empty", "or {} for none"}},
		{"@" + missing, "", []string{"--args @" + missing + ":", "write @FILE with the path of a JSON file"}},
		{"-", "[]", []string{"--args -: must be a JSON object", "not an array"}},
		{"-", "", []string{"--args -: empty"}},
	} {
		_, err := ReadArgs(ctx, c.v, strings.NewReader(c.stdin))
		if err == nil {
			t.Errorf("ReadArgs(%q): no error", c.v)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("ReadArgs(%q): %v; want it to say %q", c.v, err, w)
			}
		}
	}
}

// blockingReader never returns: a terminal nobody types on.
type blockingReader struct{ ch chan struct{} }

func (r blockingReader) Read([]byte) (int, error) {
	<-r.ch
	return 0, os.ErrClosed
}

// Reading standard input ends when the context does.
func TestReadArgsStdinInterrupted(t *testing.T) {
	in := blockingReader{make(chan struct{})}
	defer close(in.ch)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := ReadArgs(ctx, "-", in)
	if err == nil || err.Error() != "--args -: interrupted while reading standard input" {
		t.Fatalf("ReadArgs after Ctrl-C: %v", err)
	}
}
