package policyengines

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
)

// words is the vocabulary of the generated text: ordinary words of tool
// output, none of which any redaction pattern matches.
var words = strings.Fields(`the a of to and in is for on with repository issue
pull request branch commit file line error warning build test passed failed
merged opened closed review comment label owner status release version tag
config value default server client tool result output input update delete
create list read write path directory module package function method type`)

// Secrets sprinkled into every 1000 words of generated text, at these word
// positions, so that even 1 KiB of text (about 170 words) has one of each.
const (
	githubTokenAt = 20
	emailAt       = 60
	bearerAt      = 100
)

// Counts of what GenerateText sprinkled.
type Sprinkled struct {
	GitHubTokens, Emails, BearerTokens int
}

// Total is the number of secrets in the text.
func (s Sprinkled) Total() int { return s.GitHubTokens + s.Emails + s.BearerTokens }

// GenerateText returns size bytes of deterministic pseudo-random words (the
// same for the same size on every run and machine), in lines of about 12
// words, with per 1000 words one GitHub token (ghp_ and 36 characters), one
// e-mail address and one "Authorization: Bearer" token; it also returns
// what it sprinkled. The end is padded with spaces to size exactly.
func GenerateText(size int) (string, Sprinkled) {
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	b.Grow(size)
	var sp Sprinkled
	for i := 0; ; i++ {
		var w string
		var count *int // the count to add to, for a secret
		switch i % 1000 {
		case githubTokenAt:
			w, count = "token ghp_"+randomAlnum(rng, 36), &sp.GitHubTokens
		case emailAt:
			w, count = "contact dev"+strconv.Itoa(i)+"@example.com", &sp.Emails
		case bearerAt:
			w, count = "Authorization: Bearer "+randomAlnum(rng, 32), &sp.BearerTokens
		default:
			w = words[rng.IntN(len(words))]
		}
		sep := " "
		if i%12 == 11 {
			sep = "\n"
		}
		if b.Len()+len(w)+len(sep) > size {
			break
		}
		b.WriteString(w)
		b.WriteString(sep)
		if count != nil {
			*count++
		}
	}
	b.WriteString(strings.Repeat(" ", size-b.Len()))
	return b.String(), sp
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// randomAlnum is n random letters and digits, with a digit first so that a
// bearer token always counts as one.
func randomAlnum(rng *rand.Rand, n int) string {
	b := make([]byte, n)
	b[0] = alnum[52+rng.IntN(10)]
	for i := 1; i < n; i++ {
		b[i] = alnum[rng.IntN(len(alnum))]
	}
	return string(b)
}

// TextResult is a CallToolResult with text as its one text content item,
// as a tool's raw result reaches the host.
func TextResult(text string) json.RawMessage {
	out, err := json.Marshal(map[string]any{
		"content": []any{map[string]any{"type": "text", "text": text}},
		"isError": false,
	})
	if err != nil {
		panic(err) // a map of strings always encodes
	}
	return out
}
