package host

import (
	"context"
	"log/slog"

	"github.com/hashicorp/go-hclog"
)

// sdkLogger hands go-sdk's own log lines (log/slog) to a server's hclog
// logger, so that what the SDK decides quietly shows in mcphost's log: a
// tool it leaves out of tools/list for malformed x-mcp-header annotations
// (SEP-2243), say.
func sdkLogger(l hclog.Logger) *slog.Logger {
	return slog.New(&hclogHandler{l: l.Named("sdk")})
}

type hclogHandler struct {
	l     hclog.Logger
	attrs []any
}

func (h *hclogHandler) Enabled(_ context.Context, level slog.Level) bool {
	switch {
	case level >= slog.LevelError:
		return h.l.IsError()
	case level >= slog.LevelWarn:
		return h.l.IsWarn()
	case level >= slog.LevelInfo:
		return h.l.IsInfo()
	}
	return h.l.IsDebug()
}

func (h *hclogHandler) Handle(_ context.Context, r slog.Record) error {
	args := append([]any(nil), h.attrs...)
	r.Attrs(func(a slog.Attr) bool {
		args = append(args, a.Key, a.Value.Any())
		return true
	})
	switch {
	case r.Level >= slog.LevelError:
		// The SDK's errors are about one message or one tool, not the
		// session: a warning for mcphost.
		h.l.Warn(r.Message, args...)
	case r.Level >= slog.LevelWarn:
		h.l.Warn(r.Message, args...)
	case r.Level >= slog.LevelInfo:
		h.l.Info(r.Message, args...)
	default:
		h.l.Debug(r.Message, args...)
	}
	return nil
}

func (h *hclogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := &hclogHandler{l: h.l, attrs: append([]any(nil), h.attrs...)}
	for _, a := range attrs {
		c.attrs = append(c.attrs, a.Key, a.Value.Any())
	}
	return c
}

func (h *hclogHandler) WithGroup(name string) slog.Handler {
	return &hclogHandler{l: h.l.Named(name), attrs: h.attrs}
}
