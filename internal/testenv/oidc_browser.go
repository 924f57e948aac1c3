package testenv

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
)

// FollowAuthorization plays the user's browser for an authorization URL of
// the provider: it follows the redirects, signs in as "alice" on the login
// page, consents, and delivers the final redirect to the client's loopback
// callback (http://127.0.0.1:PORT/callback), which must answer 200. An OAuth
// error in that redirect is still delivered, then returned. When the provider
// shows an error page instead (it never redirects for a bad client or
// redirect_uri), error=... with the request's state is delivered to the
// request's redirect_uri all the same, so that a client waiting there fails
// at once rather than at its timeout, and the error is returned.
func FollowAuthorization(ctx context.Context, authURL string) error {
	start, err := url.Parse(authURL)
	if err != nil {
		return fmt.Errorf("authorization URL: %v", err)
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{
		Jar:           jar,
		Transport:     &http.Transport{DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	method, target, form := http.MethodGet, start, url.Values(nil)
	for step := 0; step < 20; step++ {
		status, loc, body, err := browse(ctx, c, method, target, form)
		if err != nil {
			return err
		}
		if loc != nil {
			if isLoopbackCallback(loc) {
				return deliverCallback(ctx, c, loc, "")
			}
			method, target, form = http.MethodGet, loc, nil
			continue
		}
		if f := pageForm(body, target); status == http.StatusOK && f != nil {
			if isLoopbackCallback(f.action) {
				return fmt.Errorf("the provider posts the response to the callback (response_mode=form_post): not supported")
			}
			method, target, form = http.MethodPost, f.action, f.values
			continue
		}
		oauthErr := pageError(body)
		msg := fmt.Sprintf("the provider answered %s %s with %d: %s: %s", method, target.Redacted(), status,
			oauthErr.Get("error"), oauthErr.Get("error_description"))
		cb, err := url.Parse(start.Query().Get("redirect_uri"))
		if err != nil || !isLoopbackCallback(cb) {
			return errors.New(msg)
		}
		q := url.Values{"error": {oauthErr.Get("error")}, "error_description": {oauthErr.Get("error_description")}}
		if s := start.Query().Get("state"); s != "" {
			q.Set("state", s)
		}
		cb.RawQuery = q.Encode()
		return deliverCallback(ctx, c, cb, msg+" (delivered to the callback as error="+oauthErr.Get("error")+")")
	}
	return fmt.Errorf("no redirect to the callback after 20 steps")
}

// browse sends one request of the browser without following redirects.
func browse(ctx context.Context, c *http.Client, method string, u *url.URL, form url.Values) (int, *url.URL, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, oidcTimeout)
	defer cancel()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return 0, nil, nil, err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("Accept", "text/html")
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("%s %s: %w", method, u.Redacted(), err)
	}
	defer resp.Body.Close()
	page, err := readCapped(resp.Body)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("%s %s: %w", method, u.Redacted(), err)
	}
	var loc *url.URL
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		if loc, err = resp.Location(); err != nil {
			return 0, nil, nil, fmt.Errorf("%s %s: redirect: %w", method, u.Redacted(), err)
		}
	}
	return resp.StatusCode, loc, page, nil
}

// deliverCallback GETs the client's callback and reports the OAuth error it
// carries, or failure, or earlier when the provider refused before it.
func deliverCallback(ctx context.Context, c *http.Client, cb *url.URL, earlier string) error {
	status, _, body, err := browse(ctx, c, http.MethodGet, cb, nil)
	var problems []string
	if earlier != "" {
		problems = append(problems, earlier)
	} else if e := cb.Query().Get("error"); e != "" {
		problems = append(problems, fmt.Sprintf("authorization failed: %s: %s", e, cb.Query().Get("error_description")))
	} else if cb.Query().Get("code") == "" {
		problems = append(problems, "the redirect to the callback has no code")
	}
	if err != nil {
		problems = append(problems, fmt.Sprintf("callback: %v", err))
	} else if status != http.StatusOK {
		problems = append(problems, fmt.Sprintf("callback answered %d: %.200s", status, body))
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

func isLoopbackCallback(u *url.URL) bool {
	h := u.Hostname()
	return u.Scheme == "http" && (h == "127.0.0.1" || h == "::1" || h == "localhost") && u.Path == "/callback"
}

// The devInteractions pages are known HTML: a small parser for their forms,
// rather than a new dependency.
var (
	formRe  = regexp.MustCompile(`(?is)<form\b([^>]*)>(.*?)</form>`)
	fieldRe = regexp.MustCompile(`(?is)<(input|button)\b([^>]*)>`)
	attrRe  = regexp.MustCompile(`(?s)([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?`)
	errRe   = regexp.MustCompile(`(?s)<strong>(error|error_description)</strong>:\s*([^<]*)`)
)

type htmlForm struct {
	action *url.URL
	values url.Values
}

// pageForm returns the first POST form of page, filled as a user would: any
// login ("alice"), any password, hidden fields as they are.
func pageForm(page []byte, base *url.URL) *htmlForm {
	for _, m := range formRe.FindAllSubmatch(page, -1) {
		attrs := htmlAttrs(m[1])
		if !strings.EqualFold(attrs["method"], "post") {
			continue
		}
		action, err := base.Parse(attrs["action"])
		if err != nil {
			continue
		}
		values := url.Values{}
		for _, f := range fieldRe.FindAllSubmatch(m[2], -1) {
			a := htmlAttrs(f[2])
			name, typ := a["name"], strings.ToLower(a["type"])
			switch {
			case name == "":
			case typ == "password":
				values.Set(name, "secret")
			case (typ == "" || typ == "text" || typ == "email") && a["value"] == "":
				values.Set(name, "alice")
			case typ == "checkbox" || typ == "radio":
				if _, checked := a["checked"]; checked {
					values.Add(name, a["value"])
				}
			default:
				values.Add(name, a["value"])
			}
		}
		return &htmlForm{action: action, values: values}
	}
	return nil
}

func htmlAttrs(s []byte) map[string]string {
	attrs := map[string]string{}
	for _, m := range attrRe.FindAllSubmatch(s, -1) {
		attrs[strings.ToLower(string(m[1]))] = html.UnescapeString(string(m[2]) + string(m[3]) + string(m[4]))
	}
	return attrs
}

// pageError reads error and error_description from oidc-provider's error
// page; error is server_error when the page has none.
func pageError(page []byte) url.Values {
	v := url.Values{}
	for _, m := range errRe.FindAllSubmatch(page, -1) {
		v.Set(string(m[1]), strings.TrimSpace(html.UnescapeString(string(m[2]))))
	}
	if v.Get("error") == "" {
		v.Set("error", "server_error")
		v.Set("error_description", fmt.Sprintf("no OAuth error on the page: %.200q", page))
	}
	return v
}
