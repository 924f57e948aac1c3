package config

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

// A secret is listed as it appears inside JSON strings and quoted log
// values too, so a scrubber finds it in --json output and in logs.
func TestSecretValuesQuotedForms(t *testing.T) {
	cfg := &Config{Servers: []*Server{{Headers: map[string]string{"X-Key": `a<b&c"d\e-secret`}}}}
	got := cfg.SecretValues()
	for _, want := range []string{`a<b&c"d\e-secret`, `a\u003cb\u0026c\"d\\e-secret`, `a<b&c\"d\\e-secret`} {
		if !slices.Contains(got, want) {
			t.Errorf("SecretValues lacks %q: %q", want, got)
		}
	}
	for i := 1; i < len(got); i++ {
		if len(got[i]) > len(got[i-1]) {
			t.Fatalf("not longest first: %q", got)
		}
	}
}

// A URL that does not parse loses its password and query by its shape.
func TestRedactURLUnparsable(t *testing.T) {
	for raw, want := range map[string]string{
		"http://al:PASS WORD@h/x?token=QTOKEN": "http://al:****@h/x?****",
		"http://h:99999999999/%zz":             "http://h:99999999999/%zz",
		"ht tp://u:p@h#frag":                   "ht tp://u:****@h#****",
		"http://u:pa/ss word@h/p":              "http://u:****@h/p",
		"%zz":                                  "%zz",
	} {
		if got := RedactURL(raw); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", raw, got, want)
		}
	}
}

// RedactURL never fails and never shows a password or a query value.
func FuzzRedactURL(f *testing.F) {
	f.Add("http://alice:pw@127.0.0.1:9/mcp?token=t&x=1")
	f.Add("https://h/%zz?a=b")
	f.Add("ws://[::1]:80/?=&&a")
	f.Fuzz(func(t *testing.T, raw string) {
		red := RedactURL(raw)
		u, err := url.Parse(raw)
		if err != nil {
			// Redacted by its shape: nothing after '?' or '#', no
			// password before the path.
			if q := strings.IndexAny(red, "?#"); q >= 0 && red[q+1:] != Redacted {
				t.Fatalf("RedactURL(%q) = %q keeps a query", raw, red)
			}
			if again := redactURLText(red); again != red {
				t.Fatalf("RedactURL(%q) = %q is not redacted (again: %q)", raw, red, again)
			}
			return
		}
		r, err := url.Parse(red)
		if err != nil {
			t.Fatalf("RedactURL(%q) = %q does not parse: %v", raw, red, err)
		}
		if _, has := u.User.Password(); has {
			if p, _ := r.User.Password(); p != Redacted {
				t.Fatalf("RedactURL(%q) = %q shows password %q", raw, red, p)
			}
		}
		for _, vs := range r.Query() {
			for _, v := range vs {
				if v != Redacted {
					t.Fatalf("RedactURL(%q) = %q shows query value %q", raw, red, v)
				}
			}
		}
	})
}
