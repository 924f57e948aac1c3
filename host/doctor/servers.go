package doctor

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/authn"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/stderrtail"
)

// checkServers reports each server: how it connected (latency, tools,
// server name, protocol) or why not, with the lines of a stdio server's
// stderr that say why (stderrtail).
func (r *Report) checkServers(cfg *config.Config, statuses map[string]host.ServerStatus, denied map[string]int, startErr error, limit time.Duration) {
	if statuses == nil && startErr != nil {
		r.add(Check{Kind: KindServer, Subject: "servers", Status: Fail, Message: "not started: " + startErr.Error(),
			Fix: "fix the configuration the message names"})
		return
	}
	seen := map[string]bool{}
	for _, s := range cfg.Servers {
		seen[s.ID] = true
		r.add(serverCheck(s, statuses[s.ID], denied[s.ID], startErr, limit))
	}
	// Servers the host was handed in code (host.WithInProcessServer).
	var extra []string
	for id := range statuses {
		if !seen[id] {
			extra = append(extra, id)
		}
	}
	sort.Strings(extra)
	for _, id := range extra {
		st := statuses[id]
		r.add(serverCheck(&config.Server{ID: id, Transport: st.Transport, Enabled: st.Enabled, Source: st.Source}, st, denied[id], startErr, limit))
	}
	if len(cfg.Servers)+len(extra) == 0 {
		r.add(Check{Kind: KindServer, Subject: "servers", Status: Warn, Message: "no server is configured",
			Fix: "add one: mcphost mcp add NAME -- COMMAND ARGS..., or mcphost mcp add NAME URL"})
	}
}

// serverCheck reports one server; denied is how many of its tools the
// policy always denies.
func serverCheck(s *config.Server, st host.ServerStatus, denied int, startErr error, limit time.Duration) Check {
	c := Check{Kind: KindServer, Subject: s.ID}
	switch {
	case s.Blocked != "":
		// Nothing in the entry to fix: the administrator's rule decides.
		c.Status, c.Message = Skip, "not started: "+s.Blocked
		return c
	case s.Err != nil:
		c.Status = Fail
		c.Message, c.Details = entryProblems(s.Err)
		c.Fix = entryFix(s)
		return c
	case s.Untrusted:
		c.Status, c.Message = Skip, "not started: it comes from a project file that is not trusted (see trust)"
		return c
	case !s.Enabled:
		c.Status, c.Message = Skip, "disabled"
		c.Fix = "mcphost mcp enable " + s.ID
		return c
	}
	errText := strings.TrimPrefix(st.Error, fmt.Sprintf("server %q: ", s.ID))
	switch st.State {
	case host.StateReady:
		c.LatencyMS = st.ConnectDuration.Milliseconds()
		c.Status = OK
		tools := plural(st.Tools, "tool")
		if denied > 0 {
			tools += fmt.Sprintf(" (%d denied by the policy)", denied)
		}
		parts := []string{fmt.Sprintf("connected in %s", st.ConnectDuration.Round(time.Millisecond)), tools}
		if name := strings.TrimSpace(st.ServerName + " " + st.ServerVersion); name != "" {
			parts = append(parts, name)
		}
		if st.ProtocolVersion != "" {
			parts = append(parts, "protocol "+st.ProtocolVersion)
		}
		c.Message = strings.Join(parts, ", ")
		if timeout := startupTimeout(s); st.ConnectDuration > timeout/2 {
			c.Status = Warn
			c.Message += fmt.Sprintf("; slow: that is over half of its startup_timeout %s", timeout)
			c.Fix = fmt.Sprintf("raise startup_timeout in %s, so that a slower start does not fail", s.Source)
		}
		if len(st.Warnings) > 0 {
			c.Status = Warn
			c.Message += "; " + plural(len(st.Warnings), "warning") + " about its tools"
			c.Details = append(c.Details, st.Warnings...)
			if c.Fix == "" {
				c.Fix = "the server's authors can fix its tools; the others are listed"
			}
		}
	case host.StateNeedsAuth:
		c.Status, c.Message = Fail, "refused mcphost: "+errText
		c.Fix = "mcphost login " + s.ID + " (see auth)"
	case host.StateConnecting, "":
		c.Status = Fail
		c.Message = fmt.Sprintf("no answer within the doctor's time limit of %s", limit)
		if errors.Is(startErr, errDeadline) {
			c.Message += " (it was still connecting)"
		}
		c.Fix = fmt.Sprintf("run \"mcphost doctor --timeout %s\", or \"mcphost mcp test %s\" to see how long it takes", 2*limit, s.ID)
	default:
		c.Status, c.Message = Fail, "did not connect: "+errText
		c.Details = stderrTail(st.Stderr, errText)
		c.Fix = connectFix(s, errText)
	}
	return c
}

func startupTimeout(s *config.Server) time.Duration {
	if s.StartupTimeout > 0 {
		return s.StartupTimeout
	}
	return config.DefaultStartupTimeout
}

// connectFix is the fix for a server that did not connect, by what its
// error says.
func connectFix(s *config.Server, errText string) string {
	switch {
	case strings.Contains(errText, "executable file not found") || (strings.Contains(errText, "no such file or directory") && s.Transport == config.TransportStdio):
		return fmt.Sprintf("%s is missing: the command check above says how to install it; or fix command in %s", s.Command, s.Source)
	case strings.Contains(errText, "startup_timeout"):
		return fmt.Sprintf("raise startup_timeout in %s (a first npx or uvx run downloads packages); \"mcphost mcp test %s\" shows its stderr", s.Source, s.ID)
	case s.Transport == config.TransportStdio:
		return fmt.Sprintf("its stderr above says why; \"mcphost mcp test %s\" tries it alone, --log-level debug shows every stderr line", s.ID)
	}
	return fmt.Sprintf("check the url in %s and that the server is up; \"mcphost mcp test %s\" tries it alone", s.Source, s.ID)
}

// entryProblems is the message of an invalid entry and, when it has more
// than one problem, each of them as a detail line (not one line holding
// newlines).
func entryProblems(err error) (string, []string) {
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok || len(joined.Unwrap()) < 2 {
		return "invalid entry: " + err.Error(), nil
	}
	var details []string
	for _, e := range joined.Unwrap() {
		details = append(details, e.Error())
	}
	return fmt.Sprintf("invalid entry: %d problems", len(details)), details
}

// entryFix is what to do about an invalid entry: when what is missing is
// a variable or a secret, the entry is right and that is what to set.
func entryFix(s *config.Server) string {
	var (
		unset  *config.UnsetVariableError
		secret *config.SecretError
		fixes  []string
	)
	if errors.As(s.Err, &unset) {
		fix := fmt.Sprintf("set the variable %s in the environment mcphost runs in (export %s=...)", unset.Name, unset.Name)
		if !unset.Secret {
			fix += fmt.Sprintf(", or give it a default in the entry: ${%s:-default}", unset.Name)
		}
		fixes = append(fixes, fix)
	}
	if errors.As(s.Err, &secret) {
		fixes = append(fixes, fmt.Sprintf("store the secret: mcphost secret set %s (the value on stdin)", secret.Name))
	}
	if len(fixes) > 0 && !otherProblems(s.Err) {
		return strings.Join(fixes, "; ")
	}
	fixes = append(fixes, fmt.Sprintf("fix the entry in %s; the other servers are not affected", s.Source))
	return strings.Join(fixes, "; ")
}

// otherProblems reports whether err holds a problem besides unset
// variables and missing secrets.
func otherProblems(err error) bool {
	errs := []error{err}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs = joined.Unwrap()
	}
	for _, e := range errs {
		var unset *config.UnsetVariableError
		var secret *config.SecretError
		if !errors.As(e, &unset) && !errors.As(e, &secret) {
			return true
		}
	}
	return false
}

// stderrTail is the lines of a server's stderr that say why it failed,
// without the one its error quotes: the cause is said once.
func stderrTail(lines []string, errText string) []string {
	return stderrtail.Below(lines, errText)
}

func isRemote(s *config.Server) bool {
	switch s.Transport {
	case config.TransportHTTP, config.TransportSSE, config.TransportWebSocket:
		return true
	}
	return false
}

// checkAuth reports the login state of each remote server that was to
// start, from the token store and from how the server answered.
func (r *Report) checkAuth(cfg *config.Config, statuses map[string]host.ServerStatus, store authn.Store, storeErr error, now time.Time) {
	if storeErr != nil {
		r.add(Check{Kind: KindAuth, Subject: "token store", Status: Warn, Message: "no token store: " + storeErr.Error(),
			Fix: "set MCPHOST_TOKEN_STORE=file to keep logins in mcp-auth.json (mode 0600) beside the global config"})
	}
	for _, s := range cfg.Servers {
		if s.Err != nil || s.Untrusted || s.Blocked != "" || !s.Enabled || !isRemote(s) {
			continue
		}
		r.add(authCheck(s, authn.Describe(store, s, now), statuses[s.ID]))
	}
}

func authCheck(s *config.Server, a authn.Status, st host.ServerStatus) Check {
	c := Check{Kind: KindAuth, Subject: s.ID, Status: OK}
	refused := st.State == host.StateNeedsAuth
	login := "mcphost login " + s.ID
	switch a.State {
	case "logged-in":
		c.Message = "logged in" + loginDetails(a)
		if refused {
			c.Status, c.Message = Fail, "logged in"+loginDetails(a)+", but the server refused the login"
			c.Fix = login + " (the server may want other scopes)"
		}
	case "expired":
		c.Message = "the access token expired; the refresh token renews it at the next connect" + loginDetails(a)
		if refused {
			c.Status, c.Message = Fail, "the login expired and could not be renewed"
			c.Fix = login
		}
	case "login-needed":
		c.Status, c.Message, c.Fix = Fail, "a login is needed", login
		if a.Note != "" {
			c.Message += ": " + a.Note
		}
	case "not-logged-in":
		c.Message = "no login stored; the server did not ask for one"
		if refused {
			c.Status, c.Message, c.Fix = Fail, "the server asks for a login, and there is none", login
		} else if st.State != host.StateReady {
			c.Status = Skip
			c.Message = "no login stored; whether the server wants one is not known, it did not connect (see server)"
		}
	case "static", "machine", "none":
		c.Message = map[string]string{
			"static":  "static credentials (" + a.Type + "), no login",
			"machine": "credentials of its own (" + a.Type + "), no login",
			"none":    "no authentication",
		}[a.State]
		if refused {
			c.Status = Fail
			c.Message += ", but the server refused them"
			c.Fix = fmt.Sprintf("check the auth block of %s in %s (and the variables it reads)", s.ID, s.Source)
		}
	default:
		c.Message = a.State
	}
	return c
}

// loginDetails is " (scopes a b; expires 2025-01-02 15:04:05)".
func loginDetails(a authn.Status) string {
	var parts []string
	if len(a.Scopes) > 0 {
		parts = append(parts, "scopes "+strings.Join(a.Scopes, " "))
	}
	if !a.ExpiresAt.IsZero() {
		exp := "expires " + a.ExpiresAt.UTC().Format(time.RFC3339)
		if a.Refreshable {
			exp += ", renewed automatically"
		}
		parts = append(parts, exp)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}
