package jobenv

import (
	"strconv"
	"strings"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/github"
)

// PR is the part of the GitHub Actions environment the job's GitHub
// client and the pull-request channel need.
type PR struct {
	APIURL     string // GITHUB_API_URL (GHES too); default https://api.github.com
	Repository string // GITHUB_REPOSITORY, owner/name
	Token      string // GITHUB_TOKEN
	EventName  string // GITHUB_EVENT_NAME
	EventPath  string // GITHUB_EVENT_PATH
	RunNumber  int    // GITHUB_RUN_NUMBER (0 unknown): where a sweep starts
	// Login is RALPH_CI_GITHUB_LOGIN (the Action's github-login input):
	// the login the token writes as, e.g. "my-app[bot]" for a GitHub App's
	// installation token, which may not read /user either. "" asks /user,
	// else takes ActionsLogin.
	Login string
}

// Client is the configuration of the GitHub client of e: its API URL and
// token (the job session builds the one client from it, with the
// default deadline and retries, and log).
func (e PR) Client(log zerolog.Logger) github.Config {
	return github.Config{APIURL: e.APIURL, Token: e.Token, Log: log}
}

// PRFrom reads PR through getenv (os.Getenv at the edge).
func PRFrom(getenv func(string) string) PR {
	return PR{APIURL: getenv("GITHUB_API_URL"), Repository: getenv("GITHUB_REPOSITORY"), Token: getenv("GITHUB_TOKEN"),
		EventName: getenv("GITHUB_EVENT_NAME"), EventPath: getenv("GITHUB_EVENT_PATH"), RunNumber: atoiOr0(getenv("GITHUB_RUN_NUMBER")),
		Login: strings.TrimPrefix(strings.TrimSpace(getenv("RALPH_CI_GITHUB_LOGIN")), "@")}
}

// Sweep tells whether the event is one without a pull request on which
// check reads the checkpoints of every open pull request: schedule (the
// reactions given since the last run start no workflow) or
// workflow_dispatch, in a repository.
func (e PR) Sweep() bool {
	return (e.EventName == "schedule" || e.EventName == "workflow_dispatch") && e.Repository != ""
}

func atoiOr0(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0
	}
	return n
}
