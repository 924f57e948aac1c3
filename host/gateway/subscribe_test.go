package gateway_test

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host/gateway"
)

// Resource updates reach a subscribed client whatever the protocols on
// either side: resources/subscribe up to 2025-11-25, a subscriptions/listen
// stream from 2026-07-28.
func TestResourceUpdatesAcrossProtocols(t *testing.T) {
	for _, v := range [][2]string{{"2026-07-28", "2026-07-28"}, {"2025-11-25", "2026-07-28"}, {"2026-07-28", "2025-11-25"}} {
		t.Run(v[0]+"-backend/"+v[1]+"-client", func(t *testing.T) {
			updated := make(chan string, 64)
			f := startClient(t, v[0], v[1], nil, &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
				updated <- req.Params.URI
			}}, gateway.Options{})
			ctx := ctxFor(t)
			if err := f.client.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://readme"}); err != nil {
				t.Fatal(err)
			}
			updateReaches(ctx, t, f, updated)
		})
	}
}

// updateReaches has the backend send an update of test://readme until one
// reaches the client: the gateway records a client's subscription once its
// handler returned, and an update sent before that reaches nobody.
func updateReaches(ctx context.Context, t *testing.T, f *fixture, updated <-chan string) {
	t.Helper()
	for {
		if err := f.backend.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "test://readme"}); err != nil {
			t.Fatal(err)
		}
		select {
		case uri := <-updated:
			if uri != "test://readme" {
				t.Fatalf("update of %q", uri)
			}
			return
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			t.Fatal("no update reached the client")
		}
	}
}
