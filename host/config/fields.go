package config

import (
	"math"
	"strings"
	"time"

	"github.com/mcphost/mcphost/pdk/glob"
)

// The decoder's readers of typed fields: strings, maps, durations, globs.

// str returns a string field ("" when absent); a non-string is an error.
func (d *decoder) str(field string) string {
	v, ok := d.ms.fields[field]
	if !ok || v == nil {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		d.fail(field, "must be a string")
		return ""
	}
	return s
}

// stringMap decodes env or headers. Values are expanded and never quoted.
func (d *decoder) stringMap(field string, badKey func(string) string) map[string]string {
	v, ok := d.ms.fields[field]
	if !ok || v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		d.fail(field, "must be a map of names to strings")
		return nil
	}
	out := make(map[string]string, len(m))
	for _, k := range sortedKeys(m) {
		p := field + "." + k
		if msg := badKey(k); msg != "" {
			d.fail(field, "%s %q", msg, k)
			continue
		}
		s, ok := scalarString(m[k])
		if !ok {
			d.fail(p, "value must be a string")
			continue
		}
		val, _ := d.expand(p, s)
		if field == "headers" && strings.ContainsAny(val, "\r\n\x00") {
			// A line break would start another header (or a body) on the
			// wire. The value itself is never quoted: it may be a secret.
			d.fail(p, "the value contains a line break (CR or LF) or NUL, which no HTTP header may hold; write it on one line")
			continue
		}
		out[k] = val
	}
	return out
}

// duration accepts a Go duration ("30s", "1m30s") or a number of seconds, as
// Codex users write (startup_timeout_sec = 10).
func (d *decoder) duration(field string, def time.Duration) time.Duration {
	v, ok := d.ms.fields[field]
	if !ok || v == nil {
		return def
	}
	dur, err := parseDuration(v)
	if err != "" {
		d.fail(field, "%s", err)
		return def
	}
	return dur
}

// healthInterval decodes health_interval: a duration, or "off" (also 0 and
// false) for no health checks, which is -1 in Server. Unset stays 0: the
// host applies DefaultHealthInterval.
func (d *decoder) healthInterval() time.Duration {
	const field = "health_interval"
	v, ok := d.ms.fields[field]
	if !ok || v == nil {
		return 0
	}
	if healthOff(v) {
		return -1
	}
	if b, ok := v.(bool); ok && b {
		d.fail(field, "must be a duration like \"30s\", a number of seconds, or \"off\"")
		return 0
	}
	dur, err := parseDuration(v)
	if err != "" {
		d.fail(field, "%s (or \"off\" for no health checks)", err)
		return 0
	}
	return dur
}

// reconnect decodes the reconnect map. Unset values stay zero: the host
// applies the defaults.
func (d *decoder) reconnect() Reconnect {
	var r Reconnect
	v, ok := d.ms.fields["reconnect"]
	if !ok || v == nil {
		return r
	}
	m, ok := v.(map[string]any)
	if !ok {
		d.fail("reconnect", "must be a map with initial_delay, max_delay and max_attempts")
		return r
	}
	r.InitialDelay = d.durationValue("reconnect.initial_delay", m["initial_delay"])
	r.MaxDelay = d.durationValue("reconnect.max_delay", m["max_delay"])
	if r.InitialDelay > 0 && r.MaxDelay > 0 && r.MaxDelay < r.InitialDelay {
		d.fail("reconnect.max_delay", "%s is less than reconnect.initial_delay (%s); max_delay must be at least initial_delay", r.MaxDelay, r.InitialDelay)
	}
	if mv, ok := m["max_attempts"]; ok && mv != nil {
		n, ok := asInt(mv)
		switch {
		case !ok:
			d.fail("reconnect.max_attempts", "must be a whole number (0 means no limit)")
		case n < 0:
			d.fail("reconnect.max_attempts", "must not be negative (0 means no limit)")
		case n > math.MaxInt32:
			d.fail("reconnect.max_attempts", "%d is too large (0 means no limit)", n)
		default:
			r.MaxAttempts = int(n)
		}
	}
	return r
}

// durationValue decodes an optional duration inside a map field; absent or
// invalid gives 0.
func (d *decoder) durationValue(field string, v any) time.Duration {
	if v == nil {
		return 0
	}
	dur, err := parseDuration(v)
	if err != "" {
		d.fail(field, "%s", err)
		return 0
	}
	return dur
}

func (d *decoder) globs(field string, v any) []string {
	if v == nil {
		return nil
	}
	var list []string
	if s, ok := v.(string); ok {
		list = []string{s}
	} else {
		l, ok := scalarList(v)
		if !ok {
			d.fail(field, "must be a list of tool-name globs")
			return nil
		}
		list = l
	}
	var out []string
	for _, g := range list {
		if g == "" {
			d.fail(field, "empty glob")
			continue
		}
		if err := glob.Valid(g); err != nil {
			d.fail(field, "%v (syntax: * ? [abc])", err)
			continue
		}
		out = append(out, g)
	}
	return out
}
