package github

import "context"

// ActionsLogin is who a GITHUB_TOKEN writes as (comments, statuses). Such
// a token may not read /user.
const ActionsLogin = "github-actions[bot]"

// Self is the login the token writes as: named when given (the Action's
// github-login input, e.g. a GitHub App's "name[bot]", whose installation
// token may not read /user either), else /user's login, else ActionsLogin.
// What ralph-ci reads back as its own record (checkpoint comments, the
// ledger's and the state's statuses) is what this login wrote.
func Self(ctx context.Context, users Users, named string) string {
	if named != "" {
		return named
	}
	if u, _, err := users.Get(ctx, ""); err == nil && u.GetLogin() != "" {
		return u.GetLogin()
	}
	return ActionsLogin
}
