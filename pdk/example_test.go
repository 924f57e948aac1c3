package pdk_test

import (
	"fmt"

	"github.com/mcphost/mcphost/pdk"
	"github.com/mcphost/mcphost/pdk/abi"
)

// A Mock is the host of a plugin's native tests: what the plugin entry
// would configure and grant, and what the plugin logs. (See package
// pdk/policy for a whole plugin tested with it.)
func ExampleUseMock() {
	mock := &pdk.Mock{
		Config:  map[string]string{"team": "red", "empty": ""},
		Secrets: map[string]string{"token": "s3cret"},
	}
	restore := pdk.UseMock(mock)
	defer restore()

	team, ok := pdk.Config("team")
	fmt.Println("team:", team, ok)
	_, ok = pdk.Config("empty") // an empty value reads as not set, as with the real host
	fmt.Println("empty set:", ok)
	fmt.Println("region:", pdk.ConfigOr("region", "eu"))
	_, ok = pdk.Secret("token")
	fmt.Println("token granted:", ok)

	pdk.Logf(abi.LogInfo, "team %s ready", team)
	for _, l := range mock.Logs() {
		fmt.Println("logged:", l.Level, l.Message)
	}
	// Output:
	// team: red true
	// empty set: false
	// region: eu
	// token granted: true
	// logged: 2 team red ready
}

// An auth plugin's HTTP requests go through the host; in tests the Mock's
// HTTP function answers them. Without one, every request is refused, as the
// host refuses them for plugins that are not auth plugins.
func ExampleMock_http() {
	defer pdk.UseMock(&pdk.Mock{
		HTTP: func(req abi.HTTPRequest) abi.HTTPResponse {
			return abi.HTTPResponse{Status: 200, Body: []byte(`{"access_token":"t-1"}`)}
		},
	})()
	resp, err := pdk.HTTP(abi.HTTPRequest{Method: "POST", URL: "https://login.example/token"})
	fmt.Println(resp.Status, string(resp.Body), err)

	defer pdk.UseMock(&pdk.Mock{})()
	_, err = pdk.HTTP(abi.HTTPRequest{Method: "GET", URL: "https://login.example/"})
	fmt.Println("without HTTP:", err != nil)
	// Output:
	// 200 {"access_token":"t-1"} <nil>
	// without HTTP: true
}
