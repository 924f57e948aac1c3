package authn

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"time"
)

// UI shows the user where to authorize a server. The CLI's opens the
// system browser or prints the URL; an embedding application shows its
// own prompt.
type UI interface {
	// Open asks the user to visit authURL to authorize server id. It
	// returns once the user was told; the authorization server's answer
	// arrives at the redirect URL (the loopback listener, or the UI's
	// own when it implements CallbackReceiver).
	Open(ctx context.Context, id, authURL string) error
}

// CallbackReceiver is implemented by a UI that receives the authorization
// server's redirect itself (a custom URL scheme, a web app's route)
// instead of mcphost's loopback listener.
type CallbackReceiver interface {
	// RedirectURL is the redirect URI to register and send.
	RedirectURL(id string) string
	// Receive waits for the redirect of the authorization for server id
	// and returns its query (code, state, iss, or error).
	Receive(ctx context.Context, id string) (url.Values, error)
}

// loginWait bounds how long a login waits for the user.
const loginWait = 5 * time.Minute

// callbackPath is the path of the loopback redirect URI.
const callbackPath = "/callback"

// loopback receives the redirect of one authorization on 127.0.0.1 (RFC
// 8252 §7.3: a loopback IP literal, not "localhost", which may resolve
// elsewhere).
type loopback struct {
	port int
	// state, when set, is the state of the authorization being waited
	// for: a request with another (a stale tab, a local process or a web
	// page probing the port) is answered and ignored.
	state string
}

// newLoopback picks the port: the configured one, else one free now.
func newLoopback(port int) (*loopback, error) {
	if port == 0 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("no free loopback port for the login callback: %w", err)
		}
		port = ln.Addr().(*net.TCPAddr).Port
		ln.Close()
	}
	return &loopback{port: port}, nil
}

func (l *loopback) redirectURL() string {
	return "http://127.0.0.1:" + strconv.Itoa(l.port) + callbackPath
}

// receive listens, lets open show the URL, and waits for the redirect.
func (l *loopback) receive(ctx context.Context, open func() error) (url.Values, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(l.port))
	if err != nil {
		return nil, fmt.Errorf("cannot listen for the login callback on 127.0.0.1:%d (%v); free the port or set oauth.redirect_port", l.port, err)
	}
	// Closed on return even if Serve has not started yet (Shutdown only
	// closes the listeners Serve took), so that the port is free again.
	defer ln.Close()
	got := make(chan url.Values, 1)
	srv := &http.Server{
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      10 * time.Second,
		IdleTimeout:       10 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != callbackPath {
				http.NotFound(w, r)
				return
			}
			q := r.URL.Query()
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			if l.state != "" && q.Get("state") != l.state {
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, "<!doctype html><title>mcphost</title><h1>Not the authorization mcphost is waiting for</h1><p>This answer belongs to another (or an older) login. Use the URL mcphost printed last.</p>")
				return
			}
			if e := q.Get("error"); e != "" {
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprintf(w, "<!doctype html><title>mcphost</title><h1>Authorization failed</h1><p>%s: %s</p><p>You can close this tab and try again in the terminal.</p>",
					html.EscapeString(oneLine(e, 100)), html.EscapeString(oneLine(q.Get("error_description"), 300)))
			} else if q.Get("code") == "" {
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, "<!doctype html><title>mcphost</title><h1>No authorization code</h1><p>This page expects the authorization server's redirect.</p>")
				return
			} else {
				io.WriteString(w, "<!doctype html><title>mcphost</title><h1>Authorized</h1><p>mcphost received the authorization and finishes the login in the terminal. You can close this tab.</p>")
			}
			select {
			case got <- q:
			default:
			}
		}),
	}
	go srv.Serve(ln)
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	if err := open(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, loginWait)
	defer cancel()
	select {
	case q := <-got:
		return q, nil
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("no answer from the browser within %s (was the page opened? is 127.0.0.1:%d reachable from it?)", loginWait, l.port)
		}
		return nil, ctx.Err()
	}
}

// BrowserUI is the CLI's UI: it opens the system browser and prints the
// URL on a line of its own (for SSH sessions and machines without one).
type BrowserUI struct {
	// Out receives the messages (the terminal's stderr).
	Out io.Writer
	// NoBrowser only prints the URL.
	NoBrowser bool
	// Escape shows server-chosen text safely on a terminal (nil: as is).
	Escape func(string) string
}

func (b *BrowserUI) Open(ctx context.Context, id, authURL string) error {
	esc := b.Escape
	if esc == nil {
		esc = func(s string) string { return s }
	}
	u, err := url.Parse(authURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		// Never hand the desktop something it would run or open locally
		// (file:, a custom scheme).
		return fmt.Errorf("server %q: the authorization URL is not an http(s) URL", id)
	}
	if !b.NoBrowser && canOpenBrowser() {
		if err := openBrowser(authURL); err == nil {
			fmt.Fprintf(b.Out, "Opening the browser to authorize server %s. If it did not open, visit:\n%s\n", id, esc(authURL))
			return nil
		}
	}
	fmt.Fprintf(b.Out, "To authorize server %s, open this URL in a browser on this machine:\n%s\n", id, esc(authURL))
	fmt.Fprintf(b.Out, "Waiting for the authorization (the browser is sent back to 127.0.0.1)...\n")
	return nil
}

// canOpenBrowser: no browser over SSH or without a display.
func canOpenBrowser() bool {
	if os.Getenv("SSH_CONNECTION") != "" || os.Getenv("SSH_TTY") != "" {
		return false
	}
	if runtime.GOOS == "linux" || runtime.GOOS == "freebsd" || runtime.GOOS == "openbsd" {
		return os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != ""
	}
	return true
}

func openBrowser(u string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", u)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", u)
	default:
		cmd = exec.Command("xdg-open", u)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}
