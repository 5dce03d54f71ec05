package github

import (
	"errors"
	"net/http"

	gh "github.com/google/go-github/v60/github"
)

// status is the HTTP status of a go-github error (0 for another error).
func status(err error) int {
	var er *gh.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	return 0
}

// IsNoPermission tells a write refused for lack of permission (403, or
// the 404 GitHub answers a token that may not see the resource).
func IsNoPermission(err error) bool {
	s := status(err)
	return s == http.StatusForbidden || s == http.StatusNotFound
}

// IsNotFound tells a 404.
func IsNotFound(err error) bool { return status(err) == http.StatusNotFound }

// IsServerError tells a 5xx.
func IsServerError(err error) bool { return status(err) >= 500 }

// IsUnauthorized tells a 401: no token, or one GitHub does not accept.
func IsUnauthorized(err error) bool { return status(err) == http.StatusUnauthorized }
