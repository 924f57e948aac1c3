package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	mdLink  = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)
	fence   = regexp.MustCompile("(?ms)^\\s*```.*?^\\s*```")
)

// anchor is GitHub's id of a heading.
func anchor(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	var b strings.Builder
	for _, r := range h {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func anchorsOf(t *testing.T, path string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := fence.ReplaceAllString(string(b), "")
	ids := map[string]bool{}
	for _, m := range heading.FindAllStringSubmatch(text, -1) {
		id := anchor(m[1])
		for n := 1; ids[id]; n++ { // GitHub numbers repeated headings
			id = anchor(m[1]) + "-" + string(rune('0'+n))
		}
		ids[id] = true
	}
	return ids
}

// TestDocLinks: every relative link of README.md and docs/*.md names a file
// of the repository and, with #anchor, one of its headings.
func TestDocLinks(t *testing.T) {
	for _, f := range docFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := fence.ReplaceAllString(string(b), "")
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			link := m[1]
			if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			target, frag, _ := strings.Cut(link, "#")
			path := f
			if target != "" {
				path = filepath.Join(filepath.Dir(f), target)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: link %s: no such file", filepath.Base(f), link)
				continue
			}
			if frag != "" && strings.HasSuffix(path, ".md") && !anchorsOf(t, path)[frag] {
				t.Errorf("%s: link %s: %s has no heading #%s", filepath.Base(f), link, filepath.Base(path), frag)
			}
		}
	}
}
