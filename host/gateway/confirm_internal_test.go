package gateway

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/host"
)

// A confirmation of the built-in confirm_destructive that a client cannot
// be asked for names the setting that exempts a tool.
func TestCannotConfirmNamesTheSetting(t *testing.T) {
	err := cannotConfirm("builtin:confirm-destructive")
	if !errors.Is(err, host.ErrCannotAsk) || !strings.Contains(err.Error(), "list the tool in policy.confirm_except") {
		t.Errorf("cannotConfirm = %v", err)
	}
}
