package authn

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcphost/mcphost/host/config"
)

// Status is what "mcphost auth status" shows of a server: never a token.
type Status struct {
	ID   string `json:"id"`
	Type string `json:"type"` // the auth type ("oauth" for none given)
	// State: "logged-in", "expired" (a refresh token will renew it),
	// "login-needed", "not-logged-in", "static" (bearer, api_key,
	// token_file), "machine" (a grant that needs no login), "none".
	State       string    `json:"state"`
	Scopes      []string  `json:"scopes,omitempty"`
	ExpiresAt   time.Time `json:"expires_at,omitzero"`
	Refreshable bool      `json:"refreshable,omitempty"`
	ClientID    string    `json:"client_id,omitempty"`
	Store       string    `json:"store,omitempty"`
	Note        string    `json:"note,omitempty"`
}

// Describe reports the auth state of server s from store.
func Describe(store Store, s *config.Server, now time.Time) Status {
	st := Status{ID: s.ID, Type: s.Auth.Type}
	if st.Type == config.AuthAuto {
		st.Type = config.AuthOAuth
	}
	switch s.Auth.Type {
	case config.AuthNone:
		st.State = "none"
		return st
	case config.AuthBearer, config.AuthAPIKey, config.AuthTokenFile:
		st.State = "static"
		return st
	case config.AuthClientCredentials, config.AuthJWTBearer, config.AuthEnterprise:
		st.State, st.ClientID = "machine", s.Auth.ClientID
		return st
	}
	if store == nil {
		st.State = "not-logged-in"
		return st
	}
	st.Store = store.Name()
	rec, err := store.Load(s.ID)
	switch {
	case err != nil:
		st.State, st.Note = "login-needed", firstLineOf(err)
	case rec == nil || rec.AccessToken == "":
		st.State = "not-logged-in"
	case rec.Resource != s.URL:
		st.State, st.Note = "login-needed", "the stored login is for another URL ("+config.RedactURL(rec.Resource)+")"
	default:
		st.Scopes = strings.Fields(rec.Scope)
		st.ExpiresAt, st.ClientID = rec.ExpiresAt, rec.ClientID
		st.Refreshable = rec.RefreshToken != "" && rec.TokenURL != ""
		switch {
		case rec.ExpiresAt.IsZero() || now.Before(rec.ExpiresAt):
			st.State = "logged-in"
		case st.Refreshable:
			st.State = "expired"
			st.Note = "renewed with the refresh token at the next connect"
		default:
			st.State = "login-needed"
		}
	}
	return st
}

func firstLineOf(err error) string { return oneLine(err.Error(), 200) }

// LogoutResult says what Logout did.
type LogoutResult struct {
	Removed bool   // a login was stored and is gone
	Revoked bool   // the authorization server revoked the tokens
	Note    string // why they were not revoked, when they were not
}

// Logout removes server s's stored login and, where the authorization
// server offers it (RFC 7009), revokes the refresh and access tokens
// first. A client secret that "mcp add --oauth-client-secret" stored stays.
func Logout(ctx context.Context, store Store, s *config.Server, client *http.Client) (LogoutResult, error) {
	var res LogoutResult
	if store == nil {
		return res, errors.New("authn: no token store")
	}
	rec, err := store.Load(s.ID)
	if err != nil {
		// An unreadable record is removed all the same.
		if derr := store.Delete(s.ID); derr != nil {
			return res, derr
		}
		res.Removed, res.Note = true, "the stored record was unreadable"
		return res, nil
	}
	if rec == nil || (rec.AccessToken == "" && rec.RefreshToken == "") {
		return res, nil
	}
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	res.Revoked, res.Note = revoke(ctx, s, rec, client)
	keep := s.Auth.ClientID != "" && rec.ClientID == s.Auth.ClientID && rec.ClientSecret != "" && s.Auth.ClientSecret == ""
	if keep {
		err = store.Save(s.ID, &Record{Resource: rec.Resource, ClientID: rec.ClientID, ClientSecret: rec.ClientSecret, Updated: time.Now().UTC()})
	} else {
		err = store.Delete(s.ID)
	}
	if err != nil {
		return res, err
	}
	res.Removed = true
	return res, nil
}

// revoke asks the authorization server to revoke rec's tokens (RFC 7009),
// found by discovery from the server's URL.
func revoke(ctx context.Context, s *config.Server, rec *Record, client *http.Client) (bool, string) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	c := guardClient(client, s.URL, s.Auth)
	endpoint := rec.RevocationURL
	if endpoint == "" {
		// Not noted at login: ask discovery, and believe it only if it
		// names the authorization server that issued the tokens — the
		// server's metadata may point somewhere else by now.
		d, err := discover(ctx, rec.Resource, &http.Response{Header: http.Header{}}, c)
		if err != nil {
			return false, "no revocation: " + firstLineOf(err)
		}
		if rec.TokenURL == "" || d.asm.TokenEndpoint != rec.TokenURL {
			return false, "the authorization server that issued the tokens could not be confirmed, so they were not sent anywhere to be revoked"
		}
		endpoint = d.asm.RevocationEndpoint
	}
	if endpoint == "" {
		return false, "the authorization server offers no revocation; the tokens stay valid until they expire"
	}
	revoked := false
	for _, t := range []struct{ tok, hint string }{{rec.RefreshToken, "refresh_token"}, {rec.AccessToken, "access_token"}} {
		if t.tok == "" {
			continue
		}
		form := url.Values{"token": {t.tok}, "token_type_hint": {t.hint}}
		if rec.ClientSecret == "" {
			form.Set("client_id", rec.ClientID)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
		if err != nil {
			return false, err.Error()
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if rec.ClientSecret != "" {
			req.SetBasicAuth(url.QueryEscape(rec.ClientID), url.QueryEscape(rec.ClientSecret))
		}
		resp, err := c.Do(req)
		if err != nil {
			return false, "revocation failed: " + firstLineOf(err)
		}
		drain(resp)
		if resp.StatusCode != http.StatusOK {
			return false, fmt.Sprintf("the revocation endpoint answered %d", resp.StatusCode)
		}
		revoked = true
	}
	return revoked, ""
}
