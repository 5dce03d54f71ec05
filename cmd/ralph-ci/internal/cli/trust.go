package cli

import (
	"os"

	"github.com/ralph-ci/ralph-ci/internal/seal"
	"github.com/ralph-ci/ralph-ci/pipeline/agent"
)

// The agent is untrusted code running as the same user as ralph-ci (see
// docs/security.md). At the door ralph-ci:
//
//   - takes the job's token the way the Action hands it (internal/seal):
//     from the file descriptor RALPH_TOKEN_FD or the 0600 file
//     RALPH_TOKEN_FILE (read, then closed or deleted; the Action's way on
//     Windows), else GITHUB_TOKEN, and the push-token likewise
//     (RALPH_PUSH_TOKEN_FD, RALPH_PUSH_TOKEN_FILE); the Action execs
//     ralph-ci with the token in none of its environment variables;
//   - starts itself again without the job's credentials and the model
//     APIs' keys in its environment, handed on a pipe (internal/seal:
//     Seal, sealedAway);
//   - makes itself non-dumpable (Linux), so that no process of the same
//     user reads its /proc/PID/environ, fd or memory;
//   - registers the token and the values of *_TOKEN, *_KEY, *_SECRET
//     variables as secrets to mask in every output it reads, and the
//     values of the git configuration pairs of its environment that can
//     carry a credential (GIT_CONFIG_COUNT's, GIT_CONFIG_PARAMETERS'),
//     which no process it starts gets (agent.Host.WithholdGit);
//   - starts every agent and verification command under a shepherd (its
//     own executable), which contains everything they start.
//
// Before its first git command, it hides the credential actions/checkout
// persisted in the git config (pipeline/job's UseGitCredential).

// sealedAway tells whether a variable goes out of ralph-ci's own
// environment (internal/seal): the job's credentials and files, and the
// model APIs' keys (the proxy holds them).
func sealedAway(name string) bool {
	return agent.Removed(name, agent.EnvPolicy{}) || agent.ModelKey(name)
}

// sealedSecrets are the values of sealed entries that look like secrets.
func sealedSecrets(sealed map[string]string) []string {
	env := make([]string, 0, len(sealed))
	for k, v := range sealed {
		env = append(env, k+"="+v)
	}
	return agent.SecretsOf(env)
}

// protectProcess is the door's part that does not depend on the config:
// non-dumpable, secrets to mask, the shepherd.
func protectProcess(host *agent.Host, token string) {
	seal.NonDumpable()
	host.AddSecrets(token)
	host.AddEnvironSecrets()
	host.WithholdGit(os.Environ())
	if exe, err := os.Executable(); err == nil {
		host.Shepherd = exe
	}
}
