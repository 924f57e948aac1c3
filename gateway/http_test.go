package gateway

import (
	"net/http"
	"net/http/httptest"
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
