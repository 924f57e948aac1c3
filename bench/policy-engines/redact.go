package policyengines

import (
	"encoding/json"
	"regexp"
	"strings"
)

// Redactor is the native counterpart of the redact-secrets plugin: its
// four kinds as Go regexps (RE2), applied in the plugin's order (private
// keys, bearer tokens, provider keys, api_key assignments, e-mail
// addresses), each replaced with [REDACTED:<kind>]. Where RE2 cannot say
// what the plugin checks (a bearer token needs a digit or punctuation, an
// sk- key a digit), the match is checked in Go and left alone when it
// fails. It is a translation, not the plugin's exact scanner: on odd
// input (an address followed by ".x1", say) the two can differ.
type Redactor struct {
	rules []redactRule
}

type redactRule struct {
	kind  string
	re    *regexp.Regexp
	group int               // the submatch replaced; 0 is the whole match
	ok    func(string) bool // nil: every match
}

// NewRedactor compiles the patterns of every kind.
func NewRedactor() *Redactor {
	return &Redactor{rules: []redactRule{
		// A PEM private key block, up to the end of its footer; a block
		// cut off (no footer) runs to the end of the text.
		{kind: "private_key", re: regexp.MustCompile(
			`(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY[A-Z0-9 ]*-----.*?(?:-----END [A-Z0-9 ]*(?:-----)?|\z)`)},
		// The token after "Bearer", any case: 8+ characters with a digit or
		// punctuation, or 24+ characters, to spare "the bearer of".
		{kind: "bearer_token", re: regexp.MustCompile(`(?i)\bbearer[ \t]+([A-Za-z0-9._~+/=-]+)`), group: 1, ok: tokenish},
		// Provider keys: OpenAI/Anthropic sk-, Slack xox?-, GitHub
		// github_pat_ and gh?_, AWS AKIA/ASIA.
		{kind: "api_key", re: regexp.MustCompile(
			`\b(?:sk-[A-Za-z0-9_-]{20,}|xox[baprs]-[A-Za-z0-9-]{10,}|github_pat_[A-Za-z0-9_]{20,}|gh[pousr]_[A-Za-z0-9]{30,}|(?:AKIA|ASIA)[A-Z0-9]{16}\b)`),
			ok: providerKey},
		// api_key / api-key / apikey, any case, then : or =: the value.
		// Only the name ignores case: under (?i) the value's negated class
		// would also exclude 'k' and 's' (the folds of U+212A and U+017F).
		{kind: "api_key", re: regexp.MustCompile(
			"(?i:api[_-]?key)[\"']?[ \\t]*[:=][ \\t]*[\"']?([^\\x00-\\x20\"'`,;&<>()\\[\\]{}\\x7f-\\x{10FFFF}]+)"),
			group: 1},
		// local@domain.tld with an alphabetic TLD of 2+ letters.
		{kind: "email", re: regexp.MustCompile(
			`[A-Za-z0-9_%+-][A-Za-z0-9._%+-]*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,}\b`)},
	}}
}

// tokenish is the plugin's test of a bearer token.
func tokenish(tok string) bool {
	if len(tok) >= 24 {
		return true
	}
	return len(tok) >= 8 && strings.IndexFunc(tok, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z')
	}) >= 0
}

// providerKey adds the plugin's checks that RE2 cannot express: an sk- key
// has a digit and a letter, a Slack token a digit.
func providerKey(key string) bool {
	switch {
	case strings.HasPrefix(key, "sk-"):
		body := key[3:]
		return strings.ContainsAny(body, "0123456789") &&
			strings.IndexFunc(body, func(r rune) bool { return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }) >= 0
	case strings.HasPrefix(key, "xox"):
		return strings.ContainsAny(key[5:], "0123456789")
	}
	return true
}

// Redact returns s with every secret replaced, and how many were.
func (r *Redactor) Redact(s string) (string, int) {
	n := 0
	for _, rule := range r.rules {
		s = rule.apply(s, &n)
	}
	return s, n
}

func (rule *redactRule) apply(s string, n *int) string {
	var b strings.Builder
	last, replaced := 0, false
	for _, m := range rule.re.FindAllStringSubmatchIndex(s, -1) {
		start, end := m[2*rule.group], m[2*rule.group+1]
		if start < 0 || (rule.ok != nil && !rule.ok(s[start:end])) {
			continue
		}
		if !replaced {
			b.Grow(len(s))
			replaced = true
		}
		b.WriteString(s[last:start])
		b.WriteString("[REDACTED:" + rule.kind + "]")
		last = end
		*n++
	}
	if !replaced {
		// No copy when there is nothing to replace.
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// TransformResult is the native transform_result: it does what the plugin
// does to a CallToolResult (redact every text content item, the text of
// embedded resources and every string of structuredContent, pass the rest
// through) on the raw JSON the host holds, so that both sides decode and
// encode the result.
func (r *Redactor) TransformResult(result json.RawMessage) (json.RawMessage, int, error) {
	var res map[string]any
	if err := json.Unmarshal(result, &res); err != nil {
		return nil, 0, err
	}
	n := 0
	redact := func(s string) string {
		out, k := r.Redact(s)
		n += k
		return out
	}
	if content, ok := res["content"].([]any); ok {
		for _, c := range content {
			item, ok := c.(map[string]any)
			if !ok {
				continue
			}
			switch item["type"] {
			case "text":
				if t, ok := item["text"].(string); ok {
					item["text"] = redact(t)
				}
			case "resource":
				if rs, ok := item["resource"].(map[string]any); ok {
					if t, ok := rs["text"].(string); ok {
						rs["text"] = redact(t)
					}
				}
			}
		}
	}
	if sc, ok := res["structuredContent"]; ok {
		res["structuredContent"] = redactStrings(sc, redact)
	}
	out, err := json.Marshal(res)
	return out, n, err
}

// redactStrings applies redact to every string in a JSON value, in place
// for maps and slices.
func redactStrings(v any, redact func(string) string) any {
	switch v := v.(type) {
	case string:
		return redact(v)
	case map[string]any:
		for k, e := range v {
			v[k] = redactStrings(e, redact)
		}
	case []any:
		for i, e := range v {
			v[i] = redactStrings(e, redact)
		}
	}
	return v
}
