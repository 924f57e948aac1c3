package argcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcphost/mcphost/internal/safefile"
)

// MaxArgsBytes caps the arguments read from a file or standard input.
const MaxArgsBytes = 64 << 20

// ReadArgs parses the value of an --args flag: inline JSON, @file (a
// regular file) or - (stdin), each at most MaxArgsBytes, holding a JSON
// object; "" is no arguments. Reading stdin ends when ctx does (Ctrl-C
// while a terminal waits for input). Errors name the flag and say what to
// write instead.
func ReadArgs(ctx context.Context, v string, stdin io.Reader) (map[string]any, error) {
	var data []byte
	switch {
	case v == "":
		return map[string]any{}, nil
	case v == "-":
		b, err := readStdin(ctx, stdin)
		if err != nil {
			return nil, fmt.Errorf("--args -: %w", err)
		}
		data = b
	case strings.HasPrefix(v, "@"):
		b, err := safefile.ReadFile(v[1:], MaxArgsBytes)
		if err != nil {
			return nil, fmt.Errorf("--args %s: %w (write @FILE with the path of a JSON file)", v, err)
		}
		data = b
	default:
		data = []byte(v)
	}
	src := "--args"
	if v == "-" || strings.HasPrefix(v, "@") {
		src = "--args " + v
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s: empty: write a JSON object like '{\"key\":\"value\"}' (or {} for none)", src)
	}
	var parsed any
	if err := json.Unmarshal(data, &parsed); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%s: not valid JSON at byte %d: %v (write a JSON object like '{\"key\":\"value\"}')", src, se.Offset, err)
		}
		return nil, fmt.Errorf("%s: not valid JSON: %v (write a JSON object like '{\"key\":\"value\"}')", src, err)
	}
	args, ok := parsed.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: must be a JSON object like '{\"key\":\"value\"}', not %s", src, jsonKind(parsed))
	}
	return args, nil
}

// readStdin reads stdin whole (at most MaxArgsBytes) unless ctx ends first.
// The read itself cannot be cancelled: it is left to end with the process.
func readStdin(ctx context.Context, stdin io.Reader) ([]byte, error) {
	if stdin == nil {
		return nil, nil
	}
	type read struct {
		b   []byte
		err error
	}
	done := make(chan read, 1)
	go func() {
		b, err := safefile.ReadAll(stdin, "standard input", MaxArgsBytes)
		done <- read{b, err}
	}()
	select {
	case r := <-done:
		return r.b, r.err
	case <-ctx.Done():
		return nil, errors.New("interrupted while reading standard input")
	}
}

// jsonKind names the JSON type of a decoded value, for error messages.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}
