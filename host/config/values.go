package config

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	suggestpkg "github.com/mcphost/mcphost/internal/suggest"
)

// Values as YAML, TOML and JSON parsers give them, and what mcphost reads
// from them: the lenient conversions every field decoder shares.

// suggest returns ` (did you mean "X"?)` for the known word closest to w, or "".
// Words are compared without case, '_' and '-', so that requestTimeout and
// request-timeout both find request_timeout.
func suggest(w string, known []string) string {
	norm := func(s string) string {
		return strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(s))
	}
	nw := norm(w)
	if len(nw) > maxSuggestBytes {
		return "" // a key this long is no typo of a field, and comparing costs
	}
	limit := max(2, len(nw)/3)
	best, bestD := "", math.MaxInt
	for _, k := range known {
		nk := norm(k)
		d := suggestpkg.Distance(nw, nk, limit+1)
		if strings.HasPrefix(nk, nw) || strings.HasPrefix(nw, nk) {
			d = min(d, 1+abs(len(nk)-len(nw))/4)
		}
		if d < bestD {
			best, bestD = k, d
		}
	}
	if best == "" || bestD > limit {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// maxSuggestBytes bounds the keys suggest compares: they come from files in
// cloned repositories.
const maxSuggestBytes = 256

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// toGeneric turns any map with string keys into map[string]any and any slice
// into []any, recursively, so that the rest of the package handles one shape
// whether a value came from a parser or from Go code (Overrides).
func toGeneric(v any) any {
	switch t := v.(type) {
	case nil, string, bool, int, int64, float64, json.Number:
		return v
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = toGeneric(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = toGeneric(e)
		}
		return out
	case []string:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = e
		}
		return out
	case map[string]string:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = e
		}
		return out
	case fieldList:
		return t.generic()
	case time.Duration, fmt.Stringer:
		return v
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Map:
		out := make(map[string]any, rv.Len())
		it := rv.MapRange()
		for it.Next() {
			out[fmt.Sprint(it.Key().Interface())] = toGeneric(it.Value().Interface())
		}
		return out
	case reflect.Slice, reflect.Array:
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = toGeneric(rv.Index(i).Interface())
		}
		return out
	case reflect.Pointer:
		if rv.IsNil() {
			return nil
		}
		return toGeneric(rv.Elem().Interface())
	}
	return v
}

func validDate(s string) bool {
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}

// healthOff reports whether v turns health checks off: "off", false, or zero
// (0, "0", "0s").
func healthOff(v any) bool {
	switch t := v.(type) {
	case bool:
		return !t
	case string:
		s := strings.TrimSpace(t)
		if strings.EqualFold(s, "off") {
			return true
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f == 0
		}
		dur, err := time.ParseDuration(s)
		return err == nil && dur == 0
	case time.Duration:
		return t == 0
	}
	f, ok := asFloat(v)
	return ok && f == 0
}

func parseDuration(v any) (time.Duration, string) {
	var secs float64
	switch t := v.(type) {
	case time.Duration:
		if t <= 0 {
			return 0, fmt.Sprintf("%q must be positive", t.String())
		}
		return t, ""
	case string:
		s := strings.TrimSpace(t)
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			secs = f
			break
		}
		dur, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Sprintf("%q is not a duration (use e.g. \"30s\")", t)
		}
		if dur <= 0 {
			return 0, fmt.Sprintf("%q must be positive", t)
		}
		return dur, ""
	default:
		n, ok := asFloat(v)
		if !ok {
			return 0, "must be a duration like \"30s\" or a number of seconds"
		}
		secs = n
	}
	if math.IsNaN(secs) || secs <= 0 {
		return 0, fmt.Sprintf("%v seconds: must be positive", secs)
	}
	if secs > float64(math.MaxInt64)/float64(time.Second) {
		return 0, fmt.Sprintf("%v seconds is too long", secs)
	}
	return time.Duration(secs * float64(time.Second)), ""
}

// scalarString accepts what YAML, TOML and JSON give for a value the user
// meant as a string: `PORT: 8080` and `DEBUG: true` mean "8080" and "true".
func scalarString(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case bool:
		return strconv.FormatBool(t), true
	case int:
		return strconv.Itoa(t), true
	case int64:
		return strconv.FormatInt(t, 10), true
	case uint64:
		return strconv.FormatUint(t, 10), true
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64), true
	case json.Number:
		return t.String(), true
	}
	return "", false
}

func scalarList(v any) ([]string, bool) {
	l, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(l))
	for _, e := range l {
		s, ok := scalarString(e)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// asBool accepts a bool or, as environment variables are strings, "true"/"false"
// (also 1/0, yes/no, on/off).
func asBool(v any) (bool, bool) {
	switch t := v.(type) {
	case bool:
		return t, true
	case string:
		switch strings.ToLower(strings.TrimSpace(t)) {
		case "yes", "on": // YAML 1.1 spellings people still write
			return true, true
		case "no", "off":
			return false, true
		}
		b, err := strconv.ParseBool(strings.TrimSpace(t))
		return b, err == nil
	}
	return false, false
}

func asInt(v any) (int64, bool) {
	switch t := v.(type) {
	case int:
		return int64(t), true
	case int64:
		return t, true
	case uint64:
		if t > math.MaxInt64 {
			return 0, false
		}
		return int64(t), true
	case float64:
		if t != math.Trunc(t) || math.Abs(t) > 1<<53 {
			return 0, false
		}
		return int64(t), true
	case json.Number:
		n, err := t.Int64()
		return n, err == nil
	case string:
		n, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64)
		return n, err == nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return int64(rv.Uint()), true
	}
	return 0, false
}

func asFloat(v any) (float64, bool) {
	switch t := v.(type) {
	case float64:
		return t, true
	case json.Number:
		f, err := t.Float64()
		return f, err == nil
	}
	if n, ok := asInt(v); ok {
		return float64(n), true
	}
	return 0, false
}

func quoteValue(v any) string {
	if s, ok := scalarString(v); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("a %T", v)
}
