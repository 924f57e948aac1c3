package jsonscan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestDepth(t *testing.T) {
	for in, want := range map[string]int{
		`1`:                    0,
		`"{[["`:                0,
		`{}`:                   1,
		`{"a":[1,{"b":"]}"}]}`: 3,
		`[[["\"[{"]]]`:         3,
		`{"a":"\\"}`:           1,
		strings.Repeat("[", 1200) + strings.Repeat("]", 1200): 1200,
	} {
		if got := Depth([]byte(in)); got != want {
			t.Errorf("Depth(%.40q) = %d, want %d", in, got, want)
		}
	}
}

// FuzzDepth: for valid JSON, Depth agrees with a decode.
func FuzzDepth(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":"]}"}]}`))
	f.Add([]byte(`"\\\""`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := Depth(data)
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		if want := depthOf(v); d != want {
			t.Fatalf("Depth(%q) = %d, decoded depth %d", data, d, want)
		}
	})
}

func depthOf(v any) int {
	deepest := 0
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			deepest = max(deepest, depthOf(e))
		}
		return deepest + 1
	case []any:
		for _, e := range x {
			deepest = max(deepest, depthOf(e))
		}
		return deepest + 1
	}
	return 0
}

func TestUniqueKeys(t *testing.T) {
	many := `{`
	for i := 0; i < 40; i++ {
		many += `"k` + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `":1,`
	}
	for _, tc := range []struct {
		json string
		want bool
	}{
		{`{"a":1,"b":{"a":2},"c":[{"a":1},{"a":2}]}`, true},
		{`{"a":1,"a":2}`, false},
		{`{"a":{"b":1,"b":2}}`, false},
		{`[{"a":1},{"a":1}]`, true},
		{`{"a":"x","b\u0061":2}`, false}, // an escaped key is not compared: false
		{`{"a":"\"a\":","b":1}`, true},
		{many + `"kaa":2}`, false},
		{many + `"zz":2}`, true},
		{`[[[1]]]`, true},
		{`[[[[1]]]]`, false}, // deeper than 3
	} {
		if got := UniqueKeys([]byte(tc.json), 3); got != tc.want {
			t.Errorf("UniqueKeys(%s) = %v, want %v", tc.json, got, tc.want)
		}
	}
}

// FuzzUniqueKeys: on valid JSON, true means that decoding token by token
// finds no key twice and no escaped key.
func FuzzUniqueKeys(f *testing.F) {
	f.Add(`{"a":1,"b":{"a":2}}`)
	f.Add(`{"a":1,"a":2}`)
	f.Add(`[{"x":[{"y":1,"z":2}]},{"x":1}]`)
	f.Fuzz(func(t *testing.T, s string) {
		data := []byte(s)
		if !json.Valid(data) || !UniqueKeys(data, 64) {
			return
		}
		if dup := duplicateKey(data); dup != "" {
			t.Fatalf("UniqueKeys(%s) = true, but %q appears twice", s, dup)
		}
	})
}

// duplicateKey walks valid JSON token by token and returns a key found
// twice in one object, "" if none.
func duplicateKey(data []byte) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		obj  bool
		seen map[string]bool
		key  bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				if top != nil && top.obj {
					top.key = true
				}
				stack = append(stack, &frame{obj: v == '{', seen: map[string]bool{}, key: true})
				if v == '[' {
					stack[len(stack)-1].key = false
				}
			default:
				stack = stack[:len(stack)-1]
			}
			continue
		case string:
			if top != nil && top.obj && top.key {
				if top.seen[v] {
					return v
				}
				top.seen[v] = true
				top.key = false
				continue
			}
		}
		if top != nil && top.obj {
			top.key = true
		}
	}
}

func TestStringEnd(t *testing.T) {
	for _, tc := range []struct {
		s    string // after the opening quote
		want int
	}{
		{`"`, 0},
		{`abc"x`, 3},
		{`a\"b"`, 4},
		{`a\\"b"`, 3},
		{`\\\"x"`, 5},
		{`\\`, 2},
		{`\`, 1},
		{`abc`, 3},
		{`\n\n\n"`, 6},
		{`\"`, 2},
		{`a\`, 2},
	} {
		if got := stringEnd([]byte(tc.s), 0); got != tc.want && !(tc.want >= len(tc.s) && got == len(tc.s)) {
			t.Errorf("stringEnd(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
}

// BenchmarkDepthEscapes: a MiB of text with an escape every 12 bytes (as
// a result with many lines) must take linear time.
func BenchmarkDepthEscapes(b *testing.B) {
	data := []byte(`{"text":"` + strings.Repeat(`hello word\n`, 1<<20/11) + `"}`)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		Depth(data)
	}
}
