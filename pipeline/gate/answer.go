package gate

import (
	"context"
	"fmt"
	"strings"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

// Answer records a local answer (`ralph-ci answer`) to the open
// checkpoint of sp, as if it had been given on a pull request, and
// prints the result on the channel. text is "1", "2 feedback", ...
func Answer(ctx context.Context, ch Local, sp plan.Spec, st *state.State, author, text string, log zerolog.Logger) (tiers.Effect, error) {
	ss := st.Spec(sp.Path)
	if ss == nil || ss.Checkpoint == nil || !ss.Checkpoint.Open() {
		status := "none"
		if ss != nil && ss.Checkpoint != nil {
			status = string(ss.Checkpoint.Status)
		}
		return tiers.Effect{}, fmt.Errorf("%s has no checkpoint waiting for an answer (status %s): run ralph-ci run until it is verified 3/3", sp.Path, status)
	}
	rec := clone(*ss.Checkpoint)
	for _, w := range tiers.Check(&rec) {
		log.Warn().Str("spec", sp.Path).Msg(w)
	}
	head := Head(ctx, ch.Root)
	before := rec.Status
	eff := tiers.Apply(&rec, tiers.Answer{Kind: tiers.KindLocal, Author: author, Text: strings.TrimSpace(text)}, head)
	for _, w := range eff.Warnings {
		log.Warn().Str("spec", sp.Path).Msg(w)
	}
	if rec.Status == tiers.StatusRework && before != tiers.StatusRework {
		sendBack(sp, st, rec)
		ss = st.Spec(sp.Path)
	}
	ss.Checkpoint = &rec
	if eff.Ignored != "" {
		log.Warn().Str("spec", sp.Path).Str("reason", eff.Ignored).Msg("answer ignored")
	}
	if rec.Status == tiers.StatusEscalated && len(rec.RejectionLog) == 0 {
		log.Warn().Str("spec", sp.Path).Msg(tiers.HistoryUnavailable)
	}
	_, err := ch.Publish(ctx, sp.Path, SliceOf(sp), rec)
	return eff, err
}
