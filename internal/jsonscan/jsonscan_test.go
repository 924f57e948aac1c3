package jsonscan

import (
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
