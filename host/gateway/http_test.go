package gateway

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Each caller has its own bucket: one caller over its limit gets 429 with
// Retry-After, the others go on.
func TestRateLimitPerCaller(t *testing.T) {
	rl := newRateLimiter(0.001, 2) // two requests, then (practically) none
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	tokens := map[string]string{"alice": "alice-token-0123456789", "bob": "bob-token-0123456789xx"}
	h := auth.RequireBearerToken(StaticTokens(tokens), nil)(rl.wrap(ok))
	as := func(who string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		r.Header.Set("Authorization", "Bearer "+tokens[who])
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	for i := 0; i < 2; i++ {
		if w := as("alice"); w.Code != http.StatusOK {
			t.Fatalf("alice request %d: %d", i, w.Code)
		}
	}
	if w := as("alice"); w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") == "" {
		t.Fatalf("alice over her limit: %d", w.Code)
	}
	if w := as("bob"); w.Code != http.StatusOK {
		t.Fatalf("bob, under his: %d", w.Code)
	}
	if newRateLimiter(0, 0) != nil {
		t.Error("rate 0 must mean no limiter")
	}
}

func TestCheckReplicaID(t *testing.T) {
	for _, ok := range []string{"r1", "eu-west-2", "A"} {
		if err := CheckReplicaID(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "r.1", "r 1", "r1/", "ä", "012345678901234567890123456789012"} {
		if CheckReplicaID(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	ids := sessionIDs("r7")
	if a, b := ids(), ids(); !strings.HasPrefix(a, "r7.") || len(a) < 20 || a == b {
		t.Errorf("session ids %q, %q: want distinct r7.<random>", a, b)
	}
	if sessionIDs("") != nil {
		t.Error("no replica: go-sdk's own ids")
	}
}
