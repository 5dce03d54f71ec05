package verify

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/schema"
)

// JudgeOutputChars is how much of the agent's output the judge sees
// (the spec's output[:5000]).
const JudgeOutputChars = 5000

// ModelError is logged, verbatim, when the judge cannot answer and the
// method falls back to string_match (the spec's "Semantic Verification
// Model Error").
const ModelError = "Semantic Verification Model Error"

// semantic is _verify_semantic: negative patterns first (fast rejection),
// then a judge agent answering VERIFIED or NOT_VERIFIED: reason. When the
// judge cannot answer, the claim is verified by string_match for this
// iteration.
type semantic struct{}

// Options implements Method.
func (semantic) Options() string { return "#SemanticConfig" }

// Verify implements Method.
func (semantic) Verify(ctx context.Context, in Input, cfg schema.VerificationConfig) Result {
	for _, p := range cfg.NegativePatterns {
		if has(in.Output, p) {
			return Result{Reason: fmt.Sprintf("Found negative pattern: %s", p)}
		}
	}
	var checkFor []string
	if cfg.CheckFor != nil {
		checkFor = cfg.CheckFor.Resolve(in.AcceptanceCriteria)
	}
	name := cfg.Judge
	if name == "" {
		name = in.DefaultJudge
	}
	answer, err := askJudge(ctx, in, name, cfg.Model, JudgePrompt(checkFor, JudgeExcerpt(in.Output)))
	if err == nil {
		var ok bool
		var reason string
		if ok, reason, err = ParseJudge(answer); err == nil {
			if ok {
				return Result{Passed: true, Reason: "Judge " + name + ": VERIFIED"}
			}
			return Result{Reason: "NOT_VERIFIED: " + reason}
		}
	}
	if ctx.Err() != nil {
		return Result{Reason: "semantic verification cancelled"}
	}
	in.Log.Error().Str("judge", name).Str("error", err.Error()).Msg(ModelError + ": falling back to string_match for this iteration")
	fb := matchPromise(in)
	fb.Reason = fmt.Sprintf("%s (%v); fell back to string_match: %s", ModelError, err, fb.Reason)
	return fb
}

func askJudge(ctx context.Context, in Input, name, model, prompt string) (string, error) {
	switch {
	case name == "":
		return "", errors.New("no judge agent configured: set verification_config.judge or layers.judge")
	case in.Judge == nil:
		return "", fmt.Errorf("judge agent %q cannot run here", name)
	}
	return in.Judge.Judge(ctx, name, model, prompt)
}

// JudgePrompt is the spec's judge prompt for the criteria and output.
func JudgePrompt(checkFor []string, output string) string {
	var crit strings.Builder
	for i, c := range checkFor {
		if i > 0 {
			crit.WriteByte('\n')
		}
		crit.WriteString("- " + c)
	}
	return fmt.Sprintf(`Analyze the following output and determine if these criteria are met:

Criteria to verify:
%s

Output to analyze:
%s

Respond with ONLY one of:
- VERIFIED: All criteria appear to be met
- NOT_VERIFIED: <reason>
`, crit.String(), output)
}

// JudgeExcerpt is the output the judge sees: its first JudgeOutputChars
// characters. Only the last agent.TailBytes of the final text are kept,
// so for a longer output these are the first characters of that tail.
func JudgeExcerpt(rep agent.Report) string {
	s := rep.Tail
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	n := 0
	for i := range s {
		if n == JudgeOutputChars {
			return s[:i]
		}
		n++
	}
	return s
}

// ParseJudge reads a judge's answer: the last line that starts with
// VERIFIED or NOT_VERIFIED (after list markers and emphasis). An answer
// with neither is an error.
func ParseJudge(answer string) (verified bool, reason string, err error) {
	lines := strings.Split(strings.ReplaceAll(answer, "\r\n", "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		l = strings.TrimLeft(l, "-*>` \t")
		l = strings.TrimSpace(strings.ReplaceAll(l, "**", ""))
		switch {
		case hasWord(l, "NOT_VERIFIED"):
			r := strings.TrimSpace(strings.TrimLeft(l[len("NOT_VERIFIED"):], ": \t"))
			if r == "" {
				r = "no reason given"
			}
			return false, r, nil
		case hasWord(l, "VERIFIED"):
			return true, "", nil
		}
	}
	return false, "", fmt.Errorf("the judge answered neither VERIFIED nor NOT_VERIFIED: %q", clip(strings.TrimSpace(answer), 200))
}

// hasWord tells whether l starts with w followed by nothing, ':' or space.
func hasWord(l, w string) bool {
	if !strings.HasPrefix(strings.ToUpper(l), w) {
		return false
	}
	rest := l[len(w):]
	return rest == "" || rest[0] == ':' || rest[0] == ' ' || rest[0] == '\t'
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
