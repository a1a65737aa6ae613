// Package restclienttest holds what the tests of the sources share about credentials: the
// ones they send, the Authorization header a server must receive for each, and the check that
// no error repeats a secret (a careless server or proxy echoes request headers into its error
// bodies).
package restclienttest

import (
	"fmt"
	"strings"

	"checkpoint-explorer/backend/model"
)

// Credential is one way a source authenticates to a cluster.
type Credential struct {
	// Name names the credential in subtests: "basic", "bearer".
	Name string
	Auth model.Auth
	// Header is the Authorization header the server must receive.
	Header string
	// Secrets are what no error may contain: the password or token, and the basic token.
	Secrets []string
}

// Credentials are Basic and Bearer; every secret is long enough for the sources to scrub it
// (restclient.Secrets ignores strings shorter than 3).
func Credentials() []Credential { return []Credential{Basic(), Bearer()} }

// Basic is basic authentication as user "flink". Its token, base64("flink:s3cret-pw"), is
// written out: the tests check the header against a value not computed the way the client
// computes it.
func Basic() Credential {
	return Credential{Name: "basic", Auth: model.Auth{Kind: model.AuthBasic, Username: "flink", Password: "s3cret-pw"},
		Header: "Basic Zmxpbms6czNjcmV0LXB3", Secrets: []string{"s3cret-pw", "Zmxpbms6czNjcmV0LXB3"}}
}

// Bearer is authentication with a bearer token.
func Bearer() Credential {
	return Credential{Name: "bearer", Auth: model.Auth{Kind: model.AuthBearer, Token: "tok-12345"},
		Header: "Bearer tok-12345", Secrets: []string{"tok-12345"}}
}

// Leak returns the first secret of any of Credentials that the text of err, plain or with
// %+v, contains: "" when there is none (or no error).
func Leak(err error) string {
	if err == nil {
		return ""
	}
	text := err.Error() + "\n" + fmt.Sprintf("%+v", err)
	for _, c := range Credentials() {
		for _, secret := range c.Secrets {
			if strings.Contains(text, secret) {
				return secret
			}
		}
	}
	return ""
}
