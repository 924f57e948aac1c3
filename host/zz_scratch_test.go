package host_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
)

func TestZZRegistryRace(t *testing.T) {
	lost := 0
	for i := 0; i < 300; i++ {
		var opts []host.Option
		for j := 0; j < 4; j++ {
			id := fmt.Sprintf("s%d", j)
			opts = append(opts, host.WithInProcessServer(id, newToolServer(id, "echo")))
		}
		h, _ := host.New(&config.Config{}, opts...)
		h.Start(context.Background())
		if n := len(h.Tools()); n != 4 {
			lost++
		}
		h.Close(context.Background())
	}
	t.Logf("lost tools in %d of 300 starts", lost)
}
